"""`audit_benchmark` on the real HumanEval and MBPP+: every case issue 26 lists is found, by id and finding.

The audit runs on the listed problems only (plus what a case needs beside
it, such as both halves of a near-duplicate pair), so the module stays fast;
the whole benchmarks are audited by bench/audit.py and docs/errata/ holds
that output.  A few problems that look alike but are fine (the words do
settle the rule) must stay clean: the findings are only worth what their
precision is.
"""

from __future__ import annotations

import pytest

from benchmorph.data.models import Problem
from benchmorph.data.registry import load_benchmark
from benchmorph.execution.engine import Engine
from benchmorph.validation.audit import AuditFinding, AuditReport, audit_benchmark
from paths import MBPP_PLUS as MBPP
from paths import require_shared

HUMANEVAL_CASES = [51, 145, 149, 120, 75, 35, 47, 116, 148, 108, 64, 124, 56, 61]
MBPP_CASES = [419, 20, 734, 8, 447, 295]


@pytest.fixture(scope="module")
def engine():
    with Engine(workers=2, test_details=False) as running:
        yield running


@pytest.fixture(scope="module")
def humaneval(engine: Engine) -> AuditReport:
    problems = load_benchmark("humaneval").by_id()
    chosen = [problems[f"HumanEval/{n}"] for n in HUMANEVAL_CASES]
    return audit_benchmark(chosen, engine, benchmark="humaneval", mutants=0)


@pytest.fixture(scope="module")
def mbpp(engine: Engine) -> AuditReport:
    require_shared(MBPP)
    problems = load_benchmark("mbpp+", MBPP).by_id()
    chosen = [problems[f"Mbpp/{n}"] for n in MBPP_CASES]
    return audit_benchmark(chosen, engine, benchmark="mbpp+", mutants=0)


def finding(report: AuditReport, problem: str, key: str) -> AuditFinding:
    found = [f for f in report.for_problem(problem) if f.key == key]
    assert found, f"{problem}: no {key} among {[f.key for f in report.for_problem(problem)]}"
    return found[0]


def test_an_unstated_rule_that_decides_tests_is_ambiguous(humaneval: AuditReport) -> None:
    y = finding(humaneval, "HumanEval/51", "alternative-readings:letters-add-y")
    assert y.severity == "ambiguous" and "y counts as a vowel" in y.summary
    assert any("remove_vowels('ybcd') expects 'ybcd'" in e.text for e in y.evidence)
    assert y.fix is not None and y.fix.mechanical and y.fix.text == " (y is not a vowel)"
    digits = finding(humaneval, "HumanEval/145", "alternative-readings:digits-abs")
    assert digits.severity == "ambiguous" and "fails 3 of 6 tests" in digits.summary
    # The reference's rule is unusual and only an example shows it; no words to add are known.
    assert digits.fix is not None and not digits.fix.mechanical


def test_stale_or_wrong_text(humaneval: AuditReport, mbpp: AuditReport) -> None:
    same = finding(humaneval, "HumanEval/149", "preconditions:same-length:lst")
    assert same.severity == "wrong" and "4 of 7 tests break it" in same.summary
    assert same.fix is not None and same.fix.says.startswith("drop the sentence 'You may assume")
    names = finding(humaneval, "HumanEval/149", "example-names:list_sort")
    assert names.severity == "wrong" and "not sorted_list_sum" in names.summary
    positive = finding(humaneval, "HumanEval/120", "preconditions:sign:k")
    assert positive.fix is not None and positive.fix.text == "non-negative"
    less = finding(humaneval, "HumanEval/75", "preconditions:bound:a")
    assert any("is_multiply_prime(125)" in e.text for e in less.evidence)
    assert finding(humaneval, "HumanEval/75", "text-lint:then:less").severity == "cosmetic"
    printed = finding(mbpp, "Mbpp/419", "text-lint:print")
    assert printed.severity == "wrong" and printed.fix is not None and printed.fix.text == "return"
    woodball = finding(mbpp, "Mbpp/20", "text-lint:name:woodball")
    assert woodball.severity == "cosmetic" and "'woodall'" in woodball.summary


def test_weak_tests(humaneval: AuditReport, mbpp: AuditReport) -> None:
    assert finding(humaneval, "HumanEval/35", "weak-tests:few").summary == "only 2 tests"
    few = finding(mbpp, "Mbpp/734", "weak-tests:few")
    # Its fourth input, [], is a generated one its contract rejects (made to be filtered: no erratum).
    assert few.summary == "only 3 tests (1 more the reference or its contract rejects)"
    assert not [f for f in mbpp.for_problem("Mbpp/734") if f.check == "reference-runs"]


def test_copies_inside_the_benchmark(mbpp: AuditReport) -> None:
    twin = finding(mbpp, "Mbpp/8", "near-duplicates:one-word")
    assert "Mbpp/447" in twin.summary and "'squares' for 'cubes'" in twin.summary
    assert twin.severity == "cosmetic"  # two formulas, no defect: a note for transforms
    assert "Mbpp/8" in finding(mbpp, "Mbpp/447", "near-duplicates:one-word").summary


def test_examples_that_contradict_the_reference(humaneval: AuditReport, mbpp: AuditReport) -> None:
    for report, problem in [
        (mbpp, "Mbpp/295"),
        (humaneval, "HumanEval/47"),
        (humaneval, "HumanEval/116"),
        (humaneval, "HumanEval/148"),
    ]:
        wrong = finding(report, problem, "examples:disagree")
        assert wrong.severity == "wrong" and wrong.fix is not None and wrong.fix.mechanical
    assert (
        "sum_div(8)==7 claims 7; the reference gives 15"
        in finding(mbpp, "Mbpp/295", "examples:disagree").evidence[0].text
    )


def test_problems_whose_words_settle_the_rule_stay_clean(humaneval: AuditReport) -> None:
    """108 says a negative number's first digit is negative, 64 that y is a vowel at the end; 124's
    "the date string is not empty" is a rule the function checks, not a promise; 56 and 61 differ in
    their brackets."""
    for problem in ["HumanEval/108", "HumanEval/64", "HumanEval/124", "HumanEval/56", "HumanEval/61"]:
        blocking = [f.key for f in humaneval.for_problem(problem) if f.severity in ("wrong", "ambiguous")]
        assert blocking == [], problem
        assert not [f for f in humaneval.for_problem(problem) if f.check == "near-duplicates"], problem


def test_the_mined_variant_of_humaneval_117_shows_one_value_in_most_examples(engine: Engine) -> None:
    """A file of variants is audited like any benchmark: the 'vowels' variant of select_words shows [] in
    4 of its 5 examples."""
    from benchmorph.morph.transforms.mine.mine import mine

    problem: Problem = load_benchmark("humaneval").by_id()["HumanEval/117"]
    report = mine([problem], engine)
    [variant] = report.variants
    audited = audit_benchmark([variant], engine, mutants=0)
    weak = finding(audited, variant.id, "weak-tests:examples")
    assert weak.summary.startswith("4 of the 5 worked examples show []")
