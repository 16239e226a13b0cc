"""The layering of DESIGN.md, checked on the source: imports point down, the library has no UI, and
CLI modules share only cli.shared (options, consoles, progress, notices, the engine) and cli.progress."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

from benchmorph.data.formats.native import read_native
from cli_runner import run_cli
from paths import ROOT

PACKAGE = ROOT / "src" / "benchmorph"
# Bottom to top, as in docs/architecture.md; a layer may import its own and any lower layer.
LAYERS = (
    "core",
    "data",
    "execution",
    "models",
    "testgen",
    "validation",
    "morph",
    "instruct",
    "evaluation",
    "report",
    "cli",
)
CLI_SHARED = {"benchmorph.cli.shared", "benchmorph.cli.progress"}


def imports(path: Path) -> Iterator[tuple[int, str, list[str]]]:
    """(line, module, names) for every import in the file, function-level ones included."""
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name, []
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.lineno, node.module, [alias.name for alias in node.names]


def layer_of(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if parts[0] == "benchmorph" and len(parts) > 1 and parts[1] in LAYERS else None


def test_imports_point_down() -> None:
    wrong = []
    for path in sorted(PACKAGE.rglob("*.py")):
        own = path.relative_to(PACKAGE).parts[0]
        if own not in LAYERS:
            continue
        for line, module, names in imports(path):
            targets = [f"{module}.{name}" for name in names] if module == "benchmorph" else [module]
            for target in targets:
                layer = layer_of(target)
                if layer is not None and LAYERS.index(layer) > LAYERS.index(own):
                    wrong.append(f"{path.relative_to(PACKAGE)}:{line}: {own} imports {target}")
    assert wrong == []


def test_the_library_has_no_ui() -> None:
    """Progress bars, tables and prompts are the CLI's; library code reports through callbacks."""
    wrong = [
        f"{path.relative_to(PACKAGE)}:{line}: {module}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.relative_to(PACKAGE).parts[0] != "cli"
        for line, module, _ in imports(path)
        if module.split(".")[0] in {"rich", "typer", "click"}
    ]
    assert wrong == []


def test_cli_modules_do_not_import_each_others_helpers() -> None:
    wrong = []
    for path in sorted((PACKAGE / "cli").glob("*.py")):
        for line, module, names in imports(path):
            if module == "benchmorph.cli" and path.name in {"app.py", "__main__.py"}:
                continue  # app imports the command modules so that they register; __main__ runs app
            if module == "benchmorph.cli.app" and path.name == "__main__.py":
                continue
            if module.startswith("benchmorph.cli") and module not in CLI_SHARED:
                wrong.append(f"cli/{path.name}:{line}: from {module} import {', '.join(names)}")
    assert wrong == []


def test_the_documented_transform_runs_through_morph_run(tmp_path: Path) -> None:
    """docs/architecture.md's "one new file" example, saved as that file and run as the doc says."""
    text = (ROOT / "docs" / "architecture.md").read_text()
    [code] = [
        block for block in re.findall(r"```python\n(.*?)```", text, re.S) if "@register_transform" in block
    ]
    (tmp_path / "give_back.py").write_text(code)
    env = {"BENCHMORPH_TRANSFORMS": "give_back", "PYTHONPATH": str(tmp_path)}
    listed = run_cli("morph", "list", cache=tmp_path / "cache", env=env)
    assert listed.returncode == 0, listed.stderr
    assert "give-back" in listed.stdout and "--verb" in listed.stdout and "--every" in listed.stdout
    out = tmp_path / "gb.jsonl"
    result = run_cli(
        "morph", "run", "give-back", "humaneval", "--tasks", "HumanEval/0,HumanEval/2,HumanEval/12",
        "--out", str(out), "--verb", "Hand back", "--every", cache=tmp_path / "cache", env=env,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    variants = read_native(out)
    # HumanEval/0 never says "Return"; the other two are reworded and keep every output.
    assert [v.parent_id for v in variants] == ["HumanEval/2", "HumanEval/12"]
    assert all("Return" not in v.prompt and "Hand back" in v.prompt for v in variants)
    assert all(
        v.provenance["status"] == "accepted" and v.provenance["behavior_change"] == 0 for v in variants
    )
    bad = run_cli(
        "morph",
        "run",
        "give-back",
        "humaneval",
        "--out",
        str(out),
        "--verb=",
        cache=tmp_path / "cache",
        env=env,
    )
    assert bad.returncode == 2 and "--verb" in bad.stderr and "Traceback" not in bad.stderr


def test_the_documented_library_morph_run_works(tmp_path: Path) -> None:
    text = (ROOT / "docs" / "architecture.md").read_text()
    [code] = [block for block in re.findall(r"```python\n(.*?)```", text, re.S) if "run_transform(" in block]
    env = {**os.environ, "BENCHMORPH_CACHE": str(tmp_path / "cache")}
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("[(")  # the yield table: (status, check, count) rows
    candidates = read_native(tmp_path / "mined.candidates.jsonl")
    assert candidates and all(c.provenance["status"] for c in candidates)
    assert len(read_native(tmp_path / "mined.jsonl")) == sum(
        c.provenance["status"] == "accepted" for c in candidates
    )


def test_the_documented_quality_checks_are_the_registered_ones() -> None:
    """docs/architecture.md names every quality check, and only checks that exist."""
    from benchmorph.morph import finalize  # noqa: F401 - imports every check module
    from benchmorph.validation.checks.base import CHECKS

    text = (ROOT / "docs" / "architecture.md").read_text()
    section = text[text.index("### Quality checks") : text.index("### Registration and discovery")]
    named = {
        name
        for name in re.findall(r"`([a-z]+(?:-[a-z]+)+|[a-z]+)`", section)
        if name in CHECKS or "-" in name
    }
    assert named == set(CHECKS), "add or remove these names in docs/architecture.md's quality checks"
