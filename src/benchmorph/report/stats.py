"""Uncertainty and rank agreement for reports: bootstrap intervals over problems, Kendall's tau.

Benchmarks are small (23 counterfactual pairs, 164 HumanEval problems), so a
pass@1 without an interval invites reading noise as a difference.  The
bootstrap resamples *problems*, the unit a benchmark samples from; a fixed
seed keeps every export of one report showing the same interval.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

RESAMPLES = 2000
SEED = 20250101


@dataclass(frozen=True)
class Interval:
    low: float
    high: float


def bootstrap_mean(values: Sequence[float], resamples: int = RESAMPLES, seed: int = SEED) -> Interval:
    """95% percentile interval of the mean of per-problem scores."""
    data = np.asarray(values, dtype=float)
    if data.size == 0:
        return Interval(float("nan"), float("nan"))
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, data.size, size=(resamples, data.size))
    means = data[picks].mean(axis=1)
    low, high = np.percentile(means, [2.5, 97.5])
    return Interval(float(low), float(high))


def bootstrap_paired_difference(
    first: Sequence[float], second: Sequence[float], resamples: int = RESAMPLES, seed: int = SEED
) -> Interval:
    """95% interval of mean(first - second), resampling pairs together so their correlation is kept."""
    if len(first) != len(second):
        raise ValueError("paired samples differ in length")
    return bootstrap_mean([a - b for a, b in zip(first, second, strict=True)], resamples=resamples, seed=seed)


def bootstrap_difference(
    first: Sequence[float], second: Sequence[float], resamples: int = RESAMPLES, seed: int = SEED
) -> Interval:
    """95% interval of mean(first) - mean(second) for two independent sets (each resampled on its own:
    problems released before and after a date are different problems, nothing pairs them)."""
    one, two = np.asarray(first, dtype=float), np.asarray(second, dtype=float)
    if one.size == 0 or two.size == 0:
        return Interval(float("nan"), float("nan"))
    rng = np.random.default_rng(seed)
    means_one = one[rng.integers(0, one.size, size=(resamples, one.size))].mean(axis=1)
    means_two = two[rng.integers(0, two.size, size=(resamples, two.size))].mean(axis=1)
    low, high = np.percentile(means_one - means_two, [2.5, 97.5])
    return Interval(float(low), float(high))


def ranks(scores: Mapping[str, float]) -> dict[str, int]:
    """Competition ranks (1 = best; ties share the better rank), the way leaderboards print them."""
    ordered = sorted(scores.values(), reverse=True)
    return {name: ordered.index(score) + 1 for name, score in scores.items()}


def kendall_tau(first: Mapping[str, float], second: Mapping[str, float]) -> float | None:
    """Kendall's tau-b between two scorings of the same names; None when it is undefined.

    tau-b rather than tau-a because models often tie (two baselines at 1.0),
    and tau-a would count a tie as disagreement.
    """
    names = sorted(set(first) & set(second))
    concordant = discordant = ties_first = ties_second = 0
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            dx = np.sign(first[a] - first[b])
            dy = np.sign(second[a] - second[b])
            if dx == 0 and dy == 0:
                continue
            if dx == 0:
                ties_first += 1
            elif dy == 0:
                ties_second += 1
            elif dx == dy:
                concordant += 1
            else:
                discordant += 1
    denominator = ((concordant + discordant + ties_first) * (concordant + discordant + ties_second)) ** 0.5
    if denominator == 0:
        return None
    return float((concordant - discordant) / denominator)


def wilson(successes: int, trials: int, z: float = 1.959964) -> Interval:
    """95% Wilson score interval of a proportion (a share of failures, a composition ratio).

    A share counted over samples is binomial, not a mean of per-problem scores,
    and with the handful of cases a study often has (3 of 4) the Wilson
    interval keeps to [0, 1] and stays honest where the normal one collapses.
    """
    if trials <= 0:
        return Interval(float("nan"), float("nan"))
    share = successes / trials
    denominator = 1 + z * z / trials
    centre = (share + z * z / (2 * trials)) / denominator
    half = z * ((share * (1 - share) / trials + z * z / (4 * trials * trials)) ** 0.5) / denominator
    return Interval(max(0.0, centre - half), min(1.0, centre + half))
