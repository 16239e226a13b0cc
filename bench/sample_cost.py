#!/usr/bin/env python
"""The sandbox's per-sample cost, in core-milliseconds, next to the floor a lean fork loop sets.

Issue 16 asks for the per-sample cost to come down towards what a plain
Python loop pays (fork, compile the code, call it once, reply through a pipe,
reap: about 1.6 ms on one core here).  This measures both on the same
machine, in the same run, so a loaded machine skews them alike:

* **engine**: ``Engine(workers=W)`` with warm workers and a warm reference
  cache, judging HumanEval references plus mutants of them (the agreement
  tests' set) the way ``benchmorph evaluate`` does by default (stop at the
  first failing test); cost = wall x W / samples;
* **floor**: the lean loop, on one core, on the same samples' code, one call
  of the entry point on the first test's input.

Each is the best of ``--repeat`` rounds (the least disturbed by other
processes).  Run it with ``PYTHONPATH=<another checkout>/src`` to measure an
older tree the same way.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

# work_floor sits beside this script.
sys.path.insert(0, str(Path(__file__).resolve().parent))

import work_floor  # noqa: E402 - found through the line above


def build(per_task: int, limit_tasks: int | None) -> tuple[list[Any], list[tuple[str, int, str]]]:
    from benchmorph.data.formats.humaneval import humaneval_problem_records, load_humaneval
    from benchmorph.evaluation.peers import reference_and_mutants

    records = humaneval_problem_records()[:limit_tasks]
    rows = [(s.task_id, s.index, s.code) for r in records for s in reference_and_mutants(r, per_task)]
    wanted = {record["task_id"] for record in records}
    return [problem for problem in load_humaneval() if problem.id in wanted], rows


def cpu_seconds() -> float:
    """User + system CPU of this process and of every descendant it has reaped so far."""
    mine = resource.getrusage(resource.RUSAGE_SELF)
    reaped = resource.getrusage(resource.RUSAGE_CHILDREN)
    return mine.ru_utime + mine.ru_stime + reaped.ru_utime + reaped.ru_stime


def tree_cpu_seconds() -> float:
    """CPU of this process and all its live descendants, each with the children it has reaped.

    The engine's workers (bwrap, then the worker inside) are killed when it
    closes, so their CPU never reaches ``RUSAGE_CHILDREN``: read it from
    /proc while they live.  A live process's own time plus its reaped
    children's counts no process twice.
    """
    tick = os.sysconf("SC_CLK_TCK")
    parents: dict[int, int] = {}
    ticks: dict[int, int] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", encoding="ascii", errors="replace") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        # After the command: state, ppid, ... utime stime cutime cstime are fields 14-17 of stat.
        parents[int(name)] = int(fields[1])
        ticks[int(name)] = sum(int(value) for value in fields[11:15])
    me, family = os.getpid(), set()
    for pid in parents:
        chain, at = [], pid
        while at in parents and at not in family and at != me and at > 1:
            chain.append(at)
            at = parents[at]
        if at == me or at in family:
            family.update(chain)
    mine = resource.getrusage(resource.RUSAGE_SELF)
    reaped = resource.getrusage(resource.RUSAGE_CHILDREN)
    own = mine.ru_utime + mine.ru_stime + reaped.ru_utime + reaped.ru_stime
    return own + sum(ticks[pid] for pid in family) / tick


def engine_round(
    jobs: list[Any], problems: list[Any], workers: int, cache: str, test_details: bool = False
) -> tuple[float, float, list[Any]]:
    """One engine, started, fed the warm reference cache, run on ``jobs``, and closed.

    Returns the evaluate phase's wall seconds, its CPU seconds (host,
    bwrap, workers and every sample's child), and the verdicts.  CPU time is
    what a loaded machine skews least: other processes lengthen the wall
    time, much less the CPU time.
    """
    from benchmorph.execution.engine import Engine

    with Engine(workers=workers, cache_root=Path(cache), test_details=test_details) as engine:
        engine.prepare(problems)
        engine.evaluate(jobs[: 2 * workers])  # every worker started
        before = tree_cpu_seconds()
        started = time.perf_counter()
        verdicts = engine.evaluate(jobs)
        wall = time.perf_counter() - started
        cpu = tree_cpu_seconds() - before
    return wall, cpu, verdicts


def lean_loop(path: str) -> tuple[float, float]:
    """Fork, compile, one call, reply through a pipe, reap: the per-sample floor in plain Python.

    Runs in a fresh interpreter that imports only the standard library (a
    bigger parent makes every fork dearer); programs come as JSON rows of
    (source, entry point, repr of the arguments).  Returns wall and CPU
    seconds a sample (the loop's process and its reaped children).
    """
    with open(path, encoding="utf-8") as handle:
        programs = [(source, entry, ast.literal_eval(args)) for source, entry, args in json.load(handle)]
    started, cpu = time.perf_counter(), cpu_seconds()
    for source, entry, args in programs:
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(read)
            try:
                namespace: dict[str, Any] = {}
                exec(compile(source, "<solution>", "exec"), namespace)  # noqa: S102 - trusted benchmark code
                os.write(write, repr(namespace[entry](*args))[:100].encode() or b"-")
            except BaseException:  # noqa: BLE001
                os.write(write, b"!")
            os._exit(0)
        os.close(write)
        os.read(read, 1 << 16)
        os.close(read)
        os.waitpid(pid, 0)
    count = len(programs)
    return (time.perf_counter() - started) / count, (cpu_seconds() - cpu) / count


def lean_floor(programs: list[tuple[str, str, str]], repeat: int) -> tuple[float, float]:
    """Wall and CPU seconds a sample of the lean loop, each the best of ``repeat`` fresh interpreters."""
    with tempfile.TemporaryDirectory(prefix="bench-cost-") as tmp:
        path = os.path.join(tmp, "programs.json")
        with open(path, "w", encoding="utf-8") as handle:
            json.dump(programs, handle)
        runs = [
            subprocess.run(
                [sys.executable, __file__, "--lean", path], capture_output=True, text=True, check=True
            ).stdout.split()
            for _ in range(repeat)
        ]
    return min(float(wall) for wall, _ in runs), min(float(cpu) for _, cpu in runs)


def plain_args(args: list[Any]) -> str | None:
    """The arguments as a literal the lean loop can read back, or None when repr does not round-trip."""
    text = repr(list(args))
    try:
        return text if ast.literal_eval(text) == list(args) else None
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None


def lean_programs(rows: list[tuple[str, int, str]], problems: dict[str, Any]) -> list[tuple[str, str, str]]:
    """What the lean loop runs for each (task id, index, code) row: the code, its entry point, the first input.

    Only function problems whose first input is a plain literal (the lean loop
    reads it back with ``ast.literal_eval``, to stay free of our codec).
    """
    from benchmorph.data import values

    programs = []
    for task, _index, code in rows:
        problem = problems.get(task)
        if problem is not None and problem.tests and problem.kind == "function":
            literal = plain_args(values.decode(values.encode(problem.tests[0].input)))
            if literal is not None:
                programs.append((code, problem.entry_point, literal))
    return programs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--per-task", type=int, default=10, help="samples per HumanEval task (default 10)")
    parser.add_argument("--limit-tasks", type=int, default=None, help="first N HumanEval tasks (default all)")
    parser.add_argument("--workers", type=int, default=2, help="engine workers (default 2)")
    parser.add_argument("--repeat", type=int, default=3, help="rounds of each; the best is kept (default 3)")
    parser.add_argument("--json", action="store_true", help="print the numbers as one JSON object")
    parser.add_argument(
        "--test-details",
        action="store_true",
        help="run every test of a sample (default: stop at the first failure)",
    )
    parser.add_argument("--lean", metavar="PROGRAMS", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.lean:
        print(*lean_loop(args.lean))
        return 0

    import benchmorph
    from benchmorph.execution.engine import Engine, Job

    problems, rows = build(args.per_task, args.limit_tasks)
    with tempfile.TemporaryDirectory(prefix="bench-cost-cache-") as cache:
        with Engine(workers=args.workers, cache_root=Path(cache)) as engine:
            prepared = {problem.id: problem for problem in engine.prepare(problems).problems}
            jobs = [Job(prepared[task], code, task, index) for task, index, code in rows if task in prepared]
            # Samples that hit a time limit only wait (on both sides of any comparison): left out.
            probe = engine.evaluate(jobs)
        left_out = sum(1 for v in probe if v.status == "timeout")
        jobs = [job for job, v in zip(jobs, probe, strict=True) if v.status != "timeout"]
        rounds = [
            engine_round(jobs, problems, args.workers, cache, args.test_details) for _ in range(args.repeat)
        ]
    kept = {(job.task_id, job.index) for job in jobs}
    wall = min(r[0] for r in rounds)
    cpu = min(r[1] for r in rounds)
    timeouts = max(sum(1 for v in r[2] if v.status == "timeout") for r in rounds)
    programs = lean_programs([row for row in rows if (row[0], row[1]) in kept], prepared)
    floor_wall, floor_cpu = lean_floor(programs, args.repeat)
    # The tests' own work (every deciding call, no fork): part of the engine's cost, not of the lean loop's.
    best = min(rounds, key=lambda r: r[0])[2]
    work = work_floor.measure(
        list(prepared.values()), [(job.task_id, job.index, job.code) for job in jobs], best
    )
    numbers = {
        "source": os.path.dirname(benchmorph.__file__),
        "samples": len(jobs),
        "test_details": args.test_details,
        "workers": args.workers,
        "engine_wall_s": round(wall, 3),
        "engine_wall_core_ms_per_sample": round(1000 * wall * args.workers / len(jobs), 3),
        "engine_cpu_ms_per_sample": round(1000 * cpu / len(jobs), 3),
        "left_out_timeouts": left_out,
        "timeouts": timeouts,
        "floor_wall_ms_per_sample": round(1000 * floor_wall, 3),
        "floor_cpu_ms_per_sample": round(1000 * floor_cpu, 3),
        "floor_samples": len(programs),
        "work_ms_per_sample": round(1000 * work.total / len(jobs), 3),
        "work_longest_s": round(work.longest, 3),
        "work_longest_sample": work.longest_sample,
        "load_average": round(os.getloadavg()[0], 1),
    }
    if args.json:
        print(json.dumps(numbers))
        return 0
    print(
        f"{numbers['source']}: {len(jobs)} samples (left out {left_out} that hit a time limit; {timeouts} did "
        f"in a timed round), --workers {args.workers}"
        f"{', every test' if args.test_details else ', stopping at the first failure'}, best of {args.repeat}:\n"
        f"  engine: {numbers['engine_cpu_ms_per_sample']:.2f} CPU-ms a sample; evaluate wall {wall:.2f} s = "
        f"{numbers['engine_wall_core_ms_per_sample']:.2f} core-ms a sample\n"
        f"  lean fork loop ({len(programs)} samples, one call each): {numbers['floor_cpu_ms_per_sample']:.2f} "
        f"CPU-ms a sample, {numbers['floor_wall_ms_per_sample']:.2f} ms wall\n"
        f"  of the engine's cost, the samples' own calls on the tests that decide them (no sandbox, no fork): "
        f"{numbers['work_ms_per_sample']:.2f} ms a sample; the longest sample {work.longest:.2f} s "
        f"({work.longest_sample})\n"
        f"  load average {numbers['load_average']} on {os.cpu_count()} cpus (wall times grow with it, CPU "
        "times much less)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
