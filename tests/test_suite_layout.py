"""The test suite's own rules: a folder per layer of src/benchmorph, every path from tests/paths.py,
and shared data that fails loudly when it is missing."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from paths import FIXTURES, ROOT, TESTS, WITHOUT_SHARED, require_shared

PACKAGE = ROOT / "src" / "benchmorph"
LAYERS = {path.name for path in PACKAGE.iterdir() if (path / "__init__.py").exists()}
FAMILIES = {
    path.name for path in (PACKAGE / "morph" / "transforms").iterdir() if (path / "__init__.py").exists()
}
# Cross-cutting: the whole package's layering, the bench scripts, the README, the suite itself.
AT_ROOT = {
    "test_architecture.py",
    "test_bench_smoke.py",
    "test_readme.py",
    "test_markers.py",
    "test_suite_layout.py",
}
# A path counted from a module's own file changes meaning when the module moves.
OWN_LOCATION = re.compile(r"Path\(__file__\)(\.resolve\(\))?\.parent")
ABSOLUTE_SHARED = re.compile(r"[\"']/work/")


def suite_modules() -> list[Path]:
    return sorted(path for path in TESTS.rglob("test_*.py") if FIXTURES not in path.parents)


def test_every_test_module_sits_in_the_folder_of_the_layer_it_covers() -> None:
    misplaced = []
    for path in suite_modules():
        parts = path.relative_to(TESTS).parts
        if len(parts) == 1:
            ok = parts[0] in AT_ROOT
        elif parts[0] == "morph" and len(parts) == 3:
            ok = parts[1] in FAMILIES
        else:
            ok = len(parts) == 2 and parts[0] in LAYERS
        if not ok:
            misplaced.append(str(path.relative_to(ROOT)))
    assert not misplaced, f"not under tests/<layer>/ (layers: {sorted(LAYERS)}): {misplaced}"
    # pytest imports test modules by basename (no __init__.py files): two of one name cannot both load.
    twice = [name for name, count in Counter(path.name for path in suite_modules()).items() if count > 1]
    assert not twice


def test_no_module_finds_files_from_its_own_location_or_by_an_absolute_path() -> None:
    sources = [*suite_modules(), *(path for path in TESTS.glob("*.py") if path.name != "paths.py")]
    found = []
    for path in sources:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if OWN_LOCATION.search(line) or ABSOLUTE_SHARED.search(line):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not found, "take paths from tests/paths.py:\n" + "\n".join(found)


def test_missing_shared_data_fails_in_one_line_naming_it_and_skips_only_when_asked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    missing = tmp_path / "MbppPlus.jsonl"
    monkeypatch.delenv(WITHOUT_SHARED, raising=False)
    with pytest.raises(pytest.fail.Exception) as failed:
        require_shared(Path(__file__), missing)
    message = str(failed.value)
    assert str(missing) in message and "\n" not in message and WITHOUT_SHARED in message
    monkeypatch.setenv(WITHOUT_SHARED, "1")
    with pytest.raises(pytest.skip.Exception):
        require_shared(missing)
    require_shared(Path(__file__))  # present: nothing happens
