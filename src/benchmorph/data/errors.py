"""One error type for bad input, so the CLI can print one line and exit non-zero."""

from __future__ import annotations

from pathlib import Path


class InputError(Exception):
    """Bad user input, located as precisely as we can: file, line, field."""

    def __init__(
        self,
        message: str,
        *,
        path: str | Path | None = None,
        line: int | None = None,
        field: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.path = str(path) if path is not None else None
        self.line = line
        self.field = field

    def __str__(self) -> str:
        where = self.path or "<input>"
        if self.line is not None:
            where += f":{self.line}"
        if self.field:
            where += f": field '{self.field}'"
        # One line, always: messages quote user data (ids, CSV cells) that may hold newlines.
        text = f"{where}: {self.message}"
        return text.replace("\r", "\\r").replace("\n", "\\n")


class DiskFull(Exception):
    """A write failed because the file system holding ``path`` is full.

    Raised instead of the bare OSError / sqlite3 error so the CLI can print one
    line naming the file; stores roll back the failed write, so the same
    command resumes once space is freed.
    """

    def __init__(self, path: str | Path) -> None:
        super().__init__(str(path))
        self.path = str(path)

    def __str__(self) -> str:
        return (
            f"{self.path}: no space left on device; free some space (or choose another --out or "
            "BENCHMORPH_CACHE) and run the same command again: finished work is kept"
        )
