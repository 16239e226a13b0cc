"""Fixtures shared by the test folders: the shared data, the sandbox engine, and the demo (run once per session).

tests/ itself is on sys.path (pytest puts this file's folder there), so every test module imports the
helpers beside this file (cli_runner, paths, loopback_openai, ...) by their bare names, wherever it sits.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from benchmorph.execution import Engine
from cli_runner import run_cli
from paths import SHARED_FILES, SharedData, require_shared


@pytest.fixture(scope="session")
def shared_data() -> SharedData:
    """../shared/data's MBPP+ and HumanEval+ files; a failure naming a missing one, not a skip.

    ``BENCHMORPH_TESTS_WITHOUT_SHARED=1`` makes it a skip, for a checkout without the data.
    """
    require_shared(*SHARED_FILES)
    return SharedData()


@pytest.fixture(scope="session")
def reference_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The session's reference cache: private (never ~/.cache), and shared by every module's engine the
    way a user's cache is shared by their runs, so HumanEval's references are measured once a session."""
    return tmp_path_factory.mktemp("reference-cache")


@pytest.fixture(scope="module")
def engine(reference_cache: Path) -> Iterator[Engine]:
    """The sandbox engine tests judge with: 2 workers, default limits and isolation.

    One per module, not per session: a module's engine memoises every problem it prepared, and its
    workers die with it, so what one module does to its workers never reaches the next. A test that
    needs another engine (other limits, memory caps, an isolation mode) builds its own under another
    name (``capped_engine``, ``bwrap_engine``).
    """
    with Engine(workers=2, cache_root=reference_cache) as running:
        yield running


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
