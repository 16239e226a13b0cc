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
CLI_SHARED = {"benchmorph.cli.shared", "benchmorph.cli.progress", "benchmorph.cli.options"}


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


MORPH_CORE = {"benchmorph.morph.transform", "benchmorph.morph.finalize", "benchmorph.morph"}


def test_each_transform_family_is_a_package() -> None:
    families = PACKAGE / "morph" / "transforms"
    loose = [path.name for path in families.iterdir() if path.suffix == ".py" and path.name != "__init__.py"]
    assert loose == [], "a family is a package under morph/transforms/, not a module"
    for family in (path for path in families.iterdir() if path.is_dir() and path.name != "__pycache__"):
        assert (family / "__init__.py").exists(), f"{family.name} needs an __init__.py holding its Transform"


def test_families_import_only_morph_common_and_lower_layers() -> None:
    """A family shares code with another only through morph/common: never by importing it."""
    wrong = []
    for path in sorted((PACKAGE / "morph" / "transforms").rglob("*.py")):
        parts = path.relative_to(PACKAGE / "morph" / "transforms").parts
        own = f"benchmorph.morph.transforms.{parts[0]}" if len(parts) > 1 else None
        for line, module, names in imports(path):
            targets = [f"{module}.{name}" for name in names] if module == "benchmorph.morph" else [module]
            for target in targets:
                if not target.startswith("benchmorph.morph"):
                    continue
                allowed = (
                    target in MORPH_CORE
                    or target.startswith("benchmorph.morph.common")
                    or (own is not None and (target == own or target.startswith(own + ".")))
                )
                if not allowed:
                    wrong.append(f"{path.relative_to(PACKAGE)}:{line}: imports {target}")
    assert wrong == []


def test_morph_common_imports_no_family() -> None:
    wrong = [
        f"{path.relative_to(PACKAGE)}:{line}: imports {module}"
        for path in sorted((PACKAGE / "morph" / "common").rglob("*.py"))
        for line, module, _ in imports(path)
        if module.startswith("benchmorph.morph.transforms")
    ]
    assert wrong == []


def test_testgen_imports_neither_validation_nor_morph() -> None:
    wrong = [
        f"{path.relative_to(PACKAGE)}:{line}: imports {module}"
        for path in sorted((PACKAGE / "testgen").rglob("*.py"))
        for line, module, names in imports(path)
        if module.startswith(("benchmorph.validation", "benchmorph.morph"))
        or (module == "benchmorph" and {"validation", "morph"} & set(names))
    ]
    assert wrong == []


EXTENSION_POINTS = {
    "transforms": ("benchmorph.morph.transform", "TRANSFORMS"),
    "quality checks": ("benchmorph.validation.checks.base", "CHECKS"),
    "benchmarks": ("benchmorph.data.registry", "BENCHMARKS"),
    "file formats": ("benchmorph.data.registry", "FORMATS"),
    "model spec schemes": ("benchmorph.models.spec", "SCHEMES"),
    "baselines": ("benchmorph.models.baselines", "BASELINES"),
    "generation backends": ("benchmorph.models.backends", "GENERATORS"),
    "embedders": ("benchmorph.models.embed", "EMBEDDERS"),
    "report sections": ("benchmorph.report.section", "SECTIONS"),
    "oracles": ("benchmorph.data.oracles", "ORACLES"),
}


def test_every_extension_point_resolves_through_the_core_registry() -> None:
    import importlib

    from benchmorph.core.registry import ALL_REGISTRIES, Registry

    for kind, (module, name) in EXTENSION_POINTS.items():
        registry = getattr(importlib.import_module(module), name)
        assert isinstance(registry, Registry), kind
        assert registry in ALL_REGISTRIES
        assert registry.names(), f"no {kind} registered"


def test_no_module_keeps_a_registry_of_its_own() -> None:
    """Module-level dicts or lists filled by a register function are the pattern the core registry replaces."""
    own = re.compile(r"^_?[A-Z_]*(REGISTRY|FACTORIES|_LOADER_MODULES)\b.*=", re.M)
    wrong = [
        f"{path.relative_to(PACKAGE)}: {match.group(0)}"
        for path in sorted(PACKAGE.rglob("*.py"))
        for match in own.finditer(path.read_text())
    ]
    assert wrong == []


def test_morph_list_loads_only_the_family_packages() -> None:
    """`morph list` imports each family's __init__ (contract and options), none of its work."""
    code = (
        "import json, sys\n"
        "from benchmorph.morph.transform import transform_names\n"
        "transform_names()\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('benchmorph'))))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    loaded = __import__("json").loads(done.stdout)
    work = [m for m in loaded if m.startswith("benchmorph.morph.transforms.") and m.count(".") > 3]
    assert work == [], f"discovery loaded the families' work modules: {work}"
    heavy = [
        m
        for m in loaded
        if m.startswith(("benchmorph.execution", "benchmorph.models", "benchmorph.validation"))
    ]
    assert heavy == [], f"discovery loaded {heavy}"
    assert len(loaded) <= 25, f"{len(loaded)} benchmorph modules for a list of names: {loaded}"


def _doc_block(marker: str) -> str:
    text = (ROOT / "docs" / "architecture.md").read_text()
    [code] = [block for block in re.findall(r"```python\n(.*?)```", text, re.S) if marker in block]
    return code


def test_the_documented_quality_check_recipe_runs_for_every_candidate(tmp_path: Path) -> None:
    (tmp_path / "few_tests.py").write_text(_doc_block("@quality_check("))
    env = {"BENCHMORPH_CHECKS": "few_tests", "PYTHONPATH": str(tmp_path)}
    out = tmp_path / "mined.jsonl"
    done = run_cli(
        "morph", "run", "mine", "humaneval", "--tasks", "HumanEval/2,HumanEval/12",
        "--out", str(out), cache=tmp_path / "cache", env=env,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    checked = [c for c in read_native(tmp_path / "mined.candidates.jsonl") if c.provenance["checks_run"]]
    assert checked and all("few-tests" in c.provenance["checks_run"] for c in checked)


def test_the_documented_report_section_recipe_shows_in_the_report(tmp_path: Path) -> None:
    (tmp_path / "run_count.py").write_text(_doc_block("register_section("))
    run_dir = tmp_path / "he-reference"
    done = run_cli(
        "run", "humaneval", "--model", "reference", "--tasks", "HumanEval/0", "--out", str(run_dir),
        cache=tmp_path / "cache",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    env = {"BENCHMORPH_REPORT_SECTIONS": "run_count", "PYTHONPATH": str(tmp_path)}
    html = tmp_path / "r.html"
    done = run_cli("report", str(run_dir), "--html", str(html), cache=tmp_path / "cache", env=env)
    assert done.returncode == 0, done.stderr
    assert '<section id="run-count"><h2>Runs</h2><p>1 runs</p></section>' in html.read_text()
