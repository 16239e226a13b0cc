"""Deciding whether an answer matches the expected output, as a careful human grader would.

Exact equality first; then numbers within an absolute tolerance, recursively
through containers (NaN equals NaN); an ``int`` equal in value to an expected
``float`` passes.  Tuples and lists only count as different when the problem's
format can tell them apart (``strict_sequences``).

Every function here is total: model code chooses the value being compared
(an int of 400 digits, an object whose ``__eq__`` or ``__repr__`` raises, a
recursive list), and one odd answer must fail its test, never stop a run.
Whatever raises inside a comparison counts as "does not match".
"""

from __future__ import annotations

import math
import reprlib
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
    try:
        floats = holds_float(expected)
    except Exception:  # noqa: BLE001 - a container subclass whose iteration raises holds no float we can see
        floats = False
    return DEFAULT_FLOAT_ATOL if floats else 0.0


def _is_number(value: Any) -> bool:
    return type(value) in (int, float)


def _as_float(value: int | float) -> float | None:
    """The value as a float, or None for an int beyond float range (10**400 has no float)."""
    try:
        return float(value)
    except OverflowError:
        return None


def _numbers_close(expected: float, got: float, atol: float) -> bool:
    """Equal, or both finite floats (or ints) within ``atol``; total for any two ints or floats."""
    if type(expected) is float and type(got) is float and math.isnan(expected) and math.isnan(got):
        return True
    if expected == got:  # exact for any pair, huge ints included
        return True
    if type(expected) is int and type(got) is int:
        return False
    x, y = _as_float(expected), _as_float(got)
    if x is None or y is None:  # an int no float can hold is not close to any float
        return False
    if not (math.isfinite(x) and math.isfinite(y)):
        return False
    # Absolute tolerance as the papers specify; a tiny relative one too, so huge
    # floats that differ only in their last bits (1e20 vs its neighbour) still match.
    return abs(x - y) <= atol or math.isclose(x, y, rel_tol=RELATIVE_TOLERANCE)


def _complex_close(expected: complex, got: complex, atol: float) -> bool:
    """Complex numbers within ``atol`` of each other (modulus of the difference); NaN parts equal NaN."""
    if any(math.isnan(part) for part in (expected.real, expected.imag, got.real, got.imag)):
        return _numbers_close(expected.real, got.real, atol) and _numbers_close(expected.imag, got.imag, atol)
    if expected == got:
        return True
    if not all(math.isfinite(part) for part in (expected.real, expected.imag, got.real, got.imag)):
        return False
    return abs(expected - got) <= atol


def values_match(expected: Any, got: Any, atol: float = 0.0, strict_sequences: bool = True) -> bool:
    """Whether ``got`` is an acceptable answer for ``expected``; never raises.

    Any exception while comparing (an overflow, a hostile ``__eq__``, a
    recursion too deep) means the answer is not accepted.
    """
    try:
        try:
            if expected == got:
                return True
        except Exception:  # noqa: BLE001 - comparison of exotic values; the walk below decides
            pass
        return _match(expected, got, effective_atol(expected, atol), strict_sequences, 0)
    except Exception:  # noqa: BLE001 - RecursionError, OverflowError, whatever a value's methods raise
        return False


def _match(expected: Any, got: Any, atol: float, strict: bool, depth: int) -> bool:
    if depth > 200:
        return False
    if _is_number(expected) and _is_number(got):
        return _numbers_close(expected, got, atol)
    if type(expected) is complex or type(got) is complex:
        # Only numbers compare with a complex: complex("1") would parse a string answer.
        if type(expected) not in (int, float, complex) or type(got) not in (int, float, complex):
            return False
        return _complex_close(complex(expected), complex(got), atol)
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
        # bool(): an exotic __eq__ may answer with anything, even an object whose truth raises.
        return bool(expected == got)
    except Exception:  # noqa: BLE001
        return False


def _number_token(token: str) -> int | float | None:
    """An int when the token is one (compared exactly), else a float, else None.

    Python's own digit separators ("1_000") are not numbers in program output,
    and an integer too long to parse is compared as a word.
    """
    if "_" in token:
        return None
    try:
        return int(token)
    except ValueError:
        if token.lstrip("+-").isdigit():
            return None
    try:
        return float(token)
    except ValueError:
        return None


def stdout_match(expected: str, got: str, atol: float = 0.0) -> bool:
    """Token-by-token comparison of program output; numeric tokens compare numerically; never raises."""
    try:
        return _stdout_match(expected, got, atol)
    except Exception:  # noqa: BLE001 - same contract as values_match: odd output fails, never crashes
        return False


def _stdout_match(expected: str, got: str, atol: float) -> bool:
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


def outputs_match(
    kind: str, expected: Any, got: Any, atol: float = 0.0, strict_sequences: bool = True
) -> bool:
    """The engine's comparison for a problem of ``kind``: token-wise program output for ``stdin``,
    values otherwise; never raises.

    Labelling and output statistics use it, so two programs whose output differs
    only in spacing or line breaks agree there exactly as they do when judged.
    """
    if kind == "stdin":
        return type(expected) is str and type(got) is str and stdout_match(expected, got, atol)
    return values_match(expected, got, atol, strict_sequences)


def _clip(text: str) -> str:
    return text if len(text) <= DIFF_WIDTH else text[: DIFF_WIDTH - 3] + "..."


def _printable(text: str) -> str:
    """One line that UTF-8 (results.jsonl, the SQLite checkpoint) can hold.

    A value's own ``__repr__`` may return lone surrogates or line breaks; they
    become backslash escapes.
    """
    text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text.replace("\r", "\\r").replace("\n", "\\n")


class _BoundedRepr(reprlib.Repr):
    """``repr`` that stays cheap and finite for any value: long containers and strings are
    cut, recursion is cut by depth, and a huge int is described instead of converted
    (turning 10**(10**6) into digits takes seconds, and may raise past Python's digit limit).
    """

    def __init__(self) -> None:
        super().__init__()
        self.maxlevel = 12
        self.maxlist = self.maxtuple = self.maxset = self.maxfrozenset = self.maxdeque = 64
        self.maxdict = 32
        self.maxstring = self.maxother = self.maxlong = DIFF_WIDTH

    def repr_int(self, x: int, level: int) -> str:
        if x.bit_length() > 4 * DIFF_WIDTH:
            digits = int(x.bit_length() * math.log10(2)) + 1
            return f"<{'-' if x < 0 else ''}int of about {digits} digits>"
        return super().repr_int(x, level)


_REPR = _BoundedRepr()


def show_value(value: Any) -> str:
    """A short one-line repr of any value, for messages; never raises."""
    try:
        text = _REPR.repr(value)
        if not isinstance(text, str):  # a hostile __repr__ returning a str subclass or worse
            raise TypeError
        text = str.__str__(text)
    except Exception:  # noqa: BLE001 - a value that cannot be shown is named by its type
        try:
            text = f"<{type(value).__name__} that cannot be shown>"
        except Exception:  # noqa: BLE001 - even the type's name can be hostile
            text = "<a value that cannot be shown>"
    return _clip(_printable(text))


def short_diff(expected: Any, got: Any) -> str:
    """A one-line 'expected X, got Y' that stays short for huge values; never raises."""
    if type(expected) is str and type(got) is str and ("\n" in expected or "\n" in got):
        want, have = expected.split(), got.split()
        for position, (a, b) in enumerate(zip(want, have, strict=False)):
            if a != b:
                return _clip(_printable(f"token {position + 1}: expected {a!r}, got {b!r}"))
        return _clip(f"expected {len(want)} tokens, got {len(have)}")
    return f"expected {show_value(expected)}, got {show_value(got)}"
