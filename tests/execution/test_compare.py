"""How answers are judged: values_match, stdout_match, short_diff and the special oracles.

Pure host-side functions, no sandbox: these pin down what counts as the same
answer (numbers within tolerance, NaN, int vs float, tuple vs list, bools) so a
change in grading shows up here rather than as a shifted pass rate.
"""

from __future__ import annotations

import math

import pytest

from benchmorph.data.oracles import ORACLES
from benchmorph.data.values import Opaque
from benchmorph.execution.compare import DIFF_WIDTH, effective_atol, short_diff, stdout_match, values_match
from benchmorph.execution.oracles import get_oracle, oracle_names, register_oracle

NAN = float("nan")
INF = float("inf")

# ------------------------------------------------------------ values_match


@pytest.mark.parametrize(
    ("expected", "got"),
    [
        (1, 1),
        ("abc", "abc"),
        (None, None),
        ([1, [2, 3]], [1, [2, 3]]),
        (0.3, 0.1 + 0.2),  # float noise is within the default 1e-6
        (1.0, 1),  # an int equal in value to the expected float
        (2, 2.0),  # and the other way round: the values are equal
        (NAN, NAN),
        ([NAN, 1.0], [NAN, 1.0]),
        ({"k": NAN}, {"k": NAN}),
        (INF, INF),
        (-INF, -INF),
        ({"a": [1.0, (2.0, 3.0)]}, {"a": [1.0000001, (2.0, 2.9999999)]}),  # tolerance reaches into containers
        ({1: 0.5, 2: [0.25]}, {1: 0.5000004, 2: [0.2500004]}),
        (1 + 1j, 1 + 1.0000001j),
        ({1, 2, 3}, {3, 2, 1}),
        (b"\x00\xff", b"\x00\xff"),
        (Opaque("P: P(x=1)"), Opaque("P: P(x=1)")),
        # bool vs int: equal under ==, exactly as the benchmarks' own `assert f(x) == True` says.
        (True, 1),
        (False, 0),
        ([True, 0.5], [1, 0.5000001]),
    ],
)
def test_values_that_match(expected: object, got: object) -> None:
    assert values_match(expected, got)


@pytest.mark.parametrize(
    ("expected", "got"),
    [
        (1, 2),
        (3, 3.0000001),  # an int answer gets no tolerance: none was implied
        (1.0, 1.00001),  # outside the default 1e-6
        (NAN, 1.0),
        (1.0, NAN),
        (INF, -INF),
        (INF, 1e308),
        ([1.0, 2.0], [1.0]),
        ([1.0], [1.0, 2.0]),
        ({"a": 1.0}, {"b": 1.0}),
        ({"a": 1.0}, {"a": 1.0, "b": 2.0}),
        ("1", 1),
        (1, "1"),
        (None, 0),
        (None, False),
        (True, 2),
        (True, "True"),
        (False, None),
        ([], None),
        ({1.0, 2.0}, {1.0, 2.0000001}),  # sets compare exactly: no element pairing by tolerance
        (Opaque("P: P(x=1)"), Opaque("P: P(x=2)")),
        (Opaque("int: 1"), 1),
        (1 + 1j, 1 + 1.1j),
    ],
)
def test_values_that_do_not_match(expected: object, got: object) -> None:
    assert not values_match(expected, got)


def test_explicit_atol_widens_and_applies_to_ints() -> None:
    assert not values_match(1.0, 1.001)
    assert values_match(1.0, 1.001, atol=0.01)
    assert values_match([1.0, (2.0,)], [1.001, (1.999,)], atol=0.01)
    assert values_match(3, 3.004, atol=0.01)  # a problem's own atol holds for any number
    assert not values_match(1.0, 1.1, atol=0.01)


def test_tuple_vs_list_depends_on_strictness() -> None:
    assert not values_match((1, 2), [1, 2])
    assert not values_match([1, 2], (1, 2), strict_sequences=True)
    assert values_match((1, 2), [1, 2], strict_sequences=False)
    assert values_match([(1, 2.0)], [[1, 2.0000001]], strict_sequences=False)
    assert not values_match([(1, 2.0)], [[1, 2.0000001]], strict_sequences=True)
    assert not values_match((1, 2), [1, 2, 3], strict_sequences=False)


def test_effective_atol() -> None:
    assert effective_atol(1, 0.0) == 0.0
    assert effective_atol("x", 0.0) == 0.0
    assert effective_atol([1, 2.0], 0.0) == 1e-6
    assert effective_atol({"k": (1, 2.5)}, 0.0) == 1e-6
    assert effective_atol(1.0, 0.5) == 0.5


def test_pathological_values_do_not_raise() -> None:
    class Raises:
        def __eq__(self, other: object) -> bool:
            raise RuntimeError("no comparing me")

    assert not values_match(Raises(), 1)
    assert not values_match(1, Raises())
    deep_a: list = [1.0]
    deep_b: list = [1.0000001]
    for _ in range(300):
        deep_a, deep_b = [deep_a], [deep_b]
    assert values_match(deep_a, deep_a)
    assert not values_match(deep_a, deep_b)  # past the depth guard: False, not RecursionError


def test_large_floats_one_ulp_apart_match() -> None:
    expected = 1e20
    assert values_match(expected, math.nextafter(expected, INF))


# ------------------------------------------------------------ stdout_match


@pytest.mark.parametrize(
    ("expected", "got"),
    [
        ("3\n", "3"),
        ("1 2\n3\n", "1  2 3\n\n"),  # whitespace only separates tokens
        ("0.5\n", "0.50000\n"),
        ("1\n", "1.0\n"),
        ("1000\n", "1e3\n"),
        ("0.333333333\n", "0.3333333333333333\n"),
        ("YES\n", "YES"),
        ("nan\n", "nan\n"),
        ("", "\n"),
    ],
)
def test_stdout_that_matches(expected: str, got: str) -> None:
    assert stdout_match(expected, got)


@pytest.mark.parametrize(
    ("expected", "got"),
    [
        ("3\n", "4\n"),
        ("1\n", "1.1\n"),
        ("0.33\n", "0.333333\n"),
        ("YES\n", "yes\n"),  # words are compared exactly
        ("1 2\n", "1\n"),
        ("1\n", "1 2\n"),
        ("abc\n", "abd\n"),
        ("3\n", "three\n"),
        ("inf\n", "-inf\n"),
    ],
)
def test_stdout_that_does_not_match(expected: str, got: str) -> None:
    assert not stdout_match(expected, got)


def test_stdout_atol() -> None:
    assert not stdout_match("0.1\n", "0.11\n")
    assert stdout_match("0.1\n", "0.11\n", atol=0.05)


def test_stdout_big_integers_compare_exactly() -> None:
    assert not stdout_match("1000000000000000001\n", "1000000000000000000\n")


# ------------------------------------------------------------ short_diff


def test_short_diff_values() -> None:
    assert short_diff(1, 2) == "expected 1, got 2"
    assert short_diff([1, 2], (1, 2)) == "expected [1, 2], got (1, 2)"
    assert short_diff("a", None) == "expected 'a', got None"


def test_short_diff_stays_short() -> None:
    diff = short_diff("x" * 10_000, list(range(10_000)))
    assert len(diff) <= 2 * DIFF_WIDTH + len("expected , got ")
    assert diff.startswith("expected 'xxx") and "..." in diff


def test_short_diff_for_program_output_names_the_token() -> None:
    assert short_diff("1\n2\n3\n", "1\n5\n3\n") == "token 2: expected '2', got '5'"
    assert short_diff("1\n2\n", "1\n") == "expected 2 tokens, got 1"
    long = short_diff("a\n" + "y" * 1000, "a\n" + "z" * 1000)
    assert long.startswith("token 2: expected 'yyy") and len(long) <= DIFF_WIDTH


# ------------------------------------------------------------ oracles


def test_polynomial_root_accepts_any_root() -> None:
    oracle = get_oracle("polynomial_root")
    coefficients = [[-1, 0, 1]]  # x^2 - 1
    assert oracle(coefficients, 1.0, 1.0, 0.0)
    assert oracle(coefficients, -1.0, 1.0, 0.0)  # another root than the reference's
    assert oracle(coefficients, 1, 1.0, 0.0)
    assert oracle(coefficients, 1.0000000001, 1.0, 0.0)
    assert not oracle(coefficients, 0.5, 1.0, 0.0)
    assert not oracle(coefficients, 1.001, 1.0, 0.0)
    assert oracle(coefficients, 1.001, 1.0, 0.01)  # the problem's atol applies to the polynomial's value


@pytest.mark.parametrize("answer", [NAN, INF, "1.0", None, True, [1.0], 1e300])
def test_polynomial_root_rejects_non_numbers_and_overflow(answer: object) -> None:
    assert not get_oracle("polynomial_root")([[-1, 0, 1]], answer, 1.0, 0.0)


def test_oracle_registry() -> None:
    assert "polynomial_root" in oracle_names()
    with pytest.raises(KeyError, match="unknown oracle 'nope'.*polynomial_root"):
        get_oracle("nope")

    @register_oracle("test_any_even")
    def any_even(_args: object, answer: object, _expected: object, _atol: float) -> bool:
        return type(answer) is int and answer % 2 == 0

    try:
        assert get_oracle("test_any_even")([], 4, 2, 0.0)
        assert not get_oracle("test_any_even")([], 3, 2, 0.0)
        assert "test_any_even" in oracle_names()
    finally:
        ORACLES.remove("test_any_even")
