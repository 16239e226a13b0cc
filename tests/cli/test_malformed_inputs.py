"""Every malformed input in tests/fixtures/malformed, through the real CLI: one error line, exit 2, no traceback.

The table is tests/fixtures/malformed/cases.json (file -> arguments -> what the
line must say); make_corpus.py there writes the files.  Each case runs
in-process through ``benchmorph.cli.app.main``, the function the
``benchmorph`` script calls, so the InputError handler and the exit code are
the real ones (typer's CliRunner would bypass ``main`` and report exit 1);
the cases marked ``subprocess`` also run as a separate process with a narrow
terminal, to prove that no traceback and no wrapped line reach a user.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from benchmorph.cli.app import main
from benchmorph.data.errors import InputError
from benchmorph.data.formats.native import read_native
from benchmorph.data.samples import read_samples
from benchmorph.morph.review import read_csv
from cli_runner import run_cli
from paths import FIXTURES

CORPUS = FIXTURES / "malformed"
TABLE: dict[str, dict[str, Any]] = json.loads((CORPUS / "cases.json").read_text(encoding="utf-8"))["cases"]
NOT_CASES = {"ok", "cases.json", "make_corpus.py", "__pycache__"}


def _args(case: dict[str, Any], file: str, out: Path) -> list[str]:
    values = {"file": str(CORPUS / file), "ok": str(CORPUS / "ok"), "out": str(out)}
    return [arg.format(**values) for arg in case["args"]]


def _error_line(stderr: str) -> str:
    """The one line a bad input may print.

    Rich draws progress bars on stderr only when it is a terminal, and none of
    these inputs gets as far as a progress bar, so every non-blank line counts.
    """
    assert "Traceback" not in stderr, stderr
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, f"expected one error line, got {len(lines)}:\n{stderr}"
    assert lines[0].startswith("error: "), lines[0]
    return lines[0]


def _check(file: str, code: int | str | None, stderr: str) -> None:
    assert code == 2, f"exit code {code!r}, stderr:\n{stderr}"
    line = _error_line(stderr)
    for expected in TABLE[file]["expect"]:
        assert expected in line, f"{expected!r} not in: {line}"


@pytest.fixture
def scratch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty working directory and cache, so a case can neither read nor leave anything else."""
    monkeypatch.setenv("BENCHMORPH_CACHE", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("file", sorted(TABLE))
def test_malformed_input_gives_one_line_and_exit_2(
    file: str, scratch: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = _args(TABLE[file], file, scratch / "out")
    with pytest.raises(SystemExit) as stopped:
        main(args)
    captured = capsys.readouterr()
    _check(file, stopped.value.code, captured.err)
    assert not (scratch / "out" / "results.jsonl").exists()


@pytest.mark.parametrize("file", sorted(name for name, case in TABLE.items() if case.get("subprocess")))
def test_malformed_input_in_a_real_process(file: str, tmp_path: Path) -> None:
    # 40 columns: rich would hard-wrap a long line when stderr is not a terminal; the error must not wrap.
    result = run_cli(
        *_args(TABLE[file], file, tmp_path / "out"),
        cache=tmp_path / "cache",
        cwd=tmp_path,
        timeout=120,
        env={"COLUMNS": "40"},
    )
    _check(file, result.returncode, result.stderr)
    assert isinstance(result, subprocess.CompletedProcess)


def test_table_and_corpus_agree() -> None:
    """Each file or run folder in the corpus has a case, each case a file, and there are at least 30."""
    on_disk = set()
    for group in CORPUS.iterdir():
        if group.name in NOT_CASES or not group.is_dir():
            continue
        on_disk |= {f"{group.name}/{entry.name}" for entry in group.iterdir()}
    assert on_disk == set(TABLE)
    assert len(TABLE) >= 30
    loaders = {name.split("/")[0] for name in TABLE}
    assert loaders == {"native", "samples", "evalplus", "evoeval", "livecodebench", "review", "runs"}


def test_the_valid_baselines_load(tmp_path: Path) -> None:
    """The cases differ from ok/ in one defect each, so ok/ itself must be clean."""
    problems = {p.id: p for p in read_native(CORPUS / "ok" / "problems.jsonl")}
    samples, warnings = read_samples(CORPUS / "ok" / "samples.jsonl", problems)
    assert len(samples) == 1 and not warnings
    assert [v.id for v in read_native(CORPUS / "ok" / "variants.jsonl")] == ["demo/1-ctf"]


def test_a_leading_byte_order_mark_is_not_an_error(tmp_path: Path) -> None:
    """Editors on Windows start UTF-8 files with a BOM; JSONL and CSV readers accept it (only there)."""
    jsonl = tmp_path / "bom.jsonl"
    jsonl.write_bytes(b"\xef\xbb\xbf" + (CORPUS / "ok" / "problems.jsonl").read_bytes())
    assert [p.id for p in read_native(jsonl)] == ["demo/1"]
    review = tmp_path / "bom.csv"
    review.write_bytes(b"\xef\xbb\xbfnew_id,type\r\ndemo/1-ctf,CTF\r\n")
    rows = read_csv(review)
    assert [(row.line, row.values["new_id"], row.values["type"]) for row in rows] == [
        (2, "demo/1-ctf", "CTF")
    ]


def test_error_text_stays_one_line_when_it_quotes_a_newline() -> None:
    """Messages quote user data (a CSV cell, an id); a newline in it must not split the error line."""
    error = InputError("no candidate 'a\nb' in the variants file", path="r.csv", line=3, field="new_id")
    assert str(error) == "r.csv:3: field 'new_id': no candidate 'a\\nb' in the variants file"
