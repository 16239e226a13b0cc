"""The contamination verdict: which models score much better on a benchmark than on rewordings of it.

A metamorphic variant (``benchmorph morph run metamorphic``) asks the same
question as its seed in other words, so a model that reasons scores about the
same on both, and a model that memorised the seed's text scores high on the
seed and low on the variants.  From runs of several models on the originals
and on their metamorphic variants this module gives, per benchmark:

- **static** pass@1 (on the seeds) and **dynamic** pass@1 (per seed, the mean
  pass rate over its variants; with one answer per variant that is DyPass@1),
  over the seeds every model was judged on, so that all models are compared on
  one problem set;
- **the fit**: dynamic pass@1 against static pass@1 across models, by least
  squares (numpy).  A model is never judged against a line it helped fit (a
  contaminated model would pull the line toward itself), nor against one a
  contaminated model helped fit (two of them would widen each other's interval
  until neither stood out): a forward search (:func:`_judge`) grows the fit
  from the most trusted models and leaves out every model it flags.  The model
  is flagged when its dynamic score lies outside the 95% prediction interval at
  its static score.  The interval's variance is the fit's residual variance
  (with the usual 1 + 1/m + leverage terms) plus the sampling variance of the
  model's own dynamic score over seeds.  Where the fitted models' static scores
  do not vary, or there are only two of them, the line cannot be fitted and the
  prediction is their mean (a flat line), used only for a model whose static
  score lies among theirs (a flat line says nothing about a weaker model);
- **the gap**: static minus dynamic pass@1 per model, with a 95% paired
  bootstrap interval over seeds (the same resampling the report's other
  intervals use), and, for the reference models the user names
  (``--reference-models``: models trusted not to have seen the benchmark), the
  same gap's interval beside it; ``exceeds_reference`` says whether a model's
  gap interval lies wholly above every reference model's.

Calibration: ``reference`` (1.0 / 1.0) and ``original`` (1.0 / 1.0) are not
flagged, ``memorizer`` (1.0 / 0.0) is.

A second axis needs no rewrite: **release dates** (:func:`date_split`).  Where
problems carry a release date (:mod:`benchmorph.data.dates`), pass@1 on the
problems released before a model's stated training cutoff is compared with
pass@1 on those released after it, with a 95% bootstrap interval of the
difference (the two sets resampled apart); the model is flagged on this axis
when the interval lies wholly above zero (and above every reference model's,
where any are named: later problems may simply be harder).  :func:`axis_verdicts`
says, per model, which axes support a verdict: dates, rewrites, or both.
"""

from __future__ import annotations

import datetime as dt
import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from statistics import fmean
from typing import Any

import numpy as np

from benchmorph.data.dates import parse_cutoff, release_date
from benchmorph.data.errors import InputError
from benchmorph.evaluation.passk import dypass_counts, pass_at_k_table, sample_counts
from benchmorph.evaluation.rundir import RunDir, load_run
from benchmorph.report.analysis import Pairing, pairings, pass_fractions
from benchmorph.report.stats import RESAMPLES, SEED, bootstrap_difference, bootstrap_mean

FAMILY = "metamorphic"
LEVEL = 0.95
MIN_MODELS = 3
SEED_MODELS = 2  # the forward search starts from this many of the most trusted models
TOLERANCE = 1e-9


def _t_pdf(x: np.ndarray, df: float) -> np.ndarray:
    log_norm = math.lgamma((df + 1) / 2) - math.lgamma(df / 2) - 0.5 * math.log(df * math.pi)
    return np.exp(log_norm - (df + 1) / 2 * np.log1p(x * x / df))


def t_quantile(p: float, df: float) -> float:
    """The p quantile (p >= 0.5) of Student's t with ``df`` degrees of freedom.

    numpy has no t distribution and scipy is not a dependency: the CDF is
    integrated (Simpson's rule on the density) and inverted by bisection,
    accurate to about 1e-6 for the levels used here.
    """
    if not 0.5 <= p < 1.0 or df <= 0:
        raise ValueError(f"t_quantile needs 0.5 <= p < 1 and df > 0, got p={p}, df={df}")

    def upper_mass(x: float) -> float:  # P(0 <= T <= x)
        grid = np.linspace(0.0, x, 4001)
        values = _t_pdf(grid, df)
        step = x / 4000
        return float(
            step / 3 * (values[0] + values[-1] + 4 * values[1:-1:2].sum() + 2 * values[2:-1:2].sum())
        )

    target = p - 0.5
    low, high = 0.0, 1.0
    while upper_mass(high) < target:
        high *= 2
    for _ in range(60):
        middle = (low + high) / 2
        if upper_mass(middle) < target:
            low = middle
        else:
            high = middle
    return (low + high) / 2


@dataclass
class Fit:
    """dynamic = intercept + slope * static, over some models; ``slope`` 0 for a flat (mean) fit."""

    intercept: float
    slope: float
    residual_sd: float
    df: int
    models: int
    static_mean: float
    static_spread: float  # sum of squared deviations of static scores
    kind: str  # line | mean

    def predict(self, static: float) -> float:
        return self.intercept + self.slope * static

    def prediction_se(self, static: float) -> float:
        """Standard error of a new model's dynamic score at ``static`` (without its own sampling noise)."""
        leverage = 1.0 / self.models
        if self.kind == "line":
            leverage += (static - self.static_mean) ** 2 / self.static_spread
        return self.residual_sd * math.sqrt(1.0 + leverage)


def fit_models(static: Sequence[float], dynamic: Sequence[float]) -> Fit | None:
    """Least squares of dynamic on static across models (numpy); None with fewer than two models.

    A line needs three models and static scores that vary; otherwise the fit is
    the mean of the dynamic scores (one parameter, df = m - 1).
    """
    xs, ys = np.asarray(static, dtype=float), np.asarray(dynamic, dtype=float)
    m = len(xs)
    if m < 2:
        return None
    spread = float(((xs - xs.mean()) ** 2).sum())
    if m >= 3 and spread > TOLERANCE:
        design = np.column_stack([np.ones(m), xs])
        (intercept, slope), *_ = np.linalg.lstsq(design, ys, rcond=None)
        residuals = ys - (intercept + slope * xs)
        df = m - 2
        kind = "line"
    else:
        intercept, slope = float(ys.mean()), 0.0
        residuals = ys - intercept
        df = m - 1
        kind = "mean"
    residual_sd = math.sqrt(float((residuals**2).sum()) / df)
    return Fit(float(intercept), float(slope), residual_sd, df, m, float(xs.mean()), spread, kind)


@dataclass
class ModelVerdict:
    """One model on one benchmark: its scores, its gap with an interval, and where the fit puts it."""

    model: str
    static_run: str
    dynamic_run: str
    seeds: int
    variants: int
    static: float
    dynamic: float
    gap: float
    gap_ci_low: float
    gap_ci_high: float
    predicted: float | None = None  # dynamic pass@1 the other models' fit expects at this static score
    interval_low: float | None = None
    interval_high: float | None = None
    fit: str | None = None  # line | mean, over the other models
    flagged: bool = False
    side: str | None = None  # below: worse on the variants than the others predict; above
    reference: bool = False
    exceeds_reference: bool | None = None
    dypass: dict[str, float] = field(default_factory=dict)  # from the variant run's summary.json


@dataclass
class ContaminationGroup:
    """The verdict over the models run on one original benchmark and its metamorphic variants."""

    benchmark: str
    seeds: int
    models: list[ModelVerdict]
    reference_models: list[str]
    fit_all: dict[str, float] | None  # the line over every model, for display
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def _per_seed(pairing: Pairing) -> tuple[dict[str, float], dict[str, float], dict[str, int]]:
    """(static pass@1 per seed, dynamic pass@1 per seed, metamorphic variants judged per seed)."""
    static = pass_fractions(pairing.original.verdicts)
    variant_rates = pass_fractions(pairing.variant.verdicts)
    by_seed: dict[str, list[float]] = defaultdict(list)
    for variant_id, family in pairing.families.items():
        if family != FAMILY or variant_id not in variant_rates:
            continue
        by_seed[pairing.variant.parent_ids[variant_id]].append(variant_rates[variant_id])
    dynamic = {seed: fmean(rates) for seed, rates in by_seed.items() if seed in static}
    counts = {seed: len(rates) for seed, rates in by_seed.items() if seed in static}
    return static, dynamic, counts


def _dypass(run: RunDir) -> dict[str, float]:
    return {key: float(value) for key, value in run.summary.items() if key.startswith("dypass@")}


def contamination(
    runs: Sequence[RunDir | str | Path],
    reference_models: Sequence[str] = (),
    *,
    min_models: int = MIN_MODELS,
    resamples: int = RESAMPLES,
    seed: int = SEED,
    known_models: Sequence[str] = (),
) -> list[ContaminationGroup]:
    """The verdict per original benchmark that at least ``min_models`` models ran, statically and on
    metamorphic variants (a run of variants is paired with a run of the same model on their parents).

    ``reference_models`` are model names as the report shows them (the run's
    model spec); naming one that no pair has is an InputError, unless the date
    axis judged it (``known_models``).
    """
    loaded = [run if isinstance(run, RunDir) else load_run(run) for run in runs]
    pairs = [pairing for pairing in pairings(loaded) if FAMILY in pairing.families.values()]
    groups: dict[str, list[Pairing]] = defaultdict(list)
    for pairing in pairs:
        groups[pairing.original.benchmark].append(pairing)
    known = {pairing.model for pairing in pairs}
    missing = [name for name in reference_models if name not in known and name not in known_models]
    if missing:
        raise InputError(
            f"--reference-models: no paired static and metamorphic runs of '{missing[0]}' "
            f"(paired models: {', '.join(sorted(known)) or 'none'})"
        )
    found = []
    for benchmark, members in sorted(groups.items()):
        if len({pairing.model for pairing in members}) < min_models:
            continue
        found.append(_group(benchmark, members, list(reference_models), resamples, seed))
    return found


def _group(
    benchmark: str, members: list[Pairing], references: list[str], resamples: int, seed: int
) -> ContaminationGroup:
    notes: list[str] = []
    seen: dict[str, Pairing] = {}
    for pairing in members:
        if pairing.model in seen:
            notes.append(
                f"{pairing.model}: more than one pair of runs; using {seen[pairing.model].variant.path}"
            )
            continue
        seen[pairing.model] = pairing
    tables = {model: _per_seed(pairing) for model, pairing in seen.items()}
    shared = set.intersection(*(set(dynamic) for _, dynamic, _ in tables.values()))
    seeds = sorted(shared)
    everywhere = set.union(*(set(dynamic) for _, dynamic, _ in tables.values()))
    if len(seeds) < len(everywhere):
        notes.append(
            f"{len(everywhere) - len(seeds)} seed problems are left out: not every model was judged on "
            "them and on at least one of their variants"
        )
    verdicts: list[ModelVerdict] = []
    per_model: dict[str, list[float]] = {}
    for model, (static, dynamic, counts) in tables.items():
        pairing = seen[model]
        statics = [static[s] for s in seeds]
        dynamics = [dynamic[s] for s in seeds]
        per_model[model] = dynamics
        interval = bootstrap_mean([a - b for a, b in zip(statics, dynamics, strict=True)], resamples, seed)
        verdicts.append(
            ModelVerdict(
                model=model,
                static_run=str(pairing.original.path),
                dynamic_run=str(pairing.variant.path),
                seeds=len(seeds),
                variants=sum(counts[s] for s in seeds),
                static=fmean(statics) if statics else float("nan"),
                dynamic=fmean(dynamics) if dynamics else float("nan"),
                gap=(fmean(statics) - fmean(dynamics)) if statics else float("nan"),
                gap_ci_low=interval.low,
                gap_ci_high=interval.high,
                reference=model in references,
                dypass=_dypass(pairing.variant),
            )
        )
    if seeds:
        _judge(verdicts, per_model)
    reference_high = [v.gap_ci_high for v in verdicts if v.reference]
    for verdict in verdicts:
        if reference_high and not verdict.reference:
            verdict.exceeds_reference = verdict.gap_ci_low > max(reference_high)
    overall = fit_models([v.static for v in verdicts], [v.dynamic for v in verdicts]) if seeds else None
    verdicts.sort(key=lambda v: (-v.gap, v.model))
    return ContaminationGroup(
        benchmark=benchmark,
        seeds=len(seeds),
        models=verdicts,
        reference_models=references,
        fit_all=None
        if overall is None
        else {"intercept": overall.intercept, "slope": overall.slope, "residual_sd": overall.residual_sd},
        notes=notes,
    )


def _static_se(verdict: ModelVerdict) -> float:
    """The sampling error of a model's static pass@1 over its seeds (at least one seed's worth)."""
    p = verdict.static
    return math.sqrt(max(p * (1 - p), 0.0) / max(verdict.seeds, 1)) + 1.0 / max(verdict.seeds, 1)


def _judge_one(verdict: ModelVerdict, pool: Sequence[ModelVerdict], own: list[float]) -> None:
    """Judge ``verdict`` against the fit over ``pool`` (which does not hold it)."""
    fit = fit_models([o.static for o in pool], [o.dynamic for o in pool])
    if fit is None or fit.df < 1:
        return
    if fit.kind == "mean":
        # A flat fit says nothing about a model whose static score lies outside the pool's.
        statics = [o.static for o in pool]
        margin = 2 * _static_se(verdict)
        if not min(statics) - margin <= verdict.static <= max(statics) + margin:
            return
    own_variance = float(np.var(own, ddof=1)) / len(own) if len(own) > 1 else 0.0
    se = math.sqrt(fit.prediction_se(verdict.static) ** 2 + own_variance)
    predicted = fit.predict(verdict.static)
    half = t_quantile(0.5 + LEVEL / 2, fit.df) * se
    verdict.predicted = predicted
    # pass@1 lies in [0, 1]; the interval is shown clipped to it (the verdict is unchanged by that).
    verdict.interval_low, verdict.interval_high = max(0.0, predicted - half), min(1.0, predicted + half)
    verdict.fit = fit.kind
    verdict.flagged, verdict.side = False, None
    if verdict.dynamic < verdict.interval_low - TOLERANCE:
        verdict.flagged, verdict.side = True, "below"
    elif verdict.dynamic > verdict.interval_high + TOLERANCE:
        verdict.flagged, verdict.side = True, "above"


def _judge(verdicts: list[ModelVerdict], per_model: dict[str, list[float]]) -> None:
    """A forward search: the fit grows from the most trusted models, and a model it flags stays out.

    Judging every model against all the others (leave-one-out) lets two contaminated models hide each
    other: each widens the other's interval until neither lies outside it.  So the models are taken in
    order of trust (the ``--reference-models`` first, then by gap, smallest first); the first
    :data:`SEED_MODELS` form the clean set, every later model is judged against the fit over the clean
    set and joins it unless flagged, and at the end every member of the clean set is judged against
    the rest of it (leave-one-out among the models that were not flagged).
    """
    order = sorted(verdicts, key=lambda v: (not v.reference, v.gap, v.model))
    clean = order[:SEED_MODELS]
    for verdict in order[SEED_MODELS:]:
        _judge_one(verdict, clean, per_model[verdict.model])
        if not verdict.flagged:
            clean.append(verdict)
    for verdict in clean:
        verdict.predicted = verdict.interval_low = verdict.interval_high = verdict.fit = None
        _judge_one(verdict, [o for o in clean if o is not verdict], per_model[verdict.model])


# ------------------------------------------------------------------ the second axis: release dates


@dataclass
class DateVerdict:
    """One model on dated problems: pass@1 before and after its training cutoff, and the gap's interval."""

    model: str
    run: str
    cutoff: str  # YYYY-MM-DD: problems released on or after it are "after"
    before: int  # problems released before the cutoff
    after: int
    pass_before: float
    pass_after: float
    gap: float  # pass_before - pass_after
    gap_ci_low: float
    gap_ci_high: float
    flagged: bool = False
    reference: bool = False
    exceeds_reference: bool | None = None


@dataclass
class DateGroup:
    """The date split of every model run on one benchmark's dated originals."""

    benchmark: str
    problems: int  # dated problems judged
    undated: int  # judged problems without a release date (left out)
    first: str | None  # the earliest and latest release dates
    last: str | None
    models: list[DateVerdict]
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


Cutoffs = Mapping[str, dt.date]  # model name -> cutoff; the key "" applies to every other model


def parse_cutoffs(values: Sequence[str]) -> dict[str, dt.date]:
    """``--cutoff DATE`` (every model) and ``--cutoff MODEL=DATE`` (one model), as a Cutoffs mapping.

    A date never holds ``=``, so the last ``=`` splits a model from its date even where the model's
    name holds one (``memorizer?before=2024-02-01=2024-02-01``)."""
    cutoffs: dict[str, dt.date] = {}
    for value in values:
        model, _, text = value.rpartition("=")
        cutoffs[model.strip()] = parse_cutoff(text, "--cutoff")
    return cutoffs


def _cutoff_for(model: str, cutoffs: Cutoffs) -> dt.date | None:
    return cutoffs.get(model, cutoffs.get(""))


def date_split(
    runs: Sequence[RunDir | str | Path],
    cutoffs: Cutoffs,
    reference_models: Sequence[str] = (),
    *,
    resamples: int = RESAMPLES,
    seed: int = SEED,
) -> list[DateGroup]:
    """Per benchmark whose judged originals carry release dates, each model's pass@1 before and after
    its cutoff (runs of variants are left out: a variant carries its parent's date).

    A model the cutoffs do not name (and no ``""`` default covers) is left out with a note; naming a
    model in ``cutoffs`` that no run has is an InputError.
    """
    loaded = [run if isinstance(run, RunDir) else load_run(run) for run in runs]
    originals = [run for run in loaded if not run.parent_ids]
    named = [model for model in cutoffs if model]
    known = {run.model for run in originals}
    missing = [model for model in named if model not in known]
    if missing:
        raise InputError(
            f"--cutoff: no run of '{missing[0]}' on original problems "
            f"(models: {', '.join(sorted(known)) or 'none'})"
        )
    by_benchmark: dict[str, list[RunDir]] = defaultdict(list)
    for run in originals:
        by_benchmark[run.benchmark].append(run)
    groups = []
    for benchmark, members in sorted(by_benchmark.items()):
        group = _date_group(benchmark, members, cutoffs, list(reference_models), resamples, seed)
        if group is not None:
            groups.append(group)
    return groups


def _date_group(
    benchmark: str, members: list[RunDir], cutoffs: Cutoffs, references: list[str], resamples: int, seed: int
) -> DateGroup | None:
    problems = members[0].problems()
    released = {pid: release_date(problem.source) for pid, problem in problems.items()}
    if not any(released.values()):
        return None
    notes: list[str] = []
    seen: set[str] = set()
    verdicts: list[DateVerdict] = []
    judged_dated: set[str] = set()
    undated: set[str] = set()
    for run in members:
        if run.model in seen:
            notes.append(f"{run.model}: more than one run; using the first")
            continue
        seen.add(run.model)
        cutoff = _cutoff_for(run.model, cutoffs)
        if cutoff is None:
            notes.append(f"{run.model}: no --cutoff for it, so no date split")
            continue
        rates = pass_fractions(run.verdicts)
        before = [rate for pid, rate in rates.items() if released.get(pid) and released[pid] < cutoff]  # type: ignore[operator]
        after = [rate for pid, rate in rates.items() if released.get(pid) and released[pid] >= cutoff]  # type: ignore[operator]
        judged_dated.update(pid for pid in rates if released.get(pid))
        undated.update(pid for pid in rates if not released.get(pid))
        if not before or not after:
            side = "before" if not before else "after"
            notes.append(f"{run.model}: no judged problem released {side} {cutoff.isoformat()}")
            continue
        interval = bootstrap_difference(before, after, resamples, seed)
        verdicts.append(
            DateVerdict(
                model=run.model,
                run=str(run.path),
                cutoff=cutoff.isoformat(),
                before=len(before),
                after=len(after),
                pass_before=fmean(before),
                pass_after=fmean(after),
                gap=fmean(before) - fmean(after),
                gap_ci_low=interval.low,
                gap_ci_high=interval.high,
                reference=run.model in references,
            )
        )
    reference_high = [v.gap_ci_high for v in verdicts if v.reference]
    for verdict in verdicts:
        above_zero = verdict.gap_ci_low > TOLERANCE
        if reference_high and not verdict.reference:
            verdict.exceeds_reference = verdict.gap_ci_low > max(reference_high)
            verdict.flagged = above_zero and verdict.exceeds_reference
        else:
            verdict.flagged = above_zero and not verdict.reference
    if undated:
        notes.append(f"{len(undated)} judged problems carry no release date and are left out")
    dates = sorted(d for d in released.values() if d is not None)
    verdicts.sort(key=lambda v: (-v.gap, v.model))
    return DateGroup(
        benchmark=benchmark,
        problems=len(judged_dated),
        undated=len(undated),
        first=dates[0].isoformat() if dates else None,
        last=dates[-1].isoformat() if dates else None,
        models=verdicts,
        notes=notes,
    )


@dataclass
class AxisVerdict:
    """One model on one benchmark, over both axes: which of them flag it (None: not measured), the
    axes that support a verdict (``axis``: both, dates or rewrites; None if none does) and in words."""

    benchmark: str
    model: str
    rewrites: bool | None = None
    dates: bool | None = None
    axis: str | None = None
    says: str = ""

    def settle(self) -> AxisVerdict:
        axes = (("dates", self.dates), ("rewrites", self.rewrites))
        flagged = [name for name, flag in axes if flag]
        measured = [name for name, flag in axes if flag is not None]
        self.axis = "both" if len(flagged) == 2 else (flagged[0] if flagged else None)
        if self.axis is None:
            self.says = f"not flagged ({' and '.join(measured)} measured)"
        else:
            unflagged = [name for name in measured if name not in flagged]
            self.says = f"contaminated: {' and '.join(flagged)}" + (
                f" (not {unflagged[0]})" if unflagged else ""
            )
        return self


def axis_verdicts(groups: Sequence[ContaminationGroup], dates: Sequence[DateGroup]) -> list[AxisVerdict]:
    """Every model either axis judged, with what each axis says about it."""
    found: dict[tuple[str, str], AxisVerdict] = {}
    for group in groups:
        for row in group.models:
            entry = found.setdefault((group.benchmark, row.model), AxisVerdict(group.benchmark, row.model))
            entry.rewrites = bool(row.flagged and row.side == "below")
    for date_group in dates:
        for verdict in date_group.models:
            key = (date_group.benchmark, verdict.model)
            entry = found.setdefault(key, AxisVerdict(date_group.benchmark, verdict.model))
            entry.dates = verdict.flagged
    return [found[key].settle() for key in sorted(found)]


# ------------------------------------------------------------------ Pass@K vs DyPass@K (any number of models)


@dataclass
class MetamorphicRow:
    """One model on a benchmark and on its metamorphic variants: the paper's Pass@K vs DyPass@K, and
    how far the variants' descriptions moved (mean BLEU-4 from their provenance; None if not recorded).

    Both scores are computed here from the runs' verdicts, over the same seed
    problems: those with a verdict in the static run and two or more judged
    metamorphic variants."""

    benchmark: str
    variant_benchmark: str
    model: str
    seeds: int
    passk: dict[str, float]  # pass@k on those seeds' originals
    dypass: dict[str, float]  # DyPass@k on their variants (one answer per variant)
    bleu_external: float | None = None
    bleu_internal: float | None = None


def _mean_provenance(problems: Sequence[Any], key: str) -> float | None:
    values = [p.provenance[key] for p in problems if isinstance(p.provenance.get(key), int | float)]
    return round(fmean(values), 4) if values else None


def metamorphic_rows(runs: Sequence[RunDir | str | Path]) -> list[MetamorphicRow]:
    """Every pair of a static run and a metamorphic variant run of one model, whatever the number of
    models: pass@k beside DyPass@k (the report's ``metamorphic`` table)."""
    loaded = [run if isinstance(run, RunDir) else load_run(run) for run in runs]
    rows = []
    for pairing in pairings(loaded):
        parents = {
            vid: pairing.variant.parent_ids[vid]
            for vid, family in pairing.families.items()
            if family == FAMILY and vid in pairing.variant.parent_ids
        }
        static_counts = sample_counts(pairing.original.verdicts)
        dynamic_counts = {
            seed: counts
            for seed, counts in dypass_counts(pairing.variant.verdicts, parents).items()
            if seed in static_counts and counts[0] >= 2
        }
        if not dynamic_counts:
            continue
        problems = pairing.variant.problems()
        variants = [problems[vid] for vid in parents if vid in problems]
        static = pass_at_k_table({seed: static_counts[seed] for seed in dynamic_counts})
        dynamic = pass_at_k_table(dynamic_counts)
        rows.append(
            MetamorphicRow(
                benchmark=pairing.original.benchmark,
                variant_benchmark=pairing.variant.benchmark,
                model=pairing.model,
                seeds=len(dynamic_counts),
                passk={f"pass@{k}": value for k, value in static.items()},
                dypass={f"dypass@{k}": value for k, value in dynamic.items()},
                bleu_external=_mean_provenance(variants, "bleu_external"),
                bleu_internal=_mean_provenance(variants, "bleu_internal"),
            )
        )
    rows.sort(key=lambda row: (row.benchmark, row.model))
    return rows
