"""The one road to an LLM: any list of requests, n answers each, through the cache, bounded and resumable.

Sample generation and every LLM step of the morph pipelines (proposing
counterfactuals, solving them) go through :func:`aask`, so they share the
cache, retries, concurrency and the "never pay twice" rule.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from benchmorph.core.progress import Advance
from benchmorph.models.backends import Backend, GenerationError, make_backend
from benchmorph.models.cache import CachedAnswer, LLMCache, hash_key
from benchmorph.models.params import GenerationParams, RetryPolicy
from benchmorph.models.prompts import Request
from benchmorph.models.spec import ModelSpec


@dataclass
class Answer:
    """One answer slot: text (from the model or the cache) or the reason there is none."""

    request: Request
    index: int
    key: str
    answer: CachedAnswer | None = None
    error: str | None = None

    @property
    def text(self) -> str | None:
        return self.answer.text if self.answer is not None else None


@dataclass
class AskReport:
    answers: list[list[Answer]]  # per request, n answers in index order
    requests: int = 0  # answers paid for in this run
    cached: int = 0  # answers the cache already had
    errors: list[str] = field(default_factory=list)


def key_payload(spec: ModelSpec, request: Request, params: GenerationParams, index: int) -> dict[str, Any]:
    """What identifies an answer; stored beside it so the cache can be inspected."""
    return {
        "model": spec.identity(),
        "request": request.payload(),
        "params": params.request_fields(index),
        "index": params.cache_index(index),
    }


def generation_key(spec: ModelSpec, request: Request, params: GenerationParams, index: int) -> str:
    return hash_key(key_payload(spec, request, params, index))


async def aask(
    requests: Sequence[Request],
    spec: ModelSpec,
    params: GenerationParams,
    cache: LLMCache,
    *,
    backend: Backend | None = None,
    concurrency: int | None = None,
    policy: RetryPolicy | None = None,
    api_key_env: str | None = None,
    progress: Advance | None = None,
) -> AskReport:
    """``params.n`` answers per request; cached answers are never asked again, failures are not cached."""
    slots: dict[str, Answer] = {}
    plan: list[list[str]] = []
    for request in requests:
        keys = []
        for index in range(params.n):
            key = generation_key(spec, request, params, index)
            if key not in slots:
                slots[key] = Answer(request, index, key, cache.get(key))
            keys.append(key)
        plan.append(keys)
    sharing: dict[str, int] = {}
    for keys in plan:
        for key in keys:
            sharing[key] = sharing.get(key, 0) + 1
    report = AskReport([])
    todo = [slot for slot in slots.values() if slot.answer is None]
    report.cached = len(slots) - len(todo)
    if progress:
        progress(sum(sharing[slot.key] for slot in slots.values() if slot.answer is not None))

    if todo:
        own_backend = backend is None
        backend = backend or make_backend(spec, policy, api_key_env)
        limit = asyncio.Semaphore(max(1, concurrency or backend.default_concurrency))
        identity = spec.identity()

        async def ask(slot: Answer) -> None:
            async with limit:
                try:
                    completion = await backend.complete(slot.request, params, slot.index)
                except GenerationError as exc:
                    slot.error = str(exc)
                else:
                    slot.answer = CachedAnswer(completion.text, completion.finish_reason, completion.usage)
                    cache.put(
                        slot.key, identity, key_payload(spec, slot.request, params, slot.index), slot.answer
                    )
                    report.requests += 1
            if progress:
                progress(sharing[slot.key])

        try:
            await asyncio.gather(*(ask(slot) for slot in todo))
        finally:
            if own_backend:
                await backend.aclose()

    report.answers = [[slots[key] for key in keys] for keys in plan]
    return report


def ask(
    requests: Sequence[Request], spec: ModelSpec, params: GenerationParams, cache: LLMCache, **options: Any
) -> AskReport:
    """Synchronous :func:`aask`, for pipelines that are not async themselves."""
    return asyncio.run(aask(requests, spec, params, cache, **options))
