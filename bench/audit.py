#!/usr/bin/env python
"""A full audit of a benchmark on two cores, timed, beside its own floor.

No other tool audits a benchmark this way, so the comparison is with the
work no audit can skip: running the reference on every test once (the
floor: ``Engine.prepare`` with an empty reference cache, the same 2
workers).  Printed: the audit's wall time, the floor, their ratio, the time
of each check, and the load average of the machine before and after (the
machine may be shared: a load far above 2 makes every number slower).

    python bench/audit.py                           # HumanEval and MBPP+, 2 workers
    python bench/audit.py --benchmark humaneval --errata docs/errata/humaneval
    python bench/audit.py --limit 5 --mutants 2     # seconds; what the smoke test runs

``--errata DIR`` also writes errata.md and errata.jsonl there (with fixes),
which is how docs/errata/ was made.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from benchmorph.data.registry import load_benchmark
from benchmorph.execution.engine import Engine
from benchmorph.validation.audit import audit_benchmark, write_errata

ROOT = Path(__file__).resolve().parents[1]
MBPP = ROOT.parent / "shared" / "data" / "evalplus" / "MbppPlus.dev-2023-11-16.jsonl"
HUMANEVAL_PLUS = ROOT.parent / "shared" / "data" / "evalplus" / "HumanEvalPlusInputs.dev-2023-04-26.jsonl"
DATA = {"humaneval": None, "mbpp+": MBPP, "humaneval+": HUMANEVAL_PLUS}


def load() -> str:
    return " ".join(f"{value:.1f}" for value in os.getloadavg())


def bench(name: str, args: argparse.Namespace) -> None:
    problems = load_benchmark(name, DATA.get(name)).problems[: args.limit]
    with tempfile.TemporaryDirectory() as empty:
        with Engine(workers=args.workers, cache_root=Path(empty), test_details=False) as engine:
            engine.check_sandbox()
            started = time.monotonic()
            engine.prepare(problems)
            floor = time.monotonic() - started
    before = load()
    with tempfile.TemporaryDirectory() as empty:
        with Engine(workers=args.workers, cache_root=Path(empty), test_details=False) as engine:
            engine.check_sandbox()
            started = time.monotonic()
            report = audit_benchmark(problems, engine, benchmark=name, mutants=args.mutants)
            seconds = time.monotonic() - started
    after = load()
    counts = ", ".join(f"{severity} {count}" for severity, count in report.counts().items())
    print(
        f"{name}: {len(problems)} problems, {args.workers} workers, load average before {before}, after {after}"
    )
    print(
        f"  audit {seconds:.1f} s; floor (references on every test, once) {floor:.1f} s; ratio {seconds / floor:.1f}x"
    )
    print("  by step: " + ", ".join(f"{step} {value:.1f} s" for step, value in report.timings.items()))
    print(f"  findings: {counts}")
    if args.errata is not None:
        folder = args.errata if len(args.benchmark) == 1 else args.errata / name.replace("+", "-plus")
        markdown, lines = write_errata(report, folder, fixes=True)
        print(f"  errata: {markdown}, {lines}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument(
        "--benchmark", action="append", choices=sorted(DATA), help="repeatable; default humaneval, mbpp+"
    )
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--mutants", type=int, default=20)
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--errata", type=Path, default=None)
    args = parser.parse_args()
    args.benchmark = args.benchmark or ["humaneval", "mbpp+"]
    for name in args.benchmark:
        bench(name, args)


if __name__ == "__main__":
    main()
