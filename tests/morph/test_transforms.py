"""The Transform interface: registration, discovery, `morph list` and `morph run` with a transform from outside."""

from __future__ import annotations

import json
from pathlib import Path

from benchmorph.data.formats.native import read_native
from benchmorph.morph.transform import transform_names
from cli_runner import run_cli
from paths import TESTS

PROBLEMS = [
    {
        "schema_version": 1, "record": "problem", "id": "toy/add", "kind": "function",
        "prompt": 'def add(a, b):\n    """Return the sum of a and b.\n    >>> add(1, 2)\n    3\n    """\n',
        "entry_point": "add",
        "reference": "def add(a, b):\n    return a + b\n",
        "tests": [{"input": [1, 2]}, {"input": [-1, 5]}, {"input": [0, 0]}, {"input": [7, 8]}],
    },
    {
        "schema_version": 1, "record": "problem", "id": "toy/same", "kind": "function",
        "prompt": 'def zero(a):\n    """Return the zero it is given."""\n',
        "entry_point": "zero",
        "reference": "def zero(a):\n    return a - a\n",
        "tests": [{"input": [1]}, {"input": [2]}],
    },
]  # fmt: skip


def test_built_in_transforms_are_discovered_without_a_module_list() -> None:
    assert {"mine", "ctf"} <= set(transform_names())


def test_a_transform_from_a_test_module_runs_through_morph_run(tmp_path: Path) -> None:
    problems = tmp_path / "problems.jsonl"
    problems.write_text("".join(json.dumps(p) + "\n" for p in PROBLEMS))
    env = {"BENCHMORPH_TRANSFORMS": "toy_transform", "PYTHONPATH": str(TESTS)}
    listed = run_cli("morph", "list", cache=tmp_path / "cache", env=env)
    assert listed.returncode == 0, listed.stderr
    assert "toy-scale" in listed.stdout and "--factor" in listed.stdout

    out = tmp_path / "v.jsonl"
    result = run_cli(
        "morph", "run", "toy-scale", str(problems), "--out", str(out), "--factor", "3",
        cache=tmp_path / "cache", env=env,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    [variant] = read_native(out)
    assert variant.parent_id == "toy/add" and "Return 3 times the sum" in variant.prompt
    assert [test.expected for test in variant.tests] == [9, 12, 0, 45]
    assert ">>> add(1, 2)\n    9\n" in variant.prompt  # the example was recomputed by finalize_variants
    candidates = {c.id: c.provenance for c in read_native(tmp_path / "v.candidates.jsonl")}
    assert candidates["toy/add/scale"]["status"] == "accepted"
    assert candidates["toy/same/scale"]["status"] == "rejected"
    assert candidates["toy/same/scale"]["check"] == "changes-outputs"
    assert "accepted" in result.stdout and "changes-outputs" in result.stdout

    bad = run_cli(
        "morph", "run", "toy-scale", str(problems), "--out", str(out), "--factor", "1",
        cache=tmp_path / "cache", env=env,
    )  # fmt: skip
    assert bad.returncode == 2 and "--factor" in bad.stderr and "Traceback" not in bad.stderr
    unknown = run_cli("morph", "run", "no-such", str(problems), cache=tmp_path / "cache", env=env)
    assert unknown.returncode == 2 and "unknown transform 'no-such'" in unknown.stderr


def test_a_plugin_entry_point_that_cannot_load_is_named_in_one_line(tmp_path: Path) -> None:
    # An installed distribution whose `benchmorph.transforms` entry point names a module that is gone.
    site = tmp_path / "site"
    info = site / "broken_plugin-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-plugin\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[benchmorph.transforms]\nbroken = no_such_plugin_module\n")
    listed = run_cli("morph", "list", cache=tmp_path / "cache", env={"PYTHONPATH": str(site)})
    assert listed.returncode == 2 and "Traceback" not in listed.stderr
    assert "'broken'" in listed.stderr and "broken-plugin" in listed.stderr
    assert "no_such_plugin_module" in listed.stderr and len(listed.stderr.strip().splitlines()) == 1
