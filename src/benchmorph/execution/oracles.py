"""Special oracles: tasks where more than one answer is right.

A problem names its oracle in its data (``Problem.oracle``); the function is
registered here by that name, so the runner never special-cases task ids.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

# (test input arguments, the answer given, the reference's answer, atol) -> correct?
Oracle = Callable[[Any, Any, Any, float], bool]

_ORACLES: dict[str, Oracle] = {}


def register_oracle(name: str) -> Callable[[Oracle], Oracle]:
    def decorate(function: Oracle) -> Oracle:
        _ORACLES[name] = function
        return function

    return decorate


def get_oracle(name: str) -> Oracle:
    try:
        return _ORACLES[name]
    except KeyError:
        raise KeyError(f"unknown oracle '{name}' (known: {', '.join(sorted(_ORACLES))})") from None


def oracle_names() -> list[str]:
    return sorted(_ORACLES)


@register_oracle("polynomial_root")
def polynomial_root(args: Any, answer: Any, _expected: Any, atol: float) -> bool:
    """Any x where the polynomial with coefficients ``args[0]`` is within atol of zero."""
    if type(answer) not in (int, float) or not math.isfinite(answer):
        return False
    coefficients = args[0]
    try:
        value = math.fsum(coef * math.pow(answer, power) for power, coef in enumerate(coefficients))
    except (OverflowError, ValueError):
        return False
    return abs(value) <= (atol if atol > 0 else 1e-6)
