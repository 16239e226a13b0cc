"""Reading a run directory back (manifest, summary, verdicts, samples) for analyses across runs."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from benchmorph.data.errors import InputError
from benchmorph.data.jsonl import read_jsonl, require
from benchmorph.data.models import Problem, Verdict
from benchmorph.data.registry import load_benchmark
from benchmorph.evaluation.manifest import MANIFEST


@dataclass
class RunSample:
    task_id: str
    index: int
    code: str
    raw: str | None = None  # the model's answer before sanitizing, where it differs


@dataclass
class RunDir:
    path: Path
    manifest: dict[str, Any]
    summary: dict[str, Any]
    verdicts: list[Verdict]
    samples: list[RunSample]
    _problems: dict[str, Problem] | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def model(self) -> str:
        return str(self.manifest.get("model", "unknown"))

    @property
    def benchmark(self) -> str:
        return str(self.manifest.get("benchmark", "?"))

    @property
    def parent_ids(self) -> dict[str, str]:
        """Variant id -> parent id; empty for a run on original problems."""
        return dict(self.manifest.get("parent_ids") or {})

    def problems(self) -> dict[str, Problem]:
        """The run's problems, loaded again the way the run loaded them (once per RunDir)."""
        if self._problems is not None:
            return self._problems
        source = self.manifest.get("source") or {}
        if not source.get("benchmark"):
            raise InputError(
                "manifest has no source benchmark (written by an older benchmorph?)",
                path=self.path / MANIFEST,
                field="source",
            )
        self._problems = load_benchmark(source["benchmark"], source.get("data")).by_id()
        return self._problems


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_bytes().decode("utf-8"))
    except FileNotFoundError:
        raise InputError(
            "missing: is this a run directory (from `benchmorph run` or `evaluate`)?", path=path
        ) from None
    except IsADirectoryError:
        raise InputError("is a directory, expected a JSON file", path=path) from None
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", path=path) from None
    except UnicodeDecodeError as exc:
        line = exc.object[: exc.start].count(b"\n") + 1
        raise InputError(f"not UTF-8 text: {exc.reason}", path=path, line=line) from None
    except json.JSONDecodeError as exc:
        raise InputError(f"not JSON: {exc.msg} (column {exc.colno})", path=path, line=exc.lineno) from None
    if not isinstance(data, dict):
        raise InputError("expected a JSON object", path=path)
    return data


def _check_manifest(manifest: dict[str, Any], path: Path) -> None:
    """The fields analyses read, with the types they need; anything else in the manifest is informative."""
    for key in ("model", "benchmark"):
        if key in manifest and not isinstance(manifest[key], str):
            raise InputError(f"expected str, got {type(manifest[key]).__name__}", path=path, field=key)
    parents = manifest.get("parent_ids")
    if parents is not None and not (
        isinstance(parents, dict) and all(isinstance(v, str) for v in parents.values())
    ):
        raise InputError("expected an object of variant id -> parent id", path=path, field="parent_ids")
    source = manifest.get("source")
    if source is None:
        return
    if not isinstance(source, dict):
        raise InputError(f"expected an object, got {type(source).__name__}", path=path, field="source")
    for key in ("benchmark", "data"):
        value = source.get(key)
        if value is not None and not isinstance(value, str):
            raise InputError(f"expected str, got {type(value).__name__}", path=path, field=f"source.{key}")


def _verdict(row: dict[str, Any], *, path: Path, line: int) -> Verdict:
    try:
        return Verdict.model_validate(row)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in first["loc"])
        message = "missing field" if first["type"] == "missing" else first["msg"]
        raise InputError(
            f"not a verdict: {message}", path=path, line=line, field=field.lstrip(".") or None
        ) from None


def load_run(path: str | Path) -> RunDir:
    """A run directory, with every file checked: a missing or malformed one is an InputError naming it."""
    root = Path(path)
    manifest = _read_json(root / MANIFEST)
    _check_manifest(manifest, root / MANIFEST)
    summary = _read_json(root / "summary.json")
    verdicts = []
    for line, row in read_jsonl(root / "results.jsonl"):
        verdicts.append(_verdict(row, path=root / "results.jsonl", line=line))
    samples: list[RunSample] = []
    samples_file = root / "samples.jsonl"
    if samples_file.exists():
        counts: Counter[str] = Counter()
        for line, row in read_jsonl(samples_file):
            task_id = require(row, "task_id", str, path=samples_file, line=line)
            code = require(row, "solution", str, path=samples_file, line=line)
            raw = row.get("raw") if isinstance(row.get("raw"), str) else None
            samples.append(RunSample(task_id, counts[task_id], code, raw))
            counts[task_id] += 1
    return RunDir(root, manifest, summary, verdicts, samples)
