"""Text lint: slips a careful reader notices and a model may stumble over.

* Misspellings: codespell's dictionary of common misspellings (words it
  knows as typos, so technical words and names are not flagged), on the
  description's prose only.
* "less then 100" (HumanEval/75): ``then`` after a comparative.
* A word one or two letters off the function's own name: MBPP+'s Mbpp/20
  asks whether a number is "woodball" where the function is ``is_woodall``.
* A doubled word ("the the").
* The text asks to print what the function returns (Mbpp/419: "print the
  total sum multiplied by the length of the list", tested on the returned
  value): a reader who prints fails every test.  That one is ``wrong``;
  the others are cosmetic.
"""

from __future__ import annotations

import ast
import os
import re
from collections.abc import Sequence
from functools import lru_cache

from rapidfuzz.distance import Levenshtein

from benchmorph.validation.audit.base import AuditContext, Subject, audit_check, one_line, sentence_span
from benchmorph.validation.audit.findings import AuditFinding, Evidence, Fix

CHECK = "text-lint"
_WORD = re.compile(r"(?<![\w'`.\-/])[A-Za-z][a-z]{2,}(?![\w'`(\-/])")
_THEN = re.compile(
    r"\b(less|more|greater|smaller|larger|bigger|fewer|higher|lower|longer|shorter|rather|other)\s+(then)\b",
    re.IGNORECASE,
)
_DOUBLED = re.compile(r"\b([A-Za-z]{2,})\s+\1\b", re.IGNORECASE)
_PRINT = re.compile(r"\bprint(?:s|ed|ing)?\b", re.IGNORECASE)


@lru_cache(maxsize=1)
def misspellings() -> dict[str, str]:
    """codespell's common misspellings: wrong word -> its correction(s), comma-separated.

    codespell is a dependency; without it the lint would find no misspelling and say nothing, an audit
    weaker than it looks, so its absence is an error naming the fix.
    """
    from importlib import resources

    from benchmorph.data.errors import InputError

    table: dict[str, str] = {}
    try:
        text = (resources.files("codespell_lib") / "data" / "dictionary.txt").read_text(encoding="utf-8")
    except (ModuleNotFoundError, FileNotFoundError) as exc:
        raise InputError(
            "codespell's dictionary is missing, so the audit cannot look for misspellings: "
            "pip install 'codespell>=2.2' (a dependency of benchmorph)",
            path="benchmorph installation",
        ) from exc
    for line in text.splitlines():
        wrong, _, right = line.partition("->")
        if right:
            table[wrong.strip()] = right.strip().rstrip(",")
    return table


def _variant_of(a: str, b: str) -> bool:
    """The two words differ only in their ending (count/counts, close/closer, palindrome/palindromic)."""
    shared = len(os.path.commonprefix([a, b]))
    return shared >= min(len(a), len(b)) - 2


def _prose_words(subject: Subject) -> list[re.Match[str]]:
    return list(_WORD.finditer(subject.prose))


def _returns_value(subject: Subject) -> bool:
    """The reference prints nothing and its tests expect returned values (not all None)."""
    try:
        tree = ast.parse(subject.problem.reference)
    except SyntaxError:
        return False
    if any(
        isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "print"
        for n in ast.walk(tree)
    ):
        return False
    return any(test.has_expected and test.expected is not None for test in subject.problem.tests)


@audit_check(CHECK, severities={"wrong", "cosmetic"}, inherited=True)
def text_lint(subjects: Sequence[Subject], ctx: AuditContext) -> list[AuditFinding]:
    """Misspellings, 'then' for 'than', words off the function's name, doubled words, 'print' for 'return'."""
    table = misspellings()
    found = []
    for subject in subjects:
        problem = subject.problem
        if problem.kind != "function":
            continue
        prompt, prose = problem.prompt, subject.prose

        def sentence(start: int, end: int, prompt: str = prompt, prose: str = prose) -> Evidence:
            a, b = sentence_span(prose, start, end)
            return Evidence("sentence", one_line(prompt[a:b], 160))

        if _PRINT.search(subject.description) and _returns_value(subject):
            match = _PRINT.search(prose)
            fix = None
            if match is not None and len(_PRINT.findall(prose)) == 1 and match.group(0).lower() == "print":
                word = "Return" if match.group(0)[0].isupper() else "return"
                fix = Fix(f"say {word!r} for {match.group(0)!r}", match.start(), match.end(), word)
            found.append(
                AuditFinding(
                    problem.id,
                    CHECK,
                    "wrong",
                    "the description asks to print what the tests expect the function to return",
                    f"{CHECK}:print",
                    (sentence(*match.span()),) if match else (),
                    fix,
                )
            )
        for match in _THEN.finditer(prose):
            a, b = match.span(2)
            found.append(
                AuditFinding(
                    problem.id,
                    CHECK,
                    "cosmetic",
                    f"{match.group(0)!r} for {match.group(1) + ' than'!r}",
                    f"{CHECK}:then:{match.group(1).lower()}",
                    (sentence(*match.span()),),
                    Fix("say 'than' for 'then'", a, b, "than"),
                )
            )
        seen: set[str] = set()
        names = [word for word in subject.name_words if len(word) >= 5]
        for match in _prose_words(subject):
            word = match.group(0)
            lower = word.lower()
            if lower in seen:
                continue
            correction = table.get(lower)
            if correction and "," not in correction:
                seen.add(lower)
                right = correction.capitalize() if word[0].isupper() else correction
                found.append(
                    AuditFinding(
                        problem.id,
                        CHECK,
                        "cosmetic",
                        f"misspelling: {word!r} for {right!r}",
                        f"{CHECK}:spelling:{lower}",
                        (sentence(*match.span()),),
                        Fix(f"say {right!r} for {word!r}", match.start(), match.end(), right),
                    )
                )
                continue
            if len(lower) < 5 or lower in names:
                continue
            near = next(
                (
                    name
                    for name in names
                    if 0 < Levenshtein.distance(lower, name) <= 2
                    and not _variant_of(lower, name)
                    and lower[0] == name[0]
                    and abs(len(lower) - len(name)) <= 1
                ),
                None,
            )
            if near is not None:
                seen.add(lower)
                found.append(
                    AuditFinding(
                        problem.id,
                        CHECK,
                        "cosmetic",
                        f"{word!r} in the description, {near!r} in the function's name ({problem.entry_point}): "
                        "one of them is misspelt",
                        f"{CHECK}:name:{lower}",
                        (sentence(*match.span()),),
                        Fix(f"make the two agree ({word!r} or {near!r})", mechanical=False),
                    )
                )
        for match in _DOUBLED.finditer(prose):
            if match.group(1).lower() in ("that", "had", "is"):
                continue  # "that that", "had had" can be grammatical
            found.append(
                AuditFinding(
                    problem.id,
                    CHECK,
                    "cosmetic",
                    f"doubled word {match.group(0)!r}",
                    f"{CHECK}:doubled:{match.group(1).lower()}",
                    (sentence(*match.span()),),
                    Fix(
                        f"drop the second {match.group(1)!r}",
                        match.start(1) + len(match.group(1)),
                        match.end(),
                        "",
                    ),
                )
            )
    return found
