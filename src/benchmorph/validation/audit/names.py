"""Worked examples that call another function than the one the task asks for.

HumanEval/149 asks for ``sorted_list_sum`` and shows ``assert
list_sort(["aa", "a", "aaa"]) => ["aa"]``: stale text from an earlier
version of the task.  A reader may define the wrong name, or doubt which
function the examples describe.  The scanner already reads such calls as
examples of the entry point (``validation.examples.scan.example_aliases``);
here they are reported, and the fix renames the calls.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from benchmorph.validation.audit.base import AuditContext, Subject, audit_check, one_line
from benchmorph.validation.audit.findings import AuditFinding, Evidence
from benchmorph.validation.audit.fixes import fix_from_rewrite
from benchmorph.validation.examples.recompute import reference_parameters
from benchmorph.validation.examples.scan import example_aliases


@audit_check("example-names", severities={"wrong"}, inherited=True)
def example_names(subjects: Sequence[Subject], ctx: AuditContext) -> list[AuditFinding]:
    """Examples calling a name that is neither the entry point nor defined anywhere in the prompt."""
    found = []
    for subject in subjects:
        problem = subject.problem
        if problem.kind != "function" or not problem.entry_point:
            continue
        aliases = sorted(example_aliases(problem.prompt, problem.entry_point, reference_parameters(problem)))
        if not aliases:
            continue
        calls = re.compile(rf"(?<![\w.])({'|'.join(map(re.escape, aliases))})(?=[ \t]*\()")
        lines = problem.prompt.splitlines()
        at = sorted({problem.prompt.count("\n", 0, m.start()) for m in calls.finditer(problem.prompt)})
        renamed = calls.sub(problem.entry_point, problem.prompt)
        names = ", ".join(aliases)
        found.append(
            AuditFinding(
                problem.id,
                "example-names",
                "wrong",
                f"the examples call {names}, not {problem.entry_point} ({len(at)} lines)",
                f"example-names:{names}",
                tuple(Evidence("example", f"line {n + 1}: {one_line(lines[n], 120)}") for n in at[:3]),
                fix_from_rewrite(
                    problem.prompt, renamed, f"call {problem.entry_point} where the examples call {names}"
                ),
            )
        )
    return found
