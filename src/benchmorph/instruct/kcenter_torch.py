"""k-center greedy on a GPU through torch (``device="cuda"``): the same Algorithm 1, literally.

On a GPU one pass over all candidates per pick is cheap (a matrix-vector product on data that
stays in device memory), so this path is the plain loop of the paper's Algorithm 1: keep each
candidate's squared distance to the chosen set, take the argmax (torch returns the first maximal
index, so ties go to the lowest index), lower everyone's distance with the new center. Seeding is
the same tiled argmin-then-recompute as ``nearest.nearest_centers``.

torch is optional: ``require_torch`` turns its absence, or a torch without CUDA, into one line.
Untested where no GPU was available (see the project's notes); ``pick_torch`` and
``nearest_centers_torch`` also run on a torch CPU device, which is how they can be checked
against the numpy path without a GPU.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from benchmorph.data.errors import InputError
from benchmorph.instruct.kcenter import PROGRESS_EVERY, Picks


def require_torch(device: str) -> Any:
    """The torch module when ``device`` can be used, else an InputError of one line."""
    try:
        import torch
    except ImportError:
        raise InputError(
            f"device {device!r} needs torch with CUDA, and torch is not installed; use --device cpu",
            field="device",
        ) from None
    if device.startswith("cuda") and not torch.cuda.is_available():
        raise InputError(
            f"device {device!r}: torch {torch.__version__} sees no CUDA device; use --device cpu",
            field="device",
        )
    return torch


def nearest_centers_torch(
    points: np.ndarray, centers: np.ndarray, *, device: str, chunk: int = 8192, tile: int = 65536
) -> tuple[np.ndarray, np.ndarray]:
    """(squared distance, index) of the nearest center for each point (Euclidean), on ``device``."""
    torch = require_torch(device)
    count = len(points)
    if len(centers) == 0:
        return np.full(count, np.inf, dtype=points.dtype), np.full(count, -1, dtype=np.int64)
    centers_t = torch.from_numpy(np.ascontiguousarray(centers)).to(device)
    half_norms = 0.5 * (centers_t * centers_t).sum(dim=1)
    best_sq = np.empty(count, dtype=points.dtype)
    best_index = np.empty(count, dtype=np.int64)
    for first in range(0, count, chunk):
        block = torch.from_numpy(np.ascontiguousarray(points[first : first + chunk])).to(device)
        score_best = torch.full((len(block),), float("inf"), dtype=block.dtype, device=device)
        index_best = torch.zeros(len(block), dtype=torch.int64, device=device)
        for start in range(0, len(centers_t), tile):
            scores = half_norms[start : start + tile] - block @ centers_t[start : start + tile].T
            local_score, local = scores.min(dim=1)
            better = local_score < score_best
            score_best = torch.where(better, local_score, score_best)
            index_best = torch.where(better, local + start, index_best)
        diff = block - centers_t[index_best]
        best_sq[first : first + len(block)] = (diff * diff).sum(dim=1).cpu().numpy()
        best_index[first : first + len(block)] = index_best.cpu().numpy()
    return best_sq, best_index


def pick_torch(
    points: np.ndarray,
    seed_sq: np.ndarray,
    seed_owner: np.ndarray,
    k: int,
    *,
    device: str,
    advance: Callable[[int], None] | None = None,
) -> Picks:
    """Algorithm 1's k picks among ``points`` on ``device``; the same contract as ``kcenter.pick_lazy``."""
    torch = require_torch(device)
    data = torch.from_numpy(np.ascontiguousarray(points)).to(device)
    norms = (data * data).sum(dim=1)
    current = torch.from_numpy(seed_sq.astype(np.float64)).to(device)
    owner = torch.from_numpy(seed_owner.astype(np.int64)).to(device)
    positions = np.empty(k, dtype=np.int64)
    pick_sq = np.empty(k, dtype=np.float64)
    for step in range(k):
        row = int(torch.argmax(current))
        positions[step] = row
        pick_sq[step] = float(current[row])
        values = (norms - 2.0 * (data @ data[row]) + norms[row]).clamp_min(0).to(torch.float64)
        lower = values < current  # the picked row (marked -1 below) is never lowered again
        current = torch.where(lower, values, current)
        owner = torch.where(lower, torch.full_like(owner, -(step + 1)), owner)
        current[row] = -1.0
        if advance is not None and (step + 1) % PROGRESS_EVERY == 0:
            advance(PROGRESS_EVERY)
    if advance is not None and k % PROGRESS_EVERY:
        advance(k % PROGRESS_EVERY)
    radius_sq = max(float(current.max()), 0.0) if k < len(points) else 0.0
    return Picks(positions, pick_sq, radius_sq, owner.cpu().numpy(), {"full_passes": k})
