#!/usr/bin/env python
"""Choosing the saturation window from data: replay a clock-bound search and stop it at every window.

A search without a saturation stop (``AugmentOptions(saturation=None)``: it
runs to ``--per-problem`` valid inputs, ``--budget-s`` seconds or
``suite_time_s``) records, per problem and in the order the inputs were found,
what each valid input achieves: the reference's lines and arcs, and the mutants
it kills.  Replaying that record with a window of N stops each problem at the
first run of N valid inputs that added nothing; what the stopped search still
achieves (mutants killed, lines and arcs covered), how many valid inputs it
had to measure (the cost), and how many tests the greedy reduction then keeps
are exact, for every N, from one recorded run.

    python bench/saturation.py --record he.json                  # HumanEval+, records a clock-bound search
    python bench/saturation.py --benchmark mbpp+ --record mbpp.json
    python bench/saturation.py --replay he.json mbpp.json         # the table, per file
    python bench/saturation.py --limit 3 --record /tmp/s.json --replay /tmp/s.json   # seconds

The record is JSON: ``{"records": {id: {"required": base tests, "cov": [[item, ...] per test],
"killers": [[test index, ...] per mutant]}}}``; a mutant's killers are every test known to kill it
(in a run of this code: the first test that killed it).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Hashable, Sequence
from pathlib import Path
from typing import Any

from benchmorph.testgen.reduce import greedy_cover

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "evalplus"
FILES = {
    "humaneval": ("humaneval+", DATA / "HumanEvalPlusInputs.dev-2023-04-26.jsonl"),
    "mbpp+": ("mbpp+", DATA / "MbppPlus.dev-2023-11-16.jsonl"),
}
WINDOWS = (5, 10, 20, 30, 50, 75, 100, 150, 200, 300, 500)


def record(
    benchmark: str, data: Path | None, limit: int | None, workers: int, budget_s: float
) -> dict[str, Any]:
    """A clock-bound search over the benchmark's base tests, with what each valid input achieved."""
    from benchmorph.data.registry import load_benchmark
    from benchmorph.execution import Engine
    from benchmorph.testgen.augment import AugmentOptions, augment_benchmark
    from benchmorph.testgen.score import restrict_to_origins

    name, default = FILES[benchmark]
    problems = restrict_to_origins(load_benchmark(name, data or default).problems[:limit], ["base"])
    options = AugmentOptions(saturation=None, budget_s=budget_s)
    with tempfile.TemporaryDirectory() as cache, Engine(workers=workers, cache_root=Path(cache)) as engine:
        started = time.monotonic()
        results = augment_benchmark(problems, engine, options)
        seconds = time.monotonic() - started
    records = {}
    for result in results:
        novelty = result.novelty
        if novelty is None:
            continue
        cov = [
            sorted((list(item) for item in items if item[0] != "mutant"), key=str) for items in novelty.items
        ]
        killers: dict[int, list[int]] = {}
        for index, items in enumerate(novelty.items):
            for item in items:
                if item[0] == "mutant":
                    killers.setdefault(item[1], []).append(index)
        records[result.id] = {
            "required": novelty.base,
            "cov": cov,
            "killers": [killers.get(number, []) for number in range(result.mutants or 0)],
        }
    return {"benchmark": benchmark, "options": options.identity(), "seconds": seconds, "records": records}


def items_of(entry: dict[str, Any]) -> list[frozenset[Hashable]]:
    items: list[set[Hashable]] = [{tuple(item) for item in cov} for cov in entry["cov"]]
    for number, killers in enumerate(entry["killers"]):
        for index in killers:
            items[index].add(("mutant", number))
    return [frozenset(found) for found in items]


def stop_at(items: Sequence[frozenset[Hashable]], required: int, window: int | None) -> int:
    """How many tests the search with this window had measured when it stopped (all: it never stopped)."""
    achieved: set[Hashable] = set().union(*items[:required]) if required else set()
    since = 0
    for index in range(required, len(items)):
        novel = not items[index] <= achieved
        achieved |= items[index]
        since = 0 if novel else since + 1
        if window is not None and since >= window:
            return index + 1
    return len(items)


def replay(entries: dict[str, dict[str, Any]], windows: Sequence[int | None]) -> list[dict[str, Any]]:
    rows = []
    prepared = {task: (items_of(entry), entry["required"]) for task, entry in entries.items()}
    for window in windows:
        killed = covered = measured = tests = stopped = 0
        for items, required in prepared.values():
            end = stop_at(items, required, window)
            stopped += end < len(items)
            kept = items[:end]
            union: set[Hashable] = set().union(*kept) if kept else set()
            killed += sum(1 for item in union if item[0] == "mutant")
            covered += sum(1 for item in union if item[0] != "mutant")
            measured += end - required
            tests += len(greedy_cover(kept, required=range(required)))
        rows.append(
            {
                "window": window,
                "killed": killed,
                "covered": covered,
                "measured": measured,
                "tests_per_problem": tests / len(prepared) if prepared else 0.0,
                "stopped": stopped,
            }
        )
    return rows


def table(name: str, entries: dict[str, dict[str, Any]], rows: list[dict[str, Any]]) -> str:
    mutants = sum(len(entry["killers"]) for entry in entries.values())
    full = rows[-1]
    lines = [
        f"{name}: {len(entries)} problems, {mutants} mutants; the last row is the whole recorded search",
        "| window | mutants killed | lost | lines+arcs | lost | valid inputs measured | tests/problem | "
        "problems stopped early |",
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for row in rows:
        lines.append(
            f"| {row['window'] if row['window'] is not None else 'none'} | {row['killed']} | "
            f"{full['killed'] - row['killed']} | {row['covered']} | {full['covered'] - row['covered']} | "
            f"{row['measured']} | {row['tests_per_problem']:.2f} | {row['stopped']} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--benchmark", choices=sorted(FILES), default="humaneval")
    parser.add_argument("--data", type=Path)
    parser.add_argument("--limit", type=int)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--budget-s", type=float, default=20.0)
    parser.add_argument("--record", type=Path, help="run a clock-bound search and write its record here")
    parser.add_argument("--replay", type=Path, nargs="*", default=[], help="records to replay")
    args = parser.parse_args(argv)
    if args.record is None and not args.replay:
        parser.error("give --record FILE, --replay FILE..., or both")
    if args.record is not None:
        made = record(args.benchmark, args.data, args.limit, args.workers, args.budget_s)
        args.record.write_text(json.dumps(made), encoding="utf-8")
        print(f"recorded {len(made['records'])} problems in {made['seconds']:.0f} s: {args.record}")
    for path in args.replay:
        entries = json.loads(path.read_text(encoding="utf-8"))["records"]
        print(table(str(path), entries, replay(entries, [*WINDOWS, None])))
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
