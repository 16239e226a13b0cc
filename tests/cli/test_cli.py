"""The `benchmorph` command end to end, as a user runs it (real subprocess, real sandbox)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from benchmorph.data.formats.humaneval import humaneval_problem_records
from benchmorph.testgen.mutants import mutants
from cli_runner import run_cli
from conftest import DemoRun


@pytest.fixture
def cache(tmp_path: Path) -> Path:
    return tmp_path / "cache"


def write_lines(path: Path, rows: list) -> Path:
    path.write_text("".join((row if isinstance(row, str) else json.dumps(row)) + "\n" for row in rows))
    return path


def one_error_line(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    return lines[0]


@pytest.mark.llm
def test_demo_sandbox_tour_counterfactual_runs_and_report(demo_run: DemoRun) -> None:
    out, stdout = demo_run.out, demo_run.result.stdout
    reference = json.loads((out / "reference" / "summary.json").read_text())
    broken = json.loads((out / "broken" / "summary.json").read_text())
    assert reference["n_problems"] == 164 and reference["pass@1"] == 1.0
    assert broken["n_samples"] >= 300 and broken["pass@1"] < 0.2
    mined = (out / "humaneval-ctf.jsonl").read_text().splitlines()
    assert len(mined) >= 15  # the miner's HumanEval yield floor (issue 11), as in test_mine
    summaries = {run.name: json.loads((run / "summary.json").read_text()) for run in (out / "runs").iterdir()}
    assert set(summaries) == {
        f"{side}-{model}" for side in ("humaneval", "ctf") for model in ("reference", "original", "local")
    }
    assert all(summary["n_samples"] == 10 for summary in summaries.values())
    assert summaries["ctf-reference"]["pass@1"] == 1.0 and summaries["ctf-original"]["pass@1"] == 0.0
    assert summaries["humaneval-original"]["pass@1"] == 1.0
    # The demo ends by writing the report and saying where it is.
    assert (out / "report.html").stat().st_size > 10_000 and (out / "report.json").exists()
    assert f"report: {(out / 'report.html').resolve()}" in stdout


def test_datasets_lists_humaneval(tmp_path: Path, cache: Path) -> None:
    result = run_cli("datasets", cache=cache, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "humaneval" in result.stdout and "164" in result.stdout and "mbpp+" in result.stdout


def test_evaluate_pass_at_k_warnings_and_identical_rerun(tmp_path: Path, cache: Path) -> None:
    records = {r["task_id"]: r for r in humaneval_problem_records()}
    rows = []
    for task in ("HumanEval/0", "HumanEval/2", "HumanEval/32"):
        record = records[task]
        rows.append({"task_id": task, "completion": record["canonical_solution"]})
        rows.append({"task_id": task, "solution": record["prompt"] + record["canonical_solution"]})
        broken = mutants(record["prompt"] + record["canonical_solution"], record["entry_point"], limit=1)[0]
        rows.append({"task_id": task, "solution": broken.code})
    rows.append({"task_id": "HumanEval/9999", "completion": "    return 1\n"})
    rows.append({"task_id": "HumanEval/0", "solution": "def has_close_elements(:\n"})
    samples = write_lines(tmp_path / "samples.jsonl", rows)

    outputs = []
    for run in ("a", "b"):
        result = run_cli(
            "evaluate",
            "humaneval",
            "--samples",
            str(samples),
            "--out",
            str(tmp_path / run),
            cache=cache,
            cwd=tmp_path,
        )
        assert result.returncode == 0, result.stderr
        assert "unknown task_id 'HumanEval/9999'" in result.stderr
        assert "samples.jsonl:11: field 'solution', line 1: not valid Python" in result.stderr
        summary = json.loads((tmp_path / run / "summary.json").read_text())
        verdicts = [json.loads(line) for line in (tmp_path / run / "results.jsonl").read_text().splitlines()]
        outputs.append((summary, verdicts))

    summary, verdicts = outputs[0]
    assert summary["benchmark"] == "humaneval"
    assert summary["n_problems"] == 3 and summary["n_samples"] == 10 and len(verdicts) == 10
    assert {"pass@1", "pass@2", "pass@3"} <= summary.keys() and "pass@4" not in summary
    by_sample = {(v["task_id"], v["index"]): v for v in verdicts}
    assert by_sample[("HumanEval/32", 0)]["status"] == "pass"  # any root passes the find_zero oracle
    assert by_sample[("HumanEval/0", 3)]["status"] == "error"  # the unparsable one
    # pass@1 over tasks: HumanEval/0 has 2 of 4 passing, the others 2 of 3 (unless a mutant survived).
    assert 0.5 <= summary["pass@1"] <= 1.0
    statuses = [(v["task_id"], v["index"], v["status"], v["passed"]) for v in verdicts]
    assert statuses == [(v["task_id"], v["index"], v["status"], v["passed"]) for v in outputs[1][1]]


@pytest.mark.parametrize(
    ("rows", "expected"),
    [
        ([{"task_id": "HumanEval/0", "completion": "x"}, "{not json"], "samples.jsonl:2: malformed JSON"),
        ([{"completion": "    return 1\n"}], "samples.jsonl:1: field 'task_id': missing field"),
        ([{"task_id": "HumanEval/0"}], "samples.jsonl:1: field 'solution'"),
        ([{"task_id": "HumanEval/0", "solution": 42}], "samples.jsonl:1: field 'solution': expected str"),
    ],
)
def test_bad_samples_give_one_line_and_exit_2(tmp_path: Path, cache: Path, rows: list, expected: str) -> None:
    samples = write_lines(tmp_path / "samples.jsonl", rows)
    result = run_cli("evaluate", "humaneval", "--samples", str(samples), cache=cache, cwd=tmp_path)
    assert expected in one_error_line(result)


def test_unknown_benchmark_and_missing_file(tmp_path: Path, cache: Path) -> None:
    samples = write_lines(
        tmp_path / "samples.jsonl", [{"task_id": "HumanEval/0", "completion": "    return 1\n"}]
    )
    assert "unknown benchmark 'nope'" in one_error_line(
        run_cli("evaluate", "nope", "--samples", str(samples), cache=cache, cwd=tmp_path)
    )
    missing = one_error_line(
        run_cli("evaluate", "humaneval", "--samples", str(tmp_path / "none.jsonl"), cache=cache, cwd=tmp_path)
    )
    assert "none.jsonl: file not found" in missing


def test_only_unknown_tasks_is_an_error(tmp_path: Path, cache: Path) -> None:
    samples = write_lines(
        tmp_path / "samples.jsonl", [{"task_id": "Other/1", "completion": "    return 1\n"}]
    )
    result = run_cli("evaluate", "humaneval", "--samples", str(samples), cache=cache, cwd=tmp_path)
    assert result.returncode == 2
    assert "no samples for any task" in result.stderr


def test_killed_evaluate_resumes_from_its_checkpoint(tmp_path: Path, cache: Path) -> None:
    """SIGKILL midway, run again: saved verdicts are reused, the rest are run, nothing is lost."""
    import signal
    import sqlite3
    import time

    records = {r["task_id"]: r for r in humaneval_problem_records()}
    # Distinct code per sample: identical samples share one verdict key (and one checkpoint row).
    loop = "def has_close_elements(n, t):\n    while True: pass  # {}\n"
    rows = [{"task_id": "HumanEval/0", "solution": loop.format(i)} for i in range(12)]
    body = records["HumanEval/0"]["canonical_solution"]
    rows += [{"task_id": "HumanEval/0", "completion": body + f"# {i}\n"} for i in range(3)]
    samples = write_lines(tmp_path / "samples.jsonl", rows)
    out = tmp_path / "run"
    env = {**os.environ, "BENCHMORPH_CACHE": str(cache)}
    args = [sys.executable, "-m", "benchmorph.cli", "evaluate", "humaneval", "--samples", str(samples)]
    args += ["--out", str(out), "--workers", "2", "--min-time-limit", "1"]
    proc = subprocess.Popen(args, env=env, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    checkpoint = out / "checkpoint.sqlite"
    deadline = time.monotonic() + 120
    saved = 0
    while time.monotonic() < deadline and saved < 4:
        time.sleep(0.5)
        if checkpoint.exists():
            try:
                with sqlite3.connect(checkpoint) as db:
                    saved = db.execute("SELECT COUNT(*) FROM verdicts").fetchone()[0]
            except sqlite3.OperationalError:
                saved = 0
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert 4 <= saved < 15, saved
    assert not (out / "summary.json").exists()

    result = run_cli(*args[3:], cache=cache, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    summary = json.loads((out / "summary.json").read_text())
    verdicts = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert summary["n_samples"] == 15 and len(verdicts) == 15
    assert summary["reused_verdicts"] >= saved
    assert sorted(v["index"] for v in verdicts) == list(range(15))
    assert [v["status"] for v in verdicts] == ["timeout"] * 12 + ["pass"] * 3


def test_generate_and_run_reject_bad_model_specs_and_task_ids(tmp_path: Path, cache: Path) -> None:
    line = one_error_line(run_cli("generate", "humaneval", "--model", "gpt4", cache=cache, cwd=tmp_path))
    assert "unknown model spec 'gpt4'" in line and "openai:MODEL@" in line
    line = one_error_line(
        run_cli(
            "run",
            "humaneval",
            "--model",
            "reference",
            "--tasks",
            "HumanEval/0,Nope/1",
            cache=cache,
            cwd=tmp_path,
        )
    )
    assert "field '--tasks'" in line and "Nope/1" in line


def test_run_reference_on_chosen_tasks_writes_samples_verdicts_and_manifest(
    tmp_path: Path, cache: Path
) -> None:
    out = tmp_path / "run"
    args = [
        "run",
        "humaneval",
        "--model",
        "reference",
        "--tasks",
        "HumanEval/7,HumanEval/3",
        "--out",
        str(out),
    ]
    result = run_cli(*args, cache=cache, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    samples = [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]
    assert [s["task_id"] for s in samples] == ["HumanEval/7", "HumanEval/3"]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["pass@1"] == 1.0 and summary["n_samples"] == 2
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["problem_ids"] == ["HumanEval/7", "HumanEval/3"] and manifest["model"] == "reference"
    stats = run_cli("cache", "stats", cache=cache, cwd=tmp_path)
    assert stats.returncode == 0 and "total" in stats.stdout
