"""Problems in, samples out: ask a model for n answers per problem, paying once per answer.

Every answer is committed to the cache the moment it arrives, and a request
whose key is already there is never sent, so a killed run resumes where it
stopped and a finished one re-runs with zero requests.  Failures stay on
their sample (``Sample.error``) and the run goes on.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from benchmorph.data.models import Problem, Sample
from benchmorph.models.backends import Backend, GenerationError, make_backend
from benchmorph.models.baselines import baseline_code
from benchmorph.models.cache import CachedAnswer, LLMCache, hash_key
from benchmorph.models.params import GenerationParams, RetryPolicy
from benchmorph.models.prompts import Request, answer_to_code, build_request
from benchmorph.models.spec import ModelSpec

Progress = Callable[[int], None]


@dataclass
class GenerationReport:
    samples: list[Sample]
    requests: int = 0  # answers paid for in this run
    cached: int = 0  # answers the cache already had
    errors: int = 0  # samples without an answer
    error_messages: list[str] = field(default_factory=list)


@dataclass
class _Slot:
    """One distinct question; greedy decoding lets several sample indices share it."""

    problem: Problem
    request: Request
    index: int
    key: str
    answer: CachedAnswer | None = None
    error: str | None = None


def key_payload(spec: ModelSpec, request: Request, params: GenerationParams, index: int) -> dict:
    """What identifies an answer; stored beside it so the cache can be inspected."""
    return {
        "model": spec.identity(),
        "request": request.payload(),
        "params": params.request_fields(index),
        "index": params.cache_index(index),
    }


def generation_key(spec: ModelSpec, request: Request, params: GenerationParams, index: int) -> str:
    return hash_key(key_payload(spec, request, params, index))


def _sample(spec: ModelSpec, params: GenerationParams, slot: _Slot, index: int) -> Sample:
    sample_params = {**params.request_fields(index), "mode": spec.mode}
    if slot.answer is None:
        return Sample(
            task_id=slot.problem.id,
            index=index,
            code="",
            raw=None,
            model=spec.text,
            params=sample_params,
            error=slot.error or "no answer",
        )
    code = answer_to_code(slot.problem, slot.request, slot.answer.text)
    return Sample(
        task_id=slot.problem.id,
        index=index,
        code=code,
        raw=slot.answer.text,
        model=spec.text,
        params={**sample_params, "finish_reason": slot.answer.finish_reason},
    )


def _baseline_samples(spec: ModelSpec, problems: Sequence[Problem], params: GenerationParams) -> list[Sample]:
    # A baseline is deterministic: one sample per problem whatever n says.
    return [
        Sample(task_id=problem.id, index=0, code=baseline_code(spec.model, problem), model=spec.text)
        for problem in problems
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
    progress: Progress | None = None,
) -> GenerationReport:
    """Generate ``params.n`` samples per problem (the async core; see :func:`generate`)."""
    if spec.is_baseline:
        samples = _baseline_samples(spec, problems, params)
        if progress:
            progress(len(samples))
        return GenerationReport(samples)

    slots: dict[str, _Slot] = {}
    plan: list[tuple[str, int]] = []  # (slot key, sample index) in output order
    for problem in problems:
        request = build_request(problem, spec.mode)
        for index in range(params.n):
            key = generation_key(spec, request, params, index)
            if key not in slots:
                slots[key] = _Slot(problem, request, index, key, cache.get(key))
            plan.append((key, index))
    sharing: dict[str, int] = {}
    for key, _ in plan:
        sharing[key] = sharing.get(key, 0) + 1
    report = GenerationReport([])
    todo = [slot for slot in slots.values() if slot.answer is None]
    report.cached = len(slots) - len(todo)
    if progress:
        progress(sum(sharing[slot.key] for slot in slots.values() if slot.answer is not None))

    if todo:
        own_backend = backend is None
        backend = backend or make_backend(spec, policy, api_key_env)
        limit = asyncio.Semaphore(max(1, concurrency or backend.default_concurrency))
        identity = spec.identity()

        async def ask(slot: _Slot) -> None:
            async with limit:
                try:
                    completion = await backend.complete(slot.request, params, slot.index)
                except GenerationError as exc:
                    slot.error = str(exc)
                else:
                    slot.answer = CachedAnswer(completion.text, completion.finish_reason, completion.usage)
                    payload = key_payload(spec, slot.request, params, slot.index)
                    cache.put(slot.key, identity, payload, slot.answer)
                    report.requests += 1
            if progress:
                progress(sharing[slot.key])

        try:
            await asyncio.gather(*(ask(slot) for slot in todo))
        finally:
            if own_backend:
                await backend.aclose()

    report.samples = [_sample(spec, params, slots[key], index) for key, index in plan]
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
