"""Installed the way users install it (a virtualenv anywhere), the sandbox still isolates, or refuses.

The defect this guards against: from a venv, bubblewrap could not exec the venv's
interpreter link, and every sample then ran with rlimits only, writing into the
host's /tmp.  Each test installs the project into a fresh venv, runs hostile
file-system and network samples through that venv's own ``benchmorph evaluate``
and checks the host afterwards: nothing was written, nothing connected, and the
run says ``isolation: bwrap``.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from benchmorph.execution.sandbox import bwrap_problem
from paths import ROOT as REPO

pytestmark = [
    pytest.mark.slow,
    pytest.mark.timeout(900),
    pytest.mark.skipif(bwrap_problem() is not None, reason=f"no bubblewrap sandbox: {bwrap_problem()}"),
]

PROBE_REFERENCE = "def probe(paths, port):\n    return 'contained'\n"

# Tries every escape it can; answers 'contained' only when each one failed, and
# names the first that worked otherwise (so a failure says what leaked).
HOSTILE = """
import os, socket

def _wrote(path):
    try:
        with open(path, "w") as handle:
            handle.write("escaped")
        return True
    except OSError:
        return False

def _read(path):
    try:
        if os.path.isdir(path):
            return bool(os.listdir(path))
        with open(path, "rb") as handle:
            return bool(handle.read(16))
    except OSError:
        return False

def _connects(host, port):
    try:
        with socket.create_connection((host, port), timeout=1) as conn:
            conn.sendall(b"leak")
        return True
    except OSError:
        return False

def probe(paths, port):
    for path in paths["write"]:
        if _wrote(path):
            return "wrote " + path
    for path in paths["read"]:
        if _read(path):
            return "read " + path
    if _connects("127.0.0.1", port):
        return "connected to the host's loopback server"
    return "contained"
"""


class LoopbackListener:
    """A host-side TCP server that records every connection a sample manages to make."""

    def __init__(self) -> None:
        self.server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.server.bind(("127.0.0.1", 0))
        self.server.listen(8)
        self.server.settimeout(0.1)
        self.port = self.server.getsockname()[1]
        self.seen: list[bytes] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.server.accept()
            except TimeoutError:
                continue
            with conn:
                self.seen.append(b"<connected>")

    def close(self) -> None:
        self._stop.set()
        self._thread.join()
        self.server.close()


def make_venv(where: Path, *, editable: bool, system_site: bool = False) -> Path:
    """A fresh venv with benchmorph installed into it, as a user would (pip from the registry)."""
    args = [sys.executable, "-m", "venv", str(where)]
    if system_site:
        args.insert(3, "--system-site-packages")
    subprocess.run(args, check=True, capture_output=True, timeout=120)
    target = ["-e", str(REPO)] if editable else [str(REPO)]
    install = subprocess.run(
        [str(where / "bin" / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check", *target],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert install.returncode == 0, install.stderr[-2000:]
    return where


def hostile_run(venv: Path, work: Path, extra_env: dict[str, str] | None = None) -> dict:
    """Run the hostile sample through the venv's own `benchmorph evaluate`; return what it leaked."""
    work.mkdir(parents=True, exist_ok=True)
    victim = work / "victim.txt"
    victim.write_text("precious")
    secret = Path.home() / f".benchmorph-test-secret-{uuid.uuid4().hex}"
    secret.write_text("do not read")
    marker = f"benchmorph-escape-{uuid.uuid4().hex}"
    writes = [
        f"/tmp/{marker}",
        str(Path.home() / marker),
        str(venv / marker),
        str(venv / "bin" / marker),
        str(REPO / marker),
        str(work / marker),
        str(victim),
    ]
    reads = [str(secret), str(venv), str(work)]
    listener = LoopbackListener()
    problem = {
        "schema_version": 1,
        "record": "problem",
        "id": "venv/probe",
        "kind": "function",
        "prompt": 'def probe(paths, port):\n    """Say \'contained\'."""\n',
        "entry_point": "probe",
        "reference": PROBE_REFERENCE,
        "tests": [{"input": [{"write": writes, "read": reads}, listener.port], "origin": "base"}],
    }
    problems = work / "problems.jsonl"
    problems.write_text(json.dumps(problem) + "\n")
    samples = work / "samples.jsonl"
    samples.write_text(json.dumps({"task_id": "venv/probe", "solution": HOSTILE}) + "\n")
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in {"VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME"}
    }
    env.update({"BENCHMORPH_CACHE": str(work / "cache"), "COLUMNS": "200"})
    env["PATH"] = f"{venv / 'bin'}:/usr/local/bin:/usr/bin:/bin"
    env.update(extra_env or {})
    try:
        result = subprocess.run(
            [str(venv / "bin" / "benchmorph"), "evaluate", str(problems), "--samples", str(samples),
             "--out", str(work / "run"), "--workers", "1"],
            capture_output=True, text=True, env=env, cwd=work, timeout=300,
        )  # fmt: skip
    finally:
        listener.close()
        secret.unlink()
    escaped = [path for path in writes[:-1] if Path(path).exists()]
    for path in escaped:
        Path(path).unlink()
    return {
        "result": result,
        "escaped": escaped,
        "victim": victim.read_text(),
        "connections": listener.seen,
        "run": work / "run",
    }


def assert_contained(outcome: dict) -> None:
    result = outcome["result"]
    assert result.returncode == 0, result.stderr
    assert "WARNING" not in result.stderr, result.stderr
    assert outcome["escaped"] == [] and outcome["victim"] == "precious"
    assert outcome["connections"] == []
    summary = json.loads((outcome["run"] / "summary.json").read_text())
    assert summary["isolation"] == "bwrap"
    [verdict] = [json.loads(line) for line in (outcome["run"] / "results.jsonl").read_text().splitlines()]
    assert verdict["isolation"] == "bwrap"
    assert verdict["status"] == "pass", verdict  # the sample itself saw every escape fail


@pytest.fixture(scope="module")
def tmp_venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = Path("/tmp") / f"benchmorph-venv-{uuid.uuid4().hex[:8]}"
    yield make_venv(root, editable=True)
    shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="module")
def home_venv() -> Iterator[Path]:
    root = Path.home() / f".benchmorph-test-venv-{uuid.uuid4().hex[:8]}"
    yield make_venv(root, editable=False)
    shutil.rmtree(root, ignore_errors=True)


def test_venv_under_tmp_keeps_the_bwrap_sandbox(tmp_venv: Path, tmp_path: Path) -> None:
    assert_contained(hostile_run(tmp_venv, tmp_path))


def test_venv_under_home_keeps_the_bwrap_sandbox(home_venv: Path, tmp_path: Path) -> None:
    assert_contained(hostile_run(home_venv, tmp_path))


def test_venv_with_system_site_packages_under_opt(tmp_path: Path) -> None:
    root = Path("/opt") / f"benchmorph-test-venv-{uuid.uuid4().hex[:8]}"
    try:
        assert_contained(hostile_run(make_venv(root, editable=True, system_site=True), tmp_path))
    finally:
        shutil.rmtree(root, ignore_errors=True)


def test_missing_bwrap_stops_with_how_to_fix_or_opt_out(tmp_venv: Path, tmp_path: Path) -> None:
    """Without bwrap on PATH the run refuses (exit 2, one line), and runs only when rlimits is asked for."""
    no_bwrap = tmp_path / "bin"
    no_bwrap.mkdir()
    for tool in ("python3", "sh"):  # a PATH with what the run needs but no bwrap
        found = shutil.which(tool)
        if found:
            (no_bwrap / tool).symlink_to(found)
    env = {"PATH": f"{tmp_venv / 'bin'}:{no_bwrap}"}
    refused = hostile_run(tmp_venv, tmp_path / "refused", env)
    result = refused["result"]
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, lines
    assert "bubblewrap (bwrap) is not installed" in lines[0]
    assert "apt-get install bubblewrap" in lines[0] and "--sandbox rlimits" in lines[0]
    assert not (refused["run"] / "results.jsonl").exists()

    chosen = hostile_run(tmp_venv, tmp_path / "chosen", {**env, "BENCHMORPH_SANDBOX": "rlimits"})
    result = chosen["result"]
    assert result.returncode == 0, result.stderr
    assert "rlimits only, as asked" in result.stderr
    summary = json.loads((chosen["run"] / "summary.json").read_text())
    assert summary["isolation"] == "rlimits"
    assert "rlimits" in result.stdout  # the summary table names the weaker sandbox


SYSTEM_PYTHON = Path("/usr/bin/python3")


@pytest.mark.skipif(
    not SYSTEM_PYTHON.exists() or not shutil.which("git"), reason="no distribution Python (or git) here"
)
def test_readme_setup_works_with_an_externally_managed_system_python(tmp_path: Path) -> None:
    """A newcomer on stock Debian/Ubuntu: only /usr/bin/python3 (PEP 668) on PATH, a fresh clone, the README."""
    marker = list(Path("/usr/lib").glob("python3*/EXTERNALLY-MANAGED"))
    if not marker:
        pytest.skip("the system Python here is not marked externally managed")
    refused = subprocess.run(
        [str(SYSTEM_PYTHON), "-m", "pip", "install", "--dry-run", "--no-deps", "rich"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert refused.returncode != 0 and "externally-managed-environment" in refused.stderr + refused.stdout
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(REPO), str(clone)], check=True, timeout=120)
    env = {"HOME": os.environ.get("HOME", "/root"), "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}
    env["BENCHMORPH_CACHE"] = str(tmp_path / "cache")
    # The README's first command, less the embedded model's two minutes of generation.
    setup = subprocess.run(
        ["bash", "-c", "bash scripts/install.sh && .venv/bin/benchmorph demo --no-local --pairs 2"],
        cwd=clone, env=env, capture_output=True, text=True, timeout=1500,
    )  # fmt: skip
    assert setup.returncode == 0, setup.stderr[-3000:]
    base = subprocess.run(
        [str(clone / ".venv" / "bin" / "python"), "-c", "import sys; print(sys._base_executable)"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert base.stdout.strip().startswith("/usr/bin/python3")
    assert "report:" in setup.stdout and (clone / "benchmorph-out" / "demo" / "report.html").exists()
    assert "bwrap" in setup.stdout and "benchmorph: WARNING" not in setup.stderr
