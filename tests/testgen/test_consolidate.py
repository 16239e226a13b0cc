"""One input that does what two kept new tests do: the consolidation after the reduction.

The search of :func:`consolidate` itself is checked on small set-cover
instances whose candidates' achievements are a rule of the input (which
values a list holds), so what merging can and cannot do is known exactly;
on the real sandbox, a grading problem whose boundary mutants each need
their own value in the list ends with fewer kept tests and every item of
the whole candidate set still achieved, identically at one and two workers.
"""

from __future__ import annotations

import random
from collections.abc import Hashable

import pytest

from benchmorph.data.models import Problem, TestCase
from benchmorph.execution import Engine
from benchmorph.testgen.augment import AugmentOptions, augment_problem
from benchmorph.testgen.consolidate import combinations, consolidate
from benchmorph.testgen.kills import mutant_kills
from benchmorph.testgen.reduce import achieved
from benchmorph.testgen.score import mutant_set

# What a list input achieves: line 1 always, mutant n for each value 7 * n + 7 it holds (7 kills 0, ...).
Items = frozenset[Hashable]


def _achieves(args: list) -> Items:
    found: set[Hashable] = {("line", 1)}
    for value in args[0] if isinstance(args[0], list) else [args[0]]:
        if isinstance(value, int) and value % 7 == 0 and value > 0:
            found.add(("mutant", value // 7 - 1))
    return frozenset(found)


def _evaluate(calls: list[int]):
    def evaluate(inputs: list, need: Items) -> list[tuple[object, Items]]:
        calls.append(len(inputs))
        return [(args, _achieves(args)) for args in inputs]

    return evaluate


def _mutate(args: list, rng: random.Random) -> list:
    value = args[0]
    if isinstance(value, list):
        return [[*value, rng.randint(-3, 3)]]
    return [value + rng.randint(-3, 3)]


def _run(inputs: list, out_of_time=lambda: False, **caps):
    items = [_achieves(args) for args in inputs]
    calls: list[int] = []
    merge = consolidate(
        items,
        inputs,
        1,
        [float(len(repr(args))) for args in inputs],
        evaluate=_evaluate(calls),
        mutate=_mutate,
        rng=random.Random("test"),
        size=lambda args: float(len(repr(args))),
        out_of_time=out_of_time,
        **caps,
    )
    return items, merge, calls


def test_two_single_kill_tests_merge_into_one_input_that_does_both() -> None:
    # The base test kills nothing; [[7]] kills mutant 0, [[14]] mutant 1: the join [[7, 14]] does both.
    inputs = [[[1]], [[7]], [[14]]]
    items, merge, _ = _run(inputs)
    assert merge.saved == 1 and merge.merged == 1
    assert [args for args, _ in merge.added] == [[[7, 14]]]
    pool = items + [achieved_items for _, achieved_items in merge.added]
    assert merge.chosen == [0, 3]
    assert achieved(pool, merge.chosen) == achieved(items, range(len(items)))


def test_scalar_kills_at_different_values_cannot_merge_and_nothing_is_lost() -> None:
    # A scalar holds one value: no input kills mutants 0 and 1 both, so the suite stays as it was.
    inputs = [[1], [7], [14]]
    items, merge, calls = _run(inputs, group_cap=64)
    assert merge.saved == 0 and merge.added == [] and merge.chosen == [0, 1, 2]
    assert merge.tried == sum(calls) <= 64  # one pair, its own cap
    assert achieved(items, merge.chosen) == achieved(items, range(len(items)))


def test_three_kept_tests_merge_at_once_and_the_caps_and_clock_bound_the_search() -> None:
    inputs = [[[1]], [[7]], [[14]], [[21]]]
    _, merge, _ = _run(inputs)
    assert merge.saved == 2 and len(merge.chosen) == 2  # base + one list holding 7, 14 and 21
    _, stopped, calls = _run(inputs, out_of_time=lambda: True)
    assert stopped.tried == 0 and calls == [] and stopped.saved == 0
    _, capped, calls = _run([[1], [7], [14], [21]], cap=40)  # scalars: nothing merges, the cap stops it
    assert capped.tried == sum(calls) <= 40 and capped.saved == 0
    _, small, calls = _run([[1], [7], [14]], batch_size=lambda: 5, group_cap=30)
    assert calls and max(calls) <= 5 and small.tried <= 30  # rounds sized to what the budget leaves


def test_the_same_seed_gives_the_same_consolidation() -> None:
    inputs = [[[1]], [[7]], [[3]], [[14]]]
    first = _run(inputs)[1]
    second = _run(inputs)[1]
    assert first.added == second.added and first.chosen == second.chosen and first.tried == second.tried


def test_combinations_join_lists_and_strings_and_keep_other_values_per_member() -> None:
    found = combinations([[[1], "a", 3], [[2], "b", 4]])
    assert found[0] == [[1, 2], "ab", 3]
    assert [[2, 1], "ba", 4] in found and [[1], "b", 3] in found
    assert [[1, 2], "a b", 3] in found  # words stay words
    assert [[1], "a", 3] not in found  # a member's own input is no new candidate
    assert combinations([[1], [2, 3]]) == []  # arities differ


GRADE = Problem(
    id="grade",
    prompt="def grade(scores):\n",
    entry_point="grade",
    reference=(
        "def grade(scores):\n"
        "    out = []\n"
        "    for s in scores:\n"
        "        if s >= 90:\n"
        "            out.append('A')\n"
        "        elif s >= 80:\n"
        "            out.append('B')\n"
        "        elif s >= 70:\n"
        "            out.append('C')\n"
        "        else:\n"
        "            out.append('F')\n"
        "    return out\n"
    ),
    tests=[TestCase(input=[[95]]), TestCase(input=[[85, 75, 10]])],
)


@pytest.fixture(scope="module")
def results():
    options = AugmentOptions(saturation=150, per_problem=2000, budget_s=60.0, suite_time_s=60.0)
    found = {}
    for workers in (1, 2):
        with Engine(workers=workers) as engine:
            found[workers] = augment_problem(GRADE, engine, options)
            if workers == 2:
                found["kills"] = {
                    name: _killed(suite, engine)
                    for name, suite in (("reduced", found[2].problem), ("whole", found[2].unreduced))
                }
    return found


def _killed(problem: Problem | None, engine: Engine) -> set[int]:
    assert problem is not None
    kills = mutant_kills([problem], [mutant_set(GRADE, None, 0)], engine)[0]
    return {number for number, mutant in enumerate(kills) if mutant.killed}


def test_the_boundary_tests_merge_on_the_sandbox_and_every_kill_is_kept(results) -> None:
    result = results[2]
    assert result.merged >= 1 and result.merge_tried > 0 and 0 < result.merge_cpu_s <= result.cpu_s
    assert result.kept == 1  # one list holding every boundary value
    assert results["kills"]["reduced"] >= results["kills"]["whole"]
    assert len(results["kills"]["whole"]) == result.killed
    stats = result.stats()
    assert stats["merged"] == result.merged and "merge_tried" in stats


def test_the_consolidation_keeps_the_same_inputs_at_one_and_two_workers(results) -> None:
    assert [test.input for test in results[1].problem.tests] == [
        test.input for test in results[2].problem.tests
    ]
    assert results[1].merged == results[2].merged


def test_a_problem_whose_budget_the_search_spent_gets_no_consolidation() -> None:
    options = AugmentOptions(saturation=150, per_problem=2000, budget_s=0.05, suite_time_s=60.0)
    with Engine(workers=1) as engine:
        result = augment_problem(GRADE, engine, options)
    assert result.stopped == "budget", result.stopped
    assert result.merge_tried == 0 and result.merged == 0 and result.merge_cpu_s < 0.05
