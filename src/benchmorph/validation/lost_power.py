"""Inherited tests that stop telling the variant's rule from a near miss, and the inputs that restore them.

A variant inherits its parent's inputs.  They were chosen to separate the
parent's rule from its near misses; after the edit they may not separate
the new rule from its own ("uppercase vowels at even indices" became
"lowercase vowels at even indices", and no inherited input has a lowercase
vowel at an odd index any more, so counting every index passes).  The probe
makes the same small mutation of both references (same operator, same site:
the edit keeps the code's shape), and a mutant that passes every variant
test while its twin fails the parent's tests marks power the tests lost.
Type-aware mutation of the inherited inputs then looks for an input, valid
for both references, on which the variant's reference and that mutant
disagree; found ones become tests (origin ``mutation``).  A near miss no
input separates is reported, so the variant can be held for review.
"""

from __future__ import annotations

import ast
import itertools
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from benchmorph.data.models import Problem, TestCase, Variant
from benchmorph.execution.compare import values_match
from benchmorph.execution.engine import Engine, Job
from benchmorph.testgen.mutants import Mutant, mutants
from benchmorph.testgen.mutation import mutation_stream
from benchmorph.testgen.types import infer_signature
from benchmorph.validation.edits import node_offsets, node_span, parse
from benchmorph.validation.ties import tie_able, tie_probe

MIN_SEARCH = 20


@dataclass
class PowerProbe:
    lost: list[str] = field(
        default_factory=list
    )  # "operator@site" of near misses only the parent's tests caught
    added: int = 0  # inputs added to catch them
    unkilled: list[str] = field(default_factory=list)  # near misses no input was found for
    searched: int = 0  # valid new inputs tried against them

    @property
    def unsearched(self) -> bool:
        """Power was lost and too few valid inputs could be made to look for it (not: looked and found none).

        A near miss that no valid input among many separates is most likely
        equivalent to the reference (``x > 0`` and ``x > -1`` in a sum of
        positives); one that could not be looked for is a real gap.
        """
        return bool(self.unkilled) and self.searched < MIN_SEARCH


def _by_site(code: str, entry_point: str) -> dict[tuple[str, int], Mutant]:
    try:
        return {(m.operator, m.site): m for m in mutants(code, entry_point, near_misses=True)}
    except SyntaxError:
        return {}


def restore_test_power(
    variant: Variant,
    parent: Problem,
    engine: Engine,
    *,
    limit: int = 40,
    budget: int = 300,
    seed: int = 0,
) -> tuple[Variant, PowerProbe]:
    """The variant with inputs added that catch every near miss its inherited tests lost, and what was found.

    Both problems must be prepared (tests carry expected outputs).  Only
    function problems are probed; the references must mutate at the same
    sites (a rule edit keeps the shape), else nothing is probed.
    """
    probe = PowerProbe()
    if variant.kind != "function" or not variant.tests:
        return variant, probe
    ours = _by_site(variant.reference, variant.entry_point)
    theirs = _by_site(parent.reference, parent.entry_point)
    if not ours or set(ours) != set(theirs):
        return variant, probe
    keys = sorted(ours)
    random.Random(f"{seed}:{variant.id}").shuffle(keys)
    keys = keys[:limit]
    verdicts = engine.evaluate(
        [Job(variant, ours[key].code, f"{variant.id}#near-{i}") for i, key in enumerate(keys)]
    )
    passing = [key for key, verdict in zip(keys, verdicts, strict=True) if verdict.status == "pass"]
    if not passing:
        return variant, probe
    twins = engine.evaluate(
        [Job(parent, theirs[key].code, f"{parent.id}#near-{i}") for i, key in enumerate(passing)]
    )
    lost = [key for key, verdict in zip(passing, twins, strict=True) if verdict.status in ("fail", "error")]
    probe.lost = [f"{operator}@{site}" for operator, site in lost]
    if not lost:
        return variant, probe
    candidates = _valid_candidates(variant, parent, engine, budget, seed)
    free = _tie_free(variant, [args for args, _ in candidates], engine)
    candidates = [candidate for candidate, ok in zip(candidates, free, strict=True) if ok]
    probe.searched = len(candidates)
    added: list[Any] = []
    for key in lost:
        runs = engine.run_inputs(variant, [args for args, _ in candidates], code=ours[key].code)
        killer = next(
            (
                args
                for (args, expected), run in zip(candidates, runs, strict=True)
                if run.status != "ok" or not values_match(expected, run.output, variant.atol)
            ),
            None,
        )
        if killer is None:
            probe.unkilled.append(f"{key[0]}@{key[1]}")
        elif killer not in added:
            added.append(killer)
    if not added:
        return variant, probe
    extended = variant.model_copy(
        update={"tests": [*variant.tests, *(TestCase(input=args, origin="mutation") for args in added)]}
    )
    prepared = engine.prepare([extended])
    if not prepared.problems:
        probe.unkilled = probe.lost
        return variant, probe
    grown = prepared.problems[0]
    assert isinstance(grown, Variant)  # prepare hands back what it was given, tests filled
    probe.added = len(grown.tests) - len(variant.tests)
    return grown, probe


def _tie_free(variant: Variant, inputs: list[list[Any]], engine: Engine) -> list[bool]:
    """Per input: no min/max/sort of the reference meets a tie on it (its answer hinges on no tie-break).

    An added test must judge what the text says; where several different
    items tie at an extreme, the answer is the reference's tie-break, which
    the text may never state.
    """
    free = [True] * len(inputs)
    tree = parse(variant.reference)
    if tree is None or not inputs:
        return free
    starts = node_offsets(variant.reference)
    probes = []
    for number, node in enumerate(ast.walk(tree)):
        if isinstance(node, ast.Call) and tie_able(node):
            span = node_span(variant.reference, node, starts)
            probe = tie_probe(variant, span, f"{variant.id}#tie-free-{number}") if span else None
            if probe is not None:
                tests = [TestCase(input=args) for args in inputs]
                probes.append(probe.model_copy(update={"tests": tests}))
    if not probes:
        return free
    keys = [repr(args) for args in inputs]
    ready = {problem.id: problem for problem in engine.prepare(probes).problems}
    for probe in probes:
        done = ready.get(probe.id)
        counts = {repr(t.input): t.expected for t in done.tests if t.has_expected} if done else {}
        for index, key in enumerate(keys):
            count = counts.get(key)
            if type(count) is not int or count > 0:
                free[index] = False
    return free


class ObservedDomain:
    """What the inherited inputs never show, per argument: a negative number, a zero, an empty container, a character
    (in either case).

    A description promises its inputs ("a list of positive integers") more
    often than a contract checks them.  An added test outside what every
    inherited input kept to may be one the text rules out, and a reader
    who relies on the promise would fail it; so new inputs stay inside.
    """

    def __init__(self, seeds: Sequence[Sequence[Any]]) -> None:
        self.negative: dict[int, bool] = {}
        self.zero: dict[int, bool] = {}
        self.empty: dict[int, bool] = {}
        self.chars: dict[int, set[str]] = {}
        for args in seeds:
            for position, value in enumerate(args):
                self._observe(position, value)

    def _observe(self, position: int, value: Any) -> None:
        for leaf in _leaves(value):
            if isinstance(leaf, str):  # a letter seen in one case is promised in the other too
                self.chars.setdefault(position, set()).update(leaf + leaf.swapcase())
            elif isinstance(leaf, int | float) and not isinstance(leaf, bool):
                self.negative[position] = self.negative.get(position, False) or leaf < 0
                self.zero[position] = self.zero.get(position, False) or leaf == 0
            elif isinstance(leaf, _Empty):
                self.empty[position] = True

    def admits(self, args: Sequence[Any]) -> bool:
        for position, value in enumerate(args):
            for leaf in _leaves(value):
                if isinstance(leaf, str):
                    if not set(leaf) <= self.chars.get(position, set()):
                        return False
                elif isinstance(leaf, int | float) and not isinstance(leaf, bool):
                    if leaf < 0 and not self.negative.get(position, False):
                        return False
                    if leaf == 0 and not self.zero.get(position, False):
                        return False
                elif isinstance(leaf, _Empty) and not self.empty.get(position, False):
                    return False
        return True


class _Empty:
    """The leaf an empty container stands for in ``_leaves``."""


def _leaves(value: Any) -> list[Any]:
    """The scalars of a nested value, with an ``_Empty()`` for each empty container."""
    if isinstance(value, dict):
        items = [*value.keys(), *value.values()]
    elif isinstance(value, list | tuple | set | frozenset):
        items = list(value)
    else:
        return [value]
    if not items:
        return [_Empty()]
    return [leaf for item in items for leaf in _leaves(item)]


def _valid_candidates(
    variant: Variant, parent: Problem, engine: Engine, budget: int, seed: int
) -> list[tuple[list[Any], Any]]:
    """Up to ``budget`` new inputs both references run on (contracts active), with the variant's outputs."""
    try:
        signature = infer_signature(variant)
    except Exception:  # noqa: BLE001 - inputs the inference cannot type are simply not mutated
        return []
    seeds: Sequence[list[Any]] = [list(test.input) for test in variant.tests]
    domain = ObservedDomain(seeds)
    stream = (args for args in mutation_stream(seeds, signature, seed) if domain.admits(args))
    inputs = list(itertools.islice(stream, budget))
    if not inputs:
        return []
    ours = engine.run_inputs(variant, inputs)
    theirs = engine.run_inputs(parent, inputs)
    return [
        (args, run.output)
        for args, run, twin in zip(inputs, ours, theirs, strict=True)
        if run.status == "ok" and twin.status == "ok"
    ]
