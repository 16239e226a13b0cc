"""Text embeddings through the models layer, cached like generations.

The CTF papers measure how far a counterfactual solution moved from the
original (D_S) with the cosine distance of embeddings; CTF-Instruct picks
diverse pairs with them.  Embedders: ``local`` or ``llamacpp:PATH`` (mean of
the final hidden states of the GGUF model), ``openai:MODEL@URL``
(``/v1/embeddings``) and ``st:NAME`` (sentence-transformers, an extra).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence

import numpy as np

from benchmorph.core.registry import Registry
from benchmorph.data.errors import InputError
from benchmorph.models.cache import LLMCache, hash_key
from benchmorph.models.params import RetryPolicy
from benchmorph.models.spec import ModelSpec, parse_spec

BatchEmbedder = Callable[[list[str]], list[list[float]]]


EmbedderFactory = Callable[[ModelSpec, RetryPolicy], BatchEmbedder]


def _openai_embedder(spec: ModelSpec, policy: RetryPolicy) -> BatchEmbedder:
    from benchmorph.models.backends.openai_compat import OpenAIBackend

    def run(texts: list[str]) -> list[list[float]]:
        async def once() -> list[list[float]]:
            backend = OpenAIBackend(spec, policy)
            try:
                return await backend.embed(texts)
            finally:
                await backend.aclose()

        return asyncio.run(once())

    return run


def _sentence_transformers_embedder(spec: ModelSpec, policy: RetryPolicy) -> BatchEmbedder:
    try:
        from sentence_transformers import SentenceTransformer  # type: ignore[import-not-found]
    except ImportError:
        raise InputError(
            f"embedder '{spec.text}' needs sentence-transformers: pip install 'benchmorph[embeddings]'"
        ) from None
    model = SentenceTransformer(spec.model)
    return lambda texts: model.encode(texts, convert_to_numpy=True).tolist()


def _gguf_embedder(spec: ModelSpec, policy: RetryPolicy) -> BatchEmbedder:
    from benchmorph.models.backends.llamacpp import gguf_embedder

    return gguf_embedder(spec)


# Embedders by the ``ModelSpec.backend`` they serve; a plug-in adds its own (or an entry point in the
# group ``benchmorph.embedders``).
EMBEDDERS: Registry[EmbedderFactory] = Registry("embedder", group="benchmorph.embedders", unknown=InputError)
EMBEDDERS.add("llamacpp", _gguf_embedder)
EMBEDDERS.add("openai", _openai_embedder)
EMBEDDERS.add("sentence-transformers", _sentence_transformers_embedder)


def make_embedder(spec: ModelSpec, policy: RetryPolicy | None = None) -> BatchEmbedder:
    if spec.backend not in EMBEDDERS:
        raise InputError(f"model spec '{spec.text}' cannot embed text (use local, llamacpp:, openai: or st:)")
    return EMBEDDERS.get(spec.backend)(spec, policy or RetryPolicy())


def embed(
    texts: Sequence[str],
    spec: ModelSpec | str = "local",
    cache: LLMCache | None = None,
    *,
    batch_size: int = 32,
) -> np.ndarray:
    """One row per text (float32); texts already embedded by this embedder come from the cache.

    >>> vectors = embed(["def f(): return 1", "def g(): return 2"])  # doctest: +SKIP
    >>> vectors.shape[0]  # doctest: +SKIP
    2
    """
    spec = parse_spec(spec) if isinstance(spec, str) else spec
    own_cache = cache is None
    cache = cache or LLMCache()
    try:
        identity = spec.identity()
        keys = [hash_key({"embedder": identity, "text": text}) for text in texts]
        found = cache.get_vectors(list(dict.fromkeys(keys)))
        missing = list(dict.fromkeys(key for key in keys if key not in found))
        if missing:
            text_of = dict(zip(keys, texts, strict=True))
            embedder = make_embedder(spec)
            for start in range(0, len(missing), batch_size):
                batch = missing[start : start + batch_size]
                vectors = embedder([text_of[key] for key in batch])
                fresh = dict(zip(batch, vectors, strict=True))
                cache.put_vectors(identity, fresh)
                found.update(fresh)
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        return np.asarray([found[key] for key in keys], dtype=np.float32)
    finally:
        if own_cache:
            cache.close()


def cosine_distance(a: np.ndarray, b: np.ndarray) -> float:
    """1 - cosine similarity: 0 for the same direction, up to 2 for opposite ones (D_S in the CTF paper)."""
    norm = float(np.linalg.norm(a) * np.linalg.norm(b))
    if norm == 0.0:
        return 1.0
    return 1.0 - float(np.dot(a, b)) / norm
