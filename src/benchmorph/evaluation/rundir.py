"""Reading a run directory back (manifest, summary, verdicts, samples) for analyses across runs."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

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
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError(
            "missing: is this a run directory (from `benchmorph run` or `evaluate`)?", path=path
        ) from None
    except json.JSONDecodeError as exc:
        raise InputError(f"not JSON: {exc.msg}", path=path, line=exc.lineno) from None
    if not isinstance(data, dict):
        raise InputError("expected a JSON object", path=path)
    return data


def load_run(path: str | Path) -> RunDir:
    """A run directory, with every file checked: a missing or malformed one is an InputError naming it."""
    root = Path(path)
    manifest = _read_json(root / MANIFEST)
    summary = _read_json(root / "summary.json")
    verdicts = []
    for line, row in read_jsonl(root / "results.jsonl"):
        try:
            verdicts.append(Verdict.model_validate(row))
        except ValueError as exc:
            raise InputError(
                f"not a verdict: {str(exc).splitlines()[0]}", path=root / "results.jsonl", line=line
            ) from None
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
