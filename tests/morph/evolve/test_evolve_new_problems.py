"""Offline evolve (``--generator rules``) on real HumanEval problems: every variant is a new problem.

One run over six problems gives each offline type: combine (count_distinct_characters
then string_sequence; count_nums then string_sequence), tool_use (a filter and
stable sorts over lists of the parents' inputs), decompose (the helpers of
parse_nested_parens and count_nums) and subtle (the miner's counterfactuals).
"""

from __future__ import annotations

import itertools
import json

import pytest

from benchmorph.data.models import Problem, Variant
from benchmorph.data.registry import load_benchmark
from benchmorph.execution.engine import Engine, Job
from benchmorph.models.baselines import parent_reference
from benchmorph.morph.transform import ACCEPTED, MorphContext, MorphReport, run_transform
from benchmorph.morph.transforms.evolve.evolve import whole_decompositions
from benchmorph.validation.checks.base import value_key

TASKS = ["HumanEval/3", "HumanEval/6", "HumanEval/15", "HumanEval/16", "HumanEval/35", "HumanEval/108"]
NEW_CHECKS = {"thin-suite", "solved-without"}


@pytest.fixture(scope="module")
def engine():
    with Engine(workers=2) as running:
        yield running


@pytest.fixture(scope="module")
def humaneval() -> dict[str, Problem]:
    return load_benchmark("humaneval").by_id()


@pytest.fixture(scope="module")
def report(engine: Engine, humaneval: dict[str, Problem]) -> MorphReport:
    problems = [humaneval[t] for t in TASKS]
    return run_transform(
        "evolve", problems, MorphContext(engine=engine), {"type": "combine,tool_use,decompose,subtle"}
    )


def of(report: MorphReport, label: str) -> list[Variant]:
    return [v for v in report.variants if v.label == label]


def test_combine_needs_both_steps(report: MorphReport, humaneval: dict[str, Problem]) -> None:
    combined = {v.id: v for v in of(report, "combine")}
    assert set(combined) == {"HumanEval/16/evolve-combine-15", "HumanEval/108/evolve-combine-15"}
    for variant in combined.values():
        f_id, g_id = variant.provenance["parents"]
        f, g = humaneval[f_id], humaneval[g_id]
        assert variant.entry_point == f"{f.entry_point}_then_{g.entry_point}"
        assert variant.provenance["renamed_from"] == f.entry_point  # the original baseline answers as f
        # Both steps matter, on a suite of its own.
        assert NEW_CHECKS | {"steps-exercised", "step-domain", "leftover-imperative"} <= set(
            variant.provenance["checks_run"]
        )
        assert max(variant.provenance["baselines"].values()) <= 1 / 3
        assert len(variant.tests) >= 5 and len({value_key(t.expected) for t in variant.tests}) >= 3
        # The steps are not named after the parents' functions, and no step asks to write one.
        assert "Step 1, on the arguments of this function:" in variant.prompt
        assert f"`{f.entry_point}`" not in variant.prompt and "Write a function" not in variant.prompt
        assert 0.0 < variant.provenance["parent_overlap"] <= 1.0
    # count_nums asked "Write a function count_nums which takes an array of integers and returns ...".
    counted = " ".join(combined["HumanEval/108/evolve-combine-15"].prompt.split())
    assert "Take an array of integers and return the number of elements" in counted
    # Generated inputs are added only where f's own fall short (HumanEval/133 + 39 in test_review_cases).
    for variant in combined.values():
        assert variant.provenance["tests_added"] == sum(1 for t in variant.tests if t.origin != "base")


def test_tool_use_is_a_new_problem_with_tests_of_its_own(report: MorphReport, humaneval: dict[str, Problem], engine: Engine) -> None:  # fmt: skip
    tools = {v.parent_id: v for v in of(report, "tool_use")}
    # HumanEval/35 (max_element) has 2 distinct inputs of its own, too few to make lists of: generated
    # ones are not used, since they honour what a description states and not what it leaves implicit.
    assert set(tools) == {"HumanEval/3", "HumanEval/16", "HumanEval/108"}
    dropped = next(c for c in report.candidates if c.id == "HumanEval/35/evolve-tool_use")
    assert (
        dropped.provenance["check"] == "thin-suite"
        and "2 distinct short inputs" in dropped.provenance["reason"]
    )
    assert tools["HumanEval/3"].entry_point == "filter_by_below_zero"
    assert tools["HumanEval/16"].entry_point == "sort_by_count_distinct_characters"
    for parent_id, variant in tools.items():
        parent = humaneval[parent_id]
        helper = parent.entry_point
        # The helper is given whole, before the task; the task's reference only calls it.
        assert variant.prompt.index(f"def {helper}(") < variant.prompt.index(f"def {variant.entry_point}(")
        assert variant.reference.count(f"def {helper}(") == 1
        assert f"{helper}" in variant.reference[len(variant.prompt) :]
        assert all(isinstance(t.input[0], list) for t in variant.tests) and len(variant.tests) >= 5
        assert max(variant.provenance["baselines"].values()) <= 1 / 3
        assert NEW_CHECKS <= set(variant.provenance["checks_run"])
    # count_nums' docstring asked the reader to write it: as a given helper it says what it does.
    assert "Write a function count_nums" not in tools["HumanEval/108"].prompt
    # No two variants share a test set.
    keys = [value_key([[t.input, t.expected] for t in v.tests]) for v in report.variants]
    assert len(keys) == len(set(keys))
    # A model that answers with the parent's reference fails nearly every test.
    verdicts = engine.evaluate([Job(v, parent_reference(v), v.id) for v in tools.values()])
    assert all(verdict.passed <= 0.2 * verdict.total for verdict in verdicts)


def test_decompose_gives_the_helpers_as_subproblems(report: MorphReport, engine: Engine) -> None:
    subs = {v.parent_id: v for v in of(report, "decompose")}
    assert {p: v.entry_point for p, v in subs.items()} == {
        "HumanEval/6": "max_nesting_depth",
        "HumanEval/108": "signed_digit_sum",
    }
    depth, digits = subs["HumanEval/6"], subs["HumanEval/108"]
    # Traced from the parents' inputs: the groups parse_nested_parens splits, the numbers count_nums sums.
    assert all(set(t.input[0]) <= set("()") for t in depth.tests)
    assert {"(()())", "((()))", "()"} <= {t.input[0] for t in depth.tests}
    assert any(t.input == [-1] and t.expected == -1 for t in digits.tests)  # "-1 has signed digits -1"
    for variant in subs.values():
        assert variant.provenance["role"] == "subproblem" and variant.provenance["main"] == variant.parent_id
        assert ">>> " in variant.prompt and variant.provenance["parent_overlap"] == 0.0
    verdicts = engine.evaluate([Job(v, parent_reference(v), v.id) for v in subs.values()])
    assert all(verdict.passed <= 0.2 * verdict.total for verdict in verdicts)


def test_a_decomposition_is_published_whole(report: MorphReport) -> None:
    (sub,) = [c for c in report.candidates if c.id == "HumanEval/6/evolve-decompose-1"]
    twin = sub.model_copy(update={"id": "HumanEval/6/evolve-decompose-2"})
    broken = twin.model_copy(
        update={"provenance": {**twin.provenance, "status": "rejected", "check": "thin-suite"}}
    )
    kept = whole_decompositions([sub, broken])
    assert kept[0].provenance["status"] == "rejected" and kept[0].provenance["check"] == "decompose-part"


def test_subtle_is_the_miner_under_the_evolve_name(report: MorphReport) -> None:
    mined = {c.id: c for c in report.candidates if c.label == "subtle"}
    assert "HumanEval/35/evolve-subtle-0" in mined
    maximum = mined["HumanEval/35/evolve-subtle-0"]  # max_element -> the minimum
    assert maximum.transform == "evolve" and maximum.provenance["made_by"] == "mine"
    assert maximum.provenance["rule"].startswith("extreme:") and maximum.provenance["mined_id"].endswith(
        "ctf-mine-0"
    )
    assert {"one-construct", "few-changes"} <= set(maximum.provenance["checks_run"])  # the miner's checks
    # HumanEval/35 has two tests: too few for an evolved problem.
    assert maximum.provenance["status"] == "rejected" and maximum.provenance["check"] == "thin-suite"


def test_every_seed_and_type_is_counted_with_its_overlap(report: MorphReport) -> None:
    yields = [note for note in report.notes if "seeds gave an accepted variant" in note]
    assert {note.split(":")[0] for note in yields} == {"combine", "tool_use", "decompose", "subtle"}
    overlap = [note for note in report.notes if "parent overlap" in note]
    assert {note.split(":")[0] for note in overlap} == {"combine", "tool_use", "decompose"}
    assert all(
        c.provenance.get("checks_run") is not None
        for c in report.candidates
        if c.provenance["status"] == ACCEPTED
    )
    json.dumps([c.provenance for c in report.candidates])  # provenance stays JSON


def test_tool_use_lists_are_the_parents_inputs(report: MorphReport, humaneval: dict[str, Problem]) -> None:
    """Each list item is one of the parent's own inputs (never a generated one), so the helper is only
    ever called on what the parent's tests decide; no two variants share their lists."""
    tools = of(report, "tool_use")
    for variant in tools:
        own = {value_key(t.input[0]) for t in humaneval[variant.parent_id].tests}
        items = [value_key(item) for t in variant.tests for item in t.input[0]]
        assert items and all(item in own for item in items)
    for a, b in itertools.combinations(tools, 2):
        assert {value_key(t.input) for t in a.tests}.isdisjoint(
            {value_key(t.input) for t in b.tests} - {value_key([[]])}
        )


def test_no_two_tool_use_variants_share_a_test_set(report: MorphReport) -> None:
    from benchmorph.morph.transforms.evolve.evolve import distinct_test_sets

    tool = of(report, "tool_use")[0]
    twin = tool.model_copy(update={"id": tool.id + "-twin"})
    first, second = distinct_test_sets([tool, twin])
    assert first.provenance["status"] == ACCEPTED
    assert second.provenance["check"] == "shared-tests" and tool.id in second.provenance["reason"]


def test_overlap_is_the_share_of_the_parents_runs_kept(
    report: MorphReport, humaneval: dict[str, Problem]
) -> None:
    from benchmorph.morph.transforms.evolve.evolve import with_overlap

    combined = next(v for v in of(report, "combine") if v.id == "HumanEval/16/evolve-combine-15")
    parents = {pid: humaneval[pid] for pid in combined.provenance["parents"]}
    # Both parents' descriptions are quoted whole as the steps: every 8-word run survives.
    assert with_overlap(combined, parents).provenance["parent_overlap"] == 1.0
    assert combined.provenance["parent_overlap"] == 1.0
