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
new inputs kill), a branch and bound finds the fewest new tests exactly (or, past a node cap,
the fewest it found).
"""

from __future__ import annotations

import math
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


# The exact search gives up (keeping the best cover it has found, if smaller than the greedy's) after
# this many nodes: about a second of CPU at the most; the usual instance is proved in a few hundred.
EXACT_NODES = 50_000


def _union(items: Sequence[frozenset[Hashable]], indices: Sequence[int]) -> set[Hashable]:
    found: set[Hashable] = set()
    for index in indices:
        found |= items[index]
    return found


class _Exact:
    """Branch and bound for the fewest tests (then the cheapest) achieving every bit of ``full``.

    Tests are bit masks over what the required tests miss.  A node takes the
    unachieved item the fewest allowed tests achieve and branches on each of
    them (the most new items first); a test tried in one branch is excluded
    from its later siblings, so each cover is visited once.  The bound counts
    items no two of which one test achieves: each needs a test of its own.
    """

    def __init__(self, tests: list[tuple[int, float, int]], width: int, limit: int) -> None:
        self.tests = tests  # (mask, cost, index)
        self.full = (1 << width) - 1
        self.width = width
        self.holders = [
            [position for position, (mask, _, _) in enumerate(tests) if mask >> bit & 1]
            for bit in range(width)
        ]
        self.reach = [0] * width  # every item some test achieving this bit also achieves
        for bit, holders in enumerate(self.holders):
            for position in holders:
                self.reach[bit] |= tests[position][0]
        self.best_count = limit  # a cover must have at most this many tests
        self.best_cost = math.inf
        self.best: tuple[int, ...] | None = None
        self.nodes = 0

    def _bound(self, left: int) -> int:
        count, blocked = 0, 0
        while left:
            low = left & -left
            bit = low.bit_length() - 1
            left &= ~low
            if not blocked >> bit & 1:
                count += 1
                blocked |= self.reach[bit]
        return count

    def search(self, achieved: int, chosen: tuple[int, ...], spent: float, banned: int) -> None:
        if achieved == self.full:
            count = len(chosen)
            if count < self.best_count or (count == self.best_count and spent < self.best_cost):
                self.best_count, self.best_cost, self.best = len(chosen), spent, chosen
            return
        self.nodes += 1
        if self.nodes > EXACT_NODES:
            return
        left = self.full & ~achieved
        need = len(chosen) + self._bound(left)
        if need > self.best_count or (need == self.best_count and spent >= self.best_cost):
            return
        pick, options = -1, None
        rest = left
        while rest:
            low = rest & -rest
            bit = low.bit_length() - 1
            rest &= ~low
            allowed = [position for position in self.holders[bit] if not banned >> position & 1]
            if options is None or len(allowed) < len(options):
                pick, options = bit, allowed
                if len(allowed) <= 1:
                    break
        assert options is not None and pick >= 0
        options.sort(key=lambda position: (-bin(self.tests[position][0] & left).count("1"), position))
        for position in options:
            mask, test_cost, _ = self.tests[position]
            self.search(achieved | mask, (*chosen, position), spent + test_cost, banned)
            banned |= 1 << position
            if self.nodes > EXACT_NODES:
                return


def _fewest(
    items: Sequence[frozenset[Hashable]],
    required: set[int],
    missing: set[Hashable],
    cost: Sequence[float] | None,
    greedy: int,
) -> set[int] | None:
    """The fewest optional tests that achieve ``missing`` (then the cheapest such set), if fewer than
    ``greedy``; None when the greedy's answer is as small (or no smaller one was found in
    ``EXACT_NODES`` nodes).

    What the required tests (a benchmark's own) miss is usually a few items
    (a branch or two, the mutants only new inputs kill), so a branch and bound
    over them proves the smallest cover in a few hundred nodes, where the
    greedy may take a test or two too many.
    """
    if greedy <= 1 or not missing:
        return None
    order = {item: bit for bit, item in enumerate(sorted(missing, key=repr))}
    best: dict[int, tuple[float, int]] = {}  # mask -> (cost, index) of its cheapest, earliest test
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
    # A test whose items another no dearer test also achieves is never needed.
    ranked = sorted(best.items(), key=lambda entry: (-bin(entry[0]).count("1"), entry[1]))
    tests: list[tuple[int, float, int]] = []
    for mask, (test_cost, index) in ranked:
        if not any(mask | other == other and other_cost <= test_cost for other, other_cost, _ in tests):
            tests.append((mask, test_cost, index))
    exact = _Exact(tests, len(order), greedy - 1)
    exact.search(0, (), 0.0, 0)
    if exact.best is None:
        return None
    return {tests[position][2] for position in exact.best}


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
