"""Mutants judged to their first failure: the same mutants killed, by the same first test, as with every
test's result, on the real sandbox; and what a verdict without the whole table says about its killers."""

from __future__ import annotations

import pytest

from benchmorph.data.models import Problem, TestCase, TestResult, Verdict
from benchmorph.execution import Engine
from benchmorph.testgen.kills import killers, mutant_kills
from benchmorph.testgen.score import mutant_set

CLAMP = Problem(
    id="clamp",
    prompt="def clamp(x, low, high):\n",
    entry_point="clamp",
    reference=(
        "def clamp(x, low, high):\n    if x < low:\n        return low\n    if x > high:\n"
        "        return high\n    return x\n"
    ),
    tests=[TestCase(input=args) for args in ([5, 0, 10], [-3, 0, 10], [12, 0, 10], [0, 0, 10], [10, 0, 10])],
)


@pytest.fixture(scope="module")
def engine():
    with Engine(workers=2) as engine:
        yield engine


def test_first_failure_kills_the_same_mutants_by_their_first_killer(engine: Engine) -> None:
    prepared = engine.prepare([CLAMP]).problems[0]
    found = mutant_set(prepared)
    assert len(found) >= 5
    full = mutant_kills([prepared], [found], engine)[0]
    first = mutant_kills([prepared], [found], engine, first_failure=True)[0]
    assert any(kills.killed for kills in full) and any(len(kills.killers) > 1 for kills in full)
    for whole, short in zip(full, first, strict=True):
        assert whole.killed == short.killed
        if whole.killed:
            assert short.killers == {min(whole.killers)}


def _verdict(tests: list[TestResult], passed: int, total: int = 4) -> Verdict:
    return Verdict(task_id="t", status="error", passed=passed, total=total, tests=tests)


def test_a_verdict_without_the_whole_table_names_its_killers_as_the_whole_table_would() -> None:
    # Failed to load: no test shown, none passed, so every test kills it.
    assert killers(_verdict([], passed=0)) == {0, 1, 2, 3}
    # Stopped by the sandbox at test 2 after two passing tests: test 2 alone, as with the table.
    assert killers(_verdict([TestResult(index=2, status="not-run")], passed=2)) == {2}
    whole = [TestResult(index=i, status="pass") for i in range(2)]
    whole += [TestResult(index=i, status="not-run") for i in range(2, 4)]
    assert killers(_verdict(whole, passed=2)) == {2}
    # Stopped at the very first test: it never ran one, either way.
    assert killers(_verdict([TestResult(index=0, status="not-run")], passed=0)) == {0, 1, 2, 3}
    assert killers(_verdict([TestResult(index=i, status="not-run") for i in range(4)], passed=0)) == {
        0,
        1,
        2,
        3,
    }
