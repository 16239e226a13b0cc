"""Alternative readings: a variant whose tests decide a rule its description leaves open.

The audit's probe (``validation.audit.readings``) runs the other plausible
readings of the variant's reference (``y`` a vowel or not, the first or the
last of tied items, halves rounded up or to even, ...) on the variant's
tests and worked examples, and confirms an ambiguity only when a reading
fails some tests, the description talks about the construct, and neither a
word nor a worked example settles it.  Here it judges variants: a reading
the variant's parent leaves open too is the parent's slip, which the parent
audit of ``morph`` (``morph.parents``) fixes or skips the seed for, so only
an ambiguity the variant brings holds it for review.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import TYPE_CHECKING

from benchmorph.data.models import Problem
from benchmorph.validation.checks.base import CheckInput, Finding, quality_check

if TYPE_CHECKING:
    from benchmorph.execution.engine import Engine
    from benchmorph.validation.audit.findings import AuditFinding

# Parents are asked once per run, however many variants they have (content hash -> keys).
_PARENTS: OrderedDict[str, frozenset[str]] = OrderedDict()


def readings_of(problem: Problem, engine: Engine) -> list[AuditFinding]:
    """The confirmed unstated rules of a prepared problem (the audit's alternative-readings findings)."""
    from benchmorph.validation.audit.base import Subject
    from benchmorph.validation.audit.readings import reading_findings

    return reading_findings([Subject(problem=problem, loaded=problem)], engine)


def _parent_keys(parent: Problem, engine: Engine) -> frozenset[str]:
    key = parent.content_hash()
    if key not in _PARENTS:
        _PARENTS[key] = frozenset(finding.key for finding in readings_of(parent, engine))
        while len(_PARENTS) > 512:
            _PARENTS.popitem(last=False)
    return _PARENTS[key]


@quality_check("alternative-readings", reads={"text", "outputs", "sandbox"})
def alternative_readings(item: CheckInput) -> Finding | None:
    """A reading the variant's words do not rule out fails some of its tests (and its parent's do rule it out)."""
    variant = item.variant
    if item.engine is None or variant.kind != "function" or not variant.tests:
        return None
    found = readings_of(variant, item.engine)
    if not found:
        return None
    inherited = _parent_keys(item.parent, item.engine)
    new = [finding for finding in found if finding.key not in inherited]
    if not new:
        return None
    first = new[0]
    test = next((e.text for e in first.evidence if e.kind == "test"), "")
    return Finding("alternative-readings", f"{first.summary}: {test}"[:300], "review")
