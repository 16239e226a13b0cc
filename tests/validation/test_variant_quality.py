"""The quality checks a mined variant must pass: each review finding on real HumanEval, and each check alone.

The per-pattern tests take the HumanEval problem a reviewer found the
pattern in, make the very candidate the miner makes (same rule, real sandbox
for its outputs) and show the check that catches it, then run the miner on
that problem and show no variant of that rule comes out.  The unit tests feed
each check a small hand-made problem: once where it must fire, once on a good
variant where it must not.
"""

from __future__ import annotations

from typing import Any

import pytest

from benchmorph.data.models import Problem, TestCase, Variant
from benchmorph.data.registry import load_benchmark
from benchmorph.execution.engine import Engine
from benchmorph.morph.transforms.mine.mine import Candidate, mine, propose
from benchmorph.validation.checks.base import CHECKS, CheckInput, Edit, Finding, run_checks


@pytest.fixture(scope="module")
def humaneval() -> dict[str, Problem]:
    return load_benchmark("humaneval").by_id()


def _variant(
    parent: Problem,
    prompt: str,
    reference: str,
    tests: list[TestCase] | None = None,
    entry_point: str | None = None,
) -> Variant:
    return Variant(
        **parent.model_dump(exclude={"id", "entry_point", "prompt", "reference", "tests", "source"}),
        entry_point=entry_point or parent.entry_point,
        id=f"{parent.id}/probe",
        prompt=prompt,
        reference=reference,
        tests=tests if tests is not None else [TestCase(input=t.input) for t in parent.tests],
        parent_id=parent.id,
        transform="mine",
    )


def _candidate(problem: Problem, rule: str, code: str | None = None) -> Candidate:
    found = [c for c in propose(problem) if c.rule.name == rule and (code is None or c.edit.old_code == code)]
    assert found, f"{problem.id}: rule {rule} does not apply"
    return found[0]


def _real_item(engine: Engine, problem: Problem, rule: str) -> CheckInput:
    """The miner's candidate for ``rule`` on a real problem, with parent and variant outputs from the sandbox."""
    parent = engine.prepare([problem]).problems[0]
    candidate = _candidate(parent, rule)
    draft = _variant(parent, candidate.prompt, candidate.reference, entry_point=candidate.entry_point)
    prepared = engine.prepare([draft])
    variant = prepared.problems[0] if prepared.problems else draft
    return CheckInput(variant=variant, parent=parent, edit=candidate.edit)


# --- The review's patterns on the real HumanEval problems ---------------------------------------------

PATTERNS = [
    # (problem, the rule that made the bad variant, the check that catches it, what the reviewer saw)
    ("HumanEval/6", "extreme:maximum>minimum", "uniform-elements", "every output is zeros"),
    ("HumanEval/134", "position:last>first", "few-changes", "9 of 10 tests False before and after"),
    ("HumanEval/70", "extreme:maximum>minimum", "word-in-sentence", "minimum, then minimum, then minimum"),
    ("HumanEval/70", "extreme:maximum>minimum", "identical-branches", "min(lst) if switch else min(lst)"),
    ("HumanEval/88", "parity:even>odd", "word-in-sentence", "ascending if odd, descending if odd"),
    ("HumanEval/146", "position:first>last", "word-in-sentence", "both last and last digits"),
    ("HumanEval/116", "order:ascending>descending", "one-construct", "two sorts, the wrong one reversed"),
    ("HumanEval/149", "order:ascending>descending", "one-construct", "two sorts, the wrong one reversed"),
    ("HumanEval/163", "parity:even>odd", "one-construct", "the clamp to [2, 8] stayed"),
    ("HumanEval/72", "aggregate:sum>product", "stale-comment", "# 3+2+3 is less than the maximum"),
    ("HumanEval/29", "affix:prefix>suffix", "word-grammar", "start with a given suffix"),
    (
        "HumanEval/160",
        "position:first>last",
        "position-is-a-name",
        "The last list has basic algebra operations",
    ),
]


@pytest.mark.parametrize(
    ("task_id", "rule", "check", "seen"), PATTERNS, ids=[f"{p[0]}-{p[2]}" for p in PATTERNS]
)
def test_review_pattern_is_caught(
    engine: Engine, humaneval: dict[str, Problem], task_id: str, rule: str, check: str, seen: str
) -> None:
    item = _real_item(engine, humaneval[task_id], rule)
    finding = CHECKS[check](item)
    assert finding is not None, f"{task_id} ({seen}): {check} did not fire"
    assert finding.severity == "reject" and finding.check == check and finding.reason
    report = mine([humaneval[task_id]], engine, keep_all=True)
    assert not [v for v in report.variants if v.provenance["rule"] == rule], f"{task_id}: {rule} survived"
    record = next(c for c in report.candidates if c.provenance["rule"] == rule)
    assert record.provenance["status"] == "rejected" and record.provenance["check"], record.provenance


def test_the_pattern_reasons_name_what_is_wrong(engine: Engine, humaneval: dict[str, Problem]) -> None:
    """A reason a reviewer can act on: the numbers, the clashing words, the constructs."""
    reasons = {
        check: CHECKS[check](_real_item(engine, humaneval[task], rule))
        for task, rule, check in [
            ("HumanEval/134", "position:last>first", "few-changes"),
            ("HumanEval/70", "extreme:maximum>minimum", "word-in-sentence"),
            ("HumanEval/163", "parity:even>odd", "one-construct"),
            ("HumanEval/116", "order:ascending>descending", "one-construct"),
        ]
    }
    assert reasons["few-changes"].reason.startswith("only 10% of outputs changed (1 of 10; needs 20%)")
    assert "'minimum'" in reasons["word-in-sentence"].reason
    assert "2, 8" in reasons["one-construct"].reason or "2 sorts" in reasons["one-construct"].reason


def test_good_humaneval_variants_pass_every_check(engine: Engine, humaneval: dict[str, Problem]) -> None:
    """The same checks stay quiet on variants a reviewer accepts (precision, but not at any price)."""
    for task, rule in [
        ("HumanEval/35", "extreme:maximum>minimum"),
        ("HumanEval/30", "sign:positive>negative"),
        ("HumanEval/145", "order:ascending>descending"),
        ("HumanEval/106", "parity:even>odd"),
    ]:
        item = _real_item(engine, humaneval[task], rule)
        mine_checks = [  # what a mined draft offers: no suite of its own, no baselines, no quoted steps
            name
            for name, check in CHECKS.items()
            if not name.startswith("example") and check.reads <= {"text", "outputs", "changes", "edit"}
        ]
        assert run_checks(item, mine_checks) == [], (task, run_checks(item, mine_checks))


# --- Each check alone, on small hand-made problems ----------------------------------------------------


def _problem(
    doc: str, body: str, name: str = "f", args: str = "xs", tests: list[Any] | None = None
) -> Problem:
    prompt = f'def {name}({args}):\n    """{doc}\n    """\n'
    return Problem(
        id=f"t/{name}",
        prompt=prompt,
        entry_point=name,
        reference=prompt + body,
        tests=[TestCase(input=i, expected=o, has_expected=True) for i, o in (tests or [])],
    )


def _item(
    problem: Problem, rule: str, new_outputs: list[Any] | None = None, code: str | None = None
) -> CheckInput:
    candidate = _candidate(problem, rule, code)
    tests = [
        TestCase(
            input=t.input, expected=new_outputs[i] if new_outputs else t.expected, has_expected=t.has_expected
        )
        for i, t in enumerate(problem.tests)
    ]
    return CheckInput(
        variant=_variant(problem, candidate.prompt, candidate.reference, tests),
        parent=problem,
        edit=candidate.edit,
    )


def _fires(check: str, item: CheckInput) -> Finding | None:
    return CHECKS[check](item)


def test_word_in_sentence() -> None:
    bad = _problem("Return the sum of the largest and smallest value.", "    return max(xs) + min(xs)\n")
    finding = _fires("word-in-sentence", _item(bad, "extreme:smallest>largest"))
    assert finding is not None and "'largest'" in finding.reason and "largest and largest" in finding.reason
    good = _problem("Return the smallest value. It is never empty.", "    return min(xs)\n")
    assert _fires("word-in-sentence", _item(good, "extreme:smallest>largest")) is None


def test_word_elsewhere_holds_for_review() -> None:
    contrast = _problem(
        "Return the smallest value of xs.\n    Callers compare it with the largest one elsewhere.",
        "    return min(xs)\n",
    )
    finding = _fires("word-elsewhere", _item(contrast, "extreme:smallest>largest"))
    assert finding is not None and finding.severity == "review"
    alone = _problem("Return the smallest value of xs.", "    return min(xs)\n")
    assert _fires("word-elsewhere", _item(alone, "extreme:smallest>largest")) is None
    # "at least" and "even if" are not the property.
    idiom = _problem(
        "Return the smallest value of xs.\n    xs has at least one item, even if it is 0.",
        "    return min(xs)\n",
    )
    assert _fires("word-elsewhere", _item(idiom, "extreme:smallest>largest")) is None


def test_word_grammar() -> None:
    affix = _problem(
        "Keep the strings that start with a given prefix.",
        "    return [x for x in xs if x.startswith(p)]\n",
        args="xs, p",
    )
    finding = _fires("word-grammar", _item(affix, "affix:prefix>suffix"))
    assert finding is not None and "start ... suffix" in finding.reason
    fine = _problem(
        "Keep the strings that have the given prefix.",
        "    return [x for x in xs if x.startswith(p)]\n",
        args="xs, p",
    )
    assert _fires("word-grammar", _item(fine, "affix:prefix>suffix")) is None
    verb = _problem("Write a function to sum all numbers in xs.", "    return sum(xs)\n")
    assert "verb" in _fires("word-grammar", _item(verb, "aggregate:sum>product")).reason
    noun = _problem("Return the sum of all numbers in xs.", "    return sum(xs)\n")
    assert _fires("word-grammar", _item(noun, "aggregate:sum>product")) is None
    multiplied = _problem(
        "Return the product of the array multiplication.", "    return reduce(lambda x, y: x*y, xs)\n"
    )
    assert "multiplication" in _fires("word-grammar", _item(multiplied, "aggregate:product>sum")).reason
    adverb = _problem(
        "Return the sum of xs, round each number first.", "    return sum(round(x) for x in xs[0])\n"
    )
    assert "adverb" in _fires("word-grammar", _item(adverb, "position:first>last")).reason


def test_position_is_a_name() -> None:
    ordinal = _problem(
        "Given two lists. The first list holds names and the second list holds ages.",
        "    return xs[0]\n",
    )
    assert "second" in _fires("position-is-a-name", _item(ordinal, "position:first>last")).reason
    argument = _problem("Return the first argument's head.", "    return xs[0]\n")
    assert _fires("position-is-a-name", _item(argument, "position:first>last")) is not None
    position = _problem("Return the first element of xs.", "    return xs[0]\n")
    assert _fires("position-is-a-name", _item(position, "position:first>last")) is None


@pytest.mark.parametrize(
    ("doc", "body", "rule", "expect"),
    [
        (
            "Sort xs in ascending order.",
            "    xs.sort()\n    return sorted(xs, key=len)\n",
            "order:ascending>descending",
            "2 sorts",
        ),
        (
            "Return the smallest value.",
            "    return max(xs) - min(xs)\n",
            "extreme:smallest>largest",
            "min/max",
        ),
        (
            "Count the even numbers.",
            "    return sum(1 for x in xs if x % 2 == 0 and x % 2 != 1)\n",
            "parity:even>odd",
            "parity",
        ),
        (
            "Return the even digits.",
            "    lo = max(2, min(xs))\n    return [i for i in range(lo, 9) if i % 2 == 0]\n",
            "parity:even>odd",
            "clamps to 2",
        ),
        (
            "Return the first element of the sorted list.",
            "    return sorted(xs)[0]\n",
            "position:first>last",
            "sorted order",
        ),
        (
            "Check whether the product of xs is even.",
            "    return any(x % 2 == 0 for x in xs)\n",
            "parity:even>odd",
            "any()",
        ),
        (
            "Whether xs is a sum of even numbers.",
            "    return xs % 2 == 0 and xs >= 8\n",
            "parity:even>odd",
            "parity of the input",
        ),
        (
            "Return the maximum.",
            "    best = 0\n    for x in xs:\n        if x > best:\n            best = x\n    return best\n",
            "extreme:maximum>minimum",
            "starts at 0",
        ),
        (
            "Return the sum of even factors.",
            "    if xs % 2:\n        return 0\n    return sum(i for i in range(1, xs + 1) if xs % i == 0)\n",
            "aggregate:sum>product",
            "returns 0",
        ),
        (
            "Return the longest common length.",
            "    t = [[0] * 3 for _ in range(3)]\n    t[1][1] = max(t[0][1], t[1][0])\n    return t\n",
            "extreme:longest>shortest",
            "recurrence",
        ),
    ],
)
def test_one_construct_fires(doc: str, body: str, rule: str, expect: str) -> None:
    finding = _fires("one-construct", _item(_problem(doc, body), rule))
    assert finding is not None and expect in finding.reason, finding


@pytest.mark.parametrize(
    ("doc", "body", "rule"),
    [
        ("Sort xs in ascending order.", "    return sorted(xs, key=len)\n", "order:ascending>descending"),
        ("Return the smallest value.", "    return min(xs)\n", "extreme:smallest>largest"),
        ("Count the even numbers.", "    return sum(1 for x in xs if x % 2 == 0)\n", "parity:even>odd"),
        ("Return xs if it is even, else 0.", "    return xs if xs % 2 == 0 else 0\n", "parity:even>odd"),
        (
            "Return the maximum.",
            "    best = xs[0]\n    for x in xs:\n        if x > best:\n            best = x\n    return best\n",
            "extreme:maximum>minimum",
        ),
        ("Return the first element of xs.", "    return xs[0]\n", "position:first>last"),
    ],
)
def test_one_construct_quiet_on_a_single_construct(doc: str, body: str, rule: str) -> None:
    assert _fires("one-construct", _item(_problem(doc, body), rule)) is None


def test_identical_branches() -> None:
    bad = _problem(
        "Take the minimum, then the maximum of the rest, in turn.",
        "    return [min(xs) if i % 2 else max(xs) for i in range(len(xs))]\n",
    )
    finding = _fires("identical-branches", _item(bad, "extreme:maximum>minimum"))
    assert finding is not None and "min(xs) if i % 2 else min(xs)" in finding.reason
    good = _problem("Return the maximum of xs, or 0 when empty.", "    return max(xs) if xs else 0\n")
    assert _fires("identical-branches", _item(good, "extreme:maximum>minimum")) is None


def test_stale_comment() -> None:
    code = _problem("Return the largest value.", "    # keep the largest one seen\n    return max(xs)\n")
    assert "largest" in _fires("stale-comment", _item(code, "extreme:largest>smallest")).reason
    arithmetic = _problem(
        "True when the sum of xs is at most 9.\n    f([3, 2, 3]) ➞ True\n    # 3+2+3 is at most 9",
        "    return sum(xs) <= 9\n",
    )
    assert "3+2+3" in _fires("stale-comment", _item(arithmetic, "aggregate:sum>product")).reason
    clean = _problem("Return the largest value.", "    # one pass\n    return max(xs)\n")
    assert _fires("stale-comment", _item(clean, "extreme:largest>smallest")) is None


def test_stale_explanation_under_a_changed_example() -> None:
    problem = _problem(
        "Return the smallest value.\n    f([3, 1]) == 1\n    # because 1 is the smallest of the two",
        "    return min(xs)\n",
    )
    item = _item(problem, "extreme:smallest>largest")
    changed = item.variant.prompt.replace("f([3, 1]) == 1", "f([3, 1]) == 3")
    item.variant = item.variant.model_copy(update={"prompt": changed})
    assert "explanation" in _fires("stale-comment", item).reason
    unchanged = _item(problem, "extreme:smallest>largest")
    assert _fires("stale-comment", unchanged) is None


def test_complement_class() -> None:
    tests = [(["aB%c"], "ac"), (["XYz"], "z")]
    problem = _problem(
        "Remove the uppercase letters from xs.",
        "    return ''.join(c for c in xs if c.islower())\n",
        tests=tests,
    )
    item = _item(problem, "case:uppercase>lowercase", ["B", "XY"])
    assert "'%'" in _fires("complement-class", item).reason
    letters = problem.model_copy(update={"tests": [TestCase(input=["aBc"], expected="ac")]})
    assert _fires("complement-class", _item(letters, "case:uppercase>lowercase", ["B"])) is None


def _stats(parent_out: list[Any], variant_out: list[Any], inputs: list[Any] | None = None) -> CheckInput:
    inputs = inputs or [[i] for i in range(len(parent_out))]
    parent = Problem(
        id="t/s",
        prompt="def f(x):\n    pass\n",
        entry_point="f",
        reference="def f(x):\n    return x\n",
        tests=[
            TestCase(input=i, expected=o, has_expected=True) for i, o in zip(inputs, parent_out, strict=True)
        ],
    )
    variant = _variant(
        parent,
        parent.prompt,
        parent.reference,
        [TestCase(input=i, expected=o, has_expected=True) for i, o in zip(inputs, variant_out, strict=True)],
    )
    return CheckInput(variant=variant, parent=parent)


def test_few_changes() -> None:
    finding = _fires("few-changes", _stats(list(range(10)), [0, 99, *range(2, 10)]))
    assert finding is not None and finding.reason == "only 10% of outputs changed (1 of 10; needs 20%)"
    assert _fires("few-changes", _stats(list(range(10)), [0, 99, 98, *range(3, 10)])) is None
    assert (
        _fires("few-changes", _stats(list(range(10)), list(range(10)))) is None
    )  # a meaning-preserving variant


def test_dominant_output() -> None:
    finding = _fires("dominant-output", _stats(list(range(10)), [0] * 9 + [5]))
    assert finding is not None and "90%" in finding.reason and "10%" in finding.reason
    # The parent was already like that: not the variant's doing.
    assert _fires("dominant-output", _stats([0] * 8 + [1, 2], [1] * 9 + [0])) is None
    assert _fires("dominant-output", _stats(list(range(10)), [i % 3 for i in range(10)])) is None


def test_fewer_distinct() -> None:
    finding = _fires("fewer-distinct", _stats(list(range(10)), [i % 2 for i in range(10)]))
    assert finding is not None and "2 distinct outputs against the parent's 10" in finding.reason
    assert _fires("fewer-distinct", _stats(list(range(10)), [i % 4 for i in range(10)])) is None


def test_uniform_elements() -> None:
    finding = _fires("uniform-elements", _stats([[1, 2], [3], [2, 2, 1]], [[0, 0], [0], [0, 0, 0]]))
    assert finding is not None and "0" in finding.reason
    assert _fires("uniform-elements", _stats([[1, 2], [3], [2, 2, 1]], [[0, 1], [0], [1, 1, 0]])) is None


def test_echoes_input() -> None:
    inputs = [[[3, 1, 2]], [[5, 4]], [[9, 7, 8, 1]]]
    strange = [[1, 3, 2], [4, 5], [1, 9, 7, 8]]
    finding = _fires("echoes-input", _stats(strange, [[1, 2, 3], [4, 5], [1, 7, 8, 9]], inputs))
    assert finding is not None and "sorted" in finding.reason
    # A parent that sorted, made to sort the other way, is a fine counterfactual.
    assert (
        _fires(
            "echoes-input",
            _stats([[1, 2, 3], [4, 5], [1, 7, 8, 9]], [[3, 2, 1], [5, 4], [9, 8, 7, 1]], inputs),
        )
        is None
    )


def test_checks_without_an_edit_stay_quiet() -> None:
    """LLM transforms have no rule edit: the text and code checks have nothing to read and say nothing."""
    item = _stats(list(range(10)), list(range(1, 11)))
    for name in (
        "word-in-sentence",
        "word-elsewhere",
        "word-grammar",
        "position-is-a-name",
        "one-construct",
        "identical-branches",
        "stale-comment",
        "complement-class",
        "ties",
    ):
        assert CHECKS[name](item) is None, name


def test_ties_are_held_for_review(engine: Engine) -> None:
    """max(words, key=len) has one longest word; min picks among tied shortest ones: a person must decide."""
    words = [  # the longest first, so neither `xs[0]` nor `xs[-1]` answers the variant
        ["ccc", "a", "b"],
        ["abcd", "xy", "zw"],
        ["stu", "q", "r"],
        ["cde", "aa", "bb"],
        ["qqq", "o", "pp"],
    ]
    doc = "Return the longest word in words.\n    >>> pick(['ab', 'abc'])\n    'abc'"
    problem = _problem(
        doc, "    return max(words, key=len)\n", name="pick", args="words", tests=[([w], None) for w in words]
    )
    problem = problem.model_copy(update={"tests": [TestCase(input=[w]) for w in words]})
    (record,) = mine([problem], engine, keep_all=True).candidates
    assert record.provenance["status"] == "needs_review" and record.provenance["check"] == "ties", (
        record.provenance
    )
    assert "4 of 5 tests tie" in record.provenance["reason"]
    said = problem.model_copy(
        update={
            "id": "t/said",
            "prompt": problem.prompt.replace("in words.", "in words; the first one if several tie."),
            "reference": problem.reference.replace("in words.", "in words; the first one if several tie."),
        }
    )
    (record,) = mine([said], engine, keep_all=True).candidates
    assert record.provenance["status"] == "accepted", record.provenance


def test_edit_records_what_the_checks_read() -> None:
    problem = _problem("Return the smallest value.", "    return min(xs)\n")
    edit = _candidate(problem, "extreme:smallest>largest").edit
    assert (
        isinstance(edit, Edit)
        and edit.family == "extreme"
        and edit.old_code == "min("
        and edit.new_code == "max("
    )
    assert problem.prompt[edit.text_span[0] : edit.text_span[1]] == "smallest"
    assert problem.reference[edit.code_span[0] : edit.code_span[1]] == "min("
