"""The worker protocol, typed: requests to a sandbox worker and what its replies say.

``_worker.py`` speaks JSON and stays standard library only (it runs inside the
jail, where benchmorph is not importable).  The host turns every reply into
these dataclasses exactly once, in ``replies.py``, after checking it: model
code holds the pipe its results travel on, so a record may be forged, and
nothing above this module ever reads a wire dict.

Wire forms (see ``_worker.py``), for reference:

* a function job's result line: ``{"i": index, "s": "ok"|"error", "t": wall
  seconds, "u": CPU seconds, "o": encoded output, "e": error, "c": coverage}``;
* a stdin test's ``T`` frame: ``{"i", "t", "u", "ok", "exit"}``;
* the worker's summary (``R`` frame) of a job, and the host's additions
  (``cap``: a cgroup cap the sample hit).
"""

from __future__ import annotations

import base64
from dataclasses import dataclass, field
from typing import Literal

MAX_ERROR = 400
# values.encode refuses anything nested deeper, so no honest output is.
MAX_OUTPUT_DEPTH = 400
_CONTAINERS = (list, dict)

TimeoutAt = int | Literal["setup"] | None
TimeoutBy = Literal["cpu", "wall"]
CoverageItem = tuple[str, int] | tuple[str, int, int]


@dataclass(frozen=True, slots=True)
class Coverage:
    """Lines and arcs of the solution a traced call executed (an arc from or to ``-first_line``: entry, return)."""

    lines: tuple[int, ...]
    arcs: tuple[tuple[int, int], ...]

    @classmethod
    def from_wire(cls, data: object) -> Coverage | None:
        """``{"l": [line, ...], "a": [[from, to], ...]}`` checked, or None when it is not that shape.

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
        pairs: list[tuple[int, int]] = []
        for arc in arcs:
            if type(arc) is not list or len(arc) != 2 or type(arc[0]) is not int or type(arc[1]) is not int:
                return None
            pairs.append((arc[0], arc[1]))
        return cls(tuple(lines), tuple(pairs))

    def to_wire(self) -> dict[str, list[int] | list[list[int]]]:
        return {"l": list(self.lines), "a": [[a, b] for a, b in self.arcs]}

    def items(self) -> frozenset[CoverageItem]:
        """``("line", n)`` and ``("arc", from, to)`` items, the form test selection compares."""
        found: list[CoverageItem] = [("line", line) for line in self.lines]
        found += [("arc", a, b) for a, b in self.arcs]
        return frozenset(found)


def _seconds(value: object) -> float | None:
    """A time a record claims, as a float, or None when it is not a plausible one."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    number = float(value)
    return number if 0 <= number < 1e9 else None


@dataclass(frozen=True, slots=True)
class TestRecord:
    """What the code did on one test input, as the host may safely judge it.

    ``returned``: the call returned (function) or the program exited 0
    (stdin); else ``error`` says what happened.  ``output`` is the wire form:
    a ``values``-encoded value for function and method problems, the program's
    stdout for stdin ones.  ``time`` is wall seconds, ``cpu`` CPU seconds (the
    unit time limits are charged in; None from a worker that did not say).
    """

    __test__ = False  # not a pytest class

    index: int
    returned: bool
    time: float
    cpu: float | None = None
    output: object = None
    error: str | None = None
    coverage: Coverage | None = None

    @property
    def charged(self) -> float:
        """The time that counts against a limit: CPU seconds where known, else wall seconds."""
        return self.cpu if self.cpu is not None else self.time

    @classmethod
    def from_wire(cls, record: dict[str, object], index: int) -> TestRecord | None:
        """A function job's result line for test ``index``, checked; None when it is not one.

        Forged records must not reach the host in a shape its judging code
        would raise on (a non-numeric time, an undecodable or too deeply
        nested output): that would turn one hostile sample into a failed run
        instead of a verdict.
        """
        elapsed = _seconds(record.get("t"))
        if elapsed is None:
            return None
        cpu = _seconds(record["u"]) if "u" in record else None
        status = record.get("s")
        if status == "ok":
            output = record.get("o")
            if not output_is_judgeable(output):
                # Also reachable without forging (a hashable list subclass in a set encodes as a
                # set of lists): judged as that test's error, like any output the codec cannot carry.
                return cls(index, False, elapsed, cpu, error="output cannot be decoded")
            coverage = None
            if "c" in record:
                coverage = Coverage.from_wire(record["c"])
                if coverage is None:
                    return None
            return cls(index, True, elapsed, cpu, output, None, coverage)
        if status == "error":
            error = record.get("e")
            return cls(
                index, False, elapsed, cpu, error=error[:MAX_ERROR] if isinstance(error, str) else "error"
            )
        return None

    def to_wire(self) -> dict[str, object]:
        """The record as a function job's result line (the reference cache stores this form)."""
        wire: dict[str, object] = {"i": self.index, "s": "ok" if self.returned else "error", "t": self.time}
        if self.cpu is not None:
            wire["u"] = self.cpu
        if self.returned:
            wire["o"] = self.output
        else:
            wire["e"] = self.error
            if self.output is not None:
                wire["o"] = self.output
        if self.coverage is not None:
            wire["c"] = self.coverage.to_wire()
        return wire


@dataclass(frozen=True, slots=True)
class WorkerReply:
    """One job's outcome: a result per test (None where the test did not run) and how the job ended.

    At most one of the ways a job ends early is set: ``crashed`` (the worker
    died or hung; it is restarted), ``fatal`` (the worker could not run the job),
    ``setup_error`` (the code did not load), ``violation`` (a cap was hit or the
    result stream was forged), ``timeout_in`` (the test that ran out of time, or
    ``"setup"``; ``timeout_by`` says whether CPU time or the wall-clock
    backstop ran out).  ``cpu`` is the CPU seconds the sample's processes used
    in all, where the worker measured it.
    """

    results: tuple[TestRecord | None, ...] = ()
    ready: bool = False
    exit: str = ""
    setup_error: str | None = None
    violation: str | None = None
    timeout_in: TimeoutAt = None
    timeout_by: TimeoutBy | None = None
    wall: float = 0.0
    cpu: float | None = None
    crashed: str | None = None
    fatal: str | None = None
    job_id: str | None = None
    need_inputs: bool = False

    @classmethod
    def lost(cls, reason: str) -> WorkerReply:
        """The reply for a job whose worker died or stopped answering."""
        return cls(crashed=reason)

    @property
    def failed_to_run(self) -> str | None:
        """Why the job produced no judgeable results at all, in words; None when it ran."""
        if self.crashed is not None:
            return f"sandbox worker lost: {self.crashed}"
        if self.fatal:
            return self.fatal
        if self.setup_error:
            return self.setup_error
        return None


WireLimits = dict[str, int]


@dataclass(slots=True)
class WorkerJob:
    """One request to a worker: ``code`` on encoded ``inputs``, with per-test CPU limits.

    ``timeouts[i]`` is test ``i``'s limit in CPU seconds and ``setup_time`` the
    load's; ``wall_factor`` times each is the wall-clock backstop (a sample
    that sleeps or blocks uses no CPU).  ``budget`` is how long the host waits
    for the whole reply before it declares the worker lost.  ``inputs_key``
    names the inputs so a worker that has them already is not sent them again.
    """

    id: str
    kind: str
    code: str
    entry_point: str
    inputs: list[object]
    timeouts: list[float]
    setup_time: float
    wall_factor: float
    limits: WireLimits
    budget: float
    inputs_key: str | None = None
    first_failure: bool = False
    trace: bool = False
    extra: dict[str, object] = field(default_factory=dict)

    def header(self, with_inputs: bool) -> dict[str, object]:
        """The JSON header the worker reads (the code travels after it, apart)."""
        header: dict[str, object] = {
            "id": self.id,
            "kind": self.kind,
            "entry_point": self.entry_point,
            "inputs_key": self.inputs_key,
            "timeouts": self.timeouts,
            "setup_time": self.setup_time,
            "wall_factor": self.wall_factor,
            "limits": self.limits,
        }
        if self.first_failure:
            header["first_failure"] = True
        if self.trace:
            header["trace"] = True
        if with_inputs or self.inputs_key is None:
            header["inputs"] = self.inputs
        return header


def output_is_judgeable(data: object) -> bool:
    """Whether the host can decode ``data`` (an encoded output) and judge it without raising.

    Mirrors what ``values.decode`` accepts, iteratively and without building
    anything: tag payloads of the right shape, set members and dict keys that
    decode to hashable values, string payloads for opaque values (the host
    prints them in diffs), and no deeper nesting than the encoder produces.
    """
    if type(data) not in _CONTAINERS:
        return True
    # Only containers are stacked, with their depth; their members sit one
    # level deeper, so a container with members may not sit at the limit.
    stack: list[tuple[object, int, bool]] = [(data, 0, False)]
    while stack:
        item, depth, must_hash = stack.pop()
        full = depth >= MAX_OUTPUT_DEPTH
        below = depth + 1
        if isinstance(item, list):
            if must_hash or (full and item):
                return False
            stack.extend([(child, below, False) for child in item if type(child) in _CONTAINERS])
            continue
        assert isinstance(item, dict)
        tag = next(iter(item)) if len(item) == 1 else None
        payload = item[tag] if tag is not None else None
        if tag in ("__tuple__", "__set__", "__frozenset__"):
            if type(payload) is not list or (must_hash and tag == "__set__") or (full and payload):
                return False
            inner = must_hash if tag == "__tuple__" else True
            stack.extend([(child, below, inner) for child in payload if type(child) in _CONTAINERS])
        elif tag == "__dict__":
            if must_hash or type(payload) is not list or (full and payload):
                return False
            for pair in payload:
                if type(pair) is not list or len(pair) != 2:
                    return False
                key, value = pair
                if type(key) in _CONTAINERS:
                    stack.append((key, below, True))
                if type(value) in _CONTAINERS:
                    stack.append((value, below, False))
        elif tag == "__float__":
            if not _is_float_text(payload):
                return False
        elif tag == "__complex__":
            if type(payload) is not list or len(payload) != 2:
                return False
            for part in payload:
                tagged = type(part) is dict and len(part) == 1 and _is_float_text(part.get("__float__"))
                if type(part) not in (int, float) and not tagged:
                    return False
                if type(part) is int and not _fits_float(part):  # complex() of 10**400 overflows
                    return False
        elif tag == "__bytes__":
            if not isinstance(payload, str | bytes):
                return False
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
            stack.extend([(child, below, False) for child in item.values() if type(child) in _CONTAINERS])
    return True


def _fits_float(number: int) -> bool:
    try:
        float(number)
    except OverflowError:
        return False
    return True


def _is_float_text(text: object) -> bool:
    if not isinstance(text, str):
        return False
    try:
        float(text)
    except ValueError:
        return False
    return True
