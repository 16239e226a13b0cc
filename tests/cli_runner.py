"""Run `benchmorph` as a user would: a real subprocess with its own cache directory."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def run_cli(
    *args: str, cache: Path, cwd: Path | None = None, timeout: float = 900, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``env`` adds to (or, with an empty value, blanks) the variables the test process has."""
    env = {**os.environ, "BENCHMORPH_CACHE": str(cache), "COLUMNS": "200", **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "benchmorph.cli", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=timeout,
    )


def start_cli(*args: str, cache: Path, cwd: Path | None = None) -> subprocess.Popen[bytes]:
    """Started, not awaited: for tests that interrupt a run."""
    env = {**os.environ, "BENCHMORPH_CACHE": str(cache), "COLUMNS": "200"}
    command = [sys.executable, "-m", "benchmorph.cli", *args]
    return subprocess.Popen(command, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
