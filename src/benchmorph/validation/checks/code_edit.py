"""The code edit must hit the one construct the description talks about, and leave nothing stale."""

from __future__ import annotations

import ast
import re

from benchmorph.validation import edits
from benchmorph.validation.checks._edit import edit_context
from benchmorph.validation.checks.base import (
    CheckInput,
    Finding,
    leaves,
    quality_check,
    quote,
    short_repr,
)

_CONSTRUCT_NAMES = {
    "extreme": "min/max calls",
    "order": "sorts or reversals",
    "parity": "parity tests",
    "position": "first/last indexings",
    "affix": "startswith/endswith calls",
    "case": "case conversions or tests",
    "sign": "comparisons with 0",
    "aggregate": "sum/product calls",
    "power": "powers",
    "compare": "order comparisons",
    "charclass": "character-class tests",
    "side": "bisect calls",
    "quantifier": "all/any calls",
}


@quality_check("one-construct", reads={"edit"})
def one_construct(item: CheckInput) -> Finding | None:
    """The reference holds one construct of the edit's kind, and nothing else that still encodes the old property."""
    edit = item.edit
    if edit is None or edit.family not in _CONSTRUCT_NAMES:
        return None
    tree = edits.parse(item.parent.reference)
    if tree is None:
        return None
    found = edits.constructs(tree, edit.family, edit.old_text)
    if len(found) > 1:
        shown = ", ".join(dict.fromkeys(quote(ast.unparse(node), 30) for node in found[:3]))
        return Finding(
            "one-construct",
            f"the reference has {len(found)} {_CONSTRUCT_NAMES[edit.family]} ({shown}): the edit may hit the wrong one",
        )
    reference, span = item.parent.reference, edit.code_span
    if edit.family == "parity":
        bounds = edits.clamps(tree)
        if bounds:
            return Finding(
                "one-construct",
                f"the reference clamps to {', '.join(map(str, bounds))}, which still encodes '{edit.old_text}'",
            )
        context = edit_context(item)
        sentence = context[0][context[3] : context[4]] if context else ""
        quantifier = edits.in_quantifier(tree, reference, span)
        if quantifier and not _QUANTIFIED.search(sentence):
            return Finding(
                "one-construct",
                f"the parity test sits in {quantifier}(), but the text's '{edit.old_text}' describes the whole "
                "(the product of numbers is odd only if all are): flipping the test is not the counterpart",
            )
        parameter = edits.tested_parameter(tree, reference, span, item.parent.entry_point)
        if parameter and context and _PLURAL_AFTER.match(context[0], context[2]):
            return Finding(
                "one-construct",
                f"the code tests the parity of the input '{parameter}', but the text's "
                f"'{edit.old_text}' describes other numbers: '{quote(sentence)}'",
            )
    if edit.family == "aggregate" and edit.old_text.lower() == "sum" and edits.returns_constant(tree, 0):
        return Finding(
            "one-construct",
            "the reference returns 0 for a case it treats as empty: the empty sum, not the empty product (1)",
        )
    if edit.family == "extreme":
        start = edits.constant_start(tree, reference, span)
        if start is not None:
            return Finding(
                "one-construct",
                f"the running extreme starts at {start}, which encodes the old direction",
            )
    if edit.family == "position":
        indexed = edits.innermost(item.parent.reference, tree, edit.code_span, ast.Subscript)
        if isinstance(indexed, ast.Subscript) and edits.sorts(indexed.value):
            return Finding(
                "one-construct",
                f"'{quote(ast.unparse(indexed), 40)}' takes an end of a sorted order: the sort key, "
                "not the word, decides what first/last means",
            )
    if edit.family == "extreme" and edits.in_recurrence(item.parent.reference, tree, edit.code_span):
        return Finding(
            "one-construct",
            f"'{quote(edit.old_code)}' sits in a recurrence over a table: swapping it does not compute the opposite",
        )
    return None


_QUANTIFIED = re.compile(r"\b(?:any|all|every|each|no|none|only)\b|n't", re.IGNORECASE)


_PLURAL_AFTER = re.compile(
    r"\s+(?:\w+\s+)?(?:numbers|integers|digits|elements|values|items|terms)\b", re.IGNORECASE
)


@quality_check("identical-branches", reads={"edit"})
def identical_branches(item: CheckInput) -> Finding | None:
    """The edit made two sides of a branch or an operator the same code: ``min(x) if c else min(x)``."""
    if item.edit is None:
        return None
    before, after = edits.parse(item.parent.reference), edits.parse(item.variant.reference)
    if before is None or after is None:
        return None
    new = {
        dump: code
        for dump, code in edits.degenerate_parts(after).items()
        if dump not in edits.degenerate_parts(before)
    }
    if new:
        return Finding(
            "identical-branches", f"the edit made both sides the same: {quote(next(iter(new.values())))}"
        )
    return None


_REMOVAL = re.compile(
    r"\b(?:remove[sd]?|delet(?:e|es|ed)|without|exclud(?:e|es|ed)|strip|drop)\b", re.IGNORECASE
)


@quality_check("complement-class", reads={"edit"})
def complement_class(item: CheckInput) -> Finding | None:
    """ "Remove uppercase" coded as "keep lowercase" flips to "remove lowercase" coded as "keep uppercase".

    The two are the same only on letters: a digit or a "%" is neither case, so
    on inputs that hold one the flipped reference keeps what its text says to
    keep only by accident of the parent's wording.
    """
    edit = item.edit
    if edit is None or edit.family != "case" or not re.search(r"\.is(?:upper|lower)\(\)", edit.old_code):
        return None
    context = edit_context(item)
    if context is None or not _REMOVAL.search(context[0][context[3] : context[4]]):
        return None
    for test in item.variant.tests:
        for value in leaves(test.input):
            if isinstance(value, str):
                odd = [ch for ch in value if not ch.isupper() and not ch.islower() and not ch.isspace()]
                if odd:
                    return Finding(
                        "complement-class",
                        f"the text removes one case but the code keeps the other: they differ on {odd[0]!r}, "
                        f"which the input {short_repr(value)} holds",
                    )
    return None


_OLD_ARITHMETIC = {"aggregate": re.compile(r"\d\s*\+\s*\d")}


@quality_check("stale-comment", reads={"edit"})
def stale_comment(item: CheckInput) -> Finding | None:
    """A comment or explanation that still argues for the old property (HumanEval/72's "# 3+2+3 is less ...")."""
    edit = item.edit
    if edit is None:
        return None
    family = edits.sides(edit.family, edit.old_text, edit.new_text)
    reference, prompt = item.variant.reference, item.variant.prompt
    at = reference.find(prompt) if prompt.strip() else -1
    if family is not None:
        for offset, comment in edits.comments(reference):
            if at <= offset < at + len(prompt):
                continue  # the prompt's own comments are description, checked as such
            hits = edits.word_spans(comment, family[0])
            if hits:
                return Finding(
                    "stale-comment",
                    f"a comment in the reference still says '{hits[0][2]}': {quote(comment)}",
                )
    arithmetic = _OLD_ARITHMETIC.get(edit.family)
    text = edits.description(item.variant.prompt, item.variant.entry_point)
    explanations = _explanations(item.variant.prompt, item.variant.entry_point)
    if arithmetic is not None:
        comments = [line for line in item.variant.prompt.splitlines() if line.strip().startswith("#")]
        for line in [*text.splitlines(), *comments, *(line for _, line in explanations)]:
            if arithmetic.search(line):
                return Finding(
                    "stale-comment",
                    f"the description still works the old way ('{edit.old_text}'): {quote(line)}",
                )
    changed = _changed_examples(item)
    for example, line in explanations:
        if example in changed:
            return Finding(
                "stale-comment",
                f"the explanation under an example whose value changed was not rewritten: {quote(line)}",
            )
    return None


_EXPLANATION = re.compile(r"^\s*(?:#|explanation\b|because\b|since\b)", re.IGNORECASE)


def _example_blocks(prompt: str, entry_point: str) -> list[tuple[str, list[str]]]:
    """Each worked example as (its call and value text, the explanation lines under it)."""
    call = re.compile(rf"(?<![\w.]){re.escape(entry_point)}\s*\(") if entry_point else None
    blocks: list[tuple[str, list[str]]] = []
    lines = prompt.splitlines()
    number = 0
    while call is not None and number < len(lines):
        line = lines[number]
        if not call.search(line) or line.lstrip().startswith("def "):
            number += 1
            continue
        shown = line.strip()
        number += 1
        if shown.startswith(">>>") and number < len(lines) and lines[number].strip():
            if not call.search(lines[number]) and not _EXPLANATION.match(lines[number]):
                shown += " / " + lines[number].strip()  # the doctest's value line
                number += 1
        notes = []
        while number < len(lines) and _EXPLANATION.match(lines[number]):
            notes.append(lines[number].strip())
            number += 1
        blocks.append((shown, notes))
    return blocks


def _explanations(prompt: str, entry_point: str) -> list[tuple[int, str]]:
    """(index of the example, line) for each explanation line under a worked example ("# 3+2+3 is ...")."""
    return [
        (index, note)
        for index, (_, notes) in enumerate(_example_blocks(prompt, entry_point))
        for note in notes
    ]


def _changed_examples(item: CheckInput) -> set[int]:
    """Indexes of the worked examples whose text (call and claimed value) differs between parent and variant."""
    before = [shown for shown, _ in _example_blocks(item.parent.prompt, item.parent.entry_point)]
    after = [shown for shown, _ in _example_blocks(item.variant.prompt, item.variant.entry_point)]
    if len(before) != len(after):
        return set(range(len(after)))
    return {
        index
        for index, (old, new) in enumerate(zip(before, after, strict=True))
        if " ".join(old.split()) != " ".join(new.split())
    }
