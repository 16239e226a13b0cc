"""How long library work tells its caller how far it got, in one vocabulary for every layer.

``Advance`` is a callable ``advance(n)`` that counts ``n`` more units done.
``ProgressFactory`` is a callable ``(description, total)`` returning a
context manager that yields an ``Advance``; ``total`` may be None for work
whose size is learnt later (the yielded callable may then also have
``set_total(n)``).  It may also have ``note(text)``: a short status shown
beside the count (what was found so far, a projected end); callers look it
up with ``getattr`` and go on without it.  The CLI passes its rich progress bars; library callers
get :func:`no_progress`, which shows nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager

Advance = Callable[[int], None]
ProgressFactory = Callable[[str, "int | None"], AbstractContextManager[Advance]]


def _ignore(count: int = 1) -> None:
    """An ``Advance`` that counts nothing."""


@contextmanager
def no_progress(description: str, total: int | None) -> Iterator[Advance]:
    """Shows nothing."""
    yield _ignore
