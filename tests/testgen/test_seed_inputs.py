"""LLM seed inputs: the request shows the typed signature, and answers are read as literals only."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from benchmorph.data import load_benchmark
from benchmorph.data.models import Problem, TestCase
from benchmorph.testgen.seeds import parse_seed_inputs, seed_input_prompt
from benchmorph.testgen.types import infer_signature
from paths import FIXTURES, ROOT

HUMANEVAL = load_benchmark("humaneval").by_id()


def problem(reference: str, inputs: list, entry: str = "f", kind: str = "function") -> Problem:
    return Problem(
        id="p",
        kind=kind,  # type: ignore[arg-type]
        prompt="Does something.",
        entry_point=entry,
        reference=reference,
        tests=[TestCase(input=value) for value in inputs],
    )


PAIRS = problem(
    "def f(points, scale, label=None):\n    return points\n",
    [[[(1, 2.5)], 2.0, "a"], [[], 1.5, None], [[(3, 0.5)], 0.5]],
)


def test_prompt_shows_signature_description_and_existing_inputs() -> None:
    he = HUMANEVAL["HumanEval/0"]
    sig = infer_signature(he)
    existing = [test.input for test in he.tests]
    text = seed_input_prompt(he, sig, existing, 7)
    assert "def has_close_elements(numbers: list[float], threshold: float)" in text
    assert "Check if in given list of numbers" in text
    assert repr(existing[0]) in text and repr(existing[5]) not in text  # the first five only
    assert "7 NEW inputs" in text and "Python literal" in text
    long = [[list(range(500)), 0.5], *existing]
    assert repr(long[0]) not in seed_input_prompt(he, sig, long, 3)  # too long to show


def test_scripted_answer_with_prose_json_python_literals_and_fences() -> None:
    sig = infer_signature(PAIRS)
    assert sig.render() == "def f(points: list[tuple[int, float]], scale: float, label: str | None)"
    answer = """Sure! Here are some inputs that cover the corners:

1. [[[1, 2.5], [2, 3.0]], 1.0, "x"]
2. [[], 3, null]
- [[(0, -0.5)], 2.5]
```python
[[(7, 1.0)], 0.25, None],
f([(4, 4.5)], 9.0, label="deep")
assert f([], scale=2.0) == []
```
```json
[
  [[[5, 6.5]], 1.25],
  [[[8, 0.0]], 0.5, "z"]
]
```
Also useful: [[["a", 1.0]], 1.0] (wrong types), [[], 1.0, 3] and f(1, 2, 3, 4) are not valid.
Thanks!
"""
    parsed = parse_seed_inputs(answer, sig)
    assert parsed == [
        [[(1, 2.5), (2, 3.0)], 1.0, "x"],
        [[], 3.0, None],
        [[(0, -0.5)], 2.5],
        [[(7, 1.0)], 0.25, None],
        [[(4, 4.5)], 9.0, "deep"],
        [[], 2.0],
        [[(5, 6.5)], 1.25],
        [[(8, 0.0)], 0.5, "z"],
    ]
    # JSON's lists became the tuples the type wants, and the int 3 became a float.
    assert type(parsed[0][0][0]) is tuple and type(parsed[1][1]) is float
    assert all(sig.admits_args(args) for args in parsed)


def test_one_parameter_functions_take_the_bare_argument() -> None:
    sig = infer_signature(problem("def f(xs):\n    return xs\n", [[[1, 2]], [[]]]))
    answer = "[3, 4]\n[[5]]\n[]\n[[[6]]]\n'text'\n[1, 2]\n"
    # "[[[6]]]" fits no single reading, so it is read as a list of one argument list: xs = [6].
    assert parse_seed_inputs(answer, sig) == [[[3, 4]], [[5]], [[]], [[6]], [[1, 2]]]
    strings = infer_signature(HUMANEVAL["HumanEval/1"])
    answer = '```\n"(()) ()"\n[""]\nseparate_paren_groups(\'((()))\')\n```\n-5\n'
    assert parse_seed_inputs(answer, strings) == [["(()) ()"], [""], ["((()))"]]


def test_named_arguments_sets_dicts_and_duplicates() -> None:
    sig = infer_signature(
        problem("def f(tags, table):\n    return tags\n", [[{"a", "b"}, {1: [2]}], [set(), {}]])
    )
    answer = (
        '{"tags": ["x", "y", "x"], "table": {"3": [4, 5]}}\n'
        "[{'q'}, {7: []}]\n"
        "[{'q'}, {7: []}]\n"  # a duplicate
        '{"tags": ["x"]}\n'  # table missing
        '{"table": {}, "other": 1}\n'
    )
    assert parse_seed_inputs(answer, sig) == [[{"x", "y"}, {3: [4, 5]}], [{"q"}, {7: []}]]


def test_numbers_are_not_mistaken_for_list_markers() -> None:
    sig = infer_signature(problem("def f(x):\n    return x\n", [[1.5], [2.0]]))
    assert parse_seed_inputs("1.5\n-2.25\n- 3.5\n7.\n", sig) == [[1.5], [-2.25], [3.5], [7.0]]


def test_method_problems_read_solution_calls() -> None:
    two_sum = load_benchmark(str(FIXTURES / "method_problems.jsonl")).by_id()["method/two_sum"]
    sig = infer_signature(two_sum)
    answer = "Solution().twoSum([1, 5, 9], 14)\nsol.twoSum(nums=[0, 0], target=0)\ntwoSum([1], 2, 3)\n"
    assert parse_seed_inputs(answer, sig) == [[[1, 5, 9], 14], [[0, 0], 0]]
    prompt = seed_input_prompt(two_sum, sig, [test.input for test in two_sum.tests], 4)
    assert "def twoSum(nums: list[int], target: int)" in prompt


def test_stdin_answers_are_json_strings_checked_line_by_line() -> None:
    gcd = load_benchmark(str(FIXTURES / "stdin_problems.jsonl")).by_id()["stdin/gcd_pairs"]
    sig = infer_signature(gcd)
    prompt = seed_input_prompt(gcd, sig, [test.input for test in gcd.tests], 3)
    assert "line 2: list[int]" in prompt and '"2\\n12 18\\n7 5\\n"' in prompt
    answer = '"1\\n4 6\\n"\n"2\\n3 3\\n10 5"\n"x\\n1 2\\n"\n5\n["3\\n1 1\\n2 2\\n3 3\\n"]\n'
    assert parse_seed_inputs(answer, sig) == ["1\n4 6\n", "2\n3 3\n10 5\n", "3\n1 1\n2 2\n3 3\n"]


@pytest.mark.parametrize(
    "answer",
    [
        "__import__('os').system('touch {marker}')",
        "[__import__('os').system('touch {marker}')]",
        "f(__import__('os').system('touch {marker}'))",
        "f(*[__import__('os').system('touch {marker}')])",
        "[().__class__.__bases__[0].__subclasses__()]",
        "exec(\"open('{marker}', 'w')\")",
        "```python\nimport os; os.system('touch {marker}')\n```",
        "f(lambda: open('{marker}', 'w'))",
        "[" * 5000 + "]" * 5000,
    ],
)
def test_malicious_answers_are_rejected_and_never_run(answer: str, tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    sig = infer_signature(problem("def f(x):\n    return x\n", [[1], [[2]], ["s"]]))
    assert parse_seed_inputs(answer.format(marker=marker), sig) == []
    assert not marker.exists()


def test_the_reader_has_no_way_to_run_code() -> None:
    source = (ROOT / "src/benchmorph/testgen/seeds.py").read_text()
    calls = [node.func for node in ast.walk(ast.parse(source)) if isinstance(node, ast.Call)]
    names = {func.id for func in calls if isinstance(func, ast.Name)}
    attributes = {func.attr for func in calls if isinstance(func, ast.Attribute)}
    assert {"literal_eval", "loads"} <= attributes
    assert not names & {"eval", "exec", "compile", "__import__", "getattr"}
    assert not attributes & {"eval", "exec", "import_module", "system", "run", "Popen"}
