"""A study's benchmark and results in the ecosystem's formats, so others can load and re-run them.

- ``exports/hf/``: every variant set (and the originals) as one split of a Hugging Face
  ``datasets.DatasetDict`` (``save_to_disk``; read it with ``datasets.load_from_disk``).  Each row has
  the problem's readable fields and ``record``, its native JSONL line, from which our reader rebuilds
  exactly the same problem (values whose types vary across problems, tests and provenance, do not fit
  one Arrow column type otherwise).
- ``exports/evalplus/SET.jsonl`` and ``exports/evoeval/SET.jsonl``: the data layer's EvalPlus and
  EvoEval writers (function problems only; others are listed as skipped).
- ``exports/eval_results/MODEL.json``: each model's verdicts on the originals in the shape of
  EvalPlus's ``eval_results.json`` (``{"date", "hash", "eval": {task_id: [{"task_id", "solution",
  "base_status", "plus_status", "base_fail_tests", "plus_fail_tests"}]}}``), the plus tests being the
  augmented ones when the study augmented tests (else ``plus_status`` is None, as with EvalPlus's
  base-only mode).
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmorph.data import values
from benchmorph.data.errors import InputError
from benchmorph.data.formats.evalplus import write_evalplus_jsonl
from benchmorph.data.formats.evoeval import write_evoeval_jsonl
from benchmorph.data.models import Problem, Variant, Verdict
from benchmorph.data.storage import write_text_atomic
from benchmorph.evaluation.manifest import problems_digest
from benchmorph.evaluation.rundir import RunDir

ORIGINALS_SPLIT = "originals"
STATUS = {"pass": "pass", "timeout": "timeout"}  # EvalPlus knows pass, fail and timeout only


@dataclass
class Exports:
    """What was exported, relative to the study directory, and what could not be."""

    hf: str | None = None
    evalplus: list[str] = field(default_factory=list)
    evoeval: list[str] = field(default_factory=list)
    eval_results: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "hf": self.hf,
            "evalplus": self.evalplus,
            "evoeval": self.evoeval,
            "eval_results": self.eval_results,
            "skipped": self.skipped,
        }


def hf_row(problem: Problem) -> dict[str, Any]:
    """One problem as a dataset row: readable columns plus ``record`` (its native JSON line)."""
    variant = problem if isinstance(problem, Variant) else None
    return {
        "id": problem.id,
        "kind": problem.kind,
        "prompt": problem.prompt,
        "entry_point": problem.entry_point,
        "reference": problem.reference,
        "tests": len(problem.tests),
        "parent_id": variant.parent_id if variant is not None else None,
        "transform": variant.transform if variant is not None else None,
        "label": variant.label if variant is not None else None,
        "record": json.dumps(problem.to_json(), ensure_ascii=False, sort_keys=True),
    }


def write_hf(splits: Mapping[str, Sequence[Problem]], folder: Path) -> Path:
    """The splits as a ``datasets.DatasetDict`` saved to ``folder`` (needs the ``instruct`` extra); every
    split must hold at least one problem."""
    try:
        import datasets  # type: ignore[import-untyped]
    except ImportError:
        raise InputError(
            "the Hugging Face export needs `datasets`: pip install 'benchmorph[instruct]'"
        ) from None
    columns = (
        "id",
        "kind",
        "prompt",
        "entry_point",
        "reference",
        "tests",
        "parent_id",
        "transform",
        "label",
        "record",
    )
    features = datasets.Features(
        {name: datasets.Value("int64" if name == "tests" else "string") for name in columns}
    )

    def split(problems: Sequence[Problem]) -> Any:
        rows = [hf_row(problem) for problem in problems]  # by column: an empty set is an empty split
        return datasets.Dataset.from_dict(
            {name: [row[name] for row in rows] for name in columns}, features=features
        )

    datasets.disable_progress_bars()  # the library prints nothing; `datasets` would draw a bar per split
    built = datasets.DatasetDict({name: split(problems) for name, problems in splits.items()})
    built.save_to_disk(str(folder))
    return folder


def read_hf_record(record: str) -> Problem:
    """A problem back from an exported row's ``record``."""
    from benchmorph.data.formats.native import parse_record

    return parse_record(json.loads(record), path=Path("<hf export>"), line=0)


def _status(verdict: Verdict | None) -> str | None:
    if verdict is None:
        return None
    return "pass" if verdict.ok else STATUS.get(verdict.status, "fail")


def _failed(problem: Problem | None, verdict: Verdict | None, plus: bool) -> list[Any]:
    """The inputs of the failing tests (base tests, or the added ones for ``plus``), as JSON values."""
    if problem is None or verdict is None:
        return []
    failed = []
    for result in verdict.tests:
        if result.status in ("pass", "not-run") or result.index >= len(problem.tests):
            continue
        test = problem.tests[result.index]
        if (test.origin != "base") == plus:
            failed.append(values.encode(test.input))
    return failed


def eval_results(
    original: RunDir,
    augmented: RunDir | None,
    problems: Mapping[str, Problem],
    augmented_problems: Mapping[str, Problem] | None = None,
) -> dict[str, Any]:
    """One model's run on the originals in EvalPlus's ``eval_results.json`` shape (``plus``: the
    augmented tests' verdicts, when the study augmented them)."""
    solutions = {(sample.task_id, sample.index): sample.code for sample in original.samples}
    plus = {(v.task_id, v.index): v for v in augmented.verdicts} if augmented is not None else {}
    evaluated: dict[str, list[dict[str, Any]]] = {}
    for verdict in sorted(original.verdicts, key=lambda v: (v.task_id, v.index)):
        if verdict.task_id not in problems:
            continue
        plus_verdict = plus.get((verdict.task_id, verdict.index))
        evaluated.setdefault(verdict.task_id, []).append(
            {
                "task_id": verdict.task_id,
                "solution": solutions.get((verdict.task_id, verdict.index), ""),
                "base_status": _status(verdict),
                "plus_status": _status(plus_verdict),
                "base_fail_tests": _failed(problems[verdict.task_id], verdict, plus=False),
                "plus_fail_tests": _failed(
                    (augmented_problems or {}).get(verdict.task_id), plus_verdict, plus=True
                ),
            }
        )
    return {
        "date": time.strftime("%Y-%m-%d %H:%M"),
        "hash": problems_digest(list(problems.values())),
        "eval": evaluated,
    }


def write_exports(
    root: Path,
    originals: Sequence[Problem],
    sets: Mapping[str, Sequence[Problem]],
    runs: Mapping[str, tuple[RunDir, RunDir | None]],
    *,
    augmented_problems: Sequence[Problem] = (),
    hf: bool = True,
    label_of: Mapping[str, str] | None = None,
) -> Exports:
    """Every export of a study under ``root / "exports"``; ``runs``: model -> (originals run, augmented run)."""
    out = root / "exports"
    exports = Exports()
    splits = {ORIGINALS_SPLIT: list(originals), **{name: list(problems) for name, problems in sets.items()}}
    if hf:
        # An empty split saves but does not load back (datasets 5.2), and holds nothing to share.
        for name in [name for name, problems in splits.items() if not problems]:
            exports.skipped.append(f"hf: {name} has no problems")
        try:
            filled = {name: problems for name, problems in splits.items() if problems}
            exports.hf = str(write_hf(filled, out / "hf").relative_to(root))
        except InputError as exc:
            exports.skipped.append(f"hf: {exc.message}")
        except Exception as exc:  # noqa: BLE001 - a third-party writer failing must not lose the study
            exports.skipped.append(f"hf: datasets failed: {type(exc).__name__}: {exc}".splitlines()[0])
    for name, problems in splits.items():
        functions = [problem for problem in problems if problem.kind == "function"]
        if len(functions) < len(problems):
            exports.skipped.append(
                f"{name}: {len(problems) - len(functions)} non-function problems not in EvalPlus/EvoEval files"
            )
        for kind, writer, listing in (
            ("evalplus", write_evalplus_jsonl, exports.evalplus),
            ("evoeval", write_evoeval_jsonl, exports.evoeval),
        ):
            target = out / kind / f"{name}.jsonl"
            try:
                writer(functions, target)
            except InputError as exc:
                exports.skipped.append(f"{kind}/{name}: {exc.message}")
                continue
            listing.append(str(target.relative_to(root)))
    by_id = {problem.id: problem for problem in originals}
    extended = {problem.id: problem for problem in augmented_problems}
    for model, (original, augmented) in runs.items():
        target = out / "eval_results" / f"{(label_of or {}).get(model, model)}.json"
        target.parent.mkdir(parents=True, exist_ok=True)
        results = eval_results(original, augmented, by_id, extended)
        write_text_atomic(target, json.dumps(results, indent=1) + "\n")
        exports.eval_results.append(str(target.relative_to(root)))
    return exports
