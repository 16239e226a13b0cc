"""Review round trip: export candidates to CSV, edit it as a reviewer would, import, and check the effect."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from benchmorph.data.formats.native import read_native, write_native
from benchmorph.data.registry import load_benchmark
from benchmorph.execution.engine import Engine
from benchmorph.morph.review import COLUMNS, word_diff
from benchmorph.morph.transforms.mine.mine import mine
from cli_runner import run_cli


def cli(*args: str, cwd: Path):  # type: ignore[no-untyped-def]
    return run_cli(*args, cache=cwd / "cache", cwd=cwd, timeout=600)


@pytest.fixture
def variants_file(tmp_path: Path) -> Path:
    problems = load_benchmark("humaneval").by_id()
    with Engine(workers=2) as engine:
        report = mine([problems[t] for t in ("HumanEval/12", "HumanEval/66", "HumanEval/69")], engine)
    # People review candidates, rejected ones included: HumanEval/12's 'shortest' is held back by the
    # trivial-baseline check (its three tests expect the first string), which a reviewer can overrule.
    first = {c.parent_id: c for c in report.candidates if c.id.endswith("/ctf-mine-0")}
    chosen = [first[t] for t in ("HumanEval/12", "HumanEval/66", "HumanEval/69")]
    assert [c.provenance["status"] for c in chosen] == ["rejected", "accepted", "accepted"]
    path = tmp_path / "mined.jsonl"
    write_native(path, chosen)
    return path


def test_export_then_import_applies_labels_and_corrected_solutions(
    variants_file: Path, tmp_path: Path
) -> None:
    exported = cli("review", "export", str(variants_file), "--csv", "review.csv", cwd=tmp_path)
    assert exported.returncode == 0, exported.stderr
    with (tmp_path / "review.csv").open(newline="") as handle:
        reader = csv.DictReader(handle)
        assert reader.fieldnames == COLUMNS
        rows = list(reader)
    assert [row["original_id"] for row in rows] == ["HumanEval/12", "HumanEval/66", "HumanEval/69"]
    assert all(row["type"] == "CTF" and row["review_status"] == "unreviewed" for row in rows)
    assert "[-longest-] {+shortest+}" in rows[0]["word_diff"]
    assert rows[0]["model"].startswith("mine:extreme")

    # A reviewer: HumanEval/12 is fine (its local maxlen is now minlen) but should return the LAST shortest;
    # HumanEval/66 is judged Robust; HumanEval/69 is rejected.
    rows[0]["solution"] = rows[0]["solution"].replace(
        "    for s in strings:\n        if len(s) == minlen:\n            return s\n",
        "    for s in reversed(strings):\n        if len(s) == minlen:\n            return s\n",
    )
    assert "reversed(strings)" in rows[0]["solution"]
    rows[0]["review_status"] = "accepted"
    rows[0]["notes"] = "ties go to the last string"
    rows[1]["type"] = "Robust"
    rows[2]["review_status"] = "rejected"
    with (tmp_path / "edited.csv").open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=COLUMNS)
        writer.writeheader()
        writer.writerows(rows)

    imported = cli(
        "review", "import", str(variants_file), "edited.csv", "--out", "reviewed.jsonl", cwd=tmp_path
    )
    assert imported.returncode == 0, imported.stderr
    accepted = read_native(tmp_path / "reviewed.jsonl")
    assert [v.parent_id for v in accepted] == ["HumanEval/12"]
    shortest = accepted[0]
    assert "reversed(strings)" in shortest.reference
    assert shortest.provenance["review_status"] == "accepted" and shortest.provenance["solution_corrected"]
    assert shortest.provenance["review_notes"] == "ties go to the last string"
    by_input = {repr(t.input): t.expected for t in shortest.tests}
    assert by_input[repr([["x", "y", "z"]])] == "z"  # recomputed with the corrected solution (was "x")
    assert "'c'" in shortest.prompt  # the example longest(['a', 'b', 'c']) now shows the last one
    everything = {v.parent_id: v for v in read_native(tmp_path / "reviewed.candidates.jsonl")}
    assert everything["HumanEval/66"].label == "robust"
    assert everything["HumanEval/69"].provenance["review_status"] == "rejected"


def test_import_rejects_rows_that_match_no_candidate(variants_file: Path, tmp_path: Path) -> None:
    assert cli("review", "export", str(variants_file), "--csv", "review.csv", cwd=tmp_path).returncode == 0
    text = (tmp_path / "review.csv").read_text().replace("HumanEval/66/ctf-mine-0", "HumanEval/66/ctf-mine-9")
    (tmp_path / "bad.csv").write_text(text)
    result = cli("review", "import", str(variants_file), "bad.csv", "--out", "r.jsonl", cwd=tmp_path)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    start = 1 + next(i for i, line in enumerate(text.splitlines()) if line.startswith("HumanEval/66,"))
    assert f"bad.csv:{start}: field 'new_id': no candidate 'HumanEval/66/ctf-mine-9'" in result.stderr
    wrong_type = (tmp_path / "review.csv").read_text().replace(",CTF,", ",Maybe,", 1)
    (tmp_path / "type.csv").write_text(wrong_type)
    result = cli("review", "import", str(variants_file), "type.csv", "--out", "r.jsonl", cwd=tmp_path)
    assert result.returncode == 2 and "type.csv:2: field 'type'" in result.stderr


def test_word_diff_marks_removed_and_added_words() -> None:
    assert word_diff("return the largest even number", "return the smallest odd number") == (
        "return the [-largest even-] {+smallest odd+} number"
    )
