"""Time limits in CPU seconds with a wall-clock backstop, re-run timeouts, and a task cap that allows threads.

Issue 23, findings 5 and 6: wall-clock limits made verdicts depend on the machine's load, and the
process cap (pids.max = 16) counted threads, so a correct sample with a small thread pool was a
violation.  Here, in the real sandbox:

* a sample's limit is charged in CPU seconds of its whole process tree (its cgroup), so a child
  process that spins is charged while its parent waits;
* a sample that sleeps uses no CPU and is stopped by the backstop (``wall_factor`` x its limit);
* reference times, the calibration of every limit, are CPU seconds, not wall seconds;
* a timeout is re-run once at the end, and a verdict the re-run changes is counted;
* 32 threads are fine, a fork bomb is still stopped.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from benchmorph.data.models import Problem, TestCase
from benchmorph.execution import Engine, Job, Limits
from benchmorph.execution.cgroups import detect
from benchmorph.execution.sandbox import bwrap_problem

pytestmark = pytest.mark.skipif(
    bwrap_problem() is not None, reason=f"no bubblewrap sandbox: {bwrap_problem()}"
)
needs_cgroup = pytest.mark.skipif(detect() is None, reason="no writable cgroup here")

IDENTITY = "def f(x):\n    return x\n"


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory):
    with Engine(workers=2, cache_root=tmp_path_factory.mktemp("cache")) as engine:
        yield engine


def prepared(engine: Engine, reference: str, inputs: list, pid: str = "cpu/1") -> Problem:
    problem = Problem(
        id=pid, prompt="", entry_point="f", reference=reference, tests=[TestCase(input=i) for i in inputs]
    )
    [ready] = engine.prepare([problem]).problems
    return ready


def test_a_sample_with_32_threads_passes(engine: Engine) -> None:
    problem = prepared(engine, "def f(n):\n    return sum(i * i for i in range(n))\n", [[10_000], [3]])
    threaded = (
        "from concurrent.futures import ThreadPoolExecutor\n"
        "def f(n):\n"
        "    with ThreadPoolExecutor(max_workers=32) as pool:\n"
        "        futures = [pool.submit(lambda k: k * k, i) for i in range(n)]\n"
        "        # Every worker thread started, all at once.\n"
        "        started = len(pool._threads)\n"
        "        total = sum(future.result() for future in futures)\n"
        "    return total if n < 32 or started == 32 else -started\n"
    )
    raw_threads = (
        "import threading\n"
        "def f(n):\n"
        "    results = [0] * 32\n"
        "    def work(k):\n"
        "        results[k] = sum(i * i for i in range(k, n, 32))\n"
        "    threads = [threading.Thread(target=work, args=(k,)) for k in range(32)]\n"
        "    for t in threads:\n"
        "        t.start()\n"
        "    for t in threads:\n"
        "        t.join()\n"
        "    return sum(results)\n"
    )
    for code in (threaded, raw_threads):
        [verdict] = engine.evaluate([Job(problem, code, "cpu/1")])
        assert verdict.status == "pass", verdict.error


@needs_cgroup
def test_a_fork_bomb_is_still_stopped(engine: Engine) -> None:
    problem = prepared(engine, IDENTITY, [[1]], pid="cpu/bomb")
    started = time.monotonic()
    [verdict] = engine.evaluate(
        [Job(problem, "import os\ndef f(x):\n    while True:\n        os.fork()\n", "cpu/bomb")]
    )
    assert verdict.status == "sandbox-violation", verdict.error
    assert "process limit reached" in (verdict.error or "") and "256 processes and threads" in (
        verdict.error or ""
    )
    assert time.monotonic() - started < 30


@needs_cgroup
def test_cpu_time_is_charged_for_the_whole_process_tree(engine: Engine) -> None:
    """A child that spins while its parent only waits: the cgroup charges the child's CPU to the sample."""
    problem = prepared(engine, IDENTITY, [[1]], pid="cpu/tree")
    spinner = (
        "import os\n"
        "def f(x):\n"
        "    child = os.fork()\n"
        "    if child == 0:\n"
        "        while True:\n"
        "            pass\n"
        "    os.waitpid(child, 0)\n"
        "    return x\n"
    )
    [verdict] = engine.evaluate([Job(problem, spinner, "cpu/tree")])
    assert verdict.status == "timeout", verdict.error
    # The CPU limit (1 s) ran out, not the 3 s backstop of a sample that only waits.
    assert "CPU time" in (verdict.error or "")


def test_a_sleeping_sample_is_stopped_by_the_wall_clock_backstop(engine: Engine) -> None:
    problem = prepared(engine, IDENTITY, [[1]], pid="cpu/sleep")
    started = time.monotonic()
    [verdict] = engine.evaluate([Job(problem, "import time\ndef f(x):\n    time.sleep(60)\n", "cpu/sleep")])
    assert verdict.status == "timeout"
    assert "wall-clock backstop" in (verdict.error or "")
    backstop = engine.limits.wall_factor * engine.limits.min_time_limit
    assert time.monotonic() - started < 2 * backstop + 5  # cut at the backstop, twice (the re-run)


def test_reference_times_are_cpu_seconds(engine: Engine) -> None:
    """A reference that sleeps 0.6 s and computes 0.05 s is calibrated on its 0.05 s."""
    reference = (
        "import time\n"
        "def f(x):\n"
        "    time.sleep(0.6)\n"
        "    end = time.process_time() + 0.05\n"
        "    while time.process_time() < end:\n"
        "        pass\n"
        "    return x\n"
    )
    problem = prepared(engine, reference, [[1]], pid="cpu/ref")
    assert problem.tests[0].ref_time is not None and 0.04 <= problem.tests[0].ref_time < 0.3


def test_a_timeout_is_rerun_at_the_end_and_a_changed_verdict_is_counted(tmp_path: Path) -> None:
    """The first run spins past its limit; by the re-run the sample's deadline has passed and it answers."""
    with Engine(workers=1, limits=Limits(min_time_limit=0.5), cache_root=tmp_path) as engine:
        problem = prepared(engine, IDENTITY, [[1]], pid="cpu/flaky")
        # The first run starts at once and spins until its 0.5 CPU s are up; the re-run comes after
        # both samples' first runs (at least 1 s), past this moment, and answers at once.
        moment = time.time() + 0.6
        flaky = f"import time\ndef f(x):\n    if time.time() > {moment!r}:\n        return x\n    while True:\n        pass\n"
        steady = "def f(x):\n    while True:\n        pass\n"
        flaky_verdict, steady_verdict = engine.evaluate(
            [Job(problem, flaky, "cpu/flaky", 0), Job(problem, steady, "cpu/flaky", 1)]
        )
        assert flaky_verdict.status == "pass", flaky_verdict.error
        assert steady_verdict.status == "timeout"
        assert engine.reruns.rerun == 2 and engine.reruns.changed == 1
        assert engine.reruns.changed_ids == ["cpu/flaky#0"]


def test_without_reruns_the_first_timeout_stands(tmp_path: Path) -> None:
    with Engine(
        workers=1, limits=Limits(min_time_limit=0.3), cache_root=tmp_path, rerun_timeouts=False
    ) as engine:
        problem = prepared(engine, IDENTITY, [[1]], pid="cpu/once")
        [verdict] = engine.evaluate([Job(problem, "def f(x):\n    while True:\n        pass\n", "cpu/once")])
        assert verdict.status == "timeout" and engine.reruns.rerun == 0


def test_the_run_summary_counts_reruns_and_the_manifest_records_limits_mode_and_load(tmp_path: Path) -> None:
    import json

    from benchmorph.data.models import Sample
    from benchmorph.data.registry import load_benchmark
    from benchmorph.evaluation import evaluate_run

    bench = load_benchmark("humaneval")
    problem = bench.problems[0]
    samples = [
        Sample(task_id=problem.id, code=problem.reference, model="m"),
        Sample(
            task_id=problem.id, index=1, code=problem.prompt + "    while True:\n        pass\n", model="m"
        ),
    ]
    with Engine(workers=1, cache_root=tmp_path / "cache") as engine:
        result = evaluate_run(bench, samples, tmp_path / "run", engine)
    reruns = result.summary["timeout_reruns"]
    assert reruns == {"rerun": 1, "changed": 0, "flake_rate": 0.0, "changed_samples": []}
    assert any("timeouts re-run at the end: 1" in notice.text for notice in result.notices)
    execution = json.loads((tmp_path / "run" / "manifest.json").read_text())["execution"]
    assert execution["limits"]["time_unit"] == "cpu-seconds" and execution["limits"]["min_time_limit"] == 1.0
    assert execution["sandbox"]["isolation"] == "bwrap" and execution["sandbox"]["tasks"] == 256
    assert execution["sandbox"]["cpu_clock"] in ("cgroup-v1", "cgroup-v2", "process-tree")
    assert len(execution["load_average"]["start"]) == 3 and len(execution["load_average"]["end"]) == 3
