"""Problems in, samples out: ask a model for n answers per problem, paying once per answer.

Every answer is committed to the cache the moment it arrives, and a request
whose key is already there is never sent, so a killed run resumes where it
stopped and a finished one re-runs with zero requests.  Failures stay on
their sample (``Sample.error``) and the run goes on.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field

from benchmorph.core.progress import Advance
from benchmorph.data.models import Problem, Sample
from benchmorph.models.ask import Answer, aask
from benchmorph.models.backends import Backend
from benchmorph.models.baselines import BASELINES
from benchmorph.models.cache import LLMCache
from benchmorph.models.params import GenerationParams, RetryPolicy
from benchmorph.models.prompts import answer_to_code, build_request
from benchmorph.models.spec import ModelSpec


@dataclass
class GenerationReport:
    samples: list[Sample]
    requests: int = 0  # answers paid for in this run
    cached: int = 0  # answers the cache already had
    errors: int = 0  # samples without an answer
    error_messages: list[str] = field(default_factory=list)


def _sample(spec: ModelSpec, params: GenerationParams, problem: Problem, slot: Answer, index: int) -> Sample:
    sample_params = {**params.request_fields(index), "mode": spec.mode}
    if slot.answer is None:
        return Sample(
            task_id=problem.id,
            index=index,
            code="",
            raw=None,
            model=spec.text,
            params=sample_params,
            error=slot.error or "no answer",
        )
    code = answer_to_code(problem, slot.request, slot.answer.text)
    return Sample(
        task_id=problem.id,
        index=index,
        code=code,
        raw=slot.answer.text,
        model=spec.text,
        params={**sample_params, "finish_reason": slot.answer.finish_reason},
    )


def _baseline_samples(spec: ModelSpec, problems: Sequence[Problem], params: GenerationParams) -> list[Sample]:
    # A baseline is deterministic: one sample per problem whatever n says.
    answers = BASELINES.get(spec.model)(problems, spec.options)
    return [
        Sample(task_id=problem.id, index=0, code=code, model=spec.text)
        for problem, code in zip(problems, answers, strict=True)
    ]


async def agenerate(
    problems: Sequence[Problem],
    spec: ModelSpec,
    params: GenerationParams,
    cache: LLMCache,
    *,
    backend: Backend | None = None,
    concurrency: int | None = None,
    policy: RetryPolicy | None = None,
    api_key_env: str | None = None,
    progress: Advance | None = None,
) -> GenerationReport:
    """Generate ``params.n`` samples per problem (the async core; see :func:`generate`)."""
    if spec.is_baseline:
        samples = _baseline_samples(spec, problems, params)
        if progress:
            progress(len(samples))
        return GenerationReport(samples)

    requests = [build_request(problem, spec.mode) for problem in problems]
    asked = await aask(
        requests,
        spec,
        params,
        cache,
        backend=backend,
        concurrency=concurrency,
        policy=policy,
        api_key_env=api_key_env,
        progress=progress,
    )
    report = GenerationReport([], requests=asked.requests, cached=asked.cached)
    report.samples = [
        _sample(spec, params, problem, slot, index)
        for problem, slots in zip(problems, asked.answers, strict=True)
        for index, slot in enumerate(slots)
    ]
    failed = [sample for sample in report.samples if sample.error]
    report.errors = len(failed)
    report.error_messages = [f"{sample.task_id} #{sample.index}: {sample.error}" for sample in failed]
    return report


def generate(
    problems: Sequence[Problem],
    spec: ModelSpec | str,
    params: GenerationParams | None = None,
    cache: LLMCache | None = None,
    **options: object,
) -> GenerationReport:
    """Generate samples for problems with any model spec; answers are cached and resumable.

    >>> from benchmorph.data.registry import load_benchmark
    >>> problems = load_benchmark("humaneval").problems[:2]
    >>> report = generate(problems, "reference")
    >>> [sample.task_id for sample in report.samples]
    ['HumanEval/0', 'HumanEval/1']
    """
    from benchmorph.models.spec import parse_spec

    spec = parse_spec(spec) if isinstance(spec, str) else spec
    own_cache = cache is None
    cache = cache or LLMCache()
    try:
        return asyncio.run(agenerate(problems, spec, params or GenerationParams(), cache, **options))  # type: ignore[arg-type]
    finally:
        if own_cache:
            cache.close()
