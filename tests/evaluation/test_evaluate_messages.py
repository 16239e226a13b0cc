"""`benchmorph evaluate` on files of real-looking answers: messages, literal printing, --sanitize (issue 23).

* Finding 3: a file of raw chat answers scored 0.000 as written with no way to sanitize from the
  command line; ``--sanitize`` reads each field through the sanitizer, keeps the raw text in
  results.jsonl and counts what it changed, and without it the run ends with one hint line.
* Finding 4: a completion's warning named ``solution`` and a line of prompt + completion; Rich
  turned ``:100:`` into an emoji and ate ``[ray]`` as markup; ``--help`` lost brackets and cut
  option texts at 80 columns.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from benchmorph.data.formats.humaneval import humaneval_problem_records
from benchmorph.data.models import Sample
from benchmorph.data.registry import load_benchmark
from benchmorph.evaluation.sample_code import code_source, unparsable_message
from cli_runner import run_cli

RECORDS = {record["task_id"]: record for record in humaneval_problem_records()}
TASKS = [f"HumanEval/{n}" for n in (0, 2, 4, 7, 12)]


def write_rows(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def chat_answer(task: str) -> str:
    record = RECORDS[task]
    return (
        f"Sure! Here is a solution that scores :100: and needs no pip install 'pkg[ray]':\n\n"
        f"```python\n{record['prompt']}{record['canonical_solution']}```\n\n"
        "It walks the input once, so it runs in linear time."
    )


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("cache")


# ---------------------------------------------------------------------------------- messages


def test_a_completion_warning_names_its_field_and_the_line_inside_it() -> None:
    problem = load_benchmark("humaneval").by_id()["HumanEval/0"]
    completion = "    for i in range(len(numbers)):\n        x = 1\n        return 'unclosed\n"
    sample = Sample(
        task_id="HumanEval/0", code=problem.prompt + completion, raw=completion, origin="s.jsonl:7"
    )
    assert code_source(sample, problem).field == "completion"
    message = unparsable_message(sample, problem)
    assert message is not None
    assert message.startswith("s.jsonl:7: field 'completion', line 3: not valid Python")
    assert "(detected at line 3)" in message  # renumbered from the prompt + completion program
    whole = Sample(task_id="HumanEval/0", code="def f(:\n", raw="def f(:\n", origin="s.jsonl:8")
    assert unparsable_message(whole, problem) == (
        "s.jsonl:8: field 'solution', line 1: not valid Python (invalid syntax); judged as an error"
    )


def test_user_text_prints_literally_no_markup_no_emoji(tmp_path: Path, cache: Path) -> None:
    folder = tmp_path / "runs [ray] :100:"
    folder.mkdir()
    record = RECORDS["HumanEval/0"]
    samples = write_rows(
        folder / "samples.jsonl",
        [
            {"task_id": "HumanEval/0", "completion": record["canonical_solution"]},
            {"task_id": "Task :1234: [bold]x[/]", "completion": "    return 1\n"},
        ],
    )
    out = folder / "out"
    result = run_cli("evaluate", "humaneval", "--samples", str(samples), "--out", str(out), cache=cache)
    assert result.returncode == 0, result.stderr
    assert "unknown task_id 'Task :1234: [bold]x[/]'" in result.stderr
    assert f"results: {out / 'results.jsonl'}" in result.stdout
    assert "\N{HUNDRED POINTS SYMBOL}" not in result.stdout + result.stderr
    # An error names the file exactly as given.
    missing = folder / "missing [ray] :100:.jsonl"
    failed = run_cli("evaluate", "humaneval", "--samples", str(missing), "--out", str(out), cache=cache)
    assert failed.returncode != 0 and str(missing) in failed.stderr
    assert "Traceback" not in failed.stderr


def test_help_renders_brackets_and_cuts_nothing_at_80_columns() -> None:
    env = {**os.environ, "COLUMNS": "80"}
    shown = subprocess.run(
        [sys.executable, "-m", "benchmorph.cli", "evaluate", "--help"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert shown.returncode == 0, shown.stderr
    text = " ".join(shown.stdout.split())
    assert "pip install 'benchmorph[ray]'" in text
    assert "\N{HORIZONTAL ELLIPSIS}" not in shown.stdout
    for option in ("--min-time-limit", "--time-factor", "--sanitize", "--test-details", "--ray-address"):
        assert option in shown.stdout
    assert "$BENCHMORPH_SANDBOX" in text and "solution|completion" in text
    assert max(len(line) for line in shown.stdout.splitlines()) <= 80


# ---------------------------------------------------------------------------------- --sanitize


@pytest.fixture(scope="module")
def raw_answers(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("raw")
    return write_rows(
        folder / "chat.jsonl", [{"task_id": task, "solution": chat_answer(task)} for task in TASKS]
    )


def test_raw_answers_as_written_score_zero_and_end_with_one_hint(
    raw_answers: Path, tmp_path: Path, cache: Path
) -> None:
    out = tmp_path / "as-written"
    result = run_cli("evaluate", "humaneval", "--samples", str(raw_answers), "--out", str(out), cache=cache)
    assert result.returncode == 0, result.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["pass@1"] == 0.0 and "sanitizer" not in summary
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("hint: 5 of 5 samples are not Python") and "--sanitize" in last
    assert result.stderr.count("hint:") == 1


def test_sanitize_judges_the_code_keeps_the_raw_text_and_counts_what_it_changed(
    raw_answers: Path, tmp_path: Path, cache: Path
) -> None:
    out = tmp_path / "sanitized"
    result = run_cli(
        "evaluate", "humaneval", "--samples", str(raw_answers), "--out", str(out), "--sanitize", cache=cache
    )
    assert result.returncode == 0, result.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["pass@1"] == 1.0
    assert summary["sanitizer"] == {"applied": True, "samples": 5, "changed": 5, "no_code": 0}
    assert "sanitizer: changed 5 of 5 samples" in result.stderr and "hint:" not in result.stderr
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert [row["raw"] for row in rows] == [chat_answer(task) for task in TASKS]
    assert all(row["sanitized"] for row in rows)


def test_sanitize_leaves_clean_samples_as_they_are(tmp_path: Path, cache: Path) -> None:
    rows = [{"task_id": task, "completion": RECORDS[task]["canonical_solution"]} for task in TASKS[:3]]
    rows.append(
        {
            "task_id": TASKS[3],
            "solution": RECORDS[TASKS[3]]["prompt"] + RECORDS[TASKS[3]]["canonical_solution"],
        }
    )
    samples = write_rows(tmp_path / "clean.jsonl", rows)
    out = tmp_path / "clean"
    result = run_cli(
        "evaluate", "humaneval", "--samples", str(samples), "--out", str(out), "--sanitize", cache=cache
    )
    assert result.returncode == 0, result.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["pass@1"] == 1.0 and summary["sanitizer"]["changed"] == 0
    assert all("raw" not in json.loads(line) for line in (out / "results.jsonl").read_text().splitlines())
