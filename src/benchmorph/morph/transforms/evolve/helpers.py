"""Helpers we can document truly: behaviours with a docstring of ours and an independent oracle.

A reference's nested helper rarely has a docstring, and its name says too
little to write one (``check``, ``judge``, ``weight``, ``digits_sum``).  A
helper is documented here only when it agrees, in the sandbox, with an
oracle of one of these behaviours on a range of probe inputs and on every
argument the parent's solution passes it; where it agrees only on part of
the probes (``for j in range(2, n)`` calls 0 and 1 prime), the docstring
states that part as the helper's domain, and only arguments inside it may
become tests.  Precision over yield: a helper that matches no behaviour is
not documented, and its parent gets no decomposition.
"""

from __future__ import annotations

import math
import string
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, Literal

from benchmorph.data.models import Problem
from benchmorph.execution.engine import Engine
from benchmorph.execution.limits import REFERENCE_LIMITS

Kind = Literal["int", "float", "str", "char", "parens"]


@dataclass(frozen=True)
class Behaviour:
    """What a helper may do, said once: a name for it, a docstring (``{arg}`` is its parameter), an
    oracle, the inputs to compare on, and the domain the docstring states when the helper agrees only
    there (``always_domain``: state it whatever the probes show, since the oracle means nothing outside)."""

    name: str
    kind: Kind
    docstring: str
    oracle: Callable[[Any], Any]
    probes: tuple[Any, ...]
    domain: str = ""
    domain_test: Callable[[Any], bool] | None = None
    always_domain: bool = False


def _is_prime(n: int) -> bool:
    return n >= 2 and all(n % d for d in range(2, math.isqrt(n) + 1))


def _palindrome_number(n: int) -> bool:
    return str(abs(n)) == str(abs(n))[::-1]


def _signed_digits(n: int) -> list[int]:
    digits = [int(d) for d in str(abs(n))]
    if n < 0:
        digits[0] = -digits[0]
    return digits


def _depth(s: str) -> int:
    deepest = open_now = 0
    for ch in s:
        open_now += 1 if ch == "(" else -1
        deepest = max(deepest, open_now)
    return deepest


def _balanced(s: str) -> bool:
    open_now = 0
    for ch in s:
        open_now += 1 if ch == "(" else -1
        if open_now < 0:
            return False
    return open_now == 0


def _swap_case(ch: str) -> str:
    if ch in string.ascii_lowercase:
        return ch.upper()
    if ch in string.ascii_uppercase:
        return ch.lower()
    return ch


def _round_half_away(x: float) -> int:
    return int(math.floor(abs(x) + 0.5)) * (1 if x >= 0 else -1)


def _paren_strings(longest: int) -> tuple[str, ...]:
    found = [""]
    for _ in range(longest):
        found += [s + c for s in found if len(s) == len(found[-1]) for c in "()"]
    return tuple(dict.fromkeys(found))


_INTS = tuple(range(-60, 260)) + (1001, 12321, 99999, -12321, 123456, 1000000007)
_CHARS = tuple(string.ascii_letters + string.digits + " .,!?-_")
_STRINGS = ("", "a", "A", "Hello World", "abcDEF", "UPPER", "lower", "MiXeD CaSe 123", "!!", "aBc", "xYz!")
_VOWELS = "aeiouAEIOU"
_DIGIT_NAMES = ("One", "Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine")

BEHAVIOURS: tuple[Behaviour, ...] = (
    Behaviour("is_prime", "int", "Return True if {arg} is a prime number, and False otherwise.", _is_prime,
              _INTS, "{arg} is an integer of at least 2", lambda n: n >= 2),
    Behaviour("is_digit_palindrome", "int",
              "Return True if the decimal digits of {arg} read the same backwards as forwards, and False otherwise.",
              _palindrome_number, tuple(range(-300, 1200, 7)), "{arg} is a non-negative integer", lambda n: n >= 0),
    Behaviour("signed_digit_sum", "int",
              "Return the sum of the decimal digits of {arg}, where the first digit counts as negative when {arg} is "
              "negative (so -123 gives -1 + 2 + 3 = 4).",
              lambda n: sum(_signed_digits(n)), _INTS),
    Behaviour("digit_count", "int", "Return the number of decimal digits of {arg}, not counting a minus sign.",
              lambda n: len(str(abs(n))), _INTS),
    Behaviour("all_digits_odd", "int", "Return True if every decimal digit of {arg} is odd, and False otherwise.",
              lambda n: all(int(d) % 2 for d in str(abs(n))), _INTS, "{arg} is a non-negative integer",
              lambda n: n >= 0),
    Behaviour("max_nesting_depth", "parens",
              "Return the deepest nesting of the parentheses in {arg}: the largest number of '(' open at once when "
              "{arg} is read from left to right, each ')' closing the latest open one.",
              _depth, _paren_strings(8), "{arg} consists of '(' and ')' characters only",
              lambda s: set(s) <= set("()"), always_domain=True),
    Behaviour("is_balanced", "parens",
              "Return True if the parentheses in {arg} are balanced: reading it from left to right, every ')' "
              "closes a '(' opened before it, and none is left open at the end. Return False otherwise.",
              _balanced, _paren_strings(8), "{arg} consists of '(' and ')' characters only",
              lambda s: set(s) <= set("()"), always_domain=True),
    Behaviour("is_vowel", "char",
              "Return True if {arg} is one of the vowels 'a', 'e', 'i', 'o', 'u', in lower or upper case, and "
              "False otherwise.",
              lambda ch: ch in _VOWELS, _CHARS, "{arg} is a single character", lambda ch: len(ch) == 1,
              always_domain=True),
    Behaviour("swap_letter_case", "char",
              "Return {arg} in the other case if it is an English letter (a-z or A-Z), and {arg} unchanged "
              "otherwise.",
              _swap_case, _CHARS, "{arg} is a single character", lambda ch: len(ch) == 1, always_domain=True),
    Behaviour("shift_vowel", "char",
              "Return the character two places after {arg} in the alphabet if {arg} is a vowel ('a', 'e', 'i', "
              "'o' or 'u', in lower or upper case), and {arg} unchanged otherwise.",
              lambda ch: chr(ord(ch) + 2) if ch in _VOWELS else ch, _CHARS, "{arg} is a single character",
              lambda ch: len(ch) == 1, always_domain=True),
    Behaviour("case_balance", "str",
              "Return the number of uppercase letters in {arg} minus the number of lowercase letters.",
              lambda s: sum(ch.isupper() for ch in s) - sum(ch.islower() for ch in s), _STRINGS),
    Behaviour("round_half_away", "float",
              "Return {arg} rounded to the nearest integer, halves rounded away from zero (2.5 gives 3, -2.5 "
              "gives -3).",
              _round_half_away, tuple(x / 4 for x in range(-60, 61)) + (14.5, -15.5, 10.0, 15.3)),
    Behaviour("digit_name", "int", "Return the English name of the digit {arg}, capitalised: 'One' for 1 to 'Nine' "
              "for 9.",
              lambda n: _DIGIT_NAMES[n - 1], tuple(range(1, 10)), "{arg} is an integer from 1 to 9",
              lambda n: 1 <= n <= 9, always_domain=True),
    Behaviour("note_beats", "str",
              "Return how many beats the note {arg} lasts: 4 for 'o' (a whole note), 2 for 'o|' (a half note) "
              "and 1 for '.|' (a quarter note).",
              lambda note: {"o": 4, "o|": 2, ".|": 1}[note], ("o", "o|", ".|"),
              "{arg} is one of 'o', 'o|' and '.|'", lambda note: note in ("o", "o|", ".|"), always_domain=True),
)  # fmt: skip


def kind_of(values: list[Any]) -> Kind | None:
    """The kind of argument a helper is called with, from the arguments it was seen with."""
    if values and all(type(v) is int for v in values):
        return "int"
    if values and all(isinstance(v, int | float) and not isinstance(v, bool) for v in values):
        return "float"
    if values and all(isinstance(v, str) for v in values):
        if all(set(v) <= set("()") for v in values):
            return "parens"
        if all(len(v) == 1 for v in values):
            return "char"
        return "str"
    return None


@dataclass(frozen=True)
class Documented:
    """A helper matched to a behaviour: its docstring (with the domain where one is stated), and the seen
    arguments it was verified on (inside the domain; those it did not finish in time are left out)."""

    behaviour: Behaviour
    docstring: str
    verified: tuple[Any, ...]


_GROUPS = {"int": "number", "float": "number", "str": "text", "char": "text", "parens": "text"}


def document(name: str, code: str, arg: str, seen: list[Any], engine: Engine) -> Documented | None:
    """The behaviour ``code``'s function ``name`` has, checked in the sandbox on the probes and on the
    arguments it was ``seen`` with; None when no behaviour matches.

    A behaviour matches when the helper returns the oracle's answer on every
    probe and seen argument inside the behaviour's domain, and every seen
    argument is inside it.  The domain is stated in the docstring when the
    behaviour always states it, or when some probe falls outside it or
    disagrees there (the helper is then only documented on that part).
    """
    kind = kind_of(seen)
    if kind is None:
        return None
    probe = Problem(id=f"helper:{name}", prompt="", reference=code, entry_point=name)
    limits = replace(
        engine.limits, min_time_limit=0.5, time_factor=1.0, setup_time=REFERENCE_LIMITS.setup_time
    )
    seen_keys = {repr(x) for x in seen}
    for behaviour in BEHAVIOURS:
        if _GROUPS[behaviour.kind] != _GROUPS[kind]:
            continue
        inside = behaviour.domain_test or (lambda _value: True)
        if behaviour.always_domain and not all(_safe(inside, value) for value in seen):
            continue  # called on what the behaviour says nothing of
        inputs = list({repr(x): x for x in [*behaviour.probes, *seen]}.values())
        runs = engine.run_inputs(probe, [[x] for x in inputs], limits=limits)
        verdicts: list[tuple[Any, bool, bool]] = []
        timeouts = 0
        for x, run in zip(inputs, runs, strict=True):
            if run.status == "timeout":
                timeouts += 1
                continue  # an input the helper does not finish on (1000000007 by trial division) proves nothing
            agrees = run.status == "ok" and _oracle_agrees(behaviour, x, run.output)
            verdicts.append((x, _safe(inside, x), agrees))
        if timeouts > 0.2 * len(inputs) or not all(agrees for _, in_domain, agrees in verdicts if in_domain):
            continue
        everywhere = all(agrees for _, _, agrees in verdicts)
        text = behaviour.docstring.format(arg=arg)
        if behaviour.domain and (behaviour.always_domain or not everywhere):
            text = f"{text[:-1]}, where {behaviour.domain.format(arg=arg)}."
            keep = [x for x, in_domain, agrees in verdicts if in_domain and agrees and repr(x) in seen_keys]
        elif everywhere:
            keep = [x for x, _, agrees in verdicts if agrees and repr(x) in seen_keys]
        else:
            continue  # disagrees somewhere and has no domain to state
        order = {repr(x): i for i, x in enumerate(seen)}
        return Documented(behaviour, text, tuple(sorted(keep, key=lambda x: order[repr(x)])))
    return None


def _oracle_agrees(behaviour: Behaviour, value: Any, output: Any) -> bool:
    try:
        return _same(output, behaviour.oracle(value))
    except Exception:  # noqa: BLE001 - the oracle says nothing outside its domain
        return False


def _safe(test: Callable[[Any], bool], value: Any) -> bool:
    try:
        return bool(test(value))
    except Exception:  # noqa: BLE001 - a value the domain test cannot read is outside it
        return False


def _same(a: Any, b: Any) -> bool:
    return type(a) is type(b) and a == b
