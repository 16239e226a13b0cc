"""A study killed with SIGKILL during generation, during execution and during the report, and run again each
time, pays for nothing twice and writes the study.json an uninterrupted study writes.

What was paid for is counted where it is paid, in the study's append-only work.log (one line per LLM answer
stored in the cache, one per verdict the sandbox judged, each written after the answer or verdict is
saved): across the killed and resumed sessions no answer key and no verdict appears twice, together they
are exactly what an uninterrupted study pays for, and the session after the kill during the report asks
the model nothing.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from benchmorph.evaluation.study.work import read_work_log
from cli_runner import run_cli

pytestmark = [pytest.mark.llm, pytest.mark.slow]

MODEL = "local?threads=1"
ARGS = [
    "study", "humaneval", "--model", MODEL, "--tasks", "HumanEval/9,HumanEval/30,HumanEval/42",
    "--variants", "2", "--min-problems", "2", "--max-tokens", "32",
]  # fmt: skip


def start(out: Path, cache: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "BENCHMORPH_CACHE": str(cache), "COLUMNS": "200"}
    command = [sys.executable, "-m", "benchmorph.cli", *ARGS, "--out", str(out)]
    return subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def sessions(out: Path) -> list[str]:
    return list(dict.fromkeys(row["session"] for row in read_work_log(out / "work.log")))


def kill_when(out: Path, cache: Path, reached, timeout: float = 900) -> list[dict]:
    """Start the study, SIGKILL it the moment ``reached(rows of this session)`` holds; its work.log rows."""
    before = set(sessions(out)) if (out / "work.log").exists() else set()
    process = start(out, cache)
    deadline = time.time() + timeout
    rows: list[dict] = []
    while time.time() < deadline:
        assert process.poll() is None, process.stderr.read().decode()[-2000:] if process.stderr else ""
        if (out / "work.log").exists():
            rows = [row for row in read_work_log(out / "work.log") if row["session"] not in before]
            if reached(rows):
                break
        time.sleep(0.02)
    else:
        process.kill()
        raise AssertionError("the study never reached the stage to kill it in")
    process.send_signal(signal.SIGKILL)
    assert process.wait(60) == -signal.SIGKILL
    return rows


def paid(out: Path) -> tuple[Counter, Counter]:
    """(LLM answer keys, verdicts as (scope, key, index)) over every session of a study, with counts."""
    rows = read_work_log(out / "work.log")
    answers = Counter(row["key"] for row in rows if row["kind"] == "llm")
    verdicts = Counter((row["scope"], row["key"], row["index"]) for row in rows if row["kind"] == "verdict")
    return answers, verdicts


def test_killed_three_times_and_resumed_pays_nothing_twice_and_writes_the_same_study_json(
    tmp_path: Path,
) -> None:
    # An uninterrupted study, for what the resumed one must equal.
    whole = run_cli(*ARGS, "--out", str(tmp_path / "whole"), cache=tmp_path / "cache-whole", cwd=tmp_path)
    assert whole.returncode == 0, whole.stderr
    expected_answers, expected_verdicts = paid(tmp_path / "whole")
    assert expected_answers and expected_verdicts

    out, cache = tmp_path / "killed", tmp_path / "cache-killed"
    # 1. during generation: the model has answered some of the originals, not all of the study.
    generation = kill_when(out, cache, lambda rows: any(r["kind"] == "llm" for r in rows))
    assert any(r["stage"].startswith("generate ") for r in generation if r["kind"] == "llm")
    # 2. during execution: a run's samples are being judged.
    execution = kill_when(
        out,
        cache,
        lambda rows: any(r["kind"] == "verdict" and r["stage"].startswith("evaluate ") for r in rows),
    )
    assert execution
    # 3. during the report: failed variant samples are being re-run on their parents.
    report = kill_when(
        out, cache, lambda rows: any(r["kind"] == "verdict" and r["stage"] == "findings" for r in rows)
    )
    assert not (out / "study.json").exists()
    assert not any(r["kind"] == "llm" for r in report if r["stage"] == "findings")

    # Run again, to the end.
    last = run_cli(*ARGS, "--out", str(out), cache=cache, cwd=tmp_path)
    assert last.returncode == 0, last.stderr
    session = json.loads((out / "session.json").read_text())
    assert (
        session["llm_requests"] == 0 and session["llm_repeats"] == 0
    )  # everything was asked before the report
    assert len(sessions(out)) == 4

    answers, verdicts = paid(out)
    assert [key for key, count in answers.items() if count > 1] == []  # no answer paid twice
    assert [key for key, count in verdicts.items() if count > 1] == []  # no verdict judged twice
    assert not any(row.get("repeat") for row in read_work_log(out / "work.log") if row["kind"] == "llm")
    assert set(answers) == set(expected_answers)  # the same requests as the uninterrupted study
    assert len(verdicts) == len(expected_verdicts)
    assert (out / "study.json").read_bytes() == (tmp_path / "whole" / "study.json").read_bytes()
