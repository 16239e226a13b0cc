"""Nearest centers and covering radii for large embedding sets, through BLAS matrix products.

Seeding k-center greedy needs, for each of ~100k candidates, the distance to the nearest of
~100k base centers: 10^10 distances. They are computed tile by tile (``chunk`` candidate rows x
``tile`` center rows) with one matrix product per tile, never a Python loop over rows, so the
temporaries stay at ``chunk x tile`` floats whatever the input sizes.

Float32 with care: the expansion ||a - b||^2 = ||a||^2 - 2 a.b + ||b||^2 loses precision when the
points are far from the origin compared with their distances (cancellation). So the expansion is
used only to *choose* the nearest center (an argmin, where ||a||^2 is a constant per row and is
dropped); the distance to the chosen center is then recomputed directly as the sum of squares
of ``a - b``, which has no cancellation and is never negative. A near tie between two centers
within float rounding may pick either; the distance returned is the exact one to the center picked.

Cosine: with inverse row norms given, points and centers are compared as unit vectors; the
argmin of ||a^ - b^||^2 is the argmax of a.b / ||b||, and the recomputed distance is between
the normalised rows (so it is sqrt(2 - 2 cos)).
"""

from __future__ import annotations

import numpy as np


def _rows(
    array: np.ndarray, index: slice | np.ndarray, dtype: np.dtype, inv: np.ndarray | None
) -> np.ndarray:
    block = np.asarray(array[index], dtype=dtype)
    return block if inv is None else block * inv[index][:, None]


def nearest_centers(
    points: np.ndarray,
    centers: np.ndarray,
    *,
    dtype: np.dtype,
    rows: np.ndarray | None = None,
    inv_points: np.ndarray | None = None,
    inv_centers: np.ndarray | None = None,
    chunk: int = 4096,
    tile: int = 8192,
) -> tuple[np.ndarray, np.ndarray]:
    """(squared distance, index) of the nearest row of ``centers`` for each of ``points[rows]``.

    ``rows`` defaults to every point. With ``inv_points`` / ``inv_centers`` (1 / row norm, both or
    neither) the comparison is between unit vectors (cosine). An empty ``centers`` gives +inf and -1.
    """
    cosine = inv_points is not None
    count = len(points) if rows is None else len(rows)
    best_sq = np.full(count, np.inf, dtype=dtype)
    best_index = np.full(count, -1, dtype=np.int64)
    if len(centers) == 0 or count == 0:
        return best_sq, best_index
    # Per center tile: 0.5 ||b||^2 (Euclidean) or 1/||b|| (cosine), computed once.
    tile_terms = []
    for start in range(0, len(centers), tile):
        block = np.asarray(centers[start : start + tile], dtype=dtype)
        if cosine:
            assert inv_centers is not None
            tile_terms.append(inv_centers[start : start + tile].astype(dtype))
        else:
            tile_terms.append(0.5 * np.einsum("ij,ij->i", block, block))
    for first in range(0, count, chunk):
        stop = min(first + chunk, count)
        index = slice(first, stop) if rows is None else rows[first:stop]
        block = np.asarray(points[index], dtype=dtype)  # unscaled: a row factor does not move the argmin
        score_best = np.full(stop - first, np.inf, dtype=dtype)
        index_best = np.zeros(stop - first, dtype=np.int64)
        for number, start in enumerate(range(0, len(centers), tile)):
            center_block = np.asarray(centers[start : start + tile], dtype=dtype)
            scores = block @ center_block.T
            if cosine:  # minimise -a.b/||b||
                np.multiply(scores, -tile_terms[number], out=scores)
            else:  # minimise 0.5||b||^2 - a.b
                np.subtract(tile_terms[number], scores, out=scores)
            local = scores.argmin(axis=1)
            local_score = np.take_along_axis(scores, local[:, None], axis=1)[:, 0]
            better = local_score < score_best  # strict: the earlier tile (lower index) wins ties
            score_best[better] = local_score[better]
            index_best[better] = local[better] + start
        mine = _rows(points, index, dtype, inv_points)
        theirs = _rows(centers, index_best, dtype, inv_centers)
        diff = mine - theirs  # a new array: ``mine`` may be a view of the caller's points
        best_sq[first:stop] = np.einsum("ij,ij->i", diff, diff)
        best_index[first:stop] = index_best
    return best_sq, best_index


def paired_sq_distances(
    points: np.ndarray,
    rows: np.ndarray,
    centers: np.ndarray,
    center_rows: np.ndarray,
    *,
    dtype: np.dtype,
    inv_points: np.ndarray | None = None,
    inv_centers: np.ndarray | None = None,
    chunk: int = 4096,
) -> np.ndarray:
    """||points[rows[i]] - centers[center_rows[i]]||^2 for each i, computed directly (no expansion)."""
    out = np.empty(len(rows), dtype=dtype)
    for start in range(0, len(rows), chunk):
        stop = min(start + chunk, len(rows))
        mine = _rows(points, rows[start:stop], dtype, inv_points)
        theirs = _rows(centers, center_rows[start:stop], dtype, inv_centers)
        diff = mine - theirs
        out[start:stop] = np.einsum("ij,ij->i", diff, diff)
    return out


def covering_radius_sq(
    points: np.ndarray,
    rows: np.ndarray,
    upper_sq: np.ndarray,
    center_sets: list[tuple[np.ndarray, np.ndarray | None]],
    *,
    dtype: np.dtype,
    inv_points: np.ndarray | None = None,
    chunk: int = 256,
) -> tuple[float, int]:
    """max over ``points[rows]`` of the squared distance to the nearest center of any set, exactly,
    and how many rows had to be compared with every center.

    ``upper_sq[i]`` must be an upper bound of row i's squared distance to its nearest center (its
    distance to any one center will do: the one that was nearest in a projected space is a good
    one). Rows are taken in decreasing order of the bound and resolved exactly in chunks against
    every center; once the largest exact value reaches the next bound, no remaining row can beat
    it, so the answer is exact while usually only a small share of rows is resolved.
    ``center_sets`` holds (centers, their inverse norms or None) pairs, e.g. the base data and the
    picked candidates, so that they need not be concatenated.
    """
    if len(rows) == 0:
        return 0.0, 0
    order = np.argsort(-upper_sq, kind="stable")
    best = -np.inf
    resolved = 0
    for start in range(0, len(order), chunk):
        if upper_sq[order[start]] <= best:
            break
        part = rows[order[start : start + chunk]]
        exact = np.full(len(part), np.inf, dtype=dtype)
        for centers, inv_centers in center_sets:
            sq, _ = nearest_centers(
                points, centers, dtype=dtype, rows=part, inv_points=inv_points, inv_centers=inv_centers,
                chunk=chunk,
            )  # fmt: skip
            np.minimum(exact, sq, out=exact)
        # The bound is exact too, and a recomputed nearest center may miss a float near-tie.
        np.minimum(exact, upper_sq[order[start : start + chunk]], out=exact)
        best = max(best, float(exact.max()))
        resolved += len(part)
    return best, resolved
