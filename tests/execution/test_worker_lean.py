"""What a sample's child finds after the per-sample cost cuts of issue 16, in the real sandbox.

The worker now starts without ``site`` (``-S``) and leaves ``random`` and
``threading`` unloaded, a child joins a process group instead of a session,
and the environment is set once in the worker.  None of that may show in
what model code sees, beyond the modules not being preloaded: ``exit`` and
``quit`` exist, site-packages is on sys.path, the environment holds exactly
HOME, TMPDIR (its scratch dir), PATH and LANG (plus, since issue 23, the variables that pin the
numeric libraries' thread pools to one thread), and the child still cannot be
reached through the worker's process group.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from benchmorph.data.models import Problem, TestCase
from benchmorph.execution import Engine
from benchmorph.execution.sandbox import bwrap_problem

needs_bwrap = pytest.mark.skipif(
    bwrap_problem() is not None, reason=f"no bubblewrap sandbox: {bwrap_problem()}"
)

PROBE = """
import os, sys
def f(x):
    return {
        "exit": callable(exit) and callable(quit),
        "preloaded": sorted(m for m in ("threading", "random", "statistics", "typing", "math") if m in sys.modules),
        "environ": sorted(os.environ.items()),
        "home_is_cwd": os.environ["HOME"] == os.environ["TMPDIR"] == os.getcwd(),
        "own_group": os.getpgid(0) == os.getpid(),
        "worker_group": os.getpgid(0) != os.getpgid(os.getppid()),
        "site": any(p.endswith(("site-packages", "dist-packages")) for p in sys.path),
    }
"""


# Issue 23: OpenBLAS, OpenMP, MKL and kin start one thread, not one per core.
PINNED = sorted(
    ["OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS",
     "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS", "GOTO_NUM_THREADS"]
)  # fmt: skip
ENVIRONMENT = sorted(["HOME", "LANG", "PATH", "TMPDIR", *PINNED])


def probe(isolation: str, tmp_path: Path, code: str = PROBE) -> object:
    problem = Problem(id="lean/1", prompt="", entry_point="f", reference=code, tests=[TestCase(input=[1])])
    with Engine(workers=1, isolation=isolation, cache_root=tmp_path) as engine:
        [run] = engine.run_inputs(problem, [[1]], code=code)
    assert run.status == "ok", run.error
    return run.output


@needs_bwrap
def test_a_child_sees_what_it_saw_before_but_the_fork_hooks(tmp_path: Path) -> None:
    seen = probe("bwrap", tmp_path)
    assert seen["exit"] and seen["site"] and seen["home_is_cwd"]
    assert seen["own_group"] and seen["worker_group"]
    keys = [key for key, _ in seen["environ"]]
    assert keys == ENVIRONMENT
    assert dict(seen["environ"])["PATH"] == "/usr/bin:/bin"
    assert all(dict(seen["environ"])[name] == "1" for name in PINNED)
    # typing and math stay warm; random and threading would cost every fork their after-fork hooks.
    assert seen["preloaded"] == ["math", "typing"]


@needs_bwrap
def test_a_sample_still_gets_random_and_threading_and_fresh_seeds(tmp_path: Path) -> None:
    code = (
        "import random, statistics, threading\n"
        "def f(x):\n"
        "    t = threading.Thread(target=lambda: None); t.start(); t.join()\n"
        "    return [random.getrandbits(64) for _ in range(2)]\n"
    )
    first, second = probe("bwrap", tmp_path, code), probe("bwrap", tmp_path / "again", code)
    assert first != second  # each child seeds its own generator at import


@pytest.mark.skipif(os.geteuid() != 0, reason="the rlimits fallback drops uids only as root")
def test_rlimits_fallback_keeps_random_and_threading_warm(tmp_path: Path) -> None:
    # The sample's uid may not traverse a private Python prefix there, so these stay preloaded.
    seen = probe("rlimits", tmp_path)
    assert seen["preloaded"] == ["math", "random", "statistics", "threading", "typing"]
    assert [key for key, _ in seen["environ"]] == ENVIRONMENT
