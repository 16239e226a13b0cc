"""HumanEval loader: check() asserts turned into explicit, deterministic inputs."""

from __future__ import annotations

import copy
import json
import os
import random
import subprocess
import sys
import textwrap

import pytest

from benchmorph.data import values
from benchmorph.data.errors import InputError
from benchmorph.data.formats.humaneval import (
    humaneval_problem_records,
    load_humaneval,
    record_check_inputs,
)
from benchmorph.data.registry import load_benchmark


@pytest.fixture(scope="module")
def problems():
    return load_humaneval()


def _inputs(problems):
    return {
        problem.id: json.dumps([values.encode(test.input) for test in problem.tests]) for problem in problems
    }


def test_loads_all_164_with_tests(problems):
    assert len(problems) == 164
    assert len({problem.id for problem in problems}) == 164
    for problem in problems:
        assert problem.kind == "function"
        assert problem.tests, problem.id
        assert all(test.origin == "base" and not test.has_expected for test in problem.tests)
        assert all(isinstance(test.input, list) for test in problem.tests)
        assert problem.reference.startswith(problem.prompt)
        assert f"def {problem.entry_point}(" in problem.reference
        assert problem.strict_sequences is True
        assert problem.source == {"benchmark": "humaneval", "task_id": problem.id}
    # The asserts of the original suite hold far more than one call per task on average.
    assert sum(len(problem.tests) for problem in problems) > 1400


def test_tolerances_and_oracle(problems):
    by_id = {problem.id: problem for problem in problems}
    assert by_id["HumanEval/32"].oracle == "polynomial_root"
    assert by_id["HumanEval/32"].atol == pytest.approx(1e-4)
    # truncate_number and mean_absolute_deviation compare with abs(...) < 1e-6.
    assert by_id["HumanEval/2"].atol == pytest.approx(1e-6)
    assert by_id["HumanEval/4"].atol == pytest.approx(1e-6)
    others = [p for p in problems if p.id not in {"HumanEval/2", "HumanEval/4", "HumanEval/32"}]
    assert all(p.atol == 0.0 and p.oracle is None for p in others)


def test_random_string_inputs_of_38_are_recorded(problems):
    tests = {problem.id: problem.tests for problem in problems}["HumanEval/38"]
    strings = [test.input[0] for test in tests]
    # check() draws 100 random lowercase strings of length 10..20 and encodes them.
    assert len(strings) >= 100
    assert all(isinstance(s, str) and 10 <= len(s) <= 20 for s in strings)
    assert len(set(strings)) == len(strings)


def test_recording_is_deterministic_and_leaves_random_alone():
    record = next(r for r in humaneval_problem_records() if r["task_id"] == "HumanEval/53")
    random.seed(12345)
    before = random.getstate()
    first = record_check_inputs(record)
    assert random.getstate() == before
    assert record_check_inputs(record) == first
    assert [0, 1] in first and len(first) > 50


def test_same_inputs_in_a_fresh_process_with_another_hash_seed(problems):
    script = textwrap.dedent(
        """
        import json
        from benchmorph.data import values
        from benchmorph.data.formats.humaneval import load_humaneval
        print(json.dumps({p.id: json.dumps([values.encode(t.input) for t in p.tests]) for p in load_humaneval()}))
        """
    )
    env = {**os.environ, "PYTHONHASHSEED": "987"}
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True
    )
    assert json.loads(result.stdout) == _inputs(problems)


def test_keyword_calls_become_positional_and_duplicates_drop():
    record = {
        "task_id": "Local/0",
        "prompt": "def add(a, b=2):\n",
        "canonical_solution": "    return a + b\n",
        "test": textwrap.dedent(
            """
            def check(candidate):
                assert candidate(1, b=3) == 4
                assert candidate(a=2) == 4
                assert candidate(1, 3) == 4
                assert candidate(1.0, 3) == 4
            """
        ),
        "entry_point": "add",
    }
    assert record_check_inputs(record) == [[1, 3], [2, 2], [1.0, 3]]
    assert type(record_check_inputs(record)[2][0]) is float


def test_arguments_are_copied_before_the_call():
    record = {
        "task_id": "Local/1",
        "prompt": "def grow(xs):\n",
        "canonical_solution": "    xs.append(0)\n    return len(xs)\n",
        "test": "def check(candidate):\n    data = [1, 2]\n    assert candidate(data) == 3\n",
        "entry_point": "grow",
    }
    assert record_check_inputs(record) == [[[1, 2]]]


def test_a_failing_check_names_the_task():
    record = {
        "task_id": "Local/2",
        "prompt": "def f(x):\n",
        "canonical_solution": "    return x\n",
        "test": "def check(candidate):\n    assert candidate(1) == 2\n",
        "entry_point": "f",
    }
    with pytest.raises(RuntimeError, match="Local/2"):
        record_check_inputs(record)


def test_records_are_fresh_copies():
    records = humaneval_problem_records()
    assert len(records) == 164
    assert set(records[0]) == {"task_id", "prompt", "canonical_solution", "test", "entry_point"}
    records[0]["prompt"] = "changed"
    assert humaneval_problem_records()[0]["prompt"] != "changed"


def test_problems_do_not_share_mutable_inputs(problems):
    again = load_humaneval()
    again[0].tests[0].input.append("junk")
    assert _inputs(load_humaneval())["HumanEval/0"] == _inputs(problems)["HumanEval/0"]


def test_every_reference_accepts_its_recorded_inputs(problems):
    """Sanity: the trusted reference runs (in-process) on every recorded input without raising."""
    for problem in problems:
        namespace: dict = {"__name__": "sanity"}
        exec(compile(problem.reference, problem.id, "exec"), namespace)
        function = namespace[problem.entry_point]
        for test in problem.tests:
            function(*copy.deepcopy(test.input))


def test_registry_name_and_no_data_file():
    benchmark = load_benchmark("HumanEval")
    assert benchmark.name == "humaneval" and len(benchmark.problems) == 164
    with pytest.raises(InputError, match="takes no data file"):
        load_benchmark("humaneval", data_path="/tmp/whatever.jsonl")
