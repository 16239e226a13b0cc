"""Any OpenAI-compatible server (vLLM, Ollama, llama.cpp server, SGLang, OpenAI) through the official SDK.

The SDK's own retries are off: we retry here so that every transient
failure (429, 5xx, connection errors, timeouts) gets the same exponential
backoff with jitter, moves to the next endpoint when there are several, and
is counted; anything else (a 4xx, a malformed body) fails the one request.
"""

from __future__ import annotations

import asyncio
import itertools
import os
from typing import Any

import httpx
import openai

from benchmorph.models.backends.base import Backend, Completion, GenerationError
from benchmorph.models.params import GenerationParams, RetryPolicy
from benchmorph.models.prompts import Request
from benchmorph.models.spec import ModelSpec

RETRIABLE_STATUS = {408, 409, 425, 429}
# A local server saturates at a handful of parallel slots; remote ones queue the rest.
DEFAULT_CONCURRENCY = 8


def _retry_after(exc: openai.APIStatusError) -> float | None:
    value = exc.response.headers.get("retry-after") if exc.response is not None else None
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


def _is_transient(exc: Exception) -> bool:
    if isinstance(exc, openai.APIConnectionError):  # includes APITimeoutError
        return True
    if isinstance(exc, openai.APIStatusError):
        return exc.status_code in RETRIABLE_STATUS or exc.status_code >= 500
    return isinstance(exc, httpx.TransportError | asyncio.TimeoutError)


def _describe(exc: Exception) -> str:
    if isinstance(exc, openai.APIStatusError):
        return f"HTTP {exc.status_code}: {str(exc.message)[:200]}"
    if isinstance(exc, openai.APITimeoutError):
        return "request timed out"
    if isinstance(exc, openai.APIConnectionError):
        return f"connection error: {exc.__cause__ or exc}"[:240]
    return f"{type(exc).__name__}: {exc}"[:240]


def _completion_from(response: Any, mode: str) -> Completion:
    """Pull the text out of a response, refusing shapes that are not an answer."""
    choices = getattr(response, "choices", None)
    if not isinstance(choices, list) or not choices:
        raise GenerationError("malformed response: no choices")
    choice = choices[0]
    if mode == "chat":
        message = getattr(choice, "message", None)
        text = getattr(message, "content", None) if message is not None else None
    else:
        text = getattr(choice, "text", None)
    if text is None:
        text = ""
    if not isinstance(text, str):
        raise GenerationError("malformed response: answer text is not a string")
    usage = getattr(response, "usage", None)
    usage_dict = usage.model_dump() if hasattr(usage, "model_dump") else {}
    return Completion(text, getattr(choice, "finish_reason", None), usage_dict)


def _pooled(embedding: Any) -> list[float]:
    """One vector per text; servers without pooling (llama_cpp.server) send one per token: average them."""
    if not isinstance(embedding, list) or not embedding:
        raise GenerationError("malformed embeddings response: empty vector")
    if isinstance(embedding[0], list):
        width = len(embedding[0])
        return [sum(token[i] for token in embedding) / len(embedding) for i in range(width)]
    return [float(value) for value in embedding]


class OpenAIBackend(Backend):
    default_concurrency = DEFAULT_CONCURRENCY

    def __init__(self, spec: ModelSpec, policy: RetryPolicy, api_key_env: str | None = None) -> None:
        self.spec = spec
        self.policy = policy
        env_name = api_key_env or spec.options.get("api_key_env") or "OPENAI_API_KEY"
        # Local servers accept any key; the SDK refuses to start without one.
        api_key = os.environ.get(env_name) or "sk-no-key"
        self._clients = [
            openai.AsyncOpenAI(base_url=url, api_key=api_key, max_retries=0, timeout=policy.timeout)
            for url in spec.urls
        ]
        self._next = itertools.count()
        self.requests_sent = 0
        self.retries = 0

    async def _call(self, client: openai.AsyncOpenAI, request: Request, fields: dict[str, Any]) -> Completion:
        if request.mode == "chat":
            response = await client.chat.completions.create(
                model=self.spec.model,
                messages=request.chat_messages(),
                **fields,  # type: ignore[arg-type]
            )
        else:
            response = await client.completions.create(
                model=self.spec.model, prompt=request.prompt, stop=list(request.stop) or None, **fields
            )
        return _completion_from(response, request.mode)

    async def _with_retries(self, attempt_call: Any) -> Any:
        start = next(self._next)
        last = "no attempt made"
        for attempt in range(self.policy.retries + 1):
            client = self._clients[(start + attempt) % len(self._clients)]
            self.requests_sent += 1
            try:
                result = await attempt_call(client)
                if isinstance(result, Completion):
                    result.attempts = attempt + 1
                return result
            except GenerationError:
                raise
            except Exception as exc:  # noqa: BLE001 - every failure is classified below
                last = _describe(exc)
                if not _is_transient(exc):
                    raise GenerationError(last) from None
                if attempt == self.policy.retries:
                    break
                self.retries += 1
                retry_after = _retry_after(exc) if isinstance(exc, openai.APIStatusError) else None
                await asyncio.sleep(self.policy.delay(attempt, retry_after))
        raise GenerationError(f"gave up after {self.policy.retries + 1} attempts; last: {last}")

    async def complete(self, request: Request, params: GenerationParams, index: int) -> Completion:
        fields = params.request_fields(index)
        return await self._with_retries(lambda client: self._call(client, request, fields))

    async def embed(self, texts: list[str]) -> list[list[float]]:
        async def call(client: openai.AsyncOpenAI) -> list[list[float]]:
            response = await client.embeddings.create(model=self.spec.model, input=texts)
            data = getattr(response, "data", None)
            if not isinstance(data, list) or len(data) != len(texts):
                raise GenerationError("malformed embeddings response: wrong number of vectors")
            ordered = sorted(data, key=lambda item: item.index)
            return [_pooled(item.embedding) for item in ordered]

        return await self._with_retries(call)

    async def aclose(self) -> None:
        for client in self._clients:
            await client.close()


def openai_backend(spec: ModelSpec, policy: RetryPolicy, api_key_env: str | None) -> OpenAIBackend:
    """The ``GENERATORS`` factory for this backend."""
    return OpenAIBackend(spec, policy, api_key_env)
