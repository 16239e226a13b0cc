"""The `benchmorph` command end to end, as a user runs it (real subprocess, real sandbox)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from benchmorph.data.formats.humaneval import humaneval_problem_records
from benchmorph.evaluation.study.demo import DEMO_TASKS
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


DEMO_LABELS = ["local?threads=1", "reference", "original", "memorizer?originals=humaneval"]


@pytest.mark.llm
def test_demo_sandbox_tour_then_a_study_of_every_offline_family(demo_run: DemoRun) -> None:
    out, stdout = demo_run.out, demo_run.result.stdout
    reference = json.loads((out / "reference" / "summary.json").read_text())
    broken = json.loads((out / "broken" / "summary.json").read_text())
    assert reference["n_problems"] == 164 and reference["pass@1"] == 1.0
    assert broken["n_samples"] >= 300 and broken["pass@1"] < 0.2
    study = json.loads((out / "study.json").read_text())
    # Every family that builds offline is built (from the registry: ctf needs an LLM and says so).
    families = {family["transform"]: family for family in study["families"]}
    assert families["ctf"]["off"] == "needs --generator SPEC"
    assert {s["name"]: s["uses_llm"] for s in study["sets"]} == {
        "mine": False,
        "metamorphic": False,
        "evolve": False,
    }
    assert all(s["variants"] >= 5 for s in study["sets"]), study["sets"]
    assert study["benchmark"]["problems"] == len(DEMO_TASKS)
    assert study["models"] == DEMO_LABELS[:1] and list(study["baselines"]) == DEMO_LABELS[1:]
    runs = {(run["set"], run["model"]): run for run in study["runs"]}
    assert set(runs) == {(s, m) for s in ("originals", "mine", "metamorphic", "evolve") for m in DEMO_LABELS}
    # The baselines behave: the reference solves everything, `original` none of the changed problems.
    for set_name in ("originals", "mine", "metamorphic", "evolve"):
        assert runs[(set_name, "reference")]["pass@1"] == 1.0, set_name
    assert runs[("mine", "original")]["pass@1"] == 0.0 and runs[("metamorphic", "original")]["pass@1"] == 1.0
    findings = study["findings"]
    evolved = {(row["model"], row["type"]): row for row in findings["evolution"]}
    for kind in ("combine", "tool_use"):
        assert evolved[("original", kind)]["pass_variant"]["value"] == 0.0, kind
        assert evolved[("reference", kind)]["drop"]["value"] == 0.0, kind
    verdicts = {row["model"]: row for row in findings["contamination"]}
    assert verdicts["memorizer?originals=humaneval"]["flagged"] is True
    assert verdicts["memorizer?originals=humaneval"]["verdict"] == "contaminated"
    assert verdicts["reference"]["flagged"] is False and verdicts["original"]["flagged"] is False
    # The slice is chosen so that every finding of every model prints a number, not "too few problems".
    for row in findings["sensitivity"] + findings["evolution"]:
        assert row["drop"]["value"] is not None and row["drop"]["n"] >= 5, row
    for row in findings["contamination"]:
        assert row["gap"]["value"] is not None and row["gap"]["n"] >= 5, row
    assert {row["model"] for row in findings["sensitivity"]} == set(DEMO_LABELS)
    # The CLI shows the tour, then the findings, and ends with the report's path.
    assert "HumanEval through the sandbox" in stdout and "bwrap" in stdout
    assert stdout.index("HumanEval through the sandbox") < stdout.index("Findings per model")
    assert "CONTAMINATED" in stdout and "[bold]" not in stdout
    assert (out / "report.html").stat().st_size > 10_000 and (out / "report.json").exists()
    assert stdout.rstrip().endswith(f"report: {(out / 'report.html').resolve()}")


@pytest.mark.slow
def test_demo_without_the_model_studies_the_baselines_alone(tmp_path: Path) -> None:
    result = run_cli(
        "demo", "--no-local", "--out", str(tmp_path / "demo"), cache=tmp_path / "cache", cwd=tmp_path
    )
    assert result.returncode == 0, result.stderr
    study = json.loads((tmp_path / "demo" / "study.json").read_text())
    # reference stands in for the model (a study needs one) and so runs once, not again as a baseline.
    assert study["models"] == ["reference"] and list(study["baselines"]) == DEMO_LABELS[2:]
    labels = DEMO_LABELS[1:]
    assert {(run["set"], run["model"]) for run in study["runs"]} == {
        (s, m) for s in ("originals", "mine", "metamorphic", "evolve") for m in labels
    }
    verdicts = {row["model"]: row["flagged"] for row in study["findings"]["contamination"]}
    assert verdicts == {"reference": False, "original": False, "memorizer?originals=humaneval": True}
    assert "Findings per model" in result.stdout and DEMO_LABELS[0] not in {
        run["model"] for run in study["runs"]
    }
    assert "0 LLM answers paid" in result.stdout


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
