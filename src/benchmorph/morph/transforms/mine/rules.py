"""Paired edit rules for the LLM-free counterfactual miner: a wording change and the code change it implies.

Each rule edits the description and the reference together (``smallest`` ->
``largest`` with ``min(`` -> ``max(``).  A rule applies only where its text
pattern and its code pattern each occur exactly once, so the two edits
cannot land on different things; execution then decides whether the result
is a real counterfactual (outputs change) or not.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class EditRule:
    name: str
    text_pattern: re.Pattern[str]
    text_replacement: str
    code_pattern: re.Pattern[str]
    code_replacement: str
    # Code the new reference needs in front (e.g. an import for math.prod).
    code_prelude: str = ""


def _word(word: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w-]){re.escape(word)}(?![\w-])", re.IGNORECASE)


def _rule(name: str, text: tuple[str, str], code: tuple[str, str], prelude: str = "") -> EditRule:
    pattern = _word(text[0])
    if text[0].endswith(" than"):  # not the start of "less than or equal to"
        pattern = re.compile(pattern.pattern + r"(?! or equal)", re.IGNORECASE)
    return EditRule(name, pattern, text[1], re.compile(code[0]), code[1], prelude)


def _pair(name: str, words: tuple[str, str], code: tuple[str, str]) -> list[EditRule]:
    """Both directions of a symmetric edit: ``a -> b`` with ``x -> y``, and ``b -> a`` with ``y -> x``."""
    (a, b), (x, y) = words, code
    return [
        _rule(f"{name}:{a}>{b}", (a, b), (re.escape(x), y.replace("\\", "\\\\"))),
        _rule(f"{name}:{b}>{a}", (b, a), (re.escape(y), x.replace("\\", "\\\\"))),
    ]


def _flip(name: str, words: tuple[str, str], code: list[tuple[str, str]]) -> list[EditRule]:
    """A property flip: the word moves either way, and any one code form of the property flips with it.

    For a two-valued property (parity, case, direction) flipping the one word
    of the description and the one test of the code is consistent whichever
    way round the parent wrote them ("hasn't any even digit" is tested with
    ``% 2 == 1``): the variant asks for the other value everywhere.
    """
    a, b = words
    return [
        _rule(f"{name}:{x}>{y}", (x, y), (pattern, replacement))
        for x, y in ((a, b), (b, a))
        for pattern, replacement in code
    ]


# Parity tests in any spacing: ``x%2==0`` flips to ``x%2==1``; ``!= 0`` to ``== 0``.
_PARITY_TESTS = [
    (r"%(\s*)2(\s*)==(\s*)0(?![\w.])", r"%\g<1>2\g<2>==\g<3>1"),
    (r"%(\s*)2(\s*)==(\s*)1(?![\w.])", r"%\g<1>2\g<2>==\g<3>0"),
    (r"%(\s*)2(\s*)!=(\s*)0(?![\w.])", r"%\g<1>2\g<2>==\g<3>0"),
    (r"%(\s*)2(\s*)!=(\s*)1(?![\w.])", r"%\g<1>2\g<2>==\g<3>1"),
]
# Even/odd positions: the start of a stride of 2.
_PARITY_INDEXES = [
    (
        r"\brange\((\s*)0(\s*),([^()\n]*(?:\([^()\n]*\)[^()\n]*)*),(\s*)2(\s*)\)",
        r"range(\g<1>1\g<2>,\g<3>,\g<4>2\g<5>)",
    ),
    (
        r"\brange\((\s*)1(\s*),([^()\n]*(?:\([^()\n]*\)[^()\n]*)*),(\s*)2(\s*)\)",
        r"range(\g<1>0\g<2>,\g<3>,\g<4>2\g<5>)",
    ),
    (r"\[(?:0)?::(\s*)2\]", r"[1::\g<1>2]"),
    (r"\[1::(\s*)2\]", r"[::\g<1>2]"),
]
_CASE_TESTS = [
    (r"\.isupper\(\)", ".islower()"),
    (r"\.islower\(\)", ".isupper()"),
    (r"\.upper\(\)", ".lower()"),
    (r"\.lower\(\)", ".upper()"),
    (r"(['\"])\[a-z\]", r"\g<1>[A-Z]"),
    (r"(['\"])\[A-Z\]", r"\g<1>[a-z]"),
    (r"(['\"])AEIOU\1", r"\g<1>aeiou\g<1>"),
    (r"(['\"])aeiou\1", r"\g<1>AEIOU\g<1>"),
]
# A sort call without a direction gets one, and one with ``reverse=True`` loses it.
_BALANCED = r"(?:[^()\n]|\((?:[^()\n]|\([^()\n]*\))*\))"
_SORTS = [
    (rf"\bsorted\(((?:(?!reverse){_BALANCED})+)\)", r"sorted(\g<1>, reverse=True)"),
    (rf"\bsorted\(({_BALANCED}+?),\s*reverse\s*=\s*True\s*\)", r"sorted(\g<1>)"),
    (rf"\.sort\(((?:(?!reverse){_BALANCED})+)\)", r".sort(\g<1>, reverse=True)"),
    (r"\.sort\(\)", ".sort(reverse=True)"),
    (r"\.sort\(reverse\s*=\s*True\)", ".sort()"),
]
# Vowel membership.  Consonants are the letters that are not vowels, so "vowels" becomes
# "consonants" with an explicit letter test (a space or digit is neither); the other way,
# the membership test just flips.
_VOWEL_SET = r"(?P<set>\[\s*['\"]a['\"][^\]\n]*\]|['\"]aeiou(?:AEIOU)?['\"]|vowels\b)"
_ELEMENT = r"(?P<x>(?<![\w.])(?!not\b)[A-Za-z_][\w.\[\]]*(?:\(\))?)"
_TO_CONSONANTS = [
    (rf"{_ELEMENT}\s+not\s+in\s+{_VOWEL_SET}", r"(not \g<x>.isalpha() or \g<x> in \g<set>)"),
    (rf"{_ELEMENT}\s+in\s+{_VOWEL_SET}", r"(\g<x>.isalpha() and \g<x> not in \g<set>)"),
]
_TO_VOWELS = [
    (rf"{_ELEMENT}\s+not\s+in\s+{_VOWEL_SET}", r"\g<x> in \g<set>"),
    (rf"{_ELEMENT}\s+in\s+{_VOWEL_SET}", r"\g<x> not in \g<set>"),
]
# A running extreme: ``if x > best: best = x`` keeps the largest; the other direction keeps the smallest.
_ACCUMULATOR = (
    r"(?P<head>if\s+\(?\s*)(?P<a>[^\n<>=:]+?)\s*(?P<op>>=?|<=?)\s*(?P<b>[\w.\[\]]+)"
    r"(?P<mid>\s*\)?\s*:\s*\n\s*)(?P=b)(?P<eq>\s*=\s*)(?P=a)(?=\s*(?:\n|#|;))"
)


def _accumulator(name: str, words: tuple[str, str], ops: tuple[str, str]) -> EditRule:
    op, new = ops
    pattern = _ACCUMULATOR.replace("(?P<op>>=?|<=?)", f"(?P<op>{re.escape(op)})")
    replacement = rf"\g<head>\g<a> {new} \g<b>\g<mid>\g<b>\g<eq>\g<a>"
    return _rule(f"{name}:{words[0]}>{words[1]}", words, (pattern, replacement))


RULES: list[EditRule] = [
    *_pair("extreme", ("smallest", "largest"), ("min(", "max(")),
    *_pair("extreme", ("minimum", "maximum"), ("min(", "max(")),
    *_pair("extreme", ("shortest", "longest"), ("min(", "max(")),
    *_flip("order", ("ascending", "descending"), _SORTS),
    *_flip("order", ("increasing", "decreasing"), _SORTS),
    *_flip("parity", ("even", "odd"), _PARITY_TESTS),
    *_flip("parity", ("even", "odd"), _PARITY_INDEXES),
    *_pair("position", ("first", "last"), ("[0]", "[-1]")),
    *_pair("affix", ("prefix", "suffix"), (".startswith(", ".endswith(")),
    *_pair("affix", ("prefixes", "suffixes"), ("[:i]", "[i:]")),
    *_pair("affix", ("starts", "ends"), (".startswith(", ".endswith(")),
    *_flip("case", ("uppercase", "lowercase"), _CASE_TESTS),
    *_flip("case", ("upper case", "lower case"), _CASE_TESTS),
    *_flip("case", ("upper", "lower"), _CASE_TESTS),
    _rule(
        "strict:less>less-or-equal", ("less than", "less than or equal to"), (r"(?<![<=])\s<\s(?!=)", " <= ")
    ),
    _rule(
        "strict:greater>greater-or-equal",
        ("greater than", "greater than or equal to"),
        (r"(?<![>=])\s>\s(?!=)", " >= "),
    ),
    _rule("strict:less-or-equal>less", ("less than or equal to", "less than"), (r"\s<=\s", " < ")),
    _rule(
        "strict:greater-or-equal>greater", ("greater than or equal to", "greater than"), (r"\s>=\s", " > ")
    ),
    _rule(
        "aggregate:sum>product",
        ("sum", "product"),
        (r"(?<![\w.])sum\(", "_math.prod("),
        "import math as _math\n",
    ),
    *[
        _rule(f"count:{a}>{b}", (a, b), code)
        for a, b, forms in (
            ("vowels", "consonants", _TO_CONSONANTS),
            ("vowel", "consonant", _TO_CONSONANTS),
            ("consonants", "vowels", _TO_VOWELS),
            ("consonant", "vowel", _TO_VOWELS),
        )
        for code in forms
    ],
    _rule(
        "aggregate:product>sum",
        ("product", "sum"),
        (r"(?m)(return\s[^\n*]*?[\w)\]])\s*(?<!\*)\*(?!\*)\s*([\w(][^\n*]*)$", r"\g<1> + \g<2>"),
    ),
    _rule(
        "aggregate:product>sum",
        ("product", "sum"),
        (r"lambda (\w+), (\w+): \1\s*\*\s*\2\b", r"lambda \g<1>, \g<2>: \g<1> + \g<2>"),
    ),
    *_pair("position", ("first", "last"), ("[:1]", "[-1:]")),
    _rule(
        "position:first>last",
        ("first", "last"),
        (r"\b(\w+)\[:(\w+)\]", r"\g<1>[max(0, len(\g<1>) - \g<2>):]"),
    ),
    _rule("position:last>first", ("last", "first"), (r"\b(\w+)\[-(\w+):\]", r"\g<1>[:\g<2>]")),
    *[
        _accumulator("extreme", words, ops)
        for smaller, larger in (("smallest", "largest"), ("minimum", "maximum"), ("shortest", "longest"))
        for words, ops in (
            ((larger, smaller), (">", "<")),
            ((larger, smaller), (">=", "<=")),
            ((smaller, larger), ("<", ">")),
            ((smaller, larger), ("<=", ">=")),
        )
    ],
    *_pair("extreme", ("lowest", "highest"), ("min(", "max(")),
    # Powers: only the forms that read as an operation ("squares of", "cubed"), never the shape
    # ("the volume of a cube"), and only a literal exponent.
    *[
        _rule(f"power:{a}>{b}", (a, b), (rf"\*\*(\s*){old}(?![\w.])", rf"**\g<1>{new}"))
        for (a, old), (b, new) in (
            (("squares", 2), ("cubes", 3)),
            (("squared", 2), ("cubed", 3)),
            (("square of", 2), ("cube of", 3)),
        )
        for (a, old), (b, new) in (((a, old), (b, new)), ((b, new), (a, old)))
    ],
    # "greater than" and the one order comparison of two non-constant operands (``x > y``, never
    # ``n > 0``: a comparison with a constant is a threshold, not the relation the text names).
    *[
        _rule(
            f"compare:{a}>{b}",
            (f"{a} than", f"{b} than"),
            (rf"(?<=[\w)\]])(\s*)(?<![<>=!-]){op}(?![<>=])(\s*)(?=[A-Za-z_(\[])", rf"\g<1>{new}\g<2>"),
        )
        for a, b in (
            ("greater", "smaller"),
            ("larger", "smaller"),
            ("bigger", "smaller"),
            ("more", "fewer"),
            ("smaller", "larger"),
            ("less", "greater"),
            ("fewer", "more"),
        )
        for op, new in ((">", "<"), ("<", ">"))
    ],
    *_flip(
        "charclass",
        ("digits", "letters"),
        [(r"\.isdigit\(\)", ".isalpha()"), (r"\.isalpha\(\)", ".isdigit()")],
    ),
    *_flip(
        "charclass", ("digit", "letter"), [(r"\.isdigit\(\)", ".isalpha()"), (r"\.isalpha\(\)", ".isdigit()")]
    ),
    # A side of a sorted insertion point or a rotation: "the left insertion point" with bisect_left.
    *_pair("side", ("left", "right"), ("bisect_left(", "bisect_right(")),
    # "all items are ..." reads as a quantifier only before a plural noun ("all the characters" does
    # not take "any"); the empty case follows the words (all of nothing holds, any of nothing does not).
    EditRule(
        "quantifier:all>any",
        re.compile(r"(?<![\w-])all(?=\s+(?!the\b|of\b)[a-z]+s\b)", re.IGNORECASE),
        "any",
        re.compile(r"(?<![\w.])all\("),
        "any(",
    ),
    *_flip(
        "sign",
        ("positive", "negative"),
        [(r"(?<![<>=!])>(\s*)0(?![\w.])", r"<\g<1>0"), (r"(?<![<>=!])<(\s*)0(?![\w.])", r">\g<1>0")],
    ),
]


def match_case(template: str, replacement: str) -> str:
    """Spell ``replacement`` with the capitalisation of the text it replaces."""
    if template.isupper() and len(template) > 1:
        return replacement.upper()
    if template[:1].isupper():
        return replacement[:1].upper() + replacement[1:]
    return replacement
