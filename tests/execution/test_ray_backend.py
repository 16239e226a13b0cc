"""The Ray backend on a real Ray head: the same verdicts as the local engine, and no lost or doubled
verdict when a node actor is killed mid-run.

A head is started once for the module (``ray start --head --num-cpus 2`` in a temporary directory,
its processes stopped by id at the end), and ``benchmorph evaluate`` runs as a user would, in a
subprocess, on the 1,640 HumanEval samples of the agreement tests' kind: each task's reference and
its mutants (``reference_and_mutants``, ten per task).
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from benchmorph.data import load_benchmark
from benchmorph.data.formats.humaneval import humaneval_problem_records
from benchmorph.evaluation.peers import reference_and_mutants
from cli_runner import run_cli
from time_limits import unexplained_differences

ray = pytest.importorskip("ray", reason="the ray extra is not installed (pip install 'benchmorph[ray]')")

pytestmark = pytest.mark.slow

PER_TASK = 10
RAY = Path(sys.executable).with_name("ray")


def _ray_processes(marker: str) -> list[int]:
    """Ids of the processes of one Ray instance: those naming its temp dir, and their descendants."""
    parents: dict[int, int] = {}
    named: set[int] = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
        if marker in cmdline:
            named.add(int(entry.name))
    found = set(named)
    grew = True
    while grew:
        children = {pid for pid, parent in parents.items() if parent in found} - found
        found |= children
        grew = bool(children)
    return sorted(found - {os.getpid()})


def _stop(marker: str) -> None:
    """Stop only the Ray instance started here (``ray stop`` would stop every Ray on the machine)."""
    for sig, wait in ((signal.SIGTERM, 5.0), (signal.SIGKILL, 2.0)):
        for pid in _ray_processes(marker):
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + wait
        while _ray_processes(marker) and time.monotonic() < deadline:
            time.sleep(0.2)


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("ray-cache")


@pytest.fixture(scope="module")
def ray_auth() -> dict[str, str]:
    """Token authentication with a token of the tests' own, in the environment (no file in $HOME)."""
    return {"RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": secrets.token_hex(32), "RAY_USAGE_STATS_ENABLED": "0"}


@pytest.fixture(scope="module")
def ray_head(cache: Path, ray_auth: dict[str, str]) -> Iterator[str]:
    """A real local Ray head with 2 CPUs; its nodes' reference cache is the tests' cache."""
    temp = tempfile.mkdtemp(prefix="bm-rayhead-", dir="/tmp")  # socket paths must stay short
    env = {**os.environ, "BENCHMORPH_CACHE": str(cache), **ray_auth}
    started = subprocess.run(
        [str(RAY), "start", "--head", "--num-cpus", "2", "--temp-dir", temp, "--port", "0",
         "--include-dashboard", "false", "--disable-usage-stats"],
        capture_output=True, text=True, env=env, timeout=180,
    )  # fmt: skip
    try:
        assert started.returncode == 0, started.stderr[-2000:]
        found = re.search(r"--address='([^']+)'", started.stdout + started.stderr)
        assert found, started.stdout[-2000:]
        yield found.group(1)
    finally:
        _stop(temp)
        shutil.rmtree(temp, ignore_errors=True)


@pytest.fixture(scope="module")
def samples_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Each HumanEval task's reference and mutants of it, ten per task: 1,640 samples."""
    path = tmp_path_factory.mktemp("ray-samples") / "samples.jsonl"
    rows = [
        {"task_id": sample.task_id, "solution": sample.code}
        for record in humaneval_problem_records()
        for sample in reference_and_mutants(record, PER_TASK)
    ]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    assert len(rows) == 1640
    return path


def _evaluate(
    samples: Path, out: Path, cache: Path, *backend: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return run_cli(
        "evaluate", "humaneval", "--samples", str(samples), "--out", str(out), "--workers", "2",
        *backend, cache=cache, timeout=900, env=env,
    )  # fmt: skip


def _verdicts(out: Path) -> dict[tuple[str, int], tuple]:
    """What a verdict decides, by sample: status, tests passed and run, each test's status.

    Times differ from run to run; everything else must not.  Asserts one verdict per sample.
    """
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    keyed = {
        (row["task_id"], row["index"]): (
            row["status"],
            row["passed"],
            row["total"],
            tuple(t["status"] for t in row["tests"]),
            row["isolation"],
        )
        for row in rows
    }
    assert len(keyed) == len(rows), "a sample has more than one verdict"
    return keyed


@pytest.fixture(scope="module")
def local_verdicts(samples_file: Path, cache: Path, tmp_path_factory: pytest.TempPathFactory) -> dict:
    out = tmp_path_factory.mktemp("local") / "run"
    result = _evaluate(samples_file, out, cache)
    assert result.returncode == 0, result.stderr[-3000:]
    verdicts = _verdicts(out)
    assert len(verdicts) == 1640
    return verdicts


@pytest.mark.server
def test_ray_backend_gives_the_local_verdicts(
    ray_head: str, ray_auth: dict, samples_file: Path, cache: Path, local_verdicts: dict, tmp_path: Path
) -> None:
    out = tmp_path / "ray-run"
    result = _evaluate(samples_file, out, cache, "--backend", "ray", "--ray-address", ray_head, env=ray_auth)
    assert result.returncode == 0, result.stderr[-3000:]
    verdicts = _verdicts(out)
    assert len(verdicts) == 1640
    _assert_same_verdicts(local_verdicts, verdicts, samples_file)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["isolation"] == "bwrap"
    # Some mutants fail and every reference passes: the comparison is not between two empty sets.
    statuses = {verdict[0] for verdict in verdicts.values()}
    assert {"pass", "fail"} <= statuses


def _assert_same_verdicts(local: dict, other: dict, samples: Path) -> None:
    """Every sample has the local verdict, except a timeout of a sample that runs at the time limit."""
    rows = [json.loads(line) for line in samples.read_text().splitlines()]
    codes: dict[tuple[str, int], str] = {}
    seen: Counter[str] = Counter()  # a sample's index is its position among its task's samples
    for row in rows:
        codes[(row["task_id"], seen[row["task_id"]])] = row["solution"]
        seen[row["task_id"]] += 1
    problems = {p.id: p for p in load_benchmark("humaneval").problems}
    assert unexplained_differences(local, other, problems, codes) == []


def _checkpointed(path: Path) -> int:
    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=1) as db:
            return db.execute("SELECT COUNT(*) FROM verdicts").fetchone()[0]
    except sqlite3.Error:
        return 0


KILL_ONE_ACTOR = """
import json, sys, ray
ray.init(address=sys.argv[1], namespace="benchmorph", log_to_driver=False, logging_level="ERROR")
names = [a["name"] for a in ray.util.list_named_actors(all_namespaces=True) if "-node-" in a["name"]]
if len(names) == 1:
    ray.kill(ray.get_actor(names[0], namespace="benchmorph"))
print(json.dumps(names))
ray.shutdown()
"""


@pytest.mark.server
def test_a_killed_node_actor_loses_and_doubles_nothing(
    ray_head: str, ray_auth: dict, samples_file: Path, cache: Path, local_verdicts: dict, tmp_path: Path
) -> None:
    out = tmp_path / "ray-killed"
    env = {**os.environ, "BENCHMORPH_CACHE": str(cache), "COLUMNS": "200", **ray_auth}
    command = [
        sys.executable, "-m", "benchmorph.cli", "evaluate", "humaneval", "--samples", str(samples_file),
        "--out", str(out), "--workers", "2", "--backend", "ray", "--ray-address", ray_head,
    ]  # fmt: skip
    run = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        # Wait until the run has checkpointed some verdicts (its actor is busy), then kill that actor
        # from another driver, as a node failure would.
        deadline = time.monotonic() + 300
        checkpoint = out / "checkpoint.sqlite"
        while _checkpointed(checkpoint) < 100:
            assert run.poll() is None, run.communicate()[1][-3000:]
            assert time.monotonic() < deadline, "the run checkpointed nothing in 300 s"
            time.sleep(0.1)
        done_before = _checkpointed(checkpoint)
        killer = subprocess.run(
            [sys.executable, "-c", KILL_ONE_ACTOR, ray_head],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert killer.returncode == 0, killer.stderr[-2000:]
        names = json.loads(killer.stdout.strip().splitlines()[-1])
        assert len(names) == 1, names
        stdout, stderr = run.communicate(timeout=900)
    finally:
        if run.poll() is None:
            run.kill()
            run.communicate()
    assert run.returncode == 0, stderr[-3000:]
    assert done_before < 1640, "the actor was killed after the run had finished its work"
    assert f"Ray node actor {names[0]}" in stderr and "replaced by" in stderr, stderr[-2000:]
    verdicts = _verdicts(out)  # asserts one verdict per sample
    assert len(verdicts) == 1640
    _assert_same_verdicts(local_verdicts, verdicts, samples_file)


def test_without_an_address_a_node_that_cannot_isolate_stops_the_run(tmp_path: Path) -> None:
    """A Ray instance started for the run, whose node has no bubblewrap: one line, exit 2, nothing judged,
    and the instance and its directory are gone afterwards."""
    problems = tmp_path / "problems.jsonl"
    problems.write_text(
        json.dumps(
            {
                "schema_version": 1,
                "record": "problem",
                "id": "t/add",
                "kind": "function",
                "prompt": 'def add(a, b):\n    """Sum."""\n',
                "entry_point": "add",
                "reference": "def add(a, b):\n    return a + b\n",
                "tests": [{"input": [1, 2], "origin": "base"}],
            }
        )  # fmt: skip
        + "\n"
    )
    samples = tmp_path / "samples.jsonl"
    samples.write_text(
        json.dumps({"task_id": "t/add", "solution": "def add(a, b):\n    return a + b\n"}) + "\n"
    )
    bin_dir = tmp_path / "bin"  # the usual tools, but no bwrap
    bin_dir.mkdir()
    for tool in ("sh", "uname", "ldconfig"):
        found = shutil.which(tool)
        if found:
            (bin_dir / tool).symlink_to(found)
    before = set(Path("/tmp").glob("bm-ray-*"))
    result = run_cli(
        "evaluate", str(problems), "--samples", str(samples), "--out", str(tmp_path / "run"),
        "--workers", "1", "--backend", "ray",
        cache=tmp_path / "cache", timeout=300,
        # Ray's local instance writes its token under $HOME/.ray: a home of the test's own.
        env={"PATH": str(bin_dir), "BENCHMORPH_SANDBOX": "", "HOME": str(tmp_path / "home")},
    )  # fmt: skip
    assert result.returncode == 2, result.stderr[-3000:]
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert lines[-1].startswith("error: Ray node actor benchmorph-") and "bwrap" in lines[-1], lines[-5:]
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "run" / "results.jsonl").exists()
    assert set(Path("/tmp").glob("bm-ray-*")) <= before
