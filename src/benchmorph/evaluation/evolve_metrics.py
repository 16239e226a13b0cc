"""EvoEval's metrics for evolved problems: per-type pass@1 and drop, composition and decomposition ratios.

- **per type**: pass@1 on the variants of each EvoEval type, and on their
  parents (every parent a variant names in ``provenance.parents``, else its
  ``parent_id``) where the parents were judged, with the drop between them;
- **composition ratio**: of the combined problems whose two parents the
  model solves, the share it also solves (EvoEval's measure of whether a
  model composes what it knows);
- **decomposition ratios**: per decomposed parent, whether the model solves
  all its subproblems (the LLM's two; the offline helpers, one or more) when
  it solves the parent, and when it does not.  Present
  only when the variants hold ``decompose`` subproblems
  (``provenance.role == "subproblem"``).

A model "solves" a problem when most of its samples pass (the only sample
under greedy decoding), as in the report's per-problem view.  The parents'
verdicts come from the same run (a benchmark that holds parents and variants)
or from a run of the same model on the originals (``benchmorph sensitivity``,
the report).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Iterable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from benchmorph.data.models import Problem, Variant, Verdict
from benchmorph.evaluation.passk import sample_counts
from benchmorph.evaluation.rundir import RunDir

TRANSFORM = "evolve"
SOLVED = 0.5  # share of samples that must pass for a problem to count as solved


@dataclass
class TypeScore:
    variants: int
    pass_at_1: float
    parents: int = 0  # parents judged
    parent_pass_at_1: float | None = None
    drop: float | None = None  # parents' pass@1 minus the variants'


@dataclass
class Ratio:
    """``solved`` of ``eligible``; ``ratio`` is None when nothing is eligible."""

    eligible: int
    solved: int

    @property
    def ratio(self) -> float | None:
        return self.solved / self.eligible if self.eligible else None

    def to_json(self) -> dict[str, Any]:
        return {"eligible": self.eligible, "solved": self.solved, "ratio": self.ratio}


@dataclass
class EvolveMetrics:
    types: dict[str, TypeScore] = field(default_factory=dict)
    composition: Ratio | None = None  # None: no combined problem with both parents judged
    decomposition_solved: Ratio | None = None  # all its subproblems, when the parent is solved
    decomposition_unsolved: Ratio | None = None  # all its subproblems, when it is not

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"types": {name: asdict(score) for name, score in self.types.items()}}
        if self.composition is not None:
            data["composition"] = self.composition.to_json()
        if self.decomposition_solved is not None or self.decomposition_unsolved is not None:
            data["decomposition"] = {
                "parent_solved": (self.decomposition_solved or Ratio(0, 0)).to_json(),
                "parent_unsolved": (self.decomposition_unsolved or Ratio(0, 0)).to_json(),
            }
        return data


def pass_fractions(verdicts: Iterable[Verdict]) -> dict[str, float]:
    """Per task: the share of its samples that pass."""
    return {task: correct / total for task, (total, correct) in sample_counts(list(verdicts)).items()}


def evolved(problems: Mapping[str, Problem]) -> dict[str, Variant]:
    """The variants an ``evolve`` transform made, by id."""
    return {
        pid: problem
        for pid, problem in problems.items()
        if isinstance(problem, Variant) and problem.transform == TRANSFORM
    }


def parents_of(variant: Variant) -> list[str]:
    """The seeds a variant names; ``[]`` when its seed is unknown (an EvoEval release task without one)."""
    named = variant.provenance.get("parents")
    if isinstance(named, list) and all(isinstance(p, str) for p in named):
        return [p for p in named if p]
    return [variant.parent_id] if variant.parent_id else []


def _mean(values: Collection[float]) -> float:
    return sum(values) / len(values)


def evolve_metrics(
    problems: Mapping[str, Problem],
    verdicts: Iterable[Verdict],
    parent_verdicts: Iterable[Verdict] | None = None,
    only: Collection[str] | None = None,
) -> EvolveMetrics | None:
    """The metrics over the evolved variants among ``problems`` that ``verdicts`` judge; None if there are none.

    ``parent_verdicts``: the same model on the parents (default: ``verdicts``,
    for a run that holds both); ``only``: restrict to these variant ids.
    """
    variants = {vid: v for vid, v in evolved(problems).items() if only is None or vid in only}
    judged = pass_fractions(verdicts)
    parent_judged = judged if parent_verdicts is None else pass_fractions(parent_verdicts)
    variants = {vid: v for vid, v in variants.items() if vid in judged}
    if not variants:
        return None

    def seeds_of(variant: Variant) -> list[str]:
        # In one run, a parent sharing its variant's id (EvoEval's verbose and concise keep
        # HumanEval's ids) is the variant's own verdict, not its parent's.
        return [p for p in parents_of(variant) if parent_verdicts is not None or p != variant.id]

    metrics = EvolveMetrics()
    by_type: dict[str, list[Variant]] = defaultdict(list)
    for variant in variants.values():
        by_type[str(variant.provenance.get("evolve_type") or variant.label)].append(variant)
    for kind, members in sorted(by_type.items()):
        score = TypeScore(len(members), _mean([judged[v.id] for v in members]))
        seeds = {pid for v in members for pid in seeds_of(v) if pid in parent_judged}
        if seeds:
            score.parents = len(seeds)
            score.parent_pass_at_1 = _mean([parent_judged[pid] for pid in seeds])
            score.drop = score.parent_pass_at_1 - score.pass_at_1
        metrics.types[kind] = score
    combined = [v for v in by_type.get("combine", []) if len(seeds_of(v)) >= 2]
    with_parents = [v for v in combined if all(pid in parent_judged for pid in seeds_of(v))]
    if with_parents:
        eligible = [v for v in with_parents if all(parent_judged[p] >= SOLVED for p in seeds_of(v))]
        metrics.composition = Ratio(len(eligible), sum(1 for v in eligible if judged[v.id] >= SOLVED))
    subproblems: dict[str, list[Variant]] = defaultdict(list)
    for variant in by_type.get("decompose", []):
        if variant.provenance.get("role") == "subproblem":
            subproblems[variant.parent_id].append(variant)
    solved, unsolved = Ratio(0, 0), Ratio(0, 0)
    for parent_id, subs in subproblems.items():
        # Every subproblem of the decomposition must be there: the offline ones have one or more
        # (``provenance.subproblems`` names them all), the LLM's two.
        named = subs[0].provenance.get("subproblems")
        expected = len(named) if isinstance(named, list) and named else 2
        if parent_id not in parent_judged or len(subs) < expected:
            continue
        bucket = solved if parent_judged[parent_id] >= SOLVED else unsolved
        bucket.eligible += 1
        bucket.solved += all(judged[s.id] >= SOLVED for s in subs)
    if solved.eligible or unsolved.eligible:
        metrics.decomposition_solved, metrics.decomposition_unsolved = solved, unsolved
    return metrics


def evolve_summary(problems: Mapping[str, Problem], verdicts: Iterable[Verdict]) -> dict[str, Any]:
    """``{"evolve": ...}`` for a run's summary.json when it judged evolved variants, else ``{}``.

    The parents' numbers (drop, composition ratio) appear when the run judged
    the parents too; otherwise ``benchmorph sensitivity`` pairs the run with
    one on the originals.
    """
    metrics = evolve_metrics(problems, verdicts)
    return {"evolve": metrics.to_json()} if metrics is not None else {}


def evolve_for_runs(
    original: RunDir, variant: RunDir, only: Collection[str] | None = None
) -> EvolveMetrics | None:
    """The metrics for one model: its run on the evolved variants against its run on the originals."""
    if not variant.parent_ids:
        return None
    return evolve_metrics(variant.problems(), variant.verdicts, original.verdicts, only)


__all__ = [
    "EvolveMetrics",
    "Ratio",
    "TypeScore",
    "evolve_for_runs",
    "evolve_metrics",
    "evolve_summary",
    "evolved",
    "parents_of",
]
