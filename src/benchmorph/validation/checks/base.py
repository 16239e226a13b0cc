"""Quality checks a variant must pass before anyone sees it: small named functions, one concern each.

Execution proves a variant's reference runs; it does not prove that a careful
reader of the new description would write that reference.  Each check here
looks for one way a variant can be valid by execution and still wrong or
useless as a task, and says so in one line.  ``finalize_variants`` runs them
all and records the first finding's check name and reason on the candidate.

A check returns ``None`` (nothing to say) or a ``Finding``: ``reject`` drops
the variant, ``review`` holds it for a person (kept out of the default output).
"""

from __future__ import annotations

import ast
import json
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from benchmorph.data import values
from benchmorph.data.models import Problem, TestCase, Variant
from benchmorph.execution.compare import outputs_match
from benchmorph.validation import edits

Severity = Literal["reject", "review"]


@dataclass(frozen=True)
class Edit:
    """What a rule-based transform changed: one span of the description and one of the code.

    Offsets are into the parent's prompt and the parent's reference; the
    structure, contrast and tie checks read them.  LLM transforms have none.
    """

    family: str  # rule family: extreme, order, parity, position, affix, case, sign, strict, aggregate, count,
    # power, compare, charclass, side, quantifier
    rule: str
    old_text: str
    new_text: str
    text_span: tuple[int, int]
    old_code: str
    new_code: str
    code_span: tuple[int, int]


@dataclass(frozen=True)
class Finding:
    check: str
    reason: str
    severity: Severity = "reject"


@dataclass
class CheckInput:
    """Everything a check may read about one candidate, after its outputs and examples were recomputed."""

    variant: Variant  # tests carry the variant's outputs; examples rewritten
    parent: Problem  # tests carry the parent's outputs
    edit: Edit | None = None
    example_outputs: tuple[list[Any], list[Any]] | None = None  # (parent's, variant's) example values
    extra: dict[str, Any] = field(default_factory=dict)

    def paired_outputs(self) -> list[tuple[Any, Any, Any]]:
        """(input, parent output, variant output) for every inherited input both have an output for."""
        parent_out = {_key(test.input): test.expected for test in self.parent.tests if test.has_expected}
        return [
            (test.input, parent_out[_key(test.input)], test.expected)
            for test in self.variant.tests
            if test.has_expected and _key(test.input) in parent_out
        ]


Check = Callable[[CheckInput], "Finding | None"]
CHECKS: dict[str, Check] = {}


def quality_check(name: str) -> Callable[[Check], Check]:
    """Register a check under ``name``; checks run in registration order."""

    def register(function: Check) -> Check:
        CHECKS[name] = function
        function.check_name = name  # type: ignore[attr-defined]
        return function

    return register


def run_checks(item: CheckInput, names: Sequence[str] | None = None) -> list[Finding]:
    """Every finding of the named checks (all registered ones by default), in order."""
    found = []
    for name in names if names is not None else list(CHECKS):
        finding = CHECKS[name](item)
        if finding is not None:
            found.append(finding)
    return found


def _key(value: Any) -> str:
    return json.dumps(values.encode(value), sort_keys=True)


def _same(a: Any, b: Any, problem: Problem) -> bool:
    return outputs_match(problem.kind, a, b, problem.atol, problem.strict_sequences)


def changed_fraction(item: CheckInput) -> float:
    """Share of inherited inputs whose output differs between parent and variant."""
    pairs = item.paired_outputs()
    if not pairs:
        return 0.0
    return sum(1 for _, old, new in pairs if not _same(old, new, item.variant)) / len(pairs)


def constant_outputs(tests: Sequence[TestCase], at_least: int = 3) -> bool:
    """At least ``at_least`` tests with outputs, all one value: no task (a constant function solves it)."""
    outputs = {_key(test.expected) for test in tests if test.has_expected}
    return len([t for t in tests if t.has_expected]) >= at_least and len(outputs) == 1


@quality_check("degenerate-outputs")
def degenerate_outputs(item: CheckInput) -> Finding | None:
    """The same answer for every input is no task, unless the parent was like that too."""
    if constant_outputs(item.variant.tests) and not constant_outputs(item.parent.tests):
        return Finding("degenerate-outputs", "the reference gives the same output for every input")
    return None


# --- Contrast in the text: the new word must read right against the rest of its sentence ---------------
#
# A rule edit moves one word to the other side of its family ("maximum" ->
# "minimum").  Where the sentence already holds that side ("start with the
# minimum value, then maximum ..."), the edit writes "X and X" or "A if odd,
# B if odd": the rule does not apply.  Where the family shows up elsewhere in
# the description, the contrast may be legitimate ("smallest ... largest"),
# so a person decides.


def _edit_context(item: CheckInput) -> tuple[str, int, int, int, int] | None:
    """(description prose of the parent, edit start, edit end, sentence start, sentence end)."""
    edit = item.edit
    if edit is None:
        return None
    text = edits.description(item.parent.prompt, item.parent.entry_point)
    start, end = edit.text_span
    left, right = edits.sentence_bounds(text, start, end)
    return text, start, end, left, right


def _quote(text: str, limit: int = 70) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def _new_sentence(item: CheckInput, context: tuple[str, int, int, int, int], reach: int = 45) -> str:
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


def _edit_in_family(
    item: CheckInput,
) -> tuple[tuple[str, int, int, int, int], tuple[tuple[str, ...], tuple[str, ...]]] | None:
    """The edit's sentence context and its family's (old side, new side) words; None where either is missing."""
    context = _edit_context(item)
    if context is None or item.edit is None:
        return None
    family = edits.sides(item.edit.family, item.edit.old_text, item.edit.new_text)
    return None if family is None else (context, family)


@quality_check("word-in-sentence")
def word_in_sentence(item: CheckInput) -> Finding | None:
    """The new word (or a word of its side) already in the edited sentence: "both last and last digits"."""
    found = _edit_in_family(item)
    if found is None:
        return None
    context, family = found
    text, start, end, left, right = context
    _, new_side = family
    for piece in (text[left:start], text[end:right]):
        hits = edits.word_spans(piece, new_side)
        if hits:
            sentence = _new_sentence(item, context)
            return Finding(
                "word-in-sentence",
                f"the sentence already says '{hits[0][2]}': '{_quote(sentence)}'",
            )
    return None


@quality_check("word-elsewhere")
def word_elsewhere(item: CheckInput) -> Finding | None:
    """The edited family elsewhere in the description: a contrast that may or may not still read right."""
    found = _edit_in_family(item)
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


@quality_check("word-grammar")
def word_grammar(item: CheckInput) -> Finding | None:
    """The new word must read as English where it stands: no "start with a suffix", no "to product"."""
    context = _edit_context(item)
    if context is None or item.edit is None:
        return None
    text, start, end, left, right = context
    edit = item.edit
    new = edit.new_text.lower()
    sentence = _new_sentence(item, context)
    clashes = _COLLOCATION_CLASHES.get(new, ())
    hits = edits.word_spans(text[left:start] + " " + text[end:right], clashes) if clashes else []
    if hits:
        return Finding(
            "word-grammar", f"'{hits[0][2]} ... {edit.new_text}' does not read: '{_quote(sentence)}'"
        )
    if edit.family == "aggregate":
        verbs = _OLD_OPERATION.get(edit.old_text.lower())
        clash = verbs.search(text[left:start] + " " + text[end:right]) if verbs else None
        if clash:
            return Finding(
                "word-grammar",
                f"the sentence still says '{clash.group(0)}' after '{edit.old_text}' became "
                f"'{edit.new_text}': '{_quote(sentence)}'",
            )
        before = text[left:start]
        verb = _VERB_BEFORE.search(before) or re.match(r"\s+up\b", text[end:])
        if verb and not re.match(r"\s+of\b", text[end:]):
            return Finding(
                "word-grammar",
                f"'{edit.old_text}' is a verb here, so '{edit.new_text}' does not read: '{_quote(sentence)}'",
            )
    if edit.family == "position":
        after = text[end:right].lstrip(" \t")
        if not after or after[0] in ",.;:)!?\n":
            return Finding(
                "word-grammar",
                f"'{edit.old_text}' is an adverb (an order of steps), not a position: '{_quote(sentence)}'",
            )
    return None


@quality_check("position-is-a-name")
def position_is_a_name(item: CheckInput) -> Finding | None:
    """In "the first list has ..., and the second list ..." the word names a parameter, not a position."""
    context = _edit_context(item)
    if context is None or item.edit is None or item.edit.family != "position":
        return None
    text, start, end, left, right = context
    sentence = _new_sentence(item, context)
    ordinal = edits.ordinal_in(text[left:start] + " " + text[end:right])
    if ordinal:
        return Finding(
            "position-is-a-name",
            f"'{item.edit.old_text}' enumerates with '{ordinal}', it is not a position: '{_quote(sentence)}'",
        )
    if edits.names_a_parameter(text, end):
        return Finding(
            "position-is-a-name", f"'{item.edit.old_text}' names a parameter: '{_quote(sentence)}'"
        )
    return None


# --- Code structure: the edit must hit the one construct the description talks about -------------------

_CONSTRUCT_NAMES = {
    "extreme": "min/max calls",
    "order": "sorts or reversals",
    "parity": "parity tests",
    "position": "first/last indexings",
    "affix": "startswith/endswith calls",
    "case": "case conversions or tests",
    "sign": "comparisons with 0",
    "aggregate": "sum/product calls",
    "power": "powers",
    "compare": "order comparisons",
    "charclass": "character-class tests",
    "side": "bisect calls",
    "quantifier": "all/any calls",
}


@quality_check("one-construct")
def one_construct(item: CheckInput) -> Finding | None:
    """The reference holds one construct of the edit's kind, and nothing else that still encodes the old property."""
    edit = item.edit
    if edit is None or edit.family not in _CONSTRUCT_NAMES:
        return None
    tree = edits.parse(item.parent.reference)
    if tree is None:
        return None
    found = edits.constructs(tree, edit.family, edit.old_text)
    if len(found) > 1:
        shown = ", ".join(dict.fromkeys(_quote(ast.unparse(node), 30) for node in found[:3]))
        return Finding(
            "one-construct",
            f"the reference has {len(found)} {_CONSTRUCT_NAMES[edit.family]} ({shown}): the edit may hit the wrong one",
        )
    reference, span = item.parent.reference, edit.code_span
    if edit.family == "parity":
        bounds = edits.clamps(tree)
        if bounds:
            return Finding(
                "one-construct",
                f"the reference clamps to {', '.join(map(str, bounds))}, which still encodes '{edit.old_text}'",
            )
        context = _edit_context(item)
        sentence = context[0][context[3] : context[4]] if context else ""
        quantifier = edits.in_quantifier(tree, reference, span)
        if quantifier and not _QUANTIFIED.search(sentence):
            return Finding(
                "one-construct",
                f"the parity test sits in {quantifier}(), but the text's '{edit.old_text}' describes the whole "
                "(the product of numbers is odd only if all are): flipping the test is not the counterpart",
            )
        parameter = edits.tested_parameter(tree, reference, span, item.parent.entry_point)
        if parameter and context and _PLURAL_AFTER.match(context[0], context[2]):
            return Finding(
                "one-construct",
                f"the code tests the parity of the input '{parameter}', but the text's "
                f"'{edit.old_text}' describes other numbers: '{_quote(sentence)}'",
            )
    if edit.family == "aggregate" and edit.old_text.lower() == "sum" and edits.returns_constant(tree, 0):
        return Finding(
            "one-construct",
            "the reference returns 0 for a case it treats as empty: the empty sum, not the empty product (1)",
        )
    if edit.family == "extreme":
        start = edits.constant_start(tree, reference, span)
        if start is not None:
            return Finding(
                "one-construct",
                f"the running extreme starts at {start}, which encodes the old direction",
            )
    if edit.family == "position":
        indexed = edits.innermost(item.parent.reference, tree, edit.code_span, ast.Subscript)
        if isinstance(indexed, ast.Subscript) and edits.sorts(indexed.value):
            return Finding(
                "one-construct",
                f"'{_quote(ast.unparse(indexed), 40)}' takes an end of a sorted order: the sort key, "
                "not the word, decides what first/last means",
            )
    if edit.family == "extreme" and edits.in_recurrence(item.parent.reference, tree, edit.code_span):
        return Finding(
            "one-construct",
            f"'{_quote(edit.old_code)}' sits in a recurrence over a table: swapping it does not compute the opposite",
        )
    return None


_QUANTIFIED = re.compile(r"\b(?:any|all|every|each|no|none|only)\b|n't", re.IGNORECASE)
_PLURAL_AFTER = re.compile(
    r"\s+(?:\w+\s+)?(?:numbers|integers|digits|elements|values|items|terms)\b", re.IGNORECASE
)


@quality_check("identical-branches")
def identical_branches(item: CheckInput) -> Finding | None:
    """The edit made two sides of a branch or an operator the same code: ``min(x) if c else min(x)``."""
    if item.edit is None:
        return None
    before, after = edits.parse(item.parent.reference), edits.parse(item.variant.reference)
    if before is None or after is None:
        return None
    new = {
        dump: code
        for dump, code in edits.degenerate_parts(after).items()
        if dump not in edits.degenerate_parts(before)
    }
    if new:
        return Finding(
            "identical-branches", f"the edit made both sides the same: {_quote(next(iter(new.values())))}"
        )
    return None


_REMOVAL = re.compile(
    r"\b(?:remove[sd]?|delet(?:e|es|ed)|without|exclud(?:e|es|ed)|strip|drop)\b", re.IGNORECASE
)


@quality_check("complement-class")
def complement_class(item: CheckInput) -> Finding | None:
    """ "Remove uppercase" coded as "keep lowercase" flips to "remove lowercase" coded as "keep uppercase".

    The two are the same only on letters: a digit or a "%" is neither case, so
    on inputs that hold one the flipped reference keeps what its text says to
    keep only by accident of the parent's wording.
    """
    edit = item.edit
    if edit is None or edit.family != "case" or not re.search(r"\.is(?:upper|lower)\(\)", edit.old_code):
        return None
    context = _edit_context(item)
    if context is None or not _REMOVAL.search(context[0][context[3] : context[4]]):
        return None
    for test in item.variant.tests:
        for value in _flat(test.input):
            if isinstance(value, str):
                odd = [ch for ch in value if not ch.isupper() and not ch.islower() and not ch.isspace()]
                if odd:
                    return Finding(
                        "complement-class",
                        f"the text removes one case but the code keeps the other: they differ on {odd[0]!r}, "
                        f"which the input {_short(value)} holds",
                    )
    return None


_OLD_ARITHMETIC = {"aggregate": re.compile(r"\d\s*\+\s*\d")}


@quality_check("stale-comment")
def stale_comment(item: CheckInput) -> Finding | None:
    """A comment or explanation that still argues for the old property (HumanEval/72's "# 3+2+3 is less ...")."""
    edit = item.edit
    if edit is None:
        return None
    family = edits.sides(edit.family, edit.old_text, edit.new_text)
    reference, prompt = item.variant.reference, item.variant.prompt
    at = reference.find(prompt) if prompt.strip() else -1
    if family is not None:
        for offset, comment in edits.comments(reference):
            if at <= offset < at + len(prompt):
                continue  # the prompt's own comments are description, checked as such
            hits = edits.word_spans(comment, family[0])
            if hits:
                return Finding(
                    "stale-comment",
                    f"a comment in the reference still says '{hits[0][2]}': {_quote(comment)}",
                )
    arithmetic = _OLD_ARITHMETIC.get(edit.family)
    text = edits.description(item.variant.prompt, item.variant.entry_point)
    explanations = _explanations(item.variant.prompt, item.variant.entry_point)
    if arithmetic is not None:
        comments = [line for line in item.variant.prompt.splitlines() if line.strip().startswith("#")]
        for line in [*text.splitlines(), *comments, *(line for _, line in explanations)]:
            if arithmetic.search(line):
                return Finding(
                    "stale-comment",
                    f"the description still works the old way ('{edit.old_text}'): {_quote(line)}",
                )
    changed = _changed_examples(item)
    for example, line in explanations:
        if example in changed:
            return Finding(
                "stale-comment",
                f"the explanation under an example whose value changed was not rewritten: {_quote(line)}",
            )
    return None


_EXPLANATION = re.compile(r"^\s*(?:#|explanation\b|because\b|since\b)", re.IGNORECASE)


def _example_blocks(prompt: str, entry_point: str) -> list[tuple[str, list[str]]]:
    """Each worked example as (its call and value text, the explanation lines under it)."""
    call = re.compile(rf"(?<![\w.]){re.escape(entry_point)}\s*\(") if entry_point else None
    blocks: list[tuple[str, list[str]]] = []
    lines = prompt.splitlines()
    number = 0
    while call is not None and number < len(lines):
        line = lines[number]
        if not call.search(line) or line.lstrip().startswith("def "):
            number += 1
            continue
        shown = line.strip()
        number += 1
        if shown.startswith(">>>") and number < len(lines) and lines[number].strip():
            if not call.search(lines[number]) and not _EXPLANATION.match(lines[number]):
                shown += " / " + lines[number].strip()  # the doctest's value line
                number += 1
        notes = []
        while number < len(lines) and _EXPLANATION.match(lines[number]):
            notes.append(lines[number].strip())
            number += 1
        blocks.append((shown, notes))
    return blocks


def _explanations(prompt: str, entry_point: str) -> list[tuple[int, str]]:
    """(index of the example, line) for each explanation line under a worked example ("# 3+2+3 is ...")."""
    return [
        (index, note)
        for index, (_, notes) in enumerate(_example_blocks(prompt, entry_point))
        for note in notes
    ]


def _changed_examples(item: CheckInput) -> set[int]:
    """Indexes of the worked examples whose text (call and claimed value) differs between parent and variant."""
    before = [shown for shown, _ in _example_blocks(item.parent.prompt, item.parent.entry_point)]
    after = [shown for shown, _ in _example_blocks(item.variant.prompt, item.variant.entry_point)]
    if len(before) != len(after):
        return set(range(len(after)))
    return {
        index
        for index, (old, new) in enumerate(zip(before, after, strict=True))
        if " ".join(old.split()) != " ".join(new.split())
    }


# --- Output statistics against the parent, on the inherited inputs -----------------------------------
#
# A counterfactual must change what the function computes on a fair share of
# the inputs, and must not collapse into something trivial (zeros, one value,
# the input handed back).  Each figure compares the variant with its parent,
# so a parent that was already like that does not count against it.


def _flat(value: Any) -> list[Any]:
    if isinstance(value, list | tuple | set | frozenset):
        return [leaf for item in value for leaf in _flat(item)]
    if isinstance(value, dict):
        return [leaf for item in value.values() for leaf in _flat(item)]
    return [value]


def _top_share(outputs: Sequence[Any]) -> tuple[float, Any]:
    counts = Counter(_key(output) for output in outputs)
    key, count = counts.most_common(1)[0]
    value = next(output for output in outputs if _key(output) == key)
    return count / len(outputs), value


def _short(value: Any, limit: int = 30) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


@quality_check("few-changes")
def few_changes(item: CheckInput) -> Finding | None:
    """A counterfactual that changes fewer than 20% of the outputs tests almost nothing new."""
    pairs = item.paired_outputs()
    if not pairs:
        return None
    changed = sum(1 for _, old, new in pairs if not _same(old, new, item.variant))
    if 0 < changed < 0.2 * len(pairs):  # 0: a meaning-preserving variant, which keeps every output
        return Finding(
            "few-changes",
            f"only {changed / len(pairs):.0%} of outputs changed ({changed} of {len(pairs)}; needs 20%)",
        )
    return None


@quality_check("dominant-output")
def dominant_output(item: CheckInput) -> Finding | None:
    """One answer for 80% or more of the tests, where the parent's most common answer was far rarer."""
    pairs = item.paired_outputs()
    if len(pairs) < 5:
        return None
    new_share, value = _top_share([new for _, _, new in pairs])
    old_share, _ = _top_share([old for _, old, _ in pairs])
    if new_share >= 0.8 and old_share <= new_share - 0.25:
        return Finding(
            "dominant-output",
            f"one output ({_short(value)}) covers {new_share:.0%} of the tests; the parent's most common "
            f"covered {old_share:.0%}",
        )
    return None


@quality_check("fewer-distinct")
def fewer_distinct(item: CheckInput) -> Finding | None:
    """Far fewer distinct answers than the parent: the variant lost most of the problem."""
    pairs = item.paired_outputs()
    if not pairs:
        return None
    new = len({_key(output) for _, _, output in pairs})
    old = len({_key(output) for _, output, _ in pairs})
    if new < 0.3 * old:
        return Finding(
            "fewer-distinct",
            f"{new} distinct outputs against the parent's {old} (needs at least 0.3x: {0.3 * old:.1f})",
        )
    return None


@quality_check("uniform-elements")
def uniform_elements(item: CheckInput) -> Finding | None:
    """Every element of every output the same value (``[0, 0, 0]``, ``[0]``), where the parent's varied."""
    pairs = item.paired_outputs()
    new = [leaf for _, _, output in pairs for leaf in _flat(output)]
    old = [leaf for _, output, _ in pairs for leaf in _flat(output)]
    if len(new) >= 3 and len({_key(leaf) for leaf in new}) == 1 and len({_key(leaf) for leaf in old}) > 1:
        return Finding(
            "uniform-elements", f"every element of every output is {_short(new[0])} ({len(new)} elements)"
        )
    return None


_ECHOES: dict[str, Callable[[Any], Any]] = {
    "the input": lambda seq: list(seq),
    "the input sorted": lambda seq: sorted(seq),
    "the input reversed": lambda seq: list(seq)[::-1],
    "the input sorted in reverse": lambda seq: sorted(seq, reverse=True),
}


def _echo(pairs: list[tuple[Any, Any, Any]], which: int) -> str | None:
    """Which echo of an argument (itself, sorted, reversed) every test's output is, if any."""
    if len(pairs) < 3:
        return None
    for position in range(min(len(pair[0]) for pair in pairs)):
        for name, make in _ECHOES.items():
            try:
                if all(
                    isinstance(pair[0], list)
                    and isinstance(pair[0][position], list | tuple | str)
                    and type(pair[which]) is type(pair[0][position])
                    and _as_seq(pair[which]) == make(pair[0][position])
                    for pair in pairs
                ):
                    return name
            except TypeError:  # unorderable items
                continue
    return None


def _as_seq(value: Any) -> list[Any]:
    return list(value)


@quality_check("echoes-input")
def echoes_input(item: CheckInput) -> Finding | None:
    """The output is the input, sorted or reversed, on every test, where the parent's was not."""
    pairs = [pair for pair in item.paired_outputs() if isinstance(pair[0], list) and pair[0]]
    if len(pairs) != len(item.paired_outputs()):
        return None
    echo = _echo(pairs, 2)
    if echo is not None and _echo(pairs, 1) is None:
        return Finding(
            "echoes-input", f"the output is {echo} on every test ({len(pairs)}); the parent's was not"
        )
    return None


# --- A program that ignores the task must not pass -------------------------------------------------


def _baselines(arguments: Any) -> dict[str, Any]:
    """What a few programs that ignore the task would answer on one test's arguments (no code is run)."""
    answers: dict[str, Any] = {}
    if not isinstance(arguments, (list, tuple)) or not arguments:
        return answers
    first = arguments[0]
    answers["the first argument unchanged"] = first
    if isinstance(first, (list, tuple, str)):  # ``xs[0] if xs else None``
        answers["the first item of the first argument"] = first[0] if first else None
        answers["the last item of the first argument"] = first[-1] if first else None
    return answers


@quality_check("trivial-baseline")
def trivial_baseline(item: CheckInput) -> Finding | None:
    """Tests a program that ignores the description passes (``return xs[0]``) cannot tell who read it.

    Only blamed on the variant when the same program fails the parent's tests:
    the edit is what made the tests too weak (HumanEval/12's "shortest", whose
    three tests all expect the first string).
    """
    pairs = item.paired_outputs()
    if len(pairs) < 2:
        return None
    names = set.intersection(*(set(_baselines(arguments)) for arguments, _, _ in pairs))
    for name in sorted(names):
        try:
            passes_variant = all(_same(_baselines(a)[name], new, item.variant) for a, _, new in pairs)
            passes_parent = all(_same(_baselines(a)[name], old, item.parent) for a, old, _ in pairs)
        except Exception:  # noqa: BLE001 - a comparison that cannot be made is no evidence
            continue
        if passes_variant and not passes_parent:
            return Finding(
                "trivial-baseline",
                f"returning {name} passes all {len(pairs)} tests of the variant (not the parent's): "
                "the tests cannot tell a solution from one that ignores the description",
            )
    return None


# --- Ties: which of several equal candidates a min/max or a sort returns ---------------------------------

_SAYS_WHICH = re.compile(
    r"\b(?:first|last|earliest|latest)\s+(?:one|occurrence|such|of them|encountered|found|appearing)\b"
    r"|\b(?:appears?|occurs?|comes?)\s+(?:first|last|earlier|later)\b"
    r"|\bin case of (?:a )?ties?\b|\bties?\b|\bif (?:there are )?(?:multiple|several|more than one)\b"
    r"|\boriginal order\b|\bsame order\b|\bstable\b|\bsmallest index\b|\blowest index\b",
    re.IGNORECASE,
)


def says_which_wins(problem: Problem) -> bool:
    """The description states a tie-break ("the first one", "if several ...")."""
    return bool(_SAYS_WHICH.search(edits.description(problem.prompt, problem.entry_point)))


@quality_check("ties")
def ties(item: CheckInput) -> Finding | None:
    """Many more tests where several values tie at the new extreme, and the description does not say which wins.

    The transform measures the ties by running both references with the edited
    call instrumented (``extra["ties"]``: tests with a tie for parent and variant).
    """
    counts = item.extra.get("ties")
    if not counts or item.edit is None:
        return None
    total, old, new = counts["tests"], counts["parent"], counts["variant"]
    # Absolute as well as against the parent: a parent that was already ambiguous about ties
    # (MBPP's "sublist having minimum length") does not make its variant publishable.
    if total == 0 or new < max(2, 0.05 * total):
        return None
    if says_which_wins(item.variant):
        return None
    return Finding(
        "ties",
        f"{new} of {total} tests tie at the new extreme (the parent: {old}) and the description "
        "does not say which one to return",
        "review",
    )


# ---- worked examples


@quality_check("examples")
def examples_read(item: CheckInput) -> Finding | None:
    """A function problem whose parent shows worked examples must show them all, read and recomputed.

    ``finalize_variants`` already rejects a variant whose examples cannot be
    recomputed; this check holds the same line for any caller of the checks:
    an unreadable example, or a parent with examples and a variant with none
    read (a scan that finds nothing must not pass silently).
    """
    from benchmorph.validation.examples.recompute import scan_problem

    if item.variant.kind != "function":
        return None
    scan = scan_problem(item.variant)
    if scan.unverifiable:
        return Finding("examples", f"an example cannot be recomputed: {scan.unverifiable[0][:100]!r}")
    if scan.has_examples and not scan.examples:
        return Finding("examples", "the description shows examples but none of them could be read")
    parent = scan_problem(item.parent)
    if parent.has_examples and not scan.examples:
        return Finding(
            "examples", "the parent's description shows examples, the variant's none that can be read"
        )
    if item.edit is not None and len(parent.examples) != len(scan.examples):
        # A rule edits prose only: an example gained or lost means the edit reached into one.
        return Finding(
            "examples", f"the parent shows {len(parent.examples)} examples, the variant {len(scan.examples)}"
        )
    return None


@quality_check("examples-show-change")
def examples_show_change(item: CheckInput) -> Finding | None:
    """Tests change but no worked example does: the description never shows the reader the new behaviour.

    A reader who checks an answer against the examples cannot tell the
    variant from its parent, and a model that ignores the change passes
    them all.  Held for review, not rejected: the variant is still correct.
    A parent without examples has nothing to show, so nothing is flagged.
    """
    from benchmorph.validation.examples.scan import same_value

    if item.example_outputs is None:
        return None
    before, after = item.example_outputs
    if not before or len(before) != len(after) or changed_fraction(item) == 0.0:
        return None
    if any(not same_value(old, new) for old, new in zip(before, after, strict=True)):
        return None
    return Finding(
        "examples-show-change",
        f"the tests' outputs change but none of the {len(before)} examples' outputs does",
        "review",
    )


# The identity of each aggregate: an item equal to it leaves the result as it was.
AGGREGATE_IDENTITY = {"sum": 0, "product": 1}


@quality_check("examples-hide-items")
def examples_hide_items(item: CheckInput) -> Finding | None:
    """Every example's output hinged on an item the new aggregate ignores: it cannot show which items count.

    "The sum of non-repeated elements of [1,2,3,1,1,4,5,6] is 21" told a
    reader that "non-repeated" means distinct (those occurring once give 20).
    As a product the 1s vanish: 720 either way, and the wording is ambiguous
    again.  The miner measures, per example, whether the parent's output
    depended on an item equal to the new identity (``extra["hidden_items"]``);
    when every example did, the variant is held for review: it may be right,
    its examples no longer show it.
    """
    edit = item.edit
    hidden = item.extra.get("hidden_items")
    if edit is None or not hidden or not all(hidden):
        return None
    identity = AGGREGATE_IDENTITY.get(edit.new_text.lower())
    return Finding(
        "examples-hide-items",
        f"every example's output depended on an item equal to {identity}, which a {edit.new_text.lower()} "
        "ignores: the examples no longer show which items count",
        "review",
    )


@quality_check("aggregate-reading")
def aggregate_reading(item: CheckInput) -> Finding | None:
    """A sum/product edit the wording reads two ways: under "absolute", or with an unstated empty answer.

    ``abs`` distributes over a product but not over a sum: "the maximum
    absolute product" has one reading, "the maximum absolute sum" two
    (``abs(x + y)`` or ``abs(x) + abs(y)``).  And a product over nothing is 1
    where the sum was 0: when the tests reach that case and no worked example
    shows it, a reader cannot tell what the empty case returns.  Held for
    review, as the variant may still be right.
    """
    edit = item.edit
    if edit is None or edit.family != "aggregate":
        return None
    context = _edit_context(item)
    sentence = context[0][context[3] : context[4]] if context else ""
    tree = edits.parse(item.parent.reference)
    uses_abs = tree is not None and any(
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "abs"
        for node in ast.walk(tree)
    )
    if re.search(r"\babsolute\b", sentence, re.IGNORECASE) or (
        uses_abs and re.search(r"\babs", edit.old_code + edit.new_code)
    ):
        return Finding(
            "aggregate-reading",
            f"'absolute {edit.new_text.lower()}' reads two ways (of the {edit.new_text.lower()}, or of each item)",
            "review",
        )
    new_identity = AGGREGATE_IDENTITY.get(edit.new_text.lower())
    old_identity = AGGREGATE_IDENTITY.get(edit.old_text.lower())
    if new_identity is None or old_identity is None:
        return None
    empties = [
        1
        for _, before, after in item.paired_outputs()
        if _is_number(before) and _is_number(after) and before == old_identity and after == new_identity
    ]
    shown = item.example_outputs[1] if item.example_outputs else []
    if empties and not any(_is_number(value) and value == new_identity for value in shown):
        return Finding(
            "aggregate-reading",
            f"{len(empties)} tests expect {new_identity} where the {edit.old_text.lower()} was {old_identity} "
            "(nothing to combine), and no example shows that case",
            "review",
        )
    return None


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


@quality_check("tests-lost-power")
def tests_lost_power(item: CheckInput) -> Finding | None:
    """A near miss of the new reference passes every test, its twin failed the parent's, and it was not looked for.

    ``finalize_variants`` runs the probe (``validation.lost_power``) on
    variants that passed every other check and adds the inputs it finds.
    Near misses that many valid new inputs do not separate are most likely
    equivalent and only recorded; ``extra["lost_power"]`` holds the ones
    that too few valid inputs could be made to look for.
    """
    uncaught = item.extra.get("lost_power")
    if not uncaught:
        return None
    return Finding(
        "tests-lost-power",
        f"{len(uncaught)} near misses of the reference ({', '.join(uncaught[:3])}) pass every test, the parent's "
        "tests caught them, and too few valid new inputs could be made to look for one that does",
        "review",
    )


_LENGTH_WORDS = re.compile(r"\b(?:first|length|size|number of elements|prefix)\b", re.IGNORECASE)


@quality_check("unexplained-parameter")
def unexplained_parameter(item: CheckInput) -> Finding | None:
    """An int argument that is sometimes the length of a sequence argument and sometimes not, and the text never says.

    MBPP's ``find_Even_Pair(A, N)`` counts pairs among the first ``N``
    elements, but its description never mentions ``N``: a reader counts over
    all of ``A`` and fails every test where ``N != len(A)``.  The parent's
    defect, but the variant's tests exercise it just the same.  Held for review.
    """
    from benchmorph.validation.examples.recompute import reference_parameters

    tests = [test.input for test in item.variant.tests if isinstance(test.input, list)]
    if not tests or item.variant.kind != "function":
        return None
    names = reference_parameters(item.variant) or []
    prose = edits.description(item.variant.prompt, item.variant.entry_point)
    width = len(tests[0])
    for i, j in ((i, j) for i in range(width) for j in range(width) if i != j):
        pairs = [
            (args[i], args[j])
            for args in tests
            if len(args) == width and type(args[i]) is int and isinstance(args[j], list | tuple | str)
        ]
        if len(pairs) < 0.8 * len(tests):
            continue
        same = sum(1 for n, seq in pairs if n == len(seq))
        if not (0.1 * len(pairs) <= same <= 0.9 * len(pairs)):
            continue
        name = names[i] if i < len(names) else None
        if (name and re.search(rf"\b{re.escape(name)}\b", prose)) or _LENGTH_WORDS.search(prose):
            continue
        return Finding(
            "unexplained-parameter",
            f"argument {i + 1}{f' ({name})' if name else ''} is the length of argument {j + 1} in {same} of "
            f"{len(pairs)} tests and something else in the rest, and the description never says what it is",
            "review",
        )
    return None
