"""The unbiased pass@k estimator (Chen et al. 2021), averaged over problems."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from math import comb


def pass_at_k(n: int, c: int, k: int) -> float:
    """Probability that at least one of k samples drawn from n (c correct) passes: 1 - C(n-c, k) / C(n, k)."""
    if k > n:
        raise ValueError(f"k={k} exceeds the number of samples n={n}")
    if n - c < k:
        return 1.0
    return 1.0 - comb(n - c, k) / comb(n, k)


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
