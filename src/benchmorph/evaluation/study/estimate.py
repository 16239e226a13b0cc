"""How much work a study plan is, and how long it takes, from the per-sample costs measured here.

Counts are exact where they can be known before running: answers already in the LLM cache, and the
variants of every set already built, which with ``probe`` (the default) includes every offline set,
since the dry run builds those (seconds each; kept in the cache, so the study does not build them
again).  A set not built (an LLM family's) counts the variants per problem an earlier build of the
same family on this benchmark measured, else a prior.

Times come from ``costs.json`` (what earlier studies measured on this machine), else from the probe,
else from the priors in ``costs.py``; each line of the estimate says which.  The probe times the
sandbox on a few references the study needs anyway, and each model on three of the study's own
requests (stored in the LLM cache, so the study does not ask them again): the first pays the model's
loading, the shortest and the longest prompt fit seconds = a + b x prompt length, from which every
planned request is estimated by its own length (a combined problem's prompt is several times an
original's, and prompt evaluation is a large part of a small model's time).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from benchmorph.data.models import Problem
from benchmorph.evaluation.study import costs as priors
from benchmorph.evaluation.study.build import ensure_set, set_problems
from benchmorph.evaluation.study.config import StudyConfig
from benchmorph.evaluation.study.costs import Costs, answer_key, build_key, cpu_count
from benchmorph.evaluation.study.plan import BuildSpec, EstimateLine, Plan
from benchmorph.execution.engine import Engine, Job
from benchmorph.models import GenerationParams, LLMCache, parse_spec
from benchmorph.models.ask import generation_key
from benchmorph.models.generate import generate
from benchmorph.models.prompts import build_request

PROBE_VERDICTS = 8


@dataclass
class AnswerModel:
    """Seconds for one answer of a model: ``load`` once, then ``base + per_char * len(prompt)``."""

    load: float
    base: float
    per_char: float = 0.0

    def seconds(self, prompt: str) -> float:
        return max(0.05, self.base + self.per_char * len(prompt))


@dataclass
class Probe:
    """Rates measured now."""

    seconds_per_verdict: float | None = None
    start_seconds: float | None = None
    models: dict[str, AnswerModel] = field(default_factory=dict)
    built: list[tuple[BuildSpec, float]] = field(default_factory=list)  # sets the probe built, seconds


def params_of(config: StudyConfig) -> GenerationParams:
    return GenerationParams(
        n=config.n,
        temperature=config.temperature,
        top_p=config.top_p,
        max_tokens=config.max_tokens,
        seed=config.sample_seed,
    )


def planned_problems(plan: Plan, problems: Sequence[Problem]) -> tuple[list[Problem], int]:
    """Every problem the models will be asked (originals and built sets), and the variants of sets not
    built yet (their prompts unknown)."""
    known = list(problems)
    unknown = 0
    for build in plan.builds:
        if build.cached:
            known += set_problems(build)
        else:
            unknown += plan.variants_expected.get(build.name, (0, ""))[0]
    return known, unknown


def expected_variants(build: BuildSpec, problems: int, benchmark: str, costs: Costs) -> tuple[int, str]:
    """(variants, where the number comes from) for one set."""
    if build.cached:
        return len(set_problems(build)), "built"
    measured = costs.yields.get(build_key(build.transform, benchmark, build.uses_llm))
    if measured is not None and measured.per_unit is not None:
        return round(measured.per_unit * problems), "measured yield"
    if build.transform == "metamorphic":
        k = int(build.options.get("variants", 1))
        return round(problems * k * priors.PRIOR_METAMORPHIC_ACCEPT), "prior yield"
    share = priors.PRIOR_YIELD.get(build.transform)
    if share is None:
        return 0, "unknown until built"
    return round(share * problems), "prior yield"


def uncached(
    model: str, problems: Sequence[Problem], params: GenerationParams, cache: LLMCache
) -> list[Problem]:
    """The problems (once per sample asked) whose answer the LLM cache does not hold yet."""
    spec = parse_spec(model)
    todo = []
    for problem in problems:
        request = build_request(problem, spec.mode)
        indices = {params.cache_index(index) for index in range(params.n)}
        for index in sorted(indices):
            if cache.get(generation_key(spec, request, params, index)) is None:
                todo.append(problem)
    return todo


def _time_answer(problem: Problem, model: str, params: GenerationParams, cache: LLMCache) -> float:
    began = time.perf_counter()
    generate([problem], parse_spec(model), params, cache)
    return time.perf_counter() - began


def probe(
    config: StudyConfig,
    plan: Plan,
    problems: Sequence[Problem],
    engine: Engine,
    cache: LLMCache,
    started: float,
) -> Probe:
    """Build the offline sets, time the sandbox on a few references, and each model on three requests."""
    found = Probe()
    for build in plan.builds:
        if not build.uses_llm and not build.cached:
            began = time.perf_counter()
            ensure_set(build, problems, engine, cache=None, seed=config.seed, benchmark=plan.benchmark)
            found.built.append((build, time.perf_counter() - began))
    chosen = list(problems[:PROBE_VERDICTS])
    prepared = engine.prepare(chosen).problems
    found.start_seconds = time.perf_counter() - started - sum(seconds for _, seconds in found.built)
    jobs = [Job(problem, problem.reference, problem.id, 0) for problem in prepared]
    if jobs:
        began = time.perf_counter()
        engine.evaluate(jobs)
        found.seconds_per_verdict = (time.perf_counter() - began) / len(jobs)
    params = params_of(config).model_copy(update={"n": 1})
    asked, _ = planned_problems(plan, problems)
    for model in config.model:
        if parse_spec(model).is_baseline:
            continue
        todo = uncached(model, asked, params, cache)
        if len(todo) < 3:
            continue  # (nearly) everything is cached: generation costs about nothing
        by_length = sorted(todo[1:], key=lambda p: len(p.prompt))
        first = _time_answer(todo[0], model, params, cache)
        short, long = by_length[0], by_length[-1]
        short_s, long_s = _time_answer(short, model, params, cache), _time_answer(long, model, params, cache)
        span = len(long.prompt) - len(short.prompt)
        per_char = max(0.0, (long_s - short_s) / span) if span > 0 else 0.0
        base = short_s - per_char * len(short.prompt)
        if per_char == 0.0:
            base = (short_s + long_s) / 2
        fitted = AnswerModel(0.0, base, per_char)
        found.models[model] = AnswerModel(max(0.0, first - fitted.seconds(todo[0].prompt)), base, per_char)
    return found


def estimate_plan(
    plan: Plan,
    config: StudyConfig,
    problems: Sequence[Problem],
    costs: Costs,
    cache: LLMCache,
    probed: Probe | None = None,
) -> Plan:
    """Fill in the plan's counts and time estimate."""
    params = params_of(config)
    workers = config.workers or cpu_count()
    per_sample = 1 if params.greedy else params.n
    plan.variants_expected = {
        build.name: expected_variants(build, len(problems), plan.benchmark, costs) for build in plan.builds
    }
    estimate: list[EstimateLine] = []
    if costs.start.per_unit is not None:
        estimate.append(EstimateLine("start-up", costs.start.per_unit, "measured"))
    elif probed is not None and probed.start_seconds is not None:
        estimate.append(EstimateLine("start-up", priors.PRIOR_START + probed.start_seconds, "probe"))
    else:
        estimate.append(EstimateLine("start-up", priors.PRIOR_START, "prior"))

    llm_builds = []
    for build in plan.builds:
        if build.cached:
            estimate.append(EstimateLine(f"build {build.name}", 0.0, "built already"))
            continue
        rate = costs.builds.get(build_key(build.transform, plan.benchmark, build.uses_llm))
        if rate is not None and rate.per_unit is not None:
            estimate.append(EstimateLine(f"build {build.name}", rate.per_unit * len(problems), "measured"))
            continue
        if build.uses_llm:
            llm_builds.append(build.name)
            each = priors.PRIOR_BUILD_PER_PROBLEM_LLM
        else:
            each = priors.PRIOR_BUILD_PER_PROBLEM.get(build.transform, 0.2)
        estimate.append(
            EstimateLine(f"build {build.name}", priors.PRIOR_BUILD_SECONDS + each * len(problems), "prior")
        )
    plan.generator_requests = (
        "none (every family offline)"
        if not any(build.uses_llm for build in plan.builds)
        else "counted while building the LLM sets (an earlier build's answers come from the cache)"
    )
    if config.augment_tests:
        # augment_budget_s bounds a problem's own CPU seconds, so the rate is CPU seconds per problem
        # too (one worker's); the problems share the workers, so the stage's wall is their sum over
        # the workers (on an otherwise idle machine: a busy one takes longer, the CPU seconds do not).
        measured_augment = costs.augment.per_unit
        source = "measured" if measured_augment is not None else "prior"
        each = measured_augment if measured_augment is not None else priors.PRIOR_AUGMENT_PER_PROBLEM
        estimate.append(
            EstimateLine(
                "augment tests", min(each, config.augment_budget_s) * len(problems) / workers, source
            )
        )

    asked, unknown = planned_problems(plan, problems)
    sets = 1 + len(plan.builds)
    runs = verdicts = 0
    for model in [*config.model, *config.baseline]:
        spec = parse_spec(model)
        samples = 1 if spec.is_baseline else params.n
        verdicts += (len(asked) + unknown) * samples + (
            len(problems) * samples if config.augment_tests else 0
        )
        runs += sets + (1 if config.augment_tests else 0)
        if spec.is_baseline:
            continue
        todo = uncached(model, asked, params, cache)
        total = (len(asked) + unknown) * per_sample
        plan.answers[model] = (len(todo) + unknown * per_sample, total - len(todo) - unknown * per_sample)
        estimate.append(_answers_line(model, config, costs, probed, todo, unknown * per_sample, problems))
    plan.verdicts = verdicts
    if costs.verdicts.per_unit is not None:
        per_verdict, source = costs.verdicts.per_unit, "measured"
    elif probed is not None and probed.seconds_per_verdict is not None:
        per_verdict, source = probed.seconds_per_verdict, "probe"
    else:
        per_verdict, source = priors.PRIOR_SECONDS_PER_VERDICT, "prior"
    estimate.append(EstimateLine(f"sandbox: {verdicts} verdicts", verdicts * per_verdict, source))
    overhead = costs.runs.per_unit
    estimate.append(
        EstimateLine(
            f"{runs} run directories, the report and the exports",
            runs * (overhead if overhead is not None else priors.PRIOR_RUN_OVERHEAD),
            "measured" if overhead is not None else "prior",
        )
    )
    plan.estimate = estimate
    if not costs.answers and probed is None:
        plan.notes.append("no per-sample cost measured here yet: the estimate uses priors (--probe measures)")
    return plan


def _answers_line(
    model: str,
    config: StudyConfig,
    costs: Costs,
    probed: Probe | None,
    todo: Sequence[Problem],
    unknown: int,
    problems: Sequence[Problem],
) -> EstimateLine:
    """The time of a model's answers still to ask: each known prompt by its length, the rest as a parent's."""
    count = len(todo) + unknown
    what = f"{count} answers of {model}"
    if probed is not None and model in probed.models:
        fitted = probed.models[model]
        mean_parent = sum(len(p.prompt) for p in problems) / max(1, len(problems))
        seconds = fitted.load + sum(fitted.seconds(p.prompt) for p in todo)
        seconds += unknown * fitted.seconds("x" * round(mean_parent))
        return EstimateLine(what, seconds if count else 0.0, "probe")
    measured = costs.answers.get(answer_key(parse_spec(model).identity(), config.max_tokens))
    if measured is not None and measured.per_unit is not None:
        return EstimateLine(what, measured.per_unit * count, "measured")
    return EstimateLine(what, priors.PRIOR_SECONDS_PER_ANSWER * count, "prior")
