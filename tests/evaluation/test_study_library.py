"""run_study from Python, as docs/study.md shows it: baselines only (no LLM), two problems, every offline family."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from paths import ROOT

DOCS = ROOT / "docs" / "study.md"


def test_the_documented_library_study_runs(tmp_path: Path) -> None:
    [code] = [
        block for block in re.findall(r"```python\n(.*?)```", DOCS.read_text(), re.S) if "run_study(" in block
    ]
    env = {**os.environ, "BENCHMORPH_CACHE": str(tmp_path / "cache")}
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=900
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.strip().splitlines()
    assert lines[0].startswith("study-example/report.html ")  # the report, and the verdicts judged
    assert re.fullmatch(r"reference mine \+0\.000 \[\+0\.000, \+0\.000\] n=2", lines[1])
    assert result.stderr == ""  # the library prints nothing of its own
    data = json.loads((tmp_path / "study-example" / "study.json").read_text())
    assert [s["name"] for s in data["sets"]] == ["evolve", "metamorphic", "mine"]
    assert data["findings"]["sensitivity"][0]["family"] == "mine"
