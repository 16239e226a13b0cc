#!/usr/bin/env python
"""Test generation against EvalPlus: our reduced suites next to the base tests and the plus inputs.

For HumanEval (default) or MBPP+ (``--benchmark mbpp+``), with no LLM:

1. load the EvalPlus problems (``humaneval+`` from the inputs file beside its
   contracts, or MBPP+), so every suite shares one reference and one input
   contract;
2. *augment* the problems holding only their base tests: type-aware mutation
   from the base inputs, validity in the sandbox, reduction by coverage and
   mutant kills (``benchmorph.testgen.augment.augment_benchmark``), timed;
3. *score* by mutation (``benchmorph.testgen.score.score_suites``):
   every distinct mutant of each reference, against
   - the base tests,
   - our reduced suite (base + kept new tests),
   - our suite reduced by coverage alone (the reducer never saw a mutant: how
     much of the kill rate comes from the inputs rather than from reducing
     toward the very mutants that are scored),
   - EvalPlus's suite (base + plus inputs, after their contract).

The reduction keeps, for every scored mutant some candidate kills, a test that
kills it, so "ours, reduced" kills exactly what all our candidates kill ("ours,
before reduction", read from the reduction's own kill matrix): the mutants
steer which inputs are *kept*, never which inputs are *found*.  The
coverage-only row shows what a reduction that never saw a mutant keeps.

    python bench/testgen.py                       # HumanEval, all 164 problems, 2 workers
    python bench/testgen.py --benchmark mbpp+     # MBPP+
    python bench/testgen.py --limit 3 --per-problem 50    # seconds; what the smoke test runs
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmorph.data.registry import load_benchmark
from benchmorph.execution import Engine
from benchmorph.testgen.augment import AugmentOptions, augment_benchmark, reduce_suite, summarize
from benchmorph.testgen.score import SuiteScore, restrict_to_origins, score_suites

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "evalplus"
FILES = {
    "humaneval": ("humaneval+", DATA / "HumanEvalPlusInputs.dev-2023-04-26.jsonl", "HumanEval+"),
    "mbpp+": ("mbpp+", DATA / "MbppPlus.dev-2023-11-16.jsonl", "MBPP+"),
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--benchmark", choices=sorted(FILES), default="humaneval")
    parser.add_argument("--data", type=Path, help="EvalPlus data file (default: ../shared/data/evalplus)")
    parser.add_argument("--limit", type=int, help="only the first N problems")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--per-problem", type=int, default=AugmentOptions.per_problem)
    parser.add_argument("--budget-s", type=float, default=AugmentOptions.budget_s)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path, help="write the numbers here")
    args = parser.parse_args(argv)

    name, default_path, plus_name = FILES[args.benchmark]
    problems = load_benchmark(name, args.data or default_path).problems[: args.limit]
    base = restrict_to_origins(problems, ["base"])
    options = AugmentOptions(per_problem=args.per_problem, budget_s=args.budget_s, seed=args.seed)

    with (
        tempfile.TemporaryDirectory(prefix="bench-testgen-") as cache,
        Engine(workers=args.workers, cache_root=Path(cache)) as engine,
    ):
        started = time.monotonic()
        results = augment_benchmark(base, engine, options)
        augment_s = time.monotonic() - started
        summary = summarize(results)
        ours = [result.problem for result in results]
        coverage_only = [
            reduce_suite(result.unreduced, engine, required=result.base_tests, mutants=0).problem
            if result.unreduced is not None
            else result.problem
            for result in results
        ]
        unreduced_tests = sum(len(r.unreduced.tests if r.unreduced else r.problem.tests) for r in results)
        suites = {
            f"{plus_name} base tests": base,
            "ours, reduced (coverage + mutants)": ours,
            "ours, reduced by coverage only": coverage_only,
            f"{plus_name} (base + plus inputs)": problems,
        }
        started = time.monotonic()
        scores = score_suites(problems, suites, engine, seed=args.seed)
        score_s = time.monotonic() - started

    n = len(problems)
    print(f"{args.benchmark}: {n} problems, {args.workers} workers, no LLM (mutation from the base inputs)")
    print(
        f"augmentation: {augment_s:.0f} s wall; {summary.tried} candidates run, {summary.found} valid "
        f"({unreduced_tests / n:.1f} tests/problem before reduction), {summary.kept} new tests kept; "
        f"stopped by {', '.join(f'{k} {v}' for k, v in summary.stopped.items())}"
    )
    print(f"rejected: {', '.join(f'{k} {v}' for k, v in summary.rejected.items()) or 'none'}")
    print(f"scoring: {score_s:.0f} s wall")
    print()
    print(table(scores, unreduced=(unreduced_tests / n, summary.killed, summary.mutants)))
    print()
    ours_score, plus_score = scores[1], scores[3]
    goal = (
        ours_score.killed >= plus_score.killed and ours_score.tests_per_problem < plus_score.tests_per_problem
    )
    print(
        f"goal (ours kills >= {plus_name}'s mutants with fewer tests/problem): {'met' if goal else 'NOT met'} "
        f"({ours_score.killed} vs {plus_score.killed} killed, {ours_score.tests_per_problem:.1f} vs "
        f"{plus_score.tests_per_problem:.1f} tests/problem)"
    )
    print(
        "Equivalent mutants cannot be told apart automatically: the scores are lower bounds, "
        "comparable only with each other."
    )
    if args.json:
        payload: dict[str, Any] = {
            "benchmark": args.benchmark,
            "problems": n,
            "workers": args.workers,
            "augment_s": augment_s,
            "score_s": score_s,
            "summary": summary.__dict__,
            "unreduced_tests": unreduced_tests,
            "suites": [row(score) for score in scores],
            "goal_met": goal,
        }
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
    """The scores as a Markdown table, with our suite before reduction (from the reduction's kill matrix)."""
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
