#!/usr/bin/env python
"""Start-up time of the commands a user types first: `benchmorph --help` and `benchmorph morph list`.

Each command is run as a fresh process, ``--repeat`` times, and the median
wall time is printed beside two references measured in the same run, so a
noisy machine shows as noise in all three: a bare interpreter (``python -c
pass``, the floor no command can beat) and ``python -c "import typer,
rich"`` (what any typer/rich CLI pays before its first line of its own).
Goals (issue 22): ``--help`` under 0.3 s and ``morph list`` under 0.5 s on a
quiet 2-core machine.  Run from the project root:

    .venv/bin/python bench/startup.py --repeat 15
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

COMMANDS = {
    "python -c pass (the floor)": [sys.executable, "-c", "pass"],
    "import typer, rich": [sys.executable, "-c", "import typer, rich.console, rich.table"],
    "benchmorph --help": [sys.executable, "-m", "benchmorph.cli", "--help"],
    "benchmorph morph list": [sys.executable, "-m", "benchmorph.cli", "morph", "list"],
}


def wall(command: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, env={**os.environ, "COLUMNS": "120"})
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=11, help="Runs of each command (median reported).")
    args = parser.parse_args()
    for command in COMMANDS.values():  # warm the file cache
        wall(command)
    times: dict[str, list[float]] = {name: [] for name in COMMANDS}
    for _ in range(args.repeat):  # interleaved, so a burst of load hits every command alike
        for name, command in COMMANDS.items():
            times[name].append(wall(command))
    load = os.getloadavg()[0]
    print(f"median of {args.repeat} runs, load average {load:.2f} on {os.cpu_count()} cores")
    for name, values in times.items():
        print(f"  {name:32s} {statistics.median(values):6.3f} s   (min {min(values):.3f})")


if __name__ == "__main__":
    main()
