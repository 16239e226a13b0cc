"""Generation against a flaky loopback server: retries, generation errors, cache, SIGKILL resume.

The server (tests/loopback_openai.py) is real HTTP on 127.0.0.1 driven by
the official openai SDK; `benchmorph` runs as a real subprocess and its
samples go through the real sandbox.
"""

from __future__ import annotations

import json
import signal
import sqlite3
import time
from pathlib import Path

import pytest

from benchmorph.data.registry import load_benchmark
from cli_runner import run_cli, start_cli
from loopback_openai import ScriptedServer

PROBLEMS = load_benchmark("humaneval").problems


def cli(*args: str, cache: Path, cwd: Path, wait: bool = True):  # type: ignore[no-untyped-def]
    if not wait:
        return start_cli(*args, cache=cache, cwd=cwd)
    return run_cli(*args, cache=cache, cwd=cwd, timeout=600)


def reference_answer(text: str) -> str:
    """A chat-style answer with prose around the correct function, found by the entry point in the prompt."""
    for problem in PROBLEMS:
        if f"def {problem.entry_point}(" in text:
            return f"Sure! Here it is:\n\n```python\n{problem.reference}\n```\n\nHope this helps."
    return "I do not know."


def rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@pytest.mark.server
def test_faults_are_retried_or_recorded_and_rerun_asks_only_for_failures(tmp_path: Path) -> None:
    faults = {
        "def has_close_elements(": ["429", "429"],  # rate limited twice, then answered
        "def separate_paren_groups(": ["500"],  # one server error
        "def truncate_number(": ["slow"],  # first reply comes after the client's timeout
        "def below_zero(": ["malformed"],  # HTML body with status 200: not retried
        "def mean_absolute_deviation(": ["500"] * 20,  # never recovers within the retry budget
        "def intersperse(": ["nochoices"],  # JSON without choices
    }
    cache = tmp_path / "cache"
    with ScriptedServer(reference_answer, faults, slow_seconds=3.0) as server:
        spec = f"openai:test-model@{server.base_url}"
        args = ["run", "humaneval", "--model", spec, "--limit", "6", "--retries", "3", "--backoff", "0.01"]
        args += ["--timeout", "1", "--out", str(tmp_path / "run")]
        result = cli(*args, cache=cache, cwd=tmp_path)
        assert result.returncode == 0, result.stderr
        assert "Traceback" not in result.stderr

        samples = {row["task_id"]: row for row in rows(tmp_path / "run" / "samples.jsonl")}
        assert len(samples) == 6
        answered = ["HumanEval/0", "HumanEval/1", "HumanEval/2"]
        failed = ["HumanEval/3", "HumanEval/4", "HumanEval/5"]
        for task in answered:
            assert "error" not in samples[task]
            assert samples[task]["solution"].strip() == PROBLEMS[int(task.split("/")[1])].reference.strip()
        assert "malformed" in samples["HumanEval/3"]["error"] or "Error" in samples["HumanEval/3"]["error"]
        assert "gave up after 4 attempts" in samples["HumanEval/4"]["error"]
        assert "HTTP 500" in samples["HumanEval/4"]["error"]
        assert "no choices" in samples["HumanEval/5"]["error"]

        verdicts = {row["task_id"]: row for row in rows(tmp_path / "run" / "results.jsonl")}
        assert [verdicts[t]["status"] for t in answered] == ["pass"] * 3
        assert [verdicts[t]["status"] for t in failed] == ["error"] * 3
        assert all(verdicts[t]["error"].startswith("generation failed") for t in failed)
        summary = json.loads((tmp_path / "run" / "summary.json").read_text())
        assert summary["pass@1"] == pytest.approx(0.5)

        counts = {marker: server.count(marker) for marker in faults}
        assert counts == {
            "def has_close_elements(": 3,
            "def separate_paren_groups(": 2,
            "def truncate_number(": 2,
            "def below_zero(": 1,
            "def mean_absolute_deviation(": 4,
            "def intersperse(": 1,
        }

        # Second run: answered samples come from the cache; only failures are asked again.
        again = cli(*args[:-2], "--out", str(tmp_path / "run2"), cache=cache, cwd=tmp_path)
        assert again.returncode == 0, again.stderr
        assert "3 from the cache" in again.stderr
        for marker in ("def has_close_elements(", "def separate_paren_groups(", "def truncate_number("):
            assert server.count(marker) == counts[marker], marker
        assert server.count("def below_zero(") == 2  # the fault is spent: now answered
        second = {row["task_id"]: row for row in rows(tmp_path / "run2" / "results.jsonl")}
        assert second["HumanEval/3"]["status"] == "pass"
        assert second["HumanEval/4"]["status"] == "error"


def finished_requests(cache_file: Path) -> set[tuple[str, int]]:
    """(prompt, seed) of every answer the cache holds."""
    with sqlite3.connect(cache_file) as db:
        stored = [json.loads(row[0]) for row in db.execute("SELECT request FROM generations")]
    return {(entry["request"]["prompt"], entry["params"]["seed"]) for entry in stored}


@pytest.mark.server
def test_generate_killed_with_sigkill_resumes_without_repeats_or_duplicates(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    cache_file = tmp_path / "llm.sqlite"
    out = tmp_path / "samples.jsonl"
    with ScriptedServer(lambda text: "    return None\n", delay=0.15) as server:
        args = ["generate", "humaneval", "--model", f"openai:base@{server.base_url}?mode=completion"]
        args += ["--limit", "12", "--n", "2", "--temperature", "0.8", "--seed", "7", "--concurrency", "2"]
        args += ["--cache-path", str(cache_file), "--out", str(out)]
        process = cli(*args, cache=cache, cwd=tmp_path, wait=False)
        deadline = time.time() + 60
        while len(server.requests) < 8 and time.time() < deadline:
            time.sleep(0.02)
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
        assert not out.exists()
        done_before = finished_requests(cache_file)
        assert 4 <= len(done_before) < 24
        first_run_requests = len(server.requests)

        result = cli(*args, cache=cache, cwd=tmp_path)
        assert result.returncode == 0, result.stderr
        second_run = [
            (request["body"]["prompt"], request["body"]["seed"])
            for request in server.requests[first_run_requests:]
        ]
        assert not set(second_run) & done_before, "an answer the cache had was asked for again"
        assert len(second_run) == len(set(second_run))
        assert len(done_before) + len(second_run) >= 24

    samples = rows(out)
    assert len(samples) == 24
    per_task: dict[str, list[int]] = {}
    for sample in samples:
        per_task.setdefault(sample["task_id"], []).append(sample["params"]["seed"])
    assert len(per_task) == 12
    assert all(sorted(seeds) == [7, 8] for seeds in per_task.values())
    assert all(sample["solution"].rstrip().endswith("return None") for sample in samples)


@pytest.mark.server
def test_several_endpoints_share_the_load_and_a_dead_one_is_skipped(tmp_path: Path) -> None:
    import socket

    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{sock.getsockname()[1]}/v1"
    with ScriptedServer(reference_answer) as first, ScriptedServer(reference_answer) as second:
        spec = f"openai:m@{first.base_url},{second.base_url},{dead}"
        args = ["generate", "humaneval", "--model", spec, "--limit", "9", "--backoff", "0.01"]
        result = cli(*args, "--out", str(tmp_path / "s.jsonl"), cache=tmp_path / "cache", cwd=tmp_path)
        assert result.returncode == 0, result.stderr
        assert len(first.requests) >= 3 and len(second.requests) >= 3
        assert len(first.requests) + len(second.requests) == 9
    samples = rows(tmp_path / "s.jsonl")
    assert len(samples) == 9 and not [s for s in samples if "error" in s]
