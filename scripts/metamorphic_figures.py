"""The figures of a metamorphic run, from its candidates file: yields, residual similarity, siblings, BLEU.

    benchmorph morph run metamorphic humaneval --out he.jsonl
    python scripts/metamorphic_figures.py he.candidates.jsonl --k 5

prints, for the run's published variants (status ``accepted``):

- yields per seed (how many seeds got 0..K variants) and per attempt;
- the distribution of the residual gates' figures (BLEU-4 with examples,
  share of 8-word runs kept, difflib ratio; renames mapped back, scenario words
  out), and the largest accepted against each gate's threshold;
- sibling distinctness for every seed with all K variants (the figures the
  gate recorded: BLEU-4 and description BLEU-4 to the closest earlier sibling);
- BLEU-4 of the descriptions against the parent (external) and between
  siblings (internal), beside DyCodeEval's own external figures;
- the reasons candidates were rejected, by check.

Every figure is read from the provenance the gates wrote; nothing is recomputed.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path
from statistics import median, quantiles
from typing import Any

from benchmorph.validation.checks import residual, siblings
from benchmorph.validation.diversity import PAPER_EXTERNAL


def _spread(values: list[float]) -> str:
    if not values:
        return "-"
    if len(values) == 1:
        return f"n=1 value {values[0]:.3f}"
    q = quantiles(values, n=10)
    return f"n={len(values)} p10 {q[0]:.3f} median {median(values):.3f} p90 {q[-1]:.3f} max {max(values):.3f}"


def figures(rows: list[dict[str, Any]], k: int) -> dict[str, Any]:
    """Everything the report prints, as data."""
    accepted = [r for r in rows if r["provenance"].get("status") == "accepted"]
    seeds = {r["parent_id"] for r in rows}
    per_seed = Counter(r["parent_id"] for r in accepted)
    yields = Counter(per_seed.get(seed, 0) for seed in seeds)
    got = defaultdict(list)
    for r in accepted:
        for key, value in (r["provenance"].get("figures") or {}).items():
            got[key].append(float(value))
    full = [seed for seed in seeds if per_seed.get(seed, 0) >= k]
    full_siblings = [
        r
        for r in accepted
        if r["parent_id"] in full and "sibling_bleu4" in (r["provenance"].get("figures") or {})
    ]
    internal = defaultdict(list)
    for r in accepted:
        if "bleu_internal" in r["provenance"]:
            internal[r["parent_id"]].append(r["provenance"]["bleu_internal"])
    rejected = Counter(
        r["provenance"].get("check") for r in rows if r["provenance"].get("status") != "accepted"
    )
    return {
        "seeds": len(seeds),
        "variants": len(accepted),
        "yields": dict(sorted(yields.items())),
        "full_seeds": len(full),
        "residual": {
            key: got.get(key, [])
            for key in (
                "residual_bleu4",
                "residual_runs8",
                "residual_difflib",
                "residual_description_bleu4",
                "residual_description_difflib",
                "residual_description_run",
                "residual_description_kept",
            )
        },
        "siblings_full": {
            "bleu4": [r["provenance"]["figures"]["sibling_bleu4"] for r in full_siblings],
            "description_bleu4": [
                r["provenance"]["figures"].get("sibling_description_bleu4", 0.0) for r in full_siblings
            ],
        },
        "external": [
            r["provenance"]["bleu_external"] for r in accepted if "bleu_external" in r["provenance"]
        ],
        "internal": [value for values in internal.values() for value in values],
        "rejected": dict(rejected.most_common()),
        "attempts": Counter(r["provenance"].get("attempts", 1) for r in accepted),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("candidates", type=Path, help="the run's candidates JSONL (<out>.candidates.jsonl)")
    parser.add_argument("--k", type=int, default=5, help="variants per seed the run asked for")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    try:
        rows = [json.loads(line) for line in args.candidates.read_text().splitlines() if line.strip()]
    except (OSError, json.JSONDecodeError) as exc:
        print(f"{args.candidates}: cannot be read: {exc}", file=sys.stderr)
        return 2
    found = figures(rows, args.k)
    if args.json:
        print(json.dumps(found, default=list, indent=1))
        return 0
    print(f"{found['variants']} variants of {found['seeds']} seeds (K={args.k})")
    print("seeds by variants published:", ", ".join(f"{n}: {c}" for n, c in found["yields"].items()))
    print("published variants by attempts needed:", dict(sorted(found["attempts"].items())))
    limits = {
        "residual_bleu4": residual.MAX_BLEU,
        "residual_runs8": residual.MAX_RUNS,
        "residual_difflib": residual.MAX_RATIO,
        "residual_description_bleu4": residual.MAX_DESCRIPTION_BLEU,
        "residual_description_difflib": residual.MAX_DESCRIPTION_RATIO,
        "residual_description_run": float(residual.MAX_DESCRIPTION_RUN),
        "residual_description_kept": residual.MAX_DESCRIPTION_KEPT,
    }
    for key, values in found["residual"].items():
        print(f"{key:28s} (gate {limits[key]:.2f}): {_spread(values)}")
    print(f"seeds with all {args.k} variants: {found['full_seeds']} (DyPass@{args.k} is measured on these)")
    print(f"  sibling BLEU-4 (gate {siblings.MAX_BLEU:.2f}): {_spread(found['siblings_full']['bleu4'])}")
    print(
        f"  sibling description BLEU-4 (gate {siblings.MAX_DESCRIPTION_BLEU:.2f}): "
        f"{_spread(found['siblings_full']['description_bleu4'])}"
    )
    paper = ", ".join(f"{name} {value:.2f}" for name, value in PAPER_EXTERNAL.items())
    print(f"description BLEU-4 vs the parent (external): {_spread(found['external'])}; DyCodeEval: {paper}")
    print(f"description BLEU-4 between siblings (internal): {_spread(found['internal'])}")
    print("rejected candidates by check:", ", ".join(f"{k}: {v}" for k, v in found["rejected"].items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
