"""The numbers a report shows, as plain data computed once from run directories.

The HTML, Markdown, CSV and JSON exports all render these objects and never
compute a number themselves, so the four always agree.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field, fields

from benchmorph.data.models import Variant, Verdict
from benchmorph.evaluation.evolve_metrics import evolve_for_runs
from benchmorph.evaluation.passk import pass_at_k_table, sample_counts
from benchmorph.evaluation.rundir import RunDir
from benchmorph.evaluation.sensitivity import PairOutcome, Sensitivity, pair_runs, sensitivity
from benchmorph.execution.backends import ExecutionBackend
from benchmorph.report.stats import bootstrap_mean, bootstrap_paired_difference, kendall_tau, ranks

# A model "passes" a problem in the per-problem view when most of its samples
# pass (under greedy decoding: its only sample).
MAJORITY = 0.5


@dataclass
class LeaderboardRow:
    model: str
    benchmark: str
    run: str
    problems: int
    samples_per_problem: int
    pass_at_1: float
    ci_low: float
    ci_high: float
    pass_at_k: dict[str, float] = field(default_factory=dict)  # k > 1, where every problem has k samples
    statuses: dict[str, int] = field(default_factory=dict)


@dataclass
class FamilyRow:
    """One model on one family of variants (ctf, robust, an EvoEval type) against their parents."""

    model: str
    family: str
    original_benchmark: str
    variant_benchmark: str
    pairs: int
    pass_original: float
    pass_variant: float
    drop: float
    drop_ci_low: float
    drop_ci_high: float
    relative_drop: float | None
    both: int
    original_only: int
    variant_only: int
    neither: int
    variant_failures: int
    answered_original: int
    # Evolved (EvoEval) combine families: combined problems solved, of those whose two parents are solved.
    composition_ratio: float | None = None
    composition_eligible: int = 0


# FamilyRow's numbers that `sensitivity` computes; `model` is not among them
# because the report names a model by its run label.
_FROM_SENSITIVITY = tuple(
    f.name for f in fields(FamilyRow) if f.name in {g.name for g in fields(Sensitivity)} and f.name != "model"
)


@dataclass
class RankMove:
    model: str
    rank_original: int
    rank_variant: int
    places: int  # positive: moved up on the variants


@dataclass
class RankingChange:
    family: str
    original_benchmark: str
    variant_benchmark: str
    models: int
    kendall_tau: float | None
    same_problems: bool  # every model was paired on the same variants
    moves: list[RankMove] = field(default_factory=list)


@dataclass
class ModelOutcome:
    original: float | None  # fraction of samples passing
    variant: float | None
    answered_original: int = 0

    def passes(self, side: str) -> bool:
        """Whether most samples pass on ``side`` ("original" or "variant"); False where it was not run."""
        value = getattr(self, side)
        return value is not None and value >= MAJORITY


@dataclass
class ProblemRow:
    id: str
    parent_id: str | None
    family: str
    outcomes: dict[str, ModelOutcome] = field(default_factory=dict)
    # What links the row to its drill-down: the id, or "id (family)" where sets reuse ids
    # (EvoEval's published sets all number their tasks EvoEval/0, EvoEval/1...).
    key: str = ""

    def passing(self, side: str) -> list[str]:
        return [model for model, outcome in self.outcomes.items() if outcome.passes(side)]

    def passing_both(self) -> list[str]:
        variant = set(self.passing("variant"))
        return [model for model in self.passing("original") if model in variant]


@dataclass
class Pairing:
    """An original run and a variant run of one model, and the family of each variant."""

    model: str
    original: RunDir
    variant: RunDir
    families: dict[str, str]  # variant id -> family


def run_labels(runs: Sequence[RunDir]) -> dict[str, str]:
    """Run path -> the name tables show: the model, plus the folder when one model ran one benchmark twice."""
    seen = Counter((run.model, run.benchmark) for run in runs)
    return {
        str(run.path): run.model
        if seen[(run.model, run.benchmark)] == 1
        else f"{run.model} ({run.path.name})"
        for run in runs
    }


def pass_fractions(verdicts: Sequence[Verdict]) -> dict[str, float]:
    counts = sample_counts(verdicts)
    return {task: correct / total for task, (total, correct) in counts.items()}


def leaderboard(runs: Sequence[RunDir]) -> list[LeaderboardRow]:
    """pass@1 per run with a 95% bootstrap interval over problems, and pass@k where n > 1."""
    labels = run_labels(runs)
    rows = []
    for run in runs:
        counts = sample_counts(run.verdicts)
        if not counts:
            continue
        table = pass_at_k_table(counts)
        interval = bootstrap_mean([correct / total for total, correct in counts.values()])
        ks = [k for k in (2, 5, 10, 20, 50, 100) if k in table]
        rows.append(
            LeaderboardRow(
                model=labels[str(run.path)],
                benchmark=run.benchmark,
                run=str(run.path),
                problems=len(counts),
                samples_per_problem=min(total for total, _ in counts.values()),
                pass_at_1=table[1],
                ci_low=interval.low,
                ci_high=interval.high,
                pass_at_k={f"pass@{k}": table[k] for k in ks},
                statuses=dict(Counter(verdict.status for verdict in run.verdicts)),
            )
        )
    return sorted(rows, key=lambda row: (row.benchmark, -row.pass_at_1, row.model))


def family_of(problem: object) -> str:
    if isinstance(problem, Variant):
        if problem.transform == "evolve":  # one row per EvoEval type, named as the evolve family
            return f"evolve/{problem.label}"
        return problem.label or problem.transform or "variant"
    return "variant"


def pairings(runs: Sequence[RunDir]) -> list[Pairing]:
    """Every (original run, variant run) pair of one model, with each variant's family from its problem file."""
    labels = run_labels(runs)
    found = []
    for original, variant in pair_runs(runs):
        problems = variant.problems()
        families = {vid: family_of(problems.get(vid)) for vid in variant.parent_ids}
        found.append(Pairing(labels[str(variant.path)], original, variant, families))
    return found


def family_rows(
    pairs: Sequence[Pairing], engine: ExecutionBackend
) -> tuple[list[FamilyRow], dict[tuple[str, str], list[PairOutcome]]]:
    """Original vs variant per (model, family), and the per-variant outcomes behind each row.

    The outcomes are keyed by (variant run path, family): one model may have
    run two variant files whose variants share a family.
    """
    rows = []
    outcomes: dict[tuple[str, str], list[PairOutcome]] = {}
    for pairing in pairs:
        judged_variants = {v.task_id for v in pairing.variant.verdicts}
        judged_originals = {v.task_id for v in pairing.original.verdicts}
        by_family: dict[str, set[str]] = defaultdict(set)
        for vid, family in pairing.families.items():
            # Only variants that `sensitivity` can pair: judged, with their parent judged too.
            if vid in judged_variants and pairing.variant.parent_ids[vid] in judged_originals:
                by_family[family].add(vid)
        for family, ids in sorted(by_family.items()):
            result = sensitivity(pairing.original, pairing.variant, engine, only=ids)
            interval = bootstrap_paired_difference(
                [o.pass_original for o in result.per_problem], [o.pass_variant for o in result.per_problem]
            )
            outcomes[(str(pairing.variant.path), family)] = result.per_problem
            shared = {name: getattr(result, name) for name in _FROM_SENSITIVITY}
            evolved = evolve_for_runs(pairing.original, pairing.variant, only=ids)
            composition = evolved.composition if evolved is not None else None
            if composition is not None:
                shared["composition_ratio"] = composition.ratio
                shared["composition_eligible"] = composition.eligible
            rows.append(
                FamilyRow(
                    model=pairing.model,
                    family=family,
                    original_benchmark=pairing.original.benchmark,
                    variant_benchmark=pairing.variant.benchmark,
                    drop_ci_low=interval.low,
                    drop_ci_high=interval.high,
                    **shared,
                )
            )
    return rows, outcomes


def ranking_changes(rows: Sequence[FamilyRow]) -> list[RankingChange]:
    """How the order of models changes from originals to variants, per family and benchmark pair."""
    groups: dict[tuple[str, str, str], list[FamilyRow]] = defaultdict(list)
    for row in rows:
        groups[(row.family, row.original_benchmark, row.variant_benchmark)].append(row)
    changes = []
    for (family, original_benchmark, variant_benchmark), members in sorted(groups.items()):
        if len(members) < 2:
            continue
        before = {row.model: row.pass_original for row in members}
        after = {row.model: row.pass_variant for row in members}
        rank_before, rank_after = ranks(before), ranks(after)
        moves = sorted(
            (
                RankMove(model, rank_before[model], rank_after[model], rank_before[model] - rank_after[model])
                for model in before
            ),
            key=lambda move: (move.rank_variant, move.model),
        )
        changes.append(
            RankingChange(
                family=family,
                original_benchmark=original_benchmark,
                variant_benchmark=variant_benchmark,
                models=len(members),
                kendall_tau=kendall_tau(before, after),
                same_problems=len({row.pairs for row in members}) == 1,
                moves=moves,
            )
        )
    return changes


def problem_rows(
    pairs: Sequence[Pairing], outcomes: dict[tuple[str, str], list[PairOutcome]], originals: Sequence[RunDir]
) -> list[ProblemRow]:
    """Per variant: each model's pass rate on it and on its parent; with no variants, per original problem."""
    rows: dict[tuple[str, str], ProblemRow] = {}
    for pairing in pairs:
        for family in sorted(set(pairing.families.values())):
            for outcome in outcomes.get((str(pairing.variant.path), family), []):
                row = rows.setdefault(
                    (family, outcome.variant_id), ProblemRow(outcome.variant_id, outcome.parent_id, family)
                )
                row.outcomes[pairing.model] = ModelOutcome(
                    outcome.pass_original, outcome.pass_variant, outcome.answered_original
                )
    if not rows:
        labels = run_labels(originals)
        for run in originals:
            for task, fraction in pass_fractions(run.verdicts).items():
                row = rows.setdefault((run.benchmark, task), ProblemRow(task, None, run.benchmark))
                row.outcomes[labels[str(run.path)]] = ModelOutcome(fraction, None)
    models = sorted({model for row in rows.values() for model in row.outcomes})
    shared = Counter(row.id for row in rows.values())
    for row in rows.values():
        row.outcomes = {model: row.outcomes[model] for model in models if model in row.outcomes}
        row.key = row.id if shared[row.id] == 1 else f"{row.id} ({row.family})"
    return sorted(rows.values(), key=lambda row: (_natural_key(row.id), row.family))


def _natural_key(text: str) -> list[object]:
    """HumanEval/2 before HumanEval/10."""
    parts: list[object] = []
    for piece in text.replace("-", "/").split("/"):
        parts.extend([0, int(piece)] if piece.isdigit() else [1, piece])
    return parts


__all__ = [
    "FamilyRow",
    "LeaderboardRow",
    "ModelOutcome",
    "Pairing",
    "ProblemRow",
    "RankMove",
    "RankingChange",
    "family_rows",
    "leaderboard",
    "pairings",
    "problem_rows",
    "ranking_changes",
    "run_labels",
]
