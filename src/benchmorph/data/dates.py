"""Release dates of problems: the second axis of contamination.

A model cannot have memorised a problem published after its training data
was collected, so where problems carry a release date, pass@1 before and
after a model's stated cutoff is a test of contamination that needs no
rewrite (LiveCodeBench reports models only on problems after their cutoff
for this reason).  A problem's date lives in ``source["release_date"]`` (an
ISO 8601 date, ``YYYY-MM-DD``, in our native format; the LiveCodeBench reader
fills it from ``contest_date``).  A variant keeps its parent's ``source``, so
it carries its parent's date.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from benchmorph.data.errors import InputError

RELEASE_DATE = "release_date"


def parse_date(value: Any) -> dt.date | None:
    """A date from ``YYYY-MM-DD`` or an ISO timestamp (``2024-01-06T00:00:00``); None if it is not one."""
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    if not isinstance(value, str) or len(value) < 10:
        return None
    try:
        return dt.date.fromisoformat(value[:10])
    except ValueError:
        return None


def release_date(source: dict[str, Any]) -> dt.date | None:
    """The release date a problem's ``source`` records (``release_date``, else LiveCodeBench's
    ``contest_date``), or None."""
    for key in (RELEASE_DATE, "contest_date"):
        found = parse_date(source.get(key))
        if found is not None:
            return found
    return None


def parse_cutoff(text: str, what: str = "--cutoff") -> dt.date:
    """A user's cutoff date, or an InputError saying what a date looks like."""
    try:
        return dt.datetime.fromisoformat(text.strip()).date()
    except ValueError:
        raise InputError(f"{what}: '{text}' is not a date (expected YYYY-MM-DD, e.g. 2024-02-01)") from None
