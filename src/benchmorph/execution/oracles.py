"""Special oracles: tasks where more than one answer is right.

A problem names its oracle in its data (``Problem.oracle``); the function is
registered by that name in ``benchmorph.data.oracles.ORACLES``, so the runner
never special-cases task ids and a loader can reject an unknown name.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from benchmorph.data.oracles import ORACLES, Oracle


def register_oracle(name: str) -> Callable[[Oracle], Oracle]:
    """Decorator: judge problems whose ``oracle`` is ``name`` with this function."""

    def decorate(function: Oracle) -> Oracle:
        ORACLES.add(name, function)
        return function

    return decorate


def get_oracle(name: str) -> Oracle:
    if name not in ORACLES:
        raise KeyError(f"unknown oracle '{name}' (known: {', '.join(oracle_names())})")
    return ORACLES.get(name)


def oracle_names() -> list[str]:
    return sorted(ORACLES.names())


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
