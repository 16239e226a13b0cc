"""k-center greedy selection (CTF paper, Algorithm 1) against brute-force references, and the other
selection methods. The references are written here from the paper's pseudo-code, with plain loops."""

from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pytest

import benchmorph.instruct.kcenter as kcenter_module
from benchmorph.data.errors import InputError
from benchmorph.instruct.projection import gaussian_projection
from benchmorph.instruct.select import (
    kcenter_greedy,
    select_difficulty,
    select_pairs,
    select_random,
)
from paths import ROOT


def brute_force(
    candidates: np.ndarray, base: np.ndarray, k: int, trim_quantile: float | None = None
) -> list[int]:
    """Algorithm 1 literally: every step recomputes every remaining candidate's distance to every center
    (base rows and picks so far) with math.dist, takes the farthest, the first one on ties."""
    xs = candidates.tolist()
    centers = base.tolist()
    remaining = list(range(len(xs)))
    if trim_quantile is not None and centers:
        seeded = [min(math.dist(x, c) for c in centers) for x in xs]
        threshold = float(np.quantile(seeded, trim_quantile))
        remaining = [i for i in remaining if seeded[i] <= threshold]
    chosen: list[int] = []
    for _ in range(k):
        best, best_i = -1.0, -1
        for i in remaining:
            distance = min(
                [math.dist(xs[i], c) for c in centers] + [math.dist(xs[i], xs[j]) for j in chosen],
                default=math.inf,
            )
            if distance > best:  # strict: the lowest index wins a tie
                best, best_i = distance, i
        chosen.append(best_i)
        remaining.remove(best_i)
    return chosen


def recompute_all(candidates: np.ndarray, base: np.ndarray, k: int) -> tuple[list[int], float]:
    """Algorithm 1 with numpy, without incremental state: each step takes the minimum over every
    center (base rows and picks so far) afresh, from the full pairwise distance matrix.
    Returns the picks and the covering radius after them."""
    points = np.concatenate([base, candidates])
    norms = (points**2).sum(axis=1)
    # center x candidate, so that choosing centers takes whole rows
    pairwise = np.sqrt(np.maximum(norms[:, None] - 2 * points @ candidates.T + norms[None, len(base) :], 0))
    remaining = np.ones(len(candidates), dtype=bool)
    chosen: list[int] = []
    for _ in range(k + 1):
        columns = np.concatenate([np.arange(len(base)), len(base) + np.array(chosen, dtype=int)])
        distances = pairwise[columns].min(axis=0)
        distances[~remaining] = -1.0
        if len(chosen) == k:
            return chosen, float(distances.max())
        pick = int(np.argmax(distances))
        chosen.append(pick)
        remaining[pick] = False
    raise AssertionError("unreachable")


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_picks_match_the_literal_algorithm(seed: int) -> None:
    rng = np.random.default_rng(seed)
    candidates = rng.standard_normal((240, 6))
    base = rng.standard_normal((80, 6)) * 0.8
    result = kcenter_greedy(candidates, base, 50, trim_quantile=None)
    assert result.indices.tolist() == brute_force(candidates, base, 50)
    # Each pick was the farthest when picked, so the distances never grow.
    assert np.all(np.diff(result.pick_distances) <= 1e-12)


def test_picks_and_radius_match_at_two_thousand_candidates() -> None:
    rng = np.random.default_rng(7)
    clusters = rng.standard_normal((12, 16)) * 4
    candidates = clusters[rng.integers(0, 12, 2000)] + rng.standard_normal((2000, 16))
    base = clusters[rng.integers(0, 6, 700)] + rng.standard_normal((700, 16))
    expected, radius = recompute_all(candidates, base, 120)
    result = kcenter_greedy(candidates, base, 120, trim_quantile=None)
    assert result.indices.tolist() == expected
    assert result.radius == pytest.approx(radius, rel=1e-9)
    assert result.radius_full == result.radius


def test_refreshes_give_the_same_picks(monkeypatch: pytest.MonkeyPatch) -> None:
    """The blocked refresh (all pending centers applied at once) is an optimisation, not a change."""
    rng = np.random.default_rng(3)
    candidates = rng.standard_normal((1500, 12))
    base = rng.standard_normal((500, 12))
    plain = kcenter_greedy(candidates, base, 300, trim_quantile=None, chunk=256)
    monkeypatch.setattr(kcenter_module, "REFRESH_SHARE", 0.001)
    refreshed = kcenter_greedy(candidates, base, 300, trim_quantile=None, chunk=256)
    assert refreshed.stats["refreshes"] > 10
    assert refreshed.indices.tolist() == plain.indices.tolist()
    assert refreshed.radius == plain.radius


def test_float32_and_no_base() -> None:
    rng = np.random.default_rng(4)
    candidates = rng.standard_normal((300, 5)).astype(np.float32)
    base = rng.standard_normal((90, 5)).astype(np.float32)
    result = kcenter_greedy(candidates, base, 40, trim_quantile=None)
    assert result.indices.tolist() == brute_force(candidates.astype(np.float64), base.astype(np.float64), 40)
    # Without base data it is plain k-center greedy: every distance starts infinite, row 0 goes first.
    alone = kcenter_greedy(candidates, base[:0], 30, trim_quantile=0.99)
    assert alone.indices.tolist() == brute_force(candidates.astype(np.float64), base[:0], 30)
    assert alone.indices[0] == 0 and len(alone.trimmed) == 0


def test_ties_go_to_the_lowest_index() -> None:
    # Integer coordinates: every squared distance is exact, so ties are real ties.
    axes = np.concatenate([np.eye(3), -np.eye(3)])  # +x +y +z -x -y -z
    at_origin = kcenter_greedy(axes, np.zeros((1, 3)), 6, trim_quantile=None)
    assert at_origin.indices.tolist() == [0, 1, 2, 3, 4, 5]  # all stay 1 from the origin center
    # No base: row 0 (+x) first; -x (row 3) is 2 away, the rest sqrt(2); then +y, +z, -y, -z all tie.
    result = kcenter_greedy(axes, axes[:0], 6, trim_quantile=None)
    assert result.indices.tolist() == [0, 3, 1, 2, 4, 5] == brute_force(axes, axes[:0], 6)
    grid = np.array([[x, y] for x in range(-3, 4) for y in range(-3, 4)], dtype=float)
    grid = np.concatenate([grid, grid[::-1]])  # every point twice
    base = np.array([[0.0, 0.0], [3.0, 3.0]])
    result = kcenter_greedy(grid, base, 30, trim_quantile=None)
    assert result.indices.tolist() == brute_force(grid, base, 30)
    repeat = kcenter_greedy(grid, base, 30, trim_quantile=None)
    assert repeat.indices.tolist() == result.indices.tolist()


def test_trimming_excludes_the_far_tail() -> None:
    rng = np.random.default_rng(5)
    candidates = rng.standard_normal((400, 8))
    outliers = [17, 101, 250, 399]
    candidates[outliers] *= 40  # corrupted samples, far from everything
    base = rng.standard_normal((300, 8))
    untrimmed = kcenter_greedy(candidates, base, 20, trim_quantile=None)
    assert set(untrimmed.indices[:4].tolist()) == set(outliers)  # why the paper trims
    result = kcenter_greedy(candidates, base, 20, trim_quantile=0.98)
    seeded = np.sqrt(((candidates[:, None, :] - base[None]) ** 2).sum(-1)).min(axis=1)
    threshold = float(np.quantile(seeded, 0.98))
    assert result.trim_threshold == pytest.approx(threshold)
    assert result.trimmed.tolist() == np.flatnonzero(seeded > threshold).tolist()
    assert set(outliers) <= set(result.trimmed.tolist()) and len(result.trimmed) == 8
    assert not set(result.indices.tolist()) & set(result.trimmed.tolist())
    assert result.indices.tolist() == brute_force(candidates, base, 20, trim_quantile=0.98)
    assert result.radius_before == pytest.approx(seeded[seeded <= threshold].max())


def test_projection_is_seeded_and_its_full_space_radius_is_exact() -> None:
    rng = np.random.default_rng(6)
    clusters = rng.standard_normal((10, 64)) * 3
    candidates = clusters[rng.integers(0, 10, 1200)] + rng.standard_normal((1200, 64))
    base = clusters[rng.integers(0, 5, 600)] + rng.standard_normal((600, 64))
    first = kcenter_greedy(candidates, base, 100, dim=16, seed=11)
    again = kcenter_greedy(candidates, base, 100, dim=16, seed=11)
    other = kcenter_greedy(candidates, base, 100, dim=16, seed=12)
    assert first.indices.tolist() == again.indices.tolist() and first.radius_full == again.radius_full
    assert other.indices.tolist() != first.indices.tolist()
    assert np.array_equal(gaussian_projection(64, 16, 11), gaussian_projection(64, 16, 11))
    assert not np.array_equal(gaussian_projection(64, 16, 11), gaussian_projection(64, 16, 12))
    # The picks are the exact greedy on the projected data (centred, which moves no distance).
    matrix = gaussian_projection(64, 16, 11, np.float64)
    projected = kcenter_greedy(candidates @ matrix, base @ matrix, 100)
    assert projected.indices.tolist() == first.indices.tolist()
    # radius_full: the covering radius of the unpicked, untrimmed candidates in the full space.
    kept = np.setdiff1d(np.arange(1200), np.concatenate([first.trimmed, first.indices]))
    centers = np.concatenate([base, candidates[first.indices]])
    full = max(np.sqrt(((centers - candidates[i]) ** 2).sum(axis=1)).min() for i in kept)
    assert first.radius_full == pytest.approx(full, rel=1e-9)
    assert first.stats["full_radius_rows_resolved"] < len(kept)  # the bound pruned most rows
    assert set(first.timings) == {"projection", "seeding", "picking", "full_radius"}


def test_cosine_is_euclidean_on_unit_rows() -> None:
    rng = np.random.default_rng(8)
    candidates = rng.standard_normal((500, 10)) + 2
    base = rng.standard_normal((200, 10)) + 2
    unit = candidates / np.linalg.norm(candidates, axis=1, keepdims=True)
    unit_base = base / np.linalg.norm(base, axis=1, keepdims=True)
    expected = kcenter_greedy(unit, unit_base, 60)
    scales = rng.uniform(0.5, 5, (500, 1))
    result = kcenter_greedy(candidates * scales, base, 60, metric="cosine")
    assert result.indices.tolist() == expected.indices.tolist()
    assert result.radius == pytest.approx(expected.radius, rel=1e-9)
    projected = kcenter_greedy(candidates * scales, base, 60, metric="cosine", dim=8)
    assert projected.radius_full is not None and projected.radius_full <= 2.0


def test_difficulty_and_random_methods() -> None:
    scores = [3.0, 5.0, 1.0, 5.0, 4.5, 3.0, 5.0]
    assert select_difficulty(scores, 5).indices.tolist() == [1, 3, 6, 4, 0]
    picked = select_random(1000, 100, seed=1)
    assert len(set(picked.indices.tolist())) == 100 and picked.indices.max() < 1000
    assert select_random(1000, 100, seed=1).indices.tolist() == picked.indices.tolist()
    assert select_random(1000, 100, seed=2).indices.tolist() != picked.indices.tolist()
    via = select_pairs(None, None, 3, "difficulty", difficulty=scores)
    assert via.method == "difficulty" and via.indices.tolist() == [1, 3, 6]
    assert select_pairs(None, None, 4, "random", seed=1, difficulty=scores).indices.tolist() == (
        select_random(7, 4, seed=1).indices.tolist()
    )
    rng = np.random.default_rng(9)
    pairs, base = rng.standard_normal((100, 4)), rng.standard_normal((50, 4))
    via = select_pairs(pairs, base, 10, "kcenter", 0.99, None, 0, "cpu")
    assert via.indices.tolist() == kcenter_greedy(pairs, base, 10).indices.tolist()
    assert via.summary()["selected"] == 10


def test_bad_input_is_one_line() -> None:
    rng = np.random.default_rng(10)
    pairs, base = rng.standard_normal((50, 4)), rng.standard_normal((20, 4))
    broken = pairs.copy()
    broken[17, 2] = np.nan
    cases = [
        (lambda: kcenter_greedy(broken, base, 5), ":18: field 'pair_embeddings'", "row 17"),
        (lambda: kcenter_greedy(pairs, base, 51), "k", "only 50"),
        (lambda: kcenter_greedy(pairs, base[:, :3], 5), "base_embeddings", "4 dims"),
        (lambda: kcenter_greedy(pairs, base, 50), "k", "after trimming"),
        (lambda: kcenter_greedy(pairs, base, 5, trim_quantile=1.5), "trim_quantile", "(0, 1]"),
        (lambda: select_pairs(pairs, base, 5, "nearest"), "method", "kcenter, difficulty, random"),
        (lambda: select_difficulty([1.0, float("nan")], 1), ":2: field 'difficulty'", "finite"),
        (lambda: select_pairs(None, None, 5, "difficulty"), "difficulty", "instruct score"),
    ]
    for call, where, what in cases:
        with pytest.raises(InputError) as caught:
            call()
        text = str(caught.value)
        assert "\n" not in text and where in text and what in text, text


def test_cuda_without_a_gpu_is_one_line() -> None:
    try:
        import torch

        if torch.cuda.is_available():
            pytest.skip("a CUDA device is present")
    except ImportError:
        pass
    rng = np.random.default_rng(11)
    with pytest.raises(InputError) as caught:
        kcenter_greedy(rng.standard_normal((20, 3)), rng.standard_normal((5, 3)), 3, device="cuda")
    assert "torch" in str(caught.value) and "--device cpu" in str(caught.value)


def test_torch_picking_matches_numpy_on_a_cpu_device() -> None:
    """The CUDA path's algorithm, run on torch's CPU device where torch is installed."""
    pytest.importorskip("torch")
    from benchmorph.instruct.kcenter import pick_lazy
    from benchmorph.instruct.kcenter_torch import nearest_centers_torch, pick_torch
    from benchmorph.instruct.nearest import nearest_centers

    rng = np.random.default_rng(12)
    points, base = rng.standard_normal((800, 8)), rng.standard_normal((300, 8))
    sq, owner = nearest_centers(points, base, dtype=np.dtype(np.float64))
    sq_t, owner_t = nearest_centers_torch(points, base, device="cpu")
    assert np.allclose(sq, sq_t) and np.array_equal(owner, owner_t)
    lazy = pick_lazy(points, sq, owner, 100)
    plain = pick_torch(points, sq, owner, 100, device="cpu")
    assert lazy.positions.tolist() == plain.positions.tolist()
    assert lazy.radius_sq == pytest.approx(plain.radius_sq)


def test_the_benchmark_runs_in_tiny_mode() -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "kcenter.py"), "--tiny"],
        capture_output=True, text=True, timeout=300, cwd=ROOT,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    out = result.stdout
    for needle in ("projection", "seeding", "picking", "peak RSS", "ratio", "same picks: yes", "radius"):
        assert needle in out, out
