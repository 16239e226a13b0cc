"""The search stops when it stops finding, and the clock still bounds one that does not.

On the real sandbox, with small problems and small budgets: a problem whose
few lines and mutants its first inputs exhaust stops as ``saturated`` after
exactly a window of valid inputs that added nothing, long before its other
bounds; one that is slow per input and given a window it cannot reach stops
at its budget (its own CPU seconds), within it plus one batch; what a test achieves (lines, arcs,
first kills) is what the saturation counts.
"""

from __future__ import annotations

import time

import pytest

from benchmorph.data.models import Problem, TestCase
from benchmorph.execution import Engine
from benchmorph.testgen.augment import BUDGET_WALL_FACTOR, AugmentOptions, augment_problem
from benchmorph.testgen.saturation import Novelty

SIGN = Problem(
    id="sign",
    prompt="def sign(x):\n",
    entry_point="sign",
    reference="def sign(x):\n    if x < 0:\n        return -1\n    if x == 0:\n        return 0\n    return 1\n",
    tests=[TestCase(input=[n]) for n in (-5, 0, 7)],
)


@pytest.fixture(scope="module")
def engine():
    with Engine(workers=2) as engine:
        yield engine


def test_novelty_counts_new_lines_and_first_kills_and_the_run_of_nothing_new() -> None:
    novelty = Novelty(mutants=2, window=2)
    line = frozenset({("line", 1)})
    novelty.add([line], {0: [0]}, base=True)  # the base test covers line 1 and kills mutant 0
    assert novelty.alive == [1] and novelty.since == 0 and not novelty.saturated
    novelty.add([line, line | {("line", 2)}, line], {})  # nothing, a new line, nothing
    assert novelty.since == 1 and novelty.last_novel == 2
    novelty.add([line], {1: [0]})  # the first kill of mutant 1 is new
    assert novelty.alive == [] and novelty.since == 0 and novelty.last_novel == 4
    novelty.add([line, line], {})
    assert novelty.saturated
    assert ("mutant", 1) in novelty.items[4] and ("mutant", 0) in novelty.items[0]


def test_a_problem_whose_inputs_saturate_early_stops_early_with_its_reason(engine: Engine) -> None:
    window = 30
    options = AugmentOptions(saturation=window, per_problem=5000, budget_s=120.0, suite_time_s=60.0)
    started = time.monotonic()
    result = augment_problem(SIGN, engine, options)
    assert result.stopped == "saturated", result.stopped
    assert time.monotonic() - started < 60  # far from its budget
    # Three base tests already run every line and kill what a mutant of sign can be killed by:
    # the window's worth of valid inputs, in a batch or two, and no more.
    assert window <= result.found < 5 * window + 64
    novel_at = result.last_novel or 0
    assert result.found - novel_at >= window
    assert result.mutants and result.killed is not None and result.killed >= result.base_killed
    assert all(test.has_expected for test in result.problem.tests)


def test_the_budget_still_bounds_a_problem_that_never_saturates(engine: Engine) -> None:
    # Each call takes a few hundredths of a second, strings vary without end, and no window of a
    # million is ever reached.
    slow = Problem(
        id="slow",
        prompt="def slow(text):\n",
        entry_point="slow",
        reference=(
            "def slow(text):\n    total = 0\n    for i in range(60000):\n        total += i % 7\n"
            "    return total + len(text)\n"
        ),
        tests=[TestCase(input=[text]) for text in ("abc", "hello world", "x y z", "")],
    )
    budget = 3.0
    options = AugmentOptions(saturation=1_000_000, per_problem=1_000_000, budget_s=budget, suite_time_s=1e9)
    result = augment_problem(slow, engine, options)
    assert result.stopped == "budget", result.stopped
    assert result.found > 0
    # The budget counts the problem's own CPU seconds (sandbox and host), checked between batches,
    # and a batch is sized to fit in half of what is left: without that, the first batch alone (over
    # 400 candidates of this problem) would take many seconds.
    assert budget <= result.search_cpu_s < 2 * budget, result.search_cpu_s
    assert result.search_s < BUDGET_WALL_FACTOR * budget, result.search_s


def test_without_a_window_the_search_runs_to_its_other_bounds(engine: Engine) -> None:
    vowels = Problem(
        id="vowels",
        prompt="def vowels(text):\n",
        entry_point="vowels",
        reference="def vowels(text):\n    return sum(1 for ch in text if ch in 'aeiou')\n",
        tests=[TestCase(input=[text]) for text in ("banana", "sky", "")],
    )
    options = AugmentOptions(saturation=None, per_problem=120, budget_s=60.0, suite_time_s=60.0)
    result = augment_problem(vowels, engine, options)
    assert result.stopped == "per-problem" and result.found == 120
