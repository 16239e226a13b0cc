"""GGUF models in-process with llama-cpp-python: the embedded `local` model and `llamacpp:PATH`.

One model instance per process, loaded on first use and driven from one
thread at a time (a llama.cpp context is not thread-safe); requests run in
a worker thread so the event loop keeps the progress bar moving.
"""

from __future__ import annotations

import asyncio
import ctypes
import os
import threading
from typing import Any

from benchmorph.models.backends.base import Backend, Completion, GenerationError
from benchmorph.models.gguf import resolve_gguf
from benchmorph.models.params import GenerationParams, RetryPolicy
from benchmorph.models.prompts import Request
from benchmorph.models.spec import ModelSpec

CONTEXT_TOKENS = 4096
_LOAD_LOCK = threading.Lock()
_MODELS: dict[tuple[str, bool, int], Any] = {}


def _threads(spec: ModelSpec | None = None) -> int:
    """The spec's ``?threads=N`` (a cap for a machine shared with the sandbox workers), else every CPU we may use.

    llama.cpp's threads spin while they wait for each other, so on a loaded machine a model that takes
    every core runs many times slower than one that takes fewer.
    """
    if spec is not None and spec.options.get("threads"):
        return int(spec.options["threads"])
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1))


_QUIET: list[Any] = []


def _silence_llama_logs(llama_cpp: Any) -> None:
    """llama.cpp prints context notes to stderr even with verbose=False; they would break the progress bar."""
    if _QUIET:
        return
    try:
        callback = llama_cpp.llama_log_callback(lambda level, text, user_data: None)
        llama_cpp.llama_log_set(callback, ctypes.c_void_p(0))
        _QUIET.append(callback)  # the C side keeps a pointer: keep the object alive
    except (AttributeError, TypeError):
        pass


def load_llama(model: str, *, embedding: bool = False, threads: int | None = None) -> Any:
    """The llama_cpp.Llama for a spec's model field, shared within the process (per thread count)."""
    try:
        import llama_cpp  # type: ignore[import-not-found]
    except ImportError:
        raise GenerationError("llama-cpp-python is not installed: pip install 'benchmorph[local]'") from None
    path = str(resolve_gguf(model))
    _silence_llama_logs(llama_cpp)
    with _LOAD_LOCK:
        n_threads = threads or _threads()
        key = (path, embedding, n_threads)
        if key not in _MODELS:
            options: dict[str, Any] = {
                "model_path": path,
                "n_ctx": CONTEXT_TOKENS,
                "n_threads": n_threads,
                "n_threads_batch": n_threads,  # prompt evaluation, which otherwise takes every core
                "verbose": False,
            }
            if embedding:
                options.update(embedding=True, pooling_type=llama_cpp.LLAMA_POOLING_TYPE_MEAN)
            try:
                _MODELS[key] = llama_cpp.Llama(**options)
            except (ValueError, RuntimeError) as exc:
                raise GenerationError(f"cannot load GGUF {path}: {exc}") from None
        return _MODELS[key]


class LlamaCppBackend(Backend):
    default_concurrency = 1

    def __init__(self, spec: ModelSpec) -> None:
        self.spec = spec
        self._lock = threading.Lock()

    def _complete(self, request: Request, params: GenerationParams, index: int) -> Completion:
        llm = load_llama(self.spec.model, threads=_threads(self.spec))
        fields = params.request_fields(index)
        sampling: dict[str, Any] = {
            "max_tokens": fields["max_tokens"],
            "temperature": fields["temperature"],
            "top_p": fields["top_p"],
            "seed": fields.get("seed"),
        }
        if params.greedy:
            sampling["top_k"] = 1
        with self._lock:
            try:
                if request.mode == "chat":
                    response = llm.create_chat_completion(messages=request.chat_messages(), **sampling)
                    choice = response["choices"][0]
                    text = choice["message"].get("content") or ""
                else:
                    response = llm.create_completion(request.prompt, stop=list(request.stop), **sampling)
                    choice = response["choices"][0]
                    text = choice["text"]
            except ValueError as exc:  # e.g. the prompt does not fit the context window
                raise GenerationError(str(exc)[:240]) from None
        return Completion(text, choice.get("finish_reason"), dict(response.get("usage") or {}))

    async def complete(self, request: Request, params: GenerationParams, index: int) -> Completion:
        return await asyncio.to_thread(self._complete, request, params, index)


def gguf_embedder(spec: ModelSpec):  # type: ignore[no-untyped-def]
    """Mean-pooled final hidden states of the GGUF model, one vector per text."""
    llm = load_llama(spec.model, embedding=True, threads=_threads(spec))

    def run(texts: list[str]) -> list[list[float]]:
        vectors = []
        for text in texts:  # one at a time: a batch must fit one context
            vector = llm.embed(text, truncate=True)
            vectors.append(list(vector[0]) if vector and isinstance(vector[0], list) else list(vector))
        return vectors

    return run


def llamacpp_backend(spec: ModelSpec, policy: RetryPolicy, api_key_env: str | None) -> LlamaCppBackend:
    """The ``GENERATORS`` factory for this backend."""
    return LlamaCppBackend(spec)
