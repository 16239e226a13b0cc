"""`benchmorph audit` as a user runs it: a real subprocess, the real sandbox, files a person reads."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from benchmorph.data.formats.native import write_native
from benchmorph.data.models import Problem, TestCase
from benchmorph.data.registry import load_benchmark
from benchmorph.execution.engine import Engine
from benchmorph.validation.audit import audit_benchmark
from paths import FIXTURES
from paths import HUMANEVAL_PLUS_INPUTS as HUMANEVAL_PLUS


def run(*args: str, cache: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "BENCHMORPH_CACHE": str(cache), "COLUMNS": "200"}
    return subprocess.run(
        [sys.executable, "-m", "benchmorph.cli", *args], capture_output=True, text=True, env=env, timeout=600
    )


def native_file(path: Path) -> Path:
    prompt = 'def count_vowels(s):\n    """Count the vowels of s.\n    >>> count_vowels(\'apple\')\n    3\n    """\n'
    body = "    return sum(1 for ch in s.lower() if ch in 'aeiou')\n"
    problem = Problem(
        id="mine/vowels",
        prompt=prompt,
        entry_point="count_vowels",
        reference=prompt + body,
        tests=[TestCase(input=[word]) for word in ["apple", "`sky`", "Yellow"]],
    )
    write_native(path, [problem])
    return path


def test_audit_writes_errata_with_fixes_for_a_native_file(tmp_path: Path) -> None:
    data = native_file(tmp_path / "problems.jsonl")
    result = run(
        "audit", str(data), "--out", str(tmp_path / "errata"), "--fix-suggestions", cache=tmp_path / "c"
    )
    assert result.returncode == 0, result.stderr
    assert "alternative-readings" in result.stdout and "ambiguous 1" in result.stdout
    markdown = (tmp_path / "errata" / "errata.md").read_text()
    rows = [json.loads(line) for line in (tmp_path / "errata" / "errata.jsonl").read_text().splitlines()]
    header, findings = rows[0], rows[1:]
    assert header["record"] == "audit" and header["counts"]["wrong"] == 1  # the example claims 3 for 2
    assert {f["key"] for f in findings} >= {"alternative-readings:letters-add-y", "examples:disagree"}
    reading = next(f for f in findings if f["check"] == "alternative-readings")
    # The span is just past "vowels" in the prompt: def line (21) + 4 spaces + quotes (3) + "Count the vowels".
    assert reading["fix"] == {"says": "add '(y is not a vowel)' after 'vowels'", "mechanical": True,
                              "span": [44, 44], "text": " (y is not a vowel)"}  # fmt: skip
    assert "## mine/vowels (`count_vowels`)" in markdown and "- fix: add '(y is not a vowel)'" in markdown
    # Text from the benchmark prints literally, its backticks inside a longer fence.
    assert "``count_vowels('`sky`') expects 0; the reading gives 1``" in markdown
    assert not (tmp_path / "errata" / ".audit-checkpoint.jsonl").exists()
    plain = run("audit", str(data), "--out", str(tmp_path / "plain"), cache=tmp_path / "c")
    assert plain.returncode == 0 and "fix" not in (tmp_path / "plain" / "errata.jsonl").read_text()


def test_bad_input_is_one_line_naming_it(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"record": "problem", "id": "x"\n')
    result = run("audit", str(bad), "--out", str(tmp_path / "o"), cache=tmp_path / "c")
    assert result.returncode != 0 and "Traceback" not in result.stderr
    assert "bad.jsonl" in result.stderr and len(result.stderr.strip().splitlines()) == 1
    unknown = run(
        "audit", "humaneval", "--out", str(tmp_path / "o"), "--checks", "no-such", cache=tmp_path / "c"
    )
    assert unknown.returncode == 2 and "no-such" in unknown.stderr and "Traceback" not in unknown.stderr


def test_an_interrupted_audit_resumes_from_its_checkpoint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    problems = [load_benchmark("humaneval").by_id()[f"HumanEval/{n}"] for n in (35, 51)]
    checkpoint = tmp_path / "checkpoint.jsonl"
    with Engine(workers=2) as engine:
        first = audit_benchmark(problems, engine, mutants=0, checkpoint=checkpoint)
        # Every slice is in the checkpoint: a second run computes nothing (a check that would run fails).
        from benchmorph.validation.audit import readings

        def broken(*_args: object) -> list[object]:
            raise AssertionError("recomputed a slice the checkpoint holds")

        monkeypatch.setattr(readings, "reading_findings", broken)
        again = audit_benchmark(problems, engine, mutants=0, checkpoint=checkpoint)
    assert [f.to_json() for f in again.findings] == [f.to_json() for f in first.findings]


def test_the_audit_runs_on_every_kind_of_benchmark(tmp_path: Path) -> None:
    """HumanEval+ with its contracts, our LiveCodeBench fixture (stdin and LeetCode problems without
    references) and the stdin/method fixtures all audit; problems that cannot be probed are left alone."""
    sets = [
        ("livecodebench", FIXTURES / "livecodebench_sample.jsonl"),
        (str(FIXTURES / "stdin_problems.jsonl"), None),
        (str(FIXTURES / "method_problems.jsonl"), None),
    ]
    if HUMANEVAL_PLUS.exists():
        sets.append(("humaneval+", HUMANEVAL_PLUS))
    for name, data in sets:
        args = ["audit", name, "--out", str(tmp_path / Path(name).stem), "--mutants", "0", "--limit", "12"]
        result = run(*args, *(["--data", str(data)] if data else []), cache=tmp_path / "c")
        assert result.returncode == 0, (name, result.stderr[-2000:])
        header = json.loads((tmp_path / Path(name).stem / "errata.jsonl").read_text().splitlines()[0])
        assert header["problems"] > 0 and set(header["counts"]) == {"wrong", "ambiguous", "weak", "cosmetic"}
