"""The ``evolve`` transform (EvoEval): problems evolved along named types, verified by execution.

EvoEval's eight types are ``difficult``, ``creative``, ``subtle``, ``combine``,
``tool_use``, ``verbose``, ``concise`` and ``decompose``.  An evolved problem
must be one its parent does not already solve.  Four types are made without a
model (``--generator rules``):

- ``combine`` (``combine.py``): ``g(f(x))``, kept only where both steps
  matter, both are exercised and the suite is big enough;
- ``tool_use`` (``tool_use.py``): the parent given as a helper, and a filter
  or stable sort over a list of its inputs that calls it;
- ``decompose`` (``decompose.py``): a reference's documentable helpers as
  subproblems, tested on the arguments the parent passes them;
- ``subtle`` (``subtle.py``): the counterfactual miner's variants, through
  the transform registry, relabelled.

The other types need a generator model: with ``--generator rules`` they are
reported as such.  With a model spec (``--generator SPEC --solver SPEC``)
every type is written by the generator and verified by the self-consistency
loop of ``benchmorph.morph.transforms.evolve.llm`` (verbose and concise by the
judge); combine still pairs problems here.  Both halves end in
``finalize_variants`` with the same checks: a new problem's own suite
(``thin-suite``), programs that ignore what it adds (``solved-without``), and,
for texts quoted from parents, the composition checks.  Afterwards a
decomposition is kept whole or not at all, no two tool_use variants share a
test set, and every candidate records how much of its parents' wording it
keeps (``parent_overlap``: the share of their 8-word runs, ``validation.overlap``).

Each variant is labelled with its EvoEval type (``label``), ``transform``
``evolve``, and ``provenance.parents`` lists every parent (for combine, f and
g; ``parent_id`` is f).
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Sequence
from typing import Any

from benchmorph.data.models import Problem, TestCase, Variant
from benchmorph.models import GenerationParams, LLMCache, parse_spec
from benchmorph.morph.common.derived import derived_variant
from benchmorph.morph.finalize import Draft, decided, finalize_variants
from benchmorph.morph.transform import (
    ACCEPTED,
    REJECTED,
    MorphContext,
    MorphReport,
)
from benchmorph.morph.transforms.evolve import RULE_TYPES, TRANSFORM, EvolveOptions
from benchmorph.morph.transforms.evolve.combine import llm_partners, propose_combine
from benchmorph.morph.transforms.evolve.copies import copies_of_benchmark
from benchmorph.morph.transforms.evolve.decompose import propose_decompose
from benchmorph.morph.transforms.evolve.llm import EvolveLlm, llm_evolve_drafts
from benchmorph.morph.transforms.evolve.subtle import propose_subtle
from benchmorph.morph.transforms.evolve.tool_use import propose_tool_use
from benchmorph.validation.checks.base import value_key
from benchmorph.validation.distances import description_text
from benchmorph.validation.overlap import ngram_share

OVERLAP_N = 8  # words per run in the overlap figure


def _variant(parent: Problem, kind: str, number: str, prompt: str, reference: str, entry_point: str,
             tests: list[TestCase], parents: list[str], **provenance: Any) -> Variant:  # fmt: skip
    return derived_variant(
        parent,
        id=f"{parent.id}/evolve-{kind}{number}",
        entry_point=entry_point,
        prompt=prompt,
        reference=reference,
        tests=tests,
        contract=None,  # the parent's contract speaks of the parent's inputs
        transform=TRANSFORM,
        label=kind,
        provenance={"evolve_type": kind, "generator": "rules", "parents": parents, **provenance},
    )


def _seed_record(parent: Problem, kind: str, check: str, reason: str) -> Variant:
    """A candidate record for a seed that yielded no proposal, so the yield table counts it."""
    stub = _variant(parent, kind, "", parent.prompt, parent.reference, parent.entry_point, [], [parent.id])
    return decided(stub, REJECTED, check, reason)


# ---------------------------------------------------------------------------------------- transform


def yield_lines(candidates: Sequence[Variant], seeds: int) -> list[str]:
    """Per type: seeds that became accepted variants, and the count of each reason the others dropped."""
    lines = []
    for kind in dict.fromkeys(str(c.label) for c in candidates):
        mine = [c for c in candidates if c.label == kind]
        accepted = {c.parent_id for c in mine if c.provenance.get("status") == ACCEPTED}
        reasons = Counter(
            str(c.provenance.get("check")) for c in mine if c.provenance.get("status") != ACCEPTED
        )
        dropped = ", ".join(f"{check} {count}" for check, count in reasons.most_common())
        lines.append(
            f"{kind}: {len(accepted)} of {seeds} seeds gave an accepted variant; dropped: {dropped or 'none'}"
        )
    return lines


def run_evolve(problems: Sequence[Problem], ctx: MorphContext) -> MorphReport:
    """``morph run evolve``: the transform's run, loaded only when an evolve run starts."""
    options = ctx.options
    assert isinstance(options, EvolveOptions)
    with ctx.progress(f"evolve: prepare {len(problems)} problems", len(problems)) as advance:
        parents = ctx.engine.prepare(list(problems), advance).problems
    if options.generator != "rules":
        return _run_llm(parents, ctx, options)
    records: list[Variant] = []
    drafts: list[Draft] = []
    notes: list[str] = []
    for kind in options.types:
        if kind in RULE_TYPES:
            continue
        reason = "needs a generator model (--generator SPEC)"
        records.extend(_seed_record(p, kind, "needs-generator", reason) for p in parents)
        notes.append(f"{kind}: {reason}")
    for kind in ("combine", "tool_use", "decompose"):
        if kind not in options.types:
            continue
        with ctx.progress(f"evolve: {kind}", len(parents) if kind == "combine" else None) as advance:
            if kind == "combine":
                found, dropped = propose_combine(parents, ctx.engine, ctx.seed, _variant, advance)
            elif kind == "tool_use":
                found, dropped = propose_tool_use(parents, ctx.engine, ctx.seed, _variant)
            else:
                found, dropped = propose_decompose(parents, ctx.engine, _variant)
        drafts += found
        records += [_seed_record(parent, kind, check, reason) for parent, check, reason in dropped]
    with ctx.progress("evolve: finalize", None) as advance:
        finalized = finalize_variants(drafts, ctx.engine, advance)
    candidates = distinct_test_sets(whole_decompositions(finalized.candidates))
    with ctx.progress("evolve: copies of the benchmark", None):
        candidates = copies_of_benchmark(candidates, parents, ctx.engine)
    if "subtle" in options.types:
        with ctx.progress("evolve: subtle (the miner's rules)", None):
            mined = propose_subtle(parents, ctx)
        candidates += mined.candidates
        notes += mined.notes
    by_id = {p.id: p for p in parents}
    candidates = [with_overlap(c, by_id) for c in candidates]
    variants = [c for c in candidates if c.provenance.get("status") == ACCEPTED]
    all_records = records + candidates
    notes += yield_lines(all_records, len(parents)) + overlap_lines(variants)
    return MorphReport(TRANSFORM, variants, all_records, parents=len(parents), notes=notes)


def _run_llm(parents: list[Problem], ctx: MorphContext, options: EvolveOptions) -> MorphReport:
    """Every type written by the generator model and verified (``benchmorph.morph.transforms.evolve.llm``)."""
    records: list[Variant] = []
    notes: list[str] = []
    partners: dict[str, Problem] = {}
    seeds = len(parents)
    others = [p for p in parents if p.kind != "function"]
    for kind in options.types:
        records += [_seed_record(p, kind, "kind", f"evolve writes functions; this is a {p.kind} problem")
                    for p in others]  # fmt: skip
    parents = [p for p in parents if p.kind == "function"]
    if "combine" in options.types:
        chosen, why = llm_partners(parents, ctx.engine, ctx.seed)
        partners = chosen
        records += [_seed_record(p, "combine", *why[p.id]) for p in parents if p.id in why]
    own_cache = ctx.cache is None
    cache = ctx.cache or LLMCache()
    try:
        setup = llm_setup(options, cache, ctx)
        drafts, dropped = llm_evolve_drafts(parents, options.types, ctx.engine, setup, partners, notes)
        with ctx.progress("evolve: finalize", None) as advance:
            finalized = finalize_variants(drafts, ctx.engine, advance)
    finally:
        if own_cache:
            cache.close()
    by_id = {p.id: p for p in parents} | partners
    candidates = distinct_test_sets(whole_decompositions(finalized.candidates))
    candidates = copies_of_benchmark(candidates, parents, ctx.engine)
    candidates = [with_overlap(c, by_id) for c in candidates]
    variants = [c for c in candidates if c.provenance.get("status") == ACCEPTED]
    all_records = records + dropped + candidates
    notes += yield_lines(all_records, seeds) + overlap_lines(variants)
    return MorphReport(TRANSFORM, variants, all_records, parents=seeds, notes=notes)


def llm_setup(options: EvolveOptions, cache: LLMCache, ctx: MorphContext) -> EvolveLlm:
    """The generator, solver and judge of an LLM evolve run, with their sampling."""
    generator = parse_spec(options.generator)
    solver = parse_spec(options.solver) if options.solver else generator
    judge = parse_spec(options.judge) if options.judge else generator
    params = GenerationParams(temperature=options.temperature, max_tokens=options.max_tokens, seed=ctx.seed)
    solver_params = GenerationParams(temperature=options.temperature, max_tokens=min(options.max_tokens, 1024),
                                     n=options.solutions, seed=ctx.seed)  # fmt: skip
    judge_params = GenerationParams(temperature=0.0, max_tokens=512, seed=0)
    return EvolveLlm(
        generator, solver, judge, cache, params, solver_params, judge_params, solutions=options.solutions,
        rounds=options.rounds, tests=min(options.tests, 20) or 10, seed=ctx.seed,
        concurrency=options.concurrency, progress=ctx.progress,
    )  # fmt: skip


def whole_decompositions(candidates: Sequence[Variant]) -> list[Variant]:
    """A decomposition is published whole: when one of its parts is not accepted, neither are the others."""
    broken = {
        str(c.provenance.get("decomposition"))
        for c in candidates
        if c.provenance.get("decomposition") and c.provenance.get("status") != ACCEPTED
    }
    out = []
    for candidate in candidates:
        group = candidate.provenance.get("decomposition")
        if group and str(group) in broken and candidate.provenance.get("status") == ACCEPTED:
            candidate = decided(
                candidate, REJECTED, "decompose-part", "another part of the decomposition was rejected"
            )
        out.append(candidate)
    return out


def distinct_test_sets(candidates: Sequence[Variant]) -> list[Variant]:
    """An accepted tool_use variant whose test set (inputs and expected outputs) another accepted variant
    already has is rejected: a reviewed set held tool_use variants that were their combine twin's tests."""
    seen: dict[str, str] = {}
    out = []
    for candidate in candidates:
        if candidate.provenance.get("status") == ACCEPTED:
            key = value_key([[t.input, t.expected] for t in candidate.tests])
            if key in seen and candidate.label == "tool_use":
                candidate = decided(candidate, REJECTED, "shared-tests", f"the same tests as {seen[key]}")
            else:
                seen.setdefault(key, candidate.id)
        out.append(candidate)
    return out


def with_overlap(candidate: Variant, parents: dict[str, Problem]) -> Variant:
    """The candidate with ``provenance.parent_overlap``: the share of its parents' 8-word runs its
    description keeps (None where the parents' descriptions are too short to say)."""
    named = candidate.provenance.get("parents") or [candidate.parent_id]
    known = [parents[pid] for pid in named if isinstance(pid, str) and pid in parents]
    if not known:
        return candidate
    text = description_text(candidate.prompt, candidate.entry_point, candidate.kind)
    references = [description_text(p.prompt, p.entry_point, p.kind) for p in known]
    share = ngram_share(text, references, OVERLAP_N)
    value = None if share is None else round(share, 4)
    return candidate.model_copy(update={"provenance": {**candidate.provenance, "parent_overlap": value}})


def overlap_lines(variants: Sequence[Variant]) -> list[str]:
    """Per type: how much of the parents' wording the accepted variants keep (median and range)."""
    lines = []
    for kind in dict.fromkeys(str(v.label) for v in variants):
        shares = [
            float(v.provenance["parent_overlap"])
            for v in variants
            if v.label == kind and v.provenance.get("parent_overlap") is not None
        ]
        if shares:
            lines.append(
                f"{kind}: parent overlap (share of the parents' {OVERLAP_N}-word runs kept) median "
                f"{statistics.median(shares):.2f}, range {min(shares):.2f}-{max(shares):.2f} over {len(shares)} variants"
            )
    return lines
