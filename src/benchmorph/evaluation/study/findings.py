"""The study's findings, from its runs, with the library's own analyses.

Per variant set and per family label in it (``report.analysis.family_of``: ``ctf``, ``metamorphic``,
``evolve/<type>``, or a plug-in family's label):

- counterfactual families (and any other changed-behaviour label): ``evaluation.sensitivity`` gives
  the paired pass rates and the answered-the-original count; the drop gets a paired bootstrap
  interval and the share of failures that answered the original a Wilson interval;
- metamorphic sets: ``report.contamination.contamination`` gives the verdict (three or more models,
  leave-one-out fit) and the gap's paired interval; static pass@K and DyPass@K are computed here per
  seed from the runs' verdicts, with their own paired interval;
- evolved types: the drop per type (``sensitivity`` restricted to the type) and, for combine, the
  composition ratio (``evaluation.evolve_metrics``) with a Wilson interval;
- every family: Kendall's tau-b between the models' order on the parents and on the variants, with a
  bootstrap interval over the pairs.

Test rigour compares each model's samples on the originals' base tests and on the augmented tests.
Sets are analysed one at a time, so two sets with the same label (offline and LLM metamorphic
variants) never mix.  A number resting on fewer than ``min_problems`` problems (seeds, pairs) has no
value but a note: "too few problems".
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from statistics import fmean

import numpy as np

from benchmorph.data.models import Verdict
from benchmorph.evaluation.evolve_metrics import evolve_for_runs
from benchmorph.evaluation.passk import dypass_counts, pass_at_k, sample_counts
from benchmorph.evaluation.rundir import RunDir
from benchmorph.evaluation.sensitivity import Sensitivity, sensitivity
from benchmorph.execution.backends import ExecutionBackend
from benchmorph.report.analysis import family_of, pass_fractions
from benchmorph.report.contamination import contamination
from benchmorph.report.findings import (
    ContaminationRow,
    Estimate,
    EvolutionRow,
    Findings,
    RankingRow,
    RigourRow,
    SensitivityRow,
)
from benchmorph.report.stats import (
    RESAMPLES,
    SEED,
    bootstrap_mean,
    bootstrap_paired_difference,
    kendall_tau,
    ranks,
    wilson,
)

METAMORPHIC = "metamorphic"
EVOLVE_PREFIX = "evolve/"
MIN_RANKED_MODELS = 3


@dataclass
class StudyRuns:
    """The loaded runs of a study: the originals, each variant set's and the augmented tests', by model."""

    benchmark: str
    problems: int
    models: list[str]  # labels, models first, then baselines
    baselines: dict[str, str]  # label -> baseline name
    originals: dict[str, RunDir]
    sets: dict[str, dict[str, RunDir]]  # set name -> model -> run
    augmented: dict[str, RunDir]
    new_tests: int = 0


def too_few(count: int, minimum: int, unit: str = "problems") -> str:
    return f"too few {unit}: {count}, at least {minimum}"


def _mean_estimate(values: Sequence[float], minimum: int, unit: str = "problems") -> Estimate:
    if len(values) < minimum:
        return Estimate(None, n=len(values), unit=unit, note=too_few(len(values), minimum, unit))
    interval = bootstrap_mean(list(values))
    return Estimate(fmean(values), interval.low, interval.high, len(values), unit)


def _paired(
    first: Sequence[float], second: Sequence[float], minimum: int, unit: str = "problems"
) -> Estimate:
    if len(first) < minimum:
        return Estimate(None, n=len(first), unit=unit, note=too_few(len(first), minimum, unit))
    interval = bootstrap_paired_difference(list(first), list(second))
    return Estimate(fmean(first) - fmean(second), interval.low, interval.high, len(first), unit)


def _share(hits: int, trials: int, problems: int, minimum: int, unit: str) -> Estimate:
    if problems < minimum:
        return Estimate(None, n=trials, unit=unit, note=too_few(problems, minimum))
    if trials == 0:
        return Estimate(None, n=0, unit=unit, note=f"no {unit}")
    interval = wilson(hits, trials)
    return Estimate(hits / trials, interval.low, interval.high, trials, unit)


def originals_estimate(run: RunDir, minimum: int) -> Estimate:
    return _mean_estimate(list(pass_fractions(run.verdicts).values()), minimum)


def labels_of(run: RunDir) -> dict[str, set[str]]:
    """Family label -> the variant ids of the run (its problems read back from the run's source)."""
    problems = run.problems()
    found: dict[str, set[str]] = defaultdict(set)
    for variant_id in run.parent_ids:
        found[family_of(problems.get(variant_id))].add(variant_id)
    return found


def _sensitivity(
    original: RunDir, variant: RunDir, ids: set[str], engine: ExecutionBackend
) -> Sensitivity | None:
    judged = {v.task_id for v in variant.verdicts}
    parents = {v.task_id for v in original.verdicts}
    usable = {vid for vid in ids if vid in judged and variant.parent_ids.get(vid) in parents}
    if not usable:
        return None
    return sensitivity(original, variant, engine, only=usable)


def sensitivity_row(
    model: str, set_name: str, label: str, result: Sensitivity, minimum: int
) -> SensitivityRow:
    firsts = [o.pass_original for o in result.per_problem]
    seconds = [o.pass_variant for o in result.per_problem]
    return SensitivityRow(
        model=model,
        family=set_name,
        label=label,
        pass_original=_mean_estimate(firsts, minimum),
        pass_variant=_mean_estimate(seconds, minimum),
        drop=_paired(firsts, seconds, minimum),
        answered_original=_share(
            result.answered_original, result.variant_failures, result.pairs, minimum, "failing samples"
        ),
    )


def _seed_scores(
    original: RunDir, variant: RunDir, ids: set[str], k: int
) -> tuple[dict[str, float], dict[str, float], int]:
    """Per seed: static pass@K' (K' = min(K, samples)) and DyPass@K; and the K used (the fewest variants)."""
    parents = {vid: variant.parent_ids[vid] for vid in ids if vid in variant.parent_ids}
    dynamic_counts = dypass_counts(variant.verdicts, parents)
    static_counts = sample_counts(original.verdicts)
    seeds = [seed for seed in dynamic_counts if seed in static_counts]
    if not seeds:
        return {}, {}, k
    used = min(k, min(dynamic_counts[seed][0] for seed in seeds))
    static = {}
    for seed in seeds:
        n, c = static_counts[seed]
        static[seed] = pass_at_k(n, c, min(used, n))
    dynamic = {seed: pass_at_k(*dynamic_counts[seed], used) for seed in seeds}
    return static, dynamic, used


def contamination_rows(
    runs: StudyRuns,
    set_name: str,
    ids_by_model: Mapping[str, set[str]],
    k: int,
    references: Sequence[str],
    minimum: int,
) -> list[ContaminationRow]:
    paired_models = [
        model for model in runs.models if model in runs.originals and model in runs.sets[set_name]
    ]
    group_runs = [
        run for model in paired_models for run in (runs.originals[model], runs.sets[set_name][model])
    ]
    trusted = [model for model in references if model in paired_models]
    groups = contamination(group_runs, trusted) if len(paired_models) >= 3 else []
    verdicts = {verdict.model: verdict for group in groups for verdict in group.models}
    rows = []
    for model in paired_models:
        original, variant = runs.originals[model], runs.sets[set_name][model]
        static, dynamic, used = _seed_scores(original, variant, ids_by_model[model], k)
        seeds = sorted(static)
        static_estimate = _mean_estimate([static[s] for s in seeds], minimum, "seeds")
        verdict = verdicts.get(model)
        if verdict is None:
            text = (
                f"needs 3 models (has {len(paired_models)})" if len(paired_models) < 3 else "no shared seeds"
            )
            gap = Estimate(None, n=0, unit="seeds", note=text)
            flagged, exceeds = None, None
        elif verdict.seeds < minimum:
            text = too_few(verdict.seeds, minimum, "seeds")
            gap = Estimate(None, n=verdict.seeds, unit="seeds", note=text)
            flagged, exceeds = None, None
        else:
            gap = Estimate(verdict.gap, verdict.gap_ci_low, verdict.gap_ci_high, verdict.seeds, "seeds")
            flagged, exceeds = verdict.flagged, verdict.exceeds_reference
            if not verdict.flagged:
                text = "not flagged"
            else:
                text = "contaminated" if verdict.side == "below" else "flagged: above the others' fit"
        rows.append(
            ContaminationRow(
                model=model,
                family=set_name,
                k=used,
                static=static_estimate,
                dynamic=_mean_estimate([dynamic[s] for s in seeds], minimum, "seeds"),
                gap=gap,
                verdict=text,
                flagged=flagged,
                trusted=model in trusted,
                exceeds_reference=exceeds,
            )
        )
    return rows


def evolution_row(
    model: str,
    set_name: str,
    kind: str,
    original: RunDir,
    variant: RunDir,
    ids: set[str],
    result: Sensitivity,
    minimum: int,
) -> EvolutionRow:
    firsts = [o.pass_original for o in result.per_problem]
    seconds = [o.pass_variant for o in result.per_problem]
    composition = None
    if kind == "combine":
        metrics = evolve_for_runs(original, variant, only=ids)
        ratio = metrics.composition if metrics is not None else None
        if ratio is not None:
            composition = _share(ratio.solved, ratio.eligible, result.pairs, minimum, "combined problems")
        else:
            composition = Estimate(
                None, n=0, unit="combined problems", note="no combined problem with both parents judged"
            )
    return EvolutionRow(
        model=model,
        family=set_name,
        type=kind,
        pass_original=_mean_estimate(firsts, minimum),
        pass_variant=_mean_estimate(seconds, minimum),
        drop=_paired(firsts, seconds, minimum),
        composition=composition,
    )


def ranking_row(
    family: str,
    outcomes: Mapping[str, Sensitivity],
    minimum: int,
    resamples: int = RESAMPLES,
    seed: int = SEED,
) -> RankingRow:
    """Kendall's tau-b between the models' order on the parents and on the variants, over the pairs
    every model was judged on, with a bootstrap interval over those pairs."""
    per_model = {
        model: {o.variant_id: (o.pass_original, o.pass_variant) for o in result.per_problem}
        for model, result in outcomes.items()
    }
    shared = sorted(set.intersection(*(set(pairs) for pairs in per_model.values()))) if per_model else []
    models = sorted(per_model)
    before = {m: fmean(per_model[m][v][0] for v in shared) for m in models} if shared else {}
    after = {m: fmean(per_model[m][v][1] for v in shared) for m in models} if shared else {}
    rank_before, rank_after = ranks(before), ranks(after)
    table = {m: [rank_before[m], rank_after[m]] for m in models} if shared else {}
    if len(models) < MIN_RANKED_MODELS:
        tau = Estimate(None, n=len(shared), note=f"needs {MIN_RANKED_MODELS} models (has {len(models)})")
        return RankingRow(family, len(models), tau, table)
    if len(shared) < minimum:
        return RankingRow(
            family, len(models), Estimate(None, n=len(shared), note=too_few(len(shared), minimum)), table
        )
    point = kendall_tau(before, after)
    originals = np.array([[per_model[m][v][0] for v in shared] for m in models])
    variants = np.array([[per_model[m][v][1] for v in shared] for m in models])
    rng = np.random.default_rng(seed)
    taus = []
    for _ in range(resamples):
        picks = rng.integers(0, len(shared), size=len(shared))
        value = kendall_tau(
            dict(zip(models, originals[:, picks].mean(axis=1), strict=True)),
            dict(zip(models, variants[:, picks].mean(axis=1), strict=True)),
        )
        if value is not None:
            taus.append(value)
    if point is None:
        return RankingRow(
            family, len(models), Estimate(None, n=len(shared), note="undefined: every model ties"), table
        )
    low, high = (float(x) for x in np.percentile(taus, [2.5, 97.5])) if taus else (None, None)
    note = (
        None
        if len(taus) == resamples
        else f"{resamples - len(taus)} of {resamples} resamples tie every model"
    )
    return RankingRow(family, len(models), Estimate(point, low, high, len(shared), "problems", note), table)


def rigour_row(model: str, base: RunDir, augmented: RunDir, new_tests: int, minimum: int) -> RigourRow:
    before = _by_sample(base.verdicts)
    after = _by_sample(augmented.verdicts)
    keys = sorted(set(before) & set(after))
    problems = sorted({task for task, _ in keys})
    first = pass_fractions([v for key, v in before.items() if key in after])
    second = pass_fractions([v for key, v in after.items() if key in before])
    passing = [key for key in keys if before[key].ok]
    caught = sum(1 for key in passing if not after[key].ok)
    return RigourRow(
        model=model,
        base=_mean_estimate([first[p] for p in problems], minimum),
        augmented=_mean_estimate([second[p] for p in problems], minimum),
        drop=_paired([first[p] for p in problems], [second[p] for p in problems], minimum),
        caught=_share(caught, len(passing), len(problems), minimum, "passing samples"),
        new_tests=new_tests,
    )


def _by_sample(verdicts: Sequence[Verdict]) -> dict[tuple[str, int], Verdict]:
    return {(verdict.task_id, verdict.index): verdict for verdict in verdicts}


def study_findings(
    runs: StudyRuns,
    engine: ExecutionBackend,
    *,
    k: int,
    references: Sequence[str],
    minimum: int,
    greedy: bool,
    off: Sequence[str] = (),
) -> Findings:
    """Every finding of the study.  ``engine`` runs failed variant samples on their parents
    (answered the original); the study passes one that checkpoints those verdicts."""
    findings = Findings(
        benchmark=runs.benchmark,
        problems=runs.problems,
        models=list(runs.models),
        baselines=dict(runs.baselines),
        min_problems=minimum,
        off=list(off),
    )
    for model in runs.models:
        if model in runs.originals:
            findings.originals[model] = originals_estimate(runs.originals[model], minimum)
    for set_name, by_model in runs.sets.items():
        labels: dict[str, dict[str, set[str]]] = defaultdict(dict)
        for model, run in by_model.items():
            for label, ids in labels_of(run).items():
                labels[label][model] = ids
        for label, ids_by_model in sorted(labels.items()):
            family = set_name if len(labels) == 1 else f"{set_name}/{label.removeprefix(EVOLVE_PREFIX)}"
            outcomes: dict[str, Sensitivity] = {}
            for model in runs.models:
                if model not in ids_by_model or model not in runs.originals:
                    continue
                result = _sensitivity(runs.originals[model], by_model[model], ids_by_model[model], engine)
                if result is None:
                    continue
                outcomes[model] = result
                if label == METAMORPHIC:
                    continue
                if label.startswith(EVOLVE_PREFIX):
                    findings.evolution.append(
                        evolution_row(
                            model, set_name, label.removeprefix(EVOLVE_PREFIX), runs.originals[model],
                            by_model[model], ids_by_model[model], result, minimum,
                        )
                    )  # fmt: skip
                else:
                    findings.sensitivity.append(sensitivity_row(model, set_name, label, result, minimum))
            if label == METAMORPHIC:
                findings.contamination += contamination_rows(
                    runs, set_name, ids_by_model, k, references, minimum
                )
                note = (
                    "Static pass@K under greedy decoding is pass@1: each problem has one answer, and K "
                    "greedy samples would all be that answer; DyPass@K draws K variants instead."
                )
                if greedy and note not in findings.notes:
                    findings.notes.append(note)
            if outcomes:
                findings.ranking.append(ranking_row(family, outcomes, minimum))
    for model in runs.models:
        if model in runs.augmented and model in runs.originals:
            findings.rigour.append(
                rigour_row(model, runs.originals[model], runs.augmented[model], runs.new_tests, minimum)
            )
    return findings


__all__ = ["StudyRuns", "study_findings", "too_few"]
