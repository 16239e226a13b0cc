"""The LLM half of the ``evolve`` transform: EvoEval's types written by a generator model and refined by
self-consistency.

**Meaning-changing types** (difficult, creative, subtle, combine, tool_use,
decompose), per seed problem and up to ``1 + rounds`` rounds:

1. the generator writes the new problem and its solution as code
   (:func:`benchmorph.morph.transforms.evolve.prompts.evolve_request`); its prompt is
   cut from the code (imports, the tools for tool_use, the def line and the
   docstring), its reference is the whole code;
2. test inputs: the parent's and the generator's own test calls where the
   new reference runs on them, grown by the test-generation engine
   (``validation.testgen.augment_problem``); a decomposition's subproblems
   get the arguments its main function passes them on the parent's inputs
   (traced in the sandbox);
3. the solver writes ``solutions`` (M) solutions from the new prompt alone;
4. all of them run on the inputs: the round is accepted when at least 2 of
   them agree with the reference on every input (every subproblem, for
   decompose);
5. otherwise the disagreement (inputs, the reference's output and the
   solutions') goes back to the generator, which clarifies the description or
   fixes the reference; after the last round the seed is dropped with the
   reason.

**Meaning-preserving types** (verbose, concise): the generator rewords the
description (longer or shorter, the prompt's code and examples untouched),
the judge (``metamorphic_prompts.judge_request``) must say the meaning is
kept, the parent's reference and tests stay; a failed round is retried with
the reason.

Every accepted round becomes a ``Draft`` for the shared
``finalize_variants`` (examples fixed by execution there); every seed that
gave none becomes a decided record, so the yield table counts it.  The
round-by-round history is kept in ``provenance.rounds``.
"""

from __future__ import annotations

import ast
import hashlib
import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from benchmorph.core.progress import ProgressFactory, no_progress
from benchmorph.data.models import Problem, TestCase, Variant
from benchmorph.execution.compare import outputs_match
from benchmorph.execution.engine import Engine
from benchmorph.models import GenerationParams, LLMCache, ModelSpec, RetryPolicy
from benchmorph.models.ask import ask
from benchmorph.models.generate import generate
from benchmorph.models.prompts import Request
from benchmorph.morph.common.answers import parse_rewrite
from benchmorph.morph.common.derived import derived_variant
from benchmorph.morph.common.docstrings import (
    assemble,
    check_assembled,
    description_from_code,
    split_prompt,
    strip_examples,
)
from benchmorph.morph.common.judge import judge_request, parse_verdict
from benchmorph.morph.common.scenarios import normalise
from benchmorph.morph.finalize import Draft, decided
from benchmorph.morph.transform import REJECTED
from benchmorph.morph.transforms.evolve import TRANSFORM
from benchmorph.morph.transforms.evolve.prompts import (
    Program,
    called_names,
    evolve_request,
    function_prompt,
    parse_program,
    refine_request,
    reword_request,
)
from benchmorph.morph.transforms.evolve.trace import traced_inputs
from benchmorph.testgen.augment import AugmentOptions, augment_problem
from benchmorph.testgen.types import admits, infer_type, param_names
from benchmorph.validation.checks.base import constant_outputs

REWORD_TYPES = ("verbose", "concise")
MIN_INPUTS = 3  # a problem verified on fewer inputs is not verified
MAX_SHOWN = 3  # disagreeing inputs shown to the generator
ATOL = 1e-6  # EvoEval's float tolerance
# "subtle" must change what the parent computes; the others may keep it on the parent's inputs (a
# creative story or a harder task can agree with the parent where the parent's inputs reach).
MUST_CHANGE = ("subtle",)


@dataclass
class EvolveLlm:
    """Who answers and how."""

    generator: ModelSpec
    solver: ModelSpec
    judge: ModelSpec
    cache: LLMCache
    params: GenerationParams  # the generator's sampling; each round gets its own seed
    solver_params: GenerationParams  # n = M solutions per problem
    judge_params: GenerationParams  # greedy
    solutions: int = 3
    rounds: int = 3
    tests: int = 10  # new inputs from test generation per problem
    seed: int = 0
    policy: RetryPolicy | None = None
    concurrency: int | None = None
    progress: ProgressFactory = no_progress

    def round_params(self, base: GenerationParams, round_: int) -> GenerationParams:
        digest = hashlib.sha256(f"{self.seed}:{round_}".encode()).digest()
        return base.model_copy(update={"seed": int.from_bytes(digest[:4], "big") & 0x7FFFFFFF})


@dataclass
class Piece:
    """One function that self-consistency must verify (a decomposition has two)."""

    variant: Variant
    prepared: Problem | None = None


@dataclass
class Slot:
    """One seed problem evolved along one type, through its rounds."""

    kind: str
    parent: Problem  # prepared
    partner: Problem | None = None  # combine: the second problem
    history: list[dict[str, Any]] = field(default_factory=list)
    program: Program | None = None  # the last readable answer
    calls: list[Any] = field(default_factory=list)  # the generator's test calls, every round's
    feedback: str | None = None  # what the next round is told
    pieces: list[Piece] = field(default_factory=list)
    drafts: list[Draft] = field(default_factory=list)
    final: bool = False  # no later round could help
    raw: str | None = None

    @property
    def round(self) -> int:
        return len(self.history) + 1

    @property
    def suffix(self) -> str:
        return "" if self.partner is None else "-" + self.partner.id.rsplit("/", 1)[-1]

    def live(self, rounds: int) -> bool:
        return not self.drafts and not self.final and len(self.history) <= rounds

    def fail(self, check: str, reason: str, feedback: str | None = None) -> None:
        self.history.append({"round": self.round, "check": check, "reason": reason})
        self.feedback = feedback

    def provenance(self, setup: EvolveLlm) -> dict[str, Any]:
        parents = [self.parent.id] + ([self.partner.id] if self.partner is not None else [])
        info: dict[str, Any] = {
            "evolve_type": self.kind,
            "generator": setup.generator.text,
            "parents": parents,
            "rounds": list(self.history),
            "review_status": "unreviewed",
        }
        if self.kind in REWORD_TYPES:
            info["judge"] = setup.judge.text
        else:
            info["solver"] = setup.solver.text
            info["solutions"] = setup.solutions
        if self.partner is not None:
            info["partner"] = self.partner.id
        return info


def _variant(slot: Slot, setup: EvolveLlm, vid: str, prompt: str, reference: str, entry_point: str,
             tests: list[TestCase], **provenance: Any) -> Variant:  # fmt: skip
    return derived_variant(
        slot.parent,
        id=vid,
        entry_point=entry_point,
        prompt=prompt,
        reference=reference,
        tests=tests,
        contract=None,  # the parent's contract speaks of the parent's inputs
        atol=max(slot.parent.atol, ATOL),
        transform=TRANSFORM,
        label=slot.kind,
        provenance={**slot.provenance(setup), **provenance},
    )


def dropped_record(slot: Slot, setup: EvolveLlm) -> Variant:
    """The seed's record when no round was accepted: the last answer (if any) and why each round failed."""
    last = slot.history[-1] if slot.history else {"check": "generator", "reason": "nothing was generated"}
    program = slot.program
    prompt = program.prompt if program else slot.parent.prompt
    reference = program.code if program else slot.parent.reference
    entry = program.entry_point if program else slot.parent.entry_point
    record = _variant(slot, setup, f"{slot.parent.id}/evolve-{slot.kind}{slot.suffix}", prompt, reference,
                      entry, [], raw=slot.raw)  # fmt: skip
    rounds = len(slot.history)
    reason = f"dropped after {rounds} round{'s' if rounds != 1 else ''}; last: {last['reason']}"
    return decided(record, REJECTED, str(last["check"]), reason)


# ------------------------------------------------------------------ asking


def _ask(requests: Sequence[Request], spec: ModelSpec, params: GenerationParams,
         setup: EvolveLlm, what: str) -> list[tuple[str | None, str | None]]:  # fmt: skip
    """(text, error) per request, in order, through the shared cache."""
    if not requests:
        return []
    with setup.progress(what, len(requests)) as advance:
        report = ask(list(requests), spec, params, setup.cache, policy=setup.policy,
                     concurrency=setup.concurrency, progress=advance)  # fmt: skip
    return [(answers[0].text, answers[0].error) for answers in report.answers]


def _solve(problems: Sequence[Problem], setup: EvolveLlm, round_: int) -> dict[str, list[str]]:
    """M sanitized solutions per problem, written from its prompt alone."""
    if not problems:
        return {}
    params = setup.round_params(setup.solver_params, 0).model_copy(update={"n": setup.solutions})
    with setup.progress(
        f"evolve: {setup.solutions} solutions each (round {round_})", len(problems) * setup.solutions
    ) as advance:
        report = generate(list(problems), setup.solver, params, setup.cache, policy=setup.policy,
                          concurrency=setup.concurrency, progress=advance)  # fmt: skip
    found: dict[str, list[str]] = defaultdict(list)
    for sample in report.samples:
        found[sample.task_id].append(sample.code)
    return found


# ------------------------------------------------------------------ inputs


def _grow(variant: Variant, seeds: Sequence[Any], engine: Engine, setup: EvolveLlm) -> Problem | str:
    """The variant with tests: the seeds its reference runs on, plus new ones from test generation; prepared."""
    options = AugmentOptions(per_problem=setup.tests, budget_s=6.0, suite_time_s=0.5, seed=setup.seed,
                             reduce=False)  # fmt: skip
    unique = list({repr(s): s for s in seeds}.values())
    result = augment_problem(variant.model_copy(update={"tests": []}), engine, options, seed_inputs=unique)
    tests = [TestCase(input=t.input, origin=t.origin) for t in result.problem.tests]
    if len(tests) < MIN_INPUTS:
        why = result.skipped or "too few inputs run on it"
        return f"the reference runs on only {len(tests)} test inputs ({why})"
    prepared = engine.prepare([variant.model_copy(update={"tests": tests})])
    if not prepared.problems:
        return f"the reference cannot run: {prepared.unusable.get(variant.id, 'on no input')}"
    return prepared.problems[0]


# ------------------------------------------------------------------ one round, meaning-changing


def _request(slot: Slot, setup: EvolveLlm) -> Request:
    mode = setup.generator.mode
    if slot.feedback is not None and slot.program is not None:
        return refine_request(slot.kind, slot.program.code, slot.feedback, mode)
    return evolve_request(slot.kind, slot.parent, mode, slot.partner)


def _pieces(slot: Slot, program: Program, engine: Engine, setup: EvolveLlm) -> list[Piece] | tuple[str, str]:
    """The functions to verify, with prepared tests, or (check, reason) why the answer cannot be verified."""
    parent = slot.parent
    parent_inputs = [t.input for t in parent.tests]
    if slot.partner is not None:
        parent_inputs += [t.input for t in slot.partner.tests]
    number = slot.suffix
    if slot.kind != "decompose":
        parent_inputs = fitting_inputs(parent_inputs, slot.calls, _params(program) == param_names(parent))
        vid = f"{parent.id}/evolve-{slot.kind}{number}"
        variant = _variant(slot, setup, vid, program.prompt, program.code, program.entry_point, [])
        grown = _grow(variant, parent_inputs + slot.calls, engine, setup)
        if isinstance(grown, str):
            return "inputs", grown
        if constant_outputs(grown.tests, at_least=1):
            return "degenerate-outputs", degenerate_reason(grown)
        return [Piece(variant.model_copy(update={"tests": grown.tests}), grown)]
    main = parent.entry_point
    tree = ast.parse(program.code)
    defined = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    main_node = defined.get(main)
    if main_node is None:
        return "decompose", f"the answer has no main function `{main}`"
    called = called_names(main_node)
    subs = [name for name in defined if name != main and name in called]
    if len(subs) != 2:
        return "decompose", f"the main function calls {len(subs)} of the functions given, not two subproblems"
    # The main function must still solve the parent: the parent's outputs on every parent input.
    runs = engine.run_inputs(parent.model_copy(update={"reference": program.code}), parent_inputs)
    wrong = [
        t for t, run in zip(parent.tests, runs, strict=False)
        if run.status != "ok" or not outputs_match(parent.kind, t.expected, run.output, parent.atol, parent.strict_sequences)
    ]  # fmt: skip
    if wrong:
        first = wrong[0]
        return "decompose-main", (
            f"the main function does not solve the original on {len(wrong)} of {len(parent.tests)} inputs, "
            f"e.g. {main}{_args(first.input)} should be {first.expected!r}"
        )
    traced = traced_inputs(program.code, main, subs, parent_inputs, engine)
    pieces = []
    for index, name in enumerate(subs, 1):
        node = defined[name]
        prompt = function_prompt(program.code, tree, node)
        if prompt is None:
            return "decompose", f"the subproblem `{name}` has no docstring"
        vid = f"{parent.id}/evolve-decompose-{index}"
        variant = _variant(slot, setup, vid, prompt, program.code, name, [], role="subproblem",
                           decomposition=parent.id, subproblems=subs)  # fmt: skip
        grown = _grow(variant, traced[name] + slot.calls, engine, setup)
        if isinstance(grown, str):
            return "inputs", f"subproblem `{name}`: {grown}"
        if constant_outputs(grown.tests, at_least=1):
            return "degenerate-outputs", f"subproblem `{name}`: {degenerate_reason(grown)}"
        pieces.append(Piece(variant.model_copy(update={"tests": grown.tests}), grown))
    return pieces


def degenerate_reason(problem: Problem) -> str:
    value = next((t.expected for t in problem.tests if t.has_expected), None)
    return f"the solution returns {value!r} for every one of its {len(problem.tests)} test inputs"


def _params(program: Program) -> list[str] | None:
    tree = ast.parse(program.code)
    node = next(
        (n for n in reversed(tree.body) if isinstance(n, ast.FunctionDef) and n.name == program.entry_point),
        None,
    )
    return None if node is None else [a.arg for a in node.args.args]


def fitting_inputs(inputs: Sequence[Any], calls: Sequence[Any], same_params: bool) -> list[Any]:
    """The parent's inputs a new function may take: all of them when its parameters are the parent's,
    else those whose every argument has a type the generator's own calls show at that position (a string
    that happens to run where a list is meant is no test of the new problem), else none."""
    if same_params:
        return list(inputs)
    lists = [c for c in calls if isinstance(c, list)]
    if not lists:
        return []
    arity = len(lists[0])
    if any(len(c) != arity for c in lists):
        return []
    types = [infer_type([c[i] for c in lists]) for i in range(arity)]
    return [
        args for args in inputs
        if isinstance(args, list) and len(args) == arity and all(admits(t, a) for t, a in zip(types, args, strict=True))
    ]  # fmt: skip


def _args(args: Any) -> str:
    shown = ", ".join(repr(a) for a in args) if isinstance(args, list) else repr(args)
    return f"({shown[:300]})"


def _agreement(piece: Piece, codes: Sequence[str], engine: Engine) -> tuple[int, str | None]:
    """How many solutions agree with the reference on every input, and the disagreement to show if < 2."""
    problem = piece.prepared
    assert problem is not None
    runs = engine.run_outputs(problem, codes) if codes else []
    agreeing = 0
    shown: list[str] = []
    by_input: dict[int, Counter[str]] = defaultdict(Counter)
    for run in runs:
        if run.error is not None:
            continue
        bad = [
            i for i, t in enumerate(problem.tests)
            if not run.ok[i] or not outputs_match(problem.kind, t.expected, run.outputs[i], problem.atol, problem.strict_sequences)
        ]  # fmt: skip
        if not bad:
            agreeing += 1
        for i in bad:
            by_input[i][repr(run.outputs[i])[:300] if run.ok[i] else "an exception"] += 1
    if agreeing >= 2:
        return agreeing, None
    loaded = sum(1 for run in runs if run.error is None)
    if not by_input:
        return agreeing, f"only {loaded} of {len(codes)} solutions could run at all"
    ranked = sorted(by_input.items(), key=lambda item: (-sum(item[1].values()), item[0]))
    for i, outs in ranked[:MAX_SHOWN]:
        test = problem.tests[i]
        got, count = outs.most_common(1)[0]
        shown.append(
            f"- {problem.entry_point}{_args(test.input)}: your solution returns {test.expected!r}; "
            f"{count} of {len(codes)} independent solutions return {got}"
        )
    return agreeing, "\n".join(shown)


def evolve_round(slots: Sequence[Slot], engine: Engine, setup: EvolveLlm, round_: int) -> None:
    """One round for every live meaning-changing slot: ask, read, build inputs, solve, compare."""
    requests = [_request(slot, setup) for slot in slots]
    params = setup.round_params(setup.params, round_)
    answers = _ask(requests, setup.generator, params, setup, f"evolve: generator (round {round_})")
    ready: list[Slot] = []
    for slot, request, (text, error) in zip(slots, requests, answers, strict=True):
        slot.pieces, slot.raw = [], text
        if text is None:
            slot.fail("generator", f"the generator gave no answer: {error}", slot.feedback)
            continue
        entry = slot.parent.entry_point if slot.kind in ("subtle", "difficult", "decompose") else None
        if slot.program is not None:
            entry = slot.program.entry_point
        program = parse_program(request, text, slot.kind, entry)
        if isinstance(program, str):
            slot.fail("generator-answer", f"the answer cannot be read: {program}", slot.feedback)
            continue
        slot.program = program
        slot.calls += [call for call in program.calls if call not in slot.calls]
        built = _pieces(slot, program, engine, setup)
        if isinstance(built, tuple):
            slot.fail(built[0], built[1], f"Your code cannot be used as it is: {built[1]}.")
            continue
        slot.pieces = built
        ready.append(slot)
    problems = [piece.prepared for slot in ready for piece in slot.pieces if piece.prepared is not None]
    solutions = _solve(problems, setup, round_)
    for slot in ready:
        problems_left = []
        for piece in slot.pieces:
            codes = solutions.get(piece.variant.id, [])
            agreeing, disagreement = _agreement(piece, codes, engine)
            piece.variant = piece.variant.model_copy(
                update={"provenance": {**piece.variant.provenance, "agreeing_solutions": agreeing}}
            )
            if disagreement is not None:
                problems_left.append((piece, agreeing, disagreement))
        if problems_left:
            piece, agreeing, disagreement = problems_left[0]
            name = piece.variant.entry_point
            slot.fail("self-consistency",
                      f"{agreeing} of {setup.solutions} solutions agree with the reference of `{name}`",
                      disagreement)  # fmt: skip
            continue
        slot.history.append({"round": slot.round, "check": "self-consistency", "reason": "accepted"})
        slot.drafts = _drafts(slot, engine, setup)


def baseline_code(parent: Problem, entry_point: str) -> str:
    """The parent's reference answering under ``entry_point``: a model that ignores what a variant adds."""
    if entry_point == parent.entry_point:
        return parent.reference
    return f"{parent.reference.rstrip()}\n\n\n{entry_point} = {parent.entry_point}\n"


def _drafts(slot: Slot, engine: Engine, setup: EvolveLlm) -> list[Draft]:
    """The accepted round as drafts for ``finalize_variants`` (a decomposition: its subproblems).

    Each is a new problem with its own suite, so the same checks as the rules
    half's run on it: its suite's size (``thin-suite``) and that the parent's
    reference (and a combined problem's second parent's) fails most of its
    tests (``solved-without``).  A decomposition's main function was verified
    to solve the parent (``_pieces``); it is the parent itself, so it is not
    published again: a copy with the subproblems handed over would be solved by
    the parent's reference (``provenance.main`` names it, ``main_code`` keeps it).
    """
    history: dict[str, Any] = {"rounds": list(slot.history)}
    if slot.kind == "decompose" and slot.program is not None:
        history |= {"main": slot.parent.id, "main_code": slot.program.code}
    drafts = []
    for piece in slot.pieces:
        variant = piece.variant.model_copy(update={"provenance": {**piece.variant.provenance, **history}})
        if variant.entry_point != slot.parent.entry_point:
            variant = variant.model_copy(
                update={"provenance": {**variant.provenance, "renamed_from": slot.parent.entry_point}}
            )
        outputs: Literal["change", "any"] = "change" if slot.kind in MUST_CHANGE else "any"
        baselines = {"the parent's reference": baseline_code(slot.parent, variant.entry_point)}
        if slot.partner is not None:
            baselines["the second parent's reference"] = baseline_code(slot.partner, variant.entry_point)
        drafts.append(
            Draft(
                variant=variant,
                parent=slot.parent,
                outputs=outputs,
                twin=False,
                suite="own",
                baselines=baselines,
            )
        )
    return drafts


# ------------------------------------------------------------------ one round, meaning-preserving


def _reworded(slot: Slot, setup: EvolveLlm, prompt: str) -> Variant:
    parent = slot.parent
    reference = parent.reference
    if reference.startswith(parent.prompt):  # HumanEval: the reference continues the prompt
        reference = prompt + reference[len(parent.prompt) :]
    return _variant(slot, setup, f"{parent.id}/evolve-{slot.kind}", prompt, reference, parent.entry_point,
                    [TestCase(input=t.input, origin=t.origin) for t in parent.tests])  # fmt: skip


def reword_round(slots: Sequence[Slot], setup: EvolveLlm, round_: int) -> None:
    """One round for every live verbose/concise slot: reword, check the length and structure, judge."""
    parts_of = {id(slot): split_prompt(slot.parent) for slot in slots}
    todo = []
    for slot in slots:
        parts = parts_of[id(slot)]
        if isinstance(parts, str):
            slot.fail("prompt-shape", parts)
            slot.final = True  # nothing a new round could change
            continue
        todo.append(slot)
    requests = [
        reword_request(
            slot.kind, slot.parent.prompt, parts_of[id(slot)].text, setup.generator.mode, slot.feedback
        )  # type: ignore[union-attr]
        for slot in todo
    ]
    params = setup.round_params(setup.params, round_)
    answers = _ask(requests, setup.generator, params, setup, f"evolve: reword (round {round_})")
    judged: list[tuple[Slot, Variant]] = []
    for slot, request, (text, error) in zip(todo, requests, answers, strict=True):
        parts = parts_of[id(slot)]
        assert not isinstance(parts, str)
        slot.raw = text
        if text is None:
            slot.fail("generator", f"the generator gave no answer: {error}")
            continue
        description, code, reason = parse_rewrite(request, text)
        if code is not None:
            description, problem = description_from_code(slot.parent, code)
            if problem is not None:
                slot.fail(problem[0], problem[1], problem[1])
                continue
        if not description:
            slot.fail(
                "generator-answer", f"the rewording cannot be read: {reason}", "reply with the JSON asked for"
            )
            continue
        description = strip_examples(description, slot.parent.entry_point)
        prose = not_prose(description, parts.text)
        if prose is not None:
            slot.fail("reword", prose, prose)
            continue
        old, new = len(parts.text.split()), len(description.split())
        if normalise(description) == normalise(parts.text):
            slot.fail("reword", "the description was not reworded", "the description was not reworded")
            continue
        longer = new >= 1.2 * old
        shorter = new <= 0.85 * old
        if (slot.kind == "verbose" and not longer) or (slot.kind == "concise" and not shorter):
            want = "at least 20% longer" if slot.kind == "verbose" else "at least 15% shorter"
            why = f"{new} words against the original's {old}: not {want}"
            slot.fail("reword-length", why, why)
            continue
        prompt = assemble(parts, description)
        problem = check_assembled(slot.parent, prompt)
        if problem is not None:
            slot.fail(problem[0], problem[1], problem[1])
            continue
        judged.append((slot, _reworded(slot, setup, prompt)))
    requests = [
        judge_request(slot.parent.prompt, variant.prompt, setup.judge.mode) for slot, variant in judged
    ]
    controls = [
        judge_request(slot.parent.prompt, assemble(parts_of[id(slot)], control_description(parts_of[id(slot)].text)),  # type: ignore[arg-type]
                      setup.judge.mode)
        for slot, _ in judged
    ]  # fmt: skip
    verdicts = _ask(requests + controls, setup.judge, setup.judge_params, setup, "evolve: judge")
    control_verdicts = verdicts[len(requests) :]
    for (slot, variant), request, (text, error), control, (control_text, _) in zip(
        judged, requests, verdicts, controls, control_verdicts, strict=False
    ):
        said_control = parse_verdict(control, control_text)[0] if control_text is not None else None
        if said_control is not False:
            slot.fail("judge-control", "the judge does not reject the description cut in half (a changed "
                      "meaning), so its verdict on the rewording cannot be trusted")  # fmt: skip
            slot.final = True  # the same control gets the same verdict in every round
            continue
        if text is None:
            slot.fail("judge", f"the judge gave no answer: {error}")
            continue
        preserved, issues, reason = parse_verdict(request, text)
        if preserved is None:
            slot.fail("judge", f"the judge's verdict cannot be read: {reason}")
            continue
        if not preserved:
            said = "; ".join(issues) if issues else "no issue named"
            slot.fail("judge", f"the judge says the meaning changed: {said}", f"the meaning changed: {said}")
            continue
        slot.history.append({"round": slot.round, "check": "judge", "reason": "accepted", "issues": issues})
        variant = variant.model_copy(
            update={
                "provenance": {
                    **variant.provenance,
                    "rounds": list(slot.history),
                    "judge_verdict": {"preserved": True, "issues": issues},
                }
            }  # fmt: skip
        )
        slot.drafts = [
            Draft(
                variant=variant, parent=slot.parent, outputs="keep", examples="keep", parent_defects="record"
            )
        ]


_CODE_LIKE = re.compile(r"(^|\s)(def|return|lambda|import)\s|>>>|```|\w\(.*\):\s*$", re.M)
_SENTENCE_END = re.compile(r"[.!?:)\]\"'`]\s*$")


def not_prose(description: str, original: str) -> str | None:
    """Why a rewording is not a description a reviewer would publish, or None: code where prose should be,
    or a text that stops mid-sentence where the original ends a sentence (an answer cut by its length)."""
    if _CODE_LIKE.search(description) and not _CODE_LIKE.search(original):
        return "the rewording holds code, not a description"
    if _SENTENCE_END.search(original.strip()) and not _SENTENCE_END.search(description.strip()):
        return "the rewording stops mid-sentence"
    if sum(ch.isalpha() for ch in description) < 0.5 * len(description.strip() or "x"):
        return "the rewording is mostly not words"
    return None


def control_description(text: str) -> str:
    """A description whose meaning changed for sure: the first half of its words.  A judge that calls this
    preserved too cannot tell a rewording that kept the meaning from one that lost half of it."""
    words = text.split()
    return " ".join(words[: max(1, len(words) // 2)]).rstrip(",;:") + "."


# ------------------------------------------------------------------ the whole generator


def llm_evolve_drafts(
    parents: Sequence[Problem],
    kinds: Sequence[str],
    engine: Engine,
    setup: EvolveLlm,
    partners: dict[str, Problem] | None = None,
    notes: list[str] | None = None,
) -> tuple[list[Draft], list[Variant]]:
    """Drafts of every accepted evolution and records of every seed that gave none.

    ``parents`` are prepared; ``partners`` maps a seed to its combine partner
    (seeds without one get no combine slot, the caller records why).
    """
    slots: list[Slot] = []
    for kind in kinds:
        for parent in parents:
            if kind == "combine":
                partner = (partners or {}).get(parent.id)
                if partner is None:
                    continue
                slots.append(Slot(kind, parent, partner))
            else:
                slots.append(Slot(kind, parent))
    for round_ in range(1, setup.rounds + 2):
        live = [slot for slot in slots if slot.live(setup.rounds)]
        if not live:
            break
        changing = [slot for slot in live if slot.kind not in REWORD_TYPES]
        rewording = [slot for slot in live if slot.kind in REWORD_TYPES]
        if changing:
            evolve_round(changing, engine, setup, round_)
        if rewording:
            reword_round(rewording, setup, round_)
    drafts = [draft for slot in slots for draft in slot.drafts]
    records = [dropped_record(slot, setup) for slot in slots if not slot.drafts]
    if notes is not None:
        for kind in kinds:
            own = [slot for slot in slots if slot.kind == kind]
            if own:
                made = sum(1 for slot in own if slot.drafts)
                rounds = Counter(len(slot.history) for slot in own if slot.drafts)
                notes.append(
                    f"{kind}: the generator's answers passed {'the judge' if kind in REWORD_TYPES else 'self-consistency'} "
                    f"for {made} of {len(own)} seeds (rounds used: "
                    + (", ".join(f"{r}: {n}" for r, n in sorted(rounds.items())) or "none")
                    + ")"
                )
    return drafts, records
