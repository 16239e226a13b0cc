"""CPU seconds of a piece of work: this process and its children, and the sandbox workers under them (Linux).

Wall time on a shared machine says as much about the neighbours as about the
code; CPU seconds do not.  Two parts:

* *host*: this process (every thread) and the children it waited for, from
  ``os.times()``: the search processes of ``augment_benchmark`` end that way;
* *sandbox*: the sandbox workers below this process.  They are killed, not
  waited for, when an engine closes, so their CPU never reaches anyone's
  ``children_*`` times.  A thread reads /proc every ``every`` seconds while
  the work runs, and keeps each worker's last ``utime + stime`` (its own
  CPU) ``+ cutime + cstime`` (the sample processes it forked and reaped).
  What a worker used after the last reading is missed (at most ``every``
  seconds of it).
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from types import TracebackType

TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
WORKER_MARKS = ("/opt/benchmorph/worker.py", "execution/_worker.py")


def _stat(pid: int) -> list[str] | None:
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # The command name (field 2) may hold spaces and parentheses: split after its closing one.
    return text[text.rindex(")") + 2 :].split()


def _is_worker(pid: int) -> bool:
    try:
        command = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
    except OSError:
        return False
    return any(mark in command for mark in WORKER_MARKS)


class CpuMeter:
    """``with CpuMeter() as meter: ...`` then ``meter.host``, ``meter.sandbox`` (None without /proc)."""

    def __init__(self, every: float = 0.25) -> None:
        self.every = every
        self.root = os.getpid()
        self.workers: dict[int, float] = {}
        self.known: dict[int, bool] = {}  # pid -> is a sandbox worker (asked once per pid)
        self.host: float | None = None
        self.sandbox: float | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, daemon=True)
        self._available = Path("/proc/self/stat").exists()

    def _read(self) -> None:
        parents: dict[int, int] = {}
        times: dict[int, float] = {}
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            fields = _stat(int(entry.name))
            if fields is None:
                continue
            # After the name: state(3) ppid(4) ... utime(14) stime(15) cutime(16) cstime(17).
            parents[int(entry.name)] = int(fields[1])
            times[int(entry.name)] = sum(int(value) for value in fields[11:15]) / TICKS
        for pid, seconds in times.items():
            ancestor = parents.get(pid)
            while ancestor is not None and ancestor not in (self.root, 0, 1):
                ancestor = parents.get(ancestor)
            if ancestor != self.root:
                continue
            if pid not in self.known:
                self.known[pid] = _is_worker(pid)
            if self.known[pid]:
                self.workers[pid] = max(seconds, self.workers.get(pid, 0.0))

    def _poll(self) -> None:
        while not self._stop.wait(self.every):
            self._read()

    def __enter__(self) -> CpuMeter:
        self._start = os.times()
        if self._available:
            self._thread.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, trace: TracebackType | None
    ) -> None:
        """Call while the engine is still open, so the workers' last reading is taken alive."""
        end = os.times()
        self.host = (end.user + end.system + end.children_user + end.children_system) - (  # fmt: skip
            self._start.user + self._start.system + self._start.children_user + self._start.children_system
        )
        if self._available:
            self._stop.set()
            self._thread.join()
            self._read()
            self.sandbox = sum(self.workers.values())
