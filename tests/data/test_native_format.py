"""Our JSONL format: lossless round trip, strict validation, and the fixtures written in it."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from benchmorph.data import values
from benchmorph.data.errors import InputError
from benchmorph.data.formats.native import is_native, read_native, write_native
from benchmorph.data.models import Problem, TestCase, Variant
from benchmorph.data.registry import load_benchmark
from paths import FIXTURES


def _problem(pid: str = "demo/1", **overrides) -> Problem:
    data = {
        "id": pid,
        "prompt": "def f(x):\n",
        "entry_point": "f",
        "reference": "def f(x):\n    return x\n",
        "tests": [TestCase(input=[1])],
    }
    data.update(overrides)
    return Problem(**data)


def _line(**fields) -> str:
    row = _problem().to_json()
    row.update(fields)
    return json.dumps(row)


def _write(tmp_path: Path, *lines: str) -> Path:
    path = tmp_path / "bench.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


# --- round trip -------------------------------------------------------------------------------


def test_round_trip_keeps_awkward_values(tmp_path: Path) -> None:
    tests = [
        TestCase(input=[(1, 2), {3, 4}], expected=(5, (6,)), has_expected=True, ref_time=0.25),
        TestCase(input=[frozenset({"a"}), {1: "x", (2, 3): None}], expected=float("nan"), has_expected=True),
        TestCase(input=[None, float("inf"), -float("inf")], expected=None, has_expected=True, origin="plus"),
        TestCase(input=[b"\x00\xff", complex(1, -2)], expected={"__tuple__": 1}, has_expected=True),
        TestCase(input=[[]]),  # no expected yet: prepare fills it
    ]
    problem = _problem(tests=tests, atol=1e-6, contract="assert x >= 0", source={"origin": "unit"})
    variant = Variant(
        id="demo/1-ctf",
        prompt="def f(x):\n    'changed'\n",
        entry_point="f",
        reference="def f(x):\n    return -x\n",
        tests=[TestCase(input=[(1,)], expected=(-1,), has_expected=True)],
        parent_id="demo/1",
        transform="ctf",
        label="ctf",
        provenance={"d_q": 0.1, "models": ["a", "b"]},
    )
    path = tmp_path / "out" / "problems.jsonl"
    write_native(path, [problem, variant])

    loaded = read_native(path)
    assert [type(p) for p in loaded] == [Problem, Variant]
    assert [p.to_json() for p in loaded] == [problem.to_json(), variant.to_json()]

    first = loaded[0].tests
    assert first[0].input == [(1, 2), {3, 4}] and type(first[0].input[0]) is tuple
    assert first[0].expected == (5, (6,)) and first[0].ref_time == 0.25
    assert type(first[1].input[0]) is frozenset and first[1].input[1] == {1: "x", (2, 3): None}
    assert math.isnan(first[1].expected)
    assert first[2].has_expected and first[2].expected is None and first[2].origin == "plus"
    assert first[2].input[1] == math.inf and first[2].input[2] == -math.inf
    assert first[3].input == [b"\x00\xff", complex(1, -2)]
    # A dict that merely looks like a tag must come back as that dict, not a tuple.
    assert first[3].expected == {"__tuple__": 1}
    assert not first[4].has_expected
    assert loaded[1].parent_id == "demo/1" and loaded[1].provenance["d_q"] == 0.1
    assert loaded[0].content_hash() == problem.content_hash()


def test_detected_by_load_benchmark(tmp_path: Path) -> None:
    path = tmp_path / "mine.jsonl"
    write_native(path, [_problem("a"), _problem("b")])
    assert is_native(path)
    bench = load_benchmark(str(path))
    assert bench.name == "mine"
    assert [p.id for p in bench.problems] == ["a", "b"]


def test_detector_rejects_other_files(tmp_path: Path) -> None:
    other = tmp_path / "other.jsonl"
    other.write_text('{"task_id": "x", "prompt": "p"}\n')
    binary = tmp_path / "blob.jsonl"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    assert not is_native(other)
    assert not is_native(binary)
    assert not is_native(tmp_path / "missing.jsonl")
    assert not is_native(tmp_path)


# --- validation -------------------------------------------------------------------------------


def test_unknown_schema_version_names_line_and_field(tmp_path: Path) -> None:
    path = _write(tmp_path, _line(id="ok"), "", _line(id="new", schema_version=2))
    with pytest.raises(InputError) as caught:
        read_native(path)
    assert str(caught.value) == (
        f"{path}:3: field 'schema_version': unsupported schema version 2 (this benchmorph reads 1)"
    )


@pytest.mark.parametrize(
    ("mutate", "expected"),
    [
        (lambda row: row.pop("schema_version"), "field 'schema_version': missing field"),
        (lambda row: row.pop("prompt"), "field 'prompt': missing field"),
        (lambda row: row.pop("record"), "field 'record': missing field"),
        (
            lambda row: row.update(record="thing"),
            "field 'record': expected 'problem' or 'variant', got 'thing'",
        ),
        (lambda row: row.update(kind="sql"), "field 'kind': Input should be 'function', 'stdin' or 'method'"),
        (lambda row: row.update(atol="0.1"), "field 'atol': Input should be a valid number"),
        (lambda row: row.update(id=7), "field 'id': Input should be a valid string"),
        (lambda row: row.update(source=[]), "field 'source': Input should be a valid dictionary"),
        (lambda row: row.update(colour="red"), "field 'colour': unknown field for a problem"),
        (lambda row: row.update(tests={}), "field 'tests': expected list, got dict"),
        (lambda row: row.update(tests=[{"expected": 1}]), "field 'tests[0].input': missing field"),
        (lambda row: row.update(tests=[{"input": [1]}, 3]), "field 'tests[1]': expected object, got int"),
        (
            lambda row: row.update(tests=[{"input": [1], "extra": 1}]),
            "field 'tests[0]': unknown field 'extra'",
        ),
        (
            lambda row: row.update(tests=[{"input": {"__tuple__": 5}}]),
            "field 'tests[0].input': bad tagged value: 'int' object is not iterable",
        ),
        (
            lambda row: row.update(tests=[{"input": [], "ref_time": "fast"}]),
            "field 'tests[0].ref_time': expected number, got str",
        ),
        (lambda row: row.update(record="variant"), "field 'parent_id': missing field"),
    ],
)
def test_invalid_records_name_line_and_field(tmp_path: Path, mutate, expected: str) -> None:
    row = _problem().to_json()
    mutate(row)
    path = _write(tmp_path, _line(id="fine"), json.dumps(row))
    with pytest.raises(InputError) as caught:
        read_native(path)
    assert str(caught.value) == f"{path}:2: {expected}"


def test_duplicate_ids_rejected(tmp_path: Path) -> None:
    path = _write(tmp_path, _line(id="a"), _line(id="b"), _line(id="a"))
    with pytest.raises(InputError) as caught:
        read_native(path)
    assert str(caught.value) == f"{path}:3: field 'id': duplicate id 'a' (first on line 1)"


def test_malformed_json_line(tmp_path: Path) -> None:
    path = _write(tmp_path, _line(), '{"id": ')
    with pytest.raises(InputError) as caught:
        read_native(path)
    assert str(caught.value).startswith(f"{path}:2: malformed JSON")


# --- fixtures ---------------------------------------------------------------------------------


def test_stdin_fixture_shape() -> None:
    problems = read_native(FIXTURES / "stdin_problems.jsonl")
    assert len(problems) >= 10
    for problem in problems:
        assert problem.kind == "stdin" and problem.entry_point == ""
        assert 3 <= len(problem.tests) <= 6, problem.id
        assert all(isinstance(test.input, str) for test in problem.tests)
    assert sum(test.has_expected for p in problems for test in p.tests) >= 20


def test_stdin_fixture_references_produce_expected_output() -> None:
    checked = 0
    for problem in read_native(FIXTURES / "stdin_problems.jsonl"):
        for number, test in enumerate(problem.tests):
            run = subprocess.run(
                [sys.executable, "-c", problem.reference],
                input=test.input,
                capture_output=True,
                text=True,
                timeout=20,
            )
            assert run.returncode == 0, f"{problem.id} test {number}: {run.stderr}"
            if test.has_expected:
                assert run.stdout == test.expected, f"{problem.id} test {number}"
                checked += 1
            else:
                assert run.stdout.strip(), f"{problem.id} test {number} printed nothing"
    assert checked >= 20


# Runs in a child so fixture code never shares the test process's state.
_METHOD_RUNNER = """
import json, sys
spec = json.load(sys.stdin)
sys.path.insert(0, spec["values_dir"])
import values
namespace = {}
exec(spec["reference"], namespace)
method = getattr(namespace["Solution"](), spec["entry_point"])
results = [values.encode(method(*values.decode(args))) for args in spec["inputs"]]
print(json.dumps(results))
"""


def test_method_fixture_references_produce_expected_output() -> None:
    problems = read_native(FIXTURES / "method_problems.jsonl")
    assert len(problems) >= 5
    for problem in problems:
        assert problem.kind == "method" and problem.entry_point
        assert "class Solution" in problem.reference
        assert 3 <= len(problem.tests) <= 6 and all(test.has_expected for test in problem.tests)
        spec = {
            "values_dir": str(Path(values.__file__).parent),
            "reference": problem.reference,
            "entry_point": problem.entry_point,
            "inputs": [values.encode(test.input) for test in problem.tests],
        }
        run = subprocess.run(
            [sys.executable, "-I", "-c", _METHOD_RUNNER],
            input=json.dumps(spec),
            capture_output=True,
            text=True,
            timeout=20,
        )
        assert run.returncode == 0, f"{problem.id}: {run.stderr}"
        got = [values.decode(item) for item in json.loads(run.stdout)]
        assert got == [test.expected for test in problem.tests], problem.id
