"""The CTF-Code pipeline: propose counterfactual problems with LLMs, verify them by execution, pick one each.

Each step is its own function over a list of :class:`CtfCandidate`, so tests
and users can run, inspect or replace any of them:

1. :func:`propose`: K candidate descriptions per generator model and problem;
2. :func:`filter_by_wording`: keep D_Q <= epsilon, drop identical ones;
3. :func:`solve`: M solutions per surviving candidate from the solver model;
4. :func:`label`: run them on the parent's inputs; Bad / Robust / CTF by agreement;
5. :func:`measure_change`: D_S and the fraction of inputs whose output changed;
6. :func:`select`: per problem, argmax D_S - lambda * D_Q among CTF candidates;
7. :func:`complete_tests`: inherited inputs, outputs from the CTF solution, examples rewritten.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from typing import Any, Literal

from benchmorph.data import values
from benchmorph.data.models import Problem, TestCase, Variant
from benchmorph.execution.compare import values_match
from benchmorph.execution.engine import Engine
from benchmorph.models import GenerationParams, LLMCache, ModelSpec, embed
from benchmorph.models.ask import ask
from benchmorph.models.generate import generate
from benchmorph.morph.ctf_prompts import parse_proposal, proposal_request
from benchmorph.validation.distances import description_distance, solution_distance
from benchmorph.validation.example_check import with_recomputed_examples

Label = Literal["bad", "robust", "ctf"]
BarFactory = Callable[[str, int], AbstractContextManager[Callable[[int], None]]]


@contextmanager
def _no_bar(description: str, total: int) -> Iterator[Callable[[int], None]]:
    yield lambda count: None


DEFAULT_EPSILON = 0.13
DEFAULT_LAMBDA = 1.2


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
            "status": self.status,
            "reason": self.reason,
            "agreement": self.agreement,
            "needs_new_tests": self.needs_new_tests,
            "selected": self.selected,
            "review_status": "unreviewed",
            "parent_reference": self.parent.reference,
            "raw": self.raw,
        }
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


@dataclass
class PipelineReport:
    candidates: list[CtfCandidate]
    variants: list[Variant]
    counts: dict[str, int]
    without_ctf: list[str]  # parent ids with no CTF candidate


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
        candidate.d_q = description_distance(parent.prompt, candidate.prompt, parent.entry_point)
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


def _signature(outputs: list[Any], ok: list[bool]) -> str:
    return json.dumps(
        [values.encode(value) if good else "<crash>" for value, good in zip(outputs, ok, strict=True)],
        sort_keys=True,
    )


def label(candidates: Sequence[CtfCandidate], engine: Engine, min_agreement: int = 2) -> None:
    """Bad if fewer than ``min_agreement`` solutions agree (or all crash); Robust if the agreed outputs
    equal the original's; else CTF.  Two is the paper's bar; with a weak solver, ask for more."""
    for candidate in (c for c in candidates if c.status == "proposed"):
        parent = candidate.parent
        runs = engine.run_outputs(parent, candidate.solutions) if candidate.solutions else []
        groups: dict[str, list[int]] = defaultdict(list)
        loaded = 0
        for index, run in enumerate(runs):
            if run.error is None and any(run.ok):
                loaded += 1
                groups[_signature(run.outputs, run.ok)].append(index)
        largest = max(groups.values(), key=len, default=[])
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
            and not values_match(test.expected, chosen.outputs[i], parent.atol, parent.strict_sequences)
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
    """Mark the best CTF candidate per parent; returns the parent ids that had none."""
    best: dict[str, CtfCandidate] = {}
    parents: dict[str, None] = {}
    for candidate in candidates:
        parents[candidate.parent.id] = None
        if candidate.label != "ctf":
            continue
        score = (candidate.d_s or 0.0) - lam * (candidate.d_q or 0.0)
        current = best.get(candidate.parent.id)
        if current is None or score > (current.d_s or 0.0) - lam * (current.d_q or 0.0):
            best[candidate.parent.id] = candidate
    for candidate in best.values():
        candidate.selected = True
    return [parent for parent in parents if parent not in best]


def complete_tests(selected: Sequence[CtfCandidate], engine: Engine, solver: str) -> list[Variant]:
    """Variants with the parent's inputs, outputs recomputed by the CTF solution, and examples rewritten.

    Inputs on which the CTF solution raises or times out are listed as
    ``needs_new_tests`` (the original inputs are not valid for the new task).
    """
    drafts = [candidate.as_variant(solver) for candidate in selected]
    prepared = engine.prepare(drafts)
    ready = {variant.id: variant for variant in prepared.problems}
    variants: list[Variant] = []
    for candidate, draft in zip(selected, drafts, strict=True):
        done = ready.get(draft.id)
        if done is None:
            candidate.reason = (
                f"the CTF solution fails on every inherited input: {prepared.unusable.get(draft.id)}"
            )
            candidate.needs_new_tests = [repr(test.input)[:200] for test in draft.tests]
            variants.append(
                draft.model_copy(
                    update={"provenance": {**draft.provenance, "needs_new_tests": candidate.needs_new_tests}}
                )
            )
            continue
        dropped = prepared.dropped_tests.get(draft.id, [])
        provenance = dict(done.provenance)
        if dropped:
            provenance["needs_new_tests"] = sorted(set(candidate.needs_new_tests) | set(dropped))
        variants.append(done.model_copy(update={"provenance": provenance}))
    rewritten = with_recomputed_examples(variants, engine)
    finished = []
    for variant in variants:
        outcome = rewritten[variant.id]
        if isinstance(outcome, str):
            provenance = {**variant.provenance, "examples_problem": outcome}
            finished.append(variant.model_copy(update={"provenance": provenance}))
        else:
            finished.append(outcome)
    return finished


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
    bar: BarFactory | None = None,
    **options: Any,
) -> PipelineReport:
    """Every step in order; ``parents`` must be prepared (tests carry the original outputs).

    ``bar(description, total)`` is a context manager yielding an ``advance(n)``
    callback; the CLI passes its progress bar so each LLM step shows one.
    """
    sampling = GenerationParams(temperature=0.8, max_tokens=1024, seed=0)
    bar = bar or _no_bar
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
    without = select(found, lam)
    chosen = [candidate for candidate in found if candidate.selected]
    variants = complete_tests(chosen, engine, solver.text)
    counts: dict[str, int] = defaultdict(int)
    for candidate in found:
        counts[candidate.label or candidate.status] += 1
    counts["needs_new_tests"] = sum(1 for variant in variants if variant.provenance.get("needs_new_tests"))
    return PipelineReport(found, variants, dict(counts), without)
