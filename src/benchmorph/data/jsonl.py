"""JSONL reading with line-precise errors, and atomic writing."""

from __future__ import annotations

import gzip
import json
import os
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from benchmorph.data.errors import InputError


def _open_text(path: Path):
    if path.suffix == ".gz":
        return gzip.open(path, "rt", encoding="utf-8")
    return path.open("r", encoding="utf-8")


def read_jsonl(path: str | Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield (line number, object) for each non-blank line; a bad line raises InputError."""
    path = Path(path)
    if not path.exists():
        raise InputError("file not found", path=path)
    try:
        with _open_text(path) as handle:
            for number, text in enumerate(handle, start=1):
                if not text.strip():
                    continue
                try:
                    row = json.loads(text)
                except json.JSONDecodeError as exc:
                    raise InputError(
                        f"malformed JSON: {exc.msg} (column {exc.colno})", path=path, line=number
                    ) from None
                if not isinstance(row, dict):
                    raise InputError(
                        f"expected a JSON object, got {type(row).__name__}", path=path, line=number
                    )
                yield number, row
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 text: {exc.reason}", path=path) from None
    except (OSError, EOFError, gzip.BadGzipFile) as exc:
        raise InputError(f"cannot read: {exc}", path=path) from None


def first_record(path: str | Path) -> dict[str, Any] | None:
    """The first non-blank line of a (possibly gzipped) JSONL file as a dict, or None.

    Format detectors call this on any path a user hands us, so it must never
    raise: an unreadable or non-JSON file simply is not this format.
    """
    path = Path(path)
    try:
        if not path.is_file():
            return None
        with _open_text(path) as handle:
            for text in handle:
                if text.strip():
                    row = json.loads(text)
                    return row if isinstance(row, dict) else None
    except (OSError, UnicodeDecodeError, ValueError, EOFError):
        return None
    return None


def check_unique_ids(ids: Iterable[tuple[str, int]], *, path: str | Path, field: str) -> None:
    """Raise at the second line that repeats an id, naming where it first appeared."""
    seen: dict[str, int] = {}
    for identifier, line in ids:
        if identifier in seen:
            raise InputError(
                f"duplicate {field} '{identifier}' (first on line {seen[identifier]})",
                path=path,
                line=line,
                field=field,
            )
        seen[identifier] = line


def require(
    row: dict[str, Any], field: str, kind: type | tuple[type, ...], *, path: str | Path, line: int
) -> Any:
    """Fetch a required field of the expected type or raise an InputError naming it."""
    if field not in row:
        raise InputError("missing field", path=path, line=line, field=field)
    value = row[field]
    if not isinstance(value, kind):
        names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise InputError(f"expected {names}, got {type(value).__name__}", path=path, line=line, field=field)
    return value


def write_jsonl(path: str | Path, rows: Iterable[dict[str, Any]]) -> None:
    """Write all rows to a temporary file and rename it into place, so a crash never leaves half a file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            for row in rows:
                handle.write(json.dumps(row, ensure_ascii=False) + "\n")
        # mkstemp makes the file 0600; give it the permissions a plain open() would.
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
