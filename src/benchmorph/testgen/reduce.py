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
keeps such tests, since it never looks back.  Where what the required tests
miss is a handful of items (the usual case: a branch or two, the mutants only
new inputs kill), a breadth-first search finds the fewest new tests exactly.
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
    first); where what the required tests miss is small, a smaller cover
    found exactly (:func:`_fewest`) replaces the greedy's.  The answer is sorted.
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
    greedy = _without_redundant(items, chosen, set(required), cost)
    exact = _fewest(
        items, set(required), universe - _union(items, required), cost, len(greedy) - len(required)
    )
    return sorted(greedy if exact is None else set(required) | exact)


# Exact covers are searched only where what the required tests miss is at most this many items, and
# within this many steps (a state reached times the distinct tests tried on it): else the greedy's stands.
EXACT_ITEMS = 24
EXACT_STEPS = 200_000


def _union(items: Sequence[frozenset[Hashable]], indices: Sequence[int]) -> set[Hashable]:
    found: set[Hashable] = set()
    for index in indices:
        found |= items[index]
    return found


def _fewest(
    items: Sequence[frozenset[Hashable]],
    required: set[int],
    missing: set[Hashable],
    cost: Sequence[float] | None,
    greedy: int,
) -> set[int] | None:
    """The fewest optional tests that achieve ``missing`` (then the cheapest such set), if fewer than
    ``greedy``; None when the greedy's answer is as small or the search would be too long.

    What the required tests (a benchmark's own) miss is usually a handful of
    items (a branch or two, the mutants only new inputs kill), so a
    breadth-first search over which of them are achieved finds the smallest
    cover exactly, where the greedy may take one test too many.
    """
    if greedy <= 1 or not missing or len(missing) > EXACT_ITEMS:
        return None
    order = {item: bit for bit, item in enumerate(sorted(missing, key=repr))}
    best: dict[int, tuple[float, int]] = {}  # residual mask -> (cost, index) of its cheapest, earliest test
    for index, achieved_items in enumerate(items):
        if index in required:
            continue
        mask = 0
        for item in achieved_items:
            bit = order.get(item)
            if bit is not None:
                mask |= 1 << bit
        if mask:
            key = (cost[index] if cost is not None else 0.0, index)
            if mask not in best or key < best[mask]:
                best[mask] = key
    full = (1 << len(order)) - 1
    tests = sorted(best.items(), key=lambda entry: (-bin(entry[0]).count("1"), entry[1]))
    states: dict[int, tuple[float, tuple[int, ...]]] = {0: (0.0, ())}
    seen = {0}
    steps = 0
    for _level in range(greedy - 1):
        following: dict[int, tuple[float, tuple[int, ...]]] = {}
        for mask, (spent, chosen) in states.items():
            for test_mask, (test_cost, index) in tests:
                steps += 1
                if steps > EXACT_STEPS:
                    return None
                joined = mask | test_mask
                if joined in seen and joined not in following:
                    continue
                entry = (spent + test_cost, tuple(sorted((*chosen, index))))
                if joined not in following or entry < following[joined]:
                    following[joined] = entry
        if full in following:
            return set(following[full][1])
        seen.update(following)
        states = following
    return None


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
