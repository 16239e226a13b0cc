"""Turning a worker's raw reply into a Verdict: the only place answers are judged.

This runs on the host, outside the sandbox, with the expected outputs the
sandbox never sees.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from benchmorph.data import values
from benchmorph.data.models import Problem, TestResult, Verdict
from benchmorph.execution.compare import short_diff, stdout_match, values_match
from benchmorph.execution.oracles import get_oracle
from benchmorph.execution.protocol import TestRecord, WorkerReply


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


def judge_record(problem: Problem, test_index: int, record: TestRecord) -> TestResult:
    """The result of one test the solution answered; never raises.

    The answer is model-chosen, so whatever goes wrong while decoding or
    judging it fails that test with a short reason instead of ending the run.
    """
    elapsed = record.time
    try:
        output = record.output if problem.kind == "stdin" else values.decode(record.output)
        ok, diff = judge_output(problem, test_index, output)
    except Exception as exc:  # noqa: BLE001 - see above
        return TestResult(
            index=test_index,
            status="fail",
            time=elapsed,
            diff=f"the answer cannot be judged: {type(exc).__name__}",
        )
    return TestResult(index=test_index, status="pass" if ok else "fail", time=elapsed, diff=diff)


def _raised(test_index: int, record: TestRecord) -> TestResult:
    return TestResult(
        index=test_index, status="error", time=record.time, error=(record.error or "error")[:400]
    )


def judge_result(problem: Problem, test_index: int, record: TestRecord) -> TestResult | None:
    """One test's result record judged: None when it passed, else the failing TestResult; never raises.

    The cheap form of ``judge_record`` for runs without per-test details:
    a pass builds nothing.
    """
    if not record.returned:
        return _raised(test_index, record)
    try:
        output = record.output if problem.kind == "stdin" else values.decode(record.output)
        test = problem.tests[test_index]
        if problem.kind == "stdin":
            ok = stdout_match(test.expected, str(output), problem.atol)
        elif problem.oracle:
            ok = oracle_accepts(problem, test.input, output, test.expected)
        else:
            ok = values_match(test.expected, output, problem.atol, problem.strict_sequences)
    except Exception:  # noqa: BLE001 - judge_record says why, for the one test that decides
        return judge_record(problem, test_index, record)
    return None if ok else judge_record(problem, test_index, record)


class FirstFailure:
    """The judge a ``StreamWatch`` calls without per-test details: stop at the first test that does not pass.

    Keeps what it judged, so ``build_verdict`` does not judge those tests again.
    """

    def __init__(self, problem: Problem) -> None:
        self.problem = problem
        self.judged: dict[int, TestResult | None] = {}

    def __call__(self, index: int, record: TestRecord) -> bool:
        result = judge_result(self.problem, index, record)
        self.judged[index] = result
        return result is None


def _overall(tests: list[TestResult]) -> str:
    for result in tests:
        if result.status != "pass":
            return "error" if result.status == "not-run" else result.status
    return "pass"


def build_verdict(
    problem: Problem,
    reply: WorkerReply,
    task_id: str,
    index: int,
    isolation: str,
    details: bool = True,
    judged: dict[int, TestResult | None] | None = None,
) -> Verdict:
    """The verdict on one sample from its worker reply.

    With ``details`` every test's result is kept (``tests``, one per test).
    Without, the first test that did not pass decides, as it does with
    details, and is the only one kept; ``passed`` then counts the tests
    before it.  ``judged`` holds tests a ``FirstFailure`` already judged.
    """
    total = len(problem.tests)
    wall = reply.wall

    def verdict(
        status: str, tests: list[TestResult], error: str | None, passed: int | None = None
    ) -> Verdict:
        return Verdict(
            task_id=task_id,
            index=index,
            status=status,  # type: ignore[arg-type]
            passed=sum(1 for t in tests if t.status == "pass") if passed is None else passed,
            total=total,
            tests=tests,
            time=wall,
            error=error,
            isolation=isolation,
        )

    def whole(status: str, error: str) -> Verdict:
        if not details:
            return verdict(status, [], error)
        return verdict(status, [TestResult(index=i, status="not-run") for i in range(total)], error)

    if reply.crashed is not None:
        return whole("sandbox-violation", f"sandbox worker lost: {reply.crashed}")
    if reply.fatal:
        return whole("error", reply.fatal)
    if reply.setup_error:
        return whole("error", reply.setup_error)
    if reply.timeout_in == "setup":
        return whole("timeout", "solution did not finish loading in time" + _limit_note(reply))

    if not details:
        return _first_failure_verdict(problem, reply, judged or {}, verdict)
    tests: list[TestResult] = []
    records = reply.results
    for i in range(total):
        record = records[i] if i < len(records) else None
        if record is None:
            if reply.timeout_in == i:
                tests.append(_timed_out(i, reply))
            else:
                tests.append(TestResult(index=i, status="not-run"))
            continue
        if record.returned:
            tests.append(judge_record(problem, i, record))
        else:
            tests.append(_raised(i, record))

    status = _overall(tests)
    error = None
    if reply.violation:
        status, error = "sandbox-violation", reply.violation
    elif (
        status == "error"
        and any(t.status == "not-run" for t in tests)
        and not any(t.status == "error" for t in tests)
    ):
        error = f"solution stopped before running every test ({reply.exit or 'no result'})"
    elif status != "pass":
        first = next(t for t in tests if t.status != "pass")
        error = first.error or first.diff
    return verdict(status, tests, error)


def _limit_note(reply: WorkerReply) -> str:
    """Which clock ran out, for a timeout's message: CPU time is the limit, wall time only its backstop."""
    if reply.timeout_by == "wall":
        return " (wall-clock backstop: it waited, using little CPU)"
    return " (CPU time)" if reply.timeout_by == "cpu" else ""


def _timed_out(index: int, reply: WorkerReply) -> TestResult:
    return TestResult(index=index, status="timeout", error="time limit exceeded" + _limit_note(reply))


def _first_failure_verdict(
    problem: Problem,
    reply: WorkerReply,
    judged: dict[int, TestResult | None],
    verdict: Callable[..., Verdict],
) -> Verdict:
    """``build_verdict`` without details: judge up to the first test that does not pass, keep only that one.

    Its status and error are what the full table would give: the full
    table's status is also its first non-passing test's (``_overall``).
    """
    records = reply.results
    decisive: TestResult | None = None
    passed = 0
    for i in range(len(problem.tests)):
        record = records[i] if i < len(records) else None
        if record is None:
            if reply.timeout_in == i:
                decisive = _timed_out(i, reply)
            else:
                decisive = TestResult(index=i, status="not-run")
            break
        decisive = judged[i] if i in judged else judge_result(problem, i, record)
        if decisive is not None:
            break
        passed += 1
    if reply.violation:
        return verdict("sandbox-violation", [decisive] if decisive else [], reply.violation, passed)
    if decisive is None:
        return verdict("pass", [], None, passed)
    if decisive.status == "not-run":
        error = f"solution stopped before running every test ({reply.exit or 'no result'})"
        return verdict("error", [decisive], error, passed)
    return verdict(decisive.status, [decisive], decisive.error or decisive.diff, passed)
