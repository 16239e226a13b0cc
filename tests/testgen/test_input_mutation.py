"""Type-aware input mutation: determinism, admission by the inferred type, NaN/inf only when observed,
no in-place edits, bounded sizes, and every rule reachable."""

from __future__ import annotations

import copy
import itertools
import json
import math
import random
import subprocess
import sys

import pytest

from benchmorph.data import load_benchmark
from benchmorph.data.formats.evalplus import load_mbpp_plus
from benchmorph.data.models import Problem, TestCase
from benchmorph.testgen.mutation import (
    MIN_CAP,
    RULES,
    Mutator,
    code_constants,
    input_key,
    mutate_args,
    mutate_value,
    mutation_stream,
    render_stdin,
    stdin_mutation_stream,
)
from benchmorph.testgen.types import (
    Signature,
    admits,
    infer_signature,
    infer_type,
    parse_type,
    stdin_line_values,
)
from paths import ROOT, SharedData


def sig_of(inputs: list[list], reference: str = "def f(*args):\n    pass\n") -> Signature:
    problem = Problem(
        id="p", prompt="", entry_point="f", reference=reference, tests=[TestCase(input=i) for i in inputs]
    )
    return infer_signature(problem)


SEEDS = [
    [[1, 2, 3], "abc", {"k": (1, 2.5)}, {3, 4}, None],
    [[], "zz", {}, set(), None],
    [[-7], "a1", {"q": (0, -1.0)}, {9}, None],
]


def take(seeds: list[list], seed: int, n: int = 200) -> list[list]:
    return list(itertools.islice(mutation_stream(seeds, sig_of(seeds), seed), n))


# --------------------------------------------------------------------------- the stream


def test_same_seed_same_stream_and_different_seed_different_stream() -> None:
    first, again, other = take(SEEDS, 7), take(SEEDS, 7), take(SEEDS, 8)
    assert len(first) == 200 and repr(first) == repr(again)
    assert repr(first) != repr(other)
    keys = [input_key(args) for args in first]
    assert len(set(keys)) == len(keys)  # de-duplicated
    assert not set(keys) & {input_key(args) for args in SEEDS}  # seeds are not yielded


def test_stream_is_the_same_in_another_process_despite_str_hashing() -> None:
    # Sets of strings iterate in an order that follows PYTHONHASHSEED; the stream must not.
    script = (
        "import itertools, json\n"
        "from benchmorph.data.models import Problem, TestCase\n"
        "from benchmorph.testgen.types import infer_signature\n"
        "from benchmorph.testgen.mutation import mutation_stream\n"
        "seeds = [[{'apple', 'kiwi', 'fig', 'plum'}, 'xy'], [{'a', 'bb'}, 'q']]\n"
        "p = Problem(id='p', prompt='', entry_point='f', reference='def f(s, t):\\n    pass\\n',"
        " tests=[TestCase(input=s) for s in seeds])\n"
        "out = itertools.islice(mutation_stream(seeds, infer_signature(p), 3), 60)\n"
        "print(json.dumps([[sorted(a[0]), a[1]] for a in out]))\n"
    )
    outputs = set()
    for hash_seed in ("1", "2", "3"):
        done = subprocess.run(
            [sys.executable, "-c", script],
            capture_output=True,
            text=True,
            env={"PYTHONHASHSEED": hash_seed, "PATH": "/usr/bin:/bin"},
            check=True,
            timeout=60,
        )
        outputs.add(done.stdout)
    assert len(outputs) == 1 and len(json.loads(outputs.pop())) == 60


def test_stream_ends_when_nothing_new_can_be_made() -> None:
    seeds = [[None], [None]]
    assert take(seeds, 0) == []
    flags = take([[True]], 0)
    assert flags == [[False]]


def test_every_value_is_admitted_on_every_humaneval_problem() -> None:
    for problem in load_benchmark("humaneval").problems:
        sig = infer_signature(problem)
        seeds = [test.input for test in problem.tests]
        produced = list(itertools.islice(mutation_stream(seeds, sig, 0), 40))
        assert len(produced) == 40, problem.id
        for args in produced:
            assert sig.admits_args(args), (problem.id, args)


def test_every_value_is_admitted_on_every_mbpp_plus_problem(shared_data: SharedData) -> None:
    for problem in load_mbpp_plus(shared_data.mbpp_plus):
        sig = infer_signature(problem)
        seeds = [test.input for test in problem.tests if test.origin == "base"]
        for args in itertools.islice(mutation_stream(seeds, sig, 1), 20):
            assert sig.admits_args(args), (problem.id, args)


# --------------------------------------------------------------------------- single values


def test_nan_and_inf_only_when_the_pool_has_them() -> None:
    t = parse_type("float")
    rng = random.Random(0)
    plain = [mutate_value(1.5, t, rng, pool=[0.0, 1e300, -2.5]) for _ in range(3000)]
    assert all(math.isfinite(x) for x in plain)
    with_nan = [mutate_value(1.5, t, rng, pool=[math.nan, 2.0]) for _ in range(3000)]
    assert any(math.isnan(x) for x in with_nan) and not any(math.isinf(x) for x in with_nan)
    with_inf = [mutate_value(1.5, t, rng, pool=[-math.inf]) for _ in range(3000)]
    assert any(x == -math.inf for x in with_inf)
    assert not any(math.isnan(x) or x == math.inf for x in with_inf)
    nested = parse_type("list[float]")
    values = [mutate_value([1.0, 2.0], nested, rng, pool=[[3.0, 1e308]]) for _ in range(2000)]
    assert all(math.isfinite(x) for value in values for x in value)


def test_nothing_is_changed_in_place() -> None:
    sig = sig_of(SEEDS)
    seeds = copy.deepcopy(SEEDS)
    snapshot = repr(seeds)
    rng = random.Random(0)
    for _ in range(300):
        mutate_args(seeds[0], sig, rng, pools=[[s[i] for s in seeds] for i in range(5)])
        for index, (_, t) in enumerate(sig.params):
            mutate_value(seeds[0][index], t, rng, pool=[s[index] for s in seeds])
    for _ in itertools.islice(mutation_stream(seeds, sig, 0), 300):
        pass
    assert repr(seeds) == snapshot
    # What the stream yields is the caller's: editing it does not change later candidates.
    stream = mutation_stream(seeds, sig, 5)
    untouched = take(seeds, 5, 100)
    for args in itertools.islice(stream, 100):
        args[0].append(123456789)
    assert repr(take(seeds, 5, 100)) == repr(untouched)


def test_sizes_stay_bounded() -> None:
    rng = random.Random(1)
    text, items = parse_type("str"), parse_type("list[int]")
    for _ in range(3000):
        assert len(mutate_value("abcdefghij", text, rng, pool=["abc"])) <= 20
        assert len(mutate_value([1, 2, 3], items, rng, pool=[[4]])) <= MIN_CAP
    # Stacked mutations in a stream stay within twice the seeds' sizes too.
    seeds = [["abcd", [1, 2, 3, 4], {"a": 1}], ["xy", [5], {}]]
    for args in take(seeds, 0, 2000):
        assert len(args[0]) <= MIN_CAP and len(args[1]) <= MIN_CAP and len(args[2]) <= MIN_CAP
    long = [["a" * 30, list(range(30)), {}]]
    produced = take(long, 0, 2000)
    assert max(len(args[0]) for args in produced) <= 60 and max(len(args[1]) for args in produced) <= 60


def test_new_characters_come_from_the_pool_alphabet() -> None:
    rng = random.Random(2)
    t = parse_type("str")
    for _ in range(2000):
        applied: list[str] = []
        result = mutate_value("1234", t, rng, pool=["90", "5567"], applied=applied)
        assert result == "" or result.isdigit(), (result, applied)


def test_unions_mutate_within_the_value_branch() -> None:
    t = infer_type([1, "x", [1.5]])
    assert str(t) == "int | str | list[float]"
    rng = random.Random(3)
    for value, kind in ((5, int), ("abc", str), ([2.0], list)):
        for _ in range(300):
            result = mutate_value(value, t, rng, pool=[1, "x", [1.5]])
            assert type(result) is kind and admits(t, result)


def test_arguments_that_cannot_change_leave_the_others_to_mutate() -> None:
    sig = sig_of([[None, []], [None, []], [None, []]])
    assert str(sig.params[1][1]) == "list[Any]"
    assert mutate_args([None, []], sig, random.Random(0)) == [None, []]
    mixed = sig_of([[None, 3]])
    rng = random.Random(0)
    assert all(mutate_args([None, 3], mixed, rng)[1] != 3 for _ in range(100))


def test_several_arguments_change_at_once_sometimes() -> None:
    sig = sig_of([[1, 2, 3]])
    mutator = Mutator(sig, [[1], [2], [3]])
    rng = random.Random(0)
    changed = [
        sum(a != b for a, b in zip(mutator.mutate_args([1, 2, 3], rng), [1, 2, 3], strict=True))
        for _ in range(300)
    ]
    assert min(changed) >= 1 and max(changed) >= 2 and changed.count(1) > 150


# --------------------------------------------------------------------------- every rule is reachable

FAMILIES = {
    "int": ("int", 5, [[-3, 10, 40]]),
    "float": ("float", 2.5, [-1.0, 7.25, math.nan, math.inf, -math.inf]),
    "bool": ("bool", True, [False]),
    "complex": ("complex", 1 + 2j, [3j]),
    "str": ("str", "Hello World", ["abc", "xyz"]),
    "bytes": ("bytes", b"hello", [b"abc"]),
    "seq": ("list[int]", [3, 1, 2], [[5, 6], [7]]),
    "tuple": ("tuple[int, int, str]", (1, 2, "a"), [(3, 4, "b")]),
    "set": ("set[int]", {1, 2, 3}, [{4, 5}]),
    "dict": ("dict[str, int]", {"a": 1, "b": 2}, [{"c": 3}]),
}


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_every_rule_of_each_family_is_reachable(family: str) -> None:
    type_text, value, pool = FAMILIES[family]
    if family == "int":
        pool = pool[0]
    t = parse_type(type_text)
    rng = random.Random(4)
    seen: set[str] = set()
    constants = (7, 100) if family == "int" else ()  # int.constant draws only from given constants
    for _ in range(3000):
        applied: list[str] = []
        result = mutate_value(value, t, rng, pool=pool, applied=applied, constants=constants)
        assert admits(t, result), (result, applied)
        seen.update(name for name in applied if name.startswith(family + "."))
    assert seen == set(RULES[family])


def test_variadic_tuples_and_nested_values_use_the_sequence_rules() -> None:
    t = parse_type("tuple[list[int], ...]")
    rng = random.Random(5)
    seen: set[str] = set()
    for _ in range(1500):
        applied: list[str] = []
        result = mutate_value(([1, 2], [3]), t, rng, pool=[([4],)], applied=applied)
        assert type(result) is tuple and admits(t, result)
        seen.update(applied)
    assert {"seq.append", "seq.item", "seq.empty"} <= seen
    assert {"int.plus1", "int.negate"} <= seen  # items of the inner lists changed recursively


def test_stdin_inputs_mutate_line_by_line() -> None:
    problems = load_benchmark(str(ROOT / "tests" / "fixtures" / "stdin_problems.jsonl")).by_id()
    gcd = problems["stdin/gcd_pairs"]
    sig = infer_signature(gcd)
    seeds = [test.input for test in gcd.tests]
    produced = list(itertools.islice(stdin_mutation_stream(seeds, sig, 0), 300))
    assert produced == list(itertools.islice(stdin_mutation_stream(seeds, sig, 0), 300))
    assert len(set(produced)) == 300 and not set(produced) & set(seeds)
    for text in produced:
        values = stdin_line_values(text)
        assert text.endswith("\n") and sig.line_counts[0] - 1 <= len(values) <= sig.line_counts[1] + 1
        assert all(admits(t, v, numeric_widening=True) for t, v in zip(sig.lines, values, strict=False))
    assert any(
        len(stdin_line_values(text)) != len(stdin_line_values(seed))
        for text in produced
        for seed in seeds[:1]
    )
    assert render_stdin([3, [1, 2.5, "x"], []]) == "3\n1 2.5 x\n\n"
    # The line-count bound holds for every stream, not one lucky seed: grown children are parents too.
    for stream_seed in range(1, 12):
        for text in itertools.islice(stdin_mutation_stream(seeds, sig, stream_seed), 300):
            assert sig.line_counts[0] - 1 <= len(stdin_line_values(text)) <= sig.line_counts[1] + 1
    fizz = problems["stdin/fizzbuzz"]
    numbers = list(
        itertools.islice(stdin_mutation_stream([t.input for t in fizz.tests], infer_signature(fizz), 1), 50)
    )
    assert all(len(text.splitlines()) == 1 and int(text) == int(text.strip()) for text in numbers)


def test_the_references_integer_literals_and_their_neighbours_are_drawn_by_int_constant() -> None:
    reference = "def f(x, n):\n    if n == -1:\n        return abs(x) == 1\n    return x > 10 and True\n"
    constants = code_constants(reference)
    assert set(constants) == {-2, -1, 0, 1, 2, 9, 10, 11, -10}  # True is not an integer here
    sig = Signature(
        kind="function", entry_point="f", params=[("x", parse_type("int")), ("n", parse_type("list[int]"))]
    )
    rng = random.Random(7)
    mutator = Mutator(sig, [[50, 60], [[40, 70]]], constants=constants)
    drawn: list[int] = []
    for _ in range(400):
        applied: list[str] = []
        x, n = mutator.mutate_args([50, [40, 70]], rng, applied)
        if "int.constant" in applied:
            drawn.extend(value for value in [x, *n] if value in constants)
    # Drawn for the int and for the list's items alike, and only from the constants.
    assert len(set(drawn)) >= 5
    plain = Mutator(sig, [[50, 60], [[40, 70]]])
    for _ in range(400):
        applied = []
        plain.mutate_args([50, [40, 70]], rng, applied)
        assert "int.constant" not in applied


def test_args_swap_exchanges_two_arguments_of_one_type_only() -> None:
    # A right triangle's sides (HumanEval/157): the base tests put the hypotenuse last or first,
    # the reference checks each arrangement; swapping two sides reaches the one they never try.
    int_t, list_t = parse_type("int"), parse_type("list[int]")
    sig = Signature(kind="function", entry_point="f", params=[("a", int_t), ("b", int_t), ("c", list_t)])
    mutator = Mutator(sig, [[5], [12], [[13]]])
    rng = random.Random(2)
    swapped = []
    for _ in range(500):
        applied: list[str] = []
        result = mutator.mutate_args([5, 12, [13]], rng, applied)
        if "args.swap" in applied:
            assert applied == ["args.swap"]
            swapped.append(result)
    assert swapped and all(result == [12, 5, [13]] for result in swapped)  # never the list with an int
    assert 20 < len(swapped) < 100  # about ARGS_SWAP of the calls


def test_a_stdin_programs_integer_literals_are_drawn_too() -> None:
    """A program's thresholds are where its branches turn, as a function's are (``int.constant``)."""
    fizz = load_benchmark(str(ROOT / "tests" / "fixtures" / "stdin_problems.jsonl")).by_id()["stdin/fizzbuzz"]
    seeds = ["100\n", "200\n"]
    sig = infer_signature(fizz)
    constants = code_constants(fizz.reference)
    assert {3, 5, -5, 4, 6} <= set(constants)
    plain = {int(text) for text in itertools.islice(stdin_mutation_stream(seeds, sig, 3), 200)}
    drawn = {
        int(text) for text in itertools.islice(stdin_mutation_stream(seeds, sig, 3, constants=constants), 200)
    }
    assert {3, 5, 15} & drawn - plain  # values random steps from 100 and 200 do not reach in 200 draws
