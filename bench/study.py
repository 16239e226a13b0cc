#!/usr/bin/env python
"""Time and memory of the README's offline demo study, cold (fresh cache) and warm (the same study again).

The demo's study (``benchmorph.evaluation.study.demo.demo_config``) is ``benchmorph study humaneval
--model 'local?threads=1' --tasks DEMO_TASKS --variants 2 --max-tokens 64``: the embedded model and the three
baselines on a slice of HumanEval, every family that builds offline.  ``--demo`` times ``benchmorph demo`` itself
(the sandbox tour, then that study).  Each run is a fresh process with its own ``$BENCHMORPH_CACHE``
(a temporary directory, so "cold" means cold: no variant set, answer, reference time or verdict from
earlier work); its peak memory is the child's maximum resident set size (``wait4``).  The cold run's
time is split by the stages in its ``study.log``, so the part that is the model answering (the floor:
no harness makes a model answer faster) shows beside the harness's own part.  Run from the project
root:

    .venv/bin/python bench/study.py --demo             # what the README's first command runs
    .venv/bin/python bench/study.py                    # the demo's study alone
    .venv/bin/python bench/study.py --limit 5 --model 'local?threads=1'
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from datetime import datetime
from pathlib import Path


def run(args: list[str], cache: Path) -> tuple[float, float, float, int, str]:
    """(wall s, CPU s of the process and the children it waited for, peak RSS MB, exit code, output tail)."""
    env = {**os.environ, "BENCHMORPH_CACHE": str(cache), "COLUMNS": "120"}
    with tempfile.TemporaryFile() as output:
        started = time.perf_counter()
        process = subprocess.Popen(
            [sys.executable, "-m", "benchmorph.cli", *args], env=env, stdout=output, stderr=subprocess.STDOUT
        )
        _, status, usage = os.wait4(process.pid, 0)  # this child's own resource usage
        wall = time.perf_counter() - started
        process.returncode = os.waitstatus_to_exitcode(status)
        output.seek(0)
        tail = output.read().decode(errors="replace")[-1500:]
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, process.returncode, tail


def stages(log: Path, began: datetime) -> dict[str, float]:
    """Seconds per kind of stage (build, generate, evaluate, report...) from a study.log; ``start``: from
    the process's start to the study's first stage (the demo's sandbox tour, or start-up)."""
    rows = [line.split(" ", 2) for line in log.read_text().splitlines()]
    spent: dict[str, float] = defaultdict(float)
    first = datetime.combine(began.date(), datetime.strptime(rows[0][0], "%H:%M:%S").time())
    spent["start" + (" and the sandbox tour" if (log.parent / "broken").exists() else "")] = max(
        0.0, (first - began.replace(microsecond=0)).total_seconds()
    )
    for (at, _, stage), (after, _, _) in zip(rows, rows[1:], strict=False):
        seconds = (datetime.strptime(after, "%H:%M:%S") - datetime.strptime(at, "%H:%M:%S")).seconds
        kind = stage.split(" ")[0].rstrip(":")
        kind = {"run": "run (bookkeeping)", "references": "evaluate"}.get(kind, kind)
        if stage.startswith(("evolve", "metamorphic", "mine", "augment")):
            kind = "build"
        spent[kind] += seconds
    return dict(spent)


def main() -> None:
    from benchmorph.evaluation.study.demo import DEMO_MAX_TOKENS, DEMO_MODEL, DEMO_TASKS, DEMO_VARIANTS

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--demo", action="store_true", help="Time `benchmorph demo` (tour + study).")
    parser.add_argument("--limit", type=int, help="The first N problems instead of the demo's slice.")
    parser.add_argument("--tasks", default=",".join(DEMO_TASKS))
    parser.add_argument("--variants", type=int, default=DEMO_VARIANTS)
    parser.add_argument("--model", default=DEMO_MODEL)
    parser.add_argument("--max-tokens", type=int, default=DEMO_MAX_TOKENS)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--keep", type=Path, help="Keep the study directory here.")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="bench-study-"))
    out = args.keep or root / "study"
    if args.demo:
        command = ["demo", "--workers", str(args.workers), "--out", str(out)]
    else:
        slice_ = ["--limit", str(args.limit)] if args.limit else ["--tasks", args.tasks]
        command = [
            "study", "humaneval", "--model", args.model, *slice_, "--variants", str(args.variants),
            "--max-tokens", str(args.max_tokens), "--workers", str(args.workers), "--out", str(out),
        ]  # fmt: skip
    load = os.getloadavg()[0]
    print(f"benchmorph {' '.join(command)}")
    print(f"{os.cpu_count()} cores, load average {load:.1f} at the start")
    began = datetime.now()
    cold = run(command, root / "cache")
    if cold[3] != 0:
        sys.exit(f"the study failed:\n{cold[4]}")
    session = json.loads((out / "session.json").read_text())
    spent = stages(out / "study.log", began)
    warm = run(command, root / "cache")
    again = json.loads((out / "session.json").read_text())
    print(
        f"cold: {cold[0]:.0f} s wall, {cold[1]:.0f} s CPU, peak {cold[2]:.0f} MB; "
        f"{session['llm_requests']} answers, {session['verdicts_judged']} verdicts judged, "
        f"{session['sets_built']} variant sets built"
    )
    print(
        f"warm: {warm[0]:.0f} s wall, {warm[1]:.0f} s CPU, peak {warm[2]:.0f} MB; "
        f"{again['llm_requests']} answers, {again['verdicts_judged']} verdicts judged, "
        f"{again['sets_reused']} variant sets reused"
    )
    model = spent.get("generate", 0.0)
    print(f"cold run by stage (study.log, whole seconds): {json.dumps(spent)}")
    print(
        f"the model answering (the floor of any harness): {model:.0f} s of {cold[0]:.0f} s; "
        f"the harness's own: {cold[0] - model:.0f} s"
    )
    print(f"load average {os.getloadavg()[0]:.1f} at the end; study: {out}")


if __name__ == "__main__":
    main()
