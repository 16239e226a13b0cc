"""Numeric preconditions a description states in words, read so that values can be checked against them.

"Given a positive integer n", "Knowing that (a) is less then 100",
"Restrictions: 1 <= num <= 1000", "a non-empty list of non-negative
integers", "(of length at least two)": a problem's tests honour these, and
anything that feeds the problem new values (a composed problem's first step,
generated inputs) must too.  :func:`stated_preconditions` reads the bounds it
recognises and lists every precondition phrase it does not (``unread``): a
caller that must respect the description refuses a problem with unread ones
rather than guess (``Assume n > 1 and is not a prime``: the bound is read,
"is not a prime" is not, so the sentence is unread).

What a bound constrains (``target``): ``value`` (the number itself),
``items`` (every number inside a container: "a list of positive integers"),
or ``length`` ("non-empty", "of length at least two").  Bounds are checked
conservatively: a value a bound cannot be applied to does not satisfy it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

Target = Literal["value", "items", "length"]

_NUMBER_WORDS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10,
}  # fmt: skip
_NUM = r"(?:-?\d+(?:\.\d+)?|zero|one|two|three|four|five|six|seven|eight|nine|ten)"

_RELATIONS = {
    "less than": "<", "less then": "<", "smaller than": "<", "lower than": "<", "below": "<",
    "under": "<", "at most": "<=", "no more than": "<=", "no greater than": "<=", "no larger than": "<=",
    "not more than": "<=", "not greater than": "<=", "not larger than": "<=", "greater than": ">",
    "larger than": ">", "bigger than": ">", "more than": ">", "above": ">", "at least": ">=",
    "no less than": ">=", "not less than": ">=", "no smaller than": ">=", "not smaller than": ">=",
}  # fmt: skip
_OR_EQUAL = {"<": "<=", ">": ">="}
_SYMBOLS = {"<": "<", "<=": "<=", "≤": "<=", ">": ">", ">=": ">=", "≥": ">="}
_FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}
_SIGNS = {"positive": (">", 0.0), "non-negative": (">=", 0.0), "negative": ("<", 0.0)}

# "Given a positive integer n", "takes an non-negative integer", "You are given a non-empty list of
# positive integers", "Given an array of non-negative integers": a sign or emptiness of the input.
_INPUT_SIGN = re.compile(
    r"\b(?:given|takes?|receives?|accepts?|input is|argument is)\s+(?:(?:a|an|the|two|some)\s+)?"
    r"(?:(?P<nonempty>non-?empty)\s+)?(?:(?P<container>list|array|sequence|tuple)\s+of\s+)?"
    r"(?P<sign>positive|non-?negative|negative)\s+(?:(?:whole|floating[ -]point|real|decimal)\s+)?"
    r"(?P<noun>integers?|numbers?|floats?|reals?|values?)\b",
    re.I,
)
_INPUT_NONEMPTY = re.compile(
    r"\b(?:given|takes?|receives?|accepts?)\s+(?:a|an|the)\s+non-?empty\s+(?:list|array|sequence|string|tuple)\b",
    re.I,
)
_RELATION_WORDS = "|".join(sorted((re.escape(k) for k in _RELATIONS), key=len, reverse=True))
# "(a) is less then 100", "n will always be at most 50", "the number is greater than or equal to 2".
_SUBJECT_IS = re.compile(
    rf"(?P<subject>\(\w+\)|\b\w+)\s+(?:is|will(?: always)? be|must be|should be)\s+(?:always\s+)?"
    rf"(?P<relation>{_RELATION_WORDS})\s+(?P<equal>or equal to\s+)?(?P<number>{_NUM})\b",
    re.I,
)
# "1 <= num <= 1000", "0 ≤ N ≤ 10000".
_RANGE = re.compile(
    rf"(?P<low>{_NUM})\s*(?P<op1><=|<|≤)\s*(?P<subject>len\(\w+\)|\w+)\s*(?P<op2><=|<|≤)\s*(?P<high>{_NUM})",
    re.I,
)
# "n > 1", "len(arr) >= 2".
_COMPARE = re.compile(rf"(?P<subject>len\(\w+\)|\b\w+)\s*(?P<op><=|>=|<|>|≤|≥)\s*(?P<number>{_NUM})\b", re.I)
# "(of length at least two)", "(of at least two elements)".
_LENGTH = re.compile(
    rf"\(\s*of\s+(?:length\s+)?(?P<relation>at least|at most)\s+(?P<number>{_NUM})(?:\s+(?:elements|items|numbers))?\s*\)",
    re.I,
)

# Words that make a sentence a precondition, or a phrase of one: when they remain after the bounds
# read are taken out, the sentence states something no bound captures.  A sentence that starts with
# "If" states behaviour on a case ("If n is greater than m, return -1"), not a precondition.
_MARKERS = re.compile(
    r"\bassum|\bguarantee|\bvalid\b|\bpromise|\brestriction|\bconstraint|\bknowing that\b|[≤≥]|<=|>=|<|>"
    r"|\bnon-?negative|\bpositive|\bnegative|\bnon-?empty|\bseparated\b|\bsame length|\bequal length"
    r"|\bbalanced\b|(?<!should )(?<!must )(?<!will )\b(?:are|is|be|contains?)\s+(?:all\s+)?(?:different|distinct|unique|sorted)\b"
    r"|\bwill (?:not |always |only )?(?:contain|be|have)\b|\bonly (?:contains?|consists?|has|have)\b"
    r"|\bconsists\s+(?:only\s+)?of\b|\bconsisting\s+(?:only\s+)?of\b|\bconsist\s+only\s+of\b|\bconsist of\b[^.]*\bonly\b"
    r"|\bof length\b|\bat (?:least|most)\b",
    re.I,
)
# A comparison stated of an input ("base numbers are less than 10"), except in a sentence that says
# what to return ("Return the greatest integer that is greater than zero").
_COMPARISON_MARKERS = re.compile(
    r"(?<!that )(?<!which )(?<!who )\b(?:is|are|be)\s+(?:always\s+)?"
    r"(?:less|greater|smaller|larger|more|bigger|lower|higher)\s+th[ae]n\b",
    re.I,
)
_BEHAVIOUR = re.compile(r"^\W*(?:if|otherwise|else|return|then)\b", re.I)
_PRECONDITION_SENTENCE = re.compile(
    r"^\W*(?:assum|restriction|constraint|knowing|it is guaranteed|you may assume|guaranteed|note:?\s+(?:that\s+)?(?:you may )?assum)",
    re.I,
)
# What may remain of a precondition sentence once its bounds are taken out.
_FILLER = {
    "assume", "assuming", "knowing", "that", "note", "restrictions", "restriction", "constraints",
    "constraint", "and", "the", "input", "is", "are", "will", "be", "always", "given", "you", "may", "can",
    "we", "it", "its", "a", "an", "of", "number", "integer", "value", "also", "both",
}  # fmt: skip


@dataclass(frozen=True)
class Bound:
    """One numeric precondition: ``target`` (value, items, length) ``op`` ``limit``; ``phrase`` as written."""

    target: Target
    op: str  # "<", "<=", ">", ">="
    limit: float
    phrase: str

    def holds(self, value: Any) -> bool:
        if self.target == "length":
            return _sized(value) and _compare(len(value), self.op, self.limit)
        numbers = _numbers(value) if self.target == "items" else ([value] if _is_number(value) else None)
        if numbers is None:
            return False  # a bound on a number, and this is none: it cannot be said to hold
        return all(_compare(number, self.op, self.limit) for number in numbers)

    def __str__(self) -> str:
        limit = int(self.limit) if float(self.limit).is_integer() else self.limit
        subject = {"value": "the value", "items": "every number in it", "length": "its length"}[self.target]
        return f"{subject} {self.op} {limit}"


@dataclass(frozen=True)
class Preconditions:
    """The bounds a description states and the precondition phrases no bound captures."""

    bounds: tuple[Bound, ...] = ()
    unread: tuple[str, ...] = ()

    def holds(self, value: Any) -> bool:
        """Whether one value honours every bound read (unread phrases are the caller's to refuse)."""
        return all(bound.holds(value) for bound in self.bounds)

    def holds_for_arguments(self, arguments: Sequence[Any]) -> bool:
        """Whether an argument list honours every bound, applied to every argument it can apply to.

        Which argument a phrase speaks of is not read, so every bound must hold
        for every argument of its kind (numbers for value and items bounds,
        sized values for length bounds): stricter than the text, never looser.
        """
        for bound in self.bounds:
            for argument in arguments:
                applies = _sized(argument) if bound.target == "length" else _numbers(argument) is not None
                if applies and not (
                    bound.holds(argument)
                    if bound.target != "value" or _is_number(argument)
                    else Bound("items", bound.op, bound.limit, bound.phrase).holds(argument)
                ):
                    return False
        return True


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _sized(value: Any) -> bool:
    return isinstance(value, str | list | tuple | set | frozenset | dict)


def _numbers(value: Any) -> list[float] | None:
    """Every number inside ``value`` (itself if it is one); None where a non-number leaf is found."""
    if _is_number(value):
        return [value]
    if isinstance(value, list | tuple | set | frozenset):
        found: list[float] = []
        for item in value:
            inner = _numbers(item)
            if inner is None:
                return None
            found.extend(inner)
        return found
    return None


def _compare(value: float, op: str, limit: float) -> bool:
    return {"<": value < limit, "<=": value <= limit, ">": value > limit, ">=": value >= limit}[op]


def _number(text: str) -> float:
    word = text.lower()
    return float(_NUMBER_WORDS[word]) if word in _NUMBER_WORDS else float(text)


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in re.split(r"(?<=[.!?;])\s+|\n+", text) if s.strip()]


def _subject_target(subject: str, params: Sequence[str]) -> Target | None:
    """What a relation's subject names: a parameter (its value), its length, or None (something else)."""
    bare = (subject[1:-1] if subject.startswith("(") and subject.endswith(")") else subject).lower()
    inner = re.fullmatch(r"len\((\w+)\)", bare)
    if inner:
        return "length" if inner.group(1) in {p.lower() for p in params} else None
    if bare in {p.lower() for p in params}:
        return "value"
    return None


def _read_sentence(sentence: str, params: Sequence[str]) -> tuple[list[Bound], list[tuple[int, int]]]:
    """The bounds a sentence states and the spans they take."""
    bounds: list[Bound] = []
    spans: list[tuple[int, int]] = []
    for match in _INPUT_SIGN.finditer(sentence):
        op, limit = _SIGNS[match.group("sign").lower().replace("nonn", "non-n")]
        plural = match.group("noun").lower().endswith("s") or match.group("container") is not None
        bounds.append(Bound("items" if plural else "value", op, limit, match.group(0)))
        if match.group("nonempty"):
            bounds.append(Bound("length", ">=", 1.0, match.group(0)))
        spans.append(match.span())
    for match in _INPUT_NONEMPTY.finditer(sentence):
        if any(start <= match.start() < end for start, end in spans):
            continue  # "given a non-empty list of positive integers": read above
        bounds.append(Bound("length", ">=", 1.0, match.group(0)))
        spans.append(match.span())
    for match in _LENGTH.finditer(sentence):
        op = ">=" if match.group("relation").lower() == "at least" else "<="
        bounds.append(Bound("length", op, _number(match.group("number")), match.group(0)))
        spans.append(match.span())
    for match in _SUBJECT_IS.finditer(sentence):
        target = _subject_target(match.group("subject"), params) or (
            "value"
            if match.group("subject").startswith("(") or match.group("subject").lower() == "it"
            else None
        )
        if target is None:
            continue
        op = _RELATIONS[match.group("relation").lower()]
        if match.group("equal"):
            op = _OR_EQUAL.get(op, op)
        bounds.append(Bound(target, op, _number(match.group("number")), match.group(0)))
        spans.append(match.span())
    for match in _RANGE.finditer(sentence):
        target = _subject_target(match.group("subject"), params)
        if target is None:
            continue
        low, high = _number(match.group("low")), _number(match.group("high"))
        bounds.append(Bound(target, _FLIP[_SYMBOLS[match.group("op1")]], low, match.group(0)))
        bounds.append(Bound(target, _SYMBOLS[match.group("op2")], high, match.group(0)))
        spans.append(match.span())
    for match in _COMPARE.finditer(sentence):
        if any(start <= match.start() < end for start, end in spans):
            continue
        target = _subject_target(match.group("subject"), params)
        if target is None:
            continue
        bounds.append(
            Bound(target, _SYMBOLS[match.group("op")], _number(match.group("number")), match.group(0))
        )
        spans.append(match.span())
    return bounds, spans


def stated_preconditions(text: str, params: Sequence[str] = ()) -> Preconditions:
    """The numeric bounds ``text`` states on its inputs, and the precondition phrases it leaves unread.

    ``params``: the function's parameter names, so that "n > 1" and
    "1 <= num <= 1000" are read as bounds on an input and "digits > 0" is not.

    >>> found = stated_preconditions("Given a positive integer n, return its digits. Assume n < 100.", ["n"])
    >>> [str(bound) for bound in found.bounds], found.unread
    (['the value > 0', 'the value < 100'], ())
    """
    bounds: list[Bound] = []
    unread: list[str] = []
    for sentence in _sentences(text):
        found, spans = _read_sentence(sentence, params)
        rest = sentence
        for start, end in sorted(spans, reverse=True):
            rest = rest[:start] + " " + rest[end:]
        bounds.extend(found)
        if _PRECONDITION_SENTENCE.search(sentence):
            leftover = [w for w in re.findall(r"[A-Za-z]+", rest) if w.lower() not in _FILLER]
            if leftover or not found:
                unread.append(sentence)
            continue
        if _BEHAVIOUR.search(sentence):
            continue
        if _MARKERS.search(rest) or (
            _COMPARISON_MARKERS.search(rest) and not sentence.lower().startswith("return")
        ):
            unread.append(sentence)
    return Preconditions(tuple(bounds), tuple(unread))
