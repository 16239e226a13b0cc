"""Promises the description makes about its inputs, against the inputs its tests use.

"You may assume that all words will have the same length" (HumanEval/149,
broken by most of its tests), "a positive integer k" with ``k = 0`` tested
(HumanEval/120, whose own note says ``0 <= k``), "Knowing that (a) is less
then 100" with 125 tested (HumanEval/75): a reader who relies on such a
promise writes a solution the tests fail.  Each kind of promise is a small
pattern that maps the sentence to a predicate on the arguments:

* comparisons written as code: ``0 <= k <= len(arr)``, ``1 <= n``,
  ``-1000 <= arr[i] <= 1000`` (an indexed name means every element);
* ranges in words: "the length of the array will be in the range of [1, 1000]",
  "the elements in the array will be in the range of [-1000, 1000]";
* signs: "a positive integer k", "a list of positive integers", "n is non-negative";
* bounds in words: "(a) is less than 100", "n is at most 50";
* "all words have the same length", "a non-empty list", "an even number
  of coefficients", "contains only letters and spaces", "will not contain
  duplicates".

A promise is only read where the words bind it to an argument (named, or
the only argument of its type after "given"/"takes"), so words about the
output never become a promise about the input.  The fix drops a sentence
that only states the promise ("You may assume ...", "Knowing that ..."), or
turns "positive" into "non-negative" where the tests only add zero.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from benchmorph.validation.audit.base import (
    AuditContext,
    Subject,
    audit_check,
    call_text,
    one_line,
    sentence_span,
)
from benchmorph.validation.audit.findings import AuditFinding, Evidence, Fix
from benchmorph.validation.audit.fixes import drop_sentence
from benchmorph.validation.examples.recompute import reference_parameters

Predicate = Callable[[dict[str, Any]], bool | None]  # None: does not apply to these arguments


@dataclass(frozen=True)
class Promise:
    kind: str  # compare, range, sign, bound, same-length, non-empty, charset, distinct
    target: str  # the argument it is about
    text: str  # what it promises, in words
    start: int  # the words' span in the prompt
    end: int
    holds: Predicate
    positive_word: tuple[int, int] | None = None  # the span of "positive", for the non-negative fix


# ------------------------------------------------------------------ values


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _all(values: Sequence[Any], test: Callable[[Any], bool]) -> bool | None:
    try:
        return all(test(value) for value in values)
    except (TypeError, ValueError):
        return None


def _elements(value: Any) -> list[Any] | None:
    return list(value) if isinstance(value, list | tuple) else None


# ------------------------------------------------------------------ comparisons written as code

_TERM = r"(?:-?\d+(?:\.\d+)?(?:\s*\^\s*\d+|e\d+|\*\*\d+)?|len\(\s*[A-Za-z_]\w*(?:\[\w+\])*\s*\)|[A-Za-z_]\w*(?:\[\w+\])*(?:\.length)?)"
_OP = r"(?:<=|>=|≤|≥|<|>)"
_CHAIN = re.compile(rf"(?<![\w.\[]){_TERM}(?:\s*{_OP}\s*{_TERM})+(?![\w(\[])")
_PIECE = re.compile(rf"({_TERM})|({_OP})")


def _term_values(term: str, args: dict[str, Any]) -> list[Any] | None:
    """The values a term stands for on these arguments (several for ``arr[i]``); None if not an argument's."""
    term = term.replace(" ", "")
    number = re.fullmatch(r"(-?\d+(?:\.\d+)?)(?:\^(\d+)|e(\d+)|\*\*(\d+))?", term)
    if number:
        base = float(number.group(1))
        power = number.group(2) or number.group(4)
        if power:
            return [base ** int(power)]
        if number.group(3):
            return [base * 10 ** int(number.group(3))]
        return [base]
    length = term.startswith("len(") or term.endswith(".length")
    name_part = term[4:-1] if term.startswith("len(") else term.removesuffix(".length")
    name, *indices = re.split(r"\[", name_part)
    if name not in args:
        return None
    values = [args[name]]
    for _ in indices:
        values = [item for value in values for item in (_elements(value) or [])]
    if length:
        try:
            return [len(value) for value in values]
        except TypeError:
            return None
    return values


_OPS: dict[str, Callable[[Any, Any], bool]] = {
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    "≤": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
    "≥": lambda a, b: a >= b,
}


def _chain_predicate(pieces: list[str]) -> Predicate:
    def holds(args: dict[str, Any]) -> bool | None:
        values = [_term_values(piece, args) for piece in pieces[::2]]
        if any(value is None for value in values):
            return None
        try:
            for index, op in enumerate(pieces[1::2]):
                left, right = values[index], values[index + 1]
                assert left is not None and right is not None
                if not all(_OPS[op](a, b) for a in left for b in right if _number(a) and _number(b)):
                    return False
        except TypeError:
            return None
        return True

    return holds


def _comparisons(prose: str, params: set[str]) -> Iterator[Promise]:
    for match in _CHAIN.finditer(prose):
        pieces = [m.group(0) for m in _PIECE.finditer(match.group(0))]
        names = {re.split(r"[\[.(]", p.replace("len(", ""))[0].strip() for p in pieces[::2]}
        bound = sorted(names & params)
        if not bound or any(
            not re.fullmatch(r"-?\d.*", p.strip())
            and re.split(r"[\[.(]", p.replace("len(", ""))[0].strip() not in params
            for p in pieces[::2]
        ):
            continue
        yield Promise(
            "compare", bound[0], match.group(0), match.start(), match.end(), _chain_predicate(pieces)
        )


# ------------------------------------------------------------------ promises in words

_RANGE = re.compile(
    r"\b(?P<what>(?:the\s+)?length\s+of\s+the\s+(?:array|list|string)|(?:the\s+)?elements?\s+(?:in|of)\s+the\s+"
    r"(?:array|list))\s+(?:will\s+be|is|are)\s+in\s+the\s+range\s+(?:of\s+)?\[\s*(?P<low>-?\d+)\s*,\s*(?P<high>-?\d+)\s*\]",
    re.IGNORECASE,
)
_SIGN_WORD = r"(?P<sign>positive|non-negative|nonnegative|negative)"
_KIND = r"(?:integers?|numbers?|floats?|whole\s+numbers?|ints?)"
_GIVEN = r"(?:given|takes?|accepts?|receives?|input\s+is|inputs?\s+are|you\s+are\s+given|for)\s+(?:an?\s+|two\s+|the\s+)?"
_SIGN_NAMED = re.compile(
    rf"\b{_SIGN_WORD}\s+{_KIND}\s+(?P<names>`?[A-Za-z_]\w*`?(?:\s*(?:,|and)\s*`?[A-Za-z_]\w*`?)*)",
    re.IGNORECASE,
)
_SIGN_LIST = re.compile(rf"\b(?:list|array|sequence|tuple)s?\s+of\s+{_SIGN_WORD}\s+{_KIND}", re.IGNORECASE)
_SIGN_GIVEN = re.compile(rf"\b{_GIVEN}{_SIGN_WORD}\s+{_KIND}\b(?!\s+(?:list|array))", re.IGNORECASE)
_SIGN_IS = re.compile(
    rf"\(?\b(?P<name>[A-Za-z_]\w*)\)?\s+(?:is|are|will\s+be)\s+(?:always\s+)?(?:an?\s+)?{_SIGN_WORD}\b",
    re.IGNORECASE,
)
_BOUND_IS = re.compile(
    r"\(?\b(?P<name>[A-Za-z_]\w*)\)?\s+(?:is|are|will\s+be)\s+(?:always\s+)?"
    r"(?P<rel>less\s+th[ae]n|smaller\s+th[ae]n|lower\s+th[ae]n|greater\s+th[ae]n|larger\s+th[ae]n|bigger\s+th[ae]n|"
    r"more\s+th[ae]n|at\s+most|at\s+least|no\s+more\s+th[ae]n|no\s+less\s+th[ae]n|not\s+more\s+th[ae]n)\s+(?P<num>-?\d+)\b",
    re.IGNORECASE,
)
_SAME_LENGTH = re.compile(
    r"\ball\s+(?:the\s+)?(?:words|strings|elements|items|lists|sublists|tuples|arrays)\s+(?:will\s+)?"
    r"(?:have|are\s+of|be\s+of|are)\s+(?:the\s+)?(?:same|equal)\s+length",
    re.IGNORECASE,
)
# Only the adjective: "the date string is not empty" is as often a rule the function checks (HumanEval/124).
_NON_EMPTY = re.compile(
    r"\bnon[- ]?empty\s+(?P<what>list|array|string|tuple|sequence|dictionary|dict)\b", re.I
)
_PARITY = re.compile(
    r"\b(?P<parity>even|odd)\s+number\s+of\s+(?:coefficients|elements|items|numbers|values|entries|terms)\b",
    re.I,
)
_ONLY = re.compile(
    r"\b(?:contains?|consists?\s+of|consisting\s+of|made\s+up\s+of|composed\s+of|has)\s+only\s+(?P<what>[\w\s,']{3,40}?)"
    r"(?=[.;:)]|\s*$|\s+and\s+(?:returns?|the)\b)|\bonly\s+(?:contains?|consists?\s+of)\s+(?P<what2>[\w\s,']{3,40}?)(?=[.;:)]|\s*$)",
    re.IGNORECASE,
)
_DISTINCT = re.compile(
    r"\b(?:will\s+not|won't|does\s+not|doesn't|do\s+not)\s+contain\s+(?:any\s+)?duplicate"
    r"|\ball\s+(?:the\s+)?(?:elements|numbers|values|items)\s+(?:are|will\s+be)\s+(?:distinct|unique|different)\b",
    re.IGNORECASE,
)

_SIGN_TESTS: dict[str, Callable[[Any], bool]] = {
    "positive": lambda v: v > 0,
    "non-negative": lambda v: v >= 0,
    "nonnegative": lambda v: v >= 0,
    "negative": lambda v: v < 0,
}
_BOUND_TESTS: dict[str, Callable[[Any, float], bool]] = {
    "less": lambda v, n: v < n,
    "smaller": lambda v, n: v < n,
    "lower": lambda v, n: v < n,
    "greater": lambda v, n: v > n,
    "larger": lambda v, n: v > n,
    "bigger": lambda v, n: v > n,
    "more": lambda v, n: v > n,
    "at most": lambda v, n: v <= n,
    "at least": lambda v, n: v >= n,
    "no more": lambda v, n: v <= n,
    "no less": lambda v, n: v >= n,
    "not more": lambda v, n: v <= n,
}
_CHARSETS: list[tuple[re.Pattern[str], Callable[[str], bool]]] = [
    (
        re.compile(r"^(?:lower[- ]?case|small)\s+(?:english\s+)?(?:letters|alphabets?|characters)$"),
        str.islower,
    ),
    (
        re.compile(r"^(?:upper[- ]?case|capital)\s+(?:english\s+)?(?:letters|alphabets?|characters)$"),
        str.isupper,
    ),
    (re.compile(r"^(?:english\s+)?(?:letters|alphabets?|alphabetic\s+characters)$"), str.isalpha),
    (
        re.compile(r"^(?:letters|alphabets?)\s+and\s+spaces|spaces\s+and\s+letters$"),
        lambda c: c.isalpha() or c == " ",
    ),
    (re.compile(r"^(?:digits|numbers|numeric\s+characters)$"), str.isdigit),
    (
        re.compile(r"^(?:1s\s+and\s+0s|0s\s+and\s+1s|ones\s+and\s+zeros|zeros\s+and\s+ones)$"),
        lambda c: c in "01",
    ),
]


def _typed(params: list[str], tests: Sequence[list[Any]], test: Callable[[Any], bool]) -> list[str]:
    """The parameters whose every test value passes ``test`` (the arguments of a type)."""
    return [
        name
        for position, name in enumerate(params)
        if tests and all(len(args) > position and test(args[position]) for args in tests)
    ]


def _words(prose: str, params: list[str], tests: Sequence[list[Any]]) -> Iterator[Promise]:
    numbers = _typed(params, tests, _number)
    sequences = _typed(params, tests, lambda v: isinstance(v, list | tuple))
    strings = _typed(params, tests, lambda v: isinstance(v, str))
    for match in _RANGE.finditer(prose):
        if len(sequences) + len(strings) != 1:
            continue
        target = (sequences or strings)[0]
        low, high = int(match.group("low")), int(match.group("high"))
        if match.group("what").lower().lstrip("the ").startswith("length"):

            def holds(args: dict[str, Any], t: str = target, lo: int = low, hi: int = high) -> bool | None:
                return _all([args[t]], lambda v: lo <= len(v) <= hi)
        else:

            def holds(args: dict[str, Any], t: str = target, lo: int = low, hi: int = high) -> bool | None:
                items = _elements(args[t])
                return None if items is None else _all(items, lambda v: not _number(v) or lo <= v <= hi)

        yield Promise("range", target, match.group(0), match.start(), match.end(), holds)
    for match in _SIGN_NAMED.finditer(prose):
        names = [n.strip("`") for n in re.split(r"\s*(?:,|and)\s*", match.group("names")) if n.strip("`")]
        sign = match.group("sign").lower()
        for name in names:
            if name in params:
                yield _sign_promise(
                    name, sign, match, prose, element=False, words=match.group(0).split(name)[0] + name
                )
    for match in _SIGN_LIST.finditer(prose):
        if len(sequences) == 1:
            yield _sign_promise(sequences[0], match.group("sign").lower(), match, prose, element=True)
    for match in _SIGN_GIVEN.finditer(prose):
        if len(numbers) == 1 and not _SIGN_NAMED.match(prose, match.start("sign")):
            yield _sign_promise(numbers[0], match.group("sign").lower(), match, prose, element=False)
    for match in _SIGN_IS.finditer(prose):
        if match.group("name") in params:
            yield _sign_promise(match.group("name"), match.group("sign").lower(), match, prose, element=False)
    for match in _BOUND_IS.finditer(prose):
        name = match.group("name")
        if name not in params:
            continue
        relation = " ".join(match.group("rel").lower().split()[:2]).replace(" than", "").replace(" then", "")
        relation = relation if relation in _BOUND_TESTS else relation.split()[0]
        compare = _BOUND_TESTS.get(relation)
        if compare is None:
            continue
        number = float(match.group("num"))

        def bound(
            args: dict[str, Any], n: str = name, c: Callable[[Any, float], bool] = compare, x: float = number
        ) -> bool | None:
            value = args[n]
            return c(value, x) if _number(value) else None

        yield Promise("bound", name, match.group(0), match.start(), match.end(), bound)
    for match in _SAME_LENGTH.finditer(prose):
        if len(sequences) != 1:
            continue

        def same(args: dict[str, Any], t: str = sequences[0]) -> bool | None:
            items = _elements(args[t])
            if items is None:
                return None
            try:
                return len({len(item) for item in items}) <= 1
            except TypeError:
                return None

        yield Promise("same-length", sequences[0], match.group(0), match.start(), match.end(), same)
    for match in _NON_EMPTY.finditer(prose):
        what = match.group("what").lower()
        pool = strings if what == "string" else sequences
        if len(pool) != 1:
            continue

        def nonempty(args: dict[str, Any], t: str = pool[0]) -> bool | None:
            try:
                return len(args[t]) > 0
            except TypeError:
                return None

        yield Promise("non-empty", pool[0], match.group(0), match.start(), match.end(), nonempty)
    for match in _PARITY.finditer(prose):
        if len(sequences) != 1:
            continue
        remainder = 0 if match.group("parity").lower() == "even" else 1

        def parity(args: dict[str, Any], t: str = sequences[0], r: int = remainder) -> bool | None:
            try:
                return len(args[t]) % 2 == r
            except TypeError:
                return None

        yield Promise("length-parity", sequences[0], match.group(0), match.start(), match.end(), parity)
    for match in _ONLY.finditer(prose):
        what = " ".join((match.group("what") or match.group("what2") or "").lower().split())
        allowed = next((test for pattern, test in _CHARSETS if pattern.search(what)), None)
        if allowed is None or len(strings) != 1:
            continue

        def only(
            args: dict[str, Any], t: str = strings[0], ok: Callable[[str], bool] = allowed
        ) -> bool | None:
            value = args[t]
            return all(ok(ch) for ch in value) if isinstance(value, str) else None

        yield Promise("charset", strings[0], match.group(0), match.start(), match.end(), only)
    for match in _DISTINCT.finditer(prose):
        if len(sequences) != 1:
            continue

        def distinct(args: dict[str, Any], t: str = sequences[0]) -> bool | None:
            items = _elements(args[t])
            try:
                return None if items is None else len(set(items)) == len(items)
            except TypeError:
                return None

        yield Promise("distinct", sequences[0], match.group(0), match.start(), match.end(), distinct)


def _sign_promise(
    name: str, sign: str, match: re.Match[str], prose: str, *, element: bool, words: str | None = None
) -> Promise:
    test = _SIGN_TESTS[sign]

    def holds(args: dict[str, Any]) -> bool | None:
        value = args[name]
        values = _elements(value) if element else [value]
        if values is None:
            return None
        values = [v for v in values if _number(v)]
        return _all(values, test) if values else None

    where = match.span("sign")
    text = words or match.group(0)
    return Promise(
        "sign",
        name,
        text,
        match.start(),
        match.start() + len(text),
        holds,
        where if sign == "positive" else None,
    )


# ------------------------------------------------------------------ the check

_ASSUMPTION = re.compile(
    r"^(?:note\s*:\s*)?(?:you\s+(?:may|can|should)\s+assume|assume|knowing\s+that|it\s+is\s+guaranteed|"
    r"we\s+assume|the\s+input\s+(?:will|is\s+guaranteed)|\d+\.\s)",
    re.IGNORECASE,
)


def promises(subject: Subject) -> list[Promise]:
    """Every promise the description binds to an argument."""
    problem = subject.problem
    params = reference_parameters(problem) or []
    if problem.kind != "function" or not params:
        return []
    tests = [list(test.input) for test in problem.tests if isinstance(test.input, list | tuple)]
    found = list(_comparisons(subject.prose, set(params))) + list(_words(subject.prose, params, tests))
    unique: dict[tuple[int, int], Promise] = {}
    for promise in found:
        unique.setdefault((promise.start, promise.end), promise)
    return sorted(unique.values(), key=lambda p: p.start)


def _fix(subject: Subject, promise: Promise, broken: list[Any]) -> Fix:
    prompt = subject.problem.prompt
    start, end = sentence_span(subject.prose, promise.start, promise.end)
    sentence = prompt[start:end]
    target = promise.target
    if promise.positive_word is not None and all(
        _number(args.get(target)) and args.get(target) == 0 for args in broken
    ):
        a, b = promise.positive_word
        return Fix(f"say 'non-negative' for 'positive' ({target} = 0 is tested)", a, b, "non-negative", True)
    if _ASSUMPTION.match(sentence.strip()) and len(sentence) < 200:
        return drop_sentence(prompt, start, end, f"drop the sentence {one_line(sentence, 90)!r}")
    return Fix(f"state what the tests hold instead of {one_line(promise.text, 60)!r}", mechanical=False)


@audit_check("preconditions", severities={"wrong"}, inherited=True)
def preconditions(subjects: Sequence[Subject], ctx: AuditContext) -> list[AuditFinding]:
    """Test inputs that break a promise the description makes about its inputs."""
    found = []
    for subject in subjects:
        problem = subject.problem
        params = reference_parameters(problem) or []
        for promise in promises(subject):
            broken = []
            tests = [test for test in problem.tests if isinstance(test.input, list | tuple)]
            for test in tests:
                args = dict(zip(params, test.input, strict=False))
                if promise.target in args and promise.holds(args) is False:
                    broken.append((test, args))
            if not broken:
                continue
            start, end = sentence_span(subject.prose, promise.start, promise.end)
            sentence = one_line(problem.prompt[start:end], 160)
            evidence = (
                Evidence("sentence", sentence),
                *(Evidence("test", f"{call_text(problem, test.input)} breaks it") for test, _ in broken[:3]),
            )
            found.append(
                AuditFinding(
                    problem.id,
                    "preconditions",
                    "wrong",
                    f"the description promises {one_line(promise.text, 70)!r}, but {len(broken)} of "
                    f"{len(tests)} tests break it",
                    f"preconditions:{promise.kind}:{promise.target}",
                    evidence,
                    _fix(subject, promise, [args for _, args in broken]),
                )
            )
    return found
