"""The alternative-readings probe: unstated rules that decide tests.

HumanEval/51 removes vowels and tests ``'ybcd'``: whether ``y`` is a vowel
decides it, and the prompt never says.  HumanEval/145 sorts by digit sum and
counts a negative number's first digit as negative: the digit sum of the
absolute value, the plain reading of "the sum of their digits", fails 3 of
its 6 tests.  For each construct a description leaves open, the probe runs
the other plausible reading of the reference (``testgen.readings`` makes it
as a small mutation of the reference) on the tests and on the worked
examples, and reports it when

1. the description talks about the construct (it mentions vowels, digits,
   a superlative, positions, the bound's name, rounding, "unique" ...),
2. the reading fails some tests (it runs on all of them: a reading that
   crashes where the reference does not is no reading of this problem, nor
   is an empty input's answer unlike every answer the tests expect: the
   ``[None]`` HumanEval/17 gives without its guard for ``''``),
3. no word of the description (or the function's name) separates the two
   readings ("y", "negative", "first", "inclusive", "empty", ...), and
4. no worked example separates them either, unless the reading is what the
   words plainly say and the reference's rule is the unusual one (the
   absolute digit sum, schoolbook rounding of halves, upper-case vowels):
   then an example that shows the rule does not state it.

Each finding names the reading, the tests it fails with what it gives, and
the words that would settle it; where the words can be added mechanically
(the reading is about a known construct and the reference's side of it is
known), the fix adds them next to the construct: "without consonants
(y counts as a consonant)".
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from benchmorph.data.models import Problem, TestCase
from benchmorph.execution.compare import outputs_match
from benchmorph.testgen.mutants import Mutant
from benchmorph.testgen.readings import OPERATORS, reading_mutants
from benchmorph.validation.audit.base import (
    AuditContext,
    Subject,
    audit_check,
    call_text,
    one_line,
    value_text,
)
from benchmorph.validation.audit.findings import AuditFinding, Evidence, Fix
from benchmorph.validation.audit.fixes import clause_end
from benchmorph.validation.examples.recompute import reference_parameters

CHECK = "alternative-readings"

_TIES = (
    r"\bfirst\b|\blast\b|\bearliest\b|\blatest\b|\bties?\b|\btied\b|\bequal\b|\bsame\b|\bsimilar\b|\bseveral\b"
    r"|\bmultiple\b|\bmore than one\b|\bany\b|\bone of\b|\bsmallest index\b|\blowest index\b|\boriginal\b"
    r"|\bappear\w*|\boccurs? (?:first|last)\b"
)
_BOUNDS = (
    r"\binclusive\w*|\bexclusive\w*|\binclud\w*|\bexclud\w*|\bstrictly\b|\bor equal\b|\bequal to\b|\bat (?:least|most)\b"
    r"|\b(?:less|more|greater|smaller|larger|bigger|fewer|higher|lower|longer|shorter|closer|further|farther|older"
    r"|younger|earlier|later|above|below)\s+th[ae]n\b|\bexceed\w*|\bup to\b|\bthrough\b|\bbelow\b|\babove\b|\bunder\b"
    r"|\bover\b|\bbefore\b|\bafter\b|\buntil\b|\bwithin\b|\bbeyond\b|\bno (?:more|less|fewer)\b|\bnot (?:more|less)\b"
    r"|\bmaximum\b|\bminimum\b|\bmax\b|\bmin\b|<=|>=|<|>|≤|≥|\[|\]|\bfirst\b|\blast\b|\bto\b"
)
_EMPTY = (
    r"\bempty\b|\bno (?:elements?|items?|numbers?|words?|values?|strings?|letters?|characters?|such|digits?|vowels?)\b"
    r"|\bnone\b|\bnull\b|\bzero[- ]length|\bnothing\b|\bif there (?:is|are) no\b|\bdoes(?: not|n't) exist|\bnot exist"
    r"|\blength (?:of )?(?:0|zero)\b|\[\]|''|\"\"|\(\)"
)


@dataclass(frozen=True)
class ReadingWords:
    """What the description must mention for a reading to be about it, and the words that would settle it.

    ``plain``: ``either`` (both readings are natural: a worked example that
    shows the reference's side settles it) or ``reading`` (the other reading
    is what the words plainly say: only words settle it).  ``clarify``: the
    words that state the reference's side, put after the construct's
    mention, keyed by the construct's word (``vowel``/``consonant``), or
    ``*`` for any; None: no mechanical fix.
    """

    anchor: str
    separators: str
    plain: Literal["either", "reading"] = "either"
    clarify: dict[str, str] | None = None
    suggestion: str = ""


_LETTERS = r"\bvowels?\b|\bconsonants?\b"
_Y = r"(?:^|[\s'\"`(])y(?:$|[\s'\"`),.;:])"
# "the vowels (a, e, i, o, u)", "'a', 'e', 'i', 'o', 'u'", "in 'aeiou'": a listed set of vowels without y
# says y is not one.
_VOWELS_LISTED = r"\ba\W{1,5}e\W{1,5}i\W{1,5}o\W{1,5}(?:(?:and|or)\W+)?u\b(?!\W{1,5}y\b)|\baeiou\b"
_SUPERLATIVE = (
    r"\b(?:\w{3,}est|max\w*|min\w*|most|least|best|worst|highest|lowest|biggest|largest|smallest)\b"
)
_POSITIONS = r"\b(?:positions?|places?)\b|\bevery (?:second|other)\s+\w+"
_TYPES = r"\bheterogeneous\b|\bmixed\b|\btypes?\b"

WORDS: dict[str, ReadingWords] = {
    "letters-add-y": ReadingWords(
        _LETTERS,
        _Y + "|" + _VOWELS_LISTED,
        clarify={"vowel": " (y is not a vowel)", "consonant": " (y counts as a consonant)"},
    ),
    "letters-drop-y": ReadingWords(
        _LETTERS, _Y, clarify={"vowel": " (y counts as a vowel)", "consonant": " (y is not a consonant)"}
    ),
    "letters-add-upper": ReadingWords(
        _LETTERS,
        r"\bcase\b|\bupper\w*|\blower\w*|\bcapital\w*|\bsmall letters?\b",
        "reading",
        {"*": " (lower-case only)"},
    ),
    "digits-abs": ReadingWords(
        r"\bdigits?\b",
        r"\bnegative\w*|\bsigned?\b|\babsolute\b|\bminus\b",
        "reading",
        suggestion="say how a negative number's digits count (the reference does not use those of its absolute value)",
    ),
    "tie-last": ReadingWords(_SUPERLATIVE, _TIES, clarify={"*": " (the first one if several tie)"}),
    "tie-later": ReadingWords(_SUPERLATIVE, _TIES, clarify={"*": " (the first one if several tie)"}),
    "tie-earlier": ReadingWords(_SUPERLATIVE, _TIES, clarify={"*": " (the last one if several tie)"}),
    "tie-last-index": ReadingWords(
        r"\b(?:index|indices|position|occurr\w*|occurs?|find|where|location)\b",
        _TIES + r"|\boccurrence\b",
        clarify={"*": " (the first occurrence)"},
    ),
    "tie-first-find": ReadingWords(
        r"\b(?:index|indices|position|occurr\w*|occurs?|find|where|location)\b",
        _TIES + r"|\boccurrence\b",
        clarify={"*": " (the last occurrence)"},
    ),
    "sort-ties-reversed": ReadingWords(
        r"\bsort\w*|\border\w*|\bascending\b|\bdescending\b|\barrange\w*",
        _TIES
        + r"|\bstable\b|\bindex\b|\bthen\b|\bsecondary\b|\bbreak\w* ties\b|\balphabetic\w*|\blexicograph\w*",
        clarify={"*": " (items that tie keep their original order)"},
    ),
    "sort-ties-stable": ReadingWords(
        r"\bsort\w*|\border\w*|\bascending\b|\bdescending\b|\barrange\w*",
        _TIES
        + r"|\bstable\b|\bindex\b|\bthen\b|\bsecondary\b|\bbreak\w* ties\b|\balphabetic\w*|\blexicograph\w*",
        clarify={"*": " (items that tie in reverse of their original order)"},
    ),
    "index-from-1": ReadingWords(
        _POSITIONS,
        r"\bindex\w*|\bindices\b|\b[01]-based|\bzero-based|\bone-based|\b[01]-indexed|\bcount\w* from\b"
        r"|\bstart\w* (?:at|from|with)\b|\bfirst (?:element|item|character|position|letter|digit|one)\b|\bposition [01]\b",
        clarify={"*": " (counting from 0)"},
    ),
    "index-from-0": ReadingWords(
        _POSITIONS,
        r"\bindex\w*|\bindices\b|\b[01]-based|\bzero-based|\bone-based|\b[01]-indexed|\bcount\w* from\b"
        r"|\bstart\w* (?:at|from|with)\b|\bfirst (?:element|item|character|position|letter|digit|one)\b|\bposition [01]\b",
        clarify={"*": " (counting from 1)"},
    ),
    "bound-include": ReadingWords("", _BOUNDS, suggestion="say whether {detail} itself is included"),
    "bound-exclude": ReadingWords("", _BOUNDS, suggestion="say whether {detail} itself is included"),
    "round-half-up": ReadingWords(
        r"\bnearest (?:whole )?(?:integer|number|int)\b|\bround\w*",
        r"\bhalf\b|\bhalves\b|\.5\b|\bbanker\w*|\beven\b|\bround\w* (?:half|up|down|away|toward\w*)\b"
        r"|\baway from zero\b|\btowards? zero\b|\bceil\w*|\bfloor\w*",
        "reading",
        {"*": " (halves round to the even neighbour, as Python's round does)"},
    ),
    "distinct-once": ReadingWords(
        r"\bunique\b|\bnon-repeat\w*",
        r"\bdistinct\b|\bonce\b|\bduplicat\w*|\brepeat\w*|\bmore than one\b|\bexactly one\b|\bonly one\b|\bsingle\b"
        r"|\bdifferent\b|\boccur\w*",
        clarify={"*": " (every distinct value once)"},
    ),
    "once-distinct": ReadingWords(
        r"\bunique\b|\bnon-repeat\w*",
        r"\bdistinct\b|\bonce\b|\bduplicat\w*|\brepeat\w*|\bmore than one\b|\bexactly one\b|\bonly one\b|\bsingle\b"
        r"|\bdifferent\b|\boccur\w*",
        clarify={"*": " (values that occur exactly once)"},
    ),
    "empty-general": ReadingWords("", _EMPTY),
    "number-floats": ReadingWords(
        _TYPES,
        r"\bintegers?\b|\bints?\b|\bwhole numbers?\b|\bfloat\w*|\bdecimal\w*",
        clarify={"*": " (integers only)"},
    ),
    "number-no-bools": ReadingWords(
        _TYPES,
        r"\bbool\w*|\bTrue\b|\bFalse\b",
    ),
}


@dataclass(frozen=True)
class ReadingResult:
    """One reading run on a problem's tests and examples."""

    mutant: Mutant
    failing: list[tuple[TestCase, Any]]  # tests it fails, with what it gives (None where it raised)
    separated_by_example: bool
    broken: bool  # it raised where the reference did not: not a reading of this problem


def _empty(value: Any) -> bool:
    if isinstance(value, str | list | tuple | dict | set):
        return len(value) == 0 or (isinstance(value, list | tuple) and any(_empty(item) for item in value))
    return False


def _kinds(value: Any) -> set[str]:
    """The types of a value's scalar leaves (an empty container contributes nothing)."""
    if isinstance(value, list | tuple | set | frozenset):
        return {kind for item in value for kind in _kinds(item)}
    if isinstance(value, dict):
        return {kind for item in [*value, *value.values()] for kind in _kinds(item)}
    return {type(value).__name__}


def _like_outputs(value: Any, tests: Sequence[TestCase]) -> bool:
    """A value of a type the tests' answers have, made of leaves of types they have: a plausible answer."""
    answers = [test.expected for test in tests if test.has_expected]
    types = {type(answer).__name__ for answer in answers}
    leaves = {kind for answer in answers for kind in _kinds(answer)}
    return type(value).__name__ in types and _kinds(value) <= leaves


def anchor_match(words: ReadingWords, mutant: Mutant, text: str) -> re.Match[str] | None:
    """Where the description mentions the construct the reading is about (None: it does not)."""
    if mutant.operator.startswith("bound-"):
        # Only a range the words leave open: "between a and b" (other bound words are separators).
        name = rf"`?{re.escape(mutant.detail)}`?(?![\w(.])"
        pattern = rf"\bbetween\s+(?:the\s+)?(?:\w+\s+){{0,2}}?{name}|\bbetween\s+\S+\s+and\s+(?:\w+\s+){{0,2}}?{name}"
        return re.search(pattern, text, re.IGNORECASE)
    if not words.anchor:
        return re.search(r"\S", text)
    return re.search(words.anchor, text, re.IGNORECASE)


def run_readings(subjects: Sequence[Subject], engine: Any) -> dict[str, list[ReadingResult]]:
    """Per problem id: every reading mutant the description talks about, run on its tests and examples."""
    planned: list[tuple[Subject, list[Mutant], Problem, int]] = []
    for subject in subjects:
        problem = subject.problem
        if problem.kind != "function" or not subject.runs:
            continue
        chosen = []
        for mutant in reading_mutants(problem.reference, problem.entry_point):
            words = WORDS.get(mutant.operator)
            if words is not None and anchor_match(words, mutant, subject.description):
                chosen.append(mutant)
        if not chosen:
            continue
        inputs = [test.input for test in problem.tests]
        known = {repr(i) for i in inputs}
        extra = []
        for example in subject.scan.examples:
            args = list(example.args)
            if repr(args) not in known:
                known.add(repr(args))
                extra.append(args)
        probe = problem.model_copy(
            update={
                "id": f"{problem.id}#readings",
                "tests": [TestCase(input=args) for args in inputs + extra],
                "contract": None,
            }
        )
        planned.append((subject, chosen, probe, len(inputs)))
    if not planned:
        return {}
    prepared = {p.id: p for p in engine.prepare([probe for _, _, probe, _ in planned]).problems}
    results: dict[str, list[ReadingResult]] = {}
    for subject, chosen, probe, count in planned:
        ready = prepared.get(probe.id)
        if ready is None or len(ready.tests) != len(probe.tests):
            continue  # the reference could not run on an example's input: the examples check says so
        problem = subject.problem
        runs = engine.run_outputs(ready, [mutant.code for mutant in chosen])
        example_keys = {repr(list(e.args)) for e in subject.scan.examples}
        judged = []
        for mutant, run in zip(chosen, runs, strict=True):
            failing: list[tuple[TestCase, Any]] = []
            separated = False
            broken = run.error is not None
            for index, test in enumerate(ready.tests):
                same = run.ok[index] and outputs_match(
                    problem.kind, test.expected, run.outputs[index], problem.atol, problem.strict_sequences
                )
                if same:
                    continue
                if not run.ok[index]:
                    broken = True
                    break
                if mutant.operator == "empty-general" and not _like_outputs(run.outputs[index], ready.tests):
                    # parse_music('') giving [None] is the guard's absence, not a reading of the words.
                    broken = True
                    break
                if repr(test.input) in example_keys:
                    separated = True
                if index < count:
                    failing.append((problem.tests[index], run.outputs[index] if run.ok[index] else None))
            judged.append(ReadingResult(mutant, failing, separated, broken))
        results[problem.id] = judged
    return results


def _changed_line(reference: str, mutant: Mutant) -> str:
    """The reference's line the reading changes, and how (``-`` old / ``+`` new)."""
    import ast

    try:
        old = ast.unparse(ast.parse(reference)).splitlines()
    except SyntaxError:
        return ""
    new = mutant.code.splitlines()
    removed = [line.strip() for line in difflib.ndiff(old, new) if line.startswith("- ")]
    added = [line.strip() for line in difflib.ndiff(old, new) if line.startswith("+ ")]
    if not removed and not added:
        return ""
    return one_line(f"{' / '.join(removed[:2]) or '-'}  ->  {' / '.join(added[:2]) or '(removed)'}", 200)


def _fix(
    subject: Subject, mutant: Mutant, words: ReadingWords, failing: list[tuple[TestCase, Any]]
) -> Fix | None:
    problem = subject.problem
    prose = subject.prose
    suggestion = words.suggestion.format(detail=mutant.detail)
    if mutant.operator == "empty-general":
        empty = next((test for test, _ in failing if _empty(test.input)), None)
        if empty is None or problem.kind != "function":
            return Fix(suggestion or "say what the empty input gives", mechanical=False)
        sentence = re.search(r"[.!?](?=\s)", prose)
        params = reference_parameters(problem) or []
        names = [n for n, v in zip(params, empty.input, strict=False) if _empty(v)]
        if sentence is None or not names:
            return Fix(f"say that an empty input gives {value_text(empty.expected)}", mechanical=False)
        text = f" If {names[0]} is empty, return {empty.expected!r}."
        at = sentence.end()
        return Fix(f"add {text.strip()!r} after the first sentence", at, at, text, True)
    if words.clarify is None:
        return (
            Fix(suggestion or f"say whether {OPERATORS[mutant.operator]}", mechanical=False)
            if suggestion
            else None
        )
    anchor = anchor_match(words, mutant, prose)
    if anchor is None or problem.kind != "function":
        return None
    word = anchor.group(0).lower()
    key = "consonant" if "consonant" in word else "vowel" if "vowel" in word else "*"
    clarification = words.clarify.get(key) or words.clarify.get("*")
    if clarification is None:
        return None
    text = clarification
    at = anchor.end()
    if not mutant.operator.startswith(("letters-", "index-")):
        # After the clause, not inside it: "the item with maximum frequency in a list (the first one if ...)".
        at = clause_end(prose, anchor.end())
    where = one_line(problem.prompt[max(anchor.start(), at - 40) : at], 40)
    return Fix(f"add {text.strip()!r} after {where!r}", at, at, text, True)


def reading_findings(subjects: Sequence[Subject], engine: Any) -> list[AuditFinding]:
    """The confirmed unstated rules of each problem (see the module docstring), one per reading operator."""
    found = []
    every = run_readings(subjects, engine)
    for subject in subjects:
        results = every.get(subject.id, [])
        problem = subject.problem
        seen: set[str] = set()
        for result in results:
            mutant = result.mutant
            words = WORDS[mutant.operator]
            if result.broken or not result.failing or mutant.operator in seen:
                continue
            if re.search(words.separators, subject.words, re.IGNORECASE):
                continue
            if result.separated_by_example and words.plain == "either":
                continue
            seen.add(mutant.operator)
            says = OPERATORS[mutant.operator]
            shown = (
                " (only a worked example shows the reference's rule)" if result.separated_by_example else ""
            )
            summary = (
                f"unstated rule: nothing in the description says whether {says}, and that reading fails "
                f"{len(result.failing)} of {len(problem.tests)} tests{shown}"
            )
            evidence = [Evidence("reading", f"{says}: {_changed_line(problem.reference, mutant)}")]
            for test, got in result.failing[:3]:
                gives = "raises" if got is None else f"gives {value_text(got)}"
                evidence.append(
                    Evidence(
                        "test",
                        f"{call_text(problem, test.input)} expects {value_text(test.expected)}; the reading {gives}",
                    )
                )
            found.append(
                AuditFinding(
                    problem.id,
                    CHECK,
                    "ambiguous",
                    summary,
                    f"{CHECK}:{mutant.operator}",
                    tuple(evidence),
                    _fix(subject, mutant, words, result.failing),
                )
            )
    return found


@audit_check(CHECK, severities={"ambiguous"}, inherited=True, version=3)
def alternative_readings(subjects: Sequence[Subject], ctx: AuditContext) -> list[AuditFinding]:
    """Readings of the reference the description does not rule out that fail some of its tests."""
    return reading_findings(subjects, ctx.engine)
