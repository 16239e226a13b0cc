"""``trained:PATH``: a TinyLM checkpoint from ``bench/contaminate.py``, decoding greedily from the prompt.

It answers completion requests only (it was trained on completion prompts) and
always greedily: temperature and top-p are ignored, so every sample of a
request is the same answer, as for any greedy model.  One model per process
and path, loaded on first use; requests run in a worker thread, one at a time.
"""

from __future__ import annotations

import asyncio
import os
import threading
from typing import Any

from benchmorph.models.backends.base import Backend, Completion, GenerationError
from benchmorph.models.params import GenerationParams, RetryPolicy
from benchmorph.models.prompts import Request
from benchmorph.models.spec import ModelSpec

_LOCK = threading.Lock()
_MODELS: dict[tuple[str, int], Any] = {}


def _threads(spec: ModelSpec) -> int:
    """``?threads=N``, else one: a small model's matrices are too small for two threads to pay for the
    waiting on a machine that is busy with the sandbox's workers."""
    return int(spec.options.get("threads") or 1)


def load_trained(path: str, threads: int = 1) -> Any:
    """(model, vocabulary) of a checkpoint, shared within the process."""
    try:
        import torch

        from benchmorph.models import tinylm
    except ImportError:
        raise GenerationError("torch is not installed: pip install 'benchmorph[torch]'") from None
    with _LOCK:
        key = (path, threads)
        if key not in _MODELS:
            torch.set_num_threads(threads)
            try:
                model, vocabulary, _ = tinylm.load(path)
            except (OSError, tinylm.CheckpointError) as exc:
                raise GenerationError(f"cannot load {path}: {exc}") from None
            _MODELS[key] = (model, vocabulary)
        return _MODELS[key]


class TrainedBackend(Backend):
    default_concurrency = 1

    def __init__(self, spec: ModelSpec) -> None:
        self.spec = spec
        self._lock = threading.Lock()

    def _complete(self, request: Request, params: GenerationParams) -> Completion:
        if request.mode != "completion":
            raise GenerationError("a trained:PATH model answers completion prompts only (mode=completion)")
        from benchmorph.models import tinylm

        model, vocabulary = load_trained(self.spec.model, _threads(self.spec))
        with self._lock:
            text, reason = tinylm.complete(model, vocabulary, request.prompt, params.max_tokens)
        for stop in request.stop:  # a stop sequence ends the answer where a server would end it
            cut = text.find(stop)
            if cut >= 0:
                text, reason = text[:cut], "stop"
        return Completion(text, reason)

    async def complete(self, request: Request, params: GenerationParams, index: int) -> Completion:
        return await asyncio.to_thread(self._complete, request, params)


def trained_backend(spec: ModelSpec, policy: RetryPolicy, api_key_env: str | None) -> TrainedBackend:
    """The ``GENERATORS`` factory for this backend."""
    if not os.path.isfile(spec.model):
        raise GenerationError(f"no checkpoint at {spec.model}")
    return TrainedBackend(spec)
