"""DyPass@k: the unbiased pass@k estimator over a seed's n variants (one answer each), averaged over seeds."""

from __future__ import annotations

import json
from itertools import product
from pathlib import Path

import pytest

from benchmorph.data.formats.native import write_native
from benchmorph.data.models import TestCase, Variant, Verdict
from benchmorph.data.registry import load_benchmark, select_problems
from benchmorph.evaluation.evaluate import summarize
from benchmorph.evaluation.passk import dypass_at_k_table, dypass_counts, pass_at_k_table, sample_counts
from benchmorph.evaluation.runs import run_benchmark
from benchmorph.execution import Engine


def _verdict(task: str, ok: bool, index: int = 0) -> Verdict:
    return Verdict(task_id=task, index=index, status="pass" if ok else "fail", passed=int(ok), total=1)


@pytest.mark.parametrize("outcomes", list(product([True, False], repeat=4)))
def test_dypass_equals_pass_at_k_when_every_variant_is_the_seed_itself(outcomes: tuple[bool, ...]) -> None:
    # pass@k: four samples of one problem; DyPass@k: four variants that are that same problem, one sample each.
    samples = [_verdict("Seed/0", ok, index) for index, ok in enumerate(outcomes)]
    variants = [_verdict(f"Seed/0/meta-{i}", ok) for i, ok in enumerate(outcomes)]
    parents = {f"Seed/0/meta-{i}": "Seed/0" for i in range(4)}
    assert dypass_at_k_table(variants, parents) == pytest.approx(pass_at_k_table(sample_counts(samples)))


def test_dypass_on_three_seeds_matches_the_hand_computation() -> None:
    # Seed A: 1 of 3 variants solved, B: 2 of 3, C: 3 of 3.
    solved = {"A": [True, False, False], "B": [False, True, True], "C": [True, True, True]}
    verdicts = [_verdict(f"{seed}/meta-{i}", ok) for seed, row in solved.items() for i, ok in enumerate(row)]
    parents = {f"{seed}/meta-{i}": seed for seed in solved for i in range(3)}
    table = dypass_at_k_table(verdicts, parents)
    # k=1: (1/3 + 2/3 + 1) / 3.  k=2: A 1 - C(2,2)/C(3,2) = 2/3, B and C 1.  k=3: every seed 1.
    assert table == pytest.approx({1: 2 / 3, 2: (2 / 3 + 1 + 1) / 3, 3: 1.0})
    assert dypass_counts(verdicts, parents) == {"A": (3, 1), "B": (3, 2), "C": (3, 3)}


def test_only_the_first_answer_of_each_variant_counts_and_k_stops_at_the_fewest_variants() -> None:
    verdicts = [
        _verdict("A/meta-0", False, 0),
        _verdict("A/meta-0", True, 1),  # a second answer to the same variant: not DyPass's question
        _verdict("A/meta-1", True, 0),
        _verdict("B/meta-0", True, 0),
        _verdict("B/meta-1", True, 0),
        _verdict("B/meta-2", False, 0),
    ]
    parents = {"A/meta-0": "A", "A/meta-1": "A", "B/meta-0": "B", "B/meta-1": "B", "B/meta-2": "B"}
    assert dypass_counts(verdicts, parents) == {"A": (2, 1), "B": (3, 2)}
    assert set(dypass_at_k_table(verdicts, parents)) == {1, 2}


def test_one_variant_per_seed_gives_no_dypass() -> None:
    verdicts = [_verdict("A/meta-0", True), _verdict("B/meta-0", False)]
    assert dypass_at_k_table(verdicts, {"A/meta-0": "A", "B/meta-0": "B"}) == {}
    summary = summarize("b", [], verdicts, "bwrap", parents={"A/meta-0": "A", "B/meta-0": "B"})
    assert not any(key.startswith("dypass") for key in summary)


def test_run_on_variants_that_share_parents_writes_dypass_next_to_pass_at_k(tmp_path: Path) -> None:
    parents = select_problems(load_benchmark("humaneval").problems, tasks="HumanEval/0,HumanEval/2")
    variants = []
    for parent in parents:
        for i in range(3):
            # The 'original' baseline answers each variant with the program its provenance names as the
            # parent's reference: right for two variants of each seed, wrong for the third.
            answer = parent.reference if i < 2 else f"def {parent.entry_point}(*args):\n    return None\n"
            variants.append(
                Variant(
                    **parent.model_dump(exclude={"id", "tests"}),
                    id=f"{parent.id}/meta-{i}",
                    tests=[TestCase(input=t.input) for t in parent.tests],
                    parent_id=parent.id,
                    transform="metamorphic",
                    label="metamorphic",
                    provenance={"parent_reference": answer},
                )
            )
    write_native(tmp_path / "v.jsonl", variants)
    bench = load_benchmark(str(tmp_path / "v.jsonl"))
    with Engine(workers=2, cache_root=tmp_path / "engine") as engine:
        run = run_benchmark(bench, "original", tmp_path / "run", engine)
        originals = run_benchmark(
            load_benchmark("humaneval"), "reference", tmp_path / "orig", engine, problems=parents
        )
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary == run.summary
    assert summary["pass@1"] == pytest.approx(4 / 6)
    # Per seed n = 3, c = 2: DyPass@1 = 2/3, DyPass@2 = 1 - C(1,2)/C(3,2) = 1, DyPass@3 = 1.
    assert [summary[f"dypass@{k}"] for k in (1, 2, 3)] == pytest.approx([2 / 3, 1.0, 1.0])
    assert (summary["dypass_seeds"], summary["dypass_n"]) == (2, 3)
    assert "dypass@4" not in summary
    assert not any(key.startswith("dypass") for key in originals.summary)
