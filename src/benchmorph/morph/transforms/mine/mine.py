"""The LLM-free counterfactual miner: paired description/reference edits, kept only if execution agrees.

Deterministic and offline, so it gives every user counterfactual variants
with no model at all, and a cheap first pass before the LLM pipeline.  A
candidate survives only if its reference runs on every inherited input,
changes the output on at least one, its worked examples can be recomputed,
its wording moved at most ``epsilon`` (D_Q), and it is no copy of another
problem it was mined with (``validation.copies``).  A link to the original
task's page is cut from its description, or the candidate dropped.
"""

from __future__ import annotations

import ast
import re
import textwrap
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from benchmorph.core.progress import Advance
from benchmorph.data.models import Problem, TestCase, Variant
from benchmorph.execution.compare import values_match
from benchmorph.execution.engine import Engine
from benchmorph.morph.common.figures import DEFAULT_EPSILON
from benchmorph.morph.finalize import Draft, decided, finalize_variants
from benchmorph.morph.transform import (
    ACCEPTED,
    REJECTED,
    MorphContext,
    MorphReport,
)
from benchmorph.morph.transforms.mine import MineOptions
from benchmorph.morph.transforms.mine.rules import RULES, EditRule, match_case
from benchmorph.testgen.mutation import input_key
from benchmorph.validation import edits
from benchmorph.validation.checks.base import Edit
from benchmorph.validation.checks.examples import AGGREGATE_IDENTITY
from benchmorph.validation.checks.ties import says_which_wins
from benchmorph.validation.copies import find_copies
from benchmorph.validation.distances import description_distance, prose
from benchmorph.validation.examples.recompute import scan_problem
from benchmorph.validation.examples.scan import scan_examples
from benchmorph.validation.links import URL, strip_links
from benchmorph.validation.ties import tests_with_ties, tie_probe, tied_inputs


@dataclass
class Candidate:
    parent: Problem
    rule: EditRule
    prompt: str
    reference: str
    edit: Edit
    entry_point: str = ""  # the variant's (renamed where the parent's name states the old property)
    name_problem: str | None = None  # why the name contradicts the new text and cannot be renamed
    worded: str = ""  # the new prompt before the rename: D_Q measures wording, not the rename
    code_span: tuple[int, int] = (0, 0)  # the edited piece in the variant's reference


# Words a function name may hold that state a rule family's property, and their counterparts.
# A name such as ``remove_vowels`` or ``max_element`` states the old property: a reader of the
# new description would be told two things, so the variant renames it (``remove_consonants``).
NAME_SWAPS: dict[str, dict[str, str]] = {
    "extreme": {
        "min": "max", "minimum": "maximum", "smallest": "largest", "shortest": "longest",
        "lowest": "highest", "least": "most", "minimal": "maximal",
    },
    "order": {"ascending": "descending", "asc": "desc", "increasing": "decreasing"},
    "parity": {"even": "odd"},
    "position": {"first": "last"},
    "affix": {"prefix": "suffix", "prefixes": "suffixes", "starts": "ends", "start": "end"},
    "case": {"upper": "lower", "uppercase": "lowercase"},
    "sign": {"positive": "negative", "pos": "neg"},
    "aggregate": {"sum": "product"},
    "count": {"vowel": "consonant", "vowels": "consonants"},
    "power": {"sq": "cube", "squared": "cubed", "squares": "cubes", "square": "cube"},
    "compare": {"larger": "smaller", "bigger": "smaller", "more": "fewer", "greater": "smaller"},
    "side": {"left": "right"},
    "quantifier": {"all": "any", "every": "any"},
    "charclass": {"number": "letter", "numbers": "letters", "digit": "letter", "digits": "letters"},
}  # fmt: skip
# Name words that state one side of a family's property but have no counterpart to rename to.
NAME_ONLY_WORDS: dict[str, tuple[set[str], set[str]]] = {
    "case": ({"capital", "capitals", "caps"}, {"mini", "small"}),  # int_to_mini_roman: lower-case numerals
    "aggregate": ({"add", "plus", "total"}, {"multiply", "mul", "mult", "times", "prod"}),
    "extreme": (
        {"smaller", "small", "lower", "low"},
        {"larger", "bigger", "biggest", "greatest", "big", "large"},
    ),
}


def _name_parts(name: str) -> list[str]:
    """``firstOddNumber`` / ``first_odd_number`` -> words and separators, so the name can be rebuilt."""
    return [part for part in re.split(r"(_+|(?<=[a-z0-9])(?=[A-Z]))", name) if part]


_NAME_NOUNS = ("numbers", "number", "nums", "num", "elements", "element", "values", "value", "list", "len")


def _glued(word: str, swaps: dict[str, str]) -> str | None:
    """``oddnumbers`` -> ``evennumbers`` where a property word starts a name part glued to a plain noun."""
    for old, new in swaps.items():
        rest = word[len(old) :]
        if word.startswith(old) and rest in _NAME_NOUNS:
            return new + rest
    return None


def renamed_entry_point(name: str, edit: Edit) -> tuple[str, str | None]:
    """The entry point's name for the variant, and why it contradicts the new text if no rename can fix it.

    ``NAME_SWAPS`` and ``NAME_ONLY_WORDS`` list a family's first side (as in
    ``edits.FAMILY_SIDES``) first; an edit from the first side to the second
    renames first-side words, and the other way round.
    """
    sides = edits.sides(edit.family, edit.old_text, edit.new_text)
    if sides is None:
        return name, None
    forward = sides[0] == edits.FAMILY_SIDES[edit.family][0]
    pairs = NAME_SWAPS.get(edit.family, {})
    swaps = pairs if forward else {new: old for old, new in pairs.items()}
    first_only, second_only = NAME_ONLY_WORDS.get(edit.family, (set(), set()))
    old_only = first_only if forward else second_only
    renamed = []
    for part in _name_parts(name):
        word = part.lower()
        glued = _glued(word, swaps)
        if glued is not None:  # "oddnumbers", "negativenum": the property word glued to a noun
            renamed.append(glued if not part[:1].isupper() else glued.capitalize())
            continue
        if word in swaps:
            counterpart = swaps[word]
            if part.isupper():
                counterpart = counterpart.upper()
            elif part[:1].isupper():
                counterpart = counterpart.capitalize()
            renamed.append(counterpart)
        elif word in old_only:
            reason = f"the function name {name!r} still says {part!r} after '{edit.old_text}' became '{edit.new_text}'"
            return name, reason
        else:
            renamed.append(part)
    return "".join(renamed), None


def split_reference(problem: Problem) -> tuple[str, str]:
    """(part shared with the prompt, the solution code after it); only the latter is edited as code."""
    if problem.reference.startswith(problem.prompt):
        return problem.prompt, problem.reference[len(problem.prompt) :]
    return "", problem.reference


def _single(pattern: Any, text: str) -> Any:
    matches = list(pattern.finditer(text))
    return matches[0] if len(matches) == 1 else None


def propose(problem: Problem, rules: Sequence[EditRule] = RULES) -> list[Candidate]:
    """Every rule whose text pattern occurs once in the description and code pattern once in the solution."""
    if problem.kind != "function":
        return []
    scan = scan_examples(problem.prompt, problem.entry_point)
    description = prose(problem.prompt, scan, problem.entry_point)
    shared, code = split_reference(problem)
    found = []
    for rule in rules:
        text_match = _single(rule.text_pattern, description)
        code_match = _single(rule.code_pattern, code)
        if text_match is None or code_match is None:
            continue
        start, end = text_match.span()
        new_text = match_case(text_match.group(0), rule.text_replacement)
        new_prompt = problem.prompt[:start] + new_text + problem.prompt[end:]
        new_code_piece = code_match.expand(rule.code_replacement)
        new_code = code[: code_match.start()] + new_code_piece + code[code_match.end() :]
        offset = len(shared)
        edit = Edit(
            family=rule.name.split(":", 1)[0],
            rule=rule.name,
            old_text=text_match.group(0),
            new_text=new_text,
            text_span=(start, end),
            old_code=code_match.group(0),
            new_code=new_code_piece,
            code_span=(offset + code_match.start(), offset + code_match.end()),
        )
        # The edited piece travels between two markers through the renames below, so the variant's
        # span of it is known exactly (the tie probe instruments it).
        marked = code[: code_match.start()] + _OPEN + new_code_piece + _CLOSE + code[code_match.end() :]
        for old_name, new_name in _local_renames(new_code, edit, problem).items():
            marked = re.sub(rf"(?<![\w.'\"]){re.escape(old_name)}(?![\w'\"])", new_name, marked)
        new_reference = rule.code_prelude + (new_prompt if shared else "") + marked
        name, problem_with_name = renamed_entry_point(problem.entry_point, edit)
        worded = new_prompt
        if name != problem.entry_point:
            # A name that is a plain word ("longest") is renamed where it is called or defined only:
            # the same word in prose is the edited property itself.  An identifier-like name
            # ("remove_vowels") is renamed wherever it stands, prose included.
            plain = re.fullmatch(r"[a-z]+", problem.entry_point) is not None
            ending = r"(?=\s*\()" if plain else r"(?![\w])"
            calls = re.compile(rf"(?<![\w.]){re.escape(problem.entry_point)}{ending}")
            new_prompt = calls.sub(name, new_prompt)
            new_reference = calls.sub(name, new_reference)
        piece_start = new_reference.index(_OPEN)
        new_reference = new_reference.replace(_OPEN, "").replace(_CLOSE, "")
        try:
            ast.parse(new_reference)
        except SyntaxError:
            continue
        span = (piece_start, piece_start + len(new_code_piece))
        found.append(
            Candidate(problem, rule, new_prompt, new_reference, edit, name, problem_with_name, worded, span)
        )
    return found


_OPEN, _CLOSE = "\x01", "\x02"


def _local_renames(code: str, edit: Edit, problem: Problem) -> dict[str, str]:
    """Local names of the solution that state the old property get the new one: ``squared`` -> ``cubed``.

    A reviewer reads the reference too, and ``squared += x ** 3`` tells them
    the opposite of the code.  Parameters stay (the prompt's signature shows
    them), and a rename that would collide with a name in use is skipped.
    """
    try:
        tree = ast.parse(textwrap.dedent(code))
    except SyntaxError:
        return {}
    names = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    parameters = _signature_names(problem)
    renames = {}
    for name in sorted(names - parameters - {problem.entry_point}):
        new, contradiction = renamed_entry_point(name, edit)
        if new != name and contradiction is None and new not in names and new not in parameters:
            renames[name] = new
    return renames


def _signature_names(problem: Problem) -> set[str]:
    """Parameter names of the entry point as the prompt shows them."""
    tree = edits.parse(problem.reference)
    for node in ast.walk(tree) if tree is not None else ():
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == problem.entry_point:
            arguments = node.args
            return {a.arg for a in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]}
    return set()


def _draft(candidate: Candidate, number: int, d_q: float) -> Variant:
    parent = candidate.parent
    return Variant(
        **parent.model_dump(exclude={"id", "entry_point", "prompt", "reference", "tests", "source"}),
        id=f"{parent.id}/ctf-mine-{number}",
        entry_point=candidate.entry_point or parent.entry_point,
        prompt=candidate.prompt,
        reference=candidate.reference,
        tests=[TestCase(input=test.input, origin=test.origin) for test in parent.tests],
        source={"benchmark": parent.source.get("benchmark"), "derived_from": parent.id},
        parent_id=parent.id,
        transform="mine",
        label="ctf",
        provenance={
            "rule": candidate.rule.name,
            "d_q": round(d_q, 4),
            "review_status": "unreviewed",
            **({"renamed_from": parent.entry_point} if candidate.entry_point != parent.entry_point else {}),
        },
    )


def mine(
    problems: Sequence[Problem],
    engine: Engine,
    *,
    epsilon: float = DEFAULT_EPSILON,
    keep_all: bool = False,
    rules: Sequence[EditRule] = RULES,
    progress: Advance | None = None,
) -> MorphReport:
    """Counterfactual variants of ``problems`` (one per problem, the largest behaviour change, unless keep_all)."""
    set_total = getattr(progress, "set_total", None)
    if set_total is not None:
        set_total(len(problems))
    parents = {problem.id: problem for problem in engine.prepare(problems, progress).problems}
    candidates = [candidate for problem in parents.values() for candidate in propose(problem, rules)]
    records: list[Variant] = []
    drafts: list[Draft] = []
    per_parent: dict[str, int] = {}
    for candidate in candidates:
        parent = candidate.parent
        number = per_parent.get(parent.id, 0)
        per_parent[parent.id] = number + 1
        d_q = description_distance(parent.prompt, candidate.worded or candidate.prompt, parent.entry_point)
        variant = _draft(candidate, number, d_q)
        if candidate.name_problem is not None:
            records.append(decided(variant, REJECTED, "name-contradicts", candidate.name_problem))
        elif d_q == 0.0:
            records.append(decided(variant, REJECTED, "wording-distance", "the wording did not change"))
        elif d_q > epsilon:
            reason = f"D_Q {d_q:.3f} is above epsilon {epsilon}"
            records.append(decided(variant, REJECTED, "wording-distance", reason))
        else:
            draft = Draft(variant=variant, parent=parent, edit=candidate.edit)
            draft.extra["code_span"] = candidate.code_span
            drafts.append(draft)
    if set_total is not None:
        set_total(len(problems) + len(drafts))
    _measure_ties(drafts, engine)
    _measure_hidden_items(drafts, engine)
    _drop_hidden_filter_tests(drafts, engine)
    finalized = finalize_variants(drafts, engine, progress)
    reviewed = _drop_copies(_without_links(finalized.candidates), problems, engine)
    chosen = [candidate for candidate in reviewed if candidate.provenance["status"] == ACCEPTED]
    if not keep_all:
        best: dict[str, Variant] = {}
        for variant in chosen:
            current = best.get(variant.parent_id)
            rank = (variant.provenance["behavior_change"], -variant.provenance["d_q"])
            if current is None or rank > (current.provenance["behavior_change"], -current.provenance["d_q"]):
                best[variant.parent_id] = variant
        kept = {variant.id for variant in best.values()}
        chosen = [variant for variant in chosen if variant.id in kept]
    kept_ids = {variant.id for variant in chosen}
    for record in reviewed:
        if record.provenance["status"] == ACCEPTED and record.id not in kept_ids:
            record = decided(
                record, REJECTED, "one-per-problem", "another variant of this problem changes more outputs"
            )
        records.append(record)
    order = {problem.id: index for index, problem in enumerate(problems)}
    chosen.sort(key=lambda variant: (order.get(variant.parent_id, 0), variant.id))
    records.sort(key=lambda variant: (order.get(variant.parent_id, 0), variant.id))
    return MorphReport("mine", chosen, records, parents=len(parents))


def _without_links(candidates: Sequence[Variant]) -> list[Variant]:
    """Each live candidate without the links its description inherited (the original task's page).

    A link standing as its own sentence is cut (``links_removed`` in
    provenance); one inside a sentence cannot be, and drops the candidate.
    """
    out = []
    for candidate in candidates:
        if candidate.provenance["status"] == REJECTED or not URL.search(candidate.prompt):
            out.append(candidate)
            continue
        unlinked = strip_links(candidate.prompt)
        if unlinked.stuck:
            reason = f"the description links {unlinked.stuck[0]} (the original task's page) inside a sentence"
            out.append(decided(candidate, REJECTED, "link-to-original", reason))
            continue
        reference = candidate.reference
        if reference.startswith(candidate.prompt):
            reference = unlinked.prompt + reference[len(candidate.prompt) :]
        provenance = {**candidate.provenance, "links_removed": unlinked.removed}
        out.append(
            candidate.model_copy(
                update={"prompt": unlinked.prompt, "reference": reference, "provenance": provenance}
            )
        )
    return out


def _drop_copies(candidates: Sequence[Variant], problems: Sequence[Problem], engine: Engine) -> list[Variant]:
    """Live candidates that copy another problem of the benchmark are rejected, naming it (``validation.copies``)."""
    live = [candidate for candidate in candidates if candidate.provenance["status"] != REJECTED]
    copies = find_copies(live, problems, engine) if live else {}
    return [
        decided(candidate, REJECTED, "copy-of-benchmark", copies[candidate.id])
        if candidate.id in copies
        else candidate
        for candidate in candidates
    ]


def _measure_ties(drafts: Sequence[Draft], engine: Engine) -> None:
    """For edits in a min/max or sort call: tests where several different values tie at it, parent and variant.

    Stored as ``extra["ties"]`` for the ``ties`` quality check.  Each reference
    runs once more with the edited call instrumented (``validation.ties``).
    """
    probes: dict[str, Problem] = {}
    pairs: list[tuple[Draft, str, str]] = []
    for index, draft in enumerate(drafts):
        edit = draft.edit
        if edit is None:
            continue
        parent, variant = draft.parent, draft.variant
        spans = {
            "parent": (parent, edit.code_span),
            "variant": (variant, draft.extra.get("code_span", (0, 0))),
        }
        ids = []
        for role, (problem, span) in spans.items():
            probe = tie_probe(problem, span, f"{variant.id}#ties-{role}-{index}")
            if probe is not None:
                probes[probe.id] = probe
                ids.append(probe.id)
        if len(ids) == 2:
            pairs.append((draft, ids[0], ids[1]))
    if not pairs:
        return
    ready = {problem.id: problem for problem in engine.prepare(list(probes.values())).problems}
    for draft, parent_probe, variant_probe in pairs:
        if parent_probe in ready and variant_probe in ready:
            draft.extra["ties"] = {
                "tests": len(draft.variant.tests),
                "parent": tests_with_ties(ready[parent_probe]),
                "variant": tests_with_ties(ready[variant_probe]),
            }
            _drop_tied_tests(draft, tied_inputs(ready[variant_probe]))


_INT_TEST = re.compile(r"\bisinstance\((?P<x>[^,()]+),\s*int\)")


def _drop_hidden_filter_tests(drafts: Sequence[Draft], engine: Engine) -> None:
    """Tests whose answer only the reference's unstated ``isinstance(x, int)`` filter decides leave the variant.

    "The minimum value in a heterogeneous list" coded as a minimum over
    ``isinstance(i, int)`` items ignores floats and counts ``False`` as 0:
    a reader who takes every number fails the tests where a float or a bool
    is the answer.  Both other readings (floats count; bools do not) run on
    the inherited inputs, and inputs where either disagrees with the
    reference are dropped, as for unstated ties.  A description that says
    "integer" states the filter, and nothing is dropped.
    """
    for draft in drafts:
        variant = draft.variant
        if variant.kind != "function" or not _INT_TEST.search(variant.reference):
            continue
        if re.search(r"\bintegers?\b", edits.description(variant.prompt, variant.entry_point), re.IGNORECASE):
            continue
        readings = [
            _INT_TEST.sub(
                r"(isinstance(\g<x>, (int, float)) and not isinstance(\g<x>, bool))", variant.reference
            ),
            _INT_TEST.sub(r"(isinstance(\g<x>, int) and not isinstance(\g<x>, bool))", variant.reference),
        ]
        inputs = [test.input for test in variant.tests]
        ours = engine.run_inputs(variant, inputs, code=variant.reference)
        open_inputs: set[str] = set()
        for code in readings:
            for args, mine_run, other in zip(
                inputs, ours, engine.run_inputs(variant, inputs, code=code), strict=True
            ):
                if mine_run.status != other.status or (
                    mine_run.status == "ok" and not values_match(mine_run.output, other.output, variant.atol)
                ):
                    open_inputs.add(input_key(args))
        _drop_tests(draft, open_inputs, "filter_tests_dropped")


def _drop_tied_tests(draft: Draft, tied: list[Any]) -> None:
    """Tests whose answer only a tie-break the text never states decides leave the variant.

    "The list whose sum is the lowest" says nothing of two lists with the
    same sum: a test where they meet judges a reading the text leaves open.
    Without those tests every reading that follows the text passes.  When
    the text does say which wins, or when dropping would leave under half the
    tests (or fewer than 3), the tests stay and the ``ties`` check decides.
    """
    if not tied or says_which_wins(draft.variant):
        return
    dropped = _drop_tests(draft, {input_key(args) for args in tied}, "tie_tests_dropped")
    if dropped:
        kept = len(draft.variant.tests)
        draft.extra["ties"] = {**draft.extra["ties"], "tests": kept, "variant": 0, "dropped": dropped}


def _drop_tests(draft: Draft, keys: set[str], record: str) -> int:
    """Drop the tests whose input key is in ``keys``, recording how many under provenance ``record``.

    Nothing is dropped (0 returned) when under half the tests, or fewer
    than 3, would remain: the variant then keeps them and the checks decide.
    """
    variant = draft.variant
    kept = [test for test in variant.tests if input_key(test.input) not in keys]
    dropped = len(variant.tests) - len(kept)
    if not dropped or len(kept) < max(3, len(variant.tests) / 2):
        return 0
    draft.variant = variant.model_copy(
        update={"tests": kept, "provenance": {**variant.provenance, record: dropped}}
    )
    return dropped


def _with_item(value: Any, target: Any, replacement: Any) -> Iterator[Any]:
    """Copies of ``value`` with one numeric item equal to ``target`` replaced, one copy per such item."""
    if isinstance(value, bool):
        return
    if isinstance(value, int | float) and value == target:
        yield replacement
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            for new in _with_item(item, target, replacement):
                copy = list(value)
                copy[index] = new
                yield type(value)(copy) if isinstance(value, tuple) else copy
    elif isinstance(value, dict):
        for key, item in value.items():
            for new in _with_item(item, target, replacement):
                yield {**value, key: new}


def _measure_hidden_items(drafts: Sequence[Draft], engine: Engine, per_example: int = 12) -> None:
    """For sum/product edits: per example, did the parent's output depend on an item equal to the new identity?

    Each such item is replaced by another value, one at a time, and the
    parent's reference runs on the results; stored as ``extra["hidden_items"]``
    for the ``examples-hide-items`` check.
    """
    probes: list[tuple[Problem, Draft, list[tuple[int, list[Any], list[Any]]]]] = []
    for number, draft in enumerate(drafts):
        edit = draft.edit
        identity = (
            AGGREGATE_IDENTITY.get(edit.new_text.lower()) if edit and edit.family == "aggregate" else None
        )
        if identity is None:
            continue
        examples = scan_problem(draft.parent).examples
        pairs = [
            (index, list(example.args), changed)
            for index, example in enumerate(examples)
            for changed in list(_with_item(list(example.args), identity, identity + 7))[:per_example]
        ]
        if not pairs:
            continue
        inputs = {input_key(args): args for _, original, changed in pairs for args in (original, changed)}
        probe = draft.parent.model_copy(
            update={
                "id": f"{draft.variant.id}#hidden-{number}",
                "tests": [TestCase(input=a) for a in inputs.values()],
            }
        )
        probes.append((probe, draft, pairs))
        draft.extra["hidden_items"] = [False] * len(examples)
    if not probes:
        return
    ready = {problem.id: problem for problem in engine.prepare([probe for probe, _, _ in probes]).problems}
    for probe, draft, pairs in probes:
        done = ready.get(probe.id)
        if done is None:
            draft.extra.pop("hidden_items", None)
            continue
        outputs = {input_key(test.input): test.expected for test in done.tests if test.has_expected}
        hidden = draft.extra["hidden_items"]
        for index, original, changed in pairs:
            before, after = (
                outputs.get(input_key(original), _MISSING),
                outputs.get(input_key(changed), _MISSING),
            )
            if before is not _MISSING and after is not _MISSING:
                if not values_match(before, after, draft.parent.atol):
                    hidden[index] = True


_MISSING = object()


def run_mine(problems: Sequence[Problem], ctx: MorphContext) -> MorphReport:
    """``morph run mine``: the transform's run, loaded only when a mine run starts."""
    options = ctx.options
    assert isinstance(options, MineOptions)
    with ctx.progress(f"mine {len(problems)} problems", None) as advance:
        return mine(problems, ctx.engine, epsilon=options.epsilon, keep_all=options.all, progress=advance)
