"""Fewer new tests: one input that does what two kept new tests do.

The reduction (:mod:`benchmorph.testgen.reduce`) is exact over the inputs the
search found, so a suite can only get smaller through better inputs.  Where
the reduced suite keeps two or more new tests, often each kills one mutant
(or executes one branch) the others miss, and one input could do both: a
list holding both lists' items, or a small change of one killing input that
also kills its neighbour's mutant.  :func:`consolidate` searches for such an
input per *group* of kept new tests (all of them, then each pair): its
*need* is everything the group's tests achieve that no other kept test does,
and an input achieving all of it replaces the whole group.  Candidates are,
first, the group's inputs combined argument by argument (lists, strings,
dicts and sets joined; other values taken from one member), then mutations
(the search's own mutator) of the group's inputs and of the candidates that
came closest so far (most of the need achieved).  Any input that achieves a
group's need joins the pool and the exact reduction runs again, so the new
suite achieves every item the old one did, with fewer tests.

What a candidate achieves is measured only as far as the need asks
(coverage, and the group's target mutants); an item it is not credited with
is never claimed, so the reduction stays sound.  The search is bounded by a
cap on candidates per group and per problem, and by the caller's clock
(``out_of_time``: the problem's CPU-second budget).
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any

from benchmorph.testgen.reduce import achieved, greedy_cover

__all__ = ["MERGE_BATCH", "MERGE_CANDIDATES", "MERGE_GROUP_CANDIDATES", "Consolidation", "consolidate"]

# Candidates per sandbox round of the consolidation.
MERGE_BATCH = 32
# Candidates proposed for one group of kept tests, and for one problem in all.  Chosen from the runs of
# bench/testgen.py: every merge found (HumanEval/19, /81, /105, /124; Mbpp/468) came within the first
# 64 candidates of its group, most from the joined inputs of the first round; the groups that found
# nothing in 256 are mostly scalar inputs whose kills sit at different values (HumanEval/31, /46, /55,
# /106: is_prime, fib4, fib, f), which no number of candidates merges.  A group's cap is 4 times the
# slowest merge seen; the problem's keeps a problem of many kept tests (HumanEval/46 keeps 5: 11
# groups) within a second or two.
MERGE_GROUP_CANDIDATES = 256
MERGE_CANDIDATES = 2048
# Parents kept for the next round: the candidates that achieved the most of the need so far.
MERGE_PARENTS = 4

Items = frozenset[Hashable]
# Given candidate inputs and the need, the valid ones with what each achieves (as far as the need asks).
Evaluate = Callable[[list[Any], Items], list[tuple[Any, Items]]]
# Given a parent input and a seeded RNG: a new candidate (a mutation of the parent).
Mutate = Callable[[Any, random.Random], Any]


@dataclass
class Consolidation:
    """What the consolidation did: the inputs it added (with what each achieves) and the new cover.

    ``chosen`` indexes the caller's tests followed by ``added``; ``saved``
    is how many fewer tests the cover keeps than before; ``tried`` counts the
    candidates proposed (before the caller's screening).
    """

    chosen: list[int]
    added: list[tuple[Any, Items]] = field(default_factory=list)
    saved: int = 0
    tried: int = 0
    groups: int = 0  # groups searched
    merged: int = 0  # groups whose need one input achieved


def combinations(inputs: Sequence[Sequence[Any]]) -> list[list[Any]]:
    """The group's argument lists combined argument by argument, the joins first.

    Per position: the members' values joined (list and string concatenation,
    strings also with a space between, dict and set union, in the group's
    order and reversed) where they share a type, then each member's own value.  At most 64, the all-joined ones first.
    """
    if not inputs or any(not isinstance(args, list | tuple) for args in inputs):
        return []
    width = min(len(args) for args in inputs)
    if width == 0 or any(len(args) != width for args in inputs):
        return []
    choices: list[list[Any]] = []
    for position in range(width):
        values = [args[position] for args in inputs]
        options: list[Any] = []
        for order in (values, values[::-1]):
            joined = _join(order)
            if joined is not None and joined not in options:
                options.append(joined)
            if all(isinstance(value, str) for value in order):
                # Words (a sentence, numbers written out) stay words when joined with a space.
                spaced = " ".join(order)
                if spaced not in options:
                    options.append(spaced)
        for value in values:
            if value not in options:
                options.append(value)
        choices.append(options)
    found: list[list[Any]] = []
    for combo in itertools.product(*choices):
        candidate = list(combo)
        if candidate not in found and all(candidate != list(args) for args in inputs):
            found.append(candidate)
        if len(found) >= 64:
            break
    return found


def _join(values: Sequence[Any]) -> Any:
    """One value holding every value's items, or None where they are not all one joinable type."""
    kinds = {type(value) for value in values}
    if len(kinds) != 1:
        return None
    kind = kinds.pop()
    if kind is list:
        return [item for value in values for item in value]
    if kind is str:
        return "".join(values)  # a space-separated join is tried beside it (see combinations)
    if kind is dict:
        merged: dict[Any, Any] = {}
        for value in values:
            merged.update(value)
        return merged
    if kind is set:
        return set().union(*values)
    return None


def _groups(kept: list[int]) -> list[tuple[int, ...]]:
    """All the kept new tests together (three or more), then every pair, in index order."""
    groups: list[tuple[int, ...]] = [tuple(kept)] if len(kept) > 2 else []
    groups.extend(itertools.combinations(kept, 2))
    return groups


def consolidate(
    items: Sequence[Items],
    inputs: Sequence[Any],
    required: int,
    cost: Sequence[float],
    *,
    evaluate: Evaluate,
    mutate: Mutate,
    rng: random.Random,
    size: Callable[[Any], float],
    out_of_time: Callable[[], bool],
    batch_size: Callable[[], int] = lambda: MERGE_BATCH,
    group_cap: int = MERGE_GROUP_CANDIDATES,
    cap: int = MERGE_CANDIDATES,
) -> Consolidation:
    """A cover of ``items`` (the first ``required`` always kept) with fewer new tests where one input can
    do what a group of kept new tests does (see the module docstring).

    ``inputs[i]`` is test i's input; ``evaluate`` validates and measures
    candidates; ``mutate`` makes one from a parent; ``size`` is a new
    input's cost for the reduction (as ``cost`` is the others'); ``batch_size``
    how many candidates the next round may take (at most ``MERGE_BATCH``; the
    caller sizes rounds to fit in its budget, as the search does).
    """
    pool = list(items)
    tests = list(inputs)
    costs = list(cost)
    chosen = greedy_cover(pool, required=range(required), cost=costs)
    result = Consolidation(chosen=chosen)
    before = len(chosen)
    universe = achieved(pool, range(len(pool)))
    tried_groups: set[frozenset[str]] = set()
    improved = True
    while improved and result.tried < cap and not out_of_time():
        improved = False
        kept = [index for index in chosen if index >= required]
        if len(kept) < 2:
            break
        for group in _groups(kept):
            name = frozenset(repr(tests[index]) for index in group)
            if name in tried_groups:
                continue
            tried_groups.add(name)
            others = achieved(pool, [index for index in chosen if index not in group])
            need = frozenset(achieved(pool, group) - others)
            result.groups += 1
            found = _search(
                need,
                [tests[index] for index in group],
                evaluate,
                mutate,
                rng,
                min(group_cap, cap - result.tried),
                out_of_time,
                batch_size,
                result,
            )
            if found is None:
                if result.tried >= cap or out_of_time():
                    break
                continue
            result.merged += 1
            for args, achieved_items in found:
                result.added.append((args, achieved_items))
                pool.append(achieved_items)
                tests.append(args)
                costs.append(size(args))
            fewer = greedy_cover(pool, required=range(required), cost=costs)
            # Never an item lost: the new cover achieves everything the whole pool did before.
            if len(fewer) < len(chosen) and universe <= achieved(pool, fewer):
                chosen = fewer
                improved = True
                break
    result.chosen = chosen
    result.saved = before - len(chosen)
    return result


def _search(
    need: Items,
    members: list[Any],
    evaluate: Evaluate,
    mutate: Mutate,
    rng: random.Random,
    cap: int,
    out_of_time: Callable[[], bool],
    batch_size: Callable[[], int],
    result: Consolidation,
) -> list[tuple[Any, Items]] | None:
    """Inputs achieving all of ``need`` (the first round's that do), or None within ``cap`` candidates."""
    queue = combinations(members)
    parents: list[tuple[int, int, Any]] = []  # (-achieved, order, input): the closest so far
    spent = 0
    order = 0
    while spent < cap and not out_of_time():
        size = max(1, min(MERGE_BATCH, batch_size(), cap - spent))
        batch: list[Any] = queue[:size]
        queue = queue[len(batch) :]
        while len(batch) < size:
            if parents and rng.random() < 0.5:
                parent = rng.choice(parents)[2]
            else:
                parent = rng.choice(members)
            child = mutate(parent, rng)
            if rng.random() < 0.25:
                child = mutate(child, rng)
            batch.append(child)
        spent += len(batch)
        result.tried += len(batch)
        hits = []
        for args, achieved_items in evaluate(batch, need):
            share = len(need & achieved_items)
            if need <= achieved_items:
                hits.append((args, achieved_items))
            elif share:
                parents.append((-share, order, args))
            order += 1
        if hits:
            return hits[:1]
        parents = sorted(parents, key=lambda entry: entry[:2])[:MERGE_PARENTS]
    return None
