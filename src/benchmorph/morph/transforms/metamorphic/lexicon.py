"""The rewriter's vocabulary: phrases that can be said another way in any sentence of a coding task.

The table itself is ``validation.synonyms.SYNONYMS`` (one table for the rewriter and for the residual
gates that read a retelling with its swaps undone); this module decides where a phrase may be swapped
(``KEEP``, ``NOT_AT_START``, what may follow) and which alternative a variant says.

Which alternative a variant uses depends on its index and the phrase, so
the K variants of one seed pick different ones (siblings differ) and one
variant says the same phrase the same way throughout (it reads consistent).

:data:`VERBS` gives third-person and base forms of the task verbs, so that
"a function that returns X" and "return X" can be turned into one another.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from benchmorph.validation.synonyms import SYNONYMS


@dataclass(frozen=True)
class Entry:
    phrase: str
    alternatives: tuple[str, ...]


def _entries(table: dict[str, tuple[str, ...]]) -> tuple[Entry, ...]:
    return tuple(Entry(phrase, alternatives) for phrase, alternatives in table.items())


PHRASES: tuple[Entry, ...] = _entries(SYNONYMS)

# Phrases said as they are: a term of art, or a word whose entry above would misread it here ("a
# multiple of 3" is not "several"; "in case of a tie" is not "if of a tie"; "greatest common divisor" is
# a name).  They match first and change nothing.
KEEP: frozenset[str] = frozenset(
    (
        "in case of", "a multiple of", "multiple of", "greatest common divisor", "return value",
        "return values", "mean absolute deviation", "as it is", "is given", "are given", "be given",
        "been given", "given that", "at least one", "the input string", "the input list", "input string",
        "input list", "input number", "output list", "output string", "the result string",
        "result string", "return type", "keep in mind", "whole number", "natural number",
        "natural numbers", "each other", "one another", "every other", "each of", "first element",
        "last element", "number of", "numbers of", "didn't find", "did not find", "return how many", "has given", "have given", "was given", "given in",
        "given to", "given as", "integer part", "integer number", "integer numbers", "integer palindromes",
        "integer array", "every two", "returned list", "returned tuple", "returned string",
        "returned value", "rolling maximum", "input lists", "the input lists", "input strings",
        "smallest to largest", "largest to smallest",
        # Said as they are: "whitespace characters" would widen "whitespaces" to tabs and newlines where the
        # reference removes only ' ' (review24d: Mbpp/800); "consecutive numbers" is a run of integers.
        "whitespaces", "whitespace", "spaces", "consecutive numbers", "consecutive integers",
    )
)  # fmt: skip
# Phrases never replaced at the start of a sentence, where they open a structure the grammar reads
# ("Given a list, ...").
NOT_AT_START: frozenset[str] = frozenset(
    {"given", "return", "returns", "find", "check if", "check whether"}
    | {
        entry.phrase for entry in PHRASES if entry.phrase.startswith("given ")
    }  # "Given list of numbers, apply"
)

# Third-person singular -> base form of the verbs a task is stated with, for "a function that returns X"
# <-> "return X".
VERBS: dict[str, str] = {
    "returns": "return", "takes": "take", "accepts": "accept", "receives": "receive", "checks": "check",
    "finds": "find", "counts": "count", "computes": "compute", "calculates": "calculate",
    "determines": "determine", "sorts": "sort", "removes": "remove", "deletes": "delete",
    "replaces": "replace", "gives": "give", "outputs": "output", "encodes": "encode", "decodes": "decode",
    "swaps": "swap", "validates": "validate", "splits": "split", "converts": "convert",
    "extracts": "extract", "filters": "filter", "merges": "merge", "adds": "add", "multiplies": "multiply",
    "inserts": "insert", "generates": "generate", "creates": "create", "reverses": "reverse",
    "flattens": "flatten", "rotates": "rotate", "concatenates": "concatenate", "divides": "divide",
    "subtracts": "subtract", "performs": "perform", "produces": "produce", "evaluates": "evaluate",
    "tests": "test", "matches": "match", "moves": "move", "shifts": "shift", "rounds": "round",
    "joins": "join", "interleaves": "interleave", "identifies": "identify", "selects": "select",
    "toggles": "toggle", "squares": "square", "cubes": "cube", "sums": "sum", "re-arranges": "re-arrange",
    "rearranges": "rearrange", "inverts": "invert", "simplifies": "simplify", "obtains": "obtain",
    "applies": "apply", "builds": "build", "makes": "make", "yields": "yield", "lists": "list",
    "uses": "use", "keeps": "keep", "gets": "get",
    "collects": "collect", "groups": "group", "orders": "order", "arranges": "arrange",
    "translates": "translate", "encrypts": "encrypt", "parses": "parse", "separates": "separate",
    "appends": "append", "prints": "print", "packs": "pack", "puts": "put", "drops": "drop",
    "searches": "search", "locates": "locate", "maximizes": "maximize", "minimizes": "minimize",
    "interchanges": "interchange", "sets": "set", "fills": "fill", "picks": "pick", "chooses": "choose",
}  # fmt: skip
BASE_TO_THIRD: dict[str, str] = {base: third for third, base in VERBS.items()}


def stable(text: str) -> int:
    """A number from ``text`` that is the same in every process (Python's ``hash`` is salted)."""
    return int(hashlib.sha256(text.encode()).hexdigest()[:8], 16)


def pick(options: Sequence[str], choice: int, key: str = "") -> str:
    """Option ``choice`` of ``options``, rotated by ``key``: consecutive choices differ where options allow."""
    return options[(choice + stable(key)) % len(options)]


@lru_cache(maxsize=1)
def _pattern() -> re.Pattern[str]:
    phrases = sorted(
        {entry.phrase for entry in PHRASES} | {" ".join(k.split()) for k in KEEP}, key=len, reverse=True
    )
    body = "|".join(re.escape(phrase).replace(r"\ ", r"\s+") for phrase in phrases)
    return re.compile(rf"(?<![\w'§`-])({body})(?![\w'§`-])", re.IGNORECASE)


_BY_PHRASE = {entry.phrase: entry for entry in PHRASES}


def _match_case(original: str, new: str) -> str:
    return new[:1].upper() + new[1:] if original[:1].isupper() else new


# Phrases replaced only where what follows allows it: "otherwise" ending a clause ("False otherwise.")
# but not inside one ("valid otherwise False", which "in any other case" would garble).
FOLLOW: dict[str, re.Pattern[str]] = {"otherwise": re.compile(r"\s*(?:[,.;:!?]|$)")}
# ... and not where what follows forbids it: "give back them" is not English, "return them" is.
_PRONOUN = re.compile(r"\s+(?:them|it|those|these|this|that|him|her)\b", re.I)
NOT_FOLLOW: dict[str, re.Pattern[str]] = {
    "return": _PRONOUN,
    "returns": _PRONOUN,
    "returned": _PRONOUN,
    # "a square given its side length": "given" as a preposition ("input its side length" is not English)
    "given": re.compile(
        r"\s+(?:that|by|as|to|in|an?\b|the\b|two|three|\d|its\b|their\b|his\b|her\b|this\b|these\b|those\b"
        r"|each\b|every\b|all\b|some\b|any\b|no\b)",
        re.I,
    ),
}
_MARK, _UNMARK = "\x01", "\x02"
_BE = re.compile(r"\b(?:is|are|was|were|be|been|being)\s+$", re.I)
_DETERMINER = re.compile(
    r"\b(?:a|an|the|any|each|every|this|that|its|their|your|his|her|our|some|no)\s+$", re.I
)


def _wants_article(key: str, text: str, start: int, end: int) -> bool:
    """Whether a bare "given" before a noun ("contain given substring") needs "the" once retold.

    "given" reads as an adjective; "supplied" or "provided" after a verb reads as the verb's participle
    ("members that have supplied `fragment`").  Not at the start, not after a determiner, and for the bare
    word only before a word and not after a form of "be" ("n is given").
    """
    if not key.startswith("given") or start == 0:
        return False
    if _DETERMINER.search(text, 0, start) or _BE.search(text, 0, start):
        return False
    return key != "given" or re.match(r"\s+[\w§`]", text[end:]) is not None


def paraphrase(
    text: str, choice: int, salt: str = "", skip: frozenset[str] = frozenset(), sentence_start: bool = True
) -> tuple[str, int]:
    """``text`` with every phrase of :data:`PHRASES` said another way, and how many were changed.

    A phrase is replaced only where it is written in lowercase, or
    capitalised at the start of ``text`` (a capitalised "Mean" mid-sentence is
    a name).  ``skip`` holds phrases to leave alone in this text.  The choice
    depends on ``choice``, the phrase and ``salt`` only, so one variant says
    one phrase one way throughout; an article before a replaced word is
    made to agree with it ("a corresponding" -> "a matching", "an" -> "a").
    """
    changed = 0

    def one(match: re.Match[str]) -> str:
        nonlocal changed
        found = match.group(1)
        key = " ".join(found.lower().split())
        entry = _BY_PHRASE.get(key)
        if entry is None or key in skip or (sentence_start and match.start() == 0 and key in NOT_AT_START):
            return found
        if found != found.lower() and not (match.start() == 0 and found[1:] == found[1:].lower()):
            return found
        follow, forbidden = FOLLOW.get(key), NOT_FOLLOW.get(key)
        if (follow is not None and not follow.match(text, match.end())) or (
            forbidden is not None and forbidden.match(text, match.end())
        ):
            return found
        changed += 1
        told = pick(entry.alternatives, choice, key + salt)
        if _wants_article(key, text, match.start(), match.end()):
            # "contain given substring" -> "have the supplied substring": a bare "supplied" after a verb
            # reads as one ("that have supplied `fragment`").
            told = "the " + told
        return _MARK + _match_case(found, told) + _UNMARK

    out = _pattern().sub(one, text)
    out = re.sub(
        rf"\b([Aa])(n?)(\s+){_MARK}(\w)",
        lambda m: (
            (m.group(1) + ("n" if m.group(4).lower() in "aeiou" else "")) + m.group(3) + _MARK + m.group(4)
        ),
        out,
    )
    return out.replace(_MARK, "").replace(_UNMARK, ""), changed


def third_person(verb_phrase: str) -> str:
    """ "return X and take Y" -> "returns X and takes Y": each coordinated base verb the table knows."""
    return _verbs(verb_phrase, BASE_TO_THIRD)


def base_form(verb_phrase: str) -> str:
    """ "returns X and takes Y" -> "return X and take Y"."""
    return _verbs(verb_phrase, VERBS)


def _verbs(phrase: str, table: dict[str, str]) -> str:
    """Swap the verb that opens ``phrase`` and each verb after "and"/"or"/a comma, where ``table`` knows it."""

    def swap(match: re.Match[str]) -> str:
        lead, verb = match.group(1), match.group(2)
        new = table.get(verb.lower())
        return lead + (_match_case(verb, new) if new else verb)

    return re.sub(r"(^|(?:,\s*and\s+|,\s*then\s+|,\s*|\band\s+|\bor\s+|\bthen\s+))([A-Za-z-]+)", swap, phrase)


_SPELLED = re.compile(r"(?<![\w'`§-])[a-z]{4,}(?![\w'`§-])")
# The parent's slip "return True is the list ..." (HumanEval/57, /95): "is" where "if" is meant.
_IS_FOR_IF = re.compile(
    r"\b((?:[Rr]eturns?|[Oo]utput|[Gg]ive back)\s+(?:True|False|true|false))\s+is\s+(?=the\b|list\b|a\b|an\b)"
)


def correct_spelling(text: str, keep: frozenset[str] = frozenset()) -> tuple[str, int]:
    """``text`` with the parent's misspellings corrected, and how many were.

    A misspelling is the most recognisable word a parent has ("indicies", "sequnece"): a retelling that
    keeps it is known by it, and it reads badly.  Only words codespell's dictionary lists with a single
    correction are changed (the audit's text lint reads the same table), never a name in ``keep``.
    """
    from benchmorph.validation.audit.lint import misspellings

    table = misspellings()
    changed = 0

    def one(match: re.Match[str]) -> str:
        nonlocal changed
        word = match.group(0)
        right = table.get(word)
        if word in keep or right is None or "," in right:
            return word
        changed += 1
        return right

    text = _SPELLED.sub(one, text)
    text, slips = _IS_FOR_IF.subn(r"\1 if ", text)
    return text, changed + slips
