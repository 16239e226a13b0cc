"""Ties: which of several equal candidates a min/max or a sort returns, when the description does not say."""

from __future__ import annotations

import re

from benchmorph.data.models import Problem
from benchmorph.validation import edits
from benchmorph.validation.checks.base import (
    CheckInput,
    Finding,
    quality_check,
)

_SAYS_WHICH = re.compile(
    r"\b(?:first|last|earliest|latest)\s+(?:one|occurrence|such|of them|encountered|found|appearing)\b"
    r"|\b(?:appears?|occurs?|comes?)\s+(?:first|last|earlier|later)\b"
    r"|\bin case of (?:a )?ties?\b|\bties?\b|\bif (?:there are )?(?:multiple|several|more than one)\b"
    r"|\boriginal order\b|\bsame order\b|\bstable\b|\bsmallest index\b|\blowest index\b",
    re.IGNORECASE,
)


def says_which_wins(problem: Problem) -> bool:
    """The description states a tie-break ("the first one", "if several ...")."""
    return bool(_SAYS_WHICH.search(edits.description(problem.prompt, problem.entry_point)))


@quality_check("ties", reads={"edit"})
def ties(item: CheckInput) -> Finding | None:
    """Many more tests where several values tie at the new extreme, and the description does not say which wins.

    The transform measures the ties by running both references with the edited
    call instrumented (``extra["ties"]``: tests with a tie for parent and variant).
    """
    counts = item.extra.get("ties")
    if not counts or item.edit is None:
        return None
    total, old, new = counts["tests"], counts["parent"], counts["variant"]
    # Absolute as well as against the parent: a parent that was already ambiguous about ties
    # (MBPP's "sublist having minimum length") does not make its variant publishable.
    if total == 0 or new < max(2, 0.05 * total):
        return None
    if says_which_wins(item.variant):
        return None
    return Finding(
        "ties",
        f"{new} of {total} tests tie at the new extreme (the parent: {old}) and the description "
        "does not say which one to return",
        "review",
    )
