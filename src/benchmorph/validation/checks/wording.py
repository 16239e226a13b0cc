"""The new word must read right in its sentence: no contrast already there, no clash of grammar."""

from __future__ import annotations

import re

from benchmorph.validation import edits
from benchmorph.validation.checks._edit import edit_context, edit_in_family, new_sentence
from benchmorph.validation.checks.base import (
    CheckInput,
    Finding,
    quality_check,
    quote,
)


@quality_check("word-in-sentence", reads={"edit"})
def word_in_sentence(item: CheckInput) -> Finding | None:
    """The new word (or a word of its side) already in the edited sentence: "both last and last digits"."""
    found = edit_in_family(item)
    if found is None:
        return None
    context, family = found
    text, start, end, left, right = context
    _, new_side = family
    for piece in (text[left:start], text[end:right]):
        hits = edits.word_spans(piece, new_side)
        if hits:
            sentence = new_sentence(item, context)
            return Finding(
                "word-in-sentence",
                f"the sentence already says '{hits[0][2]}': '{quote(sentence)}'",
            )
    return None


@quality_check("word-elsewhere", reads={"edit"})
def word_elsewhere(item: CheckInput) -> Finding | None:
    """The edited family elsewhere in the description: a contrast that may or may not still read right."""
    found = edit_in_family(item)
    if found is None:
        return None
    context, family = found
    text, _, _, left, right = context
    old_side, new_side = family
    hits = edits.word_spans(text[:left], old_side + new_side) + edits.word_spans(
        text[right:], old_side + new_side
    )
    if hits:
        return Finding(
            "word-elsewhere",
            f"'{hits[0][2]}' also occurs in another sentence of the description: does the contrast still hold?",
            "review",
        )
    return None


# Words that take the old word's place only with a different verb: "start with a suffix" is not English.
_COLLOCATION_CLASHES: dict[str, tuple[str, ...]] = {
    "suffix": ("start", "starts", "starting", "begin", "begins", "beginning"),
    "suffixes": ("start", "starts", "starting", "begin", "begins", "beginning"),
    "prefix": ("end", "ends", "ending"),
    "prefixes": ("end", "ends", "ending"),
    "starts": ("suffix", "suffixes"),
    "ends": ("prefix", "prefixes"),
}


# "to sum all", "and sum", "Sum the ...": the word is a verb, and "product" cannot take its place.
_VERB_BEFORE = re.compile(
    r"(?:\b(?:to|and|then|or|please|must|should|will|can|also)\s+|^\W*)$", re.IGNORECASE
)


_OLD_OPERATION = {
    "product": re.compile(r"\bmultipl(?:y|ied|ies|ying|ication)\b|\btimes\b", re.IGNORECASE),
    "sum": re.compile(r"\b(?:add|adds|added|adding|addition)\b|\bplus\b", re.IGNORECASE),
}


@quality_check("word-grammar", reads={"edit"})
def word_grammar(item: CheckInput) -> Finding | None:
    """The new word must read as English where it stands: no "start with a suffix", no "to product"."""
    context = edit_context(item)
    if context is None or item.edit is None:
        return None
    text, start, end, left, right = context
    edit = item.edit
    new = edit.new_text.lower()
    sentence = new_sentence(item, context)
    clashes = _COLLOCATION_CLASHES.get(new, ())
    hits = edits.word_spans(text[left:start] + " " + text[end:right], clashes) if clashes else []
    if hits:
        return Finding(
            "word-grammar", f"'{hits[0][2]} ... {edit.new_text}' does not read: '{quote(sentence)}'"
        )
    if edit.family == "aggregate":
        verbs = _OLD_OPERATION.get(edit.old_text.lower())
        clash = verbs.search(text[left:start] + " " + text[end:right]) if verbs else None
        if clash:
            return Finding(
                "word-grammar",
                f"the sentence still says '{clash.group(0)}' after '{edit.old_text}' became "
                f"'{edit.new_text}': '{quote(sentence)}'",
            )
        before = text[left:start]
        verb = _VERB_BEFORE.search(before) or re.match(r"\s+up\b", text[end:])
        if verb and not re.match(r"\s+of\b", text[end:]):
            return Finding(
                "word-grammar",
                f"'{edit.old_text}' is a verb here, so '{edit.new_text}' does not read: '{quote(sentence)}'",
            )
    if edit.family == "position":
        after = text[end:right].lstrip(" \t")
        if not after or after[0] in ",.;:)!?\n":
            return Finding(
                "word-grammar",
                f"'{edit.old_text}' is an adverb (an order of steps), not a position: '{quote(sentence)}'",
            )
    return None


@quality_check("position-is-a-name", reads={"edit"})
def position_is_a_name(item: CheckInput) -> Finding | None:
    """In "the first list has ..., and the second list ..." the word names a parameter, not a position."""
    context = edit_context(item)
    if context is None or item.edit is None or item.edit.family != "position":
        return None
    text, start, end, left, right = context
    sentence = new_sentence(item, context)
    ordinal = edits.ordinal_in(text[left:start] + " " + text[end:right])
    if ordinal:
        return Finding(
            "position-is-a-name",
            f"'{item.edit.old_text}' enumerates with '{ordinal}', it is not a position: '{quote(sentence)}'",
        )
    if edits.names_a_parameter(text, end):
        return Finding("position-is-a-name", f"'{item.edit.old_text}' names a parameter: '{quote(sentence)}'")
    return None
