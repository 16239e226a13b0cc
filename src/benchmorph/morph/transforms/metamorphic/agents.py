"""The LLM generator of the metamorphic transform: DyCodeEval's four agents, each its own function.

For every seed problem and each of its ``variants`` slots:

1. **scenario proposer** (:func:`scenario_pool`): the pool of application
   domains, grown by the LLM and de-duplicated (``benchmorph.morph.common.scenarios``);
   each slot samples one scenario with ``random.Random(f"{seed}:{problem id}")``;
2. **type inference** (:func:`parameter_types`): the sound types of the
   parameters, observed in the tests (``benchmorph.testgen.types``);
3. **context generator** (:func:`generate_contexts`): the LLM gives each
   parameter a meaning in the scenario that fits its type (JSON, read tolerantly);
4. **rewriter** (:func:`rewrite_descriptions`): the LLM retells the description
   in the scenario; the prompt shown to models is the original prompt with only
   the description swapped (``benchmorph.morph.common.docstrings``): same imports,
   ``def`` line and worked examples, byte for byte;
5. **validator**: (a) :func:`judge_rewrites`, an LLM judge comparing original
   and rewrite (JSON ``{"preserved": bool, "issues": [...]}``); (b) the
   structural checks (the prompt parses, the signature is identical, every
   original example is still there) and :func:`check_in_sandbox`, the shared
   ``finalize_variants`` (the parent's reference must pass the variant's tests
   and keep every output).

A slot whose attempt fails any check is regenerated, up to ``retries`` more
attempts: a context answer that cannot be read asks for contexts again; any
later failure asks for a new rewrite, told why the last one failed.  After the
last attempt the slot is dropped with its reason.

:func:`llm_metamorphic_drafts` runs it all.  Validation (b) needs the sandbox
on every attempt (to decide whether to regenerate), so **each attempt is
finalized here**; the drafts returned are the attempts that passed, for the
caller's own ``finalize_variants`` (which the engine answers from its cache:
the same content was just prepared, so the outcome is the same).  The records
returned are the rejected attempts, already decided.  **The per-seed
acceptance rate is recorded in provenance**, as ``seed_acceptance`` on every
draft and record (see :func:`acceptance_by_seed`).
"""

from __future__ import annotations

import hashlib
import random
import re
import textwrap
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypedDict

from benchmorph.core.progress import ProgressFactory, no_progress
from benchmorph.data.errors import InputError
from benchmorph.data.models import Problem, TestCase, Variant
from benchmorph.execution.engine import Engine
from benchmorph.models import GenerationParams, LLMCache, ModelSpec, RetryPolicy, parse_spec
from benchmorph.models.ask import ask
from benchmorph.models.prompts import Request
from benchmorph.morph.common.answers import parse_rewrite
from benchmorph.morph.common.docstrings import (
    PromptParts,
    def_line,
    description_from_code,
    split_prompt,
    strip_examples,
)
from benchmorph.morph.common.judge import judge_request, parse_verdict
from benchmorph.morph.common.scenarios import (
    BUILTIN_SCENARIOS,
    DedupSettings,
    Scenario,
    ScenarioPool,
    load_or_grow_pool,
    normalise,
)
from benchmorph.morph.finalize import Draft, decided, finalize_variants
from benchmorph.morph.transform import ACCEPTED, REJECTED, MorphContext
from benchmorph.morph.transforms.metamorphic import TRANSFORM, document
from benchmorph.morph.transforms.metamorphic.document import Block, Description
from benchmorph.morph.transforms.metamorphic.names import free_name
from benchmorph.morph.transforms.metamorphic.prompts import (
    Contexts,
    context_request,
    parse_contexts,
    rewrite_request,
)
from benchmorph.morph.transforms.metamorphic.renaming import identifiers, parse_module
from benchmorph.morph.transforms.metamorphic.retelling import (
    Renamed,
    new_examples,
    reference_for,
    rename_all,
    retelling_draft,
    splice,
)
from benchmorph.morph.transforms.metamorphic.rules import check_signature
from benchmorph.testgen.types import Signature, infer_signature
from benchmorph.validation.concepts import conditions
from benchmorph.validation.overlap import words

# What a rewriter told that a retelling failed a gate should do differently.
_OWN_WORDS = (
    "it keeps too much of the original's wording: say every sentence with your own structure and words"
)
ADVICE: dict[str, str] = {
    "residual-runs": _OWN_WORDS,
    "residual-bleu": _OWN_WORDS,
    "residual-difflib": _OWN_WORDS,
    "sibling-distinct": "it reads too much like another retelling of this exercise: use other sentence "
    "structures and other words",
    "constraints-kept": "state that condition explicitly, with its numbers and words",
    "meaning-atoms": "keep every word that makes a requirement (extremes, parity, order, counts, signs) and add none",
}
ID_PART = "meta"  # variant ids are <parent>/meta-<i>, as the transform names them
DEFAULT_TEMPERATURE = 0.8
DEFAULT_MAX_TOKENS = 1024


@dataclass
class LlmSetup:
    """Who answers and how: the generator (contexts, rewrites, scenarios), the judge and their sampling."""

    generator: ModelSpec
    judge: ModelSpec
    cache: LLMCache
    params: GenerationParams  # contexts and rewrites; each slot and attempt gets its own seed
    judge_params: GenerationParams  # greedy: a verdict should not depend on luck
    policy: RetryPolicy | None = None
    concurrency: int | None = None
    progress: ProgressFactory = no_progress


@dataclass
class Slot:
    """One requested variant of one seed problem, through its attempts."""

    parent: Problem  # prepared: its tests carry the parent's outputs
    parts: PromptParts
    described: Description  # the parent's description taken apart (its examples' scan, indentation)
    signature: Signature
    index: int
    scenario: Scenario
    seed: int
    pool: dict[str, Any]
    setup_text: dict[str, str]
    taken: set[str] = field(default_factory=set)  # identifiers of the parent's prompt and reference
    shown: set[str] = field(default_factory=set)  # example inputs the seed's slots showed (shared)
    contexts: dict[str, str] | None = None
    names: dict[str, str] = field(default_factory=dict)  # old parameter name -> new
    function: str = ""  # the function's new name ("" until the contexts are read)
    refused: list[str] = field(default_factory=list)  # proposed names that could not be used, and why
    renamed: Renamed | None = None
    feedback: str | None = None
    failures: list[dict[str, Any]] = field(default_factory=list)
    records: list[Variant] = field(default_factory=list)  # rejected attempts
    raw: dict[str, str | None] = field(default_factory=dict)  # this attempt's answers
    prompt: str | None = None  # this attempt's assembled prompt
    verdict: dict[str, Any] | None = None
    failed_now: bool = False
    draft: Draft | None = None  # the attempt that passed
    accepted: Variant | None = None  # its finalized candidate: what later siblings are compared with

    @property
    def id(self) -> str:
        return f"{self.parent.id}/{ID_PART}-{self.index}"

    @property
    def attempt(self) -> int:
        """The number of the current attempt, from 1."""
        return len(self.failures) + 1

    @property
    def types(self) -> dict[str, str]:
        return {name: str(t) for name, t in self.signature.params}

    @property
    def entry_point(self) -> str:
        return self.function or self.parent.entry_point

    def live(self, retries: int) -> bool:
        return self.draft is None and len(self.failures) <= retries

    def start_attempt(self) -> None:
        self.raw, self.prompt, self.verdict, self.failed_now = {}, None, None, False

    def scenario_terms(self) -> list[str]:
        """Every word the scenario brought: its name and text, the parameters' meanings and new names."""
        texts = [
            self.scenario.name,
            self.scenario.text,
            *(self.contexts or {}).values(),
            *self.names.values(),
        ]
        return sorted({word for text in texts for word in words(text)})

    def provenance(self) -> dict[str, Any]:
        contexts = self.contexts or {}
        found: dict[str, Any] = {
            "generator": self.setup_text["generator"],
            "judge": self.setup_text["judge"],
            "scenario": self.scenario.to_json(),
            "scenario_pool": self.pool,
            "signature": self.signature.to_json(),
            "contexts": {name: {"type": self.types.get(name), "meaning": m} for name, m in contexts.items()},
            "renames": {old: new for old, new in self.names.items() if old != new},
            "scenario_terms": self.scenario_terms(),
            "judge_verdict": self.verdict,
            "attempts": self.attempt,
            "failed_attempts": list(self.failures),
            "seed": self.seed,
            "raw": dict(self.raw),
            "parent_prompt": self.parent.prompt,
            "review_status": "unreviewed",
        }
        if self.refused:
            found["names_refused"] = list(self.refused)
        if self.entry_point != self.parent.entry_point:
            found["renamed_from"] = self.parent.entry_point
        return found

    def variant(self, record_id: str | None = None) -> Variant:
        """This attempt as a variant: the new prompt and names, the parent's reference renamed, its inputs."""
        parent = self.parent
        prompt = self.prompt or parent.prompt
        renamed = self.renamed
        reference = parent.reference
        contract = parent.contract
        entry_point = parent.entry_point
        if renamed is not None and self.prompt is not None:
            reference = reference_for(parent, renamed, prompt) or renamed.reference
            contract, entry_point = renamed.contract, renamed.entry_point
        elif reference.startswith(parent.prompt):  # HumanEval: the reference continues the prompt
            reference = prompt + reference[len(parent.prompt) :]
        excluded = {
            "id", "prompt", "reference", "tests", "source", "parent_id", "transform", "label", "provenance",
            "entry_point", "contract",
        }  # fmt: skip
        return Variant(
            **parent.model_dump(exclude=excluded),
            id=record_id or self.id,
            prompt=prompt,
            reference=reference,
            entry_point=entry_point,
            contract=contract,
            tests=[TestCase(input=test.input, origin=test.origin) for test in parent.tests],
            source={"benchmark": parent.source.get("benchmark"), "derived_from": parent.id},
            parent_id=parent.id,
            transform=TRANSFORM,
            label="metamorphic",
            provenance=self.provenance(),
        )

    def fail(self, check: str, reason: str, retries: int, record: Variant | None = None) -> None:
        """Record this attempt as rejected; the slot is dropped when it was the last one allowed."""
        self.failed_now = True
        last = len(self.failures) >= retries
        record = record or self.variant()
        record_id = self.id if last else f"{self.id}/attempt-{self.attempt}"
        shown = f"dropped after {self.attempt} attempts; last: {reason}" if last else reason
        provenance = {**record.provenance, **self.provenance(), "regenerated": not last}
        record = record.model_copy(update={"id": record_id, "provenance": provenance})
        self.records.append(decided(record, REJECTED, check, shown))
        self.failures.append({"attempt": self.attempt, "check": check, "reason": reason})
        if check == "context":
            self.contexts = None  # ask for contexts again; the rewriter has nothing to learn from it
        else:
            advice = ADVICE.get(check)  # the next rewrite is told why this one failed, and what to do
            self.feedback = f"{reason} ({advice})" if advice else reason


# ------------------------------------------------------------------ the agents


def scenario_pool(
    setup: LlmSetup,
    target: int,
    embedder: str | None = None,
    on_saved: Callable[[Any, bool], None] | None = None,
) -> ScenarioPool:
    """Agent 1, the scenario proposer: the saved pool for these inputs, or one grown now."""
    return load_or_grow_pool(
        setup.generator,
        target,
        setup.cache,
        setup.params,
        seeds=BUILTIN_SCENARIOS,
        dedup=DedupSettings(embedder=embedder),
        policy=setup.policy,
        progress=setup.progress,
        on_saved=on_saved,
    )


def parameter_types(problem: Problem) -> Signature:
    """Agent 2, type inference: every parameter's type as observed in the tests (sound, never guessed)."""
    return infer_signature(problem)


def _seed(base: int, index: int, attempt: int) -> int:
    """A request seed per run seed, slot and attempt, so each regeneration is a new sample."""
    digest = hashlib.sha256(f"{base}:{index}:{attempt}".encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF


def _ask_all(
    slots: Sequence[Slot],
    build: Callable[[Slot], Request],
    spec: ModelSpec,
    setup: LlmSetup,
    params_of: Callable[[Slot], GenerationParams],
    description: str,
) -> list[tuple[Request, str | None, str | None]]:
    """(request, answer text, error) per slot; slots that share sampling parameters share one ``ask``."""
    requests = [build(slot) for slot in slots]
    groups: dict[str, list[int]] = defaultdict(list)
    params: dict[str, GenerationParams] = {}
    for position, slot in enumerate(slots):
        chosen = params_of(slot)
        key = chosen.model_dump_json()
        groups[key].append(position)
        params[key] = chosen
    answers: list[tuple[Request, str | None, str | None]] = [(request, None, None) for request in requests]
    with setup.progress(description, len(slots)) as advance:
        for key, positions in groups.items():
            report = ask(
                [requests[p] for p in positions], spec, params[key], setup.cache,
                policy=setup.policy, concurrency=setup.concurrency, progress=advance,
            )  # fmt: skip
            for position, slot_answers in zip(positions, report.answers, strict=True):
                answer = slot_answers[0]
                answers[position] = (requests[position], answer.text, answer.error)
    return answers


def _sampling(setup: LlmSetup) -> Callable[[Slot], GenerationParams]:
    return lambda slot: setup.params.model_copy(
        update={"n": 1, "seed": _seed(setup.params.seed or 0, slot.index, slot.attempt)}
    )


def generate_contexts(slots: Sequence[Slot], setup: LlmSetup, retries: int) -> None:
    """Agent 3, the context generator: for each slot, a meaning and a new name for every parameter in its
    scenario, and a new name for the function; the code is renamed with those that can be used."""
    todo = [slot for slot in slots if slot.contexts is None and not slot.failed_now]
    if not todo:
        return

    def build(slot: Slot) -> Request:
        return context_request(
            slot.scenario.text,
            slot.signature.render(),
            slot.signature.names,
            slot.parts.text,
            setup.generator.mode,
        )

    for slot, (request, text, error) in zip(
        todo,
        _ask_all(todo, build, setup.generator, setup, _sampling(setup), "metamorphic: contexts"),
        strict=True,
    ):
        slot.raw["contexts"] = text
        if text is None:
            slot.fail("context", f"the context generator gave no answer: {error}", retries)
            continue
        contexts, reason = parse_contexts(request, text, slot.signature.names)
        if contexts is None:
            slot.fail("context", f"the contexts cannot be read: {reason}", retries)
            continue
        slot.contexts = contexts.meanings
        _adopt_names(slot, contexts)
        renamed = rename_all(slot.parent, slot.names, slot.entry_point)
        if isinstance(renamed, str):  # the code cannot take new names: the old ones stay
            slot.refused.append(renamed)
            slot.names, slot.function = {}, ""
            renamed = rename_all(slot.parent, {}, slot.parent.entry_point)
        slot.renamed = renamed if not isinstance(renamed, str) else None


def _adopt_names(slot: Slot, contexts: Contexts) -> None:
    """The proposed names that can be used: identifiers, no keyword or builtin, none already taken, all
    different; a letter-soup name (one character) is refused too.  Refusals are recorded."""
    used = set(slot.taken)
    slot.names, slot.function, slot.refused = {}, "", []
    for old in slot.signature.names:
        new = contexts.names.get(old, old)
        if new == old:
            continue
        if len(new) < 2 or not free_name(new, used):
            slot.refused.append(f"parameter {old} -> {new!r}")
            continue
        slot.names[old] = new
        used.add(new)
    proposed = contexts.function
    if proposed and proposed != slot.parent.entry_point:
        if len(proposed) >= 2 and free_name(proposed, used):
            slot.function = proposed
        else:
            slot.refused.append(f"function {slot.parent.entry_point} -> {proposed!r}")


def rewrite_descriptions(slots: Sequence[Slot], setup: LlmSetup, retries: int) -> None:
    """Agent 4, the rewriter: the whole description retold; the new prompt assembled with new worked
    examples (``retelling``) and checked (validation b, structure: it parses, the arity is kept)."""
    todo = [slot for slot in slots if slot.contexts is not None and not slot.failed_now]
    if not todo:
        return

    def build(slot: Slot) -> Request:
        old_stub = def_line(slot.parent.prompt, slot.parent.entry_point) or f"{slot.signature.render()}:"
        renamed = slot.renamed
        stub = (def_line(renamed.prompt, renamed.entry_point) if renamed is not None else None) or old_stub
        return rewrite_request(
            slot.scenario.text,
            stub,
            slot.contexts or {},
            slot.types,
            slot.parts.text,
            setup.generator.mode,
            slot.feedback,
            textwrap.dedent(slot.parts.examples),
            names=slot.names,
            conditions=conditions(slot.parts.text),
            old_stub=old_stub,
        )

    answers = _ask_all(todo, build, setup.generator, setup, _sampling(setup), "metamorphic: rewrites")
    for slot, (request, text, error) in zip(todo, answers, strict=True):
        slot.raw["rewrite"] = text
        if text is None:
            slot.fail("rewrite", f"the rewriter gave no answer: {error}", retries)
            continue
        renamed = slot.renamed or rename_all(slot.parent, {}, slot.parent.entry_point)
        assert not isinstance(renamed, str)
        description, code, reason = parse_rewrite(request, text)
        if code is not None:
            # The model answered with the whole function: its docstring, if the signature is the renamed one.
            as_renamed = slot.parent.model_copy(
                update={"prompt": renamed.prompt, "entry_point": renamed.entry_point}
            )
            description, unreadable = description_from_code(as_renamed, code)
            if unreadable is not None:
                slot.fail(unreadable[0], unreadable[1], retries)
                continue
        if description is None:
            slot.fail("rewrite", f"the rewrite cannot be read: {reason}", retries)
            continue
        description = strip_examples(description, renamed.entry_point)
        if not description:
            slot.fail("rewrite", "the rewrite holds no description (only examples)", retries)
            continue
        if normalise(description) == normalise(slot.parts.text):
            slot.fail("rewrite", "the description was not retold (same text as the original)", retries)
            continue
        prompt = _assemble(slot, renamed, description)
        if prompt is None:
            slot.fail("prompt-shape", "the retold description cannot be written into the prompt", retries)
            continue
        slot.prompt = prompt
        problem = check_signature(
            slot.parent, prompt, reference_for(slot.parent, renamed, prompt) or "", renamed.entry_point
        )
        if problem is not None:
            slot.fail("signature", problem, retries)


def _assemble(slot: Slot, renamed: Renamed, description: str) -> str | None:
    """The renamed prompt with the retold description and new worked examples in its docstring."""
    paragraphs = [" ".join(part.split()) for part in re.split(r"\n\s*\n", description) if part.strip()]
    blocks = [Block("prose", [paragraph]) for paragraph in paragraphs]
    shows_names = def_line(slot.parent.prompt, slot.parent.entry_point) is not None
    names = [slot.names.get(name, name) for name in slot.signature.names] if shows_names else None
    examples = new_examples(
        slot.parent,
        slot.described.scan,
        slot.index,
        renamed.entry_point,
        names,
        slot.seed,
        frozenset(slot.shown),
    )
    slot.shown.update(examples.inputs)
    return splice(renamed, slot.described, blocks, examples)


def judge_rewrites(slots: Sequence[Slot], setup: LlmSetup, retries: int) -> None:
    """Validation (a): the judge compares original and rewrite; a rewrite it does not call preserved fails."""
    todo = [slot for slot in slots if slot.prompt is not None and not slot.failed_now]
    if not todo:
        return

    def build(slot: Slot) -> Request:
        return judge_request(slot.parent.prompt, slot.prompt or "", setup.judge.mode)

    answers = _ask_all(todo, build, setup.judge, setup, lambda slot: setup.judge_params, "metamorphic: judge")
    for slot, (request, text, error) in zip(todo, answers, strict=True):
        slot.raw["judge"] = text
        if text is None:
            slot.fail("judge", f"the judge gave no answer: {error}", retries)
            continue
        preserved, issues, reason = parse_verdict(request, text)
        slot.verdict = {"preserved": preserved, "issues": issues}
        if preserved is None:
            slot.fail("judge", f"the judge's verdict cannot be read: {reason}", retries)
        elif not preserved:
            said = "; ".join(issues) if issues else "no issue named"
            slot.fail("judge", f"the judge says the meaning changed: {said}", retries)


def check_in_sandbox(
    slots: Sequence[Slot],
    engine: Engine,
    retries: int,
    progress: ProgressFactory,
    everyone: Sequence[Slot] = (),
) -> None:
    """Validation (b) in the sandbox and the retelling gates: ``finalize_variants`` with the parent's
    reference, every output kept, and each retelling compared with the siblings accepted before it
    (``everyone``: all slots, those accepted in earlier rounds among them)."""
    todo = [slot for slot in slots if slot.prompt is not None and not slot.failed_now]
    if not todo:
        return
    drafts = [retelling_draft(slot.variant(), slot.parent) for slot in todo]
    siblings: dict[str, list[Variant]] = defaultdict(list)
    for slot in everyone or slots:
        if slot.accepted is not None:
            siblings[slot.parent.id].append(slot.accepted)
    with progress("metamorphic: sandbox check", len(drafts)) as advance:
        finalized = finalize_variants(drafts, engine, advance, siblings=siblings)
    for slot, draft, record in zip(todo, drafts, finalized.candidates, strict=True):
        if record.provenance.get("status") == ACCEPTED:
            slot.draft, slot.accepted = draft, record
        else:
            check = str(record.provenance.get("check") or "sandbox")
            slot.fail(check, str(record.provenance.get("reason") or "not accepted"), retries, record)


# ------------------------------------------------------------------ the whole generator


def _option(ctx: MorphContext, name: str, default: Any = None) -> Any:
    return getattr(ctx.options, name, default)


def _setup(
    ctx: MorphContext,
    cache: LLMCache,
    generator: ModelSpec | str | None,
    judge: ModelSpec | str | None,
    params: GenerationParams | None,
    policy: RetryPolicy | None = None,
) -> LlmSetup:
    chosen = generator if generator is not None else _option(ctx, "generator")
    if chosen is None:
        raise InputError("the LLM metamorphic generator needs a generator model spec (--generator)")
    spec = parse_spec(chosen) if isinstance(chosen, str) else chosen
    judged = judge if judge is not None else _option(ctx, "judge")
    judge_spec = spec if not judged else parse_spec(judged) if isinstance(judged, str) else judged
    if params is None:
        params = GenerationParams(
            temperature=_option(ctx, "temperature", DEFAULT_TEMPERATURE),
            max_tokens=_option(ctx, "max_tokens", DEFAULT_MAX_TOKENS),
            seed=ctx.seed,
        )
    judge_params = GenerationParams(temperature=0.0, max_tokens=min(params.max_tokens, 768), seed=0)
    return LlmSetup(
        spec, judge_spec, cache, params, judge_params, policy=policy,
        concurrency=_option(ctx, "concurrency"), progress=ctx.progress,
    )  # fmt: skip


def _identifiers(problem: Problem) -> set[str]:
    """Every name the parent's prompt and reference use: a new name must be none of them."""
    found: set[str] = set()
    for source in (problem.prompt, problem.reference):
        tree = parse_module(source) if not source.rstrip().endswith(":") else None
        if tree is None:
            from benchmorph.data.prompt import parse_prompt_stub

            tree = parse_prompt_stub(source)
        if tree is not None:
            found |= identifiers(tree)
    return found


def _placeholder(parent: Problem, reason: str, check: str) -> Variant:
    variant = Variant(
        **parent.model_dump(
            exclude={"id", "tests", "source", "parent_id", "transform", "label", "provenance"}
        ),
        id=f"{parent.id}/{ID_PART}",
        tests=[TestCase(input=test.input, origin=test.origin) for test in parent.tests],
        source={"benchmark": parent.source.get("benchmark"), "derived_from": parent.id},
        parent_id=parent.id,
        transform=TRANSFORM,
        label="metamorphic",
    )
    return decided(variant, REJECTED, check, reason)


def acceptance_by_seed(candidates: Sequence[Variant]) -> dict[str, dict[str, Any]]:
    """``{parent id: seed_acceptance}`` as recorded in the candidates' provenance."""
    found: dict[str, dict[str, Any]] = {}
    for candidate in candidates:
        value = candidate.provenance.get("seed_acceptance")
        if isinstance(value, dict):
            found[candidate.parent_id] = value
    return found


def llm_metamorphic_drafts(
    problems: Sequence[Problem],
    ctx: MorphContext,
    *,
    variants: int,
    scenarios: int,
    retries: int,
    generator: ModelSpec | str | None = None,
    judge: ModelSpec | str | None = None,
    embedder: str | None = None,
    params: GenerationParams | None = None,
    policy: RetryPolicy | None = None,
    notes: list[str] | None = None,
) -> tuple[list[Draft], list[Variant]]:
    """``variants`` LLM-retold variants per problem: (accepted drafts, rejected candidate records).

    ``generator``, ``judge``, ``embedder`` and the sampling default to the
    fields of the same names on ``ctx.options`` (``temperature``,
    ``max_tokens``, ``concurrency`` too); the judge defaults to the generator
    and decodes greedily; ``policy`` is the HTTP retry policy (default
    ``RetryPolicy()``).  The LLM cache is ``ctx.cache``, or the default one
    when the context has none.  Each attempt is finalized here (see the module
    docstring); the drafts returned passed, and their variants carry in
    provenance the generator, judge, scenario, pool, contexts, judge verdict,
    attempts and ``seed_acceptance`` ({accepted, variants, attempts, rate}).
    Lines for the user (the pool, acceptance) are appended to ``notes``.
    """
    own_cache = ctx.cache is None
    cache = ctx.cache or LLMCache()
    try:
        setup = _setup(ctx, cache, generator, judge, params, policy)
        return _run(
            problems, ctx, setup, variants, scenarios, retries, embedder or _option(ctx, "embedder"), notes
        )
    finally:
        if own_cache:
            cache.close()


def _run(
    problems: Sequence[Problem],
    ctx: MorphContext,
    setup: LlmSetup,
    variants: int,
    target: int,
    retries: int,
    embedder: str | None,
    notes: list[str] | None,
) -> tuple[list[Draft], list[Variant]]:
    notes = notes if notes is not None else []
    saved: dict[str, Any] = {}
    pool = scenario_pool(
        setup, target, embedder, lambda path, reused: saved.update(path=str(path), reused=reused)
    )
    pool_info = {
        "key": pool.key,
        "size": len(pool.scenarios),
        "target": pool.target,
        "embedding": pool.metadata.get("embedding"),
    }
    state = "reused" if saved.get("reused") else "grown"
    notes.append(
        f"scenario pool {pool.key} ({state}, {saved.get('path', '?')}): {len(pool.scenarios)} of {pool.target} "
        f"scenarios; embedding step: {'on' if (pool.metadata.get('embedding') or {}).get('used') else 'off'}"
    )
    if not pool.complete:
        notes.append(f"scenario pool {pool.key}: {pool.metadata.get('stopped', 'stopped early')}")

    with ctx.progress(f"metamorphic: references of {len(problems)} problems", len(problems)) as advance:
        prepared = ctx.engine.prepare(problems, advance)
    ready = {problem.id: problem for problem in prepared.problems}
    records: list[Variant] = []
    slots: list[Slot] = []
    texts = {"generator": setup.generator.text, "judge": setup.judge.text}
    for problem in problems:
        parent = ready.get(problem.id)
        if parent is None:
            reason = prepared.unusable.get(problem.id) or "its reference fails on every test"
            records.append(_placeholder(problem, f"the parent cannot be prepared: {reason}", "parent"))
            continue
        parts = split_prompt(parent)
        if isinstance(parts, str):
            records.append(_placeholder(parent, parts, "prompt-shape"))
            continue
        described = document.read(parent.prompt, parent.entry_point)
        if isinstance(described, str):
            records.append(_placeholder(parent, described, "prompt-shape"))
            continue
        signature = parameter_types(parent)
        if not signature.params:
            records.append(
                _placeholder(parent, "no parameter types could be inferred from the tests", "types")
            )
            continue
        rng = random.Random(f"{ctx.seed}:{parent.id}")
        taken = _identifiers(parent)
        shown: set[str] = set()  # the seed's slots share it: K retellings show different examples
        for index, scenario in enumerate(pool.sample(variants, rng)):
            slots.append(
                Slot(
                    parent,
                    parts,
                    described,
                    signature,
                    index,
                    scenario,
                    ctx.seed,
                    pool_info,
                    texts,
                    taken=taken,
                    shown=shown,
                )  # fmt: skip
            )

    for _ in range(retries + 1):
        live = [slot for slot in slots if slot.live(retries)]
        if not live:
            break
        for slot in live:
            slot.start_attempt()
        generate_contexts(live, setup, retries)
        rewrite_descriptions(live, setup, retries)
        judge_rewrites(live, setup, retries)
        check_in_sandbox(live, ctx.engine, retries, ctx.progress, everyone=slots)

    return _with_acceptance(slots, records, variants, notes)


class SeedAcceptance(TypedDict):
    """A seed's ``seed_acceptance`` in provenance: variants accepted of those asked, in how many attempts."""

    accepted: int
    variants: int
    attempts: int
    rate: float


def _with_acceptance(
    slots: Sequence[Slot], records: list[Variant], variants: int, notes: list[str]
) -> tuple[list[Draft], list[Variant]]:
    """Write ``seed_acceptance`` into every draft and record, and a summary line into ``notes``."""
    by_parent: dict[str, list[Slot]] = defaultdict(list)
    for slot in slots:
        by_parent[slot.parent.id].append(slot)
    acceptance: dict[str, SeedAcceptance] = {}
    for parent_id, own in by_parent.items():
        accepted = sum(1 for slot in own if slot.draft is not None)
        attempts = sum(slot.attempt if slot.draft is not None else len(slot.failures) for slot in own)
        acceptance[parent_id] = {
            "accepted": accepted,
            "variants": variants,
            "attempts": attempts,
            "rate": round(accepted / variants, 4) if variants else 0.0,
        }

    def stamped(variant: Variant) -> Variant:
        value = acceptance.get(variant.parent_id)
        if value is None:
            return variant
        return variant.model_copy(update={"provenance": {**variant.provenance, "seed_acceptance": value}})

    drafts: list[Draft] = []
    out: list[Variant] = [stamped(record) for record in records]
    for slot in slots:
        out += [stamped(record) for record in slot.records]
        if slot.draft is not None:
            slot.draft.variant = stamped(slot.draft.variant)
            drafts.append(slot.draft)
    if by_parent:
        accepted = sum(value["accepted"] for value in acceptance.values())
        asked = variants * len(by_parent)
        attempts = sum(value["attempts"] for value in acceptance.values())
        none = sorted(parent for parent, value in acceptance.items() if value["accepted"] == 0)
        notes.append(
            f"LLM metamorphic generator: {accepted} of {asked} variants accepted ({accepted / asked:.0%}) "
            f"in {attempts} attempts over {len(by_parent)} seed problems; per-seed rates are in provenance "
            "(seed_acceptance)" + (f"; none for {len(none)}: {', '.join(none[:10])}" if none else "")
        )
    return drafts, out
