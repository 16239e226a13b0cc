"""Stopping a sample at its first failing test (the default of `evaluate` and `run`) changes no verdict.

Real sandbox, real HumanEval and HumanEval+ data: the same reference-plus-mutants
samples are judged with and without per-test details, and every status and
error must be the same; only the per-test table differs.  The cancel the
host sends mid-job must leave the worker ready for the next job.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.cli_runner import run_cli

from benchmorph.data.formats.humaneval import humaneval_problem_records, load_humaneval
from benchmorph.data.models import Problem, TestCase
from benchmorph.data.registry import load_benchmark
from benchmorph.evaluation.peers import reference_and_mutants
from benchmorph.execution import Engine, Job
from benchmorph.report.details import describe_failure
from paths import SharedData

pytestmark = pytest.mark.timeout(600)


def judge_both(problems: list[Problem], samples: list, cache: Path, workers: int = 2) -> tuple[list, list]:
    """Verdicts with per-test details and without, on the same prepared problems."""
    results = []
    for details in (True, False):
        with Engine(workers=workers, cache_root=cache, test_details=details) as engine:
            prepared = {p.id: p for p in engine.prepare(problems).problems}
            jobs = [
                Job(prepared[s.task_id], s.code, s.task_id, s.index) for s in samples if s.task_id in prepared
            ]
            results.append(engine.evaluate(jobs))
    return results[0], results[1]


def assert_same_outcomes(full: list, short: list) -> None:
    assert len(full) == len(short)
    for a, b in zip(full, short, strict=True):
        assert (a.task_id, a.index, a.status, a.error) == (b.task_id, b.index, b.status, b.error)
        assert len(a.tests) == a.total  # details: the whole table
        first = next((t for t in a.tests if t.status != "pass"), None)
        if first is None:
            assert b.tests == [] and b.passed == b.total
        else:  # without: only the test that decided, and the count of those passed before it
            assert [t.model_dump(exclude={"time"}) for t in b.tests] == [first.model_dump(exclude={"time"})]
            assert b.passed == first.index


def test_humaneval_reference_and_mutants_same_statuses(tmp_path: Path) -> None:
    records = humaneval_problem_records()[:40]
    samples = [s for r in records for s in reference_and_mutants(r, 6, seed=3)]
    tasks = {r["task_id"] for r in records}
    problems = [p for p in load_humaneval() if p.id in tasks]
    full, short = judge_both(problems, samples, tmp_path / "cache")
    assert_same_outcomes(full, short)
    statuses = {v.status for v in full}
    assert {"pass", "fail", "error"} <= statuses, statuses


def test_humaneval_plus_stops_early_and_agrees(tmp_path: Path, shared_data: SharedData) -> None:
    """HumanEval+ (about 100 tests a task): a wrong answer stops at its first failure, mid-stream."""
    bench = load_benchmark("humaneval+", shared_data.humaneval_plus_inputs)
    chosen = [
        p for p in bench.problems if p.id in {"HumanEval/0", "HumanEval/12", "HumanEval/13", "HumanEval/35"}
    ]
    records = {r["task_id"]: r for r in humaneval_problem_records()}
    samples = [s for p in chosen for s in reference_and_mutants(records[p.id], 8, seed=1)]
    full, short = judge_both(chosen, samples, tmp_path / "cache", workers=1)
    assert_same_outcomes(full, short)
    # A wrong answer early in a long suite: with details every later test ran, without they did not.
    early = [
        (a, b) for a, b in zip(full, short, strict=True) if a.status == "fail" and b.passed < a.total // 2
    ]
    assert early, "expected a mutant failing in the first half of a HumanEval+ suite"
    assert sum(len(a.tests) for a, _ in early) > 10 * sum(len(b.tests) for _, b in early)


def stdin_problem() -> Problem:
    reference = "n = int(input())\nprint(n * 2)\n"
    return Problem(
        id="s/1",
        kind="stdin",
        prompt="",
        entry_point="",
        reference=reference,
        tests=[TestCase(input=f"{n}\n") for n in (1, 2, 3, 4)],
    )


def test_stdin_and_one_worker_reused_after_cancels(tmp_path: Path) -> None:
    """stdin (one process per test) and function jobs alternating on one worker: a cancel never leaks."""
    func = Problem(
        id="f/1",
        prompt="",
        entry_point="f",
        reference="def f(x):\n    return x + 1\n",
        tests=[TestCase(input=[n]) for n in range(30)],
    )
    codes = {
        "f/1": [
            "def f(x):\n    return x + 1\n",  # pass
            "def f(x):\n    return x + 2\n",  # fails test 0
            "def f(x):\n    return x + 1 if x < 5 else 0\n",  # fails test 5
            "def f(x):\n    return 1 // (x - 7) * 0 + x + 1\n",  # raises at test 7
            "def f(x):\n    return x + 1\n",
        ],
        "s/1": [
            "n = int(input())\nprint(n * 2)\n",
            "n = int(input())\nprint(n * 3)\n",  # fails test 0
            "n = int(input())\nprint(n * 2 if n < 3 else 0)\n",  # fails test 2
            "n = int(input())\nassert n < 2\nprint(n * 2)\n",  # errors at test 1
        ],
    }

    class Sample:
        def __init__(self, task: str, index: int, code: str) -> None:
            self.task_id, self.index, self.code = task, index, code

    samples = [Sample(task, i, code) for task, group in codes.items() for i, code in enumerate(group)]
    samples = [s for pair in zip(samples[:4], samples[5:], strict=False) for s in pair] + samples[4:5]
    full, short = judge_both([func, stdin_problem()], samples, tmp_path / "cache", workers=1)
    assert_same_outcomes(full, short)
    got = {(v.task_id, v.index): (v.status, v.passed) for v in short}
    assert got == {
        ("f/1", 0): ("pass", 30),
        ("f/1", 1): ("fail", 0),
        ("f/1", 2): ("fail", 5),
        ("f/1", 3): ("error", 7),
        ("f/1", 4): ("pass", 30),
        ("s/1", 0): ("pass", 4),
        ("s/1", 1): ("fail", 0),
        ("s/1", 2): ("fail", 2),
        ("s/1", 3): ("error", 1),
    }


def test_report_describes_a_failure_without_details(tmp_path: Path) -> None:
    """The report's failure line needs only the deciding test, which a first-failure verdict keeps."""
    problem = Problem(
        id="r/1",
        prompt="",
        entry_point="f",
        reference="def f(x):\n    return x\n",
        tests=[TestCase(input=[n]) for n in range(5)],
    )
    sample = type("S", (), {"task_id": "r/1", "index": 0, "code": "def f(x):\n    return 0\n"})()
    full, short = judge_both([problem], [sample], tmp_path / "cache", workers=1)
    prepared = problem.model_copy(
        update={"tests": [TestCase(input=[n], expected=n, has_expected=True) for n in range(5)]}
    )
    assert describe_failure(short[0], prepared) == describe_failure(full[0], prepared)
    assert describe_failure(short[0], prepared).startswith("test 2/5: f(1): ")


def test_cli_evaluate_first_failure_by_default(tmp_path: Path) -> None:
    """`benchmorph evaluate` stops at the first failure unless --test-details; statuses are the same."""
    records = humaneval_problem_records()[:3]
    samples = tmp_path / "samples.jsonl"
    with samples.open("w", encoding="utf-8") as handle:
        for record in records:
            for sample in reference_and_mutants(record, 3, seed=0):
                handle.write(json.dumps({"task_id": sample.task_id, "solution": sample.code}) + "\n")
    rows = {}
    for flag in ("", "--test-details"):
        out = tmp_path / f"out{flag}"
        done = run_cli(
            "evaluate", "humaneval", "--samples", str(samples), "--out", str(out), "-j", "2",
            *([flag] if flag else []), cache=tmp_path / "cache", timeout=300,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr[-2000:]
        rows[flag] = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert [r["status"] for r in rows[""]] == [r["status"] for r in rows["--test-details"]]
    assert all(len(r["tests"]) == r["total"] for r in rows["--test-details"])
    assert all(len(r["tests"]) <= 1 for r in rows[""])
    assert any(r["status"] != "pass" for r in rows[""])
