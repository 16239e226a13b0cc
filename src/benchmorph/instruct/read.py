"""Read code instruction data: Alpaca, messages/ShareGPT, Evol-Instruct and OSS-Instruct records.

From JSONL (optionally gzipped), a JSON array, Parquet (``benchmorph[instruct]``) or a Hugging Face
dataset name (``owner/name[:split]``, when the hub is reachable).  The format is decided per record by
its fields, so a file may mix them:

* ``messages`` or ``conversations``: the first user turn is the instruction, the assistant turn after it
  the answer (OpenAI ``role``/``content`` or ShareGPT ``from``/``value``);
* ``problem`` / ``solution``: OSS-Instruct;
* ``instruction`` / ``output`` with ``input``: Alpaca; without ``input``: Evol-Instruct.

An optional ``tests`` (or MBPP's ``test_list``) field holds assert lines; an optional ``id`` names the
sample (else ``STEM-LINE``).  A malformed record is an :class:`InputError` naming file, line and field.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from benchmorph.data.errors import InputError
from benchmorph.data.jsonl import read_jsonl
from benchmorph.instruct.records import InstructSample, extract_code

FORMATS = ("alpaca", "evol", "oss", "messages")
_USER = {"user", "human"}
_ASSISTANT = {"assistant", "gpt", "bot", "model"}


def _text(row: dict[str, Any], name: str, where: dict[str, Any], *, required: bool = True) -> str:
    if name not in row or row[name] is None:
        if required:
            raise InputError("missing field", field=name, **where)
        return ""
    value = row[name]
    if not isinstance(value, str):
        raise InputError(f"expected a string, got {type(value).__name__}", field=name, **where)
    if required and not value.strip():
        raise InputError("empty", field=name, **where)
    return value


def _turns(row: dict[str, Any], name: str, where: dict[str, Any]) -> tuple[str, str]:
    """(first user turn, the assistant turn after it) of a messages / ShareGPT conversation."""
    turns = row[name]
    if not isinstance(turns, list):
        raise InputError(f"expected a list of turns, got {type(turns).__name__}", field=name, **where)
    instruction: str | None = None
    for index, turn in enumerate(turns):
        label = f"{name}[{index}]"
        if not isinstance(turn, dict):
            raise InputError(f"expected an object, got {type(turn).__name__}", field=label, **where)
        role_key = "role" if "role" in turn else "from"
        text_key = "content" if "content" in turn else "value"
        role, text = turn.get(role_key), turn.get(text_key)
        if not isinstance(role, str):
            raise InputError("missing role (role or from)", field=label, **where)
        if not isinstance(text, str):
            raise InputError("missing text (content or value)", field=f"{label}.{text_key}", **where)
        if instruction is None and role.lower() in _USER:
            instruction = text
        elif instruction is not None and role.lower() in _ASSISTANT:
            return instruction, text
    if instruction is None:
        raise InputError("no user turn", field=name, **where)
    raise InputError("no assistant turn after the first user turn", field=name, **where)


def _tests(row: dict[str, Any], where: dict[str, Any]) -> tuple[str, ...]:
    for name in ("tests", "test_list"):
        if name not in row or row[name] is None:
            continue
        value = row[name]
        if isinstance(value, str):
            return (value,) if value.strip() else ()
        if isinstance(value, list) and all(isinstance(item, str) for item in value):
            return tuple(item for item in value if item.strip())
        raise InputError("expected a string or a list of strings (assert lines)", field=name, **where)
    return ()


def parse_sample(row: dict[str, Any], default_id: str, where: dict[str, Any]) -> InstructSample:
    """One record in any supported format; ``where`` is ``path``/``line``/``field`` prefix for errors.

    Null fields count as absent: columnar files (Parquet, datasets) give every row every column.
    """
    row = {key: value for key, value in row.items() if value is not None}
    identifier = row.get("id", default_id)
    if not isinstance(identifier, str | int) or isinstance(identifier, bool):
        raise InputError(
            f"expected a string or integer, got {type(identifier).__name__}", field="id", **where
        )
    location = f"{where.get('path')}:{where.get('line')}" if where.get("line") else str(where.get("path"))
    if "messages" in row or "conversations" in row:
        name = "messages" if "messages" in row else "conversations"
        instruction, output = _turns(row, name, where)
        fmt, extra = "messages", ""
    elif "problem" in row or "solution" in row:
        instruction, output = _text(row, "problem", where), _text(row, "solution", where)
        fmt, extra = "oss", ""
    elif "instruction" in row or "output" in row:
        instruction, output = _text(row, "instruction", where), _text(row, "output", where)
        fmt = "alpaca" if "input" in row else "evol"
        extra = _text(row, "input", where, required=False)
    else:
        fields = ", ".join(sorted(row)[:8]) or "none"
        raise InputError(
            "unrecognised instruction record (expected instruction/output, problem/solution, messages or "
            f"conversations); its fields: {fields}",
            **where,
        )
    return InstructSample(
        id=str(identifier),
        instruction=instruction,
        output=output,
        input=extra,
        code=extract_code(output),
        tests=_tests(row, where),
        format=fmt,
        where=location,
    )


def _json_rows(path: Path) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8-sig"))
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 text: {exc.reason}", path=path) from None
    except json.JSONDecodeError as exc:
        raise InputError(
            f"malformed JSON: {exc.msg} (column {exc.colno})", path=path, line=exc.lineno
        ) from None
    if isinstance(data, dict) and isinstance(data.get("data"), list):
        data = data["data"]
    if not isinstance(data, list):
        raise InputError('expected a JSON array of records (or {"data": [...]})', path=path)
    for index, row in enumerate(data):
        where: dict[str, Any] = {"path": f"{path} record {index + 1}"}
        if not isinstance(row, dict):
            raise InputError(f"expected a JSON object, got {type(row).__name__}", **where)
        yield row, where


def _parquet_rows(path: Path) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
    try:
        import pyarrow.parquet as pq  # type: ignore[import-not-found]
    except ImportError:
        raise InputError(
            "reading Parquet needs pyarrow: pip install 'benchmorph[instruct]'", path=path
        ) from None
    try:
        table = pq.read_table(path)
    except Exception as exc:  # pyarrow raises its own error types for damaged files
        raise InputError(f"cannot read Parquet: {exc}", path=path) from None
    for index, row in enumerate(table.to_pylist()):
        yield row, {"path": f"{path} row {index + 1}"}


def _hub_rows(name: str) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
    repo, _, split = name.partition(":")
    try:
        import datasets  # type: ignore[import-not-found]
    except ImportError:
        raise InputError(
            f"'{name}' is not a file; loading a Hugging Face dataset needs 'benchmorph[instruct]'"
        ) from None
    try:
        data = datasets.load_dataset(repo, split=split or "train")
    except Exception as exc:  # offline, unknown name, gated: one line either way
        raise InputError(
            f"'{name}' is not a file and the Hugging Face dataset cannot be loaded: {exc}"
        ) from None
    for index, row in enumerate(data):
        yield dict(row), {"path": f"{repo} row {index + 1}"}


def iter_rows(source: str | Path) -> Iterator[tuple[dict[str, Any], dict[str, Any], str]]:
    """(record, error location, default id) for every record of a file or hub dataset."""
    path = Path(source)
    if path.is_dir() and (path / "dataset_info.json").exists():
        yield from _disk_rows(path)
        return
    if not path.exists():
        text = str(source)
        if "/" in text and not text.startswith((".", "/")) and not Path(text.split(":")[0]).suffix:
            for index, (row, where) in enumerate(_hub_rows(text)):
                yield row, where, f"{text.split(':')[0].replace('/', '-')}-{index + 1}"
            return
        raise InputError("file not found", path=path)
    stem = path.name.split(".")[0]
    suffixes = "".join(path.suffixes[-2:])
    if path.suffix == ".parquet":
        for index, (row, where) in enumerate(_parquet_rows(path)):
            yield row, where, f"{stem}-{index + 1}"
    elif path.suffix == ".json":
        for index, (row, where) in enumerate(_json_rows(path)):
            yield row, where, f"{stem}-{index + 1}"
    elif path.suffix == ".jsonl" or suffixes == ".jsonl.gz" or path.suffix == ".gz":
        for line, row in read_jsonl(path):
            yield row, {"path": path, "line": line}, f"{stem}-{line}"
    else:
        raise InputError(
            "unknown file type (expected .jsonl, .jsonl.gz, .json, .parquet or a dataset directory)",
            path=path,
        )


def _disk_rows(path: Path) -> Iterator[tuple[dict[str, Any], dict[str, Any], str]]:
    """A ``datasets`` directory written by ``save_to_disk`` (what ``export --format hf`` writes)."""
    try:
        import datasets  # type: ignore[import-not-found]
    except ImportError:
        raise InputError("reading a datasets directory needs 'benchmorph[instruct]'", path=path) from None
    data = datasets.load_from_disk(str(path))
    for index, row in enumerate(data):
        yield dict(row), {"path": f"{path} row {index + 1}"}, f"{path.name}-{index + 1}"


def read_instructions(source: str | Path, limit: int | None = None) -> list[InstructSample]:
    """Every sample of ``source`` (the first ``limit``); ids must be unique."""
    samples: list[InstructSample] = []
    seen: dict[str, str] = {}
    for row, where, default_id in iter_rows(source):
        if limit is not None and len(samples) >= limit:
            break
        sample = parse_sample(row, default_id, where)
        if sample.id in seen:
            raise InputError(f"duplicate id '{sample.id}' (first at {seen[sample.id]})", field="id", **where)
        seen[sample.id] = sample.where
        samples.append(sample)
    if not samples and limit != 0:
        raise InputError("no instruction records in it", path=str(source))
    return samples
