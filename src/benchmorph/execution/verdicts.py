"""Turning a worker's raw reply into a Verdict: the only place answers are judged.

This runs on the host, outside the sandbox, with the expected outputs the
sandbox never sees.
"""

from __future__ import annotations

from typing import Any

from benchmorph.data import values
from benchmorph.data.models import Problem, TestResult, Verdict
from benchmorph.execution.compare import short_diff, stdout_match, values_match
from benchmorph.execution.oracles import get_oracle


def judge_output(problem: Problem, test_index: int, output: Any) -> tuple[bool, str | None]:
    """Whether the output of one test is right, and a short diff when it is not.

    A problem with an oracle is judged by its oracle alone: its stored expected
    value is one reference's answer, which need not be right (``Engine.prepare``
    drops the tests where it fails the oracle), so equality with it proves nothing.
    """
    test = problem.tests[test_index]
    if problem.kind == "stdin":
        ok = stdout_match(test.expected, output, problem.atol)
    elif problem.oracle:
        ok = oracle_accepts(problem, test.input, output, test.expected)
    else:
        ok = values_match(test.expected, output, problem.atol, problem.strict_sequences)
    return ok, None if ok else short_diff(test.expected, output)


def oracle_accepts(problem: Problem, args: Any, answer: Any, expected: Any = None) -> bool:
    """The problem's oracle on one answer; an oracle that raises rejects the answer."""
    oracle = get_oracle(problem.oracle or "")
    try:
        return bool(oracle(args, answer, expected, problem.atol))
    except Exception:  # noqa: BLE001 - an answer the check cannot handle is not shown to be right
        return False


def judge_record(problem: Problem, test_index: int, record: dict[str, Any]) -> TestResult:
    """The result of one test the solution answered; never raises.

    The answer is model-chosen, so whatever goes wrong while decoding or
    judging it fails that test with a short reason instead of ending the run.
    """
    elapsed = record.get("t")
    try:
        output = record["o"] if problem.kind == "stdin" else values.decode(record.get("o"))
        ok, diff = judge_output(problem, test_index, output)
    except Exception as exc:  # noqa: BLE001 - see above
        return TestResult(
            index=test_index,
            status="fail",
            time=elapsed,
            diff=f"the answer cannot be judged: {type(exc).__name__}",
        )
    return TestResult(index=test_index, status="pass" if ok else "fail", time=elapsed, diff=diff)


def _overall(tests: list[TestResult]) -> str:
    for result in tests:
        if result.status != "pass":
            return "error" if result.status == "not-run" else result.status
    return "pass"


def build_verdict(
    problem: Problem, reply: dict[str, Any], task_id: str, index: int, isolation: str
) -> Verdict:
    total = len(problem.tests)
    wall = float(reply.get("wall") or 0.0)

    def verdict(status: str, tests: list[TestResult], error: str | None) -> Verdict:
        return Verdict(
            task_id=task_id,
            index=index,
            status=status,  # type: ignore[arg-type]
            passed=sum(1 for t in tests if t.status == "pass"),
            total=total,
            tests=tests,
            time=wall,
            error=error,
            isolation=isolation,
        )

    def whole(status: str, error: str) -> Verdict:
        return verdict(status, [TestResult(index=i, status="not-run") for i in range(total)], error)

    if "crashed" in reply:
        return whole("sandbox-violation", f"sandbox worker lost: {reply['crashed']}")
    if reply.get("fatal"):
        return whole("error", str(reply["fatal"]))
    if reply.get("setup_error"):
        return whole("error", str(reply["setup_error"]))
    if reply.get("timeout_in") == "setup":
        return whole("timeout", "solution did not finish loading in time")

    tests: list[TestResult] = []
    records = reply.get("results") or []
    for i in range(total):
        record = records[i] if i < len(records) else None
        if record is None:
            if reply.get("timeout_in") == i:
                tests.append(TestResult(index=i, status="timeout", error="time limit exceeded"))
            else:
                tests.append(TestResult(index=i, status="not-run"))
            continue
        if record.get("s") == "ok":
            tests.append(judge_record(problem, i, record))
        else:
            tests.append(
                TestResult(
                    index=i, status="error", time=record.get("t"), error=str(record.get("e", "error"))[:400]
                )
            )

    status = _overall(tests)
    error = None
    if reply.get("violation"):
        status, error = "sandbox-violation", str(reply["violation"])
    elif (
        status == "error"
        and any(t.status == "not-run" for t in tests)
        and not any(t.status == "error" for t in tests)
    ):
        error = f"solution stopped before running every test ({reply.get('exit') or 'no result'})"
    elif status != "pass":
        first = next(t for t in tests if t.status != "pass")
        error = first.error or first.diff
    return verdict(status, tests, error)
