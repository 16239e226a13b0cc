"""The run use cases as library calls (``benchmorph.evaluation.runs``): what the CLI's evaluate, generate
and run do, without the CLI, in the real sandbox.  They print nothing: warnings come back as notices
(to ``notify`` as they happen, and in the result) and progress goes through the caller's factory."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from benchmorph.data import InputError, Sample, load_benchmark, select_problems
from benchmorph.data.formats.native import write_native
from benchmorph.evaluation import ModelAccess, Notice, evaluate_run, generate_run, run_benchmark
from benchmorph.execution import Engine
from benchmorph.models import RetryPolicy


def own_output(text: str) -> list[str]:
    """Lines printed by anything but the sandbox's own once-per-process warnings (a weaker mode)."""
    return [line for line in text.splitlines() if line.strip() and not line.startswith("benchmorph:")]


def test_evaluate_run_hands_warnings_to_notify_and_prints_nothing(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    bench = load_benchmark("humaneval")
    good, broken = bench.problems[0], bench.problems[1]
    samples = [
        Sample(task_id=good.id, code=good.reference, model="m"),
        Sample(task_id=broken.id, code="def separate_paren_groups(:\n", model="m", origin="s.jsonl:2"),
    ]
    heard: list[Notice] = []
    with Engine(workers=1) as engine:
        result = evaluate_run(
            bench, samples, tmp_path / "run", engine, samples_file=tmp_path / "s.jsonl", notify=heard.append
        )
    assert heard == result.notices
    assert [(n.level, n.text) for n in heard] == [
        (
            "warning",
            "s.jsonl:2: field 'solution', line 1: not valid Python (invalid syntax); judged as an error",
        )
    ]
    assert result.summary["statuses"] == {"error": 1, "pass": 1} and result.summary["pass@1"] == 0.5
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["samples_file"] == str((tmp_path / "s.jsonl").resolve())
    assert manifest["source"] == {"benchmark": "humaneval", "data": None} and manifest["model"] == "m"
    assert (tmp_path / "run" / "results.jsonl").read_text().count("task_id") == 2
    captured = capfd.readouterr()
    assert own_output(captured.out) == [] and own_output(captured.err) == []
    with pytest.raises(ValueError, match="at least one sample"):
        evaluate_run(bench, [], tmp_path / "empty", Engine(workers=1))


def test_generate_run_failed_requests_are_counted_notices(tmp_path: Path) -> None:
    """A refused endpoint: every sample carries its error, ten are named, the rest counted, and the run
    goes on; the samples file is written."""
    with socket.socket() as closed:  # bound, never listening: connections are refused at once
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
        problems = load_benchmark("humaneval").problems[:12]
        heard: list[Notice] = []
        report = generate_run(
            problems,
            f"openai:m@http://127.0.0.1:{port}/v1",
            access=ModelAccess(cache_path=tmp_path / "llm.sqlite", policy=RetryPolicy(retries=0, timeout=5)),
            out=tmp_path / "s.jsonl",
            notify=heard.append,
        )
    assert report.errors == 12 and all(sample.error for sample in report.samples)
    assert heard[0] == Notice("info", "generation: 0 new answers, 0 from the cache, 12 failed")
    failures = [n for n in heard[1:] if n.level == "warning"]
    assert len(failures) == 11 and failures[0].text.startswith("generation failed for HumanEval/0 #0")
    assert failures[-1].text == "... and 2 more failed samples"
    assert (tmp_path / "s.jsonl").read_text().count("task_id") == 12


def test_run_benchmark_reports_progress_through_the_factory_and_resumes(tmp_path: Path) -> None:
    seen: list[tuple[str, int | None, int]] = []

    @contextmanager
    def progress(description: str, total: int | None) -> Iterator:
        done = [0]

        def advance(count: int = 1) -> None:
            done[0] += count

        yield advance
        seen.append((description, total, done[0]))

    bench = load_benchmark("humaneval")
    chosen = select_problems(bench.problems, tasks="HumanEval/7,HumanEval/3")
    access = ModelAccess(cache_path=tmp_path / "llm.sqlite")
    with Engine(workers=1) as engine:
        first = run_benchmark(bench, "original", tmp_path / "run", engine, problems=chosen, access=access)
        again = run_benchmark(
            bench, "original", tmp_path / "run", engine, problems=chosen, access=access, progress=progress
        )
    assert seen == [("generate original", 2, 2), ("references humaneval", 2, 2), ("evaluate original", 2, 2)]
    assert first.summary["pass@1"] == 1.0 and first.summary["reused_verdicts"] == 0
    assert again.summary["reused_verdicts"] == 2  # verdicts come from the run's checkpoint
    assert again.generation is not None and again.generation.requests == 0
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["problem_ids"] == ["HumanEval/7", "HumanEval/3"] and manifest["model"] == "original"
    assert manifest["generation"] == {"requests": 0, "cached": 0, "errors": 0}


def test_select_problems_keeps_the_order_given_and_names_the_field_of_an_unknown_id() -> None:
    problems = load_benchmark("humaneval").problems
    assert [p.id for p in select_problems(problems, tasks=" HumanEval/5, HumanEval/2,HumanEval/5,")] == [
        "HumanEval/5",
        "HumanEval/2",
    ]
    assert [p.id for p in select_problems(problems, 2, ["HumanEval/9", "HumanEval/1", "HumanEval/4"])] == [
        "HumanEval/9",
        "HumanEval/1",
    ]
    assert len(select_problems(problems, 3)) == 3 and len(select_problems(problems)) == 164
    with pytest.raises(InputError) as caught:
        select_problems(problems, tasks="HumanEval/1,HumanEval/x", field="--tasks")
    assert str(caught.value) == "<input>: field '--tasks': unknown task id 'HumanEval/x'"


def test_a_loaded_benchmark_says_how_to_load_it_again(tmp_path: Path) -> None:
    assert load_benchmark("humaneval").source == {"benchmark": "humaneval", "data": None}
    problem = load_benchmark("humaneval").problems[0]
    path = tmp_path / "mine.jsonl"
    write_native(path, [problem.model_copy(update={"id": "mine/0"})])
    loaded = load_benchmark(str(path))
    assert loaded.source == {"benchmark": str(path.resolve()), "data": None}
    assert load_benchmark(loaded.source["benchmark"] or "").by_id().keys() == {"mine/0"}
