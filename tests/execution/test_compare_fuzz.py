"""Judging any answer at all: property tests that the comparison path never raises.

Model code picks the value it returns, so the host code that decodes, compares,
describes and stores that value must be total: 10**400, NaN, an object whose
``__eq__`` raises or a recursive list fails one test; it never stops a run
(issue 10: one returned 10**400 raised OverflowError and no sample got a verdict).
Hypothesis draws pairs of expected and returned values; the end-to-end test at
the bottom sends hostile answers through the real sandbox and ``benchmorph evaluate``.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchmorph.data import values
from benchmorph.data.models import Problem, TestCase
from benchmorph.execution.compare import DIFF_WIDTH, short_diff, show_value, stdout_match, values_match
from benchmorph.execution.protocol import TestRecord, WorkerReply, output_is_judgeable
from benchmorph.execution.verdicts import build_verdict
from cli_runner import run_cli

# No example database: the tests write nothing into the checkout, and each run explores afresh.
FUZZ = settings(max_examples=300, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])

# ------------------------------------------------------------------ values


class MyInt(int):
    pass


class MyStr(str):
    pass


class MyList(list):
    pass


class MyDict(dict):
    pass


class EqRaises(int):
    """Equal-looking, but asking whether it is equal raises."""

    def __eq__(self, other: object) -> bool:
        raise RuntimeError("no comparing me")

    __hash__ = int.__hash__


class Truthless:
    def __bool__(self) -> bool:
        raise RuntimeError("no truth")


class EqAnswersOddly(str):
    """``==`` returns an object whose truth value raises (as a numpy array's does)."""

    def __eq__(self, other: object) -> Any:
        return Truthless()

    __hash__ = str.__hash__


class ReprRaises:
    def __repr__(self) -> str:
        raise RuntimeError("no showing me")


class ReprSurrogate:
    def __repr__(self) -> str:
        return "bad \ud800 text\nover lines"


class IterRaises(list):
    def __iter__(self):  # type: ignore[override]
        raise RuntimeError("no iterating me")

    def __len__(self) -> int:
        raise RuntimeError("no length")


def recursive_list() -> list:
    items: list = [1, 2.5]
    items.append(items)
    return items


def nested(value: Any, depth: int) -> Any:
    for _ in range(depth):
        value = [value]
    return value


huge_ints = st.builds(
    lambda digits, sign, offset: sign * (10**digits + offset),
    st.integers(min_value=300, max_value=3000),
    st.sampled_from([1, -1]),
    st.integers(min_value=-5, max_value=5),
)
floats = st.floats(allow_nan=True, allow_infinity=True) | st.sampled_from([-0.0, 0.0, math.nan, -math.inf])
texts = st.text(max_size=20) | st.sampled_from(["\ud800", "a\udcffb", "line\nbreak", "[bold]x[/]"])
hashable_scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | huge_ints
    | floats
    | st.complex_numbers(allow_nan=True, allow_infinity=True)
    | st.binary(max_size=20)
    | texts
)


def _hashable(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.tuples(children, children) | st.frozensets(hashable_scalars, max_size=4)


hashables = st.recursive(hashable_scalars, _hashable, max_leaves=8)
plain_scalars = hashable_scalars | st.builds(values.Opaque, st.text(max_size=10))


def _containers(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return (
        st.lists(children, max_size=5)
        | st.lists(children, max_size=5).map(tuple)
        | st.dictionaries(hashables, children, max_size=4)
        | st.sets(hashables, max_size=4)
        | st.frozensets(hashables, max_size=4)
    )


# Values made only of builtin types and the codec's Opaque: what a decoded answer can be.
plain_values = st.recursive(plain_scalars, _containers, max_leaves=20)

exotic_scalars = st.one_of(
    st.builds(MyInt, st.integers()),
    st.builds(MyStr, st.text(max_size=5)),
    st.builds(EqRaises, st.integers()),
    st.builds(EqAnswersOddly, st.text(max_size=5)),
    st.builds(ReprRaises),
    st.builds(ReprSurrogate),
    st.builds(recursive_list),
    st.builds(lambda: (i for i in range(3))),
    st.builds(lambda: IterRaises([1.0, 2.0])),
)


def _exotic_containers(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return (
        _containers(children)
        | st.lists(children, max_size=4).map(MyList)
        | st.dictionaries(st.text(max_size=3), children, max_size=3).map(MyDict)
        | st.builds(nested, children, st.integers(min_value=150, max_value=1200))
    )


any_values = st.recursive(plain_scalars | exotic_scalars, _exotic_containers, max_leaves=20)
tolerances = st.sampled_from([0.0, 1e-6, 1e-4, 0.5, 1e300, math.inf])


def free_of_nan_keys(value: Any, depth: int = 0) -> bool:
    """No NaN inside a set or dict key (such members only equal themselves by identity) and shallow enough."""
    if depth > 150:
        return False
    if type(value) in (set, frozenset):
        return not any(_holds_nan(item) for item in value)
    if type(value) is dict:
        return not any(_holds_nan(key) for key in value) and all(
            free_of_nan_keys(item, depth + 1) for item in value.values()
        )
    if type(value) in (list, tuple):
        return all(free_of_nan_keys(item, depth + 1) for item in value)
    return True


def _holds_nan(value: Any) -> bool:
    if type(value) is float:
        return math.isnan(value)
    if type(value) is complex:
        return math.isnan(value.real) or math.isnan(value.imag)
    if type(value) in (tuple, frozenset):
        return any(_holds_nan(item) for item in value)
    return False


def assert_one_writable_line(text: str) -> None:
    assert isinstance(text, str)
    assert "\n" not in text and "\r" not in text
    text.encode("utf-8")  # no lone surrogates: results.jsonl and SQLite must take it
    assert len(text) <= 2 * DIFF_WIDTH + len("expected , got ")


# ------------------------------------------------------------------ properties


@FUZZ
@given(any_values, any_values, tolerances, st.booleans())
def test_comparison_never_raises(expected: Any, got: Any, atol: float, strict: bool) -> None:
    assert values_match(expected, got, atol, strict) in (True, False)
    assert values_match(expected, got, strict_sequences=strict) in (True, False)
    assert_one_writable_line(short_diff(expected, got))


@FUZZ
@given(plain_values, tolerances, st.booleans())
def test_comparison_is_reflexive_on_plain_values(value: Any, atol: float, strict: bool) -> None:
    """Every plain value matches itself, and its copy after the sandbox's codec round trip."""
    if not free_of_nan_keys(value):
        return
    assert values_match(value, value, atol, strict)
    assert values_match(value, values.decode(values.encode(value)), atol, strict)


@FUZZ
@given(st.one_of(st.integers(), huge_ints, floats), st.one_of(st.integers(), huge_ints, floats), tolerances)
def test_numbers_never_raise_and_are_symmetric(a: Any, b: Any, atol: float) -> None:
    assert values_match(a, b, atol) == values_match(b, a, atol) or (
        # Only the implied float tolerance is asymmetric: it follows the expected value's type.
        atol == 0.0 and (type(a) is float) != (type(b) is float)
    )


@FUZZ
@given(
    st.lists(st.sampled_from(["1", "-0", "0.5", "nan", "inf", "-inf", "1e400", "1_000", "9" * 500, "x"])).map(
        " ".join
    ),
    st.lists(
        st.sampled_from(["1", "1.0", "0.5000001", "NaN", "1e-400", "1" + "0" * 5000, "x", "\ud800"])
    ).map(" ".join),
    tolerances,
)
def test_stdout_comparison_never_raises(expected: str, got: str, atol: float) -> None:
    assert stdout_match(expected, got, atol) in (True, False)
    assert stdout_match(expected, expected, atol)
    assert_one_writable_line(short_diff(expected + "\n", got + "\n"))


json_scalars = st.none() | st.booleans() | st.integers() | huge_ints | st.floats() | st.text(max_size=5)
tags = st.sampled_from(list(values.TAGS))


def _forged(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return (
        st.lists(children, max_size=4)
        | st.dictionaries(st.text(max_size=3) | tags, children, max_size=3)
        | st.builds(lambda tag, payload: {tag: payload}, tags, children)
    )


forged_outputs = st.recursive(
    json_scalars | st.sampled_from(["nan", "inf", "AAA=", "@@"]), _forged, max_leaves=15
)


@FUZZ
@given(forged_outputs)
def test_whatever_the_host_accepts_decodes(data: Any) -> None:
    """The pipe's records are model-controlled; what passes the host's check must decode without raising."""
    if output_is_judgeable(data):
        values.decode(data)


@FUZZ
@given(any_values, plain_values, st.sampled_from([None, "polynomial_root"]), tolerances)
def test_verdicts_are_built_and_written_for_any_answer(
    answer: Any, expected: Any, oracle: str | None, atol: float
) -> None:
    """Worker reply -> Verdict -> JSON, as the host does it, for whatever the sample returned."""
    try:
        encoded: Any = values.encode(answer)
        record = {"i": 0, "s": "ok", "t": 0.001, "o": encoded}
    except Exception as exc:  # noqa: BLE001 - the worker turns this into a test error
        record = {"i": 0, "s": "error", "t": 0.001, "e": f"output cannot be encoded: {type(exc).__name__}"}
    # The pipe carries JSON: send the record through it as the worker would.
    record = json.loads(json.dumps(record))
    if record["s"] == "ok" and not output_is_judgeable(record["o"]):
        return  # TestRecord.from_wire turns such a record into a test error before judging
    problem = Problem(
        id="fuzz/0",
        entry_point="f",
        prompt="",
        reference="",
        atol=min(atol, 1e9),
        oracle=oracle,
        tests=[TestCase(input=[[1.0, -1.0]], expected=expected, has_expected=True)],
    )
    reply = WorkerReply(results=(TestRecord.from_wire(record, 0),), ready=True, job_id="x", wall=0.01)
    verdict = build_verdict(problem, reply, "fuzz/0", 0, "bwrap")
    assert verdict.status in ("pass", "fail", "error")
    json.dumps(verdict.model_dump(mode="json"), ensure_ascii=False).encode("utf-8")
    verdict.model_dump_json()


def test_deep_and_recursive_values_do_not_raise() -> None:
    for depth in (199, 200, 201, 900, 5000):
        deep = nested(1.0, depth)
        assert values_match(deep, deep) is True  # the same object
        assert values_match(deep, nested(1.0000001, depth)) in (True, False)
        assert_one_writable_line(short_diff(deep, nested(2.0, depth)))
    loop = recursive_list()
    assert values_match(loop, loop) is True
    assert values_match(loop, recursive_list()) is False
    assert_one_writable_line(short_diff(loop, recursive_list()))


def test_huge_ints_compare_exactly_and_show_briefly() -> None:
    assert not values_match(0.5, 10**400)  # the sample: OverflowError before
    assert not values_match(10**400, 1e308)
    assert values_match(10**400, 10**400)
    assert not values_match(10**400, 10**400 + 1)
    assert not values_match(1 + 0j, 10**400)
    assert not values_match(1 + 0j, "1")  # complex("1") parses a string: no longer an answer
    assert values_match(1 + 0j, 1)
    assert values_match(complex(math.nan, 1), complex(math.nan, 1))
    assert short_diff(0.5, 10**400) == "expected 0.5, got <int of about 401 digits>"
    assert show_value(-(10 ** (10**5))) == "<-int of about 100001 digits>"
    assert show_value(10**150) == repr(10**150)


def test_text_from_model_code_becomes_writable() -> None:
    assert short_diff("a", ReprSurrogate()) == "expected 'a', got bad \\ud800 text\\nover lines"
    assert short_diff(1, ReprRaises()).startswith("expected 1, got <ReprRaises instance at")
    assert short_diff(1, values.Opaque("X: \udcff")) == "expected 1, got <opaque X: \\udcff>"


def test_stdout_words_that_only_python_reads_as_numbers() -> None:
    assert not stdout_match("1000\n", "1_000\n")
    assert not stdout_match("0.5\n", "1" + "0" * 400 + "\n")  # huge int vs float: no OverflowError


# ------------------------------------------------------------------ through the sandbox and the CLI

HOSTILE_ANSWERS = {
    "huge int": "return 10**400",
    "nan": "return float('nan')",
    "huge nested list": "v = [list(range(2000)) for _ in range(200)]\n    for _ in range(300):\n        v = [v]\n"
    "    return v",
    "custom object": "class Point:\n        pass\n    return Point()",
    "generator": "return (i for i in range(3))",
    "eq and repr raise": "class Bad(float):\n        def __eq__(self, other):\n            raise RuntimeError('eq')\n"
    "        def __repr__(self):\n            raise RuntimeError('repr')\n        __hash__ = float.__hash__\n"
    "    return Bad(number % 1.0)",
    "object with eq and repr raising": "class Bad:\n        def __eq__(self, other):\n            raise RuntimeError\n"
    "        def __repr__(self):\n            raise RuntimeError\n    return Bad()",
    "recursive list": "v = [1]\n    v.append(v)\n    return v",
    "surrogate repr": "class S:\n        def __repr__(self):\n            return chr(0xD800)\n    return S()",
    "surrogate error": "raise ValueError(chr(0xD800))",
    "huge complex": "return complex(1e308, 1e308)",
    "correct": "return number % 1.0",
}


def test_hostile_answers_each_get_a_verdict_through_the_cli(tmp_path: Path) -> None:
    """One samples file, every kind of odd answer: every sample is judged, the run exits 0."""
    rows = [
        {"task_id": "HumanEval/2", "solution": f"def truncate_number(number):\n    {body}\n"}
        for body in HOSTILE_ANSWERS.values()
    ]
    samples = tmp_path / "samples.jsonl"
    samples.write_text("".join(json.dumps(row) + "\n" for row in rows))
    out = tmp_path / "run"
    result = run_cli(
        "evaluate", "humaneval", "--samples", str(samples), "--out", str(out), "--workers", "2",
        cache=tmp_path / "cache", cwd=tmp_path, timeout=300,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    verdicts = [json.loads(line) for line in (out / "results.jsonl").read_text(encoding="utf-8").splitlines()]
    by_name = dict(zip(HOSTILE_ANSWERS, verdicts, strict=True))
    assert len(verdicts) == len(HOSTILE_ANSWERS)
    # Model code's own subclass methods never reach the host: the Bad float arrives as a plain float.
    passing = {"correct", "eq and repr raise"}
    for name, verdict in by_name.items():
        if name in passing:
            assert verdict["status"] == "pass", (name, verdict)
        else:
            assert verdict["status"] in ("fail", "error"), (name, verdict)
            assert verdict["error"], name
    assert by_name["huge int"]["error"] == "expected 0.5, got <int of about 401 digits>"
    assert by_name["surrogate error"]["error"] == "ValueError: \\ud800"
    assert "\\ud800" in by_name["surrogate repr"]["error"]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["n_samples"] == len(HOSTILE_ANSWERS)
    assert sum(summary["statuses"].values()) == len(HOSTILE_ANSWERS)
