"""The contamination verdict (fit across models, prediction intervals, paired bootstrap gaps), the
memorizer baseline, and the calibration: reference and original pass, memorizer is flagged."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from benchmorph.data.errors import InputError
from benchmorph.data.formats.native import write_native
from benchmorph.data.models import Problem, Variant
from benchmorph.data.registry import load_benchmark, select_problems
from benchmorph.evaluation.rundir import load_run
from benchmorph.evaluation.runs import run_benchmark
from benchmorph.execution import Engine
from benchmorph.models.baselines import baseline_code, memorized
from benchmorph.models.spec import parse_spec
from benchmorph.morph.transform import MorphContext, run_transform, write_morph_report
from benchmorph.morph.transforms.metamorphic.rules import propose_variants
from benchmorph.report.build import build_report
from benchmorph.report.contamination import contamination, fit_models, t_quantile
from benchmorph.report.html import render_html
from cli_runner import run_cli
from synthetic_runs import _problem, _write_run

SEEDS = 40
K = 3


def test_t_quantiles_match_the_tables() -> None:
    for df, value in ((1, 12.7062), (2, 4.3027), (5, 2.5706), (10, 2.2281), (30, 2.0423)):
        assert t_quantile(0.975, df) == pytest.approx(value, abs=2e-4)


def test_the_fit_is_least_squares_and_falls_back_to_the_mean() -> None:
    static, dynamic = [0.2, 0.5, 0.7, 0.9], [0.15, 0.5, 0.6, 0.85]
    fit = fit_models(static, dynamic)
    assert fit is not None and fit.kind == "line" and fit.df == 2
    slope, intercept = np.polyfit(static, dynamic, 1)
    assert (fit.slope, fit.intercept) == pytest.approx((slope, intercept))
    flat = fit_models([1.0, 1.0], [1.0, 0.0])
    assert flat is not None and (flat.kind, flat.intercept, flat.df) == ("mean", 0.5, 1)
    assert fit_models([0.5], [0.5]) is None


def _metamorphic_runs(root: Path, models: dict[str, tuple[float, float]], seeds: int = SEEDS) -> list[Path]:
    """Run directories for each model on ``seeds`` originals and K metamorphic variants of each: the
    first ``static * seeds`` originals pass, and per seed the variants pass at rate ``dynamic``
    (spread evenly over seeds, so the per-seed rates vary as a real model's do)."""
    parents = [_problem(i) for i in range(seeds)]
    variants = [
        Variant(
            **parent.model_dump(exclude={"id"}),
            id=f"{parent.id}/meta-{k}",
            parent_id=parent.id,
            transform="metamorphic",
            label="metamorphic",
            provenance={"parent_reference": parent.reference, "parent_prompt": parent.prompt},
        )
        for parent in parents
        for k in range(K)
    ]
    write_native(root / "synth.jsonl", parents)
    write_native(root / "synth-meta.jsonl", variants)
    runs = []
    for model, (static, dynamic) in models.items():
        passing = round(static * seeds)
        original_rows = [(p.id, p.reference, i < passing) for i, p in enumerate(parents)]
        solved = round(dynamic * seeds * K)
        variant_rows = [
            (v.id, v.reference, (i * 7919) % (seeds * K) < solved) for i, v in enumerate(variants)
        ]
        runs.append(
            _write_run(root / f"orig-{model}", "synth", root / "synth.jsonl", model, original_rows, {})
        )
        runs.append(
            _write_run(
                root / f"meta-{model}",
                "synth-meta",
                root / "synth-meta.jsonl",
                model,
                variant_rows,
                {v.id: v.parent_id for v in variants},
            )
        )
    return runs


MODELS = {
    "strong": (0.90, 0.85),
    "good": (0.75, 0.70),
    "middle": (0.60, 0.50),
    "weak": (0.40, 0.35),
    "tiny": (0.20, 0.15),
    "leaky": (0.90, 0.30),
}


def test_a_model_far_below_the_others_line_is_flagged_and_the_rest_are_not(tmp_path: Path) -> None:
    groups = contamination(_metamorphic_runs(tmp_path, MODELS), reference_models=["good", "weak"])
    assert len(groups) == 1
    group = groups[0]
    assert (group.benchmark, group.seeds) == ("synth", SEEDS)
    rows = {row.model: row for row in group.models}
    assert rows["leaky"].flagged and rows["leaky"].side == "below"
    assert rows["leaky"].dynamic < rows["leaky"].interval_low  # type: ignore[operator]
    assert not any(rows[name].flagged for name in MODELS if name != "leaky")
    assert {row.fit for row in group.models} == {"line"}
    assert rows["leaky"].static == pytest.approx(0.9) and rows["leaky"].dynamic == pytest.approx(
        0.3, abs=0.01
    )
    assert rows["leaky"].gap_ci_low > 0.3 and rows["leaky"].exceeds_reference is True
    assert rows["strong"].exceeds_reference is False and rows["good"].reference
    assert rows["good"].gap_ci_low <= rows["good"].gap <= rows["good"].gap_ci_high
    assert group.models[0].model == "leaky"  # sorted by gap


def test_naming_a_reference_model_that_was_not_run_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="--reference-models: .*'gpt-9'"):
        contamination(_metamorphic_runs(tmp_path, MODELS), reference_models=["gpt-9"])


def test_fewer_than_three_models_give_no_verdict_and_the_cli_says_so(tmp_path: Path) -> None:
    runs = _metamorphic_runs(tmp_path, {"strong": MODELS["strong"], "leaky": MODELS["leaky"]})
    assert contamination(runs) == []
    result = run_cli("contamination", *map(str, runs), cache=tmp_path / "cache")
    assert result.returncode == 2
    assert "3 or more models" in result.stderr and "Traceback" not in result.stderr


def test_the_cli_prints_the_table_and_writes_json(tmp_path: Path) -> None:
    runs = _metamorphic_runs(tmp_path, MODELS)
    out = tmp_path / "verdict.json"
    result = run_cli(
        "contamination", *map(str, runs), "--json", str(out), "--reference-models", "good,weak",
        cache=tmp_path / "cache",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "FLAGGED" in result.stdout and "1 of 6 models flagged as contaminated: leaky" in result.stdout
    data = json.loads(out.read_text())
    assert data[0]["benchmark"] == "synth"
    assert [row["model"] for row in data[0]["models"] if row["flagged"]] == ["leaky"]


def test_the_report_gains_a_contamination_section(tmp_path: Path) -> None:
    runs = _metamorphic_runs(tmp_path, {k: MODELS[k] for k in ("strong", "middle", "weak", "leaky")}, seeds=8)
    with Engine(workers=1, cache_root=tmp_path / "engine") as engine:
        report = build_report(runs, engine)
        plain = build_report(
            [run for run in runs if "leaky" not in run.name and "weak" not in run.name], engine
        )
    assert [row.model for row in report.contamination[0].models][0] == "leaky"
    page = render_html(report)
    assert 'id="contamination"' in page and 'href="#contamination"' in page
    assert "static pass@1" in page and "prediction interval" in page
    assert report.to_json()["contamination"][0]["models"][0]["model"] == "leaky"
    # Two models: no verdict (the section keeps only where the variants sit on the memoriser's curve).
    assert plain.contamination == [] and 'id="table-contamination"' not in render_html(plain)
    assert 'id="table-contamination_recall"' in render_html(plain) and 'id="chart-recall-0"' in render_html(
        plain
    )


def test_the_report_shows_pass_at_k_beside_dypass_at_k_for_any_number_of_models(tmp_path: Path) -> None:
    runs = _metamorphic_runs(tmp_path, {"strong": MODELS["strong"], "leaky": MODELS["leaky"]}, seeds=8)
    with Engine(workers=1, cache_root=tmp_path / "engine") as engine:
        report = build_report(runs, engine)
    assert report.contamination == []  # two models: no verdict, but the table of scores
    rows = {row.model: row for row in report.metamorphic}
    assert set(rows) == {"strong", "leaky"} and all(row.seeds == 8 for row in rows.values())
    for model, run in (("strong", runs[1]), ("leaky", runs[3])):
        verdicts = load_run(run).verdicts
        solved: dict[str, list[bool]] = {}
        for verdict in verdicts:
            solved.setdefault(verdict.task_id.split("/meta-")[0], []).append(verdict.ok)
        # by hand: DyPass@1 is the mean per-seed solve rate, DyPass@K the share of seeds with any solved
        assert rows[model].dypass["dypass@1"] == pytest.approx(np.mean([np.mean(v) for v in solved.values()]))
        assert rows[model].dypass[f"dypass@{K}"] == pytest.approx(np.mean([any(v) for v in solved.values()]))
    assert rows["leaky"].passk == {"pass@1": pytest.approx(0.875)}  # 7 of the 8 seeds' originals
    page = render_html(report)
    assert 'id="metamorphic"' in page and 'href="#metamorphic"' in page
    assert f"DyPass@{K}" in page and "Pass@1" in page and "BLEU-4 external" in page


# ---------------------------------------------------------------------------------- the memorizer


def _parent() -> Problem:
    prompt = 'def add(a, b):\n    """Return the sum of a and b.\n    >>> add(1, 2)\n    3\n    """\n'
    return Problem(id="T/0", prompt=prompt, entry_point="add", reference=prompt + "    return a + b\n")


def _variant(parent: Problem, prompt: str, provenance: dict[str, str]) -> Variant:
    return Variant(
        **parent.model_dump(exclude={"id", "prompt"}),
        id="T/0/meta-0",
        prompt=prompt,
        parent_id=parent.id,
        transform="metamorphic",
        provenance=provenance,
    )


def test_the_memorizer_answers_only_prompts_it_has_seen_byte_for_byte() -> None:
    parent = _parent()
    known = {"parent_prompt": parent.prompt, "parent_reference": parent.reference}
    reworded = _variant(parent, parent.prompt.replace("Return the sum", "Give back the sum"), known)
    same = _variant(parent, parent.prompt, known)
    memory = memorized([parent, reworded, same])
    assert baseline_code("memorizer", parent, memory) == parent.reference
    assert baseline_code("memorizer", same, memory) == parent.reference
    code = baseline_code("memorizer", reworded, memory)
    assert code.startswith("def add(*args, **kwargs):") and "raise NotImplementedError" in code
    spaced = _variant(parent, parent.prompt + " ", known)  # one byte more: not the memorised prompt
    assert "NotImplementedError" in baseline_code("memorizer", spaced, memory)


def test_the_memorizer_needs_to_know_the_originals_of_foreign_variants() -> None:
    parent = _parent()
    foreign = _variant(parent, "def add(a, b):\n    pass\n", {"parent_reference": parent.reference})
    with pytest.raises(InputError, match=r"memorizer\?originals="):
        memorized([foreign])
    humaneval = load_benchmark("humaneval").by_id()["HumanEval/0"]
    copied = humaneval.model_copy(update={"id": "copy"})
    memory = memorized([copied], "humaneval")
    assert baseline_code("memorizer", copied, memory) == humaneval.reference
    assert parse_spec("memorizer?originals=humaneval").options == {"originals": "humaneval"}
    with pytest.raises(InputError, match="belongs to original and memorizer specs only"):
        parse_spec("reference?originals=humaneval")


# ---------------------------------------------------------------------------------- calibration

# Seeds whose offline retellings pass the issue-24 gates at K = 2 (measured 2026-12-02: two each).  They
# were HumanEval's (0, 7, 29, 40, 57, 80) until the 3-word phrase limit of review24d left two HumanEval
# seeds with both retellings at K = 2 (7 and 57), then Mbpp/14, 20, 58, 62, 66 and 68 until the gates read
# synonym swaps back (review24h): MBPP+ keeps 17 seeds with both, HumanEval none.
CALIBRATION = "Mbpp/14,Mbpp/66,Mbpp/82,Mbpp/85,Mbpp/124,Mbpp/139"


@pytest.mark.slow
def test_calibration_reference_and_original_pass_and_the_memorizer_is_flagged(tmp_path: Path) -> None:
    from paths import MBPP_PLUS

    bench = load_benchmark("mbpp+", MBPP_PLUS)
    seeds = select_problems(bench.problems, tasks=CALIBRATION)
    with Engine(workers=2, cache_root=tmp_path / "engine") as engine:
        report = run_transform("metamorphic", seeds, MorphContext(engine=engine), {"variants": 2})
        assert len(report.variants) == 12
        write_morph_report(report, tmp_path / "v.jsonl")
        variants = load_benchmark(str(tmp_path / "v.jsonl"))
        runs = []
        for model in ("reference", "memorizer", "original"):
            static = run_benchmark(bench, model, tmp_path / f"originals-{model}", engine, problems=seeds)
            dynamic = run_benchmark(variants, model, tmp_path / f"v-{model}", engine)
            runs += [static.out_dir, dynamic.out_dir]
            assert static.summary["pass@1"] == 1.0
            expected = 0.0 if model == "memorizer" else 1.0
            assert dynamic.summary["pass@1"] == expected
            assert [dynamic.summary[f"dypass@{k}"] for k in range(1, 3)] == [expected] * 2
        table = {row.model: row for row in build_report(runs, engine).metamorphic}
    assert {model: row.dypass["dypass@2"] for model, row in table.items()} == {
        "reference": 1.0,
        "memorizer": 0.0,
        "original": 1.0,
    }
    assert all(row.bleu_external is not None and 0 < row.bleu_external < 1 for row in table.values())
    [group] = contamination([load_run(path) for path in runs], reference_models=["reference"])
    rows = {row.model: row for row in group.models}
    assert group.seeds == 6
    assert (rows["reference"].static, rows["reference"].dynamic, rows["reference"].flagged) == (
        1.0,
        1.0,
        False,
    )
    assert (rows["original"].static, rows["original"].dynamic, rows["original"].flagged) == (1.0, 1.0, False)
    assert (rows["memorizer"].static, rows["memorizer"].dynamic) == (1.0, 0.0)
    assert rows["memorizer"].flagged and rows["memorizer"].side == "below"
    assert rows["memorizer"].exceeds_reference is True
    external = [v.provenance["bleu_external"] for v in report.variants]
    assert 0.0 < sum(external) / len(external) < 1.0
    assert any("external (variant vs original)" in note for note in report.notes)


def test_variant_prompts_never_equal_an_original_so_the_memorizer_cannot_answer_them(tmp_path: Path) -> None:
    originals = {problem.prompt for problem in load_benchmark("humaneval").problems}
    with Engine(
        workers=1, cache_root=tmp_path / "engine"
    ) as engine:  # retellings show the reference's outputs
        parent = engine.prepare([load_benchmark("humaneval").by_id()["HumanEval/12"]]).problems[0]
    made = propose_variants(parent, 5).variants
    assert made
    for variant in made:
        assert variant.prompt not in originals
