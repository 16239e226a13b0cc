"""Report analyses as functions: intervals, rank agreement, leaderboards with pass@k, and bad run folders."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmorph.data.models import Verdict
from benchmorph.evaluation.rundir import RunDir
from benchmorph.execution import Engine
from benchmorph.report import build_report, kendall_tau, leaderboard, to_markdown
from benchmorph.report.details import mark_changes
from benchmorph.report.stats import bootstrap_mean, bootstrap_paired_difference, ranks
from cli_runner import run_cli
from synthetic_runs import make_runs


def test_bootstrap_interval_brackets_the_mean_and_collapses_on_constants() -> None:
    values = [1.0] * 30 + [0.0] * 70
    interval = bootstrap_mean(values)
    assert interval.low < 0.3 < interval.high and interval.high - interval.low < 0.25
    assert bootstrap_mean(values) == interval  # fixed seed: every export shows the same interval
    constant = bootstrap_mean([1.0] * 12)
    assert constant.low == constant.high == 1.0
    paired = bootstrap_paired_difference([1.0] * 10, [1.0] * 5 + [0.0] * 5)
    assert 0.0 < paired.low < 0.5 < paired.high <= 1.0


def test_kendall_tau_and_ranks() -> None:
    first = {"a": 0.9, "b": 0.5, "c": 0.1}
    assert kendall_tau(first, first) == 1.0
    assert kendall_tau(first, {"a": 0.1, "b": 0.5, "c": 0.9}) == -1.0
    # One discordant pair out of three: (2 - 1) / 3.
    assert kendall_tau(first, {"a": 0.9, "b": 0.05, "c": 0.1}) == pytest.approx(1 / 3)
    # tau-b with a tie: a=b on the second scoring; pairs (a,c),(b,c) concordant, (a,b) tied in y only.
    assert kendall_tau(first, {"a": 0.5, "b": 0.5, "c": 0.1}) == pytest.approx(2 / (3 * 2) ** 0.5)
    assert kendall_tau({"a": 1.0, "b": 1.0}, {"a": 1.0, "b": 0.0}) is None  # all tied on one side
    assert ranks({"a": 1.0, "b": 1.0, "c": 0.5}) == {"a": 1, "b": 1, "c": 3}


def _run(path: Path, passes: dict[str, list[bool]]) -> RunDir:
    verdicts = [
        Verdict(task_id=task, index=i, status="pass" if ok else "fail")
        for task, results in passes.items()
        for i, ok in enumerate(results)
    ]
    return RunDir(path, {"model": "m", "benchmark": "b"}, {}, verdicts, [])


def test_leaderboard_reports_pass_at_k_where_every_problem_has_k_samples(tmp_path: Path) -> None:
    run = _run(tmp_path / "r", {"t/1": [True, False, False, False, False], "t/2": [False] * 5})
    (row,) = leaderboard([run])
    assert row.pass_at_1 == pytest.approx(0.1) and row.samples_per_problem == 5
    assert row.pass_at_k["pass@2"] == pytest.approx((1 - 6 / 10) / 2)
    assert row.pass_at_k["pass@5"] == pytest.approx(0.5)
    assert row.ci_low <= row.pass_at_1 <= row.ci_high
    assert row.statuses == {"pass": 1, "fail": 9}


def test_changed_words_are_marked_on_both_sides_and_text_is_kept() -> None:
    before = "Return the smallest  number.\n    >>> f([3, 1])\n    1"
    after = "Return the largest  number.\n    >>> f([3, 1])\n    3"
    left, right = mark_changes(before, after)
    assert "".join(text for text, _ in left) == before and "".join(text for text, _ in right) == after
    assert [text for text, changed in left if changed] == ["smallest", "1"]
    assert [text for text, changed in right if changed] == ["largest", "3"]


def test_synthetic_report_pairs_runs_and_counts_answered_original(tmp_path: Path) -> None:
    runs = make_runs(tmp_path, problems=12, models=3)
    with Engine(workers=2) as engine:
        report = build_report(runs, engine)
    assert len(report.leaderboard) == 6 and len(report.families) == 3 and len(report.problems) == 12
    for row in report.families:
        assert row.both + row.original_only + row.variant_only + row.neither == row.pairs == 12
        # Every failed variant sample is the parent's reference: each one answered the original.
        assert row.answered_original == row.variant_failures
        assert row.drop == pytest.approx(row.pass_original - row.pass_variant)
        assert row.drop_ci_low <= row.drop <= row.drop_ci_high
    (change,) = report.rankings
    assert change.models == 3 and change.same_problems
    details = {detail.id: detail for detail in report.details}
    detail = details["Synth/3/ctf-0"]
    assert [text for text, changed in detail.variant_marked if changed][:1] == ["minus"]
    assert set(detail.attempts) == {"model-00", "model-01", "model-02"}
    data = report.to_json()
    json.dumps(data, allow_nan=False)
    assert data["models"] == ["model-00", "model-01", "model-02"]
    assert "| model-00 | ctf |" in to_markdown(report)


def test_report_refuses_bad_run_folders_with_one_line(tmp_path: Path) -> None:
    runs = make_runs(tmp_path, problems=3, models=1)
    missing = run_cli("report", "nowhere", cache=tmp_path / "cache", cwd=tmp_path)
    assert missing.returncode == 2 and "Traceback" not in missing.stderr
    assert "nowhere/manifest.json" in missing.stderr

    results = runs[1] / "results.jsonl"
    lines = results.read_text().splitlines()
    results.write_text("\n".join([lines[0], '{"task_id": 3}', *lines[2:]]) + "\n")
    broken = run_cli("report", *map(str, runs), cache=tmp_path / "cache", cwd=tmp_path)
    assert broken.returncode == 2 and "Traceback" not in broken.stderr
    assert "results.jsonl:2" in broken.stderr and len(broken.stderr.strip().splitlines()) == 1

    results.write_text("\n".join(lines) + "\n")
    (tmp_path / "synth-ctf.jsonl").unlink()  # the variants file the run was made from is gone
    gone = run_cli("report", *map(str, runs), cache=tmp_path / "cache", cwd=tmp_path)
    assert gone.returncode == 2 and "Traceback" not in gone.stderr
    assert "synth-ctf.jsonl" in gone.stderr


def test_report_of_original_runs_only_has_leaderboard_problems_and_run_chart(tmp_path: Path) -> None:
    from benchmorph.report import render_html
    from benchmorph.report.tables import all_tables

    originals = make_runs(tmp_path, problems=5, models=2)[0::2]
    with Engine(workers=1) as engine:
        report = build_report(originals, engine)
    assert report.families == [] and report.rankings == [] and len(report.problems) == 5
    tables = {table.name: table for table in all_tables(report)}
    assert set(tables) == {"leaderboard", "problems"}
    assert tables["problems"].title == "Per problem: which models pass"
    html = render_html(report)
    assert 'id="data-bar-run-0"' in html and 'id="data-bar-run-1"' in html
    assert all(detail.variant_prompt is None and detail.original_prompt for detail in report.details)


def test_two_variant_files_of_one_family_for_one_model_are_both_reported(tmp_path: Path) -> None:
    original, variant = make_runs(tmp_path, problems=4, models=1)

    def renamed(text: str) -> str:
        return text.replace("ctf-0", "ctf-1").replace("synth-ctf", "synth-ctf2")

    (tmp_path / "synth-ctf2.jsonl").write_text(renamed((tmp_path / "synth-ctf.jsonl").read_text()))
    second = tmp_path / "ctf2-model-00"
    second.mkdir()
    for name in ("samples.jsonl", "results.jsonl", "summary.json", "manifest.json"):
        (second / name).write_text(renamed((variant / name).read_text()))
    with Engine(workers=1) as engine:
        report = build_report([original, variant, second], engine)
    assert sorted(row.variant_benchmark for row in report.families) == ["synth-ctf", "synth-ctf2"]
    ids = [row.id for row in report.problems]
    assert len(ids) == 8 and {i.rsplit("/", 1)[1] for i in ids} == {"ctf-0", "ctf-1"}
    assert all("model-00" in row.outcomes for row in report.problems)
