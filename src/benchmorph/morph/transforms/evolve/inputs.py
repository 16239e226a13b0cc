"""Inputs of a parent a new problem may use: its own tests, and generated ones inside what it states.

Generated inputs honour the parent's types but not, by themselves, the
preconditions its description states in words; a reviewed set of combined
problems had them break those in 17 of 72 variants.  So a generated input is
kept only where the description's preconditions are all read as bounds
(``validation.preconditions``) and hold, and every argument lies inside the
range the parent's own tests show (no sign, emptiness, size or kind of
character they never had).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from benchmorph.data import values
from benchmorph.data.models import Problem
from benchmorph.execution.engine import Engine
from benchmorph.morph.transforms.evolve import rules
from benchmorph.testgen.augment import AugmentOptions, augment_problem

MAX_VALUE_CHARS = 400  # a generated input or output longer than this as text is not a readable test
BUDGET_S = 3.0  # seconds of test generation per parent
INPUT_TIME_S = 0.25  # the most one generated input may take on the reference (a test is quick)


@dataclass
class Pool:
    """Inputs of f with f's outputs: its own tests, or generated ones."""

    inputs: list[Any] = field(default_factory=list)
    outputs: list[Any] = field(default_factory=list)
    origin: str = "base"


def own_pool(f: Problem, f_shape: rules.Shape | None = None) -> Pool:
    """f's own tests with their outputs; with ``f_shape``, only those honouring the bounds f's description
    states (HumanEval+/75's tests feed 891 to "Knowing that (a) is less then 100")."""
    tests = [test for test in f.tests if test.has_expected]
    if f_shape is not None:
        tests = [test for test in tests if f_shape.pre.holds_for_arguments(test.input)]
    return Pool([t.input for t in tests], [t.expected for t in tests], "base")


def _char_class(ch: str) -> str:
    if ch.isalpha():
        return "upper" if ch.isupper() else "lower"
    if ch.isdigit():
        return "digit"
    return ch  # spaces and punctuation stand for themselves: "  " is not " "


def adjacent_pairs(value: Any) -> set[tuple[str, str]]:
    """The classes of neighbouring characters in every string inside ``value`` (a string's shape:
    music notes "o| .|" never have two spaces running, so a generated "o|  .|" is another format)."""
    if isinstance(value, str):
        classes = [_char_class(ch) for ch in value]
        return set(zip(classes, classes[1:], strict=False))
    if isinstance(value, list | tuple | set | frozenset):
        return set().union(*(adjacent_pairs(item) for item in value)) if value else set()
    if isinstance(value, dict):
        return adjacent_pairs(list(value.keys())) | adjacent_pairs(list(value.values()))
    return set()


def _readable(value: Any) -> bool:
    """Whether a value is short enough as JSON text to read in a test (generated ones can be huge)."""
    try:
        return len(json.dumps(values.encode(value))) <= MAX_VALUE_CHARS
    except (TypeError, ValueError, RecursionError):
        return False


def generated_pool(f: Problem, f_shape: rules.Shape, engine: Engine, seed: int, wanted: int = 60) -> Pool:
    """New inputs of f that honour what its description states and its tests show, with f's outputs.

    Empty when f's description states a precondition no bound reads (then
    only its own inputs can be trusted).  Each argument must lie inside the
    range f's own tests show for that parameter (no sign, emptiness or kind
    of character they never had, no two kinds of characters side by side
    that never were), and every bound stated must hold.
    """
    if f_shape.assumes or not f_shape.readable:
        return Pool(origin="mutation")
    options = AugmentOptions(
        per_problem=2 * wanted, budget_s=BUDGET_S, suite_time_s=0.5, seed=seed, reduce=False
    )
    result = augment_problem(f, engine, options)
    arity = len(f.tests[0].input) if f.tests else 0
    seen = [rules.observe([t.input[i] for t in f.tests]) for i in range(arity)]
    shapes = [set().union(*(adjacent_pairs(t.input[i]) for t in f.tests)) for i in range(arity)]
    pool = Pool(origin="mutation")
    for test in result.problem.tests:
        if test.origin == "base" or not test.has_expected:
            continue
        args = test.input
        if len(args) != arity or not all(
            rules.inside_observed(a, s) for a, s in zip(args, seen, strict=True)
        ):
            continue
        if not f_shape.pre.holds_for_arguments(args) or not (_readable(args) and _readable(test.expected)):
            continue
        if not all(adjacent_pairs(a) <= shape for a, shape in zip(args, shapes, strict=True)):
            continue  # a string laid out as none of f's own tests is
        pool.inputs.append(args)
        pool.outputs.append(test.expected)
        if len(pool.inputs) >= wanted:
            break
    return pool
