"""Numeric preconditions read out of descriptions (``validation.preconditions``), on HumanEval's words."""

from __future__ import annotations

import pytest

from benchmorph.data.registry import load_benchmark
from benchmorph.morph.transforms.evolve import rules
from benchmorph.validation.preconditions import stated_preconditions

HUMANEVAL = load_benchmark("humaneval").by_id()


def read(task: str):
    problem = HUMANEVAL[task]
    text = rules.description(problem)
    assert text is not None, task
    return stated_preconditions(text, rules.param_names(problem))


def test_bounds_read_from_humaneval() -> None:
    # "Knowing that (a) is less then 100": the review's 60 + 75 handed it 465.
    found = read("HumanEval/75")
    assert [str(b) for b in found.bounds] == ["the value < 100"] and not found.unread
    assert found.holds(99) and not found.holds(465) and not found.holds(100)
    # "You are given a non-empty list of positive integers."
    found = read("HumanEval/69")
    assert found.holds([1, 2]) and not found.holds([]) and not found.holds([0, 3]) and not found.unread
    assert not read("HumanEval/88").holds([3, -1])  # "an array of non-negative integers"
    assert read("HumanEval/20").holds([1.0, 2.0]) and not read("HumanEval/20").holds([1.0])  # length >= 2
    positive = read("HumanEval/131")  # "Given a positive integer n"
    assert positive.holds(5) and not positive.holds(0) and not positive.holds(-3)
    assert not positive.holds("5")  # a bound on a number holds for no string


def test_what_no_bound_captures_is_unread() -> None:
    # "Assume n > 1 and is not a prime": the bound is read, "is not a prime" is not.
    found = read("HumanEval/59")
    assert [str(b) for b in found.bounds] == ["the value > 1"] and found.unread
    # "Restrictions: 1 <= num <= 1000" names no parameter of int_to_mini_roman(number).
    assert read("HumanEval/156").unread
    for task in ("HumanEval/1", "HumanEval/19", "HumanEval/77", "HumanEval/135", "HumanEval/158"):
        assert read(task).unread, (
            task
        )  # balanced, valid choices, assume valid, no duplicates, different words


def test_behaviour_is_not_a_precondition() -> None:
    # "Return only positive numbers", "If n is greater than m, return -1", "greater than 10 and ...".
    for task in ("HumanEval/30", "HumanEval/103", "HumanEval/146", "HumanEval/16", "HumanEval/12"):
        assert not read(task).unread, task


@pytest.mark.parametrize(
    ("text", "params", "value", "holds"),
    [
        ("Restrictions: 1 <= num <= 1000.", ["num"], 1000, True),
        ("Restrictions: 1 <= num <= 1000.", ["num"], 1001, False),
        ("Assume len(arr) >= 2.", ["arr"], [1], False),
        ("The number n will always be at most 50.", ["n"], 50, True),
        ("n is greater than or equal to 3.", ["n"], 2, False),
    ],
)
def test_forms(text: str, params: list[str], value: object, holds: bool) -> None:
    found = stated_preconditions(text, params)
    assert not found.unread and found.holds(value) is holds
