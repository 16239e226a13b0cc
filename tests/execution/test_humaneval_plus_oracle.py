"""HumanEval+/32 (find_zero) is judged by its oracle alone, on the real EvalPlus data.

EvalPlus's corrected reference is Newton's method with 1000 steps; on
xs=[-20, 156, -864, 2667, -4392, 3744, -1440, 79] it stops at
0.3313874511391548, where the polynomial is -6.0.  That stored value is not a
root, so an answer equal to it must not pass, and the test itself is dropped
with a warning at prepare time.  The whole reference must still pass on what
is left (the reason an equality shortcut was once added, commit 3b21852).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmorph.data import load_benchmark
from benchmorph.data.models import Problem
from benchmorph.execution import Engine, Job
from cli_runner import run_cli
from paths import HUMANEVAL_PLUS_INPUTS as INPUTS

NOT_A_ROOT_INPUT = [[-20, 156, -864, 2667, -4392, 3744, -1440, 79]]
STORED = 0.3313874511391548

pytestmark = [
    pytest.mark.usefixtures("shared_data"),
    pytest.mark.timeout(300),
]


@pytest.fixture(scope="module")
def find_zero() -> Problem:
    [problem] = [p for p in load_benchmark("humaneval+", INPUTS).problems if p.id == "HumanEval/32"]
    return problem


def test_reference_answers_that_fail_the_oracle_are_dropped_and_the_reference_passes(
    find_zero: Problem, engine: Engine
) -> None:
    position = [test.input for test in find_zero.tests].index(NOT_A_ROOT_INPUT)
    report = engine.prepare([find_zero])
    [prepared] = report.problems
    failures = report.oracle_failures["HumanEval/32"]
    assert f"test {position}: the reference's answer {STORED!r} fails the oracle polynomial_root" in failures
    # Only the two inputs where Newton's 1000 steps end off a root ([1, -1, 0, 32] is the other).
    assert len(failures) == 2 and set(failures) <= set(report.dropped_tests["HumanEval/32"])
    assert NOT_A_ROOT_INPUT not in [test.input for test in prepared.tests]
    assert len(prepared.tests) > 100
    [verdict] = engine.evaluate([Job(prepared, find_zero.reference, "HumanEval/32")])
    assert verdict.status == "pass", verdict.error
    assert verdict.passed == verdict.total == len(prepared.tests)


def test_an_answer_equal_to_the_stored_value_fails_when_it_is_not_a_root(
    find_zero: Problem, engine: Engine
) -> None:
    """Had the test been kept (no prepare), equality with the stored value still gives no credit."""
    [test] = [test for test in find_zero.tests if test.input == NOT_A_ROOT_INPUT]
    kept = find_zero.model_copy(
        update={"tests": [test.model_copy(update={"expected": STORED, "has_expected": True})]}
    )
    [verdict] = engine.evaluate([Job(kept, find_zero.reference, "HumanEval/32")])
    assert verdict.status == "fail"
    assert verdict.tests[0].diff == f"expected {STORED!r}, got {STORED!r}"


def test_evaluate_warns_by_name_and_the_reference_scores_one(find_zero: Problem, tmp_path: Path) -> None:
    samples = tmp_path / "samples.jsonl"
    samples.write_text(json.dumps({"task_id": "HumanEval/32", "solution": find_zero.reference}) + "\n")
    result = run_cli(
        "evaluate", "humaneval+", "--data", str(INPUTS), "--samples", str(samples), "--out", str(tmp_path / "run"),
        cache=tmp_path / "cache", cwd=tmp_path, timeout=240,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    [warning] = [line for line in result.stderr.splitlines() if "oracle" in line]
    assert warning.startswith(
        "warning: HumanEval/32: dropped 2 tests where the reference's own answer fails the problem's oracle: "
    ), warning
    assert f"the reference's answer {STORED!r} fails the oracle polynomial_root" in warning
    assert json.loads((tmp_path / "run" / "summary.json").read_text())["pass@1"] == 1.0
