"""Worked examples the reference disagrees with: the text shows one answer, the tests expect another.

HumanEval/47 shows ``median([-10, 4, 6, 1000, 10, 20])`` as 15.0 where its
reference (and every test) says 8.0; MBPP+'s Mbpp/295 asserts
``sum_div(8)==7`` where its reference returns 15; HumanEval/148 writes
``("Venus")``, a string, for a tuple.  A reader who trusts the example
fails the tests.  Every example the scanner reads
(``validation.examples.recompute.check_examples``) is compared with the
reference; the fix rewrites the disagreeing values to the reference's (the
tests are the reference's outputs, so the example is what is wrong).
"""

from __future__ import annotations

from collections.abc import Sequence

from benchmorph.validation.audit.base import AuditContext, Subject, audit_check, one_line, value_text
from benchmorph.validation.audit.findings import AuditFinding, Evidence
from benchmorph.validation.audit.fixes import fix_from_rewrite
from benchmorph.validation.examples.recompute import check_examples
from benchmorph.validation.examples.scan import has_literal_spelling, rewrite_examples


@audit_check("examples", severities={"wrong"}, inherited=True)
def examples_agree(subjects: Sequence[Subject], ctx: AuditContext) -> list[AuditFinding]:
    """Examples whose claimed value is not what the reference gives on their input."""
    runnable = [subject for subject in subjects if subject.runs and subject.problem.kind == "function"]
    judged = check_examples([subject.problem for subject in runnable], ctx.engine) if runnable else {}
    found = []
    for subject in runnable:
        checks = judged.get(subject.id, [])
        wrong = [check for check in checks if check.ran and check.readable and not check.agrees]
        failing = [check for check in checks if not check.ran]
        prompt = subject.problem.prompt
        lines = prompt.splitlines()
        if wrong:
            evidence = tuple(
                Evidence(
                    "example",
                    f"line {c.example.line + 1}: {one_line(lines[c.example.line], 100)!s} claims "
                    f"{one_line(c.example.expected_text, 50)}; the reference gives {value_text(c.value)}",
                )
                for c in wrong[:3]
            )
            fix = None
            if all(has_literal_spelling(c.example.value_of(c.value)) for c in wrong):
                try:
                    rewritten = rewrite_examples(
                        prompt, [c.example for c in wrong], [c.example.value_of(c.value) for c in wrong]
                    )
                    shown = ", ".join(value_text(c.example.value_of(c.value), 40) for c in wrong[:3])
                    fix = fix_from_rewrite(prompt, rewritten, f"show the reference's value: {shown}")
                except (ValueError, TypeError):
                    fix = None
            first = wrong[0]
            found.append(
                AuditFinding(
                    subject.id,
                    "examples",
                    "wrong",
                    f"{len(wrong)} of {len(checks)} worked examples disagree with the reference "
                    f"(line {first.example.line + 1} claims {one_line(first.example.expected_text, 40)}, "
                    f"the reference gives {value_text(first.value, 40)})",
                    "examples:disagree",
                    evidence,
                    fix,
                )
            )
        if failing:
            found.append(
                AuditFinding(
                    subject.id,
                    "examples",
                    "wrong",
                    f"the reference fails on the input of {len(failing)} worked example(s) "
                    f"(line {failing[0].example.line + 1})",
                    "examples:fails",
                    tuple(
                        Evidence(
                            "example", f"line {c.example.line + 1}: {one_line(lines[c.example.line], 100)}"
                        )
                        for c in failing[:3]
                    ),
                )
            )
    return found
