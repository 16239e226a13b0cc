"""What a study runs: one pydantic model whose keys are the ``benchmorph study`` flags.

Every flag ``--name-of-flag`` is the key ``name_of_flag`` (``--model`` is ``model``, a list), so a
``study.toml`` holds the same choices as a command line and the two combine: the file's values,
then the flags given on the command line.  ``docs/study.md`` documents every key.

A bad value is an ``InputError`` naming the file, the line and the key, never a traceback.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from benchmorph.data.errors import InputError

DEFAULT_BASELINES = ("reference", "original", "memorizer")
DEFAULT_OUT = Path("benchmorph-out/study")
PATH_KEYS = ("out", "data", "cache_path")


class StudyConfig(BaseModel):
    """A study: a benchmark, the models, the families to build and how to run them."""

    model_config = ConfigDict(extra="forbid")

    # what is studied
    benchmark: str = Field(min_length=1, description="Benchmark name or problems file.")
    model: list[str] = Field(min_length=1, description="Model specs to study (the flag repeats).")
    out: Path = Field(DEFAULT_OUT, description="The study's directory.")
    data: Path | None = Field(None, description="Local data file for the benchmark.")
    limit: int | None = Field(None, ge=1, description="Only the first N problems.")
    tasks: str | None = Field(None, description="Only these task ids, comma-separated.")
    seed: int = Field(0, description="Seed of the variant sets (the same seed gives the same sets).")

    # what is built
    family: list[str] | None = Field(
        None, description="Families to build (default: every registered family that can be built)."
    )
    generator: str | None = Field(
        None, description="Model spec for the LLM halves (ctf, metamorphic agents, LLM evolve types)."
    )
    solver: str | None = Field(
        None, description="Solver model spec of the LLM halves (default: the generator)."
    )
    variants: int = Field(5, ge=1, description="Metamorphic variants per seed problem: K of DyPass@K.")
    evolve_types: str | None = Field(
        None,
        description="EvoEval types, comma-separated (default: the evolve family's own default offline, "
        "every type it knows with --generator).",
    )
    family_option: dict[str, dict[str, Any]] = Field(
        default_factory=dict, description="A family's own options: {family: {option: value}}."
    )
    augment_tests: bool = Field(False, description="Augment the originals' tests (test rigour finding).")
    augment_per_problem: int = Field(1000, ge=1, description="Valid new inputs to find per problem.")
    augment_budget_s: float = Field(20.0, ge=0.0, description="CPU seconds of test search per problem.")

    # who is measured, and how
    baseline: list[str] = Field(
        default_factory=lambda: list(DEFAULT_BASELINES), description="Calibration baselines to run."
    )
    reference_models: list[str] | None = Field(
        None, description="Models trusted not to have seen the benchmark (default: the reference baseline)."
    )
    n: int = Field(1, ge=1, description="Samples per problem.")
    temperature: float = Field(0.0, ge=0.0)
    top_p: float = Field(1.0, gt=0.0, le=1.0)
    max_tokens: int = Field(512, ge=1)
    sample_seed: int | None = Field(None, description="Sample i of a model uses sample_seed + i.")
    concurrency: int | None = Field(None, ge=1)
    timeout: float = Field(300.0, gt=0.0)
    retries: int = Field(5, ge=0)
    backoff: float = Field(1.0, ge=0.0)
    api_key_env: str | None = None
    cache: bool = True
    cache_path: Path | None = None

    # where samples run
    workers: int | None = Field(None, ge=1)
    sandbox: str | None = None
    memory_mb: int | None = Field(None, ge=64)
    min_time_limit: float = Field(1.0, gt=0.0)
    time_factor: float = Field(4.0, gt=0.0)

    # what is reported
    min_problems: int = Field(5, ge=1, description="Fewest problems a finding may rest on.")
    export_hf: bool = Field(True, description="Write the variant sets as a Hugging Face datasets directory.")
    dry_run: bool = Field(False, description="Print the plan and its estimate; build and run nothing.")
    probe: bool = Field(
        True, description="A dry run measures the per-sample cost (sandbox, model) where no study has."
    )

    @field_validator("baseline", "family", mode="before")
    @classmethod
    def _split(cls, value: Any) -> Any:
        """``--family mine,evolve`` and ``family = ["mine", "evolve"]`` say the same (model specs may hold
        commas, several URLs of one model, so ``model`` is not split)."""
        if isinstance(value, str):
            value = [value]
        if isinstance(value, list) and all(isinstance(item, str) for item in value):
            return [part.strip() for item in value for part in item.split(",") if part.strip()]
        return value

    @field_validator("model")
    @classmethod
    def _unique(cls, value: list[str]) -> list[str]:
        return list(dict.fromkeys(value))

    def flags(self) -> dict[str, Any]:
        """The configuration as JSON (what study.json records)."""
        return self.model_dump(mode="json")


def flag_name(key: str) -> str:
    return "--" + key.replace("_", "-")


def _line_of(text: str, loc: tuple[Any, ...]) -> int | None:
    """The line of the file that sets ``loc`` (a key, or a key inside a [table]), for the error."""
    if not loc:
        return None
    table: tuple[str, ...] = ()
    wanted = tuple(str(part) for part in loc if not isinstance(part, int))
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        header = re.match(r"^\[([^\[\]]+)\]$", stripped)
        if header:
            table = tuple(part.strip().strip('"') for part in header.group(1).split("."))
            if table == wanted[: len(table)] and len(table) == len(wanted):
                return number
            continue
        match = re.match(r'^"?([A-Za-z0-9_-]+)"?\s*=', stripped)
        if match and table + (match.group(1),) == wanted[: len(table) + 1]:
            return number
    return None


def _first(exc: ValidationError) -> Any:
    """The error to report: an unknown key first (a misspelt key also makes its real one missing)."""
    errors = exc.errors()
    return next((error for error in errors if error["type"] == "extra_forbidden"), errors[0])


def _error(path: Path, text: str, exc: ValidationError) -> InputError:
    error = _first(exc)
    loc = tuple(error["loc"])
    key = ".".join(str(part) for part in loc) or "?"
    message = {"extra_forbidden": "unknown key (see docs/study.md)", "missing": "required"}.get(
        error["type"], error["msg"]
    )
    return InputError(message, path=path, line=_line_of(text, loc), field=key)


def load_config(path: str | Path, overrides: dict[str, Any] | None = None) -> StudyConfig:
    """``study.toml`` (every key as docs/study.md lists it), then ``overrides`` (the flags given).

    A file that is not TOML, an unknown key or a bad value is an InputError naming the file, the
    line and the key.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError("no such file", path=path) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read: {exc}", path=path) from None
    try:
        values = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        found = re.search(r"line (\d+)", str(exc))
        line = int(found.group(1)) if found else None
        if line is None and "end of document" in str(exc):
            line = max(1, len(text.splitlines()))
        message = re.sub(r"\s*\(at (line \d+, column \d+|end of document)\)", "", str(exc))
        raise InputError(f"not TOML: {message}", path=path, line=line) from None
    for key in PATH_KEYS:  # a path in the file is relative to the file, not to where the command runs
        if isinstance(values.get(key), str) and not Path(values[key]).expanduser().is_absolute():
            values[key] = str(path.parent / values[key])
    merged = {**values, **(overrides or {})}
    try:
        config = StudyConfig.model_validate(merged)
    except ValidationError as exc:
        error = _first(exc)
        if error["loc"] and str(error["loc"][0]) in (overrides or {}):
            raise config_error(exc) from None
        raise _error(path, text, exc) from None
    return config


def config_error(exc: ValidationError) -> InputError:
    """A bad flag value, named as the flag."""
    error = exc.errors()[0]
    loc = [str(part) for part in error["loc"]]
    name = flag_name(loc[0]) if loc else "?"
    if error["type"] == "missing":
        return InputError(f"{name} is required")
    return InputError(f"{name}: {error['msg']}")


def make_config(values: dict[str, Any], config_file: str | Path | None = None) -> StudyConfig:
    """The study's configuration from flags (``values``) over an optional ``study.toml``."""
    if config_file is not None:
        return load_config(config_file, values)
    try:
        return StudyConfig.model_validate(values)
    except ValidationError as exc:
        raise config_error(exc) from None
