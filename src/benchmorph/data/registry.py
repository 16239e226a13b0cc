"""Benchmarks by name, and format detection for paths.

A loader turns a name (or a user's file) into Problems whose tests hold
inputs; expected outputs are filled later by running the reference in the
sandbox (``benchmorph.execution.prepare``), since the data layer never runs
untrusted code.  Adding a benchmark or a file format is one new module in
``benchmorph.data.formats`` (or a plug-in's, named by an entry point in the
group ``benchmorph.formats``) that calls :func:`register_benchmark` or
:func:`register_format` when imported; both registries find such modules
themselves.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from benchmorph.core.registry import Registry
from benchmorph.data.errors import InputError
from benchmorph.data.jsonl import read_jsonl
from benchmorph.data.models import Problem

Loader = Callable[[Path | None], list[Problem]]
Detector = Callable[[Path], bool]


@dataclass(frozen=True)
class BenchmarkEntry:
    name: str
    loader: Loader
    description: str
    kinds: tuple[str, ...] = ("function",)
    # Approximate size, shown by `benchmorph datasets` without loading everything.
    size: int | None = None
    # Benchmarks that need a data file the user passes or we download.
    needs_data: bool = False


@dataclass(frozen=True)
class FormatEntry:
    name: str
    detect: Detector
    loader: Loader
    # Detectors are tried in this order (then registration order): a format whose rows another's
    # detector would also accept goes first (native files before everything else).
    priority: int = 50


@dataclass
class Benchmark:
    name: str
    problems: list[Problem]
    # How to load it again ({"benchmark": name or absolute path, "data": absolute path or None}):
    # run manifests record it so that `report` and `sensitivity` can reload a run's problems later.
    source: dict[str, str | None] = field(default_factory=dict)

    def by_id(self) -> dict[str, Problem]:
        return {problem.id: problem for problem in self.problems}


def select_problems(
    problems: Sequence[Problem],
    limit: int | None = None,
    tasks: str | Sequence[str] | None = None,
    *,
    field: str = "tasks",
) -> list[Problem]:
    """The problems named by ``tasks`` (ids, in the order given; a string is comma-separated), then the
    first ``limit`` of them.  An unknown id is an InputError naming ``field``, so a typo never silently
    shrinks a run.
    """
    chosen = list(problems)
    if tasks:
        by_id = {problem.id: problem for problem in problems}
        wanted = [task.strip() for task in (tasks.split(",") if isinstance(tasks, str) else tasks)]
        wanted = [task for task in wanted if task]
        unknown = [task for task in wanted if task not in by_id]
        if unknown:
            raise InputError(f"unknown task id '{unknown[0]}'", field=field)
        chosen = [by_id[task] for task in dict.fromkeys(wanted)]
    if limit is not None:
        chosen = chosen[:limit]
    return chosen


BENCHMARKS: Registry[BenchmarkEntry] = Registry(
    "benchmark", packages=("benchmorph.data.formats",), group="benchmorph.formats", unknown=InputError
)
FORMATS: Registry[FormatEntry] = Registry(
    "file format", packages=("benchmorph.data.formats",), group="benchmorph.formats", unknown=InputError
)


def register_benchmark(entry: BenchmarkEntry) -> None:
    BENCHMARKS.add(entry.name, entry)


def register_format(entry: FormatEntry) -> None:
    FORMATS.add(entry.name, entry)


def _formats() -> list[FormatEntry]:
    entries = [entry for _, entry in FORMATS.items()]
    return sorted(entries, key=lambda entry: entry.priority)  # stable: registration order within a priority


def available_benchmarks() -> list[BenchmarkEntry]:
    return sorted((entry for _, entry in BENCHMARKS.items()), key=lambda entry: entry.name)


def _unrecognised(path: Path) -> InputError:
    """Why no format claimed a file: its first bad line when it has one, else what it holds."""
    expected = "expected benchmorph JSONL, EvalPlus, EvoEval or LiveCodeBench"
    if path.is_dir():
        return InputError(f"is a directory; {expected}", path=path)
    if path.suffix != ".gz":
        with path.open("rb") as handle:
            head = handle.read(4096).lstrip()
        if head.startswith(b"["):
            return InputError(f"a JSON array, but not LiveCodeBench's; {expected}", path=path)
    rows = read_jsonl(path)
    try:
        # Raises the precise error (encoding, gzip, JSON) of a file that is not JSONL at all.
        first = next(rows, None)
    finally:
        rows.close()
    if first is None:
        return InputError("empty file: no problems in it", path=path)
    line, row = first
    fields = ", ".join(sorted(row)[:8]) or "none"
    return InputError(
        f"unrecognised benchmark format ({expected}); its fields: {fields}", path=path, line=line
    )


def load_benchmark(name_or_path: str, data_path: str | Path | None = None) -> Benchmark:
    """Load a benchmark by registered name (optionally from a local data file) or by file path."""
    key = name_or_path.lower()
    if key in BENCHMARKS:
        entry = BENCHMARKS.get(key)
        problems = entry.loader(Path(data_path) if data_path else None)
        if not problems and data_path:
            raise InputError("no problems in this file (empty?)", path=data_path)
        data = str(Path(data_path).resolve()) if data_path else None
        return Benchmark(entry.name, problems, {"benchmark": name_or_path, "data": data})
    path = Path(name_or_path)
    if path.exists():
        for fmt in _formats():
            if fmt.detect(path):
                return Benchmark(
                    path.stem, fmt.loader(path), {"benchmark": str(path.resolve()), "data": None}
                )
        raise _unrecognised(path)
    names = ", ".join(sorted(BENCHMARKS.names()))
    raise InputError(f"unknown benchmark '{name_or_path}' (not a file; known: {names})")
