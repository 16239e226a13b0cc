"""Detail sensitivity: how much a model drops from original problems to their counterfactuals, and why.

The CTF paper's most frequent failure is answering the original: code that
fails the counterfactual's tests but passes the original's, i.e. the model
did not read the changed detail.  Counting it needs the variant samples run
against the *parent* problems, so this analysis executes code too.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from benchmorph.data.errors import InputError
from benchmorph.data.models import Problem, Verdict
from benchmorph.evaluation.rundir import RunDir
from benchmorph.execution.backends import ExecutionBackend
from benchmorph.execution.engine import Job


@dataclass
class PairOutcome:
    variant_id: str
    parent_id: str
    pass_original: float  # fraction of the original run's samples that pass
    pass_variant: float
    answered_original: int  # variant samples failing the variant but passing the parent


@dataclass
class Sensitivity:
    model: str
    original_run: str
    variant_run: str
    pairs: int
    pass_original: float
    pass_variant: float
    drop: float
    relative_drop: float | None
    both: int
    original_only: int
    variant_only: int
    neither: int
    variant_failures: int
    answered_original: int
    per_problem: list[PairOutcome] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def _passes(verdicts: Sequence[Verdict]) -> dict[str, dict[int, bool]]:
    table: dict[str, dict[int, bool]] = defaultdict(dict)
    for verdict in verdicts:
        table[verdict.task_id][verdict.index] = verdict.ok
    return table


def pair_runs(runs: Sequence[RunDir]) -> list[tuple[RunDir, RunDir]]:
    """(original run, variant run) pairs of the same model whose problems are parent and child."""
    originals = [run for run in runs if not run.parent_ids]
    pairs = []
    for variant_run in (run for run in runs if run.parent_ids):
        parents = set(variant_run.parent_ids.values())
        matches = [
            run
            for run in originals
            if run.model == variant_run.model and parents & {v.task_id for v in run.verdicts}
        ]
        if matches:
            # The original run that covers most of the parents.
            best = max(matches, key=lambda run: len(parents & {v.task_id for v in run.verdicts}))
            pairs.append((best, variant_run))
    return pairs


def answered_original_verdicts(
    variant_run: RunDir, parents: dict[str, Problem], engine: ExecutionBackend, failing: set[tuple[str, int]]
) -> dict[tuple[str, int], bool]:
    """Run the variant samples that failed against their parent problems; True where they pass there."""
    needed = {variant_run.parent_ids[task] for task, _ in failing}
    missing = sorted(needed - set(parents))
    if missing:
        raise InputError(
            f"parent problem '{missing[0]}' is not in the original benchmark", path=variant_run.path
        )
    prepared = {p.id: p for p in engine.prepare([parents[pid] for pid in sorted(needed)]).problems}
    variants = variant_run.problems()
    jobs = []
    for sample in variant_run.samples:
        key = (sample.task_id, sample.index)
        parent_id = variant_run.parent_ids.get(sample.task_id)
        if key in failing and parent_id in prepared:
            code = sample.code
            variant = variants.get(sample.task_id)
            parent = prepared[parent_id]
            if variant is not None and variant.entry_point != parent.entry_point and parent.entry_point:
                # The variant renamed the function (remove_vowels -> remove_consonants): the answer
                # is the same program under the variant's name, so the parent calls it by that.
                code = f"{code.rstrip()}\n\n\n{parent.entry_point} = {variant.entry_point}\n"
            jobs.append(Job(parent, code, sample.task_id, sample.index))
    return {
        (job.task_id, job.index): verdict.ok for job, verdict in zip(jobs, engine.evaluate(jobs), strict=True)
    }


def sensitivity(
    original_run: RunDir, variant_run: RunDir, engine: ExecutionBackend, only: Collection[str] | None = None
) -> Sensitivity:
    """Paired comparison of one model on originals and their variants (runs from `benchmorph run`).

    ``only`` restricts it to some variant ids: reports split one variant run
    into families (ctf, robust, each EvoEval type) this way.
    """
    original = _passes(original_run.verdicts)
    variant = _passes(variant_run.verdicts)
    pairs = [
        (vid, pid)
        for vid, pid in variant_run.parent_ids.items()
        if vid in variant and pid in original and (only is None or vid in only)
    ]
    if not pairs:
        raise InputError("no variant in this run has its parent in the original run", path=variant_run.path)
    failing = {(vid, index) for vid, _ in pairs for index, ok in variant[vid].items() if not ok}
    if failing and not variant_run.samples:
        raise InputError(
            "samples.jsonl is missing: needed to run failed variant samples on the parents",
            path=variant_run.path,
        )
    answered = (
        answered_original_verdicts(variant_run, original_run.problems(), engine, failing) if failing else {}
    )

    cells = {"both": 0, "original_only": 0, "variant_only": 0, "neither": 0}
    outcomes = []
    for vid, pid in pairs:
        for index, variant_ok in variant[vid].items():
            original_ok = original[pid].get(index, original[pid].get(0, False))
            key = {(True, True): "both", (True, False): "original_only", (False, True): "variant_only"}
            cells[key.get((original_ok, variant_ok), "neither")] += 1
        outcomes.append(
            PairOutcome(
                vid,
                pid,
                sum(original[pid].values()) / len(original[pid]),
                sum(variant[vid].values()) / len(variant[vid]),
                sum(1 for index in variant[vid] if answered.get((vid, index))),
            )
        )
    pass_original = sum(o.pass_original for o in outcomes) / len(outcomes)
    pass_variant = sum(o.pass_variant for o in outcomes) / len(outcomes)
    drop = pass_original - pass_variant
    return Sensitivity(
        model=variant_run.model,
        original_run=str(original_run.path),
        variant_run=str(variant_run.path),
        pairs=len(outcomes),
        pass_original=pass_original,
        pass_variant=pass_variant,
        drop=drop,
        relative_drop=drop / pass_original if pass_original else None,
        variant_failures=len(failing),
        answered_original=sum(o.answered_original for o in outcomes),
        per_problem=outcomes,
        **cells,
    )
