"""How close must a text stay to an original for a memoriser to recall it?  The threshold sweep.

Prints, for a benchmark's originals, the share of each kind of near-copy the
fuzzy memorizer recalls (``benchmorph.report.recall``) and the share of
originals it would mistake for another, at every threshold; the threshold
Youden's J picks (light edits against unrelated originals); and, with
``--variants FILE``, where a variant file sits on the same curve.  The
``RECALL_THRESHOLD`` of ``memorizer?recall=fuzzy`` is the pick on HumanEval.

    python bench/recall_curve.py                                  # HumanEval
    python bench/recall_curve.py --variants meta.jsonl            # and a variant file on the curve
    python bench/recall_curve.py --benchmark mbpp+ --data ../shared/data/evalplus/MbppPlus.dev-2023-11-16.jsonl
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from benchmorph.data.models import Variant
from benchmorph.data.registry import load_benchmark
from benchmorph.models.recall import RECALL_THRESHOLD
from benchmorph.report.recall import LIGHT, recall_curve


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--benchmark", default="humaneval")
    parser.add_argument("--data", help="local data file for the benchmark")
    parser.add_argument("--variants", help="a variant file (morph run output) to place on the curve")
    parser.add_argument("--json", help="also write the curve as JSON here")
    parser.add_argument("--step", type=float, default=0.05, help="threshold step of the printed table")
    args = parser.parse_args(argv)

    started = time.perf_counter()
    originals = load_benchmark(args.benchmark, args.data).problems
    variants: list[Variant] = []
    if args.variants:
        variants = [p for p in load_benchmark(args.variants).problems if isinstance(p, Variant)]
    curve = recall_curve(args.benchmark, originals, variants)
    kinds = list(curve.recalled)
    header = ["threshold", *kinds, "unrelated originals", *(["variants"] if variants else [])]
    print(
        f"{args.benchmark}: {curve.originals} originals"
        + (f", {curve.variants} variants" if variants else "")
    )
    print("share recalled (a near-copy: its own original is nearest and keeps >= threshold of it)")
    print(" | ".join(header))
    shown = {
        round(t, 2)
        for t in curve.thresholds
        if abs((t - 0.5) / args.step - round((t - 0.5) / args.step)) < 1e-6
    }
    shown |= {curve.best, curve.chosen}
    for threshold in curve.thresholds:
        if round(threshold, 2) not in shown:
            continue
        row = curve.at(threshold)
        mark = " <- chosen" if abs(threshold - curve.chosen) < 1e-9 else ""
        mark += " <- Youden's J" if abs(threshold - curve.best) < 1e-9 else ""
        cells = [f"{row[kind]:.3f}" for kind in header[1:]]
        print(" | ".join([f"{threshold:.2f}", *cells]) + mark)
    print("median share kept:", ", ".join(f"{kind} {value:.3f}" for kind, value in curve.similarity.items()))
    if variants:
        print(f"variants: median share of the parent kept {curve.variants_similarity}")
    print(
        f"Youden's J ({LIGHT} vs unrelated originals) picks {curve.best:.2f}; "
        f"RECALL_THRESHOLD = {RECALL_THRESHOLD:.2f}; {time.perf_counter() - started:.1f} s"
    )
    if args.json:
        Path(args.json).write_text(json.dumps(curve.__dict__, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
