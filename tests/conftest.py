"""Fixtures shared by the test folders: the shared data, the sandbox engine, and the demo (run once per session).

tests/ itself is on sys.path (pytest puts this file's folder there), so every test module imports the
helpers beside this file (cli_runner, paths, loopback_openai, ...) by their bare names, wherever it sits.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from cli_runner import run_cli
from paths import SHARED_FILES, SharedData, require_shared


@pytest.fixture(scope="session")
def shared_data() -> SharedData:
    """../shared/data's MBPP+ and HumanEval+ files; a failure naming a missing one, not a skip.

    ``BENCHMORPH_TESTS_WITHOUT_SHARED=1`` makes it a skip, for a checkout without the data.
    """
    require_shared(*SHARED_FILES)
    return SharedData()


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
