"""References that fail their own tests: inputs they reject or crash on, answers their oracle refuses.

A benchmark's expected outputs come from its reference.  A test input the
reference cannot run (its contract rejects it, it raises, it runs out of
time: a test that cannot be judged, reported as weak) has no trustworthy
answer, and a reference answer its problem's own
oracle refuses (HumanEval/32's root finder, where one exists) means the
reference is wrong there.  Both are what ``Engine.prepare`` drops and says
why; the audit reports them by problem, with the inputs.  A contract that
rejects one of the benchmark's own tests (origin ``base``), or a reference
that raises on one, contradicts it; generated inputs (HumanEval+'s plus
inputs) are made to be filtered by the contract and the reference, so their
rejections are no errata.  An answer the oracle refuses is one, whatever
the input's origin.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from benchmorph.validation.audit.base import AuditContext, Subject, audit_check, call_text
from benchmorph.validation.audit.findings import AuditFinding, Evidence

_INDEX = re.compile(r"^test (\d+): (.*)$", re.S)


def _origin(subject: Subject, reason: str) -> str:
    match = _INDEX.match(reason)
    if match and int(match.group(1)) < len(subject.loaded.tests):
        return subject.loaded.tests[int(match.group(1))].origin
    return "base"


def _evidence(subject: Subject, reasons: Sequence[str], limit: int = 3) -> tuple[Evidence, ...]:
    items = []
    for reason in reasons[:limit]:
        match = _INDEX.match(reason)
        if match and int(match.group(1)) < len(subject.loaded.tests):
            test = subject.loaded.tests[int(match.group(1))]
            items.append(Evidence("test", f"{call_text(subject.loaded, test.input)}: {match.group(2)[:160]}"))
        else:
            items.append(Evidence("test", reason[:200]))
    return tuple(items)


@audit_check("reference-runs", severities={"wrong", "weak"}, inherited=False, version=3)
def reference_runs(subjects: Sequence[Subject], ctx: AuditContext) -> list[AuditFinding]:
    """A reference that cannot run at all, fails on some test inputs, or gives answers its oracle refuses."""
    found = []
    for subject in subjects:
        if subject.unusable is not None:
            if not subject.loaded.reference.strip() and all(t.has_expected for t in subject.loaded.tests):
                continue  # no reference, expected outputs given (LiveCodeBench): nothing to run
            found.append(
                AuditFinding(
                    subject.id,
                    "reference-runs",
                    "wrong",
                    f"the reference cannot run: {subject.unusable[:160]}",
                    "reference-runs:unusable",
                )
            )
            continue
        oracle = set(subject.oracle_failures)
        failing = [reason for reason in subject.dropped if reason not in oracle]
        rejected = [reason for reason in failing if "invalid inputs" in reason or "AssertionError" in reason]
        # Generated inputs (HumanEval+'s, MBPP+'s) are made to be filtered by the contract: only the
        # benchmark's own tests (origin "base") that it rejects are errata.
        contract = [reason for reason in rejected if _origin(subject, reason) == "base"]
        slow = [reason for reason in failing if "timed out or did not run" in reason]
        other = [
            reason
            for reason in failing
            if reason not in rejected and reason not in slow and _origin(subject, reason) == "base"
        ]
        total = len(subject.loaded.tests)
        if contract:
            whose = (
                "its contract rejects" if subject.loaded.contract else "the reference's own asserts reject"
            )
            found.append(
                AuditFinding(
                    subject.id,
                    "reference-runs",
                    "wrong",
                    f"{len(contract)} of {total} test inputs are ones {whose}: those tests have no answer",
                    "reference-runs:contract",
                    _evidence(subject, contract),
                )
            )
        if other:
            found.append(
                AuditFinding(
                    subject.id,
                    "reference-runs",
                    "wrong",
                    f"the reference raises on {len(other)} of {total} test inputs",
                    "reference-runs:fails",
                    _evidence(subject, other),
                )
            )
        if slow:
            found.append(
                AuditFinding(
                    subject.id,
                    "reference-runs",
                    "weak",
                    f"the reference does not finish {len(slow)} of {total} tests within the time limit "
                    "(or stops before them): those tests cannot be judged",
                    "reference-runs:slow",
                    _evidence(subject, slow),
                )
            )
        if oracle:
            found.append(
                AuditFinding(
                    subject.id,
                    "reference-runs",
                    "wrong",
                    f"the reference's answer fails the problem's oracle ({subject.loaded.oracle}) on "
                    f"{len(oracle)} of {total} tests",
                    "reference-runs:oracle",
                    _evidence(subject, subject.oracle_failures),
                )
            )
    return found
