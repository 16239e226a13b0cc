"""Fixtures shared by several test files: the demo, run once per session (it takes a couple of minutes)."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from cli_runner import run_cli


@dataclass
class DemoRun:
    out: Path
    result: subprocess.CompletedProcess[str]


@pytest.fixture(scope="session")
def demo_run(tmp_path_factory: pytest.TempPathFactory) -> DemoRun:
    root = tmp_path_factory.mktemp("demo")
    result = run_cli("demo", "--out", str(root / "demo"), cache=root / "cache", cwd=root)
    assert result.returncode == 0, result.stderr
    return DemoRun(root / "demo", result)
