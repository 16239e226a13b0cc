"""Everything one report shows, built once from run directories and written to report.json."""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchmorph import __version__
from benchmorph.evaluation.rundir import RunDir, load_run
from benchmorph.execution.backends import ExecutionBackend
from benchmorph.report.analysis import (
    FamilyRow,
    LeaderboardRow,
    ProblemRow,
    RankingChange,
    family_rows,
    leaderboard,
    pairings,
    problem_rows,
    ranking_changes,
    run_labels,
)
from benchmorph.report.contamination import (
    AxisVerdict,
    ContaminationGroup,
    Cutoffs,
    DateGroup,
    MetamorphicRow,
    axis_verdicts,
    contamination,
    date_split,
    metamorphic_rows,
)
from benchmorph.report.details import ProblemDetail, problem_details
from benchmorph.report.recall import RecallCurve, report_curves

if TYPE_CHECKING:
    from benchmorph.report.findings import Findings

SCHEMA_VERSION = 1


@dataclass
class Report:
    created: str
    runs: list[dict[str, Any]]
    leaderboard: list[LeaderboardRow]
    families: list[FamilyRow]
    rankings: list[RankingChange]
    problems: list[ProblemRow]
    details: list[ProblemDetail] = field(default_factory=list)
    # Models run on originals and on metamorphic variants (three or more per benchmark): the verdict.
    contamination: list[ContaminationGroup] = field(default_factory=list)
    # Every model run on originals and on metamorphic variants: Pass@K beside DyPass@K, and BLEU-4.
    metamorphic: list[MetamorphicRow] = field(default_factory=list)
    # With cutoffs: pass@1 before and after each model's training cutoff, on dated originals.
    dates: list[DateGroup] = field(default_factory=list)
    # Per model, which axes (rewrites, dates) flag it.
    verdicts: list[AxisVerdict] = field(default_factory=list)
    # How close the metamorphic variants stay to their originals, on the fuzzy memoriser's curve.
    recall: list[RecallCurve] = field(default_factory=list)
    # A study's findings (``benchmorph study``): shown first; None for a report over runs alone.
    findings: Findings | None = None

    @property
    def models(self) -> list[str]:
        """Every model name the per-problem view shows, in a stable order."""
        return sorted({model for row in self.problems for model in row.outcomes})

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["schema_version"] = SCHEMA_VERSION
        data["benchmorph"] = __version__
        data["models"] = self.models
        for row, problem in zip(data["problems"], self.problems, strict=True):
            row["pass_original"] = problem.passing("original")
            row["pass_variant"] = problem.passing("variant")
            row["pass_both"] = problem.passing_both()
        return data


def build_report(
    runs: Sequence[RunDir | str | Path],
    engine: ExecutionBackend,
    *,
    cutoffs: Cutoffs | None = None,
    reference_models: Sequence[str] = (),
) -> Report:
    """Pair runs by model and parent ids, then compute every table.

    The engine is needed because answered-the-original counts run failed
    variant samples against their parent problems.  ``cutoffs`` (model ->
    training cutoff, ``""`` for every model) add the date split of the
    contamination section; ``reference_models`` are the models trusted to be
    uncontaminated.

    >>> from benchmorph.execution import Engine
    >>> with Engine() as engine:  # doctest: +SKIP
    ...     report = build_report(["he-reference", "v-reference"], engine)
    """
    loaded = [run if isinstance(run, RunDir) else load_run(run) for run in runs]
    labels = run_labels(loaded)
    pairs = pairings(loaded)
    families, outcomes = family_rows(pairs, engine)
    originals = [run for run in loaded if not run.parent_ids]
    problems = problem_rows(pairs, outcomes, originals)
    dates = date_split(loaded, cutoffs, reference_models) if cutoffs else []
    known = [row.model for group in dates for row in group.models]
    groups = contamination(loaded, reference_models, known_models=known)
    return Report(
        created=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        runs=[
            {
                "label": labels[str(run.path)],
                "path": str(run.path),
                "model": run.model,
                "benchmark": run.benchmark,
                "variants": bool(run.parent_ids),
                "verdicts": len(run.verdicts),
            }
            for run in loaded
        ],
        leaderboard=leaderboard(loaded),
        families=families,
        rankings=ranking_changes(families),
        problems=problems,
        details=problem_details(problems, pairs, originals, labels),
        contamination=groups,
        metamorphic=metamorphic_rows(loaded),
        dates=dates,
        verdicts=axis_verdicts(groups, dates),
        recall=report_curves(pairs),
    )


def write_json(report: Report, path: str | Path) -> Path:
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(report.to_json(), indent=1, allow_nan=False) + "\n", encoding="utf-8")
    return target
