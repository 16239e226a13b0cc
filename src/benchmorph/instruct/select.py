"""Selecting a subset of counterfactual pairs (CTF paper, section 4.2 and appendix A, Algorithm 1).

Three methods, each a function, and ``select_pairs`` which the CLI calls:

* ``kcenter_greedy``: the paper's recipe for CTF-Instruct. The base data (Evol-Instruct) are the
  initial centers; each step picks the candidate pair farthest from every center chosen so far,
  so the selection fills the regions the base data leave empty. Ties go to the lowest index.
* ``select_difficulty``: the recipe for CTF-Instruct_oss: the k hardest pairs by a difficulty
  score (ties: lowest index).
* ``select_random``: the paper's "w/o select" control, a seeded uniform sample.

**Distance.** Algorithm 1 uses the Euclidean distance ||phi(x) - phi(y)||_2 between embeddings
(the paper's phi: mean of final-layer hidden states, not normalised), so ``metric="euclidean"``
is the default. ``metric="cosine"`` scales every row to unit length first; the Euclidean
distance between unit vectors is sqrt(2 - 2 cos), so it orders pairs exactly as the cosine
distance does, and all radii are then reported in that unit-sphere Euclidean distance.

**Outlier trimming.** The paper removes "meaningless or corrupted" samples with extremely large
distances by sorting on distance and dropping the tail. Here: after seeding, each candidate's
distance to its nearest base center (in the working space, i.e. after projection when ``dim`` is
set) is compared with the ``trim_quantile`` quantile of those distances over all candidates
(numpy's default linear interpolation); candidates strictly above it are excluded before picking
and are never selected. ``None`` (or 1.0) keeps everything; without base centers nothing is trimmed
(every seeded distance is infinite).

**Projection.** With ``dim`` set, embeddings are multiplied by a seeded Gaussian matrix with
entries N(0, 1/dim) (``projection.gaussian_projection``), and seeding, trimming and picking all
happen in that space. The covering radius of the selection is then also computed exactly in the
full space (``radius_full``), so the cost of the approximation is visible.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from benchmorph.core.progress import ProgressFactory, no_progress
from benchmorph.data.errors import InputError
from benchmorph.instruct.kcenter import pick_lazy
from benchmorph.instruct.nearest import covering_radius_sq, nearest_centers, paired_sq_distances
from benchmorph.instruct.projection import (
    check_embeddings,
    gaussian_projection,
    inverse_norms,
    transform_rows,
    working_dtype,
)

Method = Literal["kcenter", "difficulty", "random"]
Metric = Literal["euclidean", "cosine"]
METHODS: tuple[str, ...] = ("kcenter", "difficulty", "random")


@dataclass
class SelectionResult:
    """A selection: the chosen candidate rows in pick order, and what the choice cost and achieved.

    Radii are covering radii of the eligible (not trimmed) candidates: the largest distance from an
    eligible candidate to its nearest center (base rows and picks). ``radius`` is in the space the
    picks were made in (projected when ``dim`` is set); ``radius_full`` is the same quantity in the
    full embedding space (equal to ``radius`` without projection; None when not computed).
    """

    indices: np.ndarray
    method: str
    n_candidates: int
    radius: float | None = None
    radius_full: float | None = None
    radius_before: float | None = None
    pick_distances: np.ndarray | None = None  # each pick's distance to the chosen set when picked
    trim_threshold: float | None = None
    trimmed: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=np.int64))
    dim: int | None = None
    metric: str = "euclidean"
    device: str = "cpu"
    timings: dict[str, float] = field(default_factory=dict)  # seconds per phase
    stats: dict[str, int] = field(default_factory=dict)

    def summary(self) -> dict[str, object]:
        """A JSON-ready record for manifests and the CLI."""

        def number(value: float | None) -> float | None:
            return value if value is None or np.isfinite(value) else None

        return {
            "method": self.method,
            "selected": len(self.indices),
            "candidates": self.n_candidates,
            "trimmed": len(self.trimmed),
            "trim_threshold": self.trim_threshold,
            "radius_before": number(self.radius_before),
            "radius": number(self.radius),
            "radius_full": number(self.radius_full),
            "dim": self.dim,
            "metric": self.metric,
            "device": self.device,
            "timings": {name: round(seconds, 3) for name, seconds in self.timings.items()},
            "stats": dict(self.stats),
        }


def _check_k(k: int, available: int, what: str) -> None:
    if isinstance(k, bool) or not isinstance(k, int | np.integer) or k < 0:
        raise InputError(f"k must be a whole number >= 0, got {k!r}", field="k")
    if k > available:
        raise InputError(f"k = {k} but only {available} {what}", field="k")


def select_difficulty(difficulty: Sequence[float] | np.ndarray, k: int) -> SelectionResult:
    """The k candidates with the highest difficulty, hardest first; equal scores by lowest index."""
    scores = np.asarray(difficulty, dtype=np.float64)
    if scores.ndim != 1:
        raise InputError(f"expected one difficulty per pair, got shape {scores.shape}", field="difficulty")
    bad = np.flatnonzero(~np.isfinite(scores))
    if len(bad):
        raise InputError(
            f"pair {int(bad[0])} has no finite difficulty", field="difficulty", line=int(bad[0]) + 1
        )
    _check_k(k, len(scores), "pairs have a difficulty")
    order = np.lexsort((np.arange(len(scores)), -scores))
    return SelectionResult(indices=order[:k].astype(np.int64), method="difficulty", n_candidates=len(scores))


def select_random(n_candidates: int, k: int, seed: int = 0) -> SelectionResult:
    """k distinct candidates drawn uniformly with ``numpy.random.default_rng(seed)``, in draw order."""
    _check_k(k, n_candidates, "pairs")
    picks = np.random.default_rng(seed).permutation(n_candidates)[:k]
    return SelectionResult(indices=picks.astype(np.int64), method="random", n_candidates=n_candidates)


def _trim(seed_sq: np.ndarray, trim_quantile: float | None) -> tuple[np.ndarray, float | None]:
    """Rows kept by the outlier trim, and the distance threshold (None when nothing is trimmed)."""
    if trim_quantile is None or trim_quantile >= 1.0 or not np.isfinite(seed_sq).all():
        return np.arange(len(seed_sq)), None
    distances = np.sqrt(seed_sq.astype(np.float64))
    threshold = float(np.quantile(distances, trim_quantile))
    return np.flatnonzero(distances <= threshold), threshold


def kcenter_greedy(
    candidates: np.ndarray,
    centers: np.ndarray,
    k: int,
    *,
    trim_quantile: float | None = 0.99,
    chunk: int = 4096,
    device: str = "cpu",
    metric: Metric = "euclidean",
    dim: int | None = None,
    seed: int = 0,
    full_radius: bool = True,
    progress: ProgressFactory = no_progress,
) -> SelectionResult:
    """Algorithm 1: k candidate rows, each the farthest (at its step) from ``centers`` and the picks
    before it. ``candidates`` and ``centers`` are (rows x dims) embeddings of the same width;
    ``centers`` may have no rows (plain k-center greedy; the first pick is then row 0).

    ``chunk`` is the number of rows per matrix-product block (memory: about chunk x 8192 floats).
    ``device="cuda"`` runs the same algorithm through torch on the GPU. ``full_radius=False`` skips
    the full-space radius after a projection. Timings: ``projection``, ``seeding``, ``picking``,
    ``full_radius``. Bad input raises ``InputError`` (field, and line = row + 1 for a bad row).
    """
    if metric not in ("euclidean", "cosine"):
        raise InputError(f"metric must be euclidean or cosine, got {metric!r}", field="metric")
    if trim_quantile is not None and not 0.0 < trim_quantile <= 1.0:
        raise InputError(f"the trim quantile must be in (0, 1], got {trim_quantile}", field="trim_quantile")
    if not (device == "cpu" or device.startswith("cuda")):
        raise InputError(f"device must be cpu or cuda, got {device!r}", field="device")
    if chunk < 1:
        raise InputError(f"chunk must be at least 1, got {chunk}", field="chunk")
    candidates = check_embeddings(candidates, "pair_embeddings")
    centers = check_embeddings(centers, "base_embeddings") if len(centers) else np.asarray(centers)
    if len(centers) and centers.shape[1] != candidates.shape[1]:
        raise InputError(
            f"pair embeddings have {candidates.shape[1]} dims but base embeddings {centers.shape[1]}",
            field="base_embeddings",
        )
    _check_k(k, len(candidates), "pairs")
    if device != "cpu":
        from benchmorph.instruct.kcenter_torch import require_torch

        require_torch(device)  # fail before any work
    timings: dict[str, float] = {}
    dtype = working_dtype(candidates, centers) if len(centers) else working_dtype(candidates)
    cosine = metric == "cosine"
    inv_x = inverse_norms(candidates, dtype) if cosine else None
    inv_b = inverse_norms(centers, dtype) if cosine and len(centers) else None

    # Working space: projected (and, for cosine, normalised before projecting), centred on the base.
    clock = time.perf_counter()
    projected = dim is not None
    if dim is not None:
        matrix = gaussian_projection(candidates.shape[1], dim, seed, dtype)
        work_x = transform_rows(candidates, dtype=dtype, projection=matrix, inv_norms=inv_x)
        work_b = transform_rows(centers, dtype=dtype, projection=matrix, inv_norms=inv_b)
        shift = work_b.mean(axis=0) if len(work_b) else work_x.mean(axis=0)
        work_x -= shift
        if len(work_b):
            work_b -= shift
        seed_args: dict = {}
    else:
        work_x, work_b = candidates, centers
        seed_args = {"inv_points": inv_x, "inv_centers": inv_b}
    timings["projection"] = time.perf_counter() - clock

    clock = time.perf_counter()
    normalised = projected or not cosine  # whether work_x rows need no more scaling
    if device != "cpu":
        from benchmorph.instruct.kcenter_torch import nearest_centers_torch

        if cosine and not projected:  # torch compares unit rows directly
            work_x = transform_rows(candidates, dtype=dtype, inv_norms=inv_x)
            work_b = transform_rows(centers, dtype=dtype, inv_norms=inv_b)
            normalised = True
        seed_sq, seed_owner = nearest_centers_torch(work_x, work_b, device=device)
    else:
        seed_sq, seed_owner = nearest_centers(work_x, work_b, dtype=dtype, chunk=chunk, **seed_args)
    eligible, threshold = _trim(seed_sq, trim_quantile)
    trimmed = np.setdiff1d(np.arange(len(candidates)), eligible)
    timings["seeding"] = time.perf_counter() - clock
    _check_k(k, len(eligible), f"pairs are left after trimming at quantile {trim_quantile}")

    clock = time.perf_counter()
    # The picking array: eligible rows only (index order, so ties still go to the lowest index),
    # a fresh copy centred on its own mean for float precision.
    points = transform_rows(work_x, dtype=dtype, rows=eligible, inv_norms=None if normalised else inv_x)
    points -= points.mean(axis=0)
    with progress(f"k-center greedy: {k} picks", k) as advance:
        if device != "cpu":
            from benchmorph.instruct.kcenter_torch import pick_torch

            picks = pick_torch(
                points, seed_sq[eligible], seed_owner[eligible], k, device=device, advance=advance
            )
        else:
            picks = pick_lazy(
                points, seed_sq[eligible], seed_owner[eligible], k, advance=advance, chunk=chunk
            )
    del points
    timings["picking"] = time.perf_counter() - clock
    indices = eligible[picks.positions]
    radius_before = float(np.sqrt(seed_sq[eligible].max())) if len(eligible) else 0.0

    result = SelectionResult(
        indices=indices,
        method="kcenter",
        n_candidates=len(candidates),
        radius=float(np.sqrt(picks.radius_sq)),
        radius_before=radius_before,
        pick_distances=np.sqrt(picks.pick_sq),
        trim_threshold=threshold,
        trimmed=trimmed,
        dim=dim,
        metric=metric,
        device=device,
        timings=timings,
        stats=dict(picks.stats),
    )
    if not projected:
        result.radius_full = result.radius
    elif full_radius:
        clock = time.perf_counter()
        result.radius_full, resolved = _full_space_radius(
            candidates, centers, eligible, indices, picks.positions, picks.owner, dtype, inv_x, inv_b
        )
        result.stats["full_radius_rows_resolved"] = resolved
        timings["full_radius"] = time.perf_counter() - clock
    return result


def _full_space_radius(
    candidates: np.ndarray,
    centers: np.ndarray,
    eligible: np.ndarray,
    indices: np.ndarray,
    positions: np.ndarray,
    owner: np.ndarray,
    dtype: np.dtype,
    inv_x: np.ndarray | None,
    inv_b: np.ndarray | None,
) -> tuple[float, int]:
    """The exact covering radius of the unpicked eligible candidates in the full space.

    Each candidate's full-space distance to the center that was nearest in the projected space is an
    upper bound; ``covering_radius_sq`` resolves rows exactly only while a bound can still win.
    """
    unpicked = np.ones(len(eligible), dtype=bool)
    unpicked[positions] = False
    rows_pos = np.flatnonzero(unpicked)
    if len(rows_pos) == 0:
        return 0.0, 0
    rows = eligible[rows_pos]
    owners = owner[rows_pos]
    upper = np.empty(len(rows), dtype=dtype)
    by_base = owners >= 0
    if by_base.any():
        upper[by_base] = paired_sq_distances(
            candidates,
            rows[by_base],
            centers,
            owners[by_base],
            dtype=dtype,
            inv_points=inv_x,
            inv_centers=inv_b,
        )
    by_pick = ~by_base
    if by_pick.any():
        upper[by_pick] = paired_sq_distances(
            candidates, rows[by_pick], candidates, indices[-owners[by_pick] - 1], dtype=dtype,
            inv_points=inv_x, inv_centers=inv_x,
        )  # fmt: skip
    picked_rows = candidates[np.sort(indices)]
    inv_picked = inv_x[np.sort(indices)] if inv_x is not None else None
    center_sets: list[tuple[np.ndarray, np.ndarray | None]] = [(picked_rows, inv_picked)]
    if len(centers):
        center_sets.insert(0, (centers, inv_b))
    best_sq, resolved = covering_radius_sq(
        candidates, rows, upper, center_sets, dtype=dtype, inv_points=inv_x
    )
    return float(np.sqrt(max(best_sq, 0.0))), resolved


def select_pairs(
    pair_embeddings: np.ndarray | None,
    base_embeddings: np.ndarray | None,
    k: int,
    method: Method = "kcenter",
    trim_quantile: float | None = 0.99,
    dim: int | None = None,
    seed: int = 0,
    device: str = "cpu",
    *,
    difficulty: Sequence[float] | np.ndarray | None = None,
    n_candidates: int | None = None,
    metric: Metric = "euclidean",
    full_radius: bool = True,
    progress: ProgressFactory = no_progress,
) -> SelectionResult:
    """``benchmorph instruct select``: k pairs by ``method``.

    * ``kcenter``: ``kcenter_greedy(pair_embeddings, base_embeddings, k, ...)`` (base may be empty);
    * ``difficulty``: the k hardest by ``difficulty`` (one score per pair; embeddings unused);
    * ``random``: a seeded sample of ``n_candidates`` (default: the number of pair embeddings or
      difficulties) pairs.
    ``dim``, ``trim_quantile``, ``device``, ``metric`` apply to ``kcenter`` only.
    """
    if method == "kcenter":
        if pair_embeddings is None:
            raise InputError("k-center selection needs pair embeddings", field="pair_embeddings")
        pairs = np.asarray(pair_embeddings)
        base = (
            np.asarray(base_embeddings)
            if base_embeddings is not None
            else np.empty((0, pairs.shape[1] if pairs.ndim == 2 else 0), dtype=pairs.dtype)
        )
        return kcenter_greedy(
            pairs, base, k, trim_quantile=trim_quantile, device=device, metric=metric, dim=dim, seed=seed,
            full_radius=full_radius, progress=progress,
        )  # fmt: skip
    if method == "difficulty":
        if difficulty is None:
            raise InputError(
                "difficulty selection needs a difficulty per pair (run instruct score)", field="difficulty"
            )
        return select_difficulty(difficulty, k)
    if method == "random":
        if n_candidates is None:
            sized = pair_embeddings if pair_embeddings is not None else difficulty
            if sized is None:
                raise InputError("random selection needs the number of pairs", field="n_candidates")
            n_candidates = len(sized)
        return select_random(n_candidates, k, seed)
    raise InputError(f"method must be one of {', '.join(METHODS)}, got {method!r}", field="method")
