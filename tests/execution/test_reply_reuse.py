"""The host parses and checks each result line once: a reply built with a StreamWatch's work is the same.

``function_reply`` reuses the records (and checked results) a first-failure
``StreamWatch`` already made from the same stream.  Whatever the stream holds
(honest, forged, cut, out of order) and wherever the watch stopped, the
reply must equal the one built from the bytes alone.
"""

from __future__ import annotations

import json

import pytest

from benchmorph.execution.replies import StreamWatch, assemble_reply, function_reply, parse_record


def line(record: object) -> bytes:
    return json.dumps(record).encode() + b"\n"


def result(index: int, output: object = 1, status: str = "ok") -> bytes:
    if status == "ok":
        return line({"i": index, "s": "ok", "t": 0.001, "o": output})
    return line({"i": index, "s": "error", "t": 0.001, "e": "ValueError: no"})


READY, END = line({"ready": True}), line({"end": True})
STREAMS = {
    "honest": READY + b"".join(result(i) for i in range(5)) + END,
    "error at 2": READY + result(0) + result(1) + result(2, status="error") + END,
    "cut mid-line": READY + result(0) + result(1)[:9],
    "out of order": READY + result(0) + result(2) + result(1) + END,
    "twice ready": READY + READY + result(0) + END,
    "not json": READY + result(0) + b"{nope\n" + result(1) + END,
    "setup error": line({"setup_error": "SyntaxError: bad"}),
    "forged time": READY + line({"i": 0, "s": "ok", "t": "soon", "o": 1}) + END,
    "undecodable output": READY + line({"i": 0, "s": "ok", "t": 0.1, "o": {"__set__": [[1]]}}) + END,
    "a list, not a record": READY + b"[1, 2]\n" + result(0) + END,
    "utf-16 record": READY + json.dumps({"i": 0, "s": "ok", "t": 0.1, "o": 2}).encode("utf-16") + b"\n" + END,
    "leading space": READY + b" " + result(0) + END,
}


@pytest.mark.parametrize("name", sorted(STREAMS))
@pytest.mark.parametrize("stop_at", [None, 0, 1, 3])
@pytest.mark.parametrize("chunk", [1, 7, 1 << 16])
def test_reply_with_the_watch_equals_reply_from_bytes(name: str, stop_at: int | None, chunk: int) -> None:
    stream = STREAMS[name]
    summary = {"total": 5, "exit": "killed by SIGKILL", "id": "t#0", "wall": 0.01}
    watch = StreamWatch("function", 5, lambda index, _record: index != stop_at)
    frames = [(b"D", stream[at : at + chunk]) for at in range(0, len(stream), chunk)]
    for kind, payload in frames:
        watch.feed(kind, payload)
    assert assemble_reply("function", summary, frames, watch) == function_reply(summary, stream)


def test_the_fast_parse_reads_what_json_loads_reads() -> None:
    # Lines starting with "{" skip json.loads' encoding detection; the rest go through it.
    for raw in [result(0).strip(), b'{"a": "\\ud800"}', b"{}", b"{", READY.strip(), b' {"a": 1}']:
        try:
            expected = json.loads(raw)
        except ValueError:
            expected = None
        assert parse_record(raw) == (expected if isinstance(expected, dict) else None)
    assert parse_record(json.dumps({"a": 1}).encode("utf-16")) == {"a": 1}
