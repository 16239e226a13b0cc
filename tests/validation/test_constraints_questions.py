"""``constraints-kept`` reads a question and the statements answering it as one statement (issue 24, i24h).

"Is a supplied number prime? If so, return true; otherwise return false." keeps HumanEval/31's one
condition, but it is three statements ("?" and ";" end them) and the two-statement window of
``counterpart`` never held all four atoms (prime, true, false, otherwise): the check rejected every
question-form retelling.  A question that drops or changes an atom is still rejected.
"""

from __future__ import annotations

from benchmorph.data.models import Problem, Variant
from benchmorph.data.registry import load_benchmark
from benchmorph.validation.checks.base import CHECKS, CheckInput
from benchmorph.validation.concepts import answered, conditions, statements


def _parent() -> Problem:
    return load_benchmark("humaneval").by_id()["HumanEval/31"]


def _told(parent: Problem, description: str) -> Variant:
    prompt = f'\n\ndef verify_prime(value):\n    """ {description}\n\n    >>> verify_prime(17)\n    True\n    """\n'
    return Variant(
        **parent.model_dump(exclude={"id", "prompt", "entry_point"}), id="HumanEval/31/meta-0",
        parent_id=parent.id, transform="metamorphic", prompt=prompt, entry_point="verify_prime",
        provenance={"renames": {"n": "value"}},
    )  # fmt: skip


def _finding(parent: Problem, description: str) -> object:
    return CHECKS["constraints-kept"](
        CheckInput(variant=_told(parent, description), parent=parent, siblings=[])
    )


def test_a_question_with_its_answers_is_one_statement() -> None:
    told = statements("Is a number prime? If so, return true; otherwise return false. Then stop.")
    assert told == ["Is a number prime?", "If so, return true;", "otherwise return false.", "Then stop."]
    assert answered(told) == ["Is a number prime? If so, return true; otherwise return false.", "Then stop."]
    # Only a statement that follows a question (or an answer to one) and opens as an answer is joined.
    plain = ["Return true if it is prime.", "Otherwise return false."]
    assert answered(plain) == plain
    assert conditions("Is it odd? If not, return 0.") == ["Is it odd? If not, return 0."]


def test_a_question_that_keeps_the_condition_is_accepted_one_that_drops_or_changes_it_is_not() -> None:
    parent = _parent()
    assert _finding(parent, "Is a provided number prime? If so, return true; otherwise return false.") is None
    # Seeded rewrites that drop or change the condition's atoms: still rejected.
    for dropped in (
        "Is a provided number prime? If so, return true.",  # the outcome otherwise is lost
        "Is a provided number odd? If so, return true; otherwise return false.",  # prime -> odd
        "Is a provided number prime? Return true.",  # no answer: nothing joined
        "Is a provided number prime? Otherwise return false.",  # the true branch is lost
    ):
        finding = _finding(parent, dropped)
        assert finding is not None and finding.check == "constraints-kept", dropped  # type: ignore[attr-defined]
