"""The progress protocol of the validation layer's long use cases (test generation, mutation scores).

The same shape as ``benchmorph.morph.transform.ProgressFactory`` (which sits
in a layer above and cannot be imported here): a callable
``(description, total)`` returning a context manager that yields
``advance(n)``.  The CLI passes its rich progress bars; library callers get
:func:`no_progress`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager

Advance = Callable[[int], None]
ProgressFactory = Callable[[str, "int | None"], AbstractContextManager[Advance]]


@contextmanager
def no_progress(description: str, total: int | None) -> Iterator[Advance]:
    """Shows nothing."""
    yield lambda count=1: None
