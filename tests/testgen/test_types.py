"""Type inference over observed test values: exact scalars, recursive containers, unions, string form,
and on the real inputs of every HumanEval, HumanEval+ and MBPP+ problem."""

from __future__ import annotations

import math

import pytest

from benchmorph.data import load_benchmark
from benchmorph.data.formats.evalplus import load_humaneval_plus, load_mbpp_plus
from benchmorph.data.models import Problem, TestCase
from benchmorph.testgen import infer_types
from benchmorph.testgen.types import (
    ANY,
    BOOL,
    FLOAT,
    INT,
    NONE,
    STR,
    DictT,
    FixedTupleT,
    ListT,
    Prim,
    SetT,
    Signature,
    TypeExpr,
    TypeParseError,
    UnionT,
    VarTupleT,
    admits,
    infer_signature,
    infer_type,
    join,
    line_value,
    parse_type,
)
from paths import FIXTURES, SharedData


def t(text: str) -> TypeExpr:
    return parse_type(text)


# --------------------------------------------------------------------------- scalars and containers


def test_scalars_are_exact_and_bool_is_not_int() -> None:
    assert infer_type([1, 2]) == INT
    assert infer_type([True]) == BOOL
    assert str(infer_type([1, True])) == "bool | int"
    assert str(infer_type([1, 2.5])) == "int | float"
    assert str(infer_type(["a", None])) == "str | None"
    assert infer_type([None]) == NONE
    assert not admits(INT, True) and not admits(INT, 1.0) and not admits(FLOAT, 1)
    assert admits(FLOAT, 1, numeric_widening=True) and not admits(FLOAT, True, numeric_widening=True)
    assert admits(FLOAT, math.nan) and admits(FLOAT, math.inf)
    assert infer_type([]) == ANY and not admits(ANY, 0)


def test_nested_lists_and_only_empty_lists() -> None:
    assert str(infer_type([[1, 2], []])) == "list[int]"
    assert str(infer_type([[], []])) == "list[Any]"
    assert str(infer_type([[[1], []], [[]]])) == "list[list[int]]"
    only_empty = infer_type([[]])
    assert admits(only_empty, []) and not admits(only_empty, [1])
    mixed = infer_type([[1, "a"], [2.0]])
    assert str(mixed) == "list[int | float | str]"
    assert admits(mixed, [1, 2.0, "b"]) and not admits(mixed, [None]) and not admits(mixed, (1,))


def test_dicts_sets_frozensets_and_none() -> None:
    d = infer_type([{"a": [1, 2]}, {"b": []}])
    assert d == DictT(STR, ListT(INT)) and str(d) == "dict[str, list[int]]"
    assert admits(d, {}) and not admits(d, {1: [1]}) and not admits(d, {"a": [1.5]})
    assert str(infer_type([{}])) == "dict[Any, Any]"
    s = infer_type([{1, 2}, set()])
    assert s == SetT(INT) and str(s) == "set[int]" and not admits(s, [1]) and not admits(s, frozenset({1}))
    assert str(infer_type([frozenset({"x"})])) == "frozenset[str]"
    assert str(infer_type([[1, None], None])) == "list[int | None] | None"


def test_tuples_positional_variadic_and_empty() -> None:
    pair = infer_type([(1, "a"), (2, "b")])
    assert pair == FixedTupleT((INT, STR)) and str(pair) == "tuple[int, str]"
    assert admits(pair, (3, "c")) and not admits(pair, (3, "c", 4)) and not admits(pair, [3, "c"])
    disagree = infer_type([(1, "a"), ("b", 2)])
    assert str(disagree) == "tuple[int | str, int | str]"
    lengths = infer_type([(1, 2), (3, 4, 5), ()])
    assert lengths == VarTupleT(INT) and str(lengths) == "tuple[int, ...]"
    assert admits(lengths, ()) and admits(lengths, (1, 2, 3, 4)) and not admits(lengths, (1, "a"))
    assert str(infer_type([()])) == "tuple[()]"
    assert str(infer_type([[(1, 2.5)], [(1, 2.5, "x")]])) == "list[tuple[int | float | str, ...]]"


def test_unions_hold_one_branch_per_constructor() -> None:
    u = infer_type([1, "a", [1], ["b"], (1,), (1, 2), None])
    assert str(u) == "int | str | list[int | str] | tuple[int, ...] | None"
    assert isinstance(u, UnionT) and len(u.members()) == 5
    assert join(u, u) == u and join(u, ANY) == u
    assert join(ListT(INT), ListT(ANY)) == ListT(INT)


def test_other_classes_are_named_and_admitted_only_by_that_class() -> None:
    class Point:
        pass

    point = infer_type([Point()])
    assert point == Prim("Point") and admits(point, Point()) and not admits(point, 1)
    assert str(infer_type([1j, 2])) == "int | complex"


@pytest.mark.parametrize(
    "text",
    [
        "int",
        "None",
        "list[Any]",
        "tuple[()]",
        "tuple[int, ...]",
        "tuple[int, str]",
        "dict[str, list[int]]",
        "frozenset[tuple[int, int]]",
        "bool | int | float | str | list[int | None] | dict[int | str, set[str]] | None",
        "tuple[tuple[int | str, ...], list[Any]]",
    ],
)
def test_string_form_round_trips(text: str) -> None:
    parsed = parse_type(text)
    assert str(parsed) == text
    assert TypeExpr.from_json(parsed.to_json()) == parsed
    assert hash(parsed) == hash(parse_type(text))


@pytest.mark.parametrize("text", ["list[", "dict[int]", "tuple[int, str, ...]", "int |", "list[int]]", "3"])
def test_bad_type_strings_raise(text: str) -> None:
    with pytest.raises(TypeParseError):
        parse_type(text)


# --------------------------------------------------------------------------- signatures


def _problem(reference: str, inputs: list, kind: str = "function", entry: str = "f") -> Problem:
    return Problem(
        id="p",
        kind=kind,  # type: ignore[arg-type]
        prompt="",
        entry_point=entry,
        reference=reference,
        tests=[TestCase(input=value) for value in inputs],
    )


def test_signature_names_from_the_reference_and_defaults() -> None:
    problem = _problem(
        "def helper(z):\n    return z\n\ndef f(xs, k=1, *rest):\n    return xs\n",
        [[[1, 2], 3], [[]], [[1], 2, "a", "b"]],
    )
    sig = infer_signature(problem)
    assert sig.names == ["xs", "k", "rest0", "rest1"]
    assert [str(x) for x in sig.types] == ["list[int]", "int", "str", "str"]
    assert sig.required == 1 and sig.arity == 4
    assert sig.render() == "def f(xs: list[int], k: int, rest0: str, rest1: str)"
    assert sig.admits_args([[5]]) and not sig.admits_args([]) and not sig.admits_args([[5], 1.5])
    assert Signature.from_json(sig.to_json()) == sig
    assert infer_types is infer_signature


def test_signature_without_a_usable_def_numbers_the_arguments() -> None:
    sig = infer_signature(_problem("f = lambda a, b: a + b\n", [[1, 2]]))
    assert sig.names == ["arg0", "arg1"]


def test_method_fixtures_skip_self() -> None:
    problems = load_benchmark(str(FIXTURES / "method_problems.jsonl")).by_id()
    two_sum = infer_signature(problems["method/two_sum"])
    assert two_sum.kind == "method" and two_sum.render() == "def twoSum(nums: list[int], target: int)"
    assert str(infer_signature(problems["method/merge_intervals"]).params[0][1]) == "list[list[int]]"
    for problem in problems.values():
        sig = infer_signature(problem)
        assert all(sig.admits_args(test.input) for test in problem.tests)


def test_stdin_fixtures_type_each_line() -> None:
    problems = load_benchmark(str(FIXTURES / "stdin_problems.jsonl")).by_id()
    gcd = infer_signature(problems["stdin/gcd_pairs"])
    assert gcd.params == [] and [str(x) for x in gcd.lines] == ["int", "list[int]", "list[int]", "list[int]"]
    assert gcd.line_counts == (2, 4)
    total = infer_signature(problems["stdin/sum_numbers"])
    assert str(total.lines[0]) == "int | list[int]" and total.line_counts[0] == 0  # an empty input
    assert [str(x) for x in infer_signature(problems["stdin/float_average"]).lines] == ["list[int | float]"]
    assert line_value("  a 1 2.5 ") == ["a", 1, 2.5] and line_value("7") == 7 and line_value("") == []
    assert line_value("nan") == "nan"  # a word, not a float
    assert Signature.from_json(gcd.to_json()) == gcd


# --------------------------------------------------------------------------- the real benchmarks


def _check_every_problem(problems: list[Problem]) -> int:
    checked = 0
    for problem in problems:
        sig = infer_signature(problem)
        assert sig.arity == max(len(test.input) for test in problem.tests), problem.id
        assert not any(name.startswith("arg") for name in sig.names), (problem.id, sig.names)
        for name, param_type in sig.params:
            assert parse_type(str(param_type)) == param_type, (problem.id, name)
        for test in problem.tests:
            assert sig.admits_args(test.input), (problem.id, test.input)
            checked += 1
    return checked


def test_every_humaneval_problem() -> None:
    problems = load_benchmark("humaneval").problems
    assert len(problems) == 164
    assert _check_every_problem(problems) > 1000
    sigs = {problem.id: infer_signature(problem) for problem in problems}
    assert sigs["HumanEval/0"].render() == "def has_close_elements(numbers: list[float], threshold: float)"
    assert str(sigs["HumanEval/1"].params[0][1]) == "str"


def test_every_humaneval_plus_problem(shared_data: SharedData) -> None:
    problems = load_humaneval_plus(shared_data.humaneval_plus_inputs)
    assert len(problems) == 164
    assert _check_every_problem(problems) > 15000


def test_every_mbpp_plus_problem(shared_data: SharedData) -> None:
    problems = load_mbpp_plus(shared_data.mbpp_plus)
    assert len(problems) == 399
    assert _check_every_problem(problems) > 30000
    sigs = {problem.id: infer_signature(problem) for problem in problems}
    assert str(sigs["Mbpp/2"].params[0][1]).startswith("tuple[")
    assert "complex" in str(sigs["Mbpp/124"].params[1][1])
