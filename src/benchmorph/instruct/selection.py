"""``instruct select`` on files: pairs and base data in, the chosen pairs (in pick order) out.

The algorithms are :func:`benchmorph.instruct.select.select_pairs`; this module supplies what they
work on (solution embeddings from the models layer, cached per text; difficulty scores from
``instruct score``) and puts the answer back on the pairs (``extra["selection"]``: method, rank and,
for k-center, the pick's distance to the chosen set).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from benchmorph.core.progress import ProgressFactory, no_progress
from benchmorph.data.errors import InputError
from benchmorph.instruct.embeddings import base_embeddings, pair_embeddings
from benchmorph.instruct.records import InstructSample, Pair
from benchmorph.instruct.select import SelectionResult, select_pairs
from benchmorph.models import LLMCache, ModelSpec


def difficulty_of(pairs: Sequence[Pair]) -> list[float]:
    """The counterfactual side's difficulty of every pair; a pair without one is an InputError."""
    scores = []
    for number, pair in enumerate(pairs, start=1):
        value = (pair.difficulty or {}).get("counterfactual")
        if not isinstance(value, int | float):
            raise InputError(
                f"pair '{pair.id}' has no difficulty: run `benchmorph instruct score` first",
                line=number,
                field="difficulty",
            )
        scores.append(float(value))
    return scores


def eligible_k(k: int, candidates: int, trim_quantile: float | None) -> int:
    """The largest k a trimmed k-center selection can always deliver: trimming removes at most
    ceil(n (1 - q)) candidates."""
    if trim_quantile is None or trim_quantile >= 1.0:
        return min(k, candidates)
    return max(0, min(k, candidates - math.ceil(candidates * (1.0 - trim_quantile))))


def choose_pairs(
    pairs: Sequence[Pair],
    base: Sequence[InstructSample],
    k: int,
    method: str = "kcenter",
    *,
    embedder: ModelSpec | str = "local",
    cache: LLMCache | None = None,
    trim_quantile: float | None = 0.99,
    dim: int | None = None,
    seed: int = 0,
    device: str = "cpu",
    progress: ProgressFactory = no_progress,
) -> tuple[list[Pair], SelectionResult]:
    """The k chosen pairs in pick order, and the selection's record (radii, trimming, timings)."""
    if not pairs or k == 0:  # nothing to choose from (a weak generator): an empty, valid selection
        return [], SelectionResult(
            indices=np.empty(0, dtype=np.int64), method=method, n_candidates=len(pairs)
        )
    options: dict[str, Any] = {"n_candidates": len(pairs), "progress": progress}
    candidates = centers = None
    if method == "kcenter":
        with progress(f"select: embed {len(pairs)} pairs and {len(base)} base samples", None):
            candidates = pair_embeddings(pairs, embedder, cache)
            centers = base_embeddings(base, embedder, cache) if base else None
        if centers is not None and len(centers) == 0:
            centers = None
    elif method == "difficulty":
        options["difficulty"] = np.asarray(difficulty_of(pairs))
    result = select_pairs(
        candidates,
        centers,
        k,
        method,  # type: ignore[arg-type]
        trim_quantile=trim_quantile,
        dim=dim,
        seed=seed,
        device=device,
        **options,
    )
    chosen = []
    distances = result.pick_distances
    for rank, index in enumerate(result.indices.tolist()):
        pair = pairs[index]
        record: dict[str, Any] = {"method": result.method, "rank": rank}
        if distances is not None and rank < len(distances) and np.isfinite(distances[rank]):
            record["distance"] = round(float(distances[rank]), 6)
        pair.extra["selection"] = record
        chosen.append(pair)
    return chosen, result
