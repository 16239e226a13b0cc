"""The sentence of the description a rule edit touched, for the checks that read the text around it."""

from __future__ import annotations

from benchmorph.validation import edits
from benchmorph.validation.checks.base import (
    CheckInput,
)


def edit_context(item: CheckInput) -> tuple[str, int, int, int, int] | None:
    """(description prose of the parent, edit start, edit end, sentence start, sentence end)."""
    edit = item.edit
    if edit is None:
        return None
    text = edits.description(item.parent.prompt, item.parent.entry_point)
    start, end = edit.text_span
    left, right = edits.sentence_bounds(text, start, end)
    return text, start, end, left, right


def new_sentence(item: CheckInput, context: tuple[str, int, int, int, int], reach: int = 45) -> str:
    """The edited sentence as it now reads, cut to ``reach`` characters either side of the new word."""
    assert item.edit is not None
    text, start, end, left, right = context
    before = " ".join(text[left:start].split())
    after = " ".join(text[end:right].split())
    before = ("..." + before[-reach:]) if len(before) > reach else before
    after = (after[:reach] + "...") if len(after) > reach else after
    return (
        before
        + (" " if text[start - 1 : start].isspace() else "")
        + item.edit.new_text
        + (" " if text[end : end + 1].isspace() else "")
        + after
    ).strip(" '\"")


def edit_in_family(
    item: CheckInput,
) -> tuple[tuple[str, int, int, int, int], tuple[tuple[str, ...], tuple[str, ...]]] | None:
    """The edit's sentence context and its family's (old side, new side) words; None where either is missing."""
    context = edit_context(item)
    if context is None or item.edit is None:
        return None
    family = edits.sides(item.edit.family, item.edit.old_text, item.edit.new_text)
    return None if family is None else (context, family)
