"""The offline metamorphic generator: the same problem told anew, without an LLM.

DyCodeEval's agents retell a problem in a scenario with an LLM.  Users
without an endpoint, and our tests, still need real variants, and a variant
only measures memorisation if a model that memorised the original would not
recognise it.  So this generator changes the whole surface and nothing of the
meaning, deterministically from ``(seed, problem id, index)``:

1. **names** (``names``): the function and its parameters get descriptive
   names tied to the scenario; renames go through the AST in the prompt's
   code, the reference and an EvalPlus contract (``renaming``);
2. **scenario** (``scenes``, ``weave``): where a parameter's values fit one of
   a scenario's nouns, the generic phrases that name it become the
   scenario's ("a list of numbers" -> "a list of temperature readings
   `readings`");
3. **sentences** (``document``, ``grammar``, ``lexicon``): each sentence whose
   shape the grammar recognises is told in another structure, and every
   sentence's vocabulary is said anew; a sentence the grammar does not
   recognise keeps its structure (counted as ``reworded`` or ``kept``), and so
   do tables, formulas and legends (``verbatim``);
4. **worked examples** (``worked``): new ones from the tests, valued by the
   reference, in a style the parent did not use; the parent's edge cases stay.

The K variants of a seed use different scenarios, names, templates and
words, and show different examples.  A problem that cannot be retold safely
(explained examples, escapes, code the renamer refuses) is skipped with the
reason.  Whether a retelling kept too much of its parent, lost a condition or
came too close to a sibling is not decided here: ``finalize_variants`` runs
the registered gates on every variant (``Draft(retold=True)``).
"""

from __future__ import annotations

import ast
import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from benchmorph.data.models import Problem
from benchmorph.data.prompt import parse_prompt_stub
from benchmorph.morph.transforms.metamorphic import document
from benchmorph.morph.transforms.metamorphic.document import Block, Description
from benchmorph.morph.transforms.metamorphic.grammar import mask, retell
from benchmorph.morph.transforms.metamorphic.lexicon import correct_spelling, pick
from benchmorph.morph.transforms.metamorphic.names import Plan, plan_names
from benchmorph.morph.transforms.metamorphic.renaming import identifiers, parse_module, rename_text
from benchmorph.morph.transforms.metamorphic.retelling import new_examples, reference_for, rename_all, splice
from benchmorph.morph.transforms.metamorphic.scenes import Scene, Traits, fitting_scenes, traits
from benchmorph.morph.transforms.metamorphic.weave import Param, Weaver
from benchmorph.validation.distances import description_text
from benchmorph.validation.examples.recompute import reference_parameters

LABELS: dict[str, tuple[str, ...]] = {
    "note": ("Keep in mind", "Remember", "Please note"),
    "notes": ("Keep in mind", "Remember"),
    "constraints": ("Limits on the input", "Input bounds", "Bounds"),
    "constraint": ("Limit on the input", "Input bound"),
    "constrain": ("Limits on the input", "Input bounds"),
    "restrictions": ("Limits on the input", "Input bounds"),
    "restriction": ("Limit on the input",),
    "variables": ("Parameters", "Inputs"),
}


@dataclass
class RuleVariant:
    """One proposed retelling of a problem (before the sandbox and the gates)."""

    index: int
    prompt: str
    reference: str
    entry_point: str
    renames: dict[str, str]
    scenario: str | None
    contract: str | None = None
    details: dict[str, Any] = field(default_factory=dict)  # provenance: what was retold how
    # Keys of the example inputs it shows (``worked.key``, edge cases aside): the caller adds them to
    # ``Seed.shown`` once the retelling is kept, so that a rejected attempt does not use up the inputs
    # later siblings could show.
    example_inputs: list[str] = field(default_factory=list)
    forms: tuple[str, ...] = ()  # each sentence's structure (``grammar.Retold.form``), in order


@dataclass
class Proposal:
    """What the generator made of one problem: its variants, or why it made none."""

    variants: list[RuleVariant] = field(default_factory=list)
    skipped: str | None = None
    rejected: list[tuple[RuleVariant, str, str]] = field(default_factory=list)  # (variant, check, reason)


def seed_offset(seed: int, problem_id: str) -> int:
    """A process-independent number from the run's seed and the problem: where each pool starts."""
    return int(hashlib.sha256(f"{seed}\0{problem_id}".encode()).hexdigest()[:12], 16)


def _defines(source: str, name: str) -> bool:
    tree = parse_prompt_stub(source)
    return tree is not None and any(
        isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == name
        for node in ast.walk(tree)
    )


def _category(found: Traits, values: Sequence[Any]) -> str:
    """The pool of plain names a parameter draws from (``names.TYPE_NAMES``)."""
    if found.kind in ("numbers", "texts"):
        return found.kind
    if found.kind in ("text", "word"):
        return "text"
    if values and all(isinstance(v, bool) for v in values):
        return "flag"
    if values and all(isinstance(v, int | float) and not isinstance(v, bool) for v in values):
        return "number"
    if values and all(isinstance(v, dict) for v in values):
        return "mapping"
    if values and all(isinstance(v, list | tuple) for v in values):
        return "items"
    return "value"


def _result(outputs: Sequence[Any]) -> tuple[str, str]:
    """(kind of the outputs as ``scenes`` names kinds, the verb a function name of that result takes)."""
    found = traits(outputs) if outputs else Traits("other")
    if outputs and all(isinstance(v, bool) for v in outputs):
        return "bool", "check"
    if outputs and all(isinstance(v, int | float) and not isinstance(v, bool) for v in outputs):
        return "number", "compute"
    if outputs and all(isinstance(v, list | tuple) for v in outputs):
        return (found.kind if found.kind != "other" else "list"), "build"
    if outputs and all(isinstance(v, str) for v in outputs):
        return (found.kind if found.kind != "other" else "text"), "make"
    return found.kind, "compute"


@dataclass
class Seed:
    """What every retelling of one problem shares."""

    problem: Problem
    described: Description
    params: list[str]
    kinds: dict[str, Traits]
    categories: dict[str, str]
    scenes: list[Scene]
    result_kind: str
    result_verb: str
    named: bool
    taken: set[str]
    prose: str
    offset: int
    shown: set[str] = field(default_factory=set)  # example inputs the kept retellings showed


def prepare_seed(problem: Problem, seed: int = 0) -> Seed | str:
    """Everything the retellings of ``problem`` share, or why it cannot be retold."""
    if problem.kind != "function":
        return f"a {problem.kind} problem (the rules generator rewrites function problems)"
    reference_tree = parse_module(problem.reference)
    if reference_tree is None:
        return "the reference does not parse"
    described = document.read(problem.prompt, problem.entry_point)
    if isinstance(described, str):
        return described
    if not any(block.kind in ("prose", "item") for block in described.blocks):
        return "the description has no sentence to retell"
    params = reference_parameters(problem) or []
    columns: dict[str, list[Any]] = {name: [] for name in params}
    for test in problem.tests:
        if isinstance(test.input, list) and len(test.input) == len(params):
            for name, value in zip(params, test.input, strict=True):
                columns[name].append(value)
    kinds = {name: traits(values) for name, values in columns.items()}
    prose = description_text(problem.prompt, problem.entry_point)
    for name in params:
        # A parameter the prose names as a word ("operations", "grades") or defines ("xs are coefficients")
        # has a meaning of its own: a scenario's noun would contradict it.
        word = re.compile(rf"(?<![\w.]){re.escape(name)}(?!\w)")
        english = (
            name.isalpha()
            and len(name) > 3
            and name.lower() not in ("numbers", "string", "strings", "text", "values", "array", "list")
        )
        defined = re.search(
            rf"(?<![\w.]){re.escape(name)}\s+(?:is|are|represents?|stands?|contains?)\b", prose
        )
        if (english and word.search(prose)) or defined:
            kinds[name] = Traits("other")
    # Only the first parameter of each kind takes the scenario's noun: two "temperature readings" would
    # say nothing of which is which.
    wanting: dict[str, Traits] = {}
    for name in params:
        if kinds[name].kind != "other" and kinds[name].kind not in {t.kind for t in wanting.values()}:
            wanting[name] = kinds[name]
    outputs = [test.expected for test in problem.tests if test.has_expected]
    result_kind, result_verb = _result(outputs)
    prompt_tree = parse_prompt_stub(problem.prompt)
    taken = identifiers(reference_tree) | (identifiers(prompt_tree) if prompt_tree is not None else set())
    return Seed(
        problem=problem,
        described=described,
        params=params,
        kinds={name: (kinds[name] if name in wanting else Traits("other")) for name in params},
        categories={name: _category(kinds[name], columns[name]) for name in params},
        scenes=fitting_scenes(list(wanting.values())),
        result_kind=result_kind,
        result_verb=result_verb,
        named=_defines(problem.prompt, problem.entry_point),
        taken=taken,
        prose=prose,
        offset=seed_offset(seed, problem.id),
    )


def _retell_blocks(
    seed: Seed, plan: Plan, weaver: Weaver, index: int, forms: list[str] | None = None
) -> tuple[list[Block], dict[str, int]]:
    """Every block of the description retold; counts of sentences by what happened to them."""
    # "restated": sentences in which a clause's phrase was restated (``restate``); "unrestated": prose
    # sentences in which no restatement recognised a phrase (kept in the parent's inner structure).
    counts = {
        "restructured": 0, "reworded": 0, "kept": 0, "verbatim": 0, "spelling": 0, "restated": 0,
        "unrestated": 0, "turned": 0,
    }  # fmt: skip
    code_renames = {**plan.params, seed.problem.entry_point: plan.entry_point}
    salt = seed.problem.id
    new_names = [f"`{plan.params[p]}`" if p in plan.params else p for p in seed.params]

    def renamed_span(text: str) -> str:
        return rename_text(text, code_renames, code_lines={0})

    out: list[Block] = []
    position = 0
    for block in seed.described.blocks:
        if block.kind == "verbatim":
            counts["verbatim"] += len(block.lines)
            out.append(Block("verbatim", lines=[renamed_span(line) for line in block.lines], gap=block.gap))
            continue
        if block.kind == "label":
            key = block.label.lower()
            label = pick(LABELS[key], index, salt + key) if key in LABELS else block.label
            out.append(Block("label", label=label, gap=block.gap))
            continue
        sentences = []
        for sentence in block.sentences:
            masked = mask(sentence, weaver.protect, renamed_span)
            masked.entry = plan.entry_point
            masked.text, spelled = correct_spelling(masked.text, frozenset(seed.taken))
            counts["spelling"] += spelled
            told = retell(masked, index, salt, new_names, position)
            position += 1
            counts[told.status] += 1
            counts["restated" if told.restated else "unrestated"] += 1
            counts["turned"] += int(told.turned)
            if forms is not None:
                forms.append(told.form)
            shown = masked.show(told.text)
            if sentence[:1].isupper() and shown[:1].islower():
                shown = shown[:1].upper() + shown[1:]  # a phrase woven in at the start of a sentence
            sentences.append(shown)
        out.append(Block(block.kind, sentences, marker=block.marker, label=block.label, gap=block.gap))
    return out, counts


def retell_problem(seed: Seed, index: int, rename_entry_point: bool = True) -> RuleVariant | str:
    """Retelling ``index`` of a prepared seed, or why this one cannot be made."""
    problem = seed.problem
    choice = seed.offset + index
    scene = seed.scenes[choice % len(seed.scenes)] if seed.scenes else None
    nouns = {}
    if scene is not None:
        for name, found in seed.kinds.items():
            noun = scene.noun(found.kind)
            if found.kind != "other" and noun is not None:
                nouns[name] = noun
    for _ in range(2):
        plan = plan_names(
            problem.entry_point, seed.params, seed.categories, nouns, seed.prose, choice, seed.taken,
            seed.result_verb,
        )  # fmt: skip
        if not rename_entry_point:
            plan.entry_point = problem.entry_point
        renaming = rename_all(problem, plan.params, plan.entry_point)
        if isinstance(renaming, str):
            return renaming
        renamed = renaming
        params = [
            Param(name, plan.params.get(name, name), seed.kinds[name].kind, plan.nouns.get(name))
            for name in seed.params
        ]
        weaver = Weaver(params, problem.entry_point, seed.named, seed.result_kind)
        weaver.prescan([s for block in seed.described.blocks for s in block.sentences])
        forms: list[str] = []
        blocks, counts = _retell_blocks(seed, plan, weaver, index, forms)
        unsaid = set(plan.nouns) - weaver.woven
        if not unsaid:
            break
        # A noun the prose never says would name a parameter after a story the text does not tell.
        nouns = {name: noun for name, noun in nouns.items() if name not in unsaid}
        scene = scene if nouns else None
    assert not isinstance(renamed, str)  # returned inside the loop; mypy loses the narrowing after it
    names = [plan.params.get(name, name) for name in seed.params] if seed.named else None
    examples = new_examples(
        problem,
        seed.described.scan,
        index,
        plan.entry_point,
        names,
        seed.offset,
        frozenset(seed.shown),
        keep_only=True,  # the parent's only example may be the one that settles a reading (Mbpp/400)
    )
    if not examples.lines and seed.described.scan.examples:
        return "no test input can be shown as an example"
    new_prompt = splice(renamed, seed.described, blocks, examples)
    if new_prompt is None:
        return "the renamed prompt lost its description"
    reference = reference_for(problem, renamed, new_prompt)
    if reference is None:
        return "the reference does not continue the prompt after renaming"
    terms = set(weaver.terms)
    for noun in plan.nouns.values():
        terms.update(noun.plural.split() + noun.singular.split())
    details = {
        "sentences": counts,
        "forms": list(forms),
        "example_style": examples.style,
        "examples_shown": len(examples.inputs),
        "names_kept": dict(plan.kept),
        "scenario_terms": sorted(terms | {new for new in plan.params.values()}),
    }
    return RuleVariant(
        index, new_prompt, reference, plan.entry_point, dict(plan.params),
        scene.slug if scene is not None else None, renamed.contract, details, list(examples.inputs), tuple(forms),
    )  # fmt: skip


def propose_variants(
    problem: Problem, count: int, seed: int = 0, *, rename_entry_point: bool = True
) -> Proposal:
    """Up to ``count`` retellings of ``problem`` (prepared: its tests carry the reference's outputs).

    A retelling equal to an earlier one is rejected as ``distinct``; one that
    cannot be made is rejected with its reason; a problem the generator cannot
    retell at all is ``skipped`` with the reason.
    """
    prepared = prepare_seed(problem, seed)
    if isinstance(prepared, str):
        return Proposal(skipped=prepared)
    proposal = Proposal()
    seen = {" ".join(problem.prompt.split())}
    reasons: list[str] = []
    for index in range(count):
        made = retell_problem(prepared, index, rename_entry_point)
        if isinstance(made, str):
            reasons.append(made)
            continue
        key = " ".join(made.prompt.split())
        if key in seen:
            proposal.rejected.append((made, "distinct", "the same text as another variant of this problem"))
            continue
        seen.add(key)
        prepared.shown.update(made.example_inputs)
        proposal.variants.append(made)
    if not proposal.variants and not proposal.rejected and reasons:
        proposal.skipped = reasons[0]
    return proposal


def check_signature(parent: Problem, prompt: str, reference: str, entry_point: str) -> str | None:
    """Before the sandbox: the prompt parses, the reference parses and defines the entry point with the
    parent's number of parameters.  Returns why not, or None."""
    if parse_prompt_stub(parent.prompt) is not None and parse_prompt_stub(prompt) is None:
        return "the rewritten prompt does not parse"
    parent_arity = _arity(parent.reference, parent.entry_point)
    arity = _arity(reference, entry_point)
    if arity is None:
        return f"the reference does not define {entry_point}"
    if parent_arity is not None and arity != parent_arity:
        return f"{entry_point} takes {arity} parameters, the original {parent_arity}"
    if _defines(parent.prompt, parent.entry_point) and not _defines(prompt, entry_point):
        return f"the prompt no longer shows the signature of {entry_point}"
    return None


def _arity(source: str, name: str) -> int | None:
    tree = parse_module(source)
    if tree is None:
        return None
    defs = [
        node
        for node in tree.body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == name
    ]
    if not defs:
        return None
    args = defs[-1].args
    return len(args.posonlyargs) + len(args.args) + (1 if args.vararg else 0)
