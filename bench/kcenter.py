#!/usr/bin/env python
"""k-center greedy selection (CTF-Instruct, paper Algorithm 1) at the paper's sizes, on CPU.

Three measurements, each printed with its numbers:

1. **scale**: ``--base`` base centers (110k, Evol-Instruct), ``--candidates`` pairs (102k),
   ``--dims``-dimensional float32 synthetic clustered embeddings (2048), ``--k`` picks (30k),
   projected to ``--dim`` (128): time per phase (projection, seeding, picking, full-space radius),
   end to end, and peak RSS (``resource.getrusage``; it includes the embeddings themselves,
   2 x 0.9 GB at the paper's sizes).
2. **baseline ratio**: on a smaller set (``--baseline-size``), a plain numpy implementation that
   recomputes every candidate's distance to all centers for every pick, against ours on the same data
   (same picks checked), and the literal incremental loop (one pass over all candidates per pick);
   then the lazy picks against that incremental loop at ``--incremental-size`` (30k, k = 10k).
3. **radius check**: on ``--check-size`` x ``--check-dims`` data (20k x 512, k = 3000), the covering
   radius in the full space of the projected selection (each width in ``--check-projections``,
   128 and 256) against the exact greedy's (goal: within 15%). k is kept below the point where
   every selection reaches the floor set by the candidates lying next to their base row (from about
   k = 6000 on this data both radii are that floor and the ratio is 1.000 whatever the projection).

``--tiny`` runs all three at toy sizes in seconds (what tests/instruct/test_kcenter.py runs);
``--skip-scale`` / ``--skip-baseline`` / ``--skip-check`` leave parts out.

Synthetic data: cluster centers N(0, I); each base row is a center plus N(0, s^2 I) noise with s in
[0.3, 0.6] per cluster and Zipf-like cluster sizes; 70% of candidates are a base row plus small noise
(a counterfactual pair near its seed sample), 29.5% come from clusters the base does not have
(what k-center should find), 0.5% are far outliers (what trimming removes).
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from benchmorph.instruct.select import kcenter_greedy  # noqa: E402


def synthetic(
    n_base: int, n_candidates: int, dims: int, seed: int, clusters: int = 1000
) -> tuple[np.ndarray, np.ndarray]:
    """(base, candidates) float32, generated in row chunks: no full-size temporary is ever made."""
    rng = np.random.default_rng(seed)
    clusters = max(2, min(clusters, n_base // 4))
    centers = rng.standard_normal((2 * clusters, dims), dtype=np.float32)
    spread = rng.uniform(0.3, 0.6, 2 * clusters).astype(np.float32)
    weights = 1.0 / np.arange(1, clusters + 1)
    weights /= weights.sum()

    base = np.empty((n_base, dims), dtype=np.float32)
    labels = rng.choice(clusters, n_base, p=weights)
    for start in range(0, n_base, 8192):
        part = labels[start : start + 8192]
        noise = rng.standard_normal((len(part), dims), dtype=np.float32)
        base[start : start + len(part)] = centers[part] + spread[part, None] * noise

    # Kinds in random order: 0 a pair near a base row, 1 a row of a cluster the base lacks, 2 an outlier.
    n_pairs = int(n_candidates * 0.7)
    n_outliers = max(1, int(n_candidates * 0.005))
    counts = [n_pairs, n_candidates - n_pairs - n_outliers, n_outliers]
    kinds = rng.permutation(np.repeat(np.arange(3), counts))
    parents = rng.integers(0, n_base, n_candidates)
    new_labels = clusters + rng.choice(clusters, n_candidates, p=weights)
    scales = np.where(kinds == 0, 0.2, np.where(kinds == 1, spread[new_labels], 3.0)).astype(np.float32)
    candidates = np.empty((n_candidates, dims), dtype=np.float32)
    for start in range(0, n_candidates, 8192):
        stop = min(start + 8192, n_candidates)
        block = rng.standard_normal((stop - start, dims), dtype=np.float32)
        block *= scales[start:stop, None]
        kind = kinds[start:stop]
        block[kind == 0] += base[parents[start:stop][kind == 0]]
        block[kind == 1] += centers[new_labels[start:stop][kind == 1]]
        candidates[start:stop] = block
    return base, candidates


def peak_rss_gb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / 1e9  # Linux reports KiB


def recompute_baseline(candidates: np.ndarray, base: np.ndarray, k: int) -> list[int]:
    """Plain numpy Algorithm 1: every pick recomputes every candidate's distance to all centers."""
    norms = np.einsum("ij,ij->i", candidates, candidates)
    remaining = np.ones(len(candidates), dtype=bool)
    chosen: list[int] = []
    for _ in range(k):
        centers = np.concatenate([base, candidates[chosen]])
        squared = norms[:, None] - 2 * candidates @ centers.T + np.einsum("ij,ij->i", centers, centers)[None]
        distances = squared.min(axis=1)
        distances[~remaining] = -np.inf
        pick = int(np.argmax(distances))
        chosen.append(pick)
        remaining[pick] = False
    return chosen


def incremental_baseline(candidates: np.ndarray, base: np.ndarray, k: int) -> list[int]:
    """The literal incremental loop: one distance vector, lowered by each new center (a full pass per pick)."""
    norms = np.einsum("ij,ij->i", candidates, candidates)
    base_norms = np.einsum("ij,ij->i", base, base)
    current = np.empty(len(candidates), dtype=np.float32)
    for start in range(0, len(candidates), 4096):  # chunked: 30k x 30k at once would be 3.6 GB per temporary
        rows = slice(start, start + 4096)
        current[rows] = (norms[rows, None] - 2 * candidates[rows] @ base.T + base_norms[None]).min(axis=1)
    chosen: list[int] = []
    for _ in range(k):
        pick = int(np.argmax(current))
        chosen.append(pick)
        np.minimum(current, norms - 2 * candidates @ candidates[pick] + norms[pick], out=current)
        current[pick] = -np.inf
    return chosen


def timed(call):  # noqa: ANN001, ANN201 - a tiny helper for this script
    start = time.perf_counter()
    value = call()
    return value, time.perf_counter() - start


def run_scale(args: argparse.Namespace) -> None:
    print(f"== scale: {args.base} base x {args.candidates} candidates x {args.dims} dims float32, "
          f"k = {args.k}, --dim {args.dim}")  # fmt: skip
    (base, candidates), gen = timed(lambda: synthetic(args.base, args.candidates, args.dims, args.seed))
    print(
        f"synthetic data: {gen:.1f} s, {(base.nbytes + candidates.nbytes) / 1e9:.2f} GB, peak RSS so far {peak_rss_gb():.2f} GB"
    )
    cpu_start = time.process_time()
    result, total = timed(
        lambda: kcenter_greedy(
            candidates, base, args.k, dim=args.dim, seed=args.seed, full_radius=not args.no_full_radius
        )
    )
    for phase, seconds in result.timings.items():
        print(f"  {phase:<12} {seconds:8.1f} s")
    cpu = time.process_time() - cpu_start
    print(f"  end to end   {total:8.1f} s  (goal: under 300 s)")
    print(
        f"  CPU time     {cpu:8.1f} s  (all threads; on an idle 2-core machine wall time is about half to all of it)"
    )
    print(f"  peak RSS     {peak_rss_gb():8.2f} GB (goal: under 4 GB; includes the input embeddings)")
    print(f"  trimmed {len(result.trimmed)} at distance {result.trim_threshold:.3f}; radius before {result.radius_before:.3f}, "
          f"after {result.radius:.3f} (projected), full-space radius {result.radius_full}")  # fmt: skip
    print(f"  stats {result.stats}")


def run_baseline(args: argparse.Namespace) -> None:
    n, k = args.baseline_size, args.baseline_k
    print(f"== baseline ratio: {n} base x {n} candidates x {args.dim} dims float32, k = {k}")
    base, candidates = synthetic(n, n, args.dim, args.seed + 1)
    ours, ours_s = timed(lambda: kcenter_greedy(candidates, base, k, trim_quantile=None))
    plain, plain_s = timed(lambda: recompute_baseline(candidates, base, k))
    literal, literal_s = timed(lambda: incremental_baseline(candidates, base, k))
    same = ours.indices.tolist() == plain == literal
    print(f"  ours (seeding + lazy picks)            {ours_s:8.2f} s")
    print(f"  numpy, recompute all distances per pick {plain_s:8.2f} s   ratio {plain_s / ours_s:7.1f}x")
    print(f"  numpy, incremental full pass per pick   {literal_s:8.2f} s   ratio {literal_s / ours_s:7.1f}x")
    print(f"  same picks: {'yes' if same else 'NO'}")
    n, k = args.incremental_size, args.incremental_k
    print(f"== lazy picks against the incremental loop: {n} base x {n} candidates x {args.dim} dims, k = {k}")
    base, candidates = synthetic(n, n, args.dim, args.seed + 3)
    ours, ours_s = timed(lambda: kcenter_greedy(candidates, base, k, trim_quantile=None))
    literal, literal_s = timed(lambda: incremental_baseline(candidates, base, k))
    print(
        f"  ours: seeding {ours.timings['seeding']:.2f} s, picking {ours.timings['picking']:.2f} s, total {ours_s:.2f} s"
    )
    print(f"  numpy, incremental full pass per pick   {literal_s:8.2f} s   ratio {literal_s / ours_s:7.1f}x")
    # float32: a different summation order may swap two candidates whose distances tie to rounding.
    agree = int(np.sum(ours.indices == np.asarray(literal)))
    print(f"  same picks: {agree} of {k} positions agree (float32; differences are rounding-level ties)")


def run_check(args: argparse.Namespace) -> None:
    n, dims, k = args.check_size, args.check_dims, args.check_k
    widths = [int(w) for w in str(args.check_projections).split(",") if w.strip()] or [args.dim]
    print(f"== radius check: {n} base x {n} candidates x {dims} dims, k = {k}, projected to "
          f"{', '.join(map(str, widths))} vs exact")  # fmt: skip
    base, candidates = synthetic(n, n, dims, args.seed + 2)
    exact, exact_s = timed(lambda: kcenter_greedy(candidates, base, k, trim_quantile=None))
    print(f"  exact greedy ({dims} dims)   radius {exact.radius_full:.4f}   {exact_s:6.1f} s")
    for width in widths:
        projected, projected_s = timed(
            lambda width=width: kcenter_greedy(
                candidates, base, k, trim_quantile=None, dim=width, seed=args.seed
            )
        )
        ratio = projected.radius_full / exact.radius_full
        verdict = "within 15%" if ratio <= 1.15 else "NOT within 15%"
        print(f"  projected ({width} dims)  radius in full space {projected.radius_full:.4f} "
              f"(in projected space {projected.radius:.4f})   {projected_s:6.1f} s")  # fmt: skip
        print(f"  radius ratio projected / exact = {ratio:.3f}: {verdict}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--base", type=int, default=110_000)
    parser.add_argument("--candidates", type=int, default=102_000)
    parser.add_argument("--dims", type=int, default=2048)
    parser.add_argument("--k", type=int, default=30_000)
    parser.add_argument("--dim", type=int, default=128)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-full-radius", action="store_true", help="skip the full-space radius at scale")
    parser.add_argument("--baseline-size", type=int, default=2000)
    parser.add_argument("--baseline-k", type=int, default=200)
    parser.add_argument("--incremental-size", type=int, default=30_000)
    parser.add_argument("--incremental-k", type=int, default=10_000)
    parser.add_argument("--check-size", type=int, default=20_000)
    parser.add_argument("--check-dims", type=int, default=512)
    parser.add_argument("--check-k", type=int, default=3000)
    parser.add_argument(
        "--check-projections",
        default="128,256",
        help="projected widths compared with the exact greedy in the radius check (comma-separated)",
    )
    parser.add_argument("--skip-scale", action="store_true")
    parser.add_argument("--skip-baseline", action="store_true")
    parser.add_argument("--skip-check", action="store_true")
    parser.add_argument("--tiny", action="store_true", help="toy sizes for every part (seconds)")
    args = parser.parse_args()
    if args.tiny:
        args.base, args.candidates, args.dims, args.k, args.dim = 3000, 2800, 256, 800, 32
        args.baseline_size, args.baseline_k = 400, 40
        args.incremental_size, args.incremental_k = 1500, 300
        args.check_size, args.check_dims, args.check_k = 1500, 128, 300
        args.check_projections = str(args.dim)
    load = os.getloadavg()[0]
    print(f"2-core budget; load average at start {load:.2f} (other processes slow every number below)")
    if not args.skip_scale:
        run_scale(args)
    if not args.skip_baseline:
        run_baseline(args)
    if not args.skip_check:
        run_check(args)
    print(f"load average at end {os.getloadavg()[0]:.2f}; peak RSS {peak_rss_gb():.2f} GB")


if __name__ == "__main__":
    main()
