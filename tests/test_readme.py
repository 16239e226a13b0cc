"""The README's and the docs pages' Python examples must keep working as written."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from paths import ROOT

README = ROOT / "README.md"
# The README is short; the reference material it links to is docs/*.md, one page per command group.
PAGES = [README, *sorted((ROOT / "docs").glob("*.md"))]


def python_example(marker: str) -> str:
    """The one ```python block of the README and the docs pages that contains ``marker``: blocks are
    found by what they show, so adding an example elsewhere, or moving one to another page, does not
    shift which block a test runs."""
    blocks = [
        block
        for page in PAGES
        for block in re.findall(r"```python\n(.*?)```", page.read_text(encoding="utf-8"), re.S)
        if marker in block
    ]
    assert len(blocks) == 1, f"{len(blocks)} python blocks of README.md and docs/*.md contain {marker!r}"
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
    assert first == "1.0 2 1.0 runs/reference"  # pass_at_1, n_samples, ["pass@1"] (the same value), out_dir
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


def test_readme_audit_example_runs(tmp_path: Path) -> None:
    result = run_example("audit_benchmark(", tmp_path)
    assert result.returncode == 0, result.stderr
    assert "HumanEval/51 ambiguous alternative-readings" in result.stdout
    assert "add '(y is not a vowel)' after 'vowels'" in result.stdout
    assert "HumanEval/149 wrong preconditions" in result.stdout
    assert (tmp_path / "errata" / "errata.md").exists()


def _anchors(page: Path) -> set[str]:
    """GitHub's anchors of a page's headings (lower case, punctuation dropped, spaces as hyphens)."""
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
    headings = re.findall(r"^#+ (.+)$", text, re.M)
    return {re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-") for heading in headings}


def test_links_of_the_readme_and_the_docs_pages_resolve() -> None:
    """The README is a page of links into docs/: each relative link names a file that exists, and an
    anchor a heading of that page (the text moved out of the README keeps its links working)."""
    broken = []
    for page in PAGES:
        text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"[a-z]+:", target):
                continue
            path, _, anchor = target.partition("#")
            linked = (page.parent / path).resolve() if path else page
            if not linked.exists():
                broken.append(f"{page.relative_to(ROOT)}: {target} (no such file)")
            elif anchor and linked.suffix == ".md" and anchor not in _anchors(linked):
                broken.append(f"{page.relative_to(ROOT)}: {target} (no such heading)")
    assert not broken, "\n".join(broken)
    linked_pages = set(re.findall(r"\]\(docs/([\w-]+\.md)\)", README.read_text(encoding="utf-8")))
    assert {page.name for page in PAGES[1:]} - {"review.md"} <= linked_pages
