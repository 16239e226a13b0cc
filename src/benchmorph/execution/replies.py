"""Turning the bytes a worker relayed into the reply the engine judges.

Model code holds the pipe its results travel on, so every record may be
forged or malformed; this module is where that is checked, on the host,
before anything is decoded or compared (see ``verdicts.py``).
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable

MAX_ERROR = 400
# json.loads without its per-call set-up (see ``parse_record``): the same default decoder.
_DECODE = json.JSONDecoder().decode
# values.encode refuses anything nested deeper, so no honest output is.
MAX_OUTPUT_DEPTH = 400
CONTAINERS = (list, dict)


def assemble_reply(
    kind: object, summary: dict, frames: list[tuple[bytes, bytes]], watch: StreamWatch | None = None
) -> dict:
    """The reply the engine judges, from the worker's summary and the child bytes it relayed.

    ``watch``: the ``StreamWatch`` that saw the job's stream, whose parsed and
    checked records of the first lines are reused, not made twice.
    """
    if "total" not in summary:  # ping, need_inputs, fatal: nothing was run
        return summary
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
        reply.update(violation=str(cap), setup_error=None)
        if reply.get("timeout_in") == "setup":
            reply["timeout_in"] = None
    return reply


def stdin_reply(summary: dict, frames: list[tuple[bytes, bytes]]) -> dict:
    results: list[dict | None] = []
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
    results += [None] * (summary["total"] - len(results))
    return {
        "results": results,
        "ready": True,
        "exit": "",
        "setup_error": None,
        "violation": summary.get("violation"),
        "timeout_in": summary.get("timeout_in"),
        "id": summary.get("id"),
        "wall": summary.get("wall"),
    }


def stdin_result(test: dict, out: list[bytes], err: list[bytes], cov: list[bytes]) -> dict:
    """One stdin test's result record, from the worker's "T" frame and the bytes relayed before it."""
    stdout = b"".join(out).decode("utf-8", "replace")
    if test["ok"]:
        result = {"i": test["i"], "s": "ok", "t": test["t"], "o": stdout}
        if cov:
            covered = clean_coverage(parse_record(b"".join(cov)))
            if covered is not None:
                result["c"] = covered
        return result
    stderr = b"".join(err).decode("utf-8", "replace")[-MAX_ERROR:]
    message = test["exit"] + (": " + stderr.strip() if stderr.strip() else "")
    return {"i": test["i"], "s": "error", "t": test["t"], "e": message[:MAX_ERROR], "o": stdout}


class StreamWatch:
    """Hands each test's result to ``judge`` as the worker relays it, so a job can stop at a failure.

    ``judge(index, record)`` gets the records ``assemble_reply`` will hold for
    tests 0, 1, 2, ... (checked the same way, in the same order) and returns
    False to stop: ``feed`` then returns False and the host cancels the job.
    Anything out of place ends the watching quietly; the reply assembled at the
    end of the job is what decides, this only decides when to stop early.
    """

    def __init__(self, kind: object, total: int, judge: Callable[[int, dict], bool]) -> None:
        self.kind = kind
        self.total = total
        self.judge = judge
        self.watching = True
        self.stopped = False  # the judge asked to stop
        self._partial = b""
        # parse_record of each line of a function job's stream taken so far, in order: the
        # reply is assembled from the same lines, and reuses these (``function_reply``).
        self.parsed: list[dict | None] = []
        # clean_result of the result lines among them, by line number (same reuse).
        self.cleaned: dict[int, dict] = {}
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
        clean = clean_result(record, index)
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
            except (KeyError, TypeError):
                self.watching = False
                return True
            self._next += 1
            return self._judge(self._next - 1, record)
        return True

    def _judge(self, index: int, record: dict) -> bool:
        if self.judge(index, record):
            return True
        self.watching = False
        self.stopped = True
        return False


def function_reply(
    summary: dict,
    stream: bytes,
    parsed: list[dict | None] | None = None,
    cleaned: dict[int, dict] | None = None,
) -> dict:
    """Read the child's record stream as the harness writes it: ready, one result per test, end.

    Model code holds the pipe the records come from, so any line may be
    forged; the first one out of place ends the reading as a violation, and
    records are checked before they are judged (``clean_result``).
    ``parsed[j]``, where given, is ``parse_record`` of line ``j`` already
    (the watch split the same bytes at the same newlines), and ``cleaned[j]``
    its ``clean_result`` for the test index the watch gave it (used only where
    that is the index read here: ``clean_result`` depends on nothing else).
    """
    known = parsed or []
    checked = cleaned or {}
    total = summary["total"]
    results: list[dict | None] = [None] * total
    outcome: dict = {"setup_error": None, "violation": None, "timeout_in": None}
    ready = False
    next_index = 0
    finished = False
    lines = stream.split(b"\n")
    for number, line in enumerate(lines[:-1]):  # the last piece is an unfinished line, or empty
        record = known[number] if number < len(known) else parse_record(line)
        if record is None:
            outcome["violation"] = "corrupted result stream"
            finished = True
        elif "setup_error" in record:
            error = record["setup_error"]
            outcome["setup_error"] = (
                error[:MAX_ERROR] if isinstance(error, str) else "solution failed to load"
            )
            finished = True
        elif record.get("ready") is True and not ready:
            ready = True
        elif record.get("end") is True:
            finished = True
        elif ready and next_index < total and type(record.get("i")) is int and record["i"] == next_index:
            clean = checked.get(number)
            if clean is None or clean["i"] != next_index:
                clean = clean_result(record, next_index)
            if clean is None:
                outcome["violation"] = "corrupted result stream"
                finished = True
            else:
                results[next_index] = clean
                next_index += 1
        else:
            outcome["violation"] = "corrupted result stream"
            finished = True
        if finished:
            break
    if not finished:
        if summary.get("violation"):
            outcome["violation"] = summary["violation"]
        elif summary.get("timed_out"):
            outcome["timeout_in"] = "setup" if not ready else next_index
    return {
        "results": results,
        "ready": ready,
        "exit": summary.get("exit", ""),
        **outcome,
        "id": summary.get("id"),
        "wall": summary.get("wall"),
    }


def parse_record(line: bytes) -> dict | None:
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


def output_is_judgeable(data: object) -> bool:
    """Whether the host can decode ``data`` (an encoded output) and judge it without raising.

    Mirrors what ``values.decode`` accepts, iteratively and without building
    anything: tag payloads of the right shape, set members and dict keys that
    decode to hashable values, string payloads for opaque values (the host
    prints them in diffs), and no deeper nesting than the encoder produces.
    """
    if type(data) not in CONTAINERS:
        return True
    # Only containers are stacked, with their depth; their members sit one
    # level deeper, so a container with members may not sit at the limit.
    stack = [(data, 0, False)]
    while stack:
        item, depth, must_hash = stack.pop()
        full = depth >= MAX_OUTPUT_DEPTH
        below = depth + 1
        if type(item) is list:
            if must_hash or (full and item):
                return False
            stack.extend([(child, below, False) for child in item if type(child) in CONTAINERS])
            continue
        tag = next(iter(item)) if len(item) == 1 else None
        payload = item[tag] if tag is not None else None
        if tag in ("__tuple__", "__set__", "__frozenset__"):
            if type(payload) is not list or (must_hash and tag == "__set__") or (full and payload):
                return False
            inner = must_hash if tag == "__tuple__" else True
            stack.extend([(child, below, inner) for child in payload if type(child) in CONTAINERS])
        elif tag == "__dict__":
            if must_hash or type(payload) is not list or (full and payload):
                return False
            for pair in payload:
                if type(pair) is not list or len(pair) != 2:
                    return False
                key, value = pair
                if type(key) in CONTAINERS:
                    stack.append((key, below, True))
                if type(value) in CONTAINERS:
                    stack.append((value, below, False))
        elif tag == "__float__":
            if not is_float_text(payload):
                return False
        elif tag == "__complex__":
            if type(payload) is not list or len(payload) != 2:
                return False
            for part in payload:
                tagged = type(part) is dict and len(part) == 1 and is_float_text(part.get("__float__"))
                if type(part) not in (int, float) and not tagged:
                    return False
                if type(part) is int and not fits_float(part):  # complex() of 10**400 overflows
                    return False
        elif tag == "__bytes__":
            try:
                base64.b64decode(payload)
            except (TypeError, ValueError):
                return False
        elif tag == "__opaque__":
            if type(payload) is not str:
                return False
        else:
            if must_hash or (full and item):
                return False
            stack.extend([(child, below, False) for child in item.values() if type(child) in CONTAINERS])
    return True


def fits_float(number: int) -> bool:
    try:
        float(number)
    except OverflowError:
        return False
    return True


def is_float_text(text: object) -> bool:
    if type(text) is not str:
        return False
    try:
        float(text)
    except ValueError:
        return False
    return True


def clean_result(record: dict, index: int) -> dict | None:
    """The result record for test ``index`` as the host may safely judge it, or None.

    Forged records must not reach the host in a shape its judging code would
    raise on (a non-numeric time, an undecodable or too deeply nested output):
    that would turn one hostile sample into a failed run instead of a verdict.
    """
    elapsed = record.get("t")
    if type(elapsed) not in (int, float) or not 0 <= elapsed < 1e9:
        return None
    if record.get("s") == "ok":
        output = record.get("o")
        if not output_is_judgeable(output):
            # Also reachable without forging (a hashable list subclass in a set
            # encodes as a set of lists): judged as that test's error, like any
            # output the codec cannot carry.
            return {"i": index, "s": "error", "t": float(elapsed), "e": "output cannot be decoded"}
        clean = {"i": index, "s": "ok", "t": float(elapsed), "o": output}
        if "c" in record:
            covered = clean_coverage(record["c"])
            if covered is None:
                return None
            clean["c"] = covered
        return clean
    if record.get("s") == "error":
        error = record.get("e")
        return {
            "i": index,
            "s": "error",
            "t": float(elapsed),
            "e": error[:MAX_ERROR] if isinstance(error, str) else "error",
        }
    return None


def clean_coverage(data: object) -> dict | None:
    """A traced run's coverage record (``{"l": [line, ...], "a": [[from, to], ...]}``) checked, or None.

    Only references are traced, but the record still crossed the pipe the
    sample's code holds, so its shape is checked like any other record's.
    """
    if type(data) is not dict or set(data) != {"l", "a"}:
        return None
    lines, arcs = data["l"], data["a"]
    if type(lines) is not list or type(arcs) is not list:
        return None
    if not all(type(line) is int for line in lines):
        return None
    if not all(type(arc) is list and len(arc) == 2 and all(type(end) is int for end in arc) for arc in arcs):
        return None
    return {"l": lines, "a": arcs}
