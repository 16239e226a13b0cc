"""The CTF-Code pipeline: propose counterfactual problems with LLMs, verify them by execution, pick one each.

Each step is its own function over a list of :class:`CtfCandidate`, so tests
and users can run, inspect or replace any of them:

0. :func:`reference_parents`: a problem that ships without a reference (LiveCodeBench) gets the
   first solver solution that passes all its tests, or is left out;
1. :func:`propose`: K candidate descriptions per generator model and problem;
2. :func:`filter_by_wording`: keep D_Q <= epsilon, drop identical ones;
3. :func:`solve`: M solutions per surviving candidate from the solver model;
4. :func:`label`: run them on the parent's inputs; Bad / Robust / CTF by agreement (outputs compared
   as the engine judges them: token-wise for stdin programs);
5. :func:`measure_change`: D_S and the fraction of inputs whose output changed;
6. :func:`select`: per problem, argmax D_S - lambda * D_Q among CTF candidates;
7. :func:`finalize_ctf`: the shared ``finalize_variants`` (inherited inputs, outputs from the CTF
   solution, examples rewritten, quality checks); selection happens among the candidates it accepts.

``CtfTransform`` registers the whole pipeline as the ``ctf`` transform.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from benchmorph.core.progress import ProgressFactory, no_progress
from benchmorph.data.models import Problem, TestCase, Variant
from benchmorph.execution.compare import outputs_match
from benchmorph.execution.engine import Engine, Job, RunOutputs
from benchmorph.models import GenerationParams, LLMCache, ModelSpec, RetryPolicy, embed, parse_spec
from benchmorph.models.ask import ask
from benchmorph.models.generate import generate
from benchmorph.morph.common.figures import DEFAULT_EPSILON, DEFAULT_LAMBDA
from benchmorph.morph.finalize import Draft, decided, finalize_variants
from benchmorph.morph.transform import (
    ACCEPTED,
    REJECTED,
    MorphContext,
    MorphReport,
)
from benchmorph.morph.transforms.ctf import CtfOptions
from benchmorph.morph.transforms.ctf.prompts import parse_proposal, proposal_request
from benchmorph.testgen.augment import AugmentOptions, augment_problem
from benchmorph.validation.distances import description_distance, solution_distance

Label = Literal["bad", "robust", "ctf"]


@dataclass
class CtfCandidate:
    """One proposed counterfactual and everything learned about it on the way."""

    parent: Problem  # prepared: tests carry the original outputs
    id: str
    generator: str
    prompt_hash: str
    raw: str | None
    prompt: str | None = None
    status: str = "proposed"  # proposed, unparseable, identical, too-far, labelled
    reason: str | None = None
    d_q: float | None = None
    solutions: list[str] = field(default_factory=list)
    label: Label | None = None
    agreement: dict[str, Any] = field(default_factory=dict)
    solution: str | None = None  # the agreed (representative) solution
    agreed_outputs: list[Any] = field(default_factory=list)
    agreed_ok: list[bool] = field(default_factory=list)
    behavior_change: float | None = None
    d_s: float | None = None
    selected: bool = False
    needs_new_tests: list[str] = field(default_factory=list)
    record: Variant | None = None  # what finalize_variants made of it (CTF candidates only)

    def as_problem(self) -> Problem:
        """The candidate as a problem a solver can be asked (no reference yet)."""
        return self.parent.model_copy(
            update={"id": self.id, "prompt": self.prompt or "", "reference": "", "tests": []}
        )

    def as_variant(self, solver: str) -> Variant:
        provenance = {
            "generator": self.generator,
            "solver": solver,
            "prompt_hash": self.prompt_hash,
            "d_q": self.d_q,
            "d_s": self.d_s,
            "behavior_change": self.behavior_change,
            "label": self.label or self.status,
            "stage": self.status,
            "reason": self.reason,
            "agreement": self.agreement,
            "needs_new_tests": self.needs_new_tests,
            "selected": self.selected,
            "review_status": "unreviewed",
            "parent_reference": self.parent.reference,
            "raw": self.raw,
        }
        if self.parent.source.get("reference_from"):
            provenance["parent_reference_from"] = self.parent.source["reference_from"]
        return Variant(
            **self.parent.model_dump(exclude={"id", "prompt", "reference", "tests", "source"}),
            id=self.id,
            prompt=self.prompt or self.parent.prompt,
            reference=self.solution or "",
            tests=[TestCase(input=test.input, origin=test.origin) for test in self.parent.tests],
            source={"benchmark": self.parent.source.get("benchmark"), "derived_from": self.parent.id},
            parent_id=self.parent.id,
            transform="ctf",
            label=self.label or "bad",
            provenance=provenance,
        )


def reference_parents(
    parents: Sequence[Problem],
    solver: ModelSpec,
    solutions: int,
    engine: Engine,
    cache: LLMCache,
    params: GenerationParams,
    **options: Any,
) -> tuple[list[Problem], list[str]]:
    """Every parent with a reference, and the ids of those left out.

    D_S compares the CTF solution with the parent's reference, and the
    ``original`` baseline answers a variant with it, so a parent without one
    (LiveCodeBench ships none; its tests carry the data's outputs) gets the
    first of ``solutions`` solver solutions that passes every one of its
    tests, recorded as ``source["reference_from"]``.  A parent the solver
    cannot solve is left out rather than given an unverified reference.
    """
    missing = [parent for parent in parents if not parent.reference.strip()]
    if not missing:
        return list(parents), []
    report = generate(missing, solver, params.model_copy(update={"n": solutions}), cache, **options)
    by_id = {parent.id: parent for parent in missing}
    jobs = [
        Job(by_id[sample.task_id], sample.code, sample.task_id, sample.index)
        for sample in sorted(report.samples, key=lambda sample: (sample.task_id, sample.index))
        if sample.task_id in by_id and sample.code.strip()
    ]
    found: dict[str, str] = {}
    for job, verdict in zip(jobs, engine.evaluate(jobs), strict=True):
        if verdict.ok and job.task_id not in found:
            found[job.task_id] = job.code
    ready, left_out = [], []
    for parent in parents:
        if parent.reference.strip():
            ready.append(parent)
        elif parent.id in found:
            source = {**parent.source, "reference_from": solver.text}
            ready.append(parent.model_copy(update={"reference": found[parent.id], "source": source}))
        else:
            left_out.append(parent.id)
    return ready, left_out


def propose(
    parents: Sequence[Problem],
    generators: Sequence[ModelSpec],
    candidates: int,
    cache: LLMCache,
    params: GenerationParams,
    **options: Any,
) -> list[CtfCandidate]:
    """``candidates`` proposals per generator and parent; answers that cannot be read are marked, not dropped."""
    found: list[CtfCandidate] = []
    per_parent: dict[str, int] = defaultdict(int)
    for generator in generators:
        requests = [proposal_request(parent, generator.mode) for parent in parents]
        asked = ask(requests, generator, params.model_copy(update={"n": candidates}), cache, **options)
        for parent, request, answers in zip(parents, requests, asked.answers, strict=True):
            for answer in answers:
                number = per_parent[parent.id]
                per_parent[parent.id] += 1
                candidate = CtfCandidate(
                    parent, f"{parent.id}/ctf-{number}", generator.text, request.digest(), answer.text
                )
                if answer.text is None:
                    candidate.status, candidate.reason = "unparseable", f"generation failed: {answer.error}"
                else:
                    candidate.prompt, problem = parse_proposal(parent, request, answer.text)
                    if candidate.prompt is None:
                        candidate.status, candidate.reason = "unparseable", problem
                found.append(candidate)
    return found


def filter_by_wording(candidates: Sequence[CtfCandidate], epsilon: float = DEFAULT_EPSILON) -> None:
    """D_Q of each readable candidate; identical ones and those above epsilon are set aside."""
    for candidate in candidates:
        if candidate.status != "proposed" or candidate.prompt is None:
            continue
        parent = candidate.parent
        candidate.d_q = description_distance(parent.prompt, candidate.prompt, parent.entry_point, parent.kind)
        if candidate.d_q == 0.0 or candidate.prompt.strip() == parent.prompt.strip():
            candidate.status, candidate.reason = "identical", "the description did not change"
        elif candidate.d_q > epsilon:
            candidate.status, candidate.reason = "too-far", f"D_Q {candidate.d_q:.3f} > epsilon {epsilon}"


def solve(
    candidates: Sequence[CtfCandidate],
    solver: ModelSpec,
    solutions: int,
    cache: LLMCache,
    params: GenerationParams,
    **options: Any,
) -> None:
    """``solutions`` sanitized solutions per surviving candidate from the solver model."""
    alive = [candidate for candidate in candidates if candidate.status == "proposed"]
    if not alive:
        return
    report = generate(
        [candidate.as_problem() for candidate in alive],
        solver,
        params.model_copy(update={"n": solutions}),
        cache,
        **options,
    )
    by_task: dict[str, list[str]] = defaultdict(list)
    for sample in report.samples:
        by_task[sample.task_id].append(sample.code)
    for candidate in alive:
        candidate.solutions = by_task.get(candidate.id, [])


def _agree(parent: Problem, first: RunOutputs, second: RunOutputs) -> bool:
    """Same crashes, and outputs that match as the engine would judge them, on every input."""
    return all(
        ok_a == ok_b and (not ok_a or outputs_match(parent.kind, a, b, parent.atol, parent.strict_sequences))
        for a, b, ok_a, ok_b in zip(first.outputs, second.outputs, first.ok, second.ok, strict=True)
    )


def label(candidates: Sequence[CtfCandidate], engine: Engine, min_agreement: int = 2) -> None:
    """Bad if fewer than ``min_agreement`` solutions agree (or all crash); Robust if the agreed outputs
    equal the original's; else CTF.  Two is the paper's bar; with a weak solver, ask for more."""
    for candidate in (c for c in candidates if c.status == "proposed"):
        parent = candidate.parent
        runs = engine.run_outputs(parent, candidate.solutions) if candidate.solutions else []
        groups: list[list[int]] = []  # each led by its first run; later runs join the first that agrees
        loaded = 0
        for index, run in enumerate(runs):
            if run.error is None and any(run.ok):
                loaded += 1
                group = next((g for g in groups if _agree(parent, runs[g[0]], run)), None)
                if group is None:
                    groups.append([index])
                else:
                    group.append(index)
        largest = max(groups, key=len, default=[])
        candidate.agreement = {
            "solutions": len(candidate.solutions),
            "runnable": loaded,
            "groups": len(groups),
            "agreeing": len(largest),
        }
        candidate.status = "labelled"
        if loaded == 0:
            candidate.label, candidate.reason = "bad", "every solution crashes or none was produced"
            continue
        if len(largest) < max(2, min_agreement):
            if len(largest) < 2:
                candidate.label, candidate.reason = "bad", "no two solutions agree on the outputs"
            else:
                candidate.label = "bad"
                candidate.reason = f"only {len(largest)} solutions agree (at least {min_agreement} required)"
            continue
        chosen = runs[largest[0]]
        candidate.solution = candidate.solutions[largest[0]]
        candidate.agreed_outputs, candidate.agreed_ok = chosen.outputs, chosen.ok
        differing = [
            i
            for i, test in enumerate(parent.tests)
            if chosen.ok[i]
            and not outputs_match(
                parent.kind, test.expected, chosen.outputs[i], parent.atol, parent.strict_sequences
            )
        ]
        candidate.needs_new_tests = [
            repr(parent.tests[i].input)[:200] for i, ok in enumerate(chosen.ok) if not ok
        ]
        candidate.behavior_change = len(differing) / max(1, len(parent.tests))
        if differing:
            candidate.label = "ctf"
            candidate.reason = (
                f"{len(largest)} of {len(runs)} solutions agree; outputs differ on {len(differing)} inputs"
            )
        else:
            candidate.label = "robust"
            candidate.reason = (
                f"{len(largest)} of {len(runs)} solutions agree with the original on every input"
            )


def measure_change(candidates: Sequence[CtfCandidate], embedder: ModelSpec | str, cache: LLMCache) -> None:
    """D_S = 1 - cos(embedding of the original reference, embedding of the CTF solution)."""
    ctf = [candidate for candidate in candidates if candidate.label == "ctf" and candidate.solution]
    if not ctf:
        return
    texts = [text for candidate in ctf for text in (candidate.parent.reference, candidate.solution or "")]
    vectors = embed(texts, embedder, cache)
    for number, candidate in enumerate(ctf):
        candidate.d_s = solution_distance(vectors[2 * number], vectors[2 * number + 1])


def select(candidates: Sequence[CtfCandidate], lam: float = DEFAULT_LAMBDA) -> list[str]:
    """Mark the best finalized CTF candidate per parent; returns the parent ids that had none.

    Only candidates that ``finalize_ctf`` accepted compete: a counterfactual
    whose examples or checks fail must not win because its D_S is high.
    """
    best: dict[str, CtfCandidate] = {}
    parents: dict[str, None] = {}
    for candidate in candidates:
        parents[candidate.parent.id] = None
        if candidate.label != "ctf" or candidate.record is None:
            continue
        if candidate.record.provenance.get("status") != ACCEPTED:
            continue
        score = (candidate.d_s or 0.0) - lam * (candidate.d_q or 0.0)
        current = best.get(candidate.parent.id)
        if current is None or score > (current.d_s or 0.0) - lam * (current.d_q or 0.0):
            best[candidate.parent.id] = candidate
    for candidate in best.values():
        candidate.selected = True
    return [parent for parent in parents if parent not in best]


def finalize_ctf(candidates: Sequence[CtfCandidate], engine: Engine, solver: str) -> None:
    """Every CTF candidate through the shared ``finalize_variants``; the outcome is kept on the candidate.

    The parent's inputs are kept and their outputs recomputed with the agreed
    solution; inputs it cannot run are listed as ``needs_new_tests`` (they
    may be invalid for the new problem) rather than rejecting the variant.
    """
    ctf = [candidate for candidate in candidates if candidate.label == "ctf" and candidate.solution]
    drafts = [
        Draft(variant=candidate.as_variant(solver), parent=candidate.parent, failed_inputs="flag")
        for candidate in ctf
    ]
    finalized = finalize_variants(drafts, engine)
    for candidate, record in zip(ctf, finalized.candidates, strict=True):
        if record.provenance.get("status") == ACCEPTED and record.provenance.get("needs_new_tests"):
            record = regenerate_tests(record, engine)
        candidate.record = record
        if record.provenance.get("status") != ACCEPTED:
            candidate.reason = f"{record.provenance.get('check')}: {record.provenance.get('reason')}"


# A variant whose inherited inputs its solution cannot run gets this many new tests at most, found in
# this many seconds: enough to stand in for the inputs it lost, quick enough for a whole benchmark.
REGENERATE = AugmentOptions(per_problem=200, budget_s=10.0)


def regenerate_tests(variant: Variant, engine: Engine, options: AugmentOptions = REGENERATE) -> Variant:
    """New valid inputs for a variant flagged ``needs_new_tests``, outputs from its own solution.

    The test-generation engine mutates the inputs the solution does run on
    (type-aware, seeded), keeps those it accepts in the sandbox, and reduces
    them to a suite that keeps their coverage and mutant kills, topped up to
    at least as many tests as the variant inherited.  The flag goes when
    that many were found; the inputs it stood for stay listed as
    ``replaced_inputs``.  When too few are found the flag stays, with why.
    """
    result = augment_problem(variant, engine, options)
    needs = variant.provenance.get("needs_new_tests", [])
    tests = list(result.problem.tests)
    # The reduced suite keeps what adds coverage or kills a mutant; a variant that lost inputs also gets
    # back at least as many tests as it inherited, topped up from the other valid inputs found, evenly spread.
    target = len(variant.tests) + len(needs)
    spare = [t for t in (result.unreduced.tests if result.unreduced else []) if t not in tests]
    if len(tests) < target and spare:
        step = max(1, len(spare) // (target - len(tests)))
        tests += spare[::step][: target - len(tests)]
    added = len(tests) - len(variant.tests)
    record = {"added": added, "found": result.found, "tried": result.tried, "stopped": result.stopped}
    if result.skipped or added <= 0 or len(tests) < target:
        reason = (
            result.skipped
            or f"found {result.found} new valid inputs, short of {target} tests ({result.stopped})"
        )
        provenance = {**variant.provenance, "tests_regenerated": {**record, "failed": reason}}
        return variant.model_copy(update={"provenance": provenance})
    provenance = {key: value for key, value in variant.provenance.items() if key != "needs_new_tests"} | {
        "tests_regenerated": {**record, "replaced_inputs": needs}
    }
    return variant.model_copy(update={"tests": tests, "provenance": provenance})


def candidate_records(candidates: Sequence[CtfCandidate], solver: str) -> list[Variant]:
    """One record per candidate, for ``ctf.candidates.jsonl``: status, deciding check and reason."""
    records = []
    for candidate in candidates:
        if candidate.record is not None:
            record = candidate.record
            provenance = {**record.provenance, "selected": candidate.selected}
            if provenance.get("status") == ACCEPTED and not candidate.selected:
                provenance.update(
                    status=REJECTED,
                    check="selection",
                    reason="another CTF candidate scores higher D_S - lam D_Q",
                )
            records.append(record.model_copy(update={"provenance": provenance}))
        else:
            check = candidate.label if candidate.status == "labelled" else candidate.status
            records.append(decided(candidate.as_variant(solver), REJECTED, check, candidate.reason))
    return records


def run_pipeline(
    parents: Sequence[Problem],
    generators: Sequence[ModelSpec],
    solver: ModelSpec,
    engine: Engine,
    cache: LLMCache,
    *,
    candidates: int = 5,
    solutions: int = 3,
    epsilon: float = DEFAULT_EPSILON,
    lam: float = DEFAULT_LAMBDA,
    min_agreement: int = 2,
    embedder: ModelSpec | str = "local",
    generator_params: GenerationParams | None = None,
    solver_params: GenerationParams | None = None,
    bar: ProgressFactory | None = None,
    **options: Any,
) -> MorphReport:
    """Every step in order; ``parents`` must be prepared (tests carry the original outputs).

    ``bar(description, total)`` is a context manager yielding an ``advance(n)``
    callback; the CLI passes its progress bar so each LLM step shows one.
    """
    sampling = GenerationParams(temperature=0.8, max_tokens=1024, seed=0)
    bar = bar or no_progress
    given = len(parents)
    missing = sum(1 for parent in parents if not parent.reference.strip())
    unsolved: list[str] = []
    if missing:
        with bar("solve originals", missing * solutions) as advance:
            parents, unsolved = reference_parents(
                parents,
                solver,
                solutions,
                engine,
                cache,
                solver_params or sampling,
                progress=advance,
                **options,
            )
    with bar("propose", len(parents) * len(generators) * candidates) as advance:
        found = propose(
            parents, generators, candidates, cache, generator_params or sampling, progress=advance, **options
        )
    filter_by_wording(found, epsilon)
    alive = sum(1 for candidate in found if candidate.status == "proposed")
    with bar("solve", alive * solutions) as advance:
        solve(found, solver, solutions, cache, solver_params or sampling, progress=advance, **options)
    label(found, engine, min_agreement)
    measure_change(found, embedder, cache)
    finalize_ctf(found, engine, solver.text)
    without = select(found, lam)
    records = candidate_records(found, solver.text)
    variants = [
        record.model_copy(update={"provenance": {**record.provenance, "selected": True}})
        for record, candidate in zip(records, found, strict=True)
        if candidate.selected
    ]
    notes = [f"{len(without)} problems got no CTF candidate: " + ", ".join(without)] if without else []
    if unsolved:
        notes.append(
            f"{len(unsolved)} problems have no reference and none of the solver's {solutions} solutions "
            "passes their tests, so they were left out: " + ", ".join(unsolved)
        )
    return MorphReport("ctf", variants, records, parents=given, notes=notes)


def split_specs(text: str) -> list[str]:
    """``SPEC[,SPEC...]`` where an openai spec may itself list URLs separated by commas."""
    specs: list[str] = []
    for piece in (part.strip() for part in text.split(",")):
        if not piece:
            continue
        if specs and piece.startswith(("http://", "https://")):
            specs[-1] += "," + piece
        else:
            specs.append(piece)
    return specs


def run_ctf(problems: Sequence[Problem], ctx: MorphContext) -> MorphReport:
    """``morph run ctf``: the transform's run, loaded only when a ctf run starts."""
    options = ctx.options
    assert isinstance(options, CtfOptions)
    if ctx.cache is None:
        raise ValueError("the ctf transform needs an LLM cache in its context")
    generators = [parse_spec(text) for text in split_specs(options.generator)]
    solver = parse_spec(options.solver)
    params = GenerationParams(temperature=options.temperature, max_tokens=options.max_tokens, seed=ctx.seed)
    policy = RetryPolicy(retries=options.retries, base_delay=options.backoff, timeout=options.timeout)
    with ctx.progress(f"references {len(problems)} problems", len(problems)) as advance:
        parents = ctx.engine.prepare(problems, advance).problems
    return run_pipeline(
        parents,
        generators,
        solver,
        ctx.engine,
        ctx.cache,
        candidates=options.candidates,
        solutions=options.solutions,
        epsilon=options.epsilon,
        lam=options.lam,
        min_agreement=options.min_agreement,
        embedder=options.embedder,
        generator_params=params,
        solver_params=params,
        concurrency=options.concurrency,
        policy=policy,
        bar=ctx.progress,
    )
