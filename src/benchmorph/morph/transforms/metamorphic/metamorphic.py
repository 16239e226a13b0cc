"""The ``metamorphic`` transform (DyCodeEval): K meaning-preserving rewrites of every seed problem.

A contaminated model scores high on a problem it has seen and low on the same
problem told differently; a model that reasons scores the same.  This
transform makes the "told differently" part: each variant keeps the parent's
algorithm, reference behaviour and test inputs (every output must stay the
same: ``Draft(outputs="keep")``), and changes only the text a model reads.

Two generators propose the rewrites:

- ``--generator rules`` (default, offline, deterministic by ``--seed``):
  ``benchmorph.morph.transforms.metamorphic.rules`` retells the whole problem:
  descriptive names for the function and its parameters, the scenario's nouns
  woven into the prose, sentences told in other structures and words, new
  worked examples from the tests;
- ``--generator SPEC``: the LLM agents of ``benchmorph.morph.transforms.metamorphic.agents``
  (scenario pool, contexts, rewriter, judge), imported only on this branch.

Either way every proposal ends in the shared ``finalize_variants``; the
variants carry their per-seed acceptance (``seed_acceptance``) and their
BLEU-4 diversity (``bleu_external`` against the original, ``bleu_internal``
among the variants of one seed) in provenance, summarised in the report notes.
"""

from __future__ import annotations

import importlib
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from benchmorph.data.errors import InputError
from benchmorph.data.models import Problem, TestCase, Variant
from benchmorph.models.embed import embed
from benchmorph.morph.finalize import SIBLINGS, Draft, decided, finalize_variants
from benchmorph.morph.transform import (
    ACCEPTED,
    REJECTED,
    MorphContext,
    MorphReport,
)
from benchmorph.morph.transforms.metamorphic import RULES, TRANSFORM, MetamorphicOptions
from benchmorph.morph.transforms.metamorphic.retelling import retelling_draft
from benchmorph.morph.transforms.metamorphic.rules import (
    RuleVariant,
    check_signature,
    prepare_seed,
    retell_problem,
)
from benchmorph.validation.checks.base import CheckInput, Finding, checks_for
from benchmorph.validation.diversity import (
    collision_probability,
    embedding_similarity,
    measure,
    with_diversity,
)

AGENTS_MODULE = "benchmorph.morph.transforms.metamorphic.agents"
# A rules retelling none of whose sentences was turned round (``grammar.Retold.turned``: every one told with
# a new frame around its phrases in their own order, and synonyms) is not proposed: the strict reviews
# failed such retellings as recognisable from the parent's wording, and they can slip under the residual
# gates when the parent is short ("Return maximum element in the list." -> "Output highest member in the
# list of altitude changes").  Recorded as a rejected candidate under this name.
TURNED = "turned-round"
NOT_TURNED = (
    "fewer than half of its sentences are turned round: the rest is a new frame and synonyms around the "
    "parent's phrases"
)


def turned_enough(sentences: Mapping[str, int]) -> bool:
    """Whether at least half of a retelling's prose sentences (one at the least) were turned round: a
    strict review failed HumanEval/90's retelling whose one turned sentence of three left "a function to
    produce the 2nd lowest member of the list" to be read as the parent's."""
    if "turned" not in sentences:
        return True  # not a rules retelling's counts
    prose = sentences.get("restated", 0) + sentences.get("unrestated", 0)
    return sentences["turned"] >= max(1, (prose + 1) // 2)


def _variant(parent: Problem, proposal: RuleVariant, seed: int) -> Variant:
    """The Variant a rules proposal stands for: inputs inherited, outputs to be recomputed."""
    provenance: dict[str, Any] = {
        "generator": RULES,
        "scenario": proposal.scenario,
        "renames": proposal.renames,
        "seed": seed,
        "index": proposal.index,
        "parent_prompt": parent.prompt,
        "review_status": "unreviewed",
        **proposal.details,
    }
    if proposal.entry_point != parent.entry_point:
        provenance["renamed_from"] = parent.entry_point
    return Variant(
        **parent.model_dump(
            exclude={"id", "entry_point", "prompt", "reference", "tests", "source", "contract"}
        ),
        id=f"{parent.id}/meta-{proposal.index}",
        entry_point=proposal.entry_point,
        prompt=proposal.prompt,
        reference=proposal.reference,
        contract=proposal.contract,
        tests=[TestCase(input=test.input, origin=test.origin) for test in parent.tests],
        source={"benchmark": parent.source.get("benchmark"), "derived_from": parent.id},
        parent_id=parent.id,
        transform=TRANSFORM,
        label="metamorphic",
        provenance=provenance,
    )


def screen(draft: Draft, siblings: Sequence[Variant]) -> tuple[Finding | None, dict[str, float]]:
    """The first finding of the retelling gates that read only text (every registered check the draft
    offers that reads ``rewording``), with ``siblings`` the retellings kept before it, or None.

    The rules generator screens its attempts with these before the sandbox, so that a retelling that
    fails one is regenerated; ``finalize_variants`` runs the same checks again on what it keeps.  The
    figures the checks measured come back with the finding.
    """
    item = CheckInput(variant=draft.variant, parent=draft.parent)
    text_only = [check for check in checks_for(draft.offers()) if "rewording" in check.reads]
    for check in text_only:
        if SIBLINGS in check.reads:
            continue
        found = check(item)
        if found is not None and found.severity == "reject":
            return found, item.figures
    item.siblings = list(siblings)
    for check in text_only:
        if SIBLINGS not in check.reads:
            continue
        found = check(item)
        if found is not None and found.severity == "reject":
            return found, item.figures
    return None, item.figures


# A slot whose retellings pass every gate but ``sibling-distinct`` is one the grammar can fill: its attempts
# differ from the kept siblings only in the choices an index makes (frame, template, scenario, examples), so
# it tries this many more indices before it is dropped.  Nothing a gate measures is changed by trying more.
SIBLING_CHECK = "sibling-distinct"
SIBLING_RETRIES = 12
# Two retellings whose every sentence is told in the same form (shape and template, or the same
# restatements) differ only in their words and names; a reader sees one text twice (review 24f: HumanEval/31's
# "Say whether a supplied / provided number is prime"), so the later one is rejected as not distinct.
SAME_FORMS = "every sentence is told in the same structure as sibling {twin}'s: only the words differ"


def retelling_index(slot: int, attempt: int, variants: int) -> int:
    """The retelling attempt ``attempt`` of slot ``slot`` tries: ``slot + attempt * variants + T(attempt)``
    (``T`` the triangular numbers), distinct for every slot and attempt.

    Templates are picked by the index modulo their number, so ``slot + attempt * variants`` alone gave
    every attempt of a slot the same template wherever that number divides ``variants`` (five
    container-first forms at K = 5: HumanEval/29's slot 1 tried "Keep only the members of ..." 16
    times); the added ``T(attempt)`` moves each attempt to another one.
    """
    return slot + attempt * variants + attempt * (attempt + 1) // 2


def rules_drafts(
    parents: Sequence[Problem], seed: int, variants: int, rename_entry_point: bool = True, retries: int = 0
) -> tuple[list[Draft], list[Variant], list[str]]:
    """Drafts of the rules generator for prepared parents: (drafts, rejected records, skip notes).

    Each of a seed's ``variants`` slots tries up to ``retries + 1`` retellings
    (attempt ``a`` of slot ``s`` is retelling :func:`retelling_index`: other
    templates, words, scenario and examples) and keeps the first that passes
    the text gates against the slots kept before it (:func:`screen`); a slot
    one of whose attempts failed only ``sibling-distinct`` tries
    ``SIBLING_RETRIES`` more.  Each failed attempt is a rejected candidate
    ``<id>/attempt-<a>`` with its check and reason (the slot's last one keeps
    the slot's id).  Only a kept retelling's example inputs count as shown:
    later siblings avoid those, not a rejected attempt's.
    """
    drafts: list[Draft] = []
    records: list[Variant] = []
    skipped: list[str] = []
    for parent in parents:
        prepared = prepare_seed(parent, seed)
        if isinstance(prepared, str):
            skipped.append(f"{parent.id} ({prepared})")
            continue
        kept: list[Variant] = []
        kept_forms: list[tuple[str, tuple[str, ...]]] = []
        made_any = False
        reasons: list[str] = []
        for slot in range(variants):
            failed: list[tuple[Variant, int, str, str]] = []  # (variant, attempt, check, reason)
            budget = retries + 1
            attempt = -1
            while attempt + 1 < budget:
                attempt += 1
                made = retell_problem(prepared, retelling_index(slot, attempt, variants), rename_entry_point)
                if isinstance(made, str):
                    reasons.append(made)
                    continue
                made_any = True
                made.index = slot
                variant = _variant(parent, made, seed)
                problem = check_signature(parent, variant.prompt, variant.reference, variant.entry_point)
                if problem is not None:
                    failed.append((variant, attempt, "signature", problem))
                    continue
                if not turned_enough(made.details.get("sentences", {})):
                    failed.append((variant, attempt, TURNED, NOT_TURNED))
                    continue
                twin = next((other for other, forms in kept_forms if forms == made.forms), None)
                if twin is not None:
                    failed.append((variant, attempt, SIBLING_CHECK, SAME_FORMS.format(twin=twin)))
                    budget = retries + 1 + SIBLING_RETRIES
                    continue
                draft = retelling_draft(variant, parent)
                found, figures = screen(draft, kept)
                if found is not None:
                    variant = variant.model_copy(
                        update={"provenance": {**variant.provenance, "figures": dict(figures)}}
                    )
                    failed.append((variant, attempt, found.check, found.reason))
                    if found.check == SIBLING_CHECK:
                        budget = retries + 1 + SIBLING_RETRIES
                    continue
                variant = variant.model_copy(
                    update={"provenance": {**variant.provenance, "attempts": attempt + 1}}
                )
                draft.variant = variant
                kept.append(variant)
                kept_forms.append((variant.id, made.forms))
                drafts.append(draft)
                prepared.shown.update(made.example_inputs)
                failed.append((variant, -1, "", ""))  # a marker: the slot was filled
                break
            filled = bool(failed) and failed[-1][1] == -1
            tried = failed[:-1] if filled else failed
            for position, (variant, at, check, reason) in enumerate(tried):
                last = not filled and position == len(tried) - 1
                record_id = variant.id if last else f"{variant.id}/attempt-{at + 1}"
                records.append(_attempt(variant, record_id, at, check, reason, last))
        if not made_any:
            skipped.append(f"{parent.id} ({reasons[0] if reasons else 'no retelling could be made'})")
    return drafts, records, skipped


def _attempt(variant: Variant, record_id: str, attempt: int, check: str, reason: str, last: bool) -> Variant:
    """A rejected attempt as a candidate record; the last one of a slot keeps the slot's id."""
    shown = reason if not last or attempt == 0 else f"dropped after {attempt + 1} attempts; last: {reason}"
    provenance = {**variant.provenance, "attempts": attempt + 1, "regenerated": not last}
    return decided(
        variant.model_copy(update={"id": record_id, "provenance": provenance}), REJECTED, check, shown
    )


def llm_drafts(
    problems: Sequence[Problem], ctx: MorphContext, options: MetamorphicOptions, notes: list[str]
) -> tuple[list[Draft], list[Variant]]:
    """The LLM agents' drafts, imported only now: the rules generator works without them."""
    try:
        agents = importlib.import_module(AGENTS_MODULE)
    except ImportError as exc:
        raise InputError(
            f"metamorphic --generator {options.generator}: the LLM generator ({AGENTS_MODULE}) cannot be "
            f"imported ({exc}); use --generator rules"
        ) from None
    function = getattr(agents, "llm_metamorphic_drafts", None)
    if function is None:
        raise InputError(
            f"metamorphic --generator {options.generator}: {AGENTS_MODULE} has no llm_metamorphic_drafts; "
            "use --generator rules"
        )
    drafts, records = function(
        problems,
        ctx,
        variants=options.variants,
        scenarios=options.scenarios,
        retries=options.retries,
        notes=notes,
    )
    return list(drafts), list(records)


def acceptance(candidates: Sequence[Variant], asked: int) -> dict[str, dict[str, Any]]:
    """Per seed problem: {accepted, variants (asked), attempts (candidates considered), rate}."""
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for candidate in candidates:
        counts[candidate.parent_id][1] += 1
        counts[candidate.parent_id][0] += int(candidate.provenance.get("status") == ACCEPTED)
    return {
        parent: {
            "accepted": accepted,
            "variants": asked,
            "attempts": attempts,
            "rate": round(min(accepted, asked) / asked, 4) if asked else 0.0,
        }
        for parent, (accepted, attempts) in counts.items()
    }


def _stamp(variant: Variant, key: str, value: Any) -> Variant:
    return variant.model_copy(update={"provenance": {**variant.provenance, key: value}})


def publish(
    parents: Sequence[Problem],
    drafts: Sequence[Draft],
    records: Sequence[Variant],
    ctx: MorphContext,
    variants: int,
    notes: list[str],
) -> MorphReport:
    """Finalize the drafts, measure diversity, record acceptance per seed: the report both generators end in."""
    with ctx.progress(f"metamorphic: check {len(drafts)} variants", len(drafts)) as advance:
        finalized = finalize_variants(drafts, ctx.engine, advance)
    by_id = {parent.id: parent for parent in parents}
    diversity = measure(finalized.variants, by_id)
    accepted = {variant.id for variant in finalized.variants}
    candidates = [*records, *finalized.candidates]
    rates = acceptance(candidates, variants)
    own = [
        candidate
        if "seed_acceptance" in candidate.provenance
        else _stamp(candidate, "seed_acceptance", rates[candidate.parent_id])
        for candidate in candidates
    ]
    # The memorizer baseline and the review export read the original's prompt from provenance; the
    # rules generator records it, the LLM agents may not.
    own = [
        candidate
        if "parent_prompt" in candidate.provenance or candidate.parent_id not in by_id
        else _stamp(candidate, "parent_prompt", by_id[candidate.parent_id].prompt)
        for candidate in own
    ]
    own = with_diversity(own, diversity)
    own = _with_collisions(own, parents, ctx, variants, notes)
    own = _with_embedding_similarity(own, finalized.variants, by_id, ctx, notes)
    order = {parent.id: position for position, parent in enumerate(parents)}
    own.sort(key=lambda variant: (order.get(variant.parent_id, len(order)), variant.id))
    published = [candidate for candidate in own if candidate.id in accepted]
    if rates:
        mean = sum(value["rate"] for value in rates.values()) / len(rates)
        full = sum(1 for value in rates.values() if value["accepted"] >= variants)
        lowest = sorted(rates.items(), key=lambda item: (item[1]["rate"], item[0]))[:5]
        notes.append(
            f"acceptance per seed problem: mean {mean:.3f}; {full} of {len(rates)} seeds have all {variants} "
            "variants; lowest: " + ", ".join(f"{pid} {value['rate']:.2f}" for pid, value in lowest)
        )
    notes.append(diversity.summary())
    notes.extend(gate_summary(published, variants))
    return MorphReport(TRANSFORM, published, own, parents=len(parents), notes=notes)


def gate_summary(published: Sequence[Variant], k: int) -> list[str]:
    """Lines for the report: the retelling gates' figures on what was published, and the seeds with all K."""
    from statistics import median

    if not published:
        return []
    figures: dict[str, list[float]] = defaultdict(list)
    for variant in published:
        for key, value in (variant.provenance.get("figures") or {}).items():
            figures[key].append(float(value))
    shown = [
        f"{label} median {median(figures[key]):.3f} (max {max(figures[key]):.3f})"
        for key, label in (
            ("residual_bleu4", "BLEU-4 with examples"),
            ("residual_runs8", "8-word runs kept"),
            ("residual_difflib", "difflib ratio"),
            ("sibling_bleu4", "BLEU-4 to the closest earlier sibling"),
        )
        if figures.get(key)
    ]
    per_seed: dict[str, int] = defaultdict(int)
    for variant in published:
        per_seed[variant.parent_id] += 1
    full = sum(1 for count in per_seed.values() if count >= k)
    return [
        "retelling gates, on the published variants (residual: renames mapped back, scenario words out): "
        + "; ".join(shown),
        f"seeds with all {k} variants: {full} of {len(per_seed)}: DyPass@{k} is measured on these "
        f"(DyPass@k on the seeds with at least k)",
    ]


def _with_collisions(
    candidates: list[Variant], parents: Sequence[Problem], ctx: MorphContext, k: int, notes: list[str]
) -> list[Variant]:
    """Each candidate's seed's expected collision probability, from the pool its scenarios are drawn from."""
    options = ctx.options if isinstance(ctx.options, MetamorphicOptions) else MetamorphicOptions()
    pools: dict[str, int] = {}
    for parent in parents:
        if options.generator != RULES:
            pools[parent.id] = options.scenarios
            continue
        seed = prepare_seed(parent, ctx.seed)
        if not isinstance(seed, str) and seed.scenes:
            pools[parent.id] = len(seed.scenes)
    chances = {pid: round(collision_probability(pool, k), 4) for pid, pool in pools.items()}
    if chances:
        what = (
            "scenario pool" if options.generator != RULES else "scenarios whose nouns fit the seed's inputs"
        )
        notes.append(
            f"expected collision probability (two independent sets of {k} variants of a seed share a "
            f"scenario; {what}): "
            f"mean {sum(chances.values()) / len(chances):.3f} over {len(chances)} seeds"
        )
    return [
        _stamp(candidate, "collision_probability", chances[candidate.parent_id])
        if candidate.parent_id in chances
        else candidate
        for candidate in candidates
    ]


def _with_embedding_similarity(
    candidates: list[Variant],
    accepted: Sequence[Variant],
    parents: Mapping[str, Problem],
    ctx: MorphContext,
    notes: list[str],
) -> list[Variant]:
    """With ``--embedder``: each accepted variant's description embedding similarity with its original's."""
    options = ctx.options if isinstance(ctx.options, MetamorphicOptions) else MetamorphicOptions()
    if not options.embedder:
        notes.append("embedding similarity to the originals: not measured (pass --embedder SPEC)")
        return candidates
    similarity = embedding_similarity(
        accepted, parents, lambda texts: embed(texts, options.embedder or "local", ctx.cache)
    )
    if similarity:
        notes.append(
            f"embedding similarity of descriptions to the originals ({options.embedder}): mean "
            f"{sum(similarity.values()) / len(similarity):.3f}"
        )
    return [
        _stamp(candidate, "embedding_similarity", similarity[candidate.id])
        if candidate.id in similarity
        else candidate
        for candidate in candidates
    ]


def run_metamorphic(problems: Sequence[Problem], ctx: MorphContext) -> MorphReport:
    """``morph run metamorphic``: the transform's run, loaded only when a metamorphic run starts."""
    options = ctx.options
    assert isinstance(options, MetamorphicOptions)
    notes: list[str] = []
    functions = [problem for problem in problems if problem.kind == "function"]
    others = [problem for problem in problems if problem.kind != "function"]
    if others:
        shown = ", ".join(f"{problem.id} ({problem.kind})" for problem in others[:10])
        more = f" and {len(others) - 10} more" if len(others) > 10 else ""
        notes.append(f"{len(others)} problems skipped: only function problems are rewritten: {shown}{more}")
    if options.generator != RULES:
        drafts, records = llm_drafts(functions, ctx, options, notes)
        parents = [draft.parent for draft in drafts]
        known = {parent.id: parent for parent in parents}
        ordered = [known.get(problem.id, problem) for problem in functions]
        return publish(ordered, drafts, records, ctx, options.variants, notes)
    with ctx.progress(f"metamorphic: references of {len(functions)} problems", len(functions)) as advance:
        prepared = ctx.engine.prepare(functions, advance)
    for problem_id, reason in sorted(prepared.unusable.items()):
        notes.append(f"{problem_id} skipped: its reference cannot be run ({reason})")
    drafts, records, skipped = rules_drafts(
        prepared.problems, ctx.seed, options.variants, options.rename_entry_point, options.retries
    )
    if skipped:
        notes.append(f"{len(skipped)} problems skipped by the rules generator: " + "; ".join(skipped))
    report = publish(prepared.problems, drafts, records, ctx, options.variants, notes)
    report.parents = len(problems)
    return report
