"""Keeping a small test suite that still does everything a large one does: greedy set cover.

Each test is described by the set of *items* it achieves: lines and branch
arcs of the reference it executes, and the mutants of the reference it kills.
A reduced suite must achieve every item the whole suite achieves.  Finding the
smallest such subset is set cover (NP-hard); the greedy rule (repeatedly take
the test that adds the most items not yet achieved) is within a logarithmic
factor of the optimum and is what EvalPlus's reduction does in spirit.

Tests the caller must keep (a benchmark's own tests) are taken first, so the
greedy only adds what they miss.  Afterwards a test the greedy took early
that the later ones made redundant (every item it achieves is achieved by
another kept test) is dropped again, the costliest first: the greedy alone
keeps such tests, since it never looks back.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Sequence


def greedy_cover(
    items: Sequence[frozenset[Hashable]],
    required: Sequence[int] = (),
    cost: Sequence[float] | None = None,
) -> list[int]:
    """Indices of a subset of tests that together achieve every item any test achieves.

    ``required`` are always in the answer.  Among tests adding equally many
    new items the cheaper one (``cost``, e.g. the size of its input) wins,
    then the earlier one, so the result is deterministic; then kept tests
    that others made redundant are dropped (the costliest, then the latest,
    first).  The answer is sorted.
    """
    chosen = set(required)
    covered: set[Hashable] = set()
    for index in chosen:
        covered |= items[index]
    universe: set[Hashable] = set().union(*items) if items else set()
    remaining = [index for index in range(len(items)) if index not in chosen]
    while not universe <= covered:
        best, best_key = None, None
        for index in remaining:
            gain = len(items[index] - covered)
            if gain == 0:
                continue
            key = (-gain, cost[index] if cost is not None else 0.0, index)
            if best_key is None or key < best_key:
                best, best_key = index, key
        if best is None:  # cannot happen: every uncovered item belongs to some test
            break
        chosen.add(best)
        covered |= items[best]
        remaining.remove(best)
    return sorted(_without_redundant(items, chosen, set(required), cost))


def _without_redundant(
    items: Sequence[frozenset[Hashable]],
    chosen: set[int],
    required: set[int],
    cost: Sequence[float] | None,
) -> set[int]:
    """``chosen`` less the optional tests whose every item another kept test also achieves."""
    times: Counter[Hashable] = Counter()
    for index in chosen:
        times.update(items[index])
    optional = sorted(
        (index for index in chosen if index not in required),
        key=lambda index: (-(cost[index] if cost is not None else 0.0), -index),
    )
    kept = set(chosen)
    for index in optional:
        if all(times[item] > 1 for item in items[index]):
            kept.discard(index)
            times.subtract(items[index])
    return kept


def achieved(items: Sequence[frozenset[Hashable]], indices: Sequence[int]) -> frozenset[Hashable]:
    """Every item the tests at ``indices`` achieve together."""
    found: set[Hashable] = set()
    for index in indices:
        found |= items[index]
    return frozenset(found)
