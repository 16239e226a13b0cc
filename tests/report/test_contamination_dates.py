"""The second axis of contamination: release dates.  A model that passes only the problems released
before its cutoff is flagged on the date axis; the reference and a memorizer without a cutoff are not;
the verdict says which axis supports it; and several contaminated models no longer hide each other."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmorph.data.dates import parse_cutoff, release_date
from benchmorph.data.formats.native import write_native
from benchmorph.data.models import Variant
from benchmorph.data.registry import load_benchmark
from benchmorph.evaluation.rundir import load_run
from benchmorph.evaluation.runs import run_benchmark
from benchmorph.execution import Engine
from benchmorph.report.build import build_report
from benchmorph.report.contamination import axis_verdicts, contamination, date_split, parse_cutoffs
from benchmorph.report.html import render_html
from cli_runner import run_cli
from paths import FIXTURES
from synthetic_runs import _problem, _write_run

CUTOFF = "2024-01-01"
BEFORE = f"memorizer?before={CUTOFF}"


def test_livecodebench_problems_carry_their_contest_date_as_release_date() -> None:
    problems = load_benchmark(str(FIXTURES / "livecodebench_dated.jsonl")).problems
    assert len(problems) == 10
    dates = [release_date(problem.source) for problem in problems]
    assert [d.isoformat() for d in dates if d] == [p.source["release_date"] for p in problems]
    assert sum(d < parse_cutoff(CUTOFF) for d in dates if d) == 5
    sample = load_benchmark(str(FIXTURES / "livecodebench_sample.jsonl")).by_id()["fix001_a"]
    assert sample.source["release_date"] == "2024-01-06"


def test_a_malformed_release_date_in_the_native_format_names_file_line_and_field(tmp_path: Path) -> None:
    problem = _problem(0).model_copy(update={"source": {"release_date": "spring 2024"}})
    path = tmp_path / "dated.jsonl"
    write_native(path, [_problem(1), problem])
    result = run_cli("run", str(path), "--model", "reference", cache=tmp_path / "cache")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "dated.jsonl:2" in result.stderr and "source.release_date" in result.stderr


def test_cutoffs_parse_for_every_model_and_for_one() -> None:
    cutoffs = parse_cutoffs(["2024-02-01", f"{BEFORE}=2023-06-30"])
    assert {k: v.isoformat() for k, v in cutoffs.items()} == {"": "2024-02-01", BEFORE: "2023-06-30"}
    with pytest.raises(Exception, match="'Feb 2024' is not a date"):
        parse_cutoffs(["Feb 2024"])


@pytest.fixture(scope="module")
def dated_runs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Our LiveCodeBench fixture with the solutions written for it as references, run by the reference,
    a memorizer that has seen everything, and one whose training stopped at the cutoff."""
    root = tmp_path_factory.mktemp("dated")
    solutions = json.loads((FIXTURES / "livecodebench_dated_solutions.json").read_text())
    problems = [
        problem.model_copy(update={"reference": solutions[problem.id]})
        for problem in load_benchmark(str(FIXTURES / "livecodebench_dated.jsonl")).problems
    ]
    write_native(root / "lcb-dated.jsonl", problems)
    bench = load_benchmark(str(root / "lcb-dated.jsonl"))
    runs = []
    with Engine(workers=2, cache_root=root / "engine") as engine:
        for model in ("reference", "memorizer", BEFORE):
            result = run_benchmark(bench, model, root / model.replace("?", "-"), engine)
            runs.append(result.out_dir)
    return runs


def test_the_model_with_a_cutoff_is_flagged_on_the_date_axis(dated_runs: list[Path]) -> None:
    [group] = date_split([load_run(path) for path in dated_runs], parse_cutoffs([CUTOFF]))
    rows = {row.model: row for row in group.models}
    assert (group.problems, group.undated, group.first, group.last) == (10, 0, "2023-07-08", "2024-06-01")
    leaky = rows[BEFORE]
    assert (leaky.before, leaky.after, leaky.pass_before, leaky.pass_after) == (5, 5, 1.0, 0.0)
    assert leaky.flagged and leaky.gap_ci_low > 0
    for model in ("reference", "memorizer"):
        assert (rows[model].pass_before, rows[model].pass_after, rows[model].flagged) == (1.0, 1.0, False)
    verdicts = {v.model: v for v in axis_verdicts([], [group])}
    assert verdicts[BEFORE].axis == "dates" and verdicts[BEFORE].says == "contaminated: dates"
    assert verdicts["reference"].axis is None


def test_a_cutoff_the_problems_all_lie_on_one_side_of_says_so(dated_runs: list[Path]) -> None:
    [group] = date_split([load_run(path) for path in dated_runs], parse_cutoffs(["2030-01-01"]))
    assert group.models == [] and any("no judged problem released after 2030-01-01" in n for n in group.notes)
    with pytest.raises(Exception, match="--cutoff: no run of 'gpt-9'"):
        date_split([load_run(path) for path in dated_runs], parse_cutoffs(["gpt-9=2024-01-01"]))


def test_the_cli_prints_the_date_split_and_the_axis_of_each_verdict(
    dated_runs: list[Path], tmp_path: Path
) -> None:
    out = tmp_path / "verdict.json"
    result = run_cli(
        "contamination", *map(str, dated_runs), "--cutoff", CUTOFF, "--reference-models", "reference",
        "--json", str(out), cache=tmp_path / "cache",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "release dates on" in result.stdout and "FLAGGED" in result.stdout
    assert f"{BEFORE}: contaminated: dates" in result.stdout
    assert "memorizer: not flagged (dates measured)" in result.stdout
    data = json.loads(out.read_text())
    assert [v["model"] for v in data["verdicts"] if v["axis"] == "dates"] == [BEFORE]
    assert data["dates"][0]["models"][0]["model"] == BEFORE  # sorted by gap
    bad = run_cli("contamination", *map(str, dated_runs), "--cutoff", "soon", cache=tmp_path / "cache")
    assert bad.returncode == 2 and "'soon' is not a date" in bad.stderr and "Traceback" not in bad.stderr


def test_the_report_shows_the_date_split(dated_runs: list[Path], tmp_path: Path) -> None:
    with Engine(workers=1, cache_root=tmp_path / "engine") as engine:
        report = build_report(dated_runs, engine, cutoffs=parse_cutoffs([CUTOFF]))
        plain = build_report(dated_runs, engine)
    page = render_html(report)
    assert 'id="contamination_dates"' in page and "pass@1 before" in page and 'href="#contamination"' in page
    assert 'id="contamination_axes"' in page and "contaminated: dates" in page
    assert report.to_json()["dates"][0]["models"][0]["model"] == BEFORE
    assert plain.dates == [] and 'id="contamination"' not in render_html(plain)
    result = run_cli(
        "report", *map(str, dated_runs), "--cutoff", CUTOFF, "--html", str(tmp_path / "r.html"),
        cache=tmp_path / "cache",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "contaminated: dates" in (tmp_path / "r.html").read_text()


# ------------------------------------------------------------------ both axes, and several contaminated models

SEEDS, K = 40, 3


def _runs(root: Path, models: dict[str, tuple[float, float, float]]) -> list[Path]:
    """Models on 40 dated seeds (the first half released in 2023, the rest in 2024) and 3 metamorphic
    variants each: (static pass rate before 2024, static pass rate after, dynamic pass rate)."""
    parents = [
        _problem(i).model_copy(
            update={"source": {"release_date": "2023-06-01" if i < SEEDS // 2 else "2024-06-01"}}
        )
        for i in range(SEEDS)
    ]
    variants = [
        Variant(**p.model_dump(exclude={"id"}), id=f"{p.id}/meta-{k}", parent_id=p.id, transform="metamorphic",
                label="metamorphic", provenance={"parent_reference": p.reference, "parent_prompt": p.prompt})
        for p in parents for k in range(K)
    ]  # fmt: skip
    write_native(root / "synth.jsonl", parents)
    write_native(root / "synth-meta.jsonl", variants)
    runs = []
    half = SEEDS // 2
    for model, (before, after, dynamic) in models.items():
        rows = [(p.id, p.reference, (i < round(before * half)) if i < half else (i - half < round(after * half)))
                for i, p in enumerate(parents)]  # fmt: skip
        solved = round(dynamic * SEEDS * K)
        variant_rows = [
            (v.id, v.reference, (i * 7919) % (SEEDS * K) < solved) for i, v in enumerate(variants)
        ]
        runs.append(_write_run(root / f"orig-{model}", "synth", root / "synth.jsonl", model, rows, {}))
        runs.append(_write_run(root / f"meta-{model}", "synth-meta", root / "synth-meta.jsonl", model,
                               variant_rows, {v.id: v.parent_id for v in variants}))  # fmt: skip
    return runs


def test_two_contaminated_models_no_longer_hide_each_other_and_the_verdict_names_its_axes(
    tmp_path: Path,
) -> None:
    models = {
        "strong": (0.9, 0.9, 0.85),
        "good": (0.75, 0.75, 0.7),
        "middle": (0.6, 0.6, 0.5),
        "weak": (0.4, 0.4, 0.35),
        "leaky-text": (0.95, 0.95, 0.2),  # memorised the wording, whatever its date
        "leaky-both": (1.0, 0.4, 0.25),  # memorised what was out before its cutoff
        "leaky-dates": (1.0, 0.5, 0.75),  # dates only: rewordings of old problems it still solves
    }
    runs = [load_run(path) for path in _runs(tmp_path, models)]
    [group] = contamination(runs)
    flagged = sorted(row.model for row in group.models if row.flagged and row.side == "below")
    assert flagged == ["leaky-both", "leaky-text"]
    [dates] = date_split(runs, parse_cutoffs(["2024-01-01"]))
    assert sorted(row.model for row in dates.models if row.flagged) == ["leaky-both", "leaky-dates"]
    axes = {v.model: v.axis for v in axis_verdicts([group], [dates])}
    assert axes == {
        "strong": None, "good": None, "middle": None, "weak": None,
        "leaky-text": "rewrites", "leaky-both": "both", "leaky-dates": "dates",
    }  # fmt: skip
