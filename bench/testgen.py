#!/usr/bin/env python
"""Test generation, before and after, side by side; then our reduced suites against EvalPlus's.

For HumanEval (default) or MBPP+ (``--benchmark mbpp+``), with no LLM:

1. load the EvalPlus problems (``humaneval+`` from the inputs file beside its
   contracts, or MBPP+), so every suite shares one reference and one input
   contract;
2. for each ``--workers`` count, *augment* the problems holding only their base
   tests (``benchmorph.testgen.augment.augment_benchmark``, default options:
   the search stops at saturation), timed, with the load average at the start
   and the end; and the same with the code *before* the saturation stop
   (``--before REV``, default the last commit without it: its source is taken
   from git into a temporary directory and run in a child interpreter, on the
   same problems with its own defaults);
3. print the two side by side: wall time, tests per problem, mutants killed
   (what the whole candidate set kills, which the reduced suite keeps by
   construction), problems that hit the per-problem budget, and the ratio;
4. *score* the last run's suites by mutation (``benchmorph.testgen.score.score_suites``):
   every distinct mutant of each reference, against
   - the base tests,
   - our reduced suite (base + kept new tests),
   - our suite reduced by coverage alone (the reducer never saw a mutant: how
     much of the kill rate comes from the inputs rather than from reducing
     toward the very mutants that are scored),
   - EvalPlus's suite (base + plus inputs, after their contract).

Wall times depend on what else the machine runs: the load average printed with
each is there to tell a quiet run from a crowded one.  Tests per problem and
mutants killed do not depend on load (a search that hits its budget does).

    python bench/testgen.py                                  # HumanEval, 1 and 2 workers, before and after
    python bench/testgen.py --benchmark mbpp+
    python bench/testgen.py --workers 2 --before-every 4     # the old code on every 4th problem only
    python bench/testgen.py --before none --limit 3 --per-problem 40   # seconds; what the smoke test runs
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

from benchmorph.data.models import Problem
from benchmorph.data.registry import load_benchmark
from benchmorph.execution import Engine
from benchmorph.testgen.augment import (
    AugmentOptions,
    AugmentResult,
    augment_benchmark,
    reduce_suite,
    summarize,
)
from benchmorph.testgen.kills import mutant_kills
from benchmorph.testgen.score import SuiteScore, mutant_set, restrict_to_origins, score_suites

# proc_cpu sits beside this script.
sys.path.insert(0, str(Path(__file__).resolve().parent))

from proc_cpu import CpuMeter  # noqa: E402 - found through the line above

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "evalplus"
FILES = {
    "humaneval": ("humaneval+", DATA / "HumanEvalPlusInputs.dev-2023-04-26.jsonl", "HumanEval+"),
    "mbpp+": ("mbpp+", DATA / "MbppPlus.dev-2023-11-16.jsonl", "MBPP+"),
}
# main before issue 28 (e9ea331): its search stops only at --per-problem, --budget-s or the suite time.
BEFORE_REV = "e9ea331"

# Run in a child interpreter on the old source tree: augment with its defaults, print the figures as JSON.
BEFORE_RUNNER = r"""
import json, sys, tempfile, time
from pathlib import Path
from benchmorph.data.registry import load_benchmark
from benchmorph.execution import Engine
from benchmorph.testgen.augment import AugmentOptions, augment_benchmark
from benchmorph.testgen.score import restrict_to_origins

name, path, limit, every, workers, per_problem, budget_s, seed, bench, suites = json.loads(sys.argv[1])
sys.path.insert(0, bench)
from proc_cpu import CpuMeter
problems = load_benchmark(name, Path(path)).problems[:limit][::every]
base = restrict_to_origins(problems, ["base"])
options = AugmentOptions(per_problem=per_problem, budget_s=budget_s, seed=seed)
with tempfile.TemporaryDirectory() as cache, Engine(workers=workers, cache_root=Path(cache)) as engine:
    load_start = open("/proc/loadavg").read().split()[:3]
    started = time.monotonic()
    with CpuMeter() as meter:
        results = augment_benchmark(base, engine, options)
    seconds = time.monotonic() - started
    load_end = open("/proc/loadavg").read().split()[:3]
if suites:
    with open(suites, "w", encoding="utf-8") as handle:
        handle.writelines(json.dumps(r.problem.to_json()) + "\n" for r in results)
print(json.dumps({"seconds": seconds, "load": [load_start, load_end], "cpu": [meter.host, meter.sandbox], "results": [
    {"id": r.id, "tests": len(r.problem.tests), "killed": r.killed or 0, "mutants": r.mutants or 0,
     "stopped": r.stopped, "found": r.found, "seconds": r.seconds} for r in results]}))
"""


def loadavg() -> list[str]:
    try:
        return Path("/proc/loadavg").read_text().split()[:3]
    except OSError:
        return ["?", "?", "?"]


def figures(
    rows: list[dict[str, Any]], seconds: float, load: list[list[str]], cpu: list[float | None], **extra: Any
) -> dict[str, Any]:
    """One run's comparable numbers from its per-problem rows."""
    n = len(rows)
    stopped: dict[str, int] = {}
    for row in rows:
        stopped[row["stopped"]] = stopped.get(row["stopped"], 0) + 1
    return {
        "problems": n,
        "seconds": seconds,
        "load": load,
        "host_cpu": cpu[0],
        "sandbox_cpu": cpu[1],
        "tests_per_problem": sum(row["tests"] for row in rows) / n if n else 0.0,
        "killed": sum(row["killed"] for row in rows),
        "mutants": sum(row["mutants"] for row in rows),
        "budget": stopped.get("budget", 0),
        "stopped": dict(sorted(stopped.items())),
        "found": sum(row["found"] for row in rows),
        **extra,
        "per_problem": rows,
    }


def rows_of(results: list[AugmentResult]) -> list[dict[str, Any]]:
    return [
        {
            "id": r.id,
            "tests": len(r.problem.tests),
            "killed": r.killed or 0,
            "mutants": r.mutants or 0,
            "stopped": r.stopped,
            "found": r.found,
            "seconds": r.seconds,
            "merged": r.merged,
            "merge_tried": r.merge_tried,
            "merge_cpu_s": r.merge_cpu_s,
        }
        for r in results
    ]


def run_after(
    base: list[Problem], workers: int, options: AugmentOptions
) -> tuple[dict[str, Any], list[AugmentResult]]:
    with tempfile.TemporaryDirectory(prefix="bench-testgen-") as cache:
        with Engine(workers=workers, cache_root=Path(cache)) as engine:
            start = loadavg()
            started = time.monotonic()
            with CpuMeter() as meter:  # closed while the engine's workers are still alive
                results = augment_benchmark(base, engine, options)
            seconds = time.monotonic() - started
            end = loadavg()
    cpu = [meter.host, meter.sandbox]
    return figures(rows_of(results), seconds, [start, end], cpu, version="after", workers=workers), results


def run_before(
    rev: str, source: Path, args: argparse.Namespace, data: Path, workers: int, total: int
) -> dict[str, Any]:
    name = FILES[args.benchmark][0]
    payload = [name, str(data), args.limit, args.before_every, workers, args.before_per_problem,
               args.before_budget_s, args.seed, str(Path(__file__).resolve().parent),
               str(suites_file(args, "before", workers)) if args.suites else None]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(source / "src")}
    done = subprocess.run(
        [sys.executable, "-c", BEFORE_RUNNER, json.dumps(payload)],
        capture_output=True, text=True, env=env, cwd=source,
    )  # fmt: skip
    if done.returncode != 0:
        raise SystemExit(f"the code at {rev} failed:\n{done.stderr[-3000:]}")
    made = json.loads(done.stdout.strip().splitlines()[-1])
    sampled = len(made["results"])
    result = figures(
        made["results"],
        made["seconds"],
        made["load"],
        made["cpu"],
        version=f"before ({rev})",
        workers=workers,
    )
    result["sampled"] = sampled
    if sampled < total:
        result["extrapolated_seconds"] = made["seconds"] * total / sampled
    return result


def suites_file(args: argparse.Namespace, version: str, workers: int) -> Path:
    """Where ``--suites DIR`` keeps one run's reduced suites (JSONL, one problem a line)."""
    return Path(args.suites) / f"{args.benchmark}-{version}-w{workers}.jsonl"


def read_suites(path: Path) -> dict[str, Problem]:
    from benchmorph.data.formats.native import parse_record

    lines = path.read_text(encoding="utf-8").splitlines()
    problems = [parse_record(json.loads(line), path=path, line=n) for n, line in enumerate(lines, 1) if line]
    return {problem.id: problem for problem in problems}


def kill_sets(suites: dict[str, Problem], engine: Engine, seed: int) -> dict[str, set[int]]:
    """Per problem, the numbers of its mutants (``mutant_set``, all of them) its suite kills."""
    ids = sorted(suites)
    found = [mutant_set(suites[pid], None, seed) for pid in ids]
    kills = mutant_kills([suites[pid] for pid in ids], found, engine, first_failure=True)
    return {
        pid: {number for number, mutant in enumerate(row) if mutant.killed}
        for pid, row in zip(ids, kills, strict=True)
    }


def compare(before_path: Path, after_path: Path, workers: int, seed: int) -> dict[str, Any]:
    """The mutants one set of reduced suites kills and the other does not, per problem, judged alike.

    Both are judged by this code's engine (to each mutant's first failure), so
    a difference is the suites', not the judging's.
    """
    before, after = read_suites(before_path), read_suites(after_path)
    common = {pid: before[pid] for pid in before if pid in after}
    with tempfile.TemporaryDirectory(prefix="bench-testgen-") as cache:
        with Engine(workers=workers, cache_root=Path(cache)) as engine:
            killed_before = kill_sets(common, engine, seed)
            killed_after = kill_sets({pid: after[pid] for pid in common}, engine, seed)
    rows = []
    for pid in sorted(common, key=lambda name: (len(name), name)):
        only_before = sorted(killed_before[pid] - killed_after[pid])
        only_after = sorted(killed_after[pid] - killed_before[pid])
        if only_before or only_after:
            mutants = mutant_set(common[pid], None, seed)
            rows.append(
                {
                    "id": pid,
                    "only_before": only_before,
                    "only_after": only_after,
                    "operators_only_before": [mutants[n].operator for n in only_before],
                    "tests": [len(before[pid].tests), len(after[pid].tests)],
                }
            )
    totals = [sum(map(len, killed_before.values())), sum(map(len, killed_after.values()))]
    print(f"{len(common)} problems; killed: before {totals[0]}, after {totals[1]}")
    for row in rows:
        print(
            f"{row['id']}: before only {row['only_before']} ({', '.join(row['operators_only_before'])}); "
            f"after only {row['only_after']}; tests {row['tests'][0]} vs {row['tests'][1]}"
        )
    return {"problems": len(common), "killed": totals, "differences": rows}


def checkout(rev: str, into: Path) -> Path:
    """The source tree of ``rev`` (src/ only), from this repository's git history."""
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", rev, "src"], capture_output=True, check=False
    )
    if archive.returncode != 0:
        raise SystemExit(f"--before {rev}: git archive failed: {archive.stderr.decode()[-500:]}")
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True)
    return into


def side_by_side(runs: list[dict[str, Any]]) -> str:
    lines = [
        "| code | workers | problems | augment wall (s) | load avg 1/5/15 min, start -> end | CPU s host + sandbox "
        "| tests/problem | mutants killed | hit the budget | stopped by |",
        "| --- | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | --- |",
    ]
    for run in runs:
        wall = f"{run['seconds']:.0f}"
        if "extrapolated_seconds" in run:
            wall += f" on {run['sampled']} (~{run['extrapolated_seconds']:.0f} for all)"
        start, end = run["load"]
        host, sandbox = run["host_cpu"], run["sandbox_cpu"]
        cpu = f"{host:.0f} + {sandbox:.0f}" if host is not None and sandbox is not None else "-"
        lines.append(
            f"| {run['version']} | {run['workers']} | {run['problems']} | {wall} | {'/'.join(start)} -> "
            f"{'/'.join(end)} | {cpu} | {run['tests_per_problem']:.2f} | {run['killed']}/{run['mutants']} | "
            f"{run['budget']} | {', '.join(f'{k} {v}' for k, v in run['stopped'].items())} |"
        )
    for workers in sorted({run["workers"] for run in runs}):
        pair = {run["version"].split()[0]: run for run in runs if run["workers"] == workers}
        if "before" in pair and "after" in pair:
            before = pair["before"].get("extrapolated_seconds", pair["before"]["seconds"])
            lines.append(
                f"\n{workers} worker(s): the search with a saturation stop takes {pair['after']['seconds']:.0f} s "
                f"against {before:.0f} s before ({before / max(pair['after']['seconds'], 1e-9):.1f}x faster)"
            )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--benchmark", choices=sorted(FILES), default="humaneval")
    parser.add_argument("--data", type=Path, help="EvalPlus data file (default: ../shared/data/evalplus)")
    parser.add_argument("--limit", type=int, help="only the first N problems")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2], help="worker counts to run (1 2)")
    parser.add_argument("--per-problem", type=int, default=AugmentOptions.per_problem)
    parser.add_argument("--budget-s", type=float, default=AugmentOptions.budget_s)
    parser.add_argument("--saturation", type=int, default=AugmentOptions.saturation)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--before", default=BEFORE_REV, help=f"git revision of the old code ({BEFORE_REV}), or none"
    )
    parser.add_argument(
        "--before-every", type=int, default=1, help="run the old code on every Kth problem only"
    )
    parser.add_argument("--before-per-problem", type=int, default=1000, help="the old code's --per-problem")
    parser.add_argument("--before-budget-s", type=float, default=20.0, help="the old code's --budget-s")
    parser.add_argument("--no-score", action="store_true", help="skip the mutation scores of the suites")
    parser.add_argument("--json", type=Path, help="write the numbers here")
    parser.add_argument("--suites", type=Path, help="keep each run's reduced suites in this folder (JSONL)")
    parser.add_argument(
        "--compare",
        type=Path,
        nargs=2,
        metavar=("BEFORE", "AFTER"),
        help="only compare two kept suites files: the mutants each kills and the other does not",
    )
    args = parser.parse_args(argv)
    if args.compare:
        differences = compare(*args.compare, workers=max(args.workers), seed=args.seed)
        if args.json:
            args.json.write_text(json.dumps(differences, indent=2) + "\n", encoding="utf-8")
        return 0
    if args.suites:
        args.suites.mkdir(parents=True, exist_ok=True)

    name, default_path, plus_name = FILES[args.benchmark]
    data = args.data or default_path
    problems = load_benchmark(name, data).problems[: args.limit]
    base = restrict_to_origins(problems, ["base"])
    options = AugmentOptions(
        per_problem=args.per_problem, budget_s=args.budget_s, seed=args.seed, saturation=args.saturation
    )
    n = len(problems)
    print(f"{args.benchmark}: {n} problems, no LLM (mutation from the base inputs), {os.cpu_count()} cores")

    runs: list[dict[str, Any]] = []
    results: list[AugmentResult] = []
    with tempfile.TemporaryDirectory(prefix="bench-testgen-before-") as tmp:
        source = checkout(args.before, Path(tmp)) if args.before != "none" else None
        for workers in args.workers:
            if source is not None:
                runs.append(run_before(args.before, source, args, data, workers, n))
                print(side_by_side(runs[-1:]).splitlines()[-1], flush=True)
            after, results = run_after(base, workers, options)
            runs.append(after)
            if args.suites:
                with suites_file(args, "after", workers).open("w", encoding="utf-8") as handle:
                    handle.writelines(json.dumps(r.problem.to_json()) + "\n" for r in results)
            print(side_by_side(runs[-1:]).splitlines()[-1], flush=True)
    print()
    print(f"saturation window {options.saturation}; budget {options.budget_s:g} s a problem (both versions)")
    print(side_by_side(runs))
    summary = summarize(results)
    print(
        f"\nlast run: {summary.tried} candidates judged, {summary.screened} dropped on the host before the "
        f"sandbox, {summary.found} valid, {summary.kept} new tests kept; rejected: "
        f"{', '.join(f'{k} {v}' for k, v in summary.rejected.items()) or 'none'}"
    )
    merged = [f"{r.id} {r.merged}" for r in results if r.merged]
    print(
        f"consolidation: {summary.merged} new tests saved, "
        f"{sum(r.merge_tried for r in results)} candidates proposed, "
        f"{sum(r.merge_cpu_s for r in results):.1f} CPU s ({', '.join(merged) or 'none'})"
    )

    payload: dict[str, Any] = {"benchmark": args.benchmark, "problems": n, "runs": runs}
    if not args.no_score:
        with tempfile.TemporaryDirectory(prefix="bench-testgen-") as cache:
            with Engine(workers=max(args.workers), cache_root=Path(cache)) as engine:
                ours = [result.problem for result in results]
                coverage_only = [
                    reduce_suite(result.unreduced, engine, required=result.base_tests, mutants=0).problem
                    if result.unreduced is not None
                    else result.problem
                    for result in results
                ]
                unreduced_tests = sum(
                    len(r.unreduced.tests if r.unreduced else r.problem.tests) for r in results
                )
                suites = {
                    f"{plus_name} base tests": base,
                    "ours, reduced (coverage + mutants)": ours,
                    "ours, reduced by coverage only": coverage_only,
                    f"{plus_name} (base + plus inputs)": problems,
                }
                started = time.monotonic()
                scores = score_suites(problems, suites, engine, seed=args.seed)
                score_s = time.monotonic() - started
        print(f"\nscoring the last run's suites: {score_s:.0f} s wall\n")
        print(table(scores, unreduced=(unreduced_tests / n, summary.killed, summary.mutants)))
        ours_score, plus_score = scores[1], scores[3]
        goal = (
            ours_score.killed >= plus_score.killed
            and ours_score.tests_per_problem < plus_score.tests_per_problem
        )
        print(
            f"\ngoal (ours kills >= {plus_name}'s mutants with fewer tests/problem): {'met' if goal else 'NOT met'} "
            f"({ours_score.killed} vs {plus_score.killed} killed, {ours_score.tests_per_problem:.1f} vs "
            f"{plus_score.tests_per_problem:.1f} tests/problem)"
        )
        print(
            "Equivalent mutants cannot be told apart automatically: the scores are lower bounds, "
            "comparable only with each other."
        )
        payload.update(
            score_s=score_s,
            summary=summary.__dict__,
            unreduced_tests=unreduced_tests,
            suites=[row(score) for score in scores],
            goal_met=goal,
        )
    if args.json:
        args.json.write_text(json.dumps(payload, indent=2, default=str) + "\n", encoding="utf-8")
    return 0


def row(score: SuiteScore) -> dict[str, Any]:
    return {
        "suite": score.name,
        "problems": score.problems,
        "tests": score.tests,
        "tests_per_problem": round(score.tests_per_problem, 1),
        "mutants": score.mutants,
        "killed": score.killed,
        "score": round(score.score, 4),
        "run_s": round(score.seconds, 2),
        "dropped": score.dropped,
    }


def table(scores: list[SuiteScore], unreduced: tuple[float, int, int]) -> str:
    """The scores as a Markdown table, with our suite before reduction (what the whole candidate set kills)."""
    lines = [
        "| suite | tests/problem | mutants killed | score | suite run time (s) |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for score in scores:
        lines.append(
            f"| {score.name} | {score.tests_per_problem:.1f} | {score.killed}/{score.mutants} | "
            f"{100 * score.score:.1f}% | {score.seconds:.2f} |"
        )
        if score is scores[0]:
            per, killed, total = unreduced
            share = 100 * killed / total if total else 0.0
            lines.append(f"| ours, before reduction | {per:.1f} | {killed}/{total} | {share:.1f}% | - |")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
