"""The unbiased pass@k estimator (Chen et al. 2021), averaged over problems."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from math import comb

from benchmorph.data.models import Verdict


def pass_at_k(n: int, c: int, k: int) -> float:
    """Probability that at least one of k samples drawn from n (c correct) passes: 1 - C(n-c, k) / C(n, k)."""
    if k > n:
        raise ValueError(f"k={k} exceeds the number of samples n={n}")
    if n - c < k:
        return 1.0
    return 1.0 - comb(n - c, k) / comb(n, k)


def sample_counts(verdicts: Sequence[Verdict]) -> dict[str, tuple[int, int]]:
    """Task id -> (samples, passing samples): what :func:`pass_at_k_table` averages over."""
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for verdict in verdicts:
        counts[verdict.task_id][0] += 1
        counts[verdict.task_id][1] += int(verdict.ok)
    return {task: (total, correct) for task, (total, correct) in counts.items()}


def pass_at_k_table(
    counts: Mapping[str, tuple[int, int]], ks: Iterable[int] | None = None
) -> dict[int, float]:
    """pass@k for every k up to the smallest per-problem sample count (or the ks asked for that fit).

    ``counts`` maps task id to (n samples, c correct).  A k larger than some
    problem's n is left out: averaging it over only the problems that have
    enough samples would compare different problem sets.
    """
    if not counts:
        return {}
    smallest = min(n for n, _ in counts.values())
    wanted = sorted(set(ks)) if ks is not None else list(range(1, smallest + 1))
    table = {}
    for k in wanted:
        if 1 <= k <= smallest:
            table[k] = sum(pass_at_k(n, c, k) for n, c in counts.values()) / len(counts)
    return table
