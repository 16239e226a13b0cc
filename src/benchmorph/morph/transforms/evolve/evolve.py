"""The ``evolve`` transform (EvoEval): problems evolved along named types, verified by execution.

EvoEval's eight types are ``difficult``, ``creative``, ``subtle``, ``combine``,
``tool_use``, ``verbose``, ``concise`` and ``decompose``.  Two of them can be
made without a model and are built here with ``--generator rules``
(``benchmorph.morph.transforms.evolve.rules``):

- ``combine``: ``g(f(x))`` where f's outputs fit g's only parameter; the
  reference composes both references, and the tests are f's own inputs whose
  f-output lies inside what g's tests show.  Generated inputs are not added:
  they honour f's types but not the preconditions its description states in
  words ("a list of two strings", "non-negative integers", balanced
  parentheses), and a reviewed set had them break those in 17 of 72 variants;
- ``tool_use``: a helper the reference defines inside its entry point goes to
  the prompt in full, documented, and the reference calls it as given (tests
  and outputs kept); and the first step of a combined problem given as a
  helper the solution must call.

The other types need a generator model: with ``--generator rules`` they are
reported as such.  With a model spec (``--generator SPEC --solver SPEC``)
every type is written by the generator and verified by the self-consistency
loop of ``benchmorph.morph.transforms.evolve.llm`` (verbose and concise by the judge);
combine still pairs problems by type inference here.

Each variant is labelled with its EvoEval type (``label``), ``transform``
``evolve``, and ``provenance.parents`` lists every parent (for combine, f and
g; ``parent_id`` is f).  Every proposal ends in ``finalize_variants``.
"""

from __future__ import annotations

import ast
import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from benchmorph.core.progress import Advance
from benchmorph.data.models import Problem, TestCase, Variant
from benchmorph.execution.engine import Engine
from benchmorph.execution.limits import REFERENCE_LIMITS, Limits
from benchmorph.models import GenerationParams, LLMCache, parse_spec
from benchmorph.morph.common.derived import derived_variant
from benchmorph.morph.finalize import Draft, decided, finalize_variants
from benchmorph.morph.transform import (
    ACCEPTED,
    REJECTED,
    MorphContext,
    MorphReport,
)
from benchmorph.morph.transforms.evolve import RULE_TYPES, TRANSFORM, EvolveOptions, rules
from benchmorph.morph.transforms.evolve.llm import EvolveLlm, llm_evolve_drafts

MIN_INPUTS = 3  # f's own inputs that must survive the composition before a pair is tried
MAX_PARTNER_USES = 2  # a g composes with at most this many f's, so the set is not one g's variations


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


# ------------------------------------------------------------------------------------------ combine


def _input_limits(engine: Engine) -> Limits:
    """One second per input, as test generation allows a candidate input: a partner that takes longer on
    an output of f is not a partner (and a batch of slow inputs must not stall the run)."""
    return replace(engine.limits, min_time_limit=1.0, time_factor=1.0, setup_time=REFERENCE_LIMITS.setup_time)


def _pick_partners(parents: Sequence[Problem], engine: Engine, seed: int) -> tuple[dict[str, tuple[Problem, list[int]]], dict[str, tuple[str, str]]]:  # fmt: skip
    """Per f: the g it composes with and the positions of f's tests the pair keeps; per other f: why none.

    Every g runs once, in one sandbox batch, on all the f outputs it may
    receive; a pair is kept when at least MIN_INPUTS of f's inputs go through
    both without raising and the composed outputs are not (mostly) one value.
    """
    shapes = {p.id: rules.shape(p) for p in parents}
    singles = [p for p in parents if shapes[p.id].single]
    fits: dict[str, list[tuple[Problem, rules.Fit]]] = defaultdict(list)
    for f in singles:
        for g in singles:
            fit = rules.fits(f, g, shapes[f.id], shapes[g.id])
            if fit is not None and len(fit.inside) >= MIN_INPUTS:
                fits[f.id].append((g, fit))
    by_g: dict[str, dict[str, Any]] = defaultdict(dict)
    for f_id, pairs in fits.items():
        f = next(p for p in singles if p.id == f_id)
        for g, fit in pairs:
            for i in fit.inside:
                by_g[g.id][repr(f.tests[i].expected)] = f.tests[i].expected
    g_out: dict[str, dict[str, Any]] = {}
    for g in singles:
        values = by_g.get(g.id)
        if not values:
            continue
        keys = list(values)
        runs = engine.run_inputs(g, [[values[key]] for key in keys], limits=_input_limits(engine))
        g_out[g.id] = {key: run.output for key, run in zip(keys, runs, strict=True) if run.status == "ok"}
    chosen: dict[str, tuple[Problem, list[int]]] = {}
    why: dict[str, tuple[str, str]] = {}
    uses: Counter[str] = Counter()
    for f in singles:
        if not fits.get(f.id):
            why[f.id] = (
                "type-fit",
                "no single-parameter problem whose input type and range admit f's outputs",
            )
            continue
        ranked = []
        for g, fit in fits[f.id]:
            ok = [i for i in fit.inside if repr(f.tests[i].expected) in g_out.get(g.id, {})]
            outs = Counter(repr(g_out[g.id][repr(f.tests[i].expected)]) for i in ok)
            if len(ok) < MIN_INPUTS or len(outs) < 2 or outs.most_common(1)[0][1] > 0.7 * len(ok):
                continue
            tie = sum(map(ord, f"{seed}{f.id}{g.id}")) % 997
            # "take the value that step 1 returns as `n`" reads badly when f has an argument n too.
            clash = fit.g_param in rules.param_names(f)
            ranked.append((len(outs) / len(ok), len(ok), tie, g, ok, clash))
        ranked.sort(key=lambda item: (item[5], -item[0], -item[1], item[2]))
        pick = next((item for item in ranked if uses[item[3].id] < MAX_PARTNER_USES), None)
        if pick is None:
            why[f.id] = (
                "partner-runs",
                "every fitting partner raises on f's outputs, or gives (mostly) one answer",
            )
            continue
        uses[pick[3].id] += 1
        chosen[f.id] = (pick[3], pick[4])
    for f in parents:
        if f.id not in chosen and f.id not in why:
            tree = rules.parse_code(f.prompt)
            signed = tree is not None and any(isinstance(n, ast.FunctionDef) for n in tree.body)
            why[f.id] = (
                "single-function",
                "the prompt defines more than its entry point, or it is not a function"
                if signed
                else "the prompt has no def line to compose (MBPP-style prompts state the task in words)",
            )
    return chosen, why


def propose_combine(parents: Sequence[Problem], engine: Engine, seed: int,
                    advance: Advance | None = None) -> tuple[list[Draft], list[Variant]]:  # fmt: skip
    """One composition per seed f (its partner chosen by ``_pick_partners``), with worked examples."""
    chosen, why = _pick_partners(parents, engine, seed)
    by_id = {p.id: p for p in parents}
    drafts, records = [], []
    for f in parents:
        if f.id in why:
            records.append(_seed_record(f, "combine", *why[f.id]))
            continue
        g, ok = chosen[f.id]
        fit = rules.fits(f, g)
        assert fit is not None
        examples = [(f.tests[i].input, None) for i in ok[:2]]
        built = rules.combine(f, g, fit.g_param, [])
        if isinstance(built, str):
            records.append(_seed_record(f, "combine", "compose", built))
            continue
        tests = [TestCase(input=f.tests[i].input) for i in ok]
        number = "-" + g.id.rsplit("/", 1)[-1]
        variant = _variant(f, "combine", number, built.prompt, built.reference, built.entry_point, tests,
                           [f.id, g.id], partner=g.id, partner_entry_point=g.entry_point)  # fmt: skip
        # Worked examples: the composition on two of f's inputs, computed by the composed reference.
        ready = engine.prepare(
            [variant.model_copy(update={"tests": [TestCase(input=a) for a, _ in examples]})]
        )
        if ready.problems:
            shown = [(t.input, t.expected) for t in ready.problems[0].tests][:2]
            built = rules.combine(f, g, fit.g_param, shown)
            if isinstance(built, str):
                records.append(_seed_record(f, "combine", "compose", built))
                continue
            variant = variant.model_copy(update={"prompt": built.prompt, "reference": built.reference})
        drafts.append(Draft(variant=variant, parent=by_id[f.id], outputs="change", twin=False))
        if advance is not None:
            advance(1)
    return drafts, records


_ASKS_TO_WRITE = re.compile(
    r"\b(?:write|implement|create|complete|define)\b|\byour task\b|\byou (?:will|have to|need to|should|must)\b",
    re.I,
)


def tool_use_from_combine(variant: Variant, parents: dict[str, Problem]) -> Draft | str:
    """A combined problem whose first step is given in full (f's reference, docstring included) as a helper."""
    f = parents.get(variant.parent_id)
    g = parents.get(str(variant.provenance.get("partner")))
    fit = rules.fits(f, g) if f is not None and g is not None else None
    if f is None or g is None or fit is None:
        return "the combined problem's parents are not at hand"
    if _ASKS_TO_WRITE.search(rules.description(f) or ""):
        # The helper is given written: "Please write a function to... Do not use recursion." above
        # its own implementation would tell the solver to do what is done.
        return "the helper's docstring asks the reader to write it"
    shown = [(t.input, t.expected) for t in variant.tests if t.has_expected and t.origin == "base"][:2]
    built = rules.combine(f, g, fit.g_param, shown, tool=True)
    if isinstance(built, str):
        return built
    tool = _variant(f, "tool_use", "-" + g.id.rsplit("/", 1)[-1], built.prompt, built.reference,
                    built.entry_point, [TestCase(input=t.input, origin=t.origin) for t in variant.tests],
                    [f.id, g.id], helpers=[f.entry_point], partner=g.id, from_combine=variant.id)  # fmt: skip
    return Draft(variant=tool, parent=f, outputs="change", twin=False)


# ----------------------------------------------------------------------------------------- tool_use


def _helper_docstring(helper: rules.Helper, engine: Engine) -> str | None:
    """A docstring for a helper of a known name, if the helper agrees with our implementation of that name."""
    known = rules.NAMED_HELPERS.get(helper.name.lower().replace("_", "")) or rules.NAMED_HELPERS.get(
        helper.name
    )
    if known is None:
        return None
    probe = Problem(id=f"helper:{helper.name}", prompt="", reference=helper.code, entry_point=helper.name)
    runs = engine.run_inputs(probe, [[x] for x in known.inputs])
    agree = [
        run.status == "ok" and run.output == known.oracle(x)
        for x, run in zip(known.inputs, runs, strict=True)
    ]
    text = known.docstring.format(arg=helper.arg)
    if all(agree):
        return text
    if known.domain_test is not None and all(
        a for x, a in zip(known.inputs, agree, strict=True) if known.domain_test(x)
    ):
        return f"{text[:-1]}, where {known.domain.format(arg=helper.arg)}."
    return None


def propose_tool_use(parents: Sequence[Problem], engine: Engine) -> tuple[list[Draft], list[Variant]]:
    drafts, records = [], []
    for parent in parents:
        helpers = rules.nested_helpers(parent)
        if not helpers:
            records.append(
                _seed_record(parent, "tool_use", "helpers", "the reference defines no movable helper")
            )
            continue
        made = False
        for helper in helpers:
            doc = _helper_docstring(helper, engine)
            if doc is None:
                continue
            code = rules.documented(helper, doc)
            prompt = rules.with_tool(parent, code, rules.TOOL_SENTENCE.format(name=helper.name))
            solution = rules.without_helper(parent, helper)
            if prompt is None or solution is None or not solution.startswith(parent.prompt):
                continue
            reference = prompt + solution[len(parent.prompt) :]
            variant = _variant(parent, "tool_use", "", prompt, reference, parent.entry_point,
                               [TestCase(input=t.input, origin=t.origin) for t in parent.tests], [parent.id],
                               helpers=[helper.name])  # fmt: skip
            drafts.append(
                Draft(
                    variant=variant, parent=parent, outputs="keep", examples="keep", parent_defects="record"
                )
            )
            made = True
            break
        if not made:
            names = ", ".join(h.name for h in helpers)
            records.append(_seed_record(parent, "tool_use", "helper-docstring",
                                        f"no docstring we can state truly for {names}"))  # fmt: skip
    return drafts, records


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
    by_id = {p.id: p for p in parents}
    records: list[Variant] = []
    drafts: list[Draft] = []
    notes: list[str] = []
    if options.generator != "rules":
        return _run_llm(parents, ctx, options)
    for kind in options.types:
        if kind in RULE_TYPES:
            continue
        reason = "needs a generator model (--generator SPEC)"
        records.extend(_seed_record(p, kind, "needs-generator", reason) for p in parents)
        notes.append(f"{kind}: {reason}")
    if "combine" in options.types:
        with ctx.progress("evolve: combine (pairs composed)", None) as advance:
            found, dropped = propose_combine(parents, ctx.engine, ctx.seed, advance)
        drafts += found
        records += dropped
    tool_drafts: list[Draft] = []
    if "tool_use" in options.types:
        found, dropped = propose_tool_use(parents, ctx.engine)
        tool_drafts += found
        records += dropped
    with ctx.progress("evolve: finalize", None) as advance:
        finalized = finalize_variants(drafts + tool_drafts, ctx.engine, advance)
    candidates = list(finalized.candidates)
    if "tool_use" in options.types and "combine" in options.types:
        helped = {d.parent.id for d in tool_drafts}
        second = []
        for variant in finalized.variants:
            if variant.label == "combine" and variant.parent_id not in helped:
                draft = tool_use_from_combine(variant, by_id)
                if isinstance(draft, str):
                    records.append(_seed_record(by_id[variant.parent_id], "tool_use", "compose", draft))
                else:
                    second.append(draft)
        more = finalize_variants(second, ctx.engine)
        candidates += more.candidates
    variants = [c for c in candidates if c.provenance.get("status") == ACCEPTED]
    all_records = records + candidates
    notes += yield_lines(all_records, len(parents))
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
        chosen, why = _pick_partners(parents, ctx.engine, ctx.seed)
        partners = {f_id: g for f_id, (g, _) in chosen.items()}
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
    candidates = whole_decompositions(finalized.candidates)
    variants = [c for c in candidates if c.provenance.get("status") == ACCEPTED]
    all_records = records + dropped + candidates
    notes += yield_lines(all_records, seeds)
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
