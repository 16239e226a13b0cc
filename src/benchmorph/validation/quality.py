"""Quality checks a variant must pass before anyone sees it: small named functions, one concern each.

Execution proves a variant's reference runs; it does not prove that a careful
reader of the new description would write that reference.  Each check here
looks for one way a variant can be valid by execution and still wrong or
useless as a task, and says so in one line.  ``finalize_variants`` runs them
all and records the first finding's check name and reason on the candidate.

A check returns ``None`` (nothing to say) or a ``Finding``: ``reject`` drops
the variant, ``review`` holds it for a person (kept out of the default output).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from benchmorph.data import values
from benchmorph.data.models import Problem, TestCase, Variant
from benchmorph.execution.compare import outputs_match

Severity = Literal["reject", "review"]


@dataclass(frozen=True)
class Edit:
    """What a rule-based transform changed: one span of the description and one of the code.

    Offsets are into the parent's prompt and the parent's reference; the
    structure, contrast and tie checks read them.  LLM transforms have none.
    """

    family: str  # rule family: extreme, order, parity, position, affix, case, sign, strict, aggregate, count
    rule: str
    old_text: str
    new_text: str
    text_span: tuple[int, int]
    old_code: str
    new_code: str
    code_span: tuple[int, int]


@dataclass(frozen=True)
class Finding:
    check: str
    reason: str
    severity: Severity = "reject"


@dataclass
class CheckInput:
    """Everything a check may read about one candidate, after its outputs and examples were recomputed."""

    variant: Variant  # tests carry the variant's outputs; examples rewritten
    parent: Problem  # tests carry the parent's outputs
    edit: Edit | None = None
    example_outputs: tuple[list[Any], list[Any]] | None = None  # (parent's, variant's) example values
    extra: dict[str, Any] = field(default_factory=dict)

    def paired_outputs(self) -> list[tuple[Any, Any, Any]]:
        """(input, parent output, variant output) for every inherited input both have an output for."""
        parent_out = {_key(test.input): test.expected for test in self.parent.tests if test.has_expected}
        return [
            (test.input, parent_out[_key(test.input)], test.expected)
            for test in self.variant.tests
            if test.has_expected and _key(test.input) in parent_out
        ]


Check = Callable[[CheckInput], "Finding | None"]
CHECKS: dict[str, Check] = {}


def quality_check(name: str) -> Callable[[Check], Check]:
    """Register a check under ``name``; checks run in registration order."""

    def register(function: Check) -> Check:
        CHECKS[name] = function
        function.check_name = name  # type: ignore[attr-defined]
        return function

    return register


def run_checks(item: CheckInput, names: Sequence[str] | None = None) -> list[Finding]:
    """Every finding of the named checks (all registered ones by default), in order."""
    found = []
    for name in names if names is not None else list(CHECKS):
        finding = CHECKS[name](item)
        if finding is not None:
            found.append(finding)
    return found


def _key(value: Any) -> str:
    return json.dumps(values.encode(value), sort_keys=True)


def _same(a: Any, b: Any, problem: Problem) -> bool:
    return outputs_match(problem.kind, a, b, problem.atol, problem.strict_sequences)


def changed_fraction(item: CheckInput) -> float:
    """Share of inherited inputs whose output differs between parent and variant."""
    pairs = item.paired_outputs()
    if not pairs:
        return 0.0
    return sum(1 for _, old, new in pairs if not _same(old, new, item.variant)) / len(pairs)


def _constant(tests: Sequence[TestCase], at_least: int = 3) -> bool:
    outputs = {_key(test.expected) for test in tests if test.has_expected}
    return len([t for t in tests if t.has_expected]) >= at_least and len(outputs) == 1


@quality_check("degenerate-outputs")
def degenerate_outputs(item: CheckInput) -> Finding | None:
    """The same answer for every input is no task, unless the parent was like that too."""
    if _constant(item.variant.tests) and not _constant(item.parent.tests):
        return Finding("degenerate-outputs", "the reference gives the same output for every input")
    return None


# ---- worked examples


@quality_check("examples")
def examples_read(item: CheckInput) -> Finding | None:
    """A function problem whose parent shows worked examples must show them all, read and recomputed.

    ``finalize_variants`` already rejects a variant whose examples cannot be
    recomputed; this check holds the same line for any caller of the checks:
    an unreadable example, or a parent with examples and a variant with none
    read (a scan that finds nothing must not pass silently).
    """
    from benchmorph.validation.example_check import scan_problem

    if item.variant.kind != "function":
        return None
    scan = scan_problem(item.variant)
    if scan.unverifiable:
        return Finding("examples", f"an example cannot be recomputed: {scan.unverifiable[0][:100]!r}")
    if scan.has_examples and not scan.examples:
        return Finding("examples", "the description shows examples but none of them could be read")
    parent = scan_problem(item.parent)
    if parent.has_examples and not scan.examples:
        return Finding("examples", "the parent's description shows examples, the variant's none that can be read")
    if item.edit is not None and len(parent.examples) != len(scan.examples):
        # A rule edits prose only: an example gained or lost means the edit reached into one.
        return Finding(
            "examples", f"the parent shows {len(parent.examples)} examples, the variant {len(scan.examples)}"
        )
    return None


@quality_check("examples-show-change")
def examples_show_change(item: CheckInput) -> Finding | None:
    """Tests change but no worked example does: the description never shows the reader the new behaviour.

    A reader who checks an answer against the examples cannot tell the
    variant from its parent, and a model that ignores the change passes
    them all.  Held for review, not rejected: the variant is still correct.
    A parent without examples has nothing to show, so nothing is flagged.
    """
    from benchmorph.validation.examples import same_value

    if item.example_outputs is None:
        return None
    before, after = item.example_outputs
    if not before or len(before) != len(after) or changed_fraction(item) == 0.0:
        return None
    if any(not same_value(old, new) for old, new in zip(before, after, strict=True)):
        return None
    return Finding(
        "examples-show-change",
        f"the tests' outputs change but none of the {len(before)} examples' outputs does",
        "review",
    )
