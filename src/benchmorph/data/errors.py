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
        return f"{where}: {self.message}"
