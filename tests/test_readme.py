"""The README's Python example must keep working as written."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from paths import ROOT

README = ROOT / "README.md"


def python_example(marker: str) -> str:
    """The README's one ```python block that contains ``marker``: blocks are found by what they show,
    so adding an example elsewhere in the README does not shift which block a test runs."""
    blocks = [
        block for block in re.findall(r"```python\n(.*?)```", README.read_text(), re.S) if marker in block
    ]
    assert len(blocks) == 1, f"{len(blocks)} README python blocks contain {marker!r}"
    return blocks[0]


def run_example(marker: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    code = python_example(marker)
    env = {**os.environ, "BENCHMORPH_CACHE": str(tmp_path / "cache")}
    return subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300
    )


def test_readme_models_example_runs(tmp_path: Path) -> None:
    result = run_example("embed(", tmp_path)
    assert result.returncode == 0, result.stderr
    assert "(2, 640)" in result.stdout
    assert "def f(x):\n    return x" in result.stdout and "print(f(1))" not in result.stdout
    assert (tmp_path / "llm.sqlite").exists()


def test_readme_python_example_runs(tmp_path: Path) -> None:
    result = run_example("mutants(", tmp_path)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "runs" / "x" / "summary.json").exists()
    assert (tmp_path / "samples.jsonl").read_text().count("task_id") == 5


def test_readme_starts_with_the_two_setup_commands() -> None:
    text = README.read_text()
    block = re.search(r"```bash\n(.*?)```", text, re.S)
    assert block and text.index(block.group(0)) < 40
    commands = [line for line in block.group(1).splitlines() if line.strip()]
    assert commands == [
        "bash scripts/install.sh && .venv/bin/benchmorph demo",
        ".venv/bin/python -m pytest -q",
    ]
    assert ".venv/bin/python -m pytest -q" in (README.parent / ".ci" / "run").read_text()


def test_readme_report_example_runs(tmp_path: Path) -> None:
    import shutil

    from synthetic_runs import make_runs

    original, variant = make_runs(tmp_path / "data", problems=4, models=1)
    (tmp_path / "runs").mkdir()
    shutil.move(original, tmp_path / "runs" / "orig")
    shutil.move(variant, tmp_path / "runs" / "ctf")
    result = run_example("build_report(", tmp_path)
    assert result.returncode == 0, result.stderr
    assert "model-00 ctf" in result.stdout and "# benchmorph report" in result.stdout
    for name in ("report.html", "report.json", "tables/families.csv"):
        assert (tmp_path / name).exists(), name


def test_readme_run_without_the_cli(tmp_path: Path) -> None:
    """The library run (generate + evaluate) writes the run directories the CLI would, and prints nothing
    of its own: the only warning-like output is what the example's own ``notify`` chose to print."""
    result = run_example("run_benchmark(", tmp_path)
    assert result.returncode == 0, result.stderr
    first, notices = result.stdout.strip().splitlines()[-2:]
    assert first == "1.0 2 runs/reference"
    assert "generation: 0 new answers, 0 from the cache, 0 failed" in notices
    for name in ("samples.jsonl", "results.jsonl", "summary.json", "manifest.json"):
        assert (tmp_path / "runs" / "reference" / name).exists(), name
    for name in ("results.jsonl", "summary.json", "manifest.json"):
        assert (tmp_path / "runs" / "evaluated" / name).exists(), name
    manifest = json.loads((tmp_path / "runs" / "reference" / "manifest.json").read_text())
    assert manifest["source"] == {"benchmark": "humaneval", "data": None}
    assert manifest["problem_ids"] == ["HumanEval/0", "HumanEval/1"] and manifest["model"] == "reference"
    assert (tmp_path / "samples.jsonl").read_text().count("task_id") == 2
    assert "references humaneval" not in result.stderr + result.stdout  # no progress without a factory
