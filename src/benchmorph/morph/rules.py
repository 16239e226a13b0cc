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
    if text[0] in ("less than", "greater than"):  # not the start of "less than or equal to"
        pattern = re.compile(pattern.pattern + r"(?! or equal)", re.IGNORECASE)
    return EditRule(name, pattern, text[1], re.compile(code[0]), code[1], prelude)


def _pair(name: str, words: tuple[str, str], code: tuple[str, str]) -> list[EditRule]:
    """Both directions of a symmetric edit: ``a -> b`` with ``x -> y``, and ``b -> a`` with ``y -> x``."""
    (a, b), (x, y) = words, code
    return [
        _rule(f"{name}:{a}>{b}", (a, b), (re.escape(x), y.replace("\\", "\\\\"))),
        _rule(f"{name}:{b}>{a}", (b, a), (re.escape(y), x.replace("\\", "\\\\"))),
    ]


RULES: list[EditRule] = [
    *_pair("extreme", ("smallest", "largest"), ("min(", "max(")),
    *_pair("extreme", ("minimum", "maximum"), ("min(", "max(")),
    *_pair("extreme", ("shortest", "longest"), ("min(", "max(")),
    *_pair("order", ("ascending", "descending"), (".sort()", ".sort(reverse=True)")),
    _rule(
        "order:ascending>descending",
        ("ascending", "descending"),
        (r"\bsorted\(([^(),]+)\)", r"sorted(\1, reverse=True)"),
    ),
    _rule(
        "order:descending>ascending",
        ("descending", "ascending"),
        (r"\bsorted\(([^(),]+), reverse=True\)", r"sorted(\1)"),
    ),
    *_pair("parity", ("even", "odd"), ("% 2 == 0", "% 2 == 1")),
    _rule("parity:odd>even", ("odd", "even"), (r"% 2 != 0", "% 2 == 0")),
    _rule("parity:even>odd", ("even", "odd"), (r"% 2 != 1", "% 2 == 1")),
    *_pair("position", ("first", "last"), ("[0]", "[-1]")),
    *_pair("affix", ("prefix", "suffix"), (".startswith(", ".endswith(")),
    *_pair("affix", ("prefixes", "suffixes"), ("[:i]", "[i:]")),
    *_pair("affix", ("starts", "ends"), (".startswith(", ".endswith(")),
    *_pair("case", ("uppercase", "lowercase"), (".upper()", ".lower()")),
    *_pair("case", ("upper case", "lower case"), (".upper()", ".lower()")),
    *_pair("case", ("uppercase", "lowercase"), (".isupper()", ".islower()")),
    *_pair("sign", ("positive", "negative"), ("> 0", "< 0")),
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
    *_pair("count", ("vowels", "consonants"), (" in vowels", " not in vowels")),
]


def match_case(template: str, replacement: str) -> str:
    """Spell ``replacement`` with the capitalisation of the text it replaces."""
    if template.isupper() and len(template) > 1:
        return replacement.upper()
    if template[:1].isupper():
        return replacement[:1].upper() + replacement[1:]
    return replacement
