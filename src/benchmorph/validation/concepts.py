"""What a description says, as atoms that survive rewording: concepts, numbers, literals, comparisons.

A meaning-preserving rewrite changes words but not what they ask for: "the
largest" may become "the biggest", "each" may become "every", "2" may be
"two", but "the largest" must not become "a large" and "at least" must not
vanish.  Checks of such rewrites compare *atoms* instead of words:

- **concepts** (:data:`CONCEPTS`): a class of surface forms that mean the
  same to a reader of a programming task (``max``: largest, biggest,
  greatest, maximum, highest).  A class is only as wide as the rewrites that
  may move between its forms; every form is a word or phrase a reader would
  take for the same requirement;
- **numbers**, with "two" read as 2 (not "one", which is a pronoun as often);
- **literals** in quotes ('Yes', "db") and the comparison symbols (<=, >, ...);
- **names** the caller passes (the parameters), found as whole words.

:func:`statements` splits a description's prose into sentences and list
items (:func:`answered` joins a question to the statements answering it), and :func:`conditions` picks those that state a constraint, a
precondition or an edge case (cue words such as *assume*, *non-empty*, *if*,
*otherwise*, *at least*, a comparison).  :func:`counterpart` finds, for one
such statement, the sentence (or two adjacent ones) of another text holding
all of its atoms: the test a rewrite must pass for each of its parent's
conditions.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

# concept -> surface forms (lowercase; a form may be a phrase).  Longest forms match first, so "at least"
# is never read as "least", "lower case" never as "lower", "number of" never as a number.
CONCEPTS: dict[str, tuple[str, ...]] = {
    "not": ("not", "cannot"),
    "no": ("no",),
    "none": ("none",),
    "never": ("never",),
    "nothing": ("nothing",),
    "nor": ("nor",),
    "without": ("without",),
    "except": ("except",),
    "unless": ("unless",),
    "only": ("only", "solely"),
    "all": ("all",),
    "each": ("each", "every"),
    "reciprocal": ("each other", "one another"),
    "any": ("any",),
    "both": ("both",),
    "either": ("either",),
    "neither": ("neither",),
    "some": ("some",),
    "same": ("same", "identical"),
    "equal": ("equal", "equals"),
    "distinct": ("distinct", "different"),
    "unique": ("unique",),
    "duplicate": ("duplicate", "duplicates", "duplicated", "repeated"),
    "first": ("first",),
    "last": ("last", "final"),
    "second": ("second", "2nd"),
    "third": ("third", "3rd"),
    "next": ("next",),
    "previous": ("previous", "preceding"),
    "before": ("before",),
    "after": ("after",),
    "left": ("left",),
    "right": ("right",),
    "start": ("start", "starts", "starting", "begin", "begins", "beginning"),
    "end": ("end", "ends", "ending"),
    "prefix": ("prefix", "prefixes"),
    "suffix": ("suffix", "suffixes", "postfix"),
    "max": ("largest", "biggest", "greatest", "maximum", "max", "highest", "maximal"),
    "min": ("smallest", "minimum", "min", "lowest", "minimal", "least"),
    "longest": ("longest",),
    "shortest": ("shortest",),
    "at-least": ("at least", "no less than", "no fewer than"),
    "at-most": ("at most", "no more than"),
    "most": ("most",),
    "fewest": ("fewest",),
    "more": ("more", "greater", "larger", "bigger", "higher"),
    "less": ("less", "fewer", "smaller", "lower"),
    "above": ("above",),
    "below": ("below", "under"),
    "between": ("between",),
    "exactly": ("exactly", "precisely"),
    "several": ("several", "multiple"),
    "strictly": ("strictly",),
    "inclusive": ("inclusive", "inclusively"),
    "exclusive": ("exclusive",),
    "even": ("even",),
    "odd": ("odd",),
    "positive": ("positive",),
    "negative": ("negative",),
    "non-negative": ("non-negative", "nonnegative", "non negative"),
    "non-empty": ("non-empty", "nonempty", "non empty"),
    "zero": ("zero", "zeros", "zeroes"),
    "prime": ("prime", "primes"),
    "sort": ("sort", "sorted", "sorting", "sorts"),
    "order": ("order", "ordered"),
    "ascending": ("ascending", "increasing"),
    "descending": ("descending", "decreasing"),
    "non-decreasing": ("non-decreasing", "nondecreasing"),
    "non-increasing": ("non-increasing", "nonincreasing"),
    "reverse": ("reverse", "reversed", "reversing", "backwards", "backward"),
    "sum": ("sum", "sums"),
    "product": ("product", "products"),
    "total": ("total",),
    "average": ("average", "mean", "arithmetic mean"),
    "median": ("median",),
    "count": (
        "count",
        "counts",
        "number of",
        "numbers of",
        "how many",
        "how often",
        "tally",
        "count the number of",
        "count the numbers of",
        "count up the",
        "tally up the",
        "count up",
        "tally up",
    ),
    "length": ("length", "lengths", "size", "len"),
    "empty": ("empty",),
    "true": ("true",),
    "false": ("false",),
    "upper": ("uppercase", "upper case", "upper-case", "upper", "capital", "capitals"),
    "lower": ("lowercase", "lower case", "lower-case"),
    "vowel": ("vowel", "vowels"),
    "consonant": ("consonant", "consonants"),
    "digit": ("digit", "digits"),
    "letter": ("letter", "letters", "alphabetic", "alphabetical"),
    "numeric": ("numeric",),
    "space": ("space", "spaces"),
    "whitespace": ("whitespace", "whitespaces", "white space", "white spaces"),
    "case-sensitive": ("case-sensitive", "case sensitive"),
    "case-insensitive": ("case-insensitive", "case insensitive", "regardless of case"),
    "ignore": ("ignore", "ignoring", "ignored", "disregard", "disregarding"),
    "must": ("must",),
    "otherwise": ("otherwise", "else", "in any other case", "in all other cases", "in other cases"),
    "half": ("half",),
    "double": ("double", "twice"),
    "once": ("once",),
    "times": ("times",),
    "divisible": ("divisible",),
    "consecutive": ("consecutive", "adjacent", "neighbouring", "neighboring", "successive"),
    "overlap": ("overlapping", "overlaping", "overlap", "overlaps"),
    "valid": ("valid",),
    "invalid": ("invalid",),
}

# Number words read as numbers ("one" is not: "the first one" is a pronoun).
NUMBER_WORDS: dict[str, str] = {
    "two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7", "eight": "8",
    "nine": "9", "ten": "10", "eleven": "11", "twelve": "12", "hundred": "100", "thousand": "1000",
}  # fmt: skip

_FORMS: dict[str, str] = {form: concept for concept, forms in CONCEPTS.items() for form in forms}


@lru_cache(maxsize=1)
def _concept_pattern() -> re.Pattern[str]:
    forms = sorted(_FORMS, key=len, reverse=True)
    body = "|".join(re.escape(form).replace(r"\ ", r"[\s-]+") for form in forms)
    # "n't" endings read as "not"; a form is a whole word, never part of a longer one or of a name.
    return re.compile(rf"(?<![\w'-])(?:(?P<form>{body})|\w+(?P<neg>n't))(?![\w-])", re.IGNORECASE)


_NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?![\w])")
_WHETHER_OR_NOT = re.compile(r"\bor\s+not\b(?=\s*(?:[.,;:!?]|$))|(?<=\bwhether)\s+or\s+not\b", re.I)
_NUMBER_WORD = re.compile(r"(?<![\w-])(" + "|".join(NUMBER_WORDS) + r")(?![\w-])", re.IGNORECASE)
_LITERAL = re.compile(r"(?<![\w])'([^'\n]{1,24})'(?![\w])|\"([^\"\n]{1,24})\"")
_COMPARISON = re.compile(r"<=|>=|==|!=|≤|≥|<|>")
_COMPARISON_NAMES = {"≤": "<=", "≥": ">="}


def concepts(text: str) -> Counter[str]:
    """How often each concept is said in ``text`` (quoted literals are data, not words: skipped)."""
    found: Counter[str] = Counter()
    # "whether X or not" asks the same as "whether X": its "not" negates nothing.
    plain = _WHETHER_OR_NOT.sub(" ", _LITERAL.sub(" ", text))
    for match in _concept_pattern().finditer(plain):
        if match.group("neg"):
            found["not"] += 1
        else:
            form = " ".join(re.split(r"[\s-]+", match.group("form").lower()))
            found[_FORMS.get(form) or _FORMS.get(match.group("form").lower(), form)] += 1
    return found


def numbers(text: str) -> Counter[str]:
    """The numbers ``text`` states, digits or words ("two" is 2), as canonical strings."""
    found: Counter[str] = Counter()
    plain = _LITERAL.sub(" ", text)
    for match in _NUMBER.finditer(plain):
        value = match.group(0)
        found[str(float(value)) if "." in value else str(int(value))] += 1
    for match in _NUMBER_WORD.finditer(plain):
        found[NUMBER_WORDS[match.group(1).lower()]] += 1
    return found


def literals(text: str) -> Counter[str]:
    """Quoted literals ('Yes', "db"), exactly as spelled inside the quotes."""
    return Counter(a or b for a, b in _LITERAL.findall(text))


def comparisons(text: str) -> Counter[str]:
    """Comparison symbols, with ≤ read as <= and ≥ as >=."""
    return Counter(_COMPARISON_NAMES.get(symbol, symbol) for symbol in _COMPARISON.findall(text))


def named(text: str, names: Iterable[str]) -> Counter[str]:
    """Which of ``names`` the text uses as whole words, and how often."""
    found: Counter[str] = Counter()
    for name in names:
        hits = re.findall(rf"(?<![\w.]){re.escape(name)}(?!\w)", text)
        if hits:
            found[name] = len(hits)
    return found


def atoms(text: str, names: Iterable[str] = ()) -> Counter[str]:
    """Every atom of meaning in ``text``, each kind prefixed: ``c:max``, ``n:2``, ``l:Yes``, ``o:<=``, ``v:arr``.

    A quoted name ('delimeter') is the name, not a literal: a retelling may write it `separator`.
    """
    names = tuple(names)
    found: Counter[str] = Counter()
    quoted = Counter({key: n for key, n in literals(text).items() if key not in names})
    for prefix, counts in (
        ("c", concepts(text)),
        ("n", numbers(text)),
        ("l", quoted),
        ("o", comparisons(text)),
        ("v", named(text, names)),
    ):
        for key, count in counts.items():
            found[f"{prefix}:{key}"] += count
    return found


# ------------------------------------------------------------------ statements and conditions

_ITEM = re.compile(r"^\s*(?:[-*•]\s+|\d+[.)]\s+|[a-z][.)]\s+(?=\w))")
_HEADER = re.compile(
    r"^\s*(?:note|notes|constraints?|restrictions?|variables?|input|output|task)\s*:?\s*", re.I
)
_END = re.compile(r"(?<!\b[eE]\.g)(?<!\b[iI]\.e)(?<!\betc)(?<!\bvs)(?<!\.)[.!?;](?!\.)(?=\s|$)")


def statements(prose: str) -> list[str]:
    """The prose's sentences and list items, in order, each on one line.

    A blank line, a list item ("- ...", "1. ...") or a header ("Note:") starts
    a new statement, and so does a line that follows one without closing
    punctuation when it starts with a capital letter (HumanEval's unpunctuated
    sentence ends); sentences end at ``.``, ``!``, ``?`` and ``;``.
    """
    chunks: list[str] = []
    current: list[str] = []

    def close() -> None:
        if current:
            chunks.append(" ".join(current))
            current.clear()

    for line in prose.splitlines():
        text = line.strip()
        if not text:
            close()
            continue
        previous = current[-1] if current else ""
        if (
            _ITEM.match(line)
            or _HEADER.match(text)
            or (
                previous
                and not re.search(r"[.!?;:,]$", previous)
                and re.match(r"[A-Z][a-z]", text) is not None
            )
        ):
            close()
        current.append(text)
    close()
    out: list[str] = []
    for chunk in chunks:
        start = 0
        for match in _END.finditer(chunk):
            piece = chunk[start : match.end()].strip()
            if piece:
                out.append(piece)
            start = match.end()
        rest = chunk[start:].strip()
        if rest:
            out.append(rest)
    return [" ".join(piece.split()) for piece in out if re.search(r"\w", piece)]


_CUE = re.compile(
    r"\b(?:assum\w*|guarantee\w*|always|never|non-?empty|empty|at\s+(?:least|most)|no\s+(?:more|less|fewer)\s+than"
    r"|between|range|inclusive|exclusive|in\s+case|otherwise|else|if|unless|only|must|cannot|can't|don't|do\s+not"
    r"|should\s+not|ignore\w*|note|valid|invalid|constraints?|restrictions?|positive|negative|non-negative"
    r"|natural|exactly|strictly|at\s+any|multiple|several|ties?|equidistant|none|no\s+such|there\s+is\s+no)\b"
    r"|<=|>=|≤|≥|(?<![-=])[<>](?![-=])",
    re.IGNORECASE,
)


# A statement that answers the question before it ("If so, return True;", "otherwise False.").
_ANSWER = re.compile(r"^(?:if\s+(?:so|not|yes|no)\b|otherwise\b|else\b|in\s+that\s+case\b)", re.I)


def answered(found: Sequence[str]) -> list[str]:
    """``found`` with each question joined to the statements that answer it, as one statement.

    "Is the number prime? If so, return True; otherwise return False." states
    one condition over three statements (the question holds the condition, its
    answers the outcomes), more than the two-statement window of
    :func:`counterpart` sees; joined, it is read as the statement it is.  Only
    statements that start as an answer ("If so", "If not", "otherwise", "else",
    "in that case") and follow a question, or an answer to one, are joined.
    """
    out: list[str] = []
    open_question = False
    for statement in found:
        if open_question and _ANSWER.match(statement):
            out[-1] = f"{out[-1]} {statement}"
            continue
        out.append(statement)
        open_question = statement.rstrip().endswith("?")
    return out


def conditions(prose: str) -> list[str]:
    """The statements of ``prose`` (a question with its answers as one) that state a constraint, a
    precondition or an edge case."""
    return [statement for statement in answered(statements(prose)) if _CUE.search(statement)]


@dataclass(frozen=True)
class Match:
    """Where a statement's atoms were found: the statements of the other text, and what is missing."""

    statement: str
    found: tuple[str, ...]  # the other text's statements that hold its atoms (empty: none)
    missing: tuple[str, ...]  # atoms no window holds all of, from the best window (empty when found)


def counterpart(statement: str, others: Sequence[str], names: Iterable[str] = (), window: int = 2) -> Match:
    """The window of at most ``window`` adjacent statements of ``others`` that holds every atom of ``statement``.

    Atoms are counted: "the first and the first" needs two "first".  Among
    windows that fail, the one missing the fewest atoms names what is missing.
    """
    names = tuple(names)
    wanted = atoms(statement, names)
    if not wanted:
        return Match(statement, (statement,), ())
    best: tuple[int, tuple[str, ...]] | None = None
    for size in range(1, window + 1):
        for start in range(0, max(len(others) - size + 1, 0)):
            chosen = others[start : start + size]
            have = atoms(" ".join(chosen), names)
            missing = wanted - have
            if not missing:
                return Match(statement, tuple(chosen), ())
            lost = tuple(sorted(missing.elements()))
            if best is None or len(lost) < best[0]:
                best = (len(lost), lost)
    return Match(statement, (), best[1] if best else tuple(sorted(wanted.elements())))
