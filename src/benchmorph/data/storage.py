"""Files and SQLite stores that survive crashes, corruption and a full disk.

Every store benchmorph keeps (the LLM cache, a run's verdict checkpoint) is
SQLite, and every output file is written to a temporary file and renamed.
Three faults get one answer each here, so the stores behave alike:

- a store that is not a database any more (garbage, a truncated copy, a bad
  page) is found when it is opened, moved aside to ``NAME.corrupt-TIME`` with
  one warning line, and started afresh: a cache only costs recomputation, and
  a run that stops on a broken cache helps nobody;
- a write that fails because the disk is full becomes :class:`DiskFull`,
  which names the file and which the CLI prints as one line: SQLite rolls the
  failed transaction back, so whatever was stored before stays valid and a
  re-run after space is freed resumes from it;
- a temporary file that could not be completed is removed, never renamed.
"""

from __future__ import annotations

import errno
import os
import sqlite3
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from benchmorph.data.errors import DiskFull

# The WAL and shared-memory files belong to the database beside them: a WAL
# left next to a fresh database would be replayed into it.
SIDE_FILES = ("-wal", "-shm")
_CORRUPT_CODES = (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB)
_FULL_ERRNOS = (errno.ENOSPC, errno.EDQUOT)


class _FailedCheck(sqlite3.DatabaseError):
    """The file opens as SQLite but its pages do not pass the integrity check."""


def disk_full(exc: BaseException, path: str | Path) -> DiskFull | None:
    """The DiskFull that ``exc`` stands for, or None when it is some other error."""
    if isinstance(exc, DiskFull):
        return exc
    if isinstance(exc, sqlite3.Error) and getattr(exc, "sqlite_errorcode", None) == sqlite3.SQLITE_FULL:
        return DiskFull(path)
    if isinstance(exc, OSError) and exc.errno in _FULL_ERRNOS:
        return DiskFull(path)
    return None


@contextmanager
def space_for(path: str | Path) -> Iterator[None]:
    """Turn a full disk while writing ``path`` into :class:`DiskFull` naming it; other errors pass."""
    try:
        yield
    except (OSError, sqlite3.Error) as exc:
        full = disk_full(exc, path)
        if full is None:
            raise
        raise full from None


def write_text_atomic(path: str | Path, text: str, *, mode: int | None = None) -> None:
    """Write ``text`` to a temporary file beside ``path`` and rename it into place.

    A crash or a full disk leaves the old file (or none), never half of one.
    ``mode`` sets the permissions; by default those a plain ``open()`` gives.
    """
    path = Path(path)
    with space_for(path):
        fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(text)
            if mode is None:
                umask = os.umask(0)
                os.umask(umask)
                mode = 0o666 & ~umask
            os.chmod(tmp, mode)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise


def _is_corrupt(exc: sqlite3.DatabaseError) -> bool:
    if isinstance(exc, _FailedCheck):
        return True
    code = getattr(exc, "sqlite_errorcode", None)
    return code is not None and (code & 0xFF) in _CORRUPT_CODES


def _connect(path: Path, schema: str, timeout: float) -> sqlite3.Connection:
    db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None, timeout=timeout)
    try:
        # quick_check reads every page of every table (a truncated file or a
        # garbage page fails it) without the index cross-checks that make a
        # full integrity_check slow on a large cache.
        problems = [row[0] for row in db.execute("PRAGMA quick_check")]
        if problems != ["ok"]:
            first = str(problems[0]).splitlines()[-1] if problems else "no answer"
            raise _FailedCheck(f"integrity check failed: {first}")
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        db.executescript(schema)
    except BaseException:
        db.close()
        raise
    return db


def move_aside(path: Path) -> Path:
    """Rename a broken store (and its WAL files) to ``NAME.corrupt-TIME``; returns the new name."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    target = path.with_name(f"{path.name}.corrupt-{stamp}")
    count = 1
    while target.exists():
        target = path.with_name(f"{path.name}.corrupt-{stamp}-{count}")
        count += 1
    os.replace(path, target)
    for suffix in SIDE_FILES:
        side = Path(f"{path}{suffix}")
        if side.exists():
            os.replace(side, Path(f"{target}{suffix}"))
    return target


def open_sqlite(path: str | Path, schema: str, *, timeout: float = 60.0) -> sqlite3.Connection:
    """A WAL-mode connection to the store at ``path`` with ``schema`` applied.

    A file that is not a valid database, or fails the integrity check, is
    moved aside with a one-line warning on stderr and replaced by an empty
    store, so the command goes on (it recomputes what was lost).
    """
    path = Path(path)
    with space_for(path):
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            return _connect(path, schema, timeout)
        except sqlite3.DatabaseError as exc:
            if not _is_corrupt(exc):
                raise
            reason = str(exc)
        moved = move_aside(path)
        print(
            f"benchmorph: WARNING: {path} is not a usable SQLite database ({reason}); "
            f"moved it aside to {moved.name} and started a new one",
            file=sys.stderr,
            flush=True,
        )
        return _connect(path, schema, timeout)
