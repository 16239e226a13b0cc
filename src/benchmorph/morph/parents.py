"""Every transform checks its parent first: no variant inherits a known slip of its original.

A variant takes its parent's text and tests, and with them the parent's
slips: the counterfactuals of HumanEval/51 (is ``y`` a consonant?), 145 (a
negative number's first digit counts negative) and 149 ("all words will
have the same length", examples that call ``list_sort``) kept them.  Before
a transform runs, its parents go through the audit checks whose findings
live in text and tests (``validation.audit``, ``inherited=True``).  After
it, every live candidate (accepted, or held for review) of a parent with a
``wrong`` or ``ambiguous`` finding is audited with the same checks; a
finding the candidate has too (the same ``key``) is inherited:

* where every inherited finding has a mechanical fix (add "(y counts as a
  consonant)", drop the sentence "You may assume ...", call the entry point
  where the examples call another name), the fixes are applied to the
  variant's text, and the variant is audited again: it is kept, with
  ``provenance["audit_fixes"]``, only if the findings are gone and nothing
  new of that kind appeared;
* otherwise the candidate is rejected with the audit's check
  (``audit:alternative-readings``) and the parent's finding as its reason,
  so the seed yields no variant.

``morph run --audit off`` (``MorphContext.audit = "off"``) skips all of it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from benchmorph.core.progress import ProgressFactory, no_progress
from benchmorph.data.models import Problem, Variant
from benchmorph.execution.engine import Engine
from benchmorph.morph.finalize import decided
from benchmorph.morph.transform import ACCEPTED, NEEDS_REVIEW, REJECTED, MorphReport
from benchmorph.validation.audit.findings import BLOCKING, AuditFinding, Fix
from benchmorph.validation.audit.fixes import apply_fix
from benchmorph.validation.audit.run import audit_benchmark


@dataclass
class ParentAudit:
    """The findings a variant must not inherit, per parent id."""

    findings: dict[str, list[AuditFinding]] = field(default_factory=dict)
    checks: list[str] = field(default_factory=list)

    def for_parent(self, parent_id: str) -> list[AuditFinding]:
        return self.findings.get(parent_id, [])


def audit_parents(
    problems: Sequence[Problem], engine: Engine, progress: ProgressFactory = no_progress
) -> ParentAudit:
    """The wrong or ambiguous findings of ``problems`` that variants could inherit."""
    report = audit_benchmark(problems, engine, inherited=True, mutants=0, progress=progress)
    blocking: dict[str, list[AuditFinding]] = {}
    for finding in report.findings:
        if finding.severity in BLOCKING:
            blocking.setdefault(finding.problem, []).append(finding)
    return ParentAudit(blocking, report.checks_run)


def _inherited(variant: Variant, parent: list[AuditFinding], found: list[AuditFinding]) -> list[AuditFinding]:
    """The variant's own findings that are its parent's (the same key), blocking ones only."""
    keys = {finding.key for finding in parent}
    return [f for f in found if f.problem == variant.id and f.severity in BLOCKING and f.key in keys]


def _with_fixes(variant: Variant, findings: Sequence[AuditFinding]) -> Variant | None:
    """The variant with every finding's mechanical fix applied (last span first); None if one has none."""
    fixes = [finding.fix for finding in findings]
    if any(fix is None or not fix.mechanical for fix in fixes):
        return None
    spans = sorted({(f.start, f.end, f.text, f.says) for f in fixes if f is not None}, reverse=True)
    for earlier, later in zip(spans[1:], spans, strict=False):
        if earlier[1] > later[0]:  # overlapping edits cannot both be made
            return None
    fixed: Problem = variant
    for start, end, text, says in spans:
        fixed = apply_fix(fixed, Fix(says, start, end, text))
    said = [says for *_, says in sorted(spans)]
    provenance = {**variant.provenance, "audit_fixes": said}
    return variant.model_copy(
        update={"prompt": fixed.prompt, "reference": fixed.reference, "provenance": provenance}
    )


def _reason(parent_id: str, finding: AuditFinding, why: str) -> str:
    return f"inherits {parent_id}'s finding ({finding.severity}): {finding.summary}; {why}"[:400]


def apply_parent_audit(report: MorphReport, audit: ParentAudit, engine: Engine) -> MorphReport:
    """``report`` with every live candidate that inherits a parent's finding fixed or rejected."""
    live = [
        c
        for c in report.candidates
        if c.provenance.get("status") in (ACCEPTED, NEEDS_REVIEW) and audit.for_parent(c.parent_id)
    ]
    if not live:
        return report
    checks = sorted({f.check for c in live for f in audit.for_parent(c.parent_id)} | {"examples"})
    first = audit_benchmark(live, engine, checks=checks, mutants=0)
    fixed: dict[str, Variant] = {}
    rejected: dict[str, tuple[str, str]] = {}
    for candidate in live:
        parent = audit.for_parent(candidate.parent_id)
        inherited = _inherited(candidate, parent, first.findings)
        if not inherited:
            continue
        repaired = _with_fixes(candidate, inherited)
        if repaired is None:
            worst = next(f for f in inherited if f.fix is None or not f.fix.mechanical)
            rejected[candidate.id] = (worst.check, _reason(candidate.parent_id, worst, "no mechanical fix"))
            continue
        fixed[candidate.id] = repaired
    if fixed:
        again = audit_benchmark(list(fixed.values()), engine, checks=checks, mutants=0)
        for variant_id in list(fixed):
            left = [f for f in again.for_problem(variant_id) if f.severity in BLOCKING]
            before = {f.key for f in first.for_problem(variant_id)}
            if left and any(f.key in before or f.check == "examples" for f in left):
                original = next(c for c in live if c.id == variant_id)
                worst = left[0]
                rejected[variant_id] = (
                    worst.check,
                    _reason(original.parent_id, worst, "its mechanical fix did not remove it"),
                )
                del fixed[variant_id]
    if not fixed and not rejected:
        return report

    def settle(candidate: Variant) -> Variant:
        if candidate.id in rejected:
            check, reason = rejected[candidate.id]
            return decided(candidate, REJECTED, f"audit:{check}", reason)
        return fixed.get(candidate.id, candidate)

    candidates = [settle(candidate) for candidate in report.candidates]
    variants = [settle(variant) for variant in report.variants if variant.id not in rejected]
    notes = [
        *report.notes,
        f"parent audit: {len(fixed)} variants fixed where they inherited a slip of their parent, "
        f"{len(rejected)} rejected (no mechanical fix); --audit off skips it",
    ]
    return MorphReport(report.transform, variants, candidates, report.parents, notes)
