"""EvoEval's published sets get the evolve metrics and report families our generated sets get.

Runs of `reference` and of the memorizer (it knows HumanEval and nothing else)
on the HumanEval seeds and on hand-written release-shaped sets
(tests/fixtures/evoeval_release): per-type pass@1 and drop, the composition
ratio, `sensitivity` pairing and the report's `evolve/<type>` families, with
the tasks whose seed the release does not tell left out of every parent
comparison.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from benchmorph.data.errors import InputError
from benchmorph.data.registry import load_benchmark, select_problems
from benchmorph.evaluation.evolve_metrics import evolve_for_runs
from benchmorph.evaluation.rundir import RunDir, load_run
from benchmorph.evaluation.runs import run_benchmark
from benchmorph.evaluation.sensitivity import pair_runs, sensitivity
from benchmorph.execution import Engine
from benchmorph.report.build import build_report
from paths import FIXTURES

RELEASE = FIXTURES / "evoeval_release"
SETS = ("combine", "verbose", "difficult", "creative")
SEEDS = (
    "HumanEval/0,HumanEval/2,HumanEval/24,HumanEval/28,HumanEval/29,HumanEval/34,HumanEval/35,HumanEval/72"
)
MEMORIZER = "memorizer?originals=humaneval"
MODELS = ("reference", MEMORIZER)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], RunDir]:
    """(model, "humaneval" or a set's type) -> its run directory."""
    root = tmp_path_factory.mktemp("evoeval-release")
    humaneval = load_benchmark("humaneval")
    seeds = select_problems(humaneval.problems, tasks=SEEDS)
    found = {}
    with Engine(workers=2, cache_root=root / "engine") as engine:
        for number, model in enumerate(MODELS):
            out = run_benchmark(humaneval, model, root / f"he-{number}", engine, problems=seeds).out_dir
            found[(model, "humaneval")] = load_run(out)
            for kind in SETS:
                bench = load_benchmark(f"evoeval_{kind}", RELEASE / f"EvoEval_{kind}.jsonl")
                out = run_benchmark(bench, model, root / f"{kind}-{number}", engine).out_dir
                found[(model, kind)] = load_run(out)
    return found


def _summary(run: RunDir) -> dict[str, Any]:
    return json.loads((run.path / "summary.json").read_text())


def test_set_runs_summarise_per_type_and_never_pair_a_task_with_itself(runs) -> None:
    verbose = runs[("reference", "verbose")]
    # Verbose keeps HumanEval's ids: a task is not its own parent in one run, so no drop is made up.
    assert verbose.parent_ids == {"HumanEval/0": "HumanEval/0", "HumanEval/2": "HumanEval/2"}
    assert _summary(verbose)["evolve"]["types"] == {
        "verbose": {"variants": 2, "pass_at_1": 1.0, "parents": 0, "parent_pass_at_1": None, "drop": None}
    }
    assert _summary(runs[(MEMORIZER, "verbose")])["evolve"]["types"]["verbose"]["pass_at_1"] == 0.0


def test_metrics_against_the_humaneval_runs(runs) -> None:
    metrics = {
        (model, kind): evolve_for_runs(runs[(model, "humaneval")], runs[(model, kind)])
        for model in MODELS
        for kind in SETS
    }
    reference_combine = metrics[("reference", "combine")]
    # Three combined tasks, one of unknown seed: four parents judged, two compositions eligible.
    combine = reference_combine.types["combine"]
    assert (combine.variants, combine.pass_at_1, combine.parents, combine.drop) == (3, 1.0, 4, 0.0)
    assert reference_combine.composition.to_json() == {"eligible": 2, "solved": 2, "ratio": 1.0}
    memorizer_combine = metrics[(MEMORIZER, "combine")]
    assert memorizer_combine.types["combine"].drop == 1.0
    assert memorizer_combine.composition.to_json() == {"eligible": 2, "solved": 0, "ratio": 0.0}
    # The unknown-seed creative task counts in the set's pass@1, not among the parents.
    creative = metrics[(MEMORIZER, "creative")].types["creative"]
    assert (creative.variants, creative.pass_at_1, creative.parents, creative.parent_pass_at_1) == (
        2,
        0.0,
        1,
        1.0,
    )
    for kind in ("verbose", "difficult"):
        score = metrics[(MEMORIZER, kind)].types[kind]
        assert (score.variants, score.parents, score.drop) == (2, 2, 1.0), kind


def test_sensitivity_pairs_each_set_with_the_humaneval_run(runs) -> None:
    loaded = list(runs.values())
    pairs = pair_runs(loaded)
    assert len(pairs) == len(MODELS) * len(SETS)
    assert all(original.benchmark == "humaneval" for original, _ in pairs)
    with Engine(workers=2) as engine:
        by_set = {
            (variant.model, variant.benchmark): sensitivity(original, variant, engine)
            for original, variant in pairs
        }
    # Only the tasks whose seed is known are paired (combine 2 of 3, creative 1 of 2).
    assert {key: result.pairs for key, result in by_set.items() if key[0] == "reference"} == {
        ("reference", "evoeval_combine"): 2,
        ("reference", "evoeval_verbose"): 2,
        ("reference", "evoeval_difficult"): 2,
        ("reference", "evoeval_creative"): 1,
    }
    memorizer = by_set[(MEMORIZER, "evoeval_verbose")]
    # Verbose rewordings keep the meaning: the memorizer's failed answers still fail their parent.
    assert (memorizer.pass_original, memorizer.pass_variant, memorizer.original_only) == (1.0, 0.0, 2)


def test_report_shows_each_release_set_as_its_evolve_family(runs) -> None:
    with Engine(workers=2) as engine:
        report = build_report([run.path for run in runs.values()], engine)
    families = {(row.model, row.family): row for row in report.families}
    assert {family for _, family in families} == {f"evolve/{kind}" for kind in SETS}
    assert families[("reference", "evolve/combine")].composition_ratio == 1.0
    assert families[(MEMORIZER, "evolve/combine")].composition_ratio == 0.0
    assert families[("reference", "evolve/combine")].composition_eligible == 2
    assert all(
        row.composition_ratio is None for (_, family), row in families.items() if family != "evolve/combine"
    )
    assert families[(MEMORIZER, "evolve/difficult")].drop == 1.0
    # The sets all number their tasks EvoEval/0, EvoEval/1...: one row (and one drill-down, with
    # that set's own prompt) per set and task, never one overwriting the other.
    rows = {(row.family, row.id): row for row in report.problems}
    sets = {
        kind: load_benchmark(f"evoeval_{kind}", RELEASE / f"EvoEval_{kind}.jsonl").by_id() for kind in SETS
    }
    for kind, problems in sets.items():
        for problem in problems.values():
            if problem.parent_id:  # a task whose seed the release does not tell is in no pairing
                assert (f"evolve/{kind}", problem.id) in rows, (kind, problem.id)
    shared = [(family, task) for family, task in rows if sum(task == other for _, other in rows) > 1]
    assert {task for _, task in shared} == {"EvoEval/1"}, shared  # combine's and creative's
    assert len({row.key for row in report.problems}) == len(report.problems)
    details = {detail.key: detail for detail in report.details}
    for family, task in shared:
        row = rows[(family, task)]
        assert row.key == f"{task} ({family})"
        detail = details[row.key]
        assert detail.family == family
        assert detail.variant_prompt == sets[family.split("/")[1]][task].prompt, family
        assert set(detail.attempts) == set(MODELS)


def test_original_baseline_answers_published_tasks_from_their_parents_by_id(tmp_path: Path) -> None:
    """EvoEval's rows carry no parent reference: ``original?originals=humaneval`` finds each parent by id,
    calls it under the variant's function name, and says which task it cannot answer."""
    humaneval = load_benchmark("humaneval").by_id()
    model = "original?originals=humaneval"
    with Engine(workers=2, cache_root=tmp_path / "engine") as engine:
        verbose = load_benchmark("evoeval_verbose", RELEASE / "EvoEval_verbose.jsonl")
        run = load_run(run_benchmark(verbose, model, tmp_path / "verbose", engine).out_dir)
        # A rewording keeps the meaning: the parent's own reference passes every verbose task.
        assert {s.task_id: s.code for s in run.samples} == {t: humaneval[t].reference for t in run.parent_ids}
        assert all(v.status == "pass" for v in run.verdicts)
        difficult = load_benchmark("evoeval_difficult", RELEASE / "EvoEval_difficult.jsonl")
        run = load_run(run_benchmark(difficult, model, tmp_path / "difficult", engine).out_dir)
    [sample] = [s for s in run.samples if s.task_id == "EvoEval/24"]
    # HumanEval/24's largest_divisor, under the name the harder task asks for: it answers the old task.
    assert sample.code.startswith(humaneval["HumanEval/24"].reference.rstrip())
    assert sample.code.rstrip().endswith("largest_divisor_below = largest_divisor")
    assert {v.task_id: v.status for v in run.verdicts}["EvoEval/24"] in ("fail", "error")
    combine = load_benchmark("evoeval_combine", RELEASE / "EvoEval_combine.jsonl")
    with Engine(workers=1, cache_root=tmp_path / "engine") as engine:
        with pytest.raises(InputError, match=r"EvoEval/2: its parent \(unknown: the set does not say\)"):
            run_benchmark(combine, model, tmp_path / "combine", engine)
