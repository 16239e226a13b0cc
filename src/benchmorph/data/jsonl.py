"""JSONL reading with line-precise errors, and atomic writing."""

from __future__ import annotations

import codecs
import gzip
import json
import os
import tempfile
import zlib
from collections.abc import Generator, Iterable, Iterator
from pathlib import Path
from typing import IO, Any, cast

from benchmorph.data.errors import InputError
from benchmorph.data.storage import space_for


def _open_binary(path: Path) -> IO[bytes]:
    if path.suffix == ".gz":
        return cast(IO[bytes], gzip.open(path, "rb"))
    return path.open("rb")


def _raw_lines(path: Path) -> Iterator[tuple[int, bytes]]:
    """(line number, bytes) for every line; damaged compression or I/O becomes an InputError.

    Lines are split as bytes and decoded one at a time, so a bad byte is
    reported on its own line instead of failing the whole 8 KiB chunk that
    holds it (which also hid the line from format detection).
    """
    if path.is_dir():
        raise InputError("is a directory, expected a file", path=path)
    number = 0
    try:
        with _open_binary(path) as handle:
            for number, raw in enumerate(handle, start=1):
                yield number, raw
    except EOFError:
        after = f", after line {number}" if number else ""
        raise InputError(f"compressed data ends early{after}: the file is truncated", path=path) from None
    except gzip.BadGzipFile as exc:
        raise InputError(f"not gzip data, though the name ends in .gz ({exc})", path=path) from None
    except zlib.error as exc:
        raise InputError(f"corrupt gzip data after line {number}: {exc}", path=path) from None
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", path=path) from None


def _decode(raw: bytes, *, path: Path, line: int) -> str:
    """One line as text: UTF-8, with a byte-order mark allowed at the start of the file."""
    if line == 1:
        if raw.startswith(codecs.BOM_UTF8):
            raw = raw[len(codecs.BOM_UTF8) :]
        elif raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
            raise InputError(
                "UTF-16 text (it starts with a UTF-16 byte-order mark); save the file as UTF-8",
                path=path,
                line=line,
            )
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        column = len(raw[: exc.start].decode("utf-8", "replace")) + 1
        raise InputError(
            f"not UTF-8 text: {exc.reason} (byte 0x{raw[exc.start]:02x} at column {column})",
            path=path,
            line=line,
        ) from None


def read_jsonl(path: str | Path) -> Generator[tuple[int, dict[str, Any]], None, None]:
    """Yield (line number, object) for each non-blank line; a bad line raises InputError."""
    path = Path(path)
    if not path.exists():
        raise InputError("file not found", path=path)
    for number, raw in _raw_lines(path):
        if not raw.strip():
            continue
        text = _decode(raw, path=path, line=number)
        try:
            row = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InputError(
                f"malformed JSON: {exc.msg} (column {exc.colno})", path=path, line=number
            ) from None
        except RecursionError:
            raise InputError("malformed JSON: nested too deeply", path=path, line=number) from None
        if not isinstance(row, dict):
            raise InputError(f"expected a JSON object, got {type(row).__name__}", path=path, line=number)
        yield number, row


def first_record(path: str | Path) -> dict[str, Any] | None:
    """The first non-blank line of a (possibly gzipped) JSONL file as a dict, or None.

    Format detectors call this on any path a user hands us, so it must never
    raise: an unreadable or non-JSON file simply is not this format.
    """
    path = Path(path)
    if not path.is_file():
        return None
    rows = read_jsonl(path)
    try:
        first = next(rows, None)
    except InputError:
        return None
    finally:
        rows.close()
    return first[1] if first else None


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
    with space_for(path):  # a full disk: one DiskFull naming the file, and no temporary left
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
