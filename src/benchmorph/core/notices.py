"""What library code tells a user while it works, without printing: a ``Notice`` handed to a callback.

Library functions never print (the CLI decides how a message looks, a
Python caller may collect or ignore them).  Anything a user should hear
about as it happens, such as dropped tests, skipped samples or failed
requests, is a ``Notice`` passed to the caller's ``notify`` callable.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

NoticeLevel = Literal["info", "note", "warning", "hint"]


@dataclass(frozen=True)
class Notice:
    """Something the user should hear about.  ``info``: a status line; ``note``: data left out as
    designed (inputs a contract rejects); ``warning``: something the user may have to check or fix;
    ``hint``: a way to get more out of the run (the CLI prints it last)."""

    level: NoticeLevel
    text: str


Notify = Callable[[Notice], None]
