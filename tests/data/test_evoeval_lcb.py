"""EvoEval and LiveCodeBench loaders, on small fixtures written in their released shapes."""

from __future__ import annotations

import base64
import gzip
import json
import os
import pickle
import zlib
from pathlib import Path

import pytest

from benchmorph.data.errors import InputError
from benchmorph.data.formats import livecodebench
from benchmorph.data.formats.evoeval import is_evoeval, parse_arguments, read_evoeval, type_of_file
from benchmorph.data.formats.livecodebench import decode_test_blob, is_livecodebench, read_livecodebench
from benchmorph.data.models import Variant
from benchmorph.data.registry import load_benchmark
from benchmorph.execution import Engine
from benchmorph.execution.engine import Job
from paths import FIXTURES

EVOEVAL = FIXTURES / "evoeval_sample.jsonl"
LCB = FIXTURES / "livecodebench_sample.jsonl"

# Worked out by hand from each task's statement.
EVOEVAL_EXPECTED = {
    "EvoEval/0": [[(1, 4), (2, 3)], [], [(2, 2)], [(-1, 6), (0, 5), (2, 3)]],
    "EvoEval/1": ["a big cat SLEEPS", "HELLO WORLD", "", "XXXXX y"],
    "EvoEval/2": [0.0, 2.0, 0.0, 0.142857],
    "EvoEval/3": [{0: (0.5,), 1: (1.5,), 2: (2.5,)}, {}],
}


def _run_function(reference: str, entry_point: str, args: list):
    namespace: dict = {}
    exec(compile(reference, "<reference>", "exec"), namespace)  # our own fixture code
    return namespace[entry_point](*args)


# --- EvoEval ----------------------------------------------------------------------------------


def test_evoeval_fixture_loads_and_references_are_right() -> None:
    problems = read_evoeval(EVOEVAL)
    assert [p.id for p in problems] == list(EVOEVAL_EXPECTED)
    for problem in problems:
        assert problem.kind == "function" and problem.atol == 1e-6
        got = [_run_function(problem.reference, problem.entry_point, test.input) for test in problem.tests]
        assert got == EVOEVAL_EXPECTED[problem.id], problem.id


def test_evoeval_inputs_keep_python_types() -> None:
    problems = {p.id: p for p in read_evoeval(EVOEVAL)}
    assert problems["EvoEval/0"].tests[0].input == [[1, 2, 3, 4], 5]
    assert problems["EvoEval/1"].tests[1].input == ["hello world"]  # default argument left out
    assert problems["EvoEval/1"].tests[3].input == ["xxxxx y", 2]
    assert problems["EvoEval/2"].tests[3].input == [1_000_000]
    assert problems["EvoEval/3"].tests[0].input == [[0.5, 1.5, 2.5], 1.0]  # already-parsed shape
    assert all(not t.has_expected for p in problems.values() for t in p.tests)


def test_evoeval_reference_body_or_full_definition() -> None:
    problems = {p.id: p for p in read_evoeval(EVOEVAL)}
    body = problems["EvoEval/0"]
    assert body.reference.startswith(body.prompt) and "from typing import List" in body.reference
    full = problems["EvoEval/1"]
    assert full.reference.count("def shout_words") == 1
    helper = problems["EvoEval/2"]
    # The helper from the prompt stays; the docstring-only stub of the entry point goes.
    assert "def _digits" in helper.reference and helper.reference.count("def digit_balance") == 1
    assert helper.source["parent"] == "HumanEval/2" and helper.source["helpers"] == ["_digits"]
    assert problems["EvoEval/3"].source["extra_note"].startswith("unknown fields")


def test_evoeval_detected_by_path() -> None:
    assert is_evoeval(EVOEVAL)
    assert not is_evoeval(LCB)
    bench = load_benchmark(str(EVOEVAL))
    assert bench.name == "evoeval_sample"
    assert {p.source["format"] for p in bench.problems} == {"evoeval"}


def test_evoeval_by_name_needs_a_file() -> None:
    with pytest.raises(InputError, match="EvoEval needs its data file"):
        load_benchmark("evoeval")
    assert len(load_benchmark("evoeval", EVOEVAL).problems) == 4
    # A named set prefers the user's file over its download.
    assert len(load_benchmark("evoeval_difficult", EVOEVAL).problems) == 4


def test_evoeval_named_set_reads_the_download_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cached = tmp_path / "evoeval" / "EvoEval_subtle-v0.1.0.jsonl.gz"
    cached.parent.mkdir()
    with gzip.open(cached, "wb") as handle:
        handle.write(EVOEVAL.read_bytes())
    monkeypatch.setenv("BENCHMORPH_CACHE", str(tmp_path))
    bench = load_benchmark("EvoEval_subtle")
    assert bench.name == "evoeval_subtle" and len(bench.problems) == 4
    assert bench.problems[0].source["file"] == cached.name


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1, 2", [1, 2]),
        ("(1, 2), {3}", [(1, 2), {3}]),
        ("float('inf'), float('nan') != 0", None),
        ("-5, +3.5, 2**10, 7 // 2, 7 % 3", [-5, 3.5, 1024, 3, 1]),
        ("'ab' * 3, [0] * 4", ["ababab", [0, 0, 0, 0]]),
        ("{'a': (1,)}, set(), frozenset([1]), tuple([1, 2])", [{"a": (1,)}, set(), frozenset({1}), (1, 2)]),
        ("list(range(4)), range(2)", [[0, 1, 2, 3], [0, 1]]),
        ("'x',  # trailing comment", ["x"]),
        ("", []),
    ],
)
def test_parse_arguments_accepts_literals(text: str, expected) -> None:
    if expected is None:
        with pytest.raises(ValueError):
            parse_arguments(text)
        return
    assert parse_arguments(text) == expected


def test_parse_arguments_float_specials() -> None:
    inf, nan = parse_arguments("float('inf'), float('nan')")
    assert inf == float("inf") and nan != nan


@pytest.mark.parametrize(
    "text",
    [
        "__import__('os').system('echo hacked')",
        "open('/etc/passwd')",
        "(lambda: 1)()",
        "x",
        "[0] * 10**9",
        "(10**100) ** 10**6",
        "eval('1')",
        "'%s' % 1",
        "[i for i in range(3)]",
        "float(*[1])",
    ],
)
def test_parse_arguments_rejects_code(text: str) -> None:
    with pytest.raises(ValueError):
        parse_arguments(text)


def _evoeval_row(**fields) -> dict:
    row = {
        "task_id": "EvoEval/9",
        "prompt": "def f(x):\n    '''doc'''\n",
        "entry_point": "f",
        "canonical_solution": "    return x\n",
        "inputs": ["1"],
    }
    row.update(fields)
    return row


@pytest.mark.parametrize(
    ("row", "expected"),
    [
        (
            _evoeval_row(inputs=["1", "__import__('os').getcwd()"]),
            "field 'inputs': input 1 is not a literal argument list: Call is not a literal",
        ),
        (
            _evoeval_row(inputs=["1", "2 +"]),
            "field 'inputs': input 1 is not a literal argument list: not valid Python",
        ),
        (_evoeval_row(inputs=[3]), "field 'inputs': input 0: expected str or list, got int"),
        (_evoeval_row(inputs="1, 2"), "field 'inputs': expected list, got str"),
        (
            {k: v for k, v in _evoeval_row().items() if k != "entry_point"},
            "field 'entry_point': missing field",
        ),
        (_evoeval_row(canonical_solution=5), "field 'canonical_solution': expected str, got int"),
        (
            _evoeval_row(canonical_solution="    return (\n"),
            "field 'canonical_solution': prompt + solution is not valid Python",
        ),
        (_evoeval_row(atol="small"), "field 'atol': expected number, got str"),
    ],
)
def test_evoeval_bad_rows(tmp_path: Path, row: dict, expected: str) -> None:
    path = tmp_path / "evo.jsonl"
    path.write_text(json.dumps(_evoeval_row(task_id="EvoEval/8")) + "\n" + json.dumps(row) + "\n")
    with pytest.raises(InputError) as caught:
        read_evoeval(path)
    assert str(caught.value).startswith(f"{path}:2: {expected}")


def test_evoeval_duplicates_and_plus_inputs(tmp_path: Path) -> None:
    dup = tmp_path / "dup.jsonl"
    dup.write_text(json.dumps(_evoeval_row()) + "\n" + json.dumps(_evoeval_row()) + "\n")
    with pytest.raises(InputError) as caught:
        read_evoeval(dup)
    assert str(caught.value) == f"{dup}:2: field 'task_id': duplicate task_id 'EvoEval/9' (first on line 1)"

    # Verbose/concise tasks carry EvalPlus-style lists instead of `inputs`.
    row = _evoeval_row(base_input=[[1], [2]], plus_input=[[3]], atol=0)
    del row["inputs"]
    plus = tmp_path / "verbose.jsonl"
    plus.write_text(json.dumps(row) + "\n")
    (problem,) = read_evoeval(plus)
    assert [(t.input, t.origin) for t in problem.tests] == [([1], "base"), ([2], "base"), ([3], "plus")]
    assert problem.atol == 0.0


# --- EvoEval release sets as evolved variants --------------------------------------------------

RELEASE = FIXTURES / "evoeval_release"
# (file type, task id) -> (seeds, how they were told); the rules are in data/evoeval.py's docstring.
RELEASE_SEEDS = {
    ("verbose", "HumanEval/0"): (["HumanEval/0"], "task_id"),
    ("verbose", "HumanEval/2"): (["HumanEval/2"], "task_id"),
    ("concise", "HumanEval/4"): (["HumanEval/4"], "task_id"),
    ("concise", "EvoEval/7"): (["HumanEval/7"], "task_id"),
    ("difficult", "EvoEval/24"): (["HumanEval/24"], "row"),
    ("difficult", "EvoEval/35"): (["HumanEval/35"], "task_id"),
    ("subtle", "EvoEval/23"): (["HumanEval/23"], "task_id"),
    ("subtle", "EvoEval/35"): (["HumanEval/35"], "task_id"),
    ("creative", "EvoEval/0"): ([], "unknown"),  # numbered apart from its seed: not guessed
    ("creative", "EvoEval/1"): (["HumanEval/72"], "row"),
    ("combine", "EvoEval/0"): (["HumanEval/28", "HumanEval/29"], "row"),  # a list
    ("combine", "EvoEval/1"): (["HumanEval/34", "HumanEval/35"], "row"),  # one string naming both
    ("combine", "EvoEval/2"): ([], "unknown"),
    ("tool_use", "EvoEval/0"): ([], "unknown"),
    ("tool_use", "EvoEval/1"): (["HumanEval/91"], "row"),
}


def test_release_files_load_as_evolved_variants_typed_by_file_name() -> None:
    found = {}
    for path in sorted(RELEASE.glob("EvoEval_*.jsonl")):
        kind = type_of_file(path)
        for problem in read_evoeval(path):
            assert isinstance(problem, Variant), problem.id
            assert (
                problem.transform == "evolve" and problem.label == kind == problem.provenance["evolve_type"]
            )
            parents = problem.provenance["parents"]
            assert problem.parent_id == (parents[0] if parents else "")
            found[(kind, problem.id)] = (parents, problem.provenance["parent_from"])
    assert found == RELEASE_SEEDS
    tool = next(p for p in read_evoeval(RELEASE / "EvoEval_tool_use.jsonl") if p.id == "EvoEval/1")
    assert tool.source["helpers"] == ["split_sentences"] and "def split_sentences" in tool.reference


def test_release_files_by_path_are_evoeval_even_when_rows_look_like_evalplus() -> None:
    # Verbose and concise rows carry EvalPlus's base_input/plus_input; the file name says whose they are.
    for path in sorted(RELEASE.glob("EvoEval_*.jsonl")):
        problems = load_benchmark(str(path)).problems
        assert problems and all(isinstance(p, Variant) and p.label == type_of_file(path) for p in problems)
        assert all(p.tests for p in problems), path.name


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("EvoEval_subtle-v0.1.0.jsonl.gz", "subtle"),
        ("evoeval_tool_use.jsonl", "tool_use"),
        ("EvoEval_verbose_sample.jsonl", "verbose"),
        ("EvoEval_difficulty.jsonl", None),
        ("evoeval_sample.jsonl", None),
        ("my_EvoEval_combine.jsonl", None),
    ],
)
def test_type_of_file(name: str, kind: str | None) -> None:
    assert type_of_file(Path(name)) == kind


def test_named_set_types_a_user_file_and_a_row_type_wins(tmp_path: Path) -> None:
    # The sample fixture's name tells no type: plain problems, as before.
    assert not any(isinstance(p, Variant) for p in read_evoeval(EVOEVAL))
    # The named set does: its problems become variants of that type, seeds from the rows' `parent`
    # (the last row has none: difficult numbers its tasks after their seeds).
    bench = load_benchmark("evoeval_difficult", EVOEVAL)
    assert [(p.label, p.parent_id, p.provenance["parent_from"]) for p in bench.problems] == [
        ("difficult", "HumanEval/0", "row"),
        ("difficult", "HumanEval/1", "row"),
        ("difficult", "HumanEval/2", "row"),
        ("difficult", "HumanEval/3", "task_id"),
    ]
    # A row's own `type` overrides the set's; an unknown one is an error on its line.
    path = tmp_path / "EvoEval_creative.jsonl"
    path.write_text(
        json.dumps(_evoeval_row(task_id="EvoEval/3", type="EvoEval_subtle"))
        + "\n"
        + json.dumps(_evoeval_row(task_id="EvoEval/4"))
        + "\n"
    )
    subtle, creative = read_evoeval(path)
    assert (subtle.label, subtle.parent_id, subtle.provenance["parent_from"]) == (
        "subtle",
        "HumanEval/3",
        "task_id",
    )
    assert (creative.label, creative.parent_id, creative.provenance["parent_from"]) == (
        "creative",
        "",
        "unknown",
    )
    path.write_text(json.dumps(_evoeval_row(type="hard")) + "\n")
    with pytest.raises(
        InputError, match=r"EvoEval_creative.jsonl:1: field 'type': unknown EvoEval type 'hard'"
    ):
        read_evoeval(path)


@pytest.mark.parametrize(
    ("parent", "expected"),
    [
        ("HumanEval/12", (["HumanEval/12"], "row")),
        (["HumanEval/3", "HumanEval/3", "HumanEval/9"], (["HumanEval/3", "HumanEval/9"], "row")),
        ("HumanEval/164", ([], "unknown")),  # HumanEval has 0..163
        ("MBPP/3", ([], "unknown")),
        ([], ([], "unknown")),
    ],
)
def test_seed_from_the_parent_field(tmp_path: Path, parent, expected) -> None:
    path = tmp_path / "EvoEval_difficult.jsonl"
    # A `parent` field, even one naming no HumanEval task, is the row's word: no falling back on the id.
    path.write_text(json.dumps(_evoeval_row(parent=parent)) + "\n")
    (variant,) = read_evoeval(path)
    assert (variant.provenance["parents"], variant.provenance["parent_from"]) == expected


def test_seed_field_of_the_wrong_type_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "EvoEval_combine.jsonl"
    path.write_text(json.dumps(_evoeval_row(parent=7)) + "\n")
    with pytest.raises(InputError) as caught:
        read_evoeval(path)
    assert (
        str(caught.value)
        == f"{path}:1: field 'parent': expected a HumanEval task id or a list of them, got int"
    )


def test_seed_rules_hold_on_real_humaneval() -> None:
    """Every seed the fixture names exists; verbose/concise seeds keep the entry point, and HumanEval's
    own reference passes the rewording's tests (the meaning is the same, so the seed must be right)."""
    humaneval = {p.id: p for p in load_benchmark("humaneval").problems}
    variants = [p for path in sorted(RELEASE.glob("EvoEval_*.jsonl")) for p in read_evoeval(path)]
    assert all(seed in humaneval for v in variants for seed in v.provenance["parents"])
    same_meaning = [v for v in variants if v.label in ("verbose", "concise")]
    assert len(same_meaning) == 4
    assert all(humaneval[v.parent_id].entry_point == v.entry_point for v in same_meaning)
    with Engine(workers=1) as engine:
        prepared = engine.prepare(same_meaning).problems
        jobs = [Job(v, humaneval[v.parent_id].reference, v.id, 0) for v in prepared]
        verdicts = engine.evaluate(jobs)
        # A wrong seed fails: HumanEval/2's reference on the HumanEval/0 rewording.
        wrong = engine.evaluate([Job(prepared[0], humaneval["HumanEval/2"].reference, prepared[0].id, 0)])
    assert [verdict.status for verdict in verdicts] == ["pass"] * 4
    assert not wrong[0].ok


# --- LiveCodeBench ----------------------------------------------------------------------------


def _pair_with_sum(nums: list[int], target: int) -> list[int]:
    for i in range(len(nums)):
        for j in range(i + 1, len(nums)):
            if nums[i] + nums[j] == target:
                return [i, j]
    return []


def test_lcb_fixture_loads_stdin_and_functional() -> None:
    problems = {p.id: p for p in read_livecodebench(LCB)}
    assert list(problems) == ["fix001_a", "fix002_b", "9001", "9002"]

    double = problems["fix001_a"]
    assert double.kind == "stdin" and double.entry_point == "" and double.reference == ""
    assert [t.origin for t in double.tests] == ["public"] * 2 + ["private"] * 3  # private were compressed
    for test in double.tests:
        assert test.has_expected and test.expected == f"{2 * int(test.input)}\n"
    assert double.source["has_reference"] is False and "no reference" in double.source["reference_note"]
    assert double.source["platform"] == "atcoder" and double.source["contest_date"].startswith("2024-01-06")

    run = problems["fix002_b"]
    assert [(t.input, t.expected) for t in run.tests] == [
        ("aabbbc\n", "3\n"),
        ("z\n", "1\n"),
        ("abab\n", "1\n"),
    ]

    pair = problems["9001"]
    assert pair.kind == "method" and pair.entry_point == "pairWithSum"
    assert pair.strict_sequences is False and double.strict_sequences is True
    assert "class Solution" in pair.prompt and pair.prompt.startswith("Given an array nums")
    assert pair.tests[0].input == [[2, 7, 11, 15], 9] and pair.tests[0].expected == [0, 1]
    assert [t.origin for t in pair.tests] == ["public", "public", "private"]
    for test in pair.tests:
        assert _pair_with_sum(*test.input) == test.expected

    ordered = problems["9002"]
    assert [t.input for t in ordered.tests] == [[["a", "b", "c"]], [["b", "a"]], [[]]]
    assert [t.expected for t in ordered.tests] == [True, False, True]


def test_lcb_detected_by_path_and_json_array(tmp_path: Path) -> None:
    assert is_livecodebench(LCB) and not is_livecodebench(EVOEVAL)
    assert load_benchmark(str(LCB)).problems[0].source["format"] == "livecodebench"
    rows = [json.loads(line) for line in LCB.read_text().splitlines()]
    array = tmp_path / "lcb.json"
    array.write_text(json.dumps(rows, indent=1))
    assert [p.id for p in load_benchmark(str(array)).problems] == ["fix001_a", "fix002_b", "9001", "9002"]
    with pytest.raises(InputError, match="LiveCodeBench needs its data file"):
        load_benchmark("livecodebench")


class _Evil:
    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


def _pack(obj) -> str:
    return base64.b64encode(zlib.compress(pickle.dumps(obj))).decode()


def _lcb_row(**fields) -> dict:
    row = json.loads(LCB.read_text().splitlines()[0])
    row.update(fields)
    return row


def test_lcb_rejects_malicious_pickle(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    path = tmp_path / "evil.jsonl"
    path.write_text(json.dumps(_lcb_row(private_test_cases=_pack(_Evil(marker)))) + "\n")
    with pytest.raises(InputError) as caught:
        read_livecodebench(path)
    assert str(caught.value) == (
        f"{path}:1: field 'private_test_cases': refused to unpickle: forbidden global {os.system.__module__}.system"
    )
    assert not marker.exists()


@pytest.mark.parametrize(
    "payload",
    [
        pickle.dumps(eval),  # a builtin other than str/list/dict
        b"cbuiltins\ngetattr\n.",
        b"\x80\x04\x95\x05\x00\x00\x00\x00\x00\x00\x00P0\n.",  # persistent id
    ],
)
def test_lcb_restricted_unpickler_refuses_globals(payload: bytes) -> None:
    with pytest.raises(ValueError, match="refused to unpickle"):
        decode_test_blob(base64.b64encode(zlib.compress(payload)).decode())


def test_lcb_decode_blob_forms(monkeypatch: pytest.MonkeyPatch) -> None:
    cases = [{"input": "1\n", "output": "2\n", "testtype": "stdin"}]
    assert decode_test_blob(json.dumps(cases)) == cases
    assert decode_test_blob(_pack(json.dumps(cases))) == cases
    assert decode_test_blob(_pack(cases)) == cases  # already a list: builtins only
    assert decode_test_blob("") == []
    with pytest.raises(ValueError, match="neither JSON nor base64"):
        decode_test_blob("not-base64-or-json!")
    monkeypatch.setattr(livecodebench, "MAX_DECOMPRESSED", 1000)
    with pytest.raises(ValueError, match="decompresses to more than 1000 bytes"):
        decode_test_blob(_pack("x" * 5000))


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"public_test_cases": "[{oops"}, "field 'public_test_cases': malformed JSON"),
        ({"public_test_cases": json.dumps([{"input": "1"}])}, "field 'public_test_cases[0].output': missing"),
        (
            {"public_test_cases": json.dumps([{"input": "1", "output": "2", "testtype": "batch"}])},
            "field 'public_test_cases[0].testtype': expected 'stdin' or 'functional', got 'batch'",
        ),
        (
            {"public_test_cases": json.dumps([{"input": "[1,\n", "output": "2", "testtype": "functional"}])},
            "field 'public_test_cases[0].input': malformed JSON argument",
        ),
        (
            {"public_test_cases": json.dumps([{"input": "1", "output": "2", "testtype": "functional"}])},
            "field 'private_test_cases': mixes stdin and functional tests",
        ),
        (
            {
                "public_test_cases": json.dumps([{"input": "1", "output": "2", "testtype": "functional"}]),
                "private_test_cases": "[]",
            },
            "field 'metadata': functional problem without 'func_name'",
        ),
        ({"metadata": "[1]"}, "field 'metadata': expected a JSON object, got list"),
        ({"question_content": None}, "field 'question_content': expected str, got NoneType"),
        ({"question_id": ["x"]}, "field 'question_id': expected str, got list"),
    ],
)
def test_lcb_bad_rows(tmp_path: Path, fields: dict, expected: str) -> None:
    path = tmp_path / "lcb.jsonl"
    path.write_text(json.dumps(_lcb_row(question_id="ok")) + "\n" + json.dumps(_lcb_row(**fields)) + "\n")
    with pytest.raises(InputError) as caught:
        read_livecodebench(path)
    assert str(caught.value).startswith(f"{path}:2: {expected}")


def test_lcb_duplicate_ids(tmp_path: Path) -> None:
    path = tmp_path / "lcb.jsonl"
    path.write_text(json.dumps(_lcb_row()) + "\n" + json.dumps(_lcb_row()) + "\n")
    with pytest.raises(InputError) as caught:
        read_livecodebench(path)
    assert (
        str(caught.value)
        == f"{path}:2: field 'question_id': duplicate question_id 'fix001_a' (first on line 1)"
    )
