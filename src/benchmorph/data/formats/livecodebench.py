"""LiveCodeBench code-generation problems (AtCoder/Codeforces stdin tasks and LeetCode functional tasks).

Private tests in the release are often ``base64(zlib(pickle(json text)))``.
Unpickling runs whatever the file asks for, so a downloaded file could run
code just by being loaded; we only let the unpickler build strings, lists and
dicts, and anything else is an InputError.

LiveCodeBench ships no reference solutions: expected outputs come from the
data itself, so every test already has ``has_expected`` set.
"""

from __future__ import annotations

import base64
import binascii
import builtins
import io
import json
import pickle
import re
import zlib
from pathlib import Path
from typing import Any

from benchmorph.data.errors import InputError
from benchmorph.data.jsonl import check_unique_ids, read_jsonl, require
from benchmorph.data.models import Problem, TestCase
from benchmorph.data.registry import BenchmarkEntry, FormatEntry, register_benchmark, register_format

# Largest decompressed private-test blob we accept; real ones reach tens of MB.
MAX_DECOMPRESSED = 1 << 30
_ALLOWED_GLOBALS = frozenset({"str", "list", "dict"})
_DETECT_BYTES = 1 << 16
NO_REFERENCE_NOTE = (
    "LiveCodeBench publishes no reference solutions; expected outputs come from its test cases"
)


class _RestrictedUnpickler(pickle.Unpickler):
    """An unpickler that can only name builtins str, list and dict."""

    def find_class(self, module: str, name: str) -> Any:
        if module == "builtins" and name in _ALLOWED_GLOBALS:
            return getattr(builtins, name)
        raise pickle.UnpicklingError(f"forbidden global {module}.{name}")

    def persistent_load(self, pid: Any) -> Any:
        raise pickle.UnpicklingError("persistent ids are not allowed")


def _inflate(blob: bytes) -> bytes:
    inflater = zlib.decompressobj()
    data = inflater.decompress(blob, MAX_DECOMPRESSED)
    if inflater.unconsumed_tail:
        raise ValueError(f"decompresses to more than {MAX_DECOMPRESSED} bytes")
    if not inflater.eof:
        raise ValueError("truncated zlib data")
    return data


def decode_test_blob(text: str) -> Any:
    """Parse a test-case field: plain JSON text, or base64 of zlib of a pickled JSON string."""
    stripped = text.strip()
    if not stripped:
        return []
    if stripped[0] in "[{":
        try:
            return json.loads(stripped)
        except json.JSONDecodeError as exc:
            raise ValueError(f"malformed JSON: {exc.msg} (char {exc.pos})") from None
    try:
        packed = _inflate(base64.b64decode(stripped, validate=False))
    except (binascii.Error, zlib.error) as exc:
        raise ValueError(f"neither JSON nor base64+zlib data: {exc}") from None
    try:
        payload = _RestrictedUnpickler(io.BytesIO(packed)).load()
    except Exception as exc:  # noqa: BLE001 - any unpickling failure is bad input
        raise ValueError(f"refused to unpickle: {exc}") from None
    if isinstance(payload, bytes):
        payload = payload.decode("utf-8")
    if isinstance(payload, str):
        try:
            return json.loads(payload)
        except json.JSONDecodeError as exc:
            raise ValueError(f"unpickled text is not JSON: {exc.msg} (char {exc.pos})") from None
    if isinstance(payload, list):
        return payload
    raise ValueError(f"unpickled a {type(payload).__name__}, expected JSON text")


def _json_field(row: dict[str, Any], field: str, *, path: Path, line: int, default: Any) -> Any:
    raw = row.get(field)
    if raw is None or raw == "":
        return default
    if not isinstance(raw, str):
        return raw
    try:
        return json.loads(raw)
    except json.JSONDecodeError as exc:
        raise InputError(f"malformed JSON: {exc.msg}", path=path, line=line, field=field) from None


def _functional_args(text: str) -> list[Any]:
    # One JSON value per line, one line per argument.
    return [json.loads(part) for part in text.split("\n") if part.strip()]


def _test_cases(
    row: dict[str, Any], field: str, origin: str, *, path: Path, line: int
) -> tuple[list[TestCase], set[str]]:
    raw = row.get(field)
    if raw is None:
        return [], set()
    if isinstance(raw, str):
        try:
            cases = decode_test_blob(raw)
        except ValueError as exc:
            raise InputError(str(exc), path=path, line=line, field=field) from None
    else:
        cases = raw
    if not isinstance(cases, list):
        raise InputError(
            f"expected a list of tests, got {type(cases).__name__}", path=path, line=line, field=field
        )
    tests: list[TestCase] = []
    types: set[str] = set()
    for number, case in enumerate(cases):
        where = f"{field}[{number}]"
        if not isinstance(case, dict):
            raise InputError(f"expected object, got {type(case).__name__}", path=path, line=line, field=where)
        for key in ("input", "output"):
            if not isinstance(case.get(key), str):
                problem = "missing" if key not in case else f"expected str, got {type(case[key]).__name__}"
                raise InputError(problem, path=path, line=line, field=f"{where}.{key}")
        testtype = case.get("testtype", "stdin")
        if testtype not in ("stdin", "functional"):
            raise InputError(
                f"expected 'stdin' or 'functional', got {testtype!r}",
                path=path,
                line=line,
                field=f"{where}.testtype",
            )
        types.add(testtype)
        if testtype == "stdin":
            tests.append(
                TestCase(input=case["input"], expected=case["output"], has_expected=True, origin=origin)
            )
            continue
        try:
            args = _functional_args(case["input"])
        except json.JSONDecodeError as exc:
            raise InputError(
                f"malformed JSON argument: {exc.msg}", path=path, line=line, field=f"{where}.input"
            ) from None
        try:
            expected = json.loads(case["output"])
        except json.JSONDecodeError as exc:
            raise InputError(
                f"malformed JSON: {exc.msg}", path=path, line=line, field=f"{where}.output"
            ) from None
        tests.append(TestCase(input=args, expected=expected, has_expected=True, origin=origin))
    return tests, types


def _method_name(metadata: dict[str, Any], starter_code: str) -> str | None:
    name = metadata.get("func_name")
    if isinstance(name, str) and name:
        return name
    match = re.search(r"def\s+(\w+)\s*\(\s*self\b", starter_code)
    return match.group(1) if match else None


def problem_from_row(row: dict[str, Any], *, path: Path, line: int) -> Problem:
    question_id = row.get("question_id")
    if isinstance(question_id, int) and not isinstance(question_id, bool):
        question_id = str(question_id)
        row = {**row, "question_id": question_id}
    question_id = require(row, "question_id", str, path=path, line=line)
    content = require(row, "question_content", str, path=path, line=line)
    starter_code = row.get("starter_code") or ""
    if not isinstance(starter_code, str):
        raise InputError(
            f"expected str, got {type(starter_code).__name__}", path=path, line=line, field="starter_code"
        )
    metadata = _json_field(row, "metadata", path=path, line=line, default={})
    if not isinstance(metadata, dict):
        raise InputError(
            f"expected a JSON object, got {type(metadata).__name__}", path=path, line=line, field="metadata"
        )
    public, public_types = _test_cases(row, "public_test_cases", "public", path=path, line=line)
    private, private_types = _test_cases(row, "private_test_cases", "private", path=path, line=line)
    types = public_types | private_types
    if len(types) > 1:
        raise InputError("mixes stdin and functional tests", path=path, line=line, field="private_test_cases")
    functional = types == {"functional"} or (not types and "func_name" in metadata)
    entry_point = ""
    if functional:
        entry_point = _method_name(metadata, starter_code) or ""
        if not entry_point:
            raise InputError("functional problem without 'func_name'", path=path, line=line, field="metadata")
    prompt = content.rstrip() + (f"\n\n{starter_code.rstrip()}\n" if starter_code.strip() else "\n")
    source = {
        "format": "livecodebench",
        "file": path.name,
        "has_reference": False,
        "reference_note": NO_REFERENCE_NOTE,
        "starter_code": starter_code,
        "metadata": metadata,
    }
    for key in ("question_title", "platform", "contest_id", "contest_date", "difficulty"):
        if key in row:
            source[key] = row[key]
    return Problem(
        id=question_id,
        kind="method" if functional else "stdin",
        prompt=prompt,
        entry_point=entry_point,
        reference="",
        tests=public + private,
        # JSON cannot tell a tuple from a list, so neither may the comparison.
        strict_sequences=not functional,
        source=source,
    )


def _rows(path: Path):
    """(line, row) pairs from JSONL, or from a JSON array (whose items all report line 1)."""
    with path.open("rb") as handle:
        head = handle.read(_DETECT_BYTES).lstrip()
    if head.startswith(b"["):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise InputError(f"malformed JSON: {exc}", path=path) from None
        for number, row in enumerate(data):
            if not isinstance(row, dict):
                raise InputError(f"item {number}: expected a JSON object", path=path, line=1)
            yield 1, row
        return
    yield from read_jsonl(path)


def read_livecodebench(path: Path | None) -> list[Problem]:
    """Load a LiveCodeBench code-generation file (JSONL as released, or a JSON list)."""
    if path is None:
        raise InputError(
            "LiveCodeBench needs its data file: pass the path of a code_generation_lite test*.jsonl file"
        )
    path = Path(path)
    if not path.is_file():
        raise InputError("file not found", path=path)
    records = [(problem_from_row(row, path=path, line=line), line) for line, row in _rows(path)]
    check_unique_ids(((problem.id, line) for problem, line in records), path=path, field="question_id")
    problems = [problem for problem, _ in records]
    return problems


def is_livecodebench(path: Path) -> bool:
    # Rows carry megabytes of tests, so look for the telling keys near the start instead of parsing.
    try:
        if not path.is_file() or path.suffix == ".gz":
            return False
        with path.open("rb") as handle:
            head = handle.read(_DETECT_BYTES)
    except OSError:
        return False
    return b'"question_content"' in head and b'"question_id"' in head


register_format(
    FormatEntry(name="livecodebench", detect=is_livecodebench, loader=read_livecodebench, priority=40)
)
register_benchmark(
    BenchmarkEntry(
        name="livecodebench",
        loader=read_livecodebench,
        description="LiveCodeBench code generation (stdin and LeetCode tasks, no references); pass a release file with --data",
        kinds=("stdin", "method"),
        needs_data=True,
    )
)
