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


def own_pool(f: Problem) -> Pool:
    tests = [test for test in f.tests if test.has_expected]
    return Pool([t.input for t in tests], [t.expected for t in tests], "base")


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
    of character they never had), and every bound stated must hold.
    """
    if f_shape.assumes or not f_shape.readable:
        return Pool(origin="mutation")
    options = AugmentOptions(
        per_problem=2 * wanted, budget_s=BUDGET_S, suite_time_s=0.5, seed=seed, reduce=False
    )
    result = augment_problem(f, engine, options)
    arity = len(f.tests[0].input) if f.tests else 0
    seen = [rules.observe([t.input[i] for t in f.tests]) for i in range(arity)]
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
        pool.inputs.append(args)
        pool.outputs.append(test.expected)
        if len(pool.inputs) >= wanted:
            break
    return pool
