"""Calibration of the contamination verdict with a memoriser that recalls near-copies: on retellings
of ten HumanEval problems (written for this test: same problem, new names, new words, new examples)
the fuzzy memorizer is flagged beside the exact one, and the reference and original baselines are not."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmorph.data.formats.native import write_native
from benchmorph.data.models import Variant
from benchmorph.data.registry import load_benchmark, select_problems
from benchmorph.evaluation.rundir import load_run
from benchmorph.evaluation.runs import run_benchmark
from benchmorph.execution import Engine
from benchmorph.models.recall import RECALL_THRESHOLD, TextMemory
from benchmorph.report.contamination import contamination
from paths import FIXTURES

FUZZY = "memorizer?recall=fuzzy"


def _retold() -> list[Variant]:
    originals = load_benchmark("humaneval").by_id()
    variants = []
    for row in json.loads((FIXTURES / "humaneval_retold.json").read_text()):
        parent = originals[row["task_id"]]
        alias = f"\n\n{row['entry_point']} = {parent.entry_point}\n"
        variants.append(
            Variant(
                **parent.model_dump(exclude={"id", "prompt", "entry_point", "reference"}),
                id=f"{parent.id}/retold",
                prompt=row["prompt"],
                entry_point=row["entry_point"],
                reference=parent.reference.rstrip() + "\n" + alias,
                parent_id=parent.id,
                transform="metamorphic",
                label="metamorphic",
                provenance={
                    "parent_prompt": parent.prompt,
                    "parent_reference": parent.reference,
                    "renamed_from": parent.entry_point,
                },
            )
        )
    return variants


def test_retellings_keep_too_little_of_any_original_to_be_recalled() -> None:
    memory = TextMemory([problem.prompt for problem in load_benchmark("humaneval").problems])
    shares = [memory.nearest(variant.prompt).similarity for variant in _retold()]  # type: ignore[union-attr]
    assert max(shares) < RECALL_THRESHOLD - 0.1  # HumanEval/12 retold: 0.69 of HumanEval/28


@pytest.mark.slow
def test_the_fuzzy_memorizer_is_flagged_and_the_baselines_are_not(tmp_path: Path) -> None:
    variants = _retold()
    write_native(tmp_path / "retold.jsonl", variants)
    bench = load_benchmark("humaneval")
    seeds = select_problems(bench.problems, tasks=",".join(v.parent_id for v in variants))
    retold = load_benchmark(str(tmp_path / "retold.jsonl"))
    runs = []
    with Engine(workers=2, cache_root=tmp_path / "engine") as engine:
        for model in ("reference", "original", "memorizer", FUZZY):
            static = run_benchmark(bench, model, tmp_path / f"he-{model}", engine, problems=seeds)
            dynamic = run_benchmark(retold, model, tmp_path / f"retold-{model}", engine)
            runs += [static.out_dir, dynamic.out_dir]
            assert static.summary["pass@1"] == 1.0
            assert dynamic.summary["pass@1"] == (0.0 if model.startswith("memorizer") else 1.0), model
    [group] = contamination([load_run(path) for path in runs], reference_models=["reference"])
    rows = {row.model: row for row in group.models}
    assert group.seeds == 10
    for model in ("memorizer", FUZZY):
        assert rows[model].flagged and rows[model].side == "below" and rows[model].exceeds_reference
        assert rows[model].gap_ci_low == 1.0
    for model in ("reference", "original"):
        assert not rows[model].flagged and (rows[model].static, rows[model].dynamic) == (1.0, 1.0)
