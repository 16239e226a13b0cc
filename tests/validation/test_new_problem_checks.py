"""The checks a new problem passes: its own suite, programs that ignore it, and what it quotes of its parents.

Each check reads only what a draft offers (``Draft.offers``): a counterfactual
or a rewording offers none of these keys, so none of these checks runs on it.
"""

from __future__ import annotations

from benchmorph.data.models import Problem, TestCase, Variant
from benchmorph.morph.finalize import Draft
from benchmorph.validation.checks.base import CheckInput, Steps, checks_for
from benchmorph.validation.checks.baselines import solved_without
from benchmorph.validation.checks.steps import leftover_imperative, stale_name, step_domain, steps_exercised
from benchmorph.validation.checks.suite import thin_suite

PARENT = Problem(
    id="p", prompt="def f(x):\n    pass\n", reference="def f(x):\n    return x\n", entry_point="f"
)


def item(outputs: list[object], **fields: object) -> CheckInput:
    variant = Variant(
        id="v", prompt="def g(x):\n    pass\n", reference="def g(x):\n    return x\n", entry_point="g",
        tests=[TestCase(input=[i], expected=out, has_expected=True) for i, out in enumerate(outputs)],
        parent_id="p", transform="evolve", label="combine",
    )  # fmt: skip
    return CheckInput(variant=variant, parent=PARENT, **fields)  # type: ignore[arg-type]


def test_thin_suite() -> None:
    assert "3 tests" in thin_suite(item([1, 2, 3])).reason  # HumanEval/133 + 39's three tests
    assert "2 distinct" in thin_suite(item([1, 2, 1, 2, 1])).reason
    assert thin_suite(item([1, 2, 3, 4, 5])) is None
    assert "expect 0" in thin_suite(item([0, 0, 0, 0, 0, 1, 2])).reason  # 71% one answer
    assert "expect True" in thin_suite(item([True, True, True, True, False])).reason
    assert thin_suite(item([True, False, True, False, True])) is None


def test_solved_without() -> None:
    found = solved_without(item([1, 2, 3, 4, 5], baseline_passes={"step 2 alone": 1.0, "step 1 alone": 0.0}))
    assert found is not None and found.reason.startswith("step 2 alone passes 100% of the 5 tests")
    assert (
        solved_without(item([1, 2, 3], baseline_passes={"step 2 alone": 0.33, "step 1 alone": 0.2})) is None
    )


def test_leftover_imperative_and_stale_names() -> None:
    old = "Create a function encrypt that takes a string as an argument and returns a string encrypted"
    assert "Create a function" in leftover_imperative(item([1], steps=Steps(quoted=(old,)))).reason
    grades = "you have to write a function that can output a list of letter grades"
    assert leftover_imperative(item([1], steps=Steps(quoted=("Return x.", grades)))) is not None
    assert leftover_imperative(item([1], steps=Steps(quoted=("You will be given a number n.",)))) is None
    stale = Steps(
        quoted=("remove_vowels is a function that takes string",), names=("remove_vowels", "median")
    )
    assert "`remove_vowels`" in stale_name(item([1], steps=stale)).reason
    # A plain-word name is a name only where it is called; "the function should" only in a step.
    assert stale_name(item([1], steps=Steps(quoted=("Return the median of l.",), names=("median",)))) is None
    assert stale_name(item([1], steps=Steps(quoted=("The function should return x.",)))) is not None
    assert (
        stale_name(item([1], steps=Steps(quoted=("The function should return x.",), role="helper"))) is None
    )


def test_step_domain() -> None:
    # HumanEval/60 + 75: sum_to_n hands is_multiply_prime 465, "Knowing that (a) is less then 100".
    receiver = "Return true if the given number is the multiplication of 3 prime numbers. Knowing that (a) is less then 100."
    steps = Steps(handoffs=(([5], 15), ([30], 465)), receiver=receiver, receiver_param="a")
    found = step_domain(item([1], steps=steps))
    assert found is not None and "[30] gives 465" in found.reason and "< 100" in found.reason
    ok = Steps(handoffs=(([5], 15),), receiver=receiver, receiver_param="a")
    assert step_domain(item([1], steps=ok)) is None
    unread = Steps(handoffs=(([5], 15),), receiver="Assume n > 1 and is not a prime.", receiver_param="n")
    assert "no bound reads" in step_domain(item([1], steps=unread)).reason


def test_steps_exercised() -> None:
    steps = Steps(survivors=("is_prime with off-by-one at site 3",), exercised=True)
    assert "is_prime with off-by-one" in steps_exercised(item([1], steps=steps)).reason
    assert steps_exercised(item([1], steps=Steps(exercised=True))) is None


def test_only_drafts_that_offer_them_run_them() -> None:
    variant = item([1]).variant
    plain = {check.name for check in checks_for(Draft(variant=variant, parent=PARENT).offers())}
    assert not plain & {
        "thin-suite",
        "solved-without",
        "leftover-imperative",
        "step-domain",
        "steps-exercised",
    }
    new = Draft(variant=variant, parent=PARENT, suite="own", baselines={"x": "def g(x): pass"}, steps=Steps())
    names = {check.name for check in checks_for(new.offers())}
    assert {
        "thin-suite",
        "solved-without",
        "leftover-imperative",
        "stale-name",
        "step-domain",
        "steps-exercised",
    } <= names
