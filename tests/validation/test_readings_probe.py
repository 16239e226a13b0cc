"""The alternative-readings probe on problems written here: it finds what the words leave open, and only that.

Each problem is small and real: its reference runs in the sandbox, and so do
the readings (mutations of the reference, ``testgen.readings``).  Every
case has a twin whose description has the word that settles the rule (or a
worked example that shows it), which must stay clean.
"""

from __future__ import annotations

import pytest

from benchmorph.data.models import Problem, TestCase, Variant
from benchmorph.execution.engine import Engine
from benchmorph.testgen.readings import OPERATORS, reading_mutants
from benchmorph.validation.audit.fixes import apply_fix
from benchmorph.validation.checks.base import CheckInput
from benchmorph.validation.checks.readings import alternative_readings, readings_of


def function(name: str, args: str, doc: str, body: str, tests: list[list[object]]) -> Problem:
    prompt = f'def {name}({args}):\n    """{doc}\n    """\n'
    return Problem(
        id=f"t/{name}",
        prompt=prompt,
        entry_point=name,
        reference=prompt + body,
        tests=[TestCase(input=t) for t in tests],
    )


COUNT = "    return sum(1 for ch in s.lower() if ch in 'aeiou')\n"
LONGEST = "    return max(words, key=len)\n"
ROUND = "    return round(total / count)\n"


@pytest.fixture(scope="module")
def engine():
    with Engine(workers=2) as running:
        yield running


def prepared(engine: Engine, problem: Problem) -> Problem:
    [ready] = engine.prepare([problem]).problems
    return ready


def keys(engine: Engine, problem: Problem) -> list[str]:
    return [finding.key for finding in readings_of(prepared(engine, problem), engine)]


def test_reading_mutants_are_small_changes_of_the_reference() -> None:
    found = {m.operator: m for m in reading_mutants(function("f", "s", "x", COUNT, []).reference, "f")}
    assert set(found) <= set(OPERATORS)
    assert "'aeiouy'" in found["letters-add-y"].code and found["letters-add-y"].detail == "vowel"
    rounded = reading_mutants(function("g", "total, count", "x", ROUND, []).reference, "g")
    assert [m.operator for m in rounded] == ["round-half-up"]
    assert "floor(total / count + 0.5)" in rounded[0].code


def test_a_reading_the_words_leave_open_and_the_tests_decide_is_found(engine: Engine) -> None:
    tests = [["apple"], ["sky"], ["Yellow"]]
    open_rule = function("count_vowels", "s", "Count the vowels of s.", COUNT, tests)
    [finding] = readings_of(prepared(engine, open_rule), engine)
    assert finding.key == "alternative-readings:letters-add-y" and finding.severity == "ambiguous"
    assert "fails 2 of 3 tests" in finding.summary
    assert finding.fix is not None and finding.fix.text == " (y is not a vowel)"
    # The fix states the rule: applied, the finding is gone.
    fixed = apply_fix(open_rule, finding.fix)
    assert "Count the vowels (y is not a vowel) of s." in fixed.prompt and keys(engine, fixed) == []
    said = function("count_vowels", "s", "Count the vowels of s ('y' is not one).", COUNT, tests)
    assert keys(engine, said) == []


def test_a_worked_example_settles_a_reading_both_sides_of_which_are_natural(engine: Engine) -> None:
    tests = [[["ab", "cd", "e"]], [["x", "yz"]]]
    silent = function("longest", "words", "Return the longest word.", LONGEST, tests)
    assert keys(engine, silent) == ["alternative-readings:tie-last"]
    shown = function(
        "longest",
        "words",
        "Return the longest word.\n    >>> longest(['ab', 'cd'])\n    'ab'",
        LONGEST,
        tests,
    )
    assert keys(engine, shown) == []
    stated = function(
        "longest", "words", "Return the longest word, the first one if several tie.", LONGEST, tests
    )
    assert keys(engine, stated) == []


def test_an_unusual_rule_only_an_example_shows_is_still_found(engine: Engine) -> None:
    """Schoolbook rounding is what "nearest integer" plainly says; Python rounds halves to even."""
    tests = [[5, 2], [7, 2], [9, 3]]
    doc = "Return the average total / count rounded to the nearest integer.\n    >>> avg(5, 2)\n    2"
    [finding] = readings_of(prepared(engine, function("avg", "total, count", doc, ROUND, tests)), engine)
    assert finding.key == "alternative-readings:round-half-up"
    assert "only a worked example shows the reference's rule" in finding.summary


def test_a_reading_that_crashes_is_no_reading(engine: Engine) -> None:
    """``abs`` of a string raises: the digit reading does not apply to a function of strings."""
    body = "    return sum(int(d) for d in str(n) if d.isdigit())\n"
    problem = function("digits", "n", "Sum the digits of n.", body, [["a1b2"], ["77"]])
    assert keys(engine, problem) == []


def test_the_quality_check_holds_only_an_ambiguity_the_variant_brings(engine: Engine) -> None:
    tests = [["apple"], ["sky"], ["Yellow"]]
    parent = prepared(engine, function("count_vowels", "s", "Count the vowels of s.", COUNT, tests))
    inherited = Variant(**parent.model_dump(), parent_id=parent.id, transform="t")
    item = CheckInput(variant=inherited, parent=parent, engine=engine)
    assert alternative_readings(item) is None  # the parent's slip: the parent audit's business
    said = prepared(
        engine, function("count_vowels", "s", "Count the vowels of s ('y' is not one).", COUNT, tests)
    )
    item = CheckInput(variant=inherited, parent=said, engine=engine)
    held = alternative_readings(item)
    assert held is not None and held.severity == "review" and "y counts as a vowel" in held.reason
    assert alternative_readings(CheckInput(variant=inherited, parent=said)) is None  # no sandbox, no probe


def test_a_listed_set_of_vowels_settles_whether_y_is_one(engine: Engine) -> None:
    """ "the vowels (a, e, i, o, u)" says y is not one: no finding (the scripted LLM subtle variant of
    tests/morph/evolve was held for review by this reading although its description listed them)."""
    tests = [["apple"], ["sky"], ["Yellow"]]
    listed = function("count_vowels", "s", "Count the vowels (a, e, i, o, u) of s.", COUNT, tests)
    assert keys(engine, listed) == []
    quoted = function(
        "count_vowels", "s", "Count the letters of s that are vowels: 'a', 'e', 'i', 'o', 'u'.", COUNT, tests
    )
    assert keys(engine, quoted) == []
    spelled = function("count_vowels", "s", "Count the vowels of s: a, e, i, o and u.", COUNT, tests)
    assert keys(engine, spelled) == []
    unsaid = function("count_vowels", "s", "Count the vowels of s.", COUNT, tests)
    assert keys(engine, unsaid) == ["alternative-readings:letters-add-y"]
