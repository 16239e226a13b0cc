"""The embeddings selection works on: the solutions, as the paper embeds them.

The paper's phi is the mean of the final-layer hidden states of the solution S (DeepSeek-Coder 1.3B);
here any embedder of the models layer (``local`` by default: the embedded GGUF, mean-pooled), each text
embedded once and cached in the LLM cache, so re-running a selection embeds nothing again.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from benchmorph.instruct.records import InstructSample, Pair
from benchmorph.models import LLMCache, ModelSpec, embed


def pair_embeddings(pairs: Sequence[Pair], embedder: ModelSpec | str, cache: LLMCache | None) -> np.ndarray:
    """One row per pair: the embedding of its counterfactual solution."""
    return embed([pair.cf_code for pair in pairs], embedder, cache)


def base_embeddings(
    samples: Sequence[InstructSample], embedder: ModelSpec | str, cache: LLMCache | None
) -> np.ndarray:
    """One row per base sample with code: the embedding of its solution (the initial centers)."""
    return embed([sample.code for sample in samples if sample.code.strip()], embedder, cache)
