"""`morph run mine humaneval` no longer emits HumanEval/51, 145 and 149 with the slips they inherit.

Every transform audits its parents first (``morph.parents``): a variant that
inherits a wrong or ambiguous finding is fixed in its text where the fix is
mechanical, and otherwise rejected with the audit's check; ``--audit off``
gives the old variants back.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmorph.data.models import Variant
from benchmorph.data.registry import load_benchmark
from benchmorph.execution.engine import Engine
from benchmorph.morph.transform import MorphContext, MorphReport, run_transform

CASES = ["HumanEval/51", "HumanEval/145", "HumanEval/149"]


@pytest.fixture(scope="module")
def engine():
    with Engine(workers=2) as running:
        yield running


@pytest.fixture(scope="module")
def problems():
    by_id = load_benchmark("humaneval").by_id()
    return [by_id[task] for task in CASES]


@pytest.fixture(scope="module")
def audited(engine: Engine, problems) -> MorphReport:
    return run_transform("mine", problems, MorphContext(engine=engine))


@pytest.fixture(scope="module")
def unaudited(engine: Engine, problems) -> MorphReport:
    return run_transform("mine", problems, MorphContext(engine=engine, audit="off"))


def variant_of(report: MorphReport, parent: str) -> Variant | None:
    return next((v for v in report.variants if v.parent_id == parent), None)


def test_the_y_rule_is_stated_in_the_variant(audited: MorphReport) -> None:
    variant = variant_of(audited, "HumanEval/51")
    assert variant is not None and variant.entry_point == "remove_consonants"
    assert "returns string without consonants (y counts as a consonant)." in variant.prompt
    assert variant.reference.startswith(variant.prompt)
    assert variant.provenance["audit_fixes"] == ["add '(y counts as a consonant)' after 'consonants'"]


def test_the_signed_digit_rule_has_no_mechanical_fix_so_the_seed_is_skipped(audited: MorphReport) -> None:
    assert variant_of(audited, "HumanEval/145") is None
    [record] = [
        c
        for c in audited.candidates
        if c.parent_id == "HumanEval/145" and c.provenance["check"].startswith("audit:")
    ]
    assert (
        record.provenance["status"] == "rejected"
        and record.provenance["check"] == "audit:alternative-readings"
    )
    assert record.provenance["reason"].startswith("inherits HumanEval/145's finding (ambiguous)")
    assert (
        "absolute value" in record.provenance["reason"] and "no mechanical fix" in record.provenance["reason"]
    )


def test_the_stale_sentence_and_the_misnamed_examples_are_fixed(audited: MorphReport) -> None:
    variant = variant_of(audited, "HumanEval/149")
    assert variant is not None
    assert "same length" not in variant.prompt.split("alphabetically")[1]
    assert "You may assume" not in variant.prompt and "list_sort" not in variant.prompt
    assert 'assert sorted_list_sum(["aa", "a", "aaa"]) => ["a", "aaa"]' in variant.prompt
    assert len(variant.provenance["audit_fixes"]) == 2


def test_audit_off_restores_the_old_variants(unaudited: MorphReport, audited: MorphReport) -> None:
    assert {v.parent_id for v in unaudited.variants} == set(CASES)
    old = variant_of(unaudited, "HumanEval/149")
    assert old is not None and "You may assume that all words will have the same length." in old.prompt
    assert not any(str(c.provenance.get("check")).startswith("audit:") for c in unaudited.candidates)
    assert any("parent audit" in note for note in audited.notes)
    assert not any("parent audit" in note for note in unaudited.notes)


def test_morph_run_takes_audit_off(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    env = {**os.environ, "BENCHMORPH_CACHE": str(tmp_path / "cache"), "COLUMNS": "200"}
    out = tmp_path / "v.jsonl"
    args = ["morph", "run", "mine", "humaneval", "--tasks", "HumanEval/145", "--out", str(out)]
    on = subprocess.run(
        [sys.executable, "-m", "benchmorph.cli", *args], capture_output=True, text=True, env=env
    )
    assert on.returncode == 0, on.stderr
    assert "audit:alternative-readings" in on.stdout and "0 variants" in on.stdout
    off = subprocess.run(
        [sys.executable, "-m", "benchmorph.cli", *args, "--audit", "off"],
        capture_output=True,
        text=True,
        env=env,
    )
    assert off.returncode == 0 and "1 variants" in off.stdout
    bad = subprocess.run(
        [sys.executable, "-m", "benchmorph.cli", *args, "--audit", "maybe"],
        capture_output=True,
        text=True,
        env=env,
    )
    assert bad.returncode == 2 and "--audit" in bad.stderr and "Traceback" not in bad.stderr
