"""benchmorph's own JSONL: one Problem or Variant per line, versioned.

Every other format is lossy somewhere (tuples become lists, expected outputs
are missing, variants have no parent); this one is what we write after
``prepare`` and read back without re-running anything, so it is validated
strictly: a file that half-loads would silently change a benchmark.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from benchmorph.data import values
from benchmorph.data.errors import InputError
from benchmorph.data.jsonl import check_unique_ids, first_record, read_jsonl, write_jsonl
from benchmorph.data.models import SCHEMA_VERSION, Problem, TestCase, Variant
from benchmorph.data.registry import FormatEntry, register_format

SUPPORTED_VERSIONS = (SCHEMA_VERSION,)
_RECORDS: dict[str, type[Problem]] = {"problem": Problem, "variant": Variant}
_ENVELOPE = ("schema_version", "record")
_TEST_FIELDS = ("input", "expected", "ref_time", "origin")


def _loc_to_field(loc: tuple[Any, ...]) -> str:
    """Render a pydantic error location as ``tests[2].input``-style text."""
    text = ""
    for part in loc:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += f".{part}" if text else str(part)
    return text or "record"


def _parse_tests(raw: Any, *, path: Path, line: int) -> list[TestCase]:
    # Tests are decoded by hand rather than by pydantic because their values
    # go through the tagged codec, and a malformed tag must name its test.
    if not isinstance(raw, list):
        raise InputError(f"expected list, got {type(raw).__name__}", path=path, line=line, field="tests")
    tests: list[TestCase] = []
    for number, item in enumerate(raw):
        where = f"tests[{number}]"
        if not isinstance(item, dict):
            raise InputError(f"expected object, got {type(item).__name__}", path=path, line=line, field=where)
        unknown = sorted(set(item) - set(_TEST_FIELDS))
        if unknown:
            raise InputError(f"unknown field '{unknown[0]}'", path=path, line=line, field=where)
        if "input" not in item:
            raise InputError("missing field", path=path, line=line, field=f"{where}.input")
        decoded: dict[str, Any] = {}
        for key in ("input", "expected"):
            if key in item:
                try:
                    decoded[key] = values.decode(item[key])
                except (TypeError, ValueError, KeyError, IndexError, AttributeError) as exc:
                    raise InputError(
                        f"bad tagged value: {exc}", path=path, line=line, field=f"{where}.{key}"
                    ) from None
        ref_time = item.get("ref_time")
        if ref_time is not None and (isinstance(ref_time, bool) or not isinstance(ref_time, (int, float))):
            raise InputError(
                f"expected number, got {type(ref_time).__name__}",
                path=path,
                line=line,
                field=f"{where}.ref_time",
            )
        origin = item.get("origin", "base")
        if not isinstance(origin, str):
            raise InputError(
                f"expected str, got {type(origin).__name__}", path=path, line=line, field=f"{where}.origin"
            )
        tests.append(
            TestCase(
                input=decoded["input"],
                expected=decoded.get("expected"),
                has_expected="expected" in item,
                ref_time=float(ref_time) if ref_time is not None else None,
                origin=origin,
            )
        )
    return tests


def parse_record(row: dict[str, Any], *, path: Path, line: int) -> Problem:
    """Validate one JSONL object and build the Problem or Variant it describes."""
    if "schema_version" not in row:
        raise InputError("missing field", path=path, line=line, field="schema_version")
    version = row["schema_version"]
    if isinstance(version, bool) or version not in SUPPORTED_VERSIONS:
        supported = ", ".join(str(v) for v in SUPPORTED_VERSIONS)
        raise InputError(
            f"unsupported schema version {version!r} (this benchmorph reads {supported})",
            path=path,
            line=line,
            field="schema_version",
        )
    record = row.get("record")
    if not isinstance(record, str) or record not in _RECORDS:
        message = (
            "missing field" if "record" not in row else f"expected 'problem' or 'variant', got {record!r}"
        )
        raise InputError(message, path=path, line=line, field="record")
    model = _RECORDS[record]
    unknown = sorted(set(row) - set(model.model_fields) - set(_ENVELOPE))
    if unknown:
        raise InputError(f"unknown field for a {record}", path=path, line=line, field=unknown[0])
    data = {key: value for key, value in row.items() if key not in _ENVELOPE}
    data["tests"] = _parse_tests(data.get("tests", []), path=path, line=line)
    try:
        return model.model_validate(data, strict=True)
    except ValidationError as exc:
        first = exc.errors()[0]
        message = "missing field" if first["type"] == "missing" else first["msg"]
        if first["type"] == "value_error" and "error" in first.get("ctx", {}):
            message = str(first["ctx"]["error"])  # our own validator's words, without pydantic's prefix
        raise InputError(message, path=path, line=line, field=_loc_to_field(first["loc"])) from None


def read_native(path: str | Path) -> list[Problem]:
    """Read every record; any invalid line or repeated id stops the load with its location."""
    path = Path(path)
    records = [(parse_record(row, path=path, line=line), line) for line, row in read_jsonl(path)]
    check_unique_ids(((problem.id, line) for problem, line in records), path=path, field="id")
    problems = [problem for problem, _ in records]
    return problems


def write_native(path: str | Path, problems: Iterable[Problem]) -> None:
    """Write problems and variants, one per line, atomically."""
    write_jsonl(path, (problem.to_json() for problem in problems))


def is_native(path: Path) -> bool:
    row = first_record(path)
    return row is not None and "schema_version" in row


register_format(FormatEntry(name="benchmorph", detect=is_native, loader=read_native, priority=10))  # type: ignore[arg-type]
