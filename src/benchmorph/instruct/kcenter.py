"""The picking loop of k-center greedy (the paper's Algorithm 1) on CPU: exact, and lazy.

Algorithm 1 keeps, for every candidate, its distance to the nearest chosen center (base data and
picks so far); each step picks the farthest candidate (ties: lowest index), removes it, and lowers
the distances of the others to the new center. Done literally that costs one pass over all
candidates per pick: 30k picks x 100k candidates x 128 dims is memory-bound work of minutes on
two cores.

Here the same picks come from a lazy max-heap (as in lazy greedy for submodular maximisation):

* every candidate holds a *stale* distance d_i, its minimum over the centers up to pick
  ``last[i]``; since a minimum over more centers can only be smaller, d_i is an upper bound of
  the current one;
* the heap orders candidates by (-d_i, i). The top is brought up to date against only the centers
  added since ``last[i]`` (one matrix-vector product) and pushed back; when the top is already up
  to date it is the answer: every other candidate's current key is at best its stale key, which is
  behind the top's. Ties resolve to the lowest index exactly as in the plain loop. (Updating the
  top 8-128 stale rows together in one matrix product was measured: more work, no faster.)

So the picks are exactly Algorithm 1's (the same minimum over the same distances), while only
candidates near the front are ever touched. When the lazy updates have cost more than applying all
pending centers to all candidates at once would, the pending centers are applied to everyone with
one blocked matrix product (a *refresh*), which bounds the worst case by the plain loop's work done
at matrix-product speed.

Distances are squared Euclidean in the working space, via ||x||^2 - 2 x.c + ||c||^2 on data
centred by the caller (which keeps float32 cancellation small), clipped at 0.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

# A refresh is made once the lazy updates since the last one have done this share of the
# row-center products that the refresh itself would do, so the lazy loop never does much more work
# than the plain one. At the paper's sizes no refresh happens (the lazy work is far smaller).
REFRESH_SHARE = 1.0
PROGRESS_EVERY = 1024


@dataclass
class Picks:
    """What the picking loop found, in positions of the working array."""

    positions: np.ndarray  # picked rows, in pick order
    pick_sq: np.ndarray  # squared distance of each pick to the chosen set when it was picked
    radius_sq: float  # after the last pick: max over unpicked rows of the squared distance (0 if none)
    owner: (
        np.ndarray
    )  # per row, a center it is at its recorded distance from: >= 0 a base row, < 0 -(pick + 1)
    stats: dict[str, int] = field(default_factory=dict)


def pick_lazy(
    points: np.ndarray,
    seed_sq: np.ndarray,
    seed_owner: np.ndarray,
    k: int,
    *,
    advance: Callable[[int], None] | None = None,
    chunk: int = 4096,
) -> Picks:
    """Algorithm 1's k picks among ``points`` (rows of the working array), given each row's squared
    distance to its nearest base center (``seed_sq``, +inf when there is no base) and that center."""
    n, width = points.shape
    dtype = points.dtype
    norms = np.einsum("ij,ij->i", points, points)
    centers = np.empty((k, width), dtype=dtype)
    center_norms = np.empty(k, dtype=dtype)
    current = seed_sq.astype(np.float64)  # -1 marks a picked row
    owner = seed_owner.astype(np.int64).copy()
    last = np.zeros(n, dtype=np.int64)
    heap = list(zip((-current).tolist(), range(n), strict=True))
    heapq.heapify(heap)
    positions = np.empty(k, dtype=np.int64)
    pick_sq = np.empty(k, dtype=np.float64)
    stats = {"lazy_updates": 0, "refreshes": 0}
    watermark = 0  # every unpicked row is up to date with at least the first `watermark` picks
    lazy_work = 0

    def update(row: int, upto: int) -> None:
        """Bring ``row`` up to date with the centers added since it was last updated."""
        nonlocal lazy_work
        begin = int(last[row])
        if begin < upto:
            segment = centers[begin:upto]
            # einsum, not BLAS: a matrix-vector product handed to a multi-threaded BLAS on a busy
            # machine spends most of its time waking threads (measured 6x slower on 2 shared cores).
            dots = (
                np.einsum("ij,j->i", segment, points[row]) if upto - begin > 2048 else segment @ points[row]
            )
            values = center_norms[begin:upto] - 2.0 * dots + norms[row]
            nearest = int(values.argmin())
            value = max(float(values[nearest]), 0.0)
            if value < current[row]:
                current[row] = value
                owner[row] = -(begin + nearest + 1)
            lazy_work += upto - begin
            stats["lazy_updates"] += 1
        last[row] = upto

    def resolve_top(upto: int) -> int | None:
        while heap:
            _, row = heap[0]
            if last[row] == upto:
                return row
            heapq.heappop(heap)
            update(row, upto)
            heapq.heappush(heap, (-current[row], row))
        return None

    for step in range(k):
        row = resolve_top(step)
        assert row is not None  # the caller checks k <= n
        heapq.heappop(heap)
        positions[step] = row
        pick_sq[step] = current[row]
        centers[step] = points[row]
        center_norms[step] = norms[row]
        current[row] = -1.0
        if advance is not None and (step + 1) % PROGRESS_EVERY == 0:
            advance(PROGRESS_EVERY)
        pending = step + 1 - watermark
        if lazy_work >= REFRESH_SHARE * len(heap) * pending and len(heap):
            _refresh(points, norms, centers, center_norms, watermark, step + 1, current, owner, chunk)
            last[:] = step + 1
            watermark = step + 1
            lazy_work = 0
            stats["refreshes"] += 1
            alive = np.flatnonzero(current >= 0)
            heap = list(zip((-current[alive]).tolist(), alive.tolist(), strict=True))
            heapq.heapify(heap)
    if advance is not None and k % PROGRESS_EVERY:
        advance(k % PROGRESS_EVERY)
    top = resolve_top(k)
    radius_sq = 0.0 if top is None else float(current[top])
    return Picks(positions, pick_sq, radius_sq, owner, stats)


def _refresh(
    points: np.ndarray,
    norms: np.ndarray,
    centers: np.ndarray,
    center_norms: np.ndarray,
    lo: int,
    hi: int,
    current: np.ndarray,
    owner: np.ndarray,
    chunk: int,
) -> None:
    """Lower every unpicked row's distance with centers[lo:hi], one blocked matrix product per chunk."""
    block_centers = centers[lo:hi]
    block_norms = center_norms[lo:hi]
    for start in range(0, len(points), chunk):
        stop = min(start + chunk, len(points))
        values = points[start:stop] @ block_centers.T
        values *= -2.0
        values += block_norms
        values += norms[start:stop, None]
        nearest = values.argmin(axis=1)
        best = np.maximum(np.take_along_axis(values, nearest[:, None], axis=1)[:, 0], 0).astype(np.float64)
        here = current[start:stop]
        lower = best < here  # picked rows hold -1 and are never lowered
        here[lower] = best[lower]
        owner[start:stop][lower] = -(lo + nearest[lower] + 1)
