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


def dypass_counts(verdicts: Sequence[Verdict], parents: Mapping[str, str]) -> dict[str, tuple[int, int]]:
    """Seed problem id -> (variants, variants solved): DyPass's n and c.

    DyCodeEval's DyPass@k samples *prompts*, not answers: n variants of one
    seed, one answer each, and the question is whether at least one of k
    variants drawn from the n is solved.  One answer per variant is used, the
    one with the lowest sample index; a variant without an answer is not
    counted.  ``parents`` maps variant id to seed id; other tasks are ignored.
    """
    first: dict[str, Verdict] = {}
    for verdict in verdicts:
        if verdict.task_id not in parents:
            continue
        known = first.get(verdict.task_id)
        if known is None or verdict.index < known.index:
            first[verdict.task_id] = verdict
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for task, verdict in first.items():
        counts[parents[task]][0] += 1
        counts[parents[task]][1] += int(verdict.ok)
    return {seed: (n, c) for seed, (n, c) in counts.items()}


def dypass_at_k_table(
    verdicts: Sequence[Verdict], parents: Mapping[str, str], ks: Iterable[int] | None = None
) -> dict[int, float]:
    """DyPass@k for every k up to the most variants any seed has, each over the seeds with at least k
    variants: the unbiased pass@k estimator over a seed's n variants (one answer each), averaged.

    A seed with fewer than k variants has no DyPass@k (the gates dropped the
    rest: its siblings were too alike or too close to the original), so it is
    left out of that k, not counted as DyPass@n; :func:`dypass_seeds` says how
    many seeds each k is measured on.  Empty unless some seed has two or more
    variants: with one variant per seed DyPass is only pass@1 under another name.
    """
    counts = dypass_counts(verdicts, parents)
    if not counts or max(n for n, _ in counts.values()) < 2:
        return {}
    largest = max(n for n, _ in counts.values())
    wanted = sorted(set(ks)) if ks is not None else list(range(1, largest + 1))
    table = {}
    for k in wanted:
        enough = [(n, c) for n, c in counts.values() if n >= k]
        if k >= 1 and enough:
            table[k] = sum(pass_at_k(n, c, k) for n, c in enough) / len(enough)
    return table


def dypass_seeds(verdicts: Sequence[Verdict], parents: Mapping[str, str]) -> dict[int, int]:
    """For each k of :func:`dypass_at_k_table`, the number of seeds it is measured on (those with >= k)."""
    counts = dypass_counts(verdicts, parents)
    if not counts or max(n for n, _ in counts.values()) < 2:
        return {}
    largest = max(n for n, _ in counts.values())
    return {k: sum(1 for n, _ in counts.values() if n >= k) for k in range(1, largest + 1)}
