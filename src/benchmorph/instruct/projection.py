"""Embedding preparation for selection: finiteness checks, cosine normalisation, and a seeded
Gaussian random projection (Johnson-Lindenstrauss).

Why a projection: k-center greedy at the paper's sizes (102k candidates, 110k base centers,
2048-dim embeddings) is dominated by distance computations whose cost is linear in the dimension.
A Gaussian matrix with entries N(0, 1/dim) preserves every pairwise distance within a factor
1 +- eps with high probability once dim is O(log n / eps^2), so selecting in 128 dimensions is
16x cheaper and close to the full-space answer. The selection reports the covering radius back in
the full space so that the cost of the approximation is visible (`select.kcenter_greedy`).

Everything here works in row chunks so that no full-size temporary of the input is made.
"""

from __future__ import annotations

import numpy as np

from benchmorph.data.errors import InputError

# Rows per chunk for the streaming passes below: 4096 x 2048 float32 is 32 MiB.
CHUNK_ROWS = 4096


def working_dtype(*arrays: np.ndarray) -> np.dtype:
    """float64 when any input is float64, else float32 (float16/int inputs are computed in float32)."""
    if any(np.asarray(a).dtype == np.float64 for a in arrays):
        return np.dtype(np.float64)
    return np.dtype(np.float32)


def check_embeddings(array: np.ndarray, name: str) -> np.ndarray:
    """A 2-D float array without NaN or infinity; the first bad row is named (line = row + 1)."""
    array = np.asarray(array)
    if array.ndim != 2:
        raise InputError(f"expected a 2-D array (rows x dims), got shape {array.shape}", field=name)
    if not np.issubdtype(array.dtype, np.number):
        raise InputError(f"expected numbers, got dtype {array.dtype}", field=name)
    for start in range(0, len(array), CHUNK_ROWS):
        bad = ~np.isfinite(array[start : start + CHUNK_ROWS]).all(axis=1)
        if bad.any():
            row = start + int(np.argmax(bad))
            raise InputError(f"row {row} holds NaN or infinity", field=name, line=row + 1)
    return array


def inverse_norms(array: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """1 / ||row|| for cosine work; a zero row has no direction and is an input error."""
    out = np.empty(len(array), dtype=dtype)
    for start in range(0, len(array), CHUNK_ROWS):
        block = np.asarray(array[start : start + CHUNK_ROWS], dtype=dtype)
        out[start : start + len(block)] = np.sqrt(np.einsum("ij,ij->i", block, block))
    zero = np.flatnonzero(out == 0)
    if len(zero):
        raise InputError(
            f"row {int(zero[0])} is all zeros and has no cosine direction", line=int(zero[0]) + 1
        )
    return np.reciprocal(out, out=out)


def gaussian_projection(dim_in: int, dim: int, seed: int, dtype: np.dtype | type = np.float32) -> np.ndarray:
    """The (dim_in x dim) JL matrix with entries N(0, 1/dim), the same for the same (dim_in, dim, seed).

    Scaling by 1/sqrt(dim) makes squared lengths unbiased: E ||x R||^2 = ||x||^2, so projected
    distances are comparable with full-space ones.
    """
    if dim < 1:
        raise InputError(f"the projection dimension must be at least 1, got {dim}", field="dim")
    rng = np.random.default_rng(seed)
    matrix = rng.standard_normal((dim_in, dim), dtype=np.float64) / np.sqrt(dim)
    return matrix.astype(dtype)


def transform_rows(
    array: np.ndarray,
    *,
    dtype: np.dtype,
    projection: np.ndarray | None = None,
    inv_norms: np.ndarray | None = None,
    rows: np.ndarray | None = None,
) -> np.ndarray:
    """``array[rows]`` (all rows when None), scaled to unit length when ``inv_norms`` is given,
    then multiplied by ``projection`` when given, as a new C-contiguous array of ``dtype``.

    Chunked: the only full-size allocation is the output.
    """
    count = len(array) if rows is None else len(rows)
    width = array.shape[1] if projection is None else projection.shape[1]
    out = np.empty((count, width), dtype=dtype)
    for start in range(0, count, CHUNK_ROWS):
        stop = min(start + CHUNK_ROWS, count)
        index = slice(start, stop) if rows is None else rows[start:stop]
        block = np.asarray(array[index], dtype=dtype)
        if inv_norms is not None:
            block = block * inv_norms[index][:, None]
        out[start:stop] = block if projection is None else block @ projection
    return out
