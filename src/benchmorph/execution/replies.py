"""Turning the bytes a worker relayed into the typed reply the engine judges (``protocol.py``).

Model code holds the pipe its results travel on, so every record may be
forged or malformed; this module is where that is checked, on the host,
before anything is decoded or compared (see ``verdicts.py``), and the only
place that reads the wire form.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from benchmorph.execution.protocol import MAX_ERROR, Coverage, TestRecord, TimeoutAt, TimeoutBy, WorkerReply

# json.loads without its per-call set-up (see ``parse_record``): the same default decoder.
_DECODE = json.JSONDecoder().decode

Frames = list[tuple[bytes, bytes]]


def _text(value: object) -> str | None:
    return value[:MAX_ERROR] if isinstance(value, str) else None


def _number(value: object) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _timeout_by(summary: dict[str, Any]) -> TimeoutBy | None:
    by = summary.get("timeout_by")
    return by if by in ("cpu", "wall") else None


def assemble_reply(
    kind: object, summary: dict[str, Any], frames: Frames, watch: StreamWatch | None = None
) -> WorkerReply:
    """The reply the engine judges, from the worker's summary and the child bytes it relayed.

    ``watch``: the ``StreamWatch`` that saw the job's stream, whose parsed and
    checked records of the first lines are reused, not made twice.
    """
    if "total" not in summary:  # need_inputs, fatal: nothing was run
        return WorkerReply(
            fatal=_text(summary.get("fatal")) or (None if summary.get("need_inputs") else "no reply"),
            need_inputs=bool(summary.get("need_inputs")),
            job_id=_text(summary.get("id")),
        )
    if kind == "stdin":
        reply = stdin_reply(summary, frames)
    else:
        parsed, cleaned = (watch.parsed, watch.cleaned) if watch is not None else (None, None)
        reply = function_reply(summary, b"".join(payload for _kind, payload in frames), parsed, cleaned)
    cap = summary.get("cap")
    if cap:
        # The host saw the sample's processes together hit a cgroup cap (memory, processes).
        # That decides the verdict whatever the records say: the kernel may have cut
        # them short anywhere, in loading as well as in a test.
        timeout_in = None if reply.timeout_in == "setup" else reply.timeout_in
        reply = replace(reply, violation=str(cap), setup_error=None, timeout_in=timeout_in)
    return reply


def _common(summary: dict[str, Any]) -> dict[str, Any]:
    return {
        "job_id": _text(summary.get("id")),
        "wall": _number(summary.get("wall")) or 0.0,
        "cpu": _number(summary.get("cpu")),
    }


def stdin_reply(summary: dict[str, Any], frames: Frames) -> WorkerReply:
    results: list[TestRecord | None] = []
    out: list[bytes] = []
    err: list[bytes] = []
    cov: list[bytes] = []
    for kind, payload in frames:
        if kind == b"O":
            out.append(payload)
        elif kind == b"E":
            err.append(payload)
        elif kind == b"C":
            cov.append(payload)
        elif kind == b"T":
            results.append(stdin_result(json.loads(payload), out, err, cov))
            out, err, cov = [], [], []
    total = int(summary["total"])
    results += [None] * (total - len(results))
    timeout_in = summary.get("timeout_in")
    return WorkerReply(
        results=tuple(results[:total]),
        ready=True,
        violation=_text(summary.get("violation")),
        timeout_in=timeout_in if isinstance(timeout_in, int) and not isinstance(timeout_in, bool) else None,
        timeout_by=_timeout_by(summary),
        **_common(summary),
    )


def stdin_result(test: dict[str, Any], out: list[bytes], err: list[bytes], cov: list[bytes]) -> TestRecord:
    """One stdin test's result record, from the worker's "T" frame and the bytes relayed before it."""
    stdout = b"".join(out).decode("utf-8", "replace")
    index, elapsed, cpu = int(test["i"]), float(test["t"]), _number(test.get("u"))
    if test["ok"]:
        coverage = Coverage.from_wire(parse_record(b"".join(cov))) if cov else None
        return TestRecord(index, True, elapsed, cpu, stdout, None, coverage)
    stderr = b"".join(err).decode("utf-8", "replace")[-MAX_ERROR:]
    message = str(test["exit"]) + (": " + stderr.strip() if stderr.strip() else "")
    return TestRecord(index, False, elapsed, cpu, stdout, message[:MAX_ERROR])


class StreamWatch:
    """Hands each test's result to ``judge`` as the worker relays it, so a job can stop at a failure.

    ``judge(index, record)`` gets the records ``assemble_reply`` will hold for
    tests 0, 1, 2, ... (checked the same way, in the same order) and returns
    False to stop: ``feed`` then returns False and the host cancels the job.
    Anything out of place ends the watching quietly; the reply assembled at the
    end of the job is what decides, this only decides when to stop early.
    """

    def __init__(self, kind: object, total: int, judge: Callable[[int, TestRecord], bool]) -> None:
        self.kind = kind
        self.total = total
        self.judge = judge
        self.watching = True
        self.stopped = False  # the judge asked to stop
        self._partial = b""
        # parse_record of each line of a function job's stream taken so far, in order: the
        # reply is assembled from the same lines, and reuses these (``function_reply``).
        self.parsed: list[dict[str, Any] | None] = []
        # The checked record of the result lines among them, by line number (same reuse).
        self.cleaned: dict[int, TestRecord] = {}
        self._ready = False
        self._next = 0
        self._out: list[bytes] = []
        self._err: list[bytes] = []
        self._cov: list[bytes] = []

    def feed(self, frame: bytes, payload: bytes) -> bool:
        """Take one relayed frame; False when the judge asked to stop (reported once)."""
        if not self.watching:
            return True
        if self.kind == "stdin":
            return self._feed_stdin(frame, payload)
        if frame != b"D":
            return True
        lines = (self._partial + payload).split(b"\n")
        self._partial = lines.pop()
        for line in lines:
            if not self._take_line(line):
                return not self.stopped
        return True

    def _take_line(self, line: bytes) -> bool:
        """One line of a function job's stream; False when watching ends here."""
        record = parse_record(line)
        self.parsed.append(record)
        if record is None or "setup_error" in record or record.get("end") is True:
            self.watching = False
            return False
        if record.get("ready") is True and not self._ready:
            self._ready = True
            return True
        index = self._next
        if not (self._ready and index < self.total and type(record.get("i")) is int and record["i"] == index):
            self.watching = False
            return False
        clean = TestRecord.from_wire(record, index)
        if clean is None:
            self.watching = False
            return False
        self.cleaned[len(self.parsed) - 1] = clean
        self._next += 1
        return self._judge(index, clean)

    def _feed_stdin(self, frame: bytes, payload: bytes) -> bool:
        if frame == b"O":
            self._out.append(payload)
        elif frame == b"E":
            self._err.append(payload)
        elif frame == b"C":
            self._cov.append(payload)
        elif frame == b"T":
            test = parse_record(payload)
            self._out, out = [], self._out
            self._err, err = [], self._err
            self._cov, cov = [], self._cov
            if test is None or test.get("i") != self._next or self._next >= self.total:
                self.watching = False
                return True
            try:
                record = stdin_result(test, out, err, cov)
            except (KeyError, TypeError, ValueError):
                self.watching = False
                return True
            self._next += 1
            return self._judge(self._next - 1, record)
        return True

    def _judge(self, index: int, record: TestRecord) -> bool:
        if self.judge(index, record):
            return True
        self.watching = False
        self.stopped = True
        return False


def function_reply(
    summary: dict[str, Any],
    stream: bytes,
    parsed: list[dict[str, Any] | None] | None = None,
    cleaned: dict[int, TestRecord] | None = None,
) -> WorkerReply:
    """Read the child's record stream as the harness writes it: ready, one result per test, end.

    Model code holds the pipe the records come from, so any line may be
    forged; the first one out of place ends the reading as a violation, and
    records are checked before they are judged (``TestRecord.from_wire``).
    ``parsed[j]``, where given, is ``parse_record`` of line ``j`` already
    (the watch split the same bytes at the same newlines), and ``cleaned[j]``
    its checked record for the test index the watch gave it (used only where
    that is the index read here: the check depends on nothing else).
    """
    known = parsed or []
    checked = cleaned or {}
    total = int(summary["total"])
    results: list[TestRecord | None] = [None] * total
    setup_error: str | None = None
    violation: str | None = None
    timeout_in: TimeoutAt = None
    timeout_by: TimeoutBy | None = None
    ready = False
    next_index = 0
    finished = False
    lines = stream.split(b"\n")
    for number, line in enumerate(lines[:-1]):  # the last piece is an unfinished line, or empty
        record = known[number] if number < len(known) else parse_record(line)
        if record is None:
            violation = "corrupted result stream"
            finished = True
        elif "setup_error" in record:
            setup_error = _text(record["setup_error"]) or "solution failed to load"
            finished = True
        elif record.get("ready") is True and not ready:
            ready = True
        elif record.get("end") is True:
            finished = True
        elif ready and next_index < total and type(record.get("i")) is int and record["i"] == next_index:
            clean = checked.get(number)
            if clean is None or clean.index != next_index:
                clean = TestRecord.from_wire(record, next_index)
            if clean is None:
                violation = "corrupted result stream"
                finished = True
            else:
                results[next_index] = clean
                next_index += 1
        else:
            violation = "corrupted result stream"
            finished = True
        if finished:
            break
    if not finished:
        if summary.get("violation"):
            violation = _text(summary["violation"])
        elif summary.get("timed_out"):
            timeout_in = "setup" if not ready else next_index
            timeout_by = _timeout_by(summary)
    return WorkerReply(
        results=tuple(results),
        ready=ready,
        exit=_text(summary.get("exit")) or "",
        setup_error=setup_error,
        violation=violation,
        timeout_in=timeout_in,
        timeout_by=timeout_by,
        **_common(summary),
    )


def parse_record(line: bytes) -> dict[str, Any] | None:
    """One JSON record from the child, or None when the line is not one.

    The child runs model code, which can write anything to this pipe (it holds
    the fd): malformed JSON, nesting deep enough to raise RecursionError.  None
    of that may take the host down.
    """
    try:
        if line[:1] == b"{" and line[1:2] != b"\0":
            # What json.loads does with these bytes (its detect_encoding says UTF-8 for them),
            # minus the detection and call layers: this runs once per test of every sample.
            record = _DECODE(line.decode("utf-8", "surrogatepass"))
        else:
            record = json.loads(line)
    except Exception:  # noqa: BLE001 - ValueError, RecursionError, MemoryError
        return None
    return record if isinstance(record, dict) else None
