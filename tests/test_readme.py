"""The README's Python example must keep working as written."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def run_example(index: int, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    code = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)[index]
    env = {**os.environ, "BENCHMORPH_CACHE": str(tmp_path / "cache")}
    return subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300
    )


def test_readme_models_example_runs(tmp_path: Path) -> None:
    result = run_example(0, tmp_path)
    assert result.returncode == 0, result.stderr
    assert "(2, 640)" in result.stdout
    assert "def f(x):\n    return x" in result.stdout and "print(f(1))" not in result.stdout
    assert (tmp_path / "llm.sqlite").exists()


def test_readme_python_example_runs(tmp_path: Path) -> None:
    code = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)[2]
    env = {**os.environ, "BENCHMORPH_CACHE": str(tmp_path / "cache")}
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300
    )
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
    result = run_example(1, tmp_path)
    assert result.returncode == 0, result.stderr
    assert "model-00 ctf" in result.stdout and "# benchmorph report" in result.stdout
    for name in ("report.html", "report.json", "tables/families.csv"):
        assert (tmp_path / name).exists(), name
