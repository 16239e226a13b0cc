"""Offline ``combine``: ``g(f(x))`` for two problems of a benchmark, kept only when it needs both steps.

A composition is sound where g takes one parameter and f's outputs lie inside
what g's tests show and g's description allows (``rules.fits``).  Sound is
not enough to publish: a reviewed set had compositions whose first step has
no effect ("sort the words, then count the distinct characters"), whose
second step saw only the counts 1 and 2, whose tests were three, and whose
steps still said "Create a function encrypt that ...".  So per seed f the
fitting partners are tried in rank order, and a pair is drafted only when,
on its tests,

- **both steps matter**: step 1 alone (f's reference) and step 2 alone (g on
  f's arguments) each fail at least two tests in three;
- **both steps are exercised**: every mutant of f that f's own tests kill,
  and every mutant of g that g's own tests kill, fails the composed tests
  (a rule of either description that no test decides is a rule a wrong
  reading passes);
- **the suite is big enough**: at least 5 tests and 3 distinct outputs.

The tests are f's own inputs that fit, topped up where one of those falls
short with inputs from test generation (``testgen.augment``) that honour
f's stated preconditions and observed range, and whose f-output g may
receive.  f's description stating a precondition no bound reads gets no
generated inputs.  Whatever the search concludes, ``finalize_variants``
checks again: the baselines run there, and the composition checks
(``validation.checks.steps``) read what this module records.
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from benchmorph.core.progress import Advance
from benchmorph.data.models import Problem, TestCase, Variant
from benchmorph.execution.engine import Engine, Job
from benchmorph.execution.limits import REFERENCE_LIMITS, Limits
from benchmorph.morph.finalize import Draft
from benchmorph.morph.transforms.evolve import rules
from benchmorph.morph.transforms.evolve.inputs import Pool, generated_pool, own_pool
from benchmorph.morph.transforms.evolve.misreadings import misreadings
from benchmorph.testgen.mutants import Mutant
from benchmorph.testgen.score import mutant_set
from benchmorph.validation.checks.base import Steps, same_output, value_key
from benchmorph.validation.checks.baselines import MAX_BASELINE_PASS
from benchmorph.validation.checks.steps import asks_to_write, names_used, stale_reference
from benchmorph.validation.checks.suite import MAX_SHARE, MIN_DISTINCT, MIN_TESTS, dominant_share
from benchmorph.validation.examples.recompute import scan_problem
from benchmorph.validation.examples.scan import render_value

MIN_INPUTS = 3  # f's own inputs that must survive the composition before a pair is tried
MAX_PARTNER_USES = 2  # a g composes with at most this many f's, so the set is not one g's variations
PARTNERS_TRIED = 4  # fitting partners tried per f, in rank order, before the seed is given up
MAX_OWN = 80  # f's own inputs kept as tests at most (HumanEval+ has hundreds)
MAX_ADDED = 30  # generated inputs added at most
GENERATED = 30  # generated inputs of f kept as candidates at most
MUTANTS = 24  # mutants per parent looked at (those its own tests kill count)

FLOAT_TOLERANCE = 1e-6  # EvoEval's absolute tolerance for float outputs
Outcome = tuple[str, str]  # (check, reason) of a pair that was not drafted


def _input_limits(engine: Engine) -> Limits:
    """One second per input, as test generation allows a candidate input: a partner that takes longer on
    an output of f is not a partner (and a batch of slow inputs must not stall the run)."""
    return replace(engine.limits, min_time_limit=1.0, time_factor=1.0, setup_time=REFERENCE_LIMITS.setup_time)


def killed_mutants(problems: Sequence[Problem], engine: Engine, seed: int) -> dict[str, list[Mutant]]:
    """Per problem, the mutants of its reference that its own tests kill by a wrong answer or an error
    (one sandbox batch).  A mutant its tests kill only by running out of time (a loop that never ends)
    is left out: composed, it runs out of time again, and judging it would cost a time limit per pair."""
    found = [
        mutant_set(problem, limit=MUTANTS, seed=seed) + misreadings(problem.reference, problem.entry_point)
        for problem in problems
    ]
    jobs = [
        Job(problem, mutant.code, f"{problem.id}#mutant", index)
        for problem, mutants in zip(problems, found, strict=True)
        for index, mutant in enumerate(mutants)
    ]
    verdicts = iter(engine.evaluate(jobs) if jobs else [])
    killed: dict[str, list[Mutant]] = {}
    for problem, mutants in zip(problems, found, strict=True):
        killed[problem.id] = []
        for mutant in mutants:
            verdict = next(verdicts)
            if verdict.status in ("fail", "error"):
                killed[problem.id].append(mutant)
    return killed


@dataclass
class Candidate:
    """One input of a composed problem: f's arguments, what f returns, what g returns on that."""

    args: Any
    handoff: Any  # f's output, which g receives
    expected: Any  # g's output on it
    origin: str


def _g_outputs(g: Problem, values: Sequence[Any], engine: Engine, cache: dict[str, dict[str, Any]]) -> dict[str, Any]:  # fmt: skip
    """g's output on each value it runs on within a second (cached per g across the f's)."""
    done = cache.setdefault(g.id, {})
    todo = {value_key(v): v for v in values if value_key(v) not in done}
    if todo:
        keys = list(todo)
        runs = engine.run_inputs(g, [[todo[key]] for key in keys], limits=_input_limits(engine))
        for key, run in zip(keys, runs, strict=True):
            done[key] = run.output if run.status == "ok" else _FAILED
    return done


_FAILED = object()


_BOOLEANS = re.compile(r"\bbool(?:ean)?s?\b|\bTrue\b|\bFalse\b", re.I)


def _bool_inside(value: Any) -> bool:
    """Whether a container holds a bool: where Python counts it an integer and a reader may not."""
    if isinstance(value, list | tuple | set | frozenset):
        return any(isinstance(item, bool) or _bool_inside(item) for item in value)
    if isinstance(value, dict):
        return _bool_inside(list(value.keys())) or _bool_inside(list(value.values()))
    return False


def _candidates(pool: Pool, g: Problem, g_shape: rules.Shape, engine: Engine,
                cache: dict[str, dict[str, Any]], limit: int, bools_open: bool = False) -> list[Candidate]:  # fmt: skip
    """The pool's inputs whose f-output g may receive and runs on, with g's output, up to ``limit``.

    ``bools_open``: f's description never speaks of booleans, so an input
    holding one in a container (``[True, 0, -10, 'test']`` to "filter ... only
    for integers") asks what the text leaves open, and is left out.
    """
    fitting = [
        (args, out)
        for args, out in zip(pool.inputs, pool.outputs, strict=True)
        if rules.receivable(out, g_shape) and not (bools_open and any(_bool_inside(a) for a in args))
    ]
    outputs = _g_outputs(g, [out for _, out in fitting], engine, cache)
    found = []
    for args, out in fitting:
        result = outputs.get(value_key(out), _FAILED)
        if result is not _FAILED:
            found.append(Candidate(args, out, result, pool.origin))
        if len(found) >= limit:
            break
    return found


@dataclass
class Judged:
    """What every candidate input does to the programs a composed problem must tell apart."""

    candidates: list[Candidate]
    fails_step1: list[bool]  # f's output is not the answer
    fails_step2: list[bool]  # g on f's arguments is not the answer
    kills: dict[str, set[int]]  # mutant label -> candidates it fails on


def _judge(built: rules.Combined, f: Problem, g: Problem, candidates: list[Candidate], mutants: dict[str, list[Mutant]],
           engine: Engine) -> Judged | str:  # fmt: skip
    """Run step 2 alone and every killed mutant of f and g, composed, on all candidates (in the sandbox)."""
    probe = Problem(
        id=f"{f.id}+{g.id}#combine", prompt=built.prompt, reference=built.reference,
        entry_point=built.entry_point, tests=[TestCase(input=c.args) for c in candidates],
    )  # fmt: skip
    ready = engine.prepare([probe])
    if not ready.problems or len(ready.problems[0].tests) != len(candidates):
        return "the composed reference does not run on every input f and g run on"
    prepared = ready.problems[0]
    labels: list[str] = []
    codes: list[str] = []
    for parent, which in ((f, "f"), (g, "g")):
        for mutant in mutants.get(parent.id, []):
            labels.append(f"{parent.entry_point} with {mutant.operator} at site {mutant.site}")
            codes.append(built.reference_with(**{f"{which}_code": mutant.code}))
    alone = f"{built.g_code.rstrip()}\n\n\n{built.entry_point} = {built.renames.get(g.entry_point, g.entry_point)}\n"
    runs = engine.run_outputs(prepared, [alone, *codes]) if codes else engine.run_outputs(prepared, [alone])
    tests = prepared.tests

    def failing(run_index: int) -> list[bool]:
        run = runs[run_index]
        return [
            not (ok and same_output(test.expected, out, prepared))
            for test, ok, out in zip(tests, run.ok, run.outputs, strict=True)
        ]

    step1 = [not same_output(t.expected, c.handoff, prepared) for t, c in zip(tests, candidates, strict=True)]
    kills = {label: {i for i, bad in enumerate(failing(k + 1)) if bad} for k, label in enumerate(labels)}
    return Judged(candidates, step1, failing(0), kills)


def _bools(outputs: list[Any]) -> bool:
    return bool(outputs) and all(isinstance(out, bool) for out in outputs)


def shortfalls(judged: Judged, chosen: Sequence[int]) -> list[str]:
    """What a choice of tests still lacks (empty: it is a suite to publish)."""
    missing = []
    outputs = [judged.candidates[i].expected for i in chosen]
    if len(chosen) < MIN_TESTS:
        missing.append(f"{len(chosen)} tests (at least {MIN_TESTS})")
    if _bools(outputs):
        if min(outputs.count(True), outputs.count(False)) < 2:
            missing.append("a yes/no answer without both answers twice")
    elif len({value_key(o) for o in outputs}) < MIN_DISTINCT:
        missing.append(f"{len({value_key(o) for o in outputs})} distinct outputs (at least {MIN_DISTINCT})")
    if outputs and dominant_share(outputs)[0] > MAX_SHARE:
        missing.append(f"one output on {dominant_share(outputs)[0]:.0%} of the tests")
    for name, fails in (("step 1 alone", judged.fails_step1), ("step 2 alone", judged.fails_step2)):
        passed = sum(1 for i in chosen if not fails[i])
        if chosen and passed / len(chosen) > MAX_BASELINE_PASS:
            missing.append(f"{name} passes {passed} of {len(chosen)} tests")
    alive = [label for label, killers in judged.kills.items() if not killers & set(chosen)]
    if alive:
        missing.append(f"{len(alive)} mutants the parents' tests kill pass (e.g. {alive[0]})")
    return missing


def choose_tests(judged: Judged, own: int) -> list[int]:
    """The own inputs (the first ``own`` candidates), plus generated ones added greedily while the
    suite falls short: each added input is the one that kills the most surviving mutants, then adds a
    new output, then an output other than the most common, then fails a step alone that passes too
    often.  Then, while one output covers more than two tests in three, the last test with it that no
    shortfall needs is dropped."""
    chosen = list(range(own))
    pool = list(range(own, len(judged.candidates)))
    added = 0
    while pool and added < MAX_ADDED and shortfalls(judged, chosen):
        best = max(pool, key=lambda i: _gain(judged, chosen, i))
        if _gain(judged, chosen, best) == (0, 0, 0, 0) and len(chosen) >= MIN_TESTS:
            break  # nothing left helps
        chosen.append(best)
        pool.remove(best)
        added += 1
    return _trimmed(judged, chosen)


def _gain(judged: Judged, chosen: Sequence[int], i: int) -> tuple[int, int, int, int]:
    """What adding candidate ``i`` to ``chosen`` brings: surviving mutants it kills, a new output, an
    output other than the most common, and steps alone (passing too often) it fails."""
    alive = [label for label, killers in judged.kills.items() if not killers & set(chosen)]
    outputs = [value_key(judged.candidates[j].expected) for j in chosen]
    common = max(set(outputs), key=outputs.count) if outputs else None
    output = value_key(judged.candidates[i].expected)
    over = [
        fails for fails in (judged.fails_step1, judged.fails_step2)
        if chosen and sum(1 for j in chosen if not fails[j]) / len(chosen) > MAX_BASELINE_PASS
    ]  # fmt: skip
    kills = sum(1 for label in alive if i in judged.kills[label])
    return kills, int(output not in outputs), int(output != common), sum(1 for fails in over if fails[i])


def _trimmed(judged: Judged, chosen: list[int]) -> list[int]:
    """``chosen`` less the last tests of the most common output, while it covers more than two in three
    and dropping one leaves no other shortfall."""
    chosen = list(chosen)
    while len(chosen) > MIN_TESTS:
        outputs = [judged.candidates[i].expected for i in chosen]
        share, common = dominant_share(outputs)
        if share <= MAX_SHARE:
            break
        others = [m for m in shortfalls(judged, chosen) if not m.startswith("one output")]
        droppable = [
            i for i in reversed(chosen)
            if value_key(judged.candidates[i].expected) == value_key(common)
            and len([m for m in shortfalls(judged, [j for j in chosen if j != i]) if not m.startswith("one output")]) <= len(others)
        ]  # fmt: skip
        if not droppable:
            break
        chosen.remove(droppable[0])
    return chosen


@dataclass
class Pairing:
    """The state of one combine run: shapes, g's outputs, generated inputs and mutants, shared by the f's."""

    parents: Sequence[Problem]
    engine: Engine
    seed: int
    shapes: dict[str, rules.Shape] = field(default_factory=dict)
    g_cache: dict[str, dict[str, Any]] = field(default_factory=dict)
    generated: dict[str, Pool] = field(default_factory=dict)
    mutants: dict[str, list[Mutant]] = field(default_factory=dict)
    shown: dict[str, list[tuple[Any, Any]]] = field(default_factory=dict)

    def shown_for(self, p: Problem) -> list[tuple[Any, Any]]:
        """Up to two of the parent's own worked examples, with what its reference returns on them."""
        if p.id not in self.shown:
            self.shown[p.id] = parent_examples(p, self.engine)
        return self.shown[p.id]

    def generated_for(self, f: Problem) -> Pool:
        if f.id not in self.generated:
            self.generated[f.id] = generated_pool(f, self.shapes[f.id], self.engine, self.seed, GENERATED)
        return self.generated[f.id]


SHOWN = 4  # a parent's examples stated in its step, at most
SHOWN_CHARS = 60  # an example longer than this as text is not stated


def parent_examples(p: Problem, engine: Engine) -> list[tuple[Any, Any]]:
    """Up to SHOWN of the parent's own docstring examples, short ones, with its reference's outputs
    (its first tests where its docstring shows none that can be read), in the docstring's order.

    A parent's examples decide what its words leave open, and a step that
    drops one can lose a rule: HumanEval/90's "the 2nd smallest element"
    says nothing of ties, and only its fourth example (``[1, 1]`` gives None)
    does, which a composition feeding it ``[2, 2]`` needs.  So up to four are
    stated, one of each output first where there are more.
    """
    scanned = [list(example.args) for example in scan_problem(p).examples]
    if scanned:
        runs = engine.run_inputs(p, scanned)
        found = [(args, run.output) for args, run in zip(scanned, runs, strict=True) if run.status == "ok"]
    else:
        found = [(t.input, t.expected) for t in p.tests if t.has_expected]
    short = [(a, o) for a, o in found if len(render_value(a)) + len(render_value(o)) <= SHOWN_CHARS]
    chosen: list[int] = []
    outputs: set[str] = set()
    for i, (_, out) in enumerate(short):  # one of each output first
        if value_key(out) not in outputs and len(chosen) < SHOWN:
            chosen.append(i)
            outputs.add(value_key(out))
    chosen += [i for i in range(len(short)) if i not in chosen][: SHOWN - len(chosen)]
    return [short[i] for i in sorted(chosen)]


def ranked_partners(
    f: Problem, singles: Sequence[Problem], state: Pairing
) -> list[tuple[Problem, rules.Fit]]:
    """f's fitting partners, best first: more of f's inputs kept, more distinct answers, no shared name."""
    ranked = []
    for g in singles:
        if not (state.shapes[f.id].readable and state.shapes[g.id].readable):
            continue  # a description that cannot be read out of its prompt makes no step
        fit = rules.fits(f, g, state.shapes[f.id], state.shapes[g.id])
        if fit is None or len(fit.inside) < MIN_INPUTS:
            continue
        tie = sum(map(ord, f"{state.seed}{f.id}{g.id}")) % 997
        clash = fit.g_param in rules.param_names(f)  # "take the value ... as `n`" when f has an n too
        ranked.append((clash, -len(fit.inside), tie, g, fit))
    ranked.sort(key=lambda item: item[:3])
    return [(g, fit) for *_, g, fit in ranked]


@dataclass
class Pair:
    """A composition that passed the search, ready to become a draft."""

    f: Problem
    g: Problem
    built: rules.Combined
    tests: list[Candidate]
    survivors: list[str]


def wording_problem(built: rules.Combined, f: Problem, g: Problem) -> Outcome | None:
    """What the composition checks would refuse in the steps' texts, found before any test is run."""
    for text in (built.f_text, built.g_text):
        phrase = asks_to_write(text)
        if phrase is not None:
            return "leftover-imperative", f"a step still says '{phrase}'"
        used = names_used(text, (f.entry_point, g.entry_point))
        if used:
            return "stale-name", f"a step names `{used[0]}`"
        reference = stale_reference(text)
        if reference is not None:
            return "stale-name", f"a step speaks of '{reference}'"
    return None


def try_pair(f: Problem, g: Problem, fit: rules.Fit, state: Pairing) -> Pair | Outcome:
    """The composition with its chosen tests, or why it cannot be published.

    f's own fitting inputs are judged first; generated ones are made (and the
    judging repeated with them) only when those fall short.
    """
    built = rules.combine(f, g, fit.g_param, [], state.shown_for(f), state.shown_for(g))
    if isinstance(built, str):
        return "compose", built
    worded = wording_problem(built, f, g)
    if worded is not None:
        return worded
    g_shape = state.shapes[g.id]
    bools_open = not _BOOLEANS.search(rules.description(f) or "")
    own = _candidates(
        own_pool(f, state.shapes[f.id]), g, g_shape, state.engine, state.g_cache, MAX_OWN, bools_open
    )
    if len(own) < MIN_INPUTS:
        return "partner-runs", f"g runs on only {len(own)} of f's outputs it may receive"
    if len({value_key(c.expected) for c in own}) < 2:
        return "partner-runs", "g gives one answer on every output of f it receives"
    judged = _judge(built, f, g, own, state.mutants, state.engine)
    if isinstance(judged, str):
        return "runs-on-inputs", judged
    chosen = choose_tests(judged, len(own))
    missing = shortfalls(judged, chosen)
    if missing:
        extra = _candidates(
            state.generated_for(f), g, g_shape, state.engine, state.g_cache, GENERATED, bools_open
        )
        known = {value_key(c.args) for c in own}
        extra = [c for c in extra if value_key(c.args) not in known]
        if extra:
            judged = _judge(built, f, g, own + extra, state.mutants, state.engine)
            if isinstance(judged, str):
                return "runs-on-inputs", judged
            chosen = choose_tests(judged, len(own))
            missing = shortfalls(judged, chosen)
    if missing:
        return _outcome(missing)
    survivors = [label for label, killers in judged.kills.items() if not killers & set(chosen)]
    return Pair(f, g, built, [judged.candidates[i] for i in chosen], survivors)


def _outcome(missing: list[str]) -> Outcome:
    """The check a shortfall is named after, as the finalize checks would name it."""
    first = missing[0]
    if "alone passes" in first:
        check = "solved-without"
    elif first.startswith("one output"):
        check = "thin-suite"
    elif "mutants" in first:
        check = "steps-exercised"
    else:
        check = "thin-suite"
    return check, "; ".join(missing)


VariantMaker = Callable[..., Variant]


def propose_combine(parents: Sequence[Problem], engine: Engine, seed: int, make: VariantMaker,
                    advance: Advance | None = None) -> tuple[list[Draft], list[tuple[Problem, str, str]]]:  # fmt: skip
    """One draft per seed f whose composition with some partner passes the search; (f, check, reason)
    for every other seed.  ``make`` builds the variant record (the run's ``_variant``)."""
    state = Pairing(parents, engine, seed)
    state.shapes = {p.id: rules.shape(p) for p in parents}
    singles = [p for p in parents if state.shapes[p.id].single]
    partners = {f.id: ranked_partners(f, singles, state) for f in singles}
    involved = {f_id for f_id, ranked in partners.items() if ranked}
    involved |= {g.id for ranked in partners.values() for g, _ in ranked[:PARTNERS_TRIED]}
    state.mutants = killed_mutants([p for p in parents if p.id in involved], engine, seed)
    uses: Counter[str] = Counter()
    drafts: list[Draft] = []
    dropped: list[tuple[Problem, str, str]] = []
    for f in parents:
        if f.id not in partners:
            dropped.append((f, *_no_shape(f)))
            continue
        ranked = [(g, fit) for g, fit in partners[f.id] if uses[g.id] < MAX_PARTNER_USES][:PARTNERS_TRIED]
        if not ranked:
            reason = "no single-parameter problem whose input type, range and stated bounds admit f's outputs"
            dropped.append((f, "type-fit", reason))
            continue
        outcomes: list[Outcome] = []
        for g, fit in ranked:
            found = try_pair(f, g, fit, state)
            if isinstance(found, Pair):
                uses[g.id] += 1
                drafts.append(_draft(found, make, state.shown_for(f), state.shown_for(g)))
                break
            outcomes.append((found[0], f"with {g.id}: {found[1]}"))
        else:
            check = Counter(check for check, _ in outcomes).most_common(1)[0][0]
            dropped.append((f, check, " | ".join(reason for _, reason in outcomes)))
        if advance is not None:
            advance(1)
    return drafts, dropped


def _no_shape(f: Problem) -> Outcome:
    tree = rules.parse_code(f.prompt)
    signed = tree is not None and any(isinstance(n, ast.FunctionDef) for n in tree.body)
    return "single-function", (
        "the prompt defines more than its entry point, or it is not a function"
        if signed
        else "the prompt has no def line to compose (MBPP-style prompts state the task in words)"
    )


def _draft(
    pair: Pair, make: VariantMaker, shown_f: Sequence[tuple[Any, Any]], shown_g: Sequence[tuple[Any, Any]]
) -> Draft:
    f, g, built = pair.f, pair.g, pair.built
    # Worked examples from f's own inputs, ones whose answer prints (a doctest of None shows nothing).
    own = [(c.args, c.expected) for c in pair.tests if c.origin == "base"]
    shown = ([(a, e) for a, e in own if e is not None] + [(a, e) for a, e in own if e is None])[:2]
    final = rules.combine(f, g, built.g_param, shown, shown_f, shown_g)
    assert not isinstance(final, str)  # the same texts as ``built``, with examples
    tests = [TestCase(input=c.args, origin=c.origin) for c in pair.tests]
    variant = make(f, "combine", "-" + g.id.rsplit("/", 1)[-1], final.prompt, final.reference, final.entry_point,
                   tests, [f.id, g.id], partner=g.id, partner_entry_point=g.entry_point,
                   renamed_from=f.entry_point, tests_added=sum(1 for c in pair.tests if c.origin != "base"))  # fmt: skip
    # Floats that step 1 computes in another order may differ in the last bit: EvoEval's tolerance.
    variant = variant.model_copy(update={"atol": max(f.atol, g.atol, FLOAT_TOLERANCE)})
    g_alone = f"{final.g_code.rstrip()}\n\n\n{final.entry_point} = {final.renames.get(g.entry_point, g.entry_point)}\n"
    f_alone = f"{f.reference.rstrip()}\n\n\n{final.entry_point} = {f.entry_point}\n"
    g_description = rules.description(g) or ""
    steps = Steps(
        quoted=(final.f_text, final.g_text), names=(f.entry_point, g.entry_point),
        handoffs=tuple((c.args, c.handoff) for c in pair.tests), receiver=g_description,
        receiver_param=final.g_param, survivors=tuple(pair.survivors), exercised=True,
    )  # fmt: skip
    return Draft(
        variant=variant, parent=f, outputs="any", twin=False, suite="own", steps=steps,
        baselines={"step 1 alone (the first parent's reference)": f_alone,
                   "step 2 alone (the second parent's reference on the arguments)": g_alone},
    )  # fmt: skip


def llm_partners(parents: Sequence[Problem], engine: Engine, seed: int) -> tuple[dict[str, Problem], dict[str, Outcome]]:  # fmt: skip
    """For the LLM half: per f the first fitting partner g runs on (the generator writes the problem,
    self-consistency and finalize verify it); per other f, why none."""
    state = Pairing(parents, engine, seed)
    state.shapes = {p.id: rules.shape(p) for p in parents}
    singles = [p for p in parents if state.shapes[p.id].single]
    uses: Counter[str] = Counter()
    chosen: dict[str, Problem] = {}
    why: dict[str, Outcome] = {}
    for f in parents:
        if not state.shapes[f.id].single:
            why[f.id] = _no_shape(f)
            continue
        for g, _fit in ranked_partners(f, singles, state):
            if uses[g.id] >= MAX_PARTNER_USES:
                continue
            own = _candidates(own_pool(f), g, state.shapes[g.id], engine, state.g_cache, MAX_OWN)
            if len(own) >= MIN_INPUTS and len({value_key(c.expected) for c in own}) >= 2:
                chosen[f.id] = g
                uses[g.id] += 1
                break
        else:
            why[f.id] = (
                "type-fit",
                "no single-parameter problem whose input type, range and stated bounds admit f's outputs and runs on them",
            )
    return chosen, why
