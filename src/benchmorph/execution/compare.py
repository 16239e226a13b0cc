"""Deciding whether an answer matches the expected output, as a careful human grader would.

Exact equality first; then numbers within an absolute tolerance, recursively
through containers (NaN equals NaN); an ``int`` equal in value to an expected
``float`` passes.  Tuples and lists only count as different when the problem's
format can tell them apart (``strict_sequences``).
"""

from __future__ import annotations

import math
from typing import Any

DEFAULT_FLOAT_ATOL = 1e-6
RELATIVE_TOLERANCE = 1e-12
DIFF_WIDTH = 160


def holds_float(value: Any, _depth: int = 0) -> bool:
    if _depth > 100:
        return False
    if type(value) is float or type(value) is complex:
        return True
    if isinstance(value, (list, tuple, set, frozenset)):
        return any(holds_float(item, _depth + 1) for item in value)
    if isinstance(value, dict):
        return any(holds_float(item, _depth + 1) for item in value.values())
    return False


def effective_atol(expected: Any, atol: float) -> float:
    """The problem's atol, or 1e-6 when it gives none and floats are involved."""
    if atol > 0:
        return atol
    return DEFAULT_FLOAT_ATOL if holds_float(expected) else 0.0


def _is_number(value: Any) -> bool:
    return type(value) in (int, float)


def _numbers_close(expected: float, got: float, atol: float) -> bool:
    if isinstance(expected, float) and isinstance(got, float) and math.isnan(expected) and math.isnan(got):
        return True
    if expected == got:
        return True
    if math.isinf(expected) or math.isinf(got) or math.isnan(expected) or math.isnan(got):
        return False
    if type(expected) is int and type(got) is int:
        return False
    # Absolute tolerance as the papers specify; a tiny relative one too, so huge
    # floats that differ only in their last bits (1e20 vs its neighbour) still match.
    return abs(expected - got) <= atol or math.isclose(expected, got, rel_tol=RELATIVE_TOLERANCE)


def values_match(expected: Any, got: Any, atol: float = 0.0, strict_sequences: bool = True) -> bool:
    """Whether ``got`` is an acceptable answer for ``expected``."""
    try:
        if expected == got:
            return True
    except Exception:  # noqa: BLE001 - comparison of exotic values
        pass
    return _match(expected, got, effective_atol(expected, atol), strict_sequences, 0)


def _match(expected: Any, got: Any, atol: float, strict: bool, depth: int) -> bool:
    if depth > 200:
        return False
    if _is_number(expected) and _is_number(got):
        return _numbers_close(expected, got, atol)
    if type(expected) is complex or type(got) is complex:
        try:
            return abs(complex(expected) - complex(got)) <= atol
        except TypeError:
            return False
    sequences = (list, tuple)
    if type(expected) in sequences and type(got) in sequences:
        if strict and type(expected) is not type(got):
            return False
        return len(expected) == len(got) and all(
            _match(e, g, atol, strict, depth + 1) for e, g in zip(expected, got, strict=True)
        )
    if type(expected) is dict and type(got) is dict:
        return expected.keys() == got.keys() and all(
            _match(expected[key], got[key], atol, strict, depth + 1) for key in expected
        )
    try:
        return expected == got
    except Exception:  # noqa: BLE001
        return False


def _number_token(token: str) -> int | float | None:
    """An int when the token is one (compared exactly), else a float, else None."""
    try:
        return int(token)
    except ValueError:
        pass
    try:
        return float(token)
    except ValueError:
        return None


def stdout_match(expected: str, got: str, atol: float = 0.0) -> bool:
    """Token-by-token comparison of program output; numeric tokens compare numerically."""
    want, have = expected.split(), got.split()
    if len(want) != len(have):
        return False
    tolerance = atol if atol > 0 else DEFAULT_FLOAT_ATOL
    for a, b in zip(want, have, strict=True):
        if a == b:
            continue
        x, y = _number_token(a), _number_token(b)
        if x is None or y is None or not _numbers_close(x, y, tolerance):
            return False
    return True


def _clip(text: str) -> str:
    return text if len(text) <= DIFF_WIDTH else text[: DIFF_WIDTH - 3] + "..."


def short_diff(expected: Any, got: Any) -> str:
    """A one-line 'expected X, got Y' that stays short for huge values."""
    if isinstance(expected, str) and isinstance(got, str) and ("\n" in expected or "\n" in got):
        want, have = expected.split(), got.split()
        for position, (a, b) in enumerate(zip(want, have, strict=False)):
            if a != b:
                return _clip(f"token {position + 1}: expected {a!r}, got {b!r}")
        return _clip(f"expected {len(want)} tokens, got {len(have)}")
    return f"expected {_clip(repr(expected))}, got {_clip(repr(got))}"
