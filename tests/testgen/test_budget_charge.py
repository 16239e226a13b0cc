"""A problem's search budget counts its own CPU seconds, not the wall clock it shares with others.

``augment_benchmark`` searches two problems per sandbox worker, so a
problem's jobs wait behind another problem's; on a busy machine its samples
also wait for a CPU.  Neither may use up its budget: with one worker held
between its jobs by another caller's slow jobs, a problem that saturates
within a fraction of its budget still stops ``saturated`` although its wall
time runs far past the budget.  What one job is charged
(``execution.charge.job_charge``) is checked on the worker's own replies.
"""

from __future__ import annotations

import threading
import time

from test_saturation import SIGN  # the problem whose inputs saturate early

from benchmorph.data.models import Problem, TestCase
from benchmorph.execution import Engine
from benchmorph.execution.charge import CpuCharge, job_charge
from benchmorph.execution.protocol import WorkerJob, WorkerReply
from benchmorph.testgen.augment import AugmentOptions, augment_problem

BUSY = Problem(
    id="busy",
    prompt="def busy(n):\n",
    entry_point="busy",
    reference="def busy(n):\n    total = 0\n    for i in range(n):\n        total += i % 7\n    return total\n",
    tests=[TestCase(input=[10])],
)


def _job(timeouts: list[float]) -> WorkerJob:
    return WorkerJob(
        id="j",
        kind="function",
        code="",
        entry_point="f",
        inputs=[[1]] * len(timeouts),
        timeouts=timeouts,
        setup_time=2.0,
        wall_factor=3.0,
        limits={},
        budget=60.0,
    )


def test_a_job_is_charged_its_cpu_seconds_and_a_waiting_sample_its_limit() -> None:
    job = _job([1.0, 4.0])
    assert job_charge(job, WorkerReply(cpu=0.25, wall=9.0)) == 0.25  # a busy machine's wall is not charged
    # Stopped by the wall-clock backstop in test 1 (it slept): charged as though it had used that limit.
    assert job_charge(job, WorkerReply(cpu=0.25, wall=13.0, timeout_in=1, timeout_by="wall")) == 4.25
    assert job_charge(job, WorkerReply(cpu=0.5, wall=7.0, timeout_in="setup", timeout_by="wall")) == 2.5
    assert job_charge(job, WorkerReply(cpu=1.0, wall=3.0, timeout_in=0, timeout_by="cpu")) == 1.0
    assert job_charge(job, WorkerReply.lost("worker died")) == 0.0  # no CPU figure: its wall seconds
    assert job_charge(job, WorkerReply(crashed="hung", wall=5.0)) == 5.0


def test_the_engine_charges_a_caller_the_cpu_seconds_of_its_own_jobs() -> None:
    with Engine(workers=1) as engine:
        charge = CpuCharge()
        runs = engine.run_inputs(BUSY, [[2_000_000], [10]], charge=charge)
        assert [run.status for run in runs] == ["ok", "ok"]
        spent = sum(run.time or 0.0 for run in runs)
        # The job's CPU seconds: both inputs plus loading the code, and nothing of the wall clock.
        assert charge.jobs == 1 and spent <= charge.seconds < spent + 1.0, (spent, charge.seconds)
        other = CpuCharge()
        engine.coverage(BUSY, [[10]], charge=other)
        assert other.jobs == 1 and other.seconds < charge.seconds


def test_a_problem_sharing_its_worker_with_slow_jobs_still_stops_saturated() -> None:
    budget = 0.5  # SIGN saturates in about a tenth of a CPU second
    options = AugmentOptions(saturation=30, per_problem=5000, budget_s=budget, suite_time_s=60.0)
    with Engine(workers=1) as engine:
        done = threading.Event()
        held = []

        def hog() -> None:
            # Another caller's jobs of about half a CPU second each, on the one worker, with a pause
            # between them as a search's host work makes (else this thread takes the worker back first).
            while not done.is_set():
                held.append(engine.run_inputs(BUSY, [[6_000_000]])[0].time or 0.0)
                time.sleep(0.02)

        other = threading.Thread(target=hog)
        other.start()
        try:
            result = augment_problem(SIGN, engine, options)
        finally:
            done.set()
            other.join()
    assert result.stopped == "saturated", (result.stopped, result.search_cpu_s, result.search_s)
    assert result.search_cpu_s < budget
    # Its jobs waited behind whole jobs of the other caller (the second of three ran inside its search),
    # wall time a wall-clock budget would have charged it; compared with those jobs' own CPU seconds, not
    # with a fixed figure, which a fast machine can beat.
    assert len(held) >= 3 and result.search_s > min(held), (result.search_s, held)
