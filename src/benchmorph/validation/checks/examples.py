"""Worked examples: every one read and recomputed, and showing the reader what changed."""

from __future__ import annotations

import ast
import re
from typing import Any

from benchmorph.validation import edits
from benchmorph.validation.checks._edit import edit_context
from benchmorph.validation.checks.base import (
    CheckInput,
    Finding,
    changed_fraction,
    quality_check,
)


@quality_check("examples", reads={"examples"})
def examples_read(item: CheckInput) -> Finding | None:
    """A function problem whose parent shows worked examples must show them all, read and recomputed.

    ``finalize_variants`` already rejects a variant whose examples cannot be
    recomputed; this check holds the same line for any caller of the checks:
    an unreadable example, or a parent with examples and a variant with none
    read (a scan that finds nothing must not pass silently).
    """
    from benchmorph.validation.examples.recompute import scan_problem

    if item.variant.kind != "function":
        return None
    scan = scan_problem(item.variant)
    if scan.unverifiable:
        return Finding("examples", f"an example cannot be recomputed: {scan.unverifiable[0][:100]!r}")
    if scan.has_examples and not scan.examples:
        return Finding("examples", "the description shows examples but none of them could be read")
    parent = scan_problem(item.parent)
    if parent.has_examples and not scan.examples:
        return Finding(
            "examples", "the parent's description shows examples, the variant's none that can be read"
        )
    if item.edit is not None and len(parent.examples) != len(scan.examples):
        # A rule edits prose only: an example gained or lost means the edit reached into one.
        return Finding(
            "examples", f"the parent shows {len(parent.examples)} examples, the variant {len(scan.examples)}"
        )
    return None


@quality_check("examples-show-change", reads={"examples", "changes"})
def examples_show_change(item: CheckInput) -> Finding | None:
    """Tests change but no worked example does: the description never shows the reader the new behaviour.

    A reader who checks an answer against the examples cannot tell the
    variant from its parent, and a model that ignores the change passes
    them all.  Held for review, not rejected: the variant is still correct.
    A parent without examples has nothing to show, so nothing is flagged.
    """
    from benchmorph.validation.examples.scan import same_value

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


# The identity of each aggregate: an item equal to it leaves the result as it was.
AGGREGATE_IDENTITY = {"sum": 0, "product": 1}


@quality_check("examples-hide-items", reads={"edit"})
def examples_hide_items(item: CheckInput) -> Finding | None:
    """Every example's output hinged on an item the new aggregate ignores: it cannot show which items count.

    "The sum of non-repeated elements of [1,2,3,1,1,4,5,6] is 21" told a
    reader that "non-repeated" means distinct (those occurring once give 20).
    As a product the 1s vanish: 720 either way, and the wording is ambiguous
    again.  The miner measures, per example, whether the parent's output
    depended on an item equal to the new identity (``extra["hidden_items"]``);
    when every example did, the variant is held for review: it may be right,
    its examples no longer show it.
    """
    edit = item.edit
    hidden = item.extra.get("hidden_items")
    if edit is None or not hidden or not all(hidden):
        return None
    identity = AGGREGATE_IDENTITY.get(edit.new_text.lower())
    return Finding(
        "examples-hide-items",
        f"every example's output depended on an item equal to {identity}, which a {edit.new_text.lower()} "
        "ignores: the examples no longer show which items count",
        "review",
    )


@quality_check("aggregate-reading", reads={"edit"})
def aggregate_reading(item: CheckInput) -> Finding | None:
    """A sum/product edit the wording reads two ways: under "absolute", or with an unstated empty answer.

    ``abs`` distributes over a product but not over a sum: "the maximum
    absolute product" has one reading, "the maximum absolute sum" two
    (``abs(x + y)`` or ``abs(x) + abs(y)``).  And a product over nothing is 1
    where the sum was 0: when the tests reach that case and no worked example
    shows it, a reader cannot tell what the empty case returns.  Held for
    review, as the variant may still be right.
    """
    edit = item.edit
    if edit is None or edit.family != "aggregate":
        return None
    context = edit_context(item)
    sentence = context[0][context[3] : context[4]] if context else ""
    tree = edits.parse(item.parent.reference)
    uses_abs = tree is not None and any(
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "abs"
        for node in ast.walk(tree)
    )
    if re.search(r"\babsolute\b", sentence, re.IGNORECASE) or (
        uses_abs and re.search(r"\babs", edit.old_code + edit.new_code)
    ):
        return Finding(
            "aggregate-reading",
            f"'absolute {edit.new_text.lower()}' reads two ways (of the {edit.new_text.lower()}, or of each item)",
            "review",
        )
    new_identity = AGGREGATE_IDENTITY.get(edit.new_text.lower())
    old_identity = AGGREGATE_IDENTITY.get(edit.old_text.lower())
    if new_identity is None or old_identity is None:
        return None
    empties = [
        1
        for _, before, after in item.paired_outputs()
        if _is_number(before) and _is_number(after) and before == old_identity and after == new_identity
    ]
    shown = item.example_outputs[1] if item.example_outputs else []
    if empties and not any(_is_number(value) and value == new_identity for value in shown):
        return Finding(
            "aggregate-reading",
            f"{len(empties)} tests expect {new_identity} where the {edit.old_text.lower()} was {old_identity} "
            "(nothing to combine), and no example shows that case",
            "review",
        )
    return None


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)
