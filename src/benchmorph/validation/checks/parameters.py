"""The parent's silence: an argument whose role the description never states."""

from __future__ import annotations

import re

from benchmorph.validation import edits
from benchmorph.validation.checks.base import (
    CheckInput,
    Finding,
    quality_check,
)

_LENGTH_WORDS = re.compile(r"\b(?:first|length|size|number of elements|prefix)\b", re.IGNORECASE)


@quality_check("unexplained-parameter", reads={"text", "outputs"})
def unexplained_parameter(item: CheckInput) -> Finding | None:
    """An int argument that is sometimes the length of a sequence argument and sometimes not, and the text never says.

    MBPP's ``find_Even_Pair(A, N)`` counts pairs among the first ``N``
    elements, but its description never mentions ``N``: a reader counts over
    all of ``A`` and fails every test where ``N != len(A)``.  The parent's
    defect, but the variant's tests exercise it just the same.  Held for review.
    """
    from benchmorph.validation.examples.recompute import reference_parameters

    tests = [test.input for test in item.variant.tests if isinstance(test.input, list)]
    if not tests or item.variant.kind != "function":
        return None
    names = reference_parameters(item.variant) or []
    prose = edits.description(item.variant.prompt, item.variant.entry_point)
    width = len(tests[0])
    for i, j in ((i, j) for i in range(width) for j in range(width) if i != j):
        pairs = [
            (args[i], args[j])
            for args in tests
            if len(args) == width and type(args[i]) is int and isinstance(args[j], list | tuple | str)
        ]
        if len(pairs) < 0.8 * len(tests):
            continue
        same = sum(1 for n, seq in pairs if n == len(seq))
        if not (0.1 * len(pairs) <= same <= 0.9 * len(pairs)):
            continue
        name = names[i] if i < len(names) else None
        if (name and re.search(rf"\b{re.escape(name)}\b", prose)) or _LENGTH_WORDS.search(prose):
            continue
        return Finding(
            "unexplained-parameter",
            f"argument {i + 1}{f' ({name})' if name else ''} is the length of argument {j + 1} in {same} of "
            f"{len(pairs)} tests and something else in the rest, and the description never says what it is",
            "review",
        )
    return None
