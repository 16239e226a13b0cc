"""Problems searched in child processes, one per sandbox worker, so the host's half of the search uses every core.

Half of a search runs on the host: mutating candidates, encoding them,
checking the contract, reading replies, the reduction.  That is Python, and
one process runs it on one core at a time however many threads it has; with
two sandbox workers the search was bound by one core of host work while the
workers waited.  So with ``workers`` sandbox workers there are ``workers``
child processes, each with an engine of one worker (configured like the
caller's: sandbox, limits, reference cache) and ``threads`` problems in
flight, so its worker runs one problem's batch while the process mutates the
next problem's candidates.  A child asks for a problem whenever one of its
threads is free, so a slow problem never holds the others back.

A child is a fresh interpreter (``python -m benchmorph.testgen.processes``),
not a ``multiprocessing`` one: that would re-import the caller's main
module, which a library cannot ask of its users.  Parent and child speak
length-prefixed pickles over two pipes of their own (both ends are this
code).  A child whose parent goes away sees its pipe close and exits; a
child that dies takes only the problems it held with it, reported as lost
with why.
"""

from __future__ import annotations

import os
import pickle
import queue
import signal
import struct
import subprocess
import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from benchmorph.data.models import Problem
from benchmorph.execution.engine import Engine
from benchmorph.execution.limits import Limits

__all__ = ["EngineRecipe", "search_in_processes"]

_HEADER = struct.Struct("!Q")


@dataclass(frozen=True)
class EngineRecipe:
    """What a child needs to build an engine like the caller's, with one worker."""

    limits: Limits
    isolation: str
    cache_root: Path
    test_details: bool

    @classmethod
    def of(cls, engine: Engine) -> EngineRecipe:
        # check_sandbox() names the isolation without starting the caller's workers.
        return cls(engine.limits, engine.check_sandbox(), engine.references.root.parent, engine.test_details)

    def build(self) -> Engine:
        return Engine(
            workers=1,
            limits=self.limits,
            isolation=self.isolation,
            cache_root=self.cache_root,
            test_details=self.test_details,
        )


def _send(stream: IO[bytes], lock: threading.Lock, message: Any) -> None:
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    with lock:
        stream.write(_HEADER.pack(len(data)) + data)
        stream.flush()


def _receive(stream: IO[bytes]) -> Any:
    """The next message, or None at the end of the stream."""
    header = stream.read(_HEADER.size)
    if len(header) < _HEADER.size:
        return None
    (size,) = _HEADER.unpack(header)
    data = stream.read(size)
    if len(data) < size:
        return None
    return pickle.loads(data)  # noqa: S301 - written by the other end of this module, nobody else


# ------------------------------------------------------------------ the child


def _child_main(task_fd: int, reply_fd: int) -> None:
    """Serve problems: ask for one per free thread, search it, send the result back."""
    from benchmorph.testgen.augment import augment_problem

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent stops its children itself
    tasks = os.fdopen(task_fd, "rb")
    replies = os.fdopen(reply_fd, "wb")
    lock = threading.Lock()
    setup = _receive(tasks)
    if setup is None:
        return
    recipe, options, threads = setup
    engine = recipe.build()
    inbox: queue.Queue[Any] = queue.Queue()

    def work() -> None:
        while True:
            _send(replies, lock, ("want",))
            task = inbox.get()
            if task is None:
                return
            index, problem, texts = task
            try:
                result = augment_problem(
                    problem,
                    engine,
                    options,
                    llm_texts=texts,
                    on_found=lambda count: _send(replies, lock, ("found", count)),
                )
            except Exception as exc:  # noqa: BLE001 - augment_problem never raises for a problem: a bug, named
                _send(replies, lock, ("error", index, f"{type(exc).__name__}: {exc}"))
            else:
                _send(replies, lock, ("done", index, result))

    workers = [threading.Thread(target=work, daemon=True) for _ in range(threads)]
    for worker in workers:
        worker.start()
    stops = 0
    try:
        while stops < threads:
            message = _receive(tasks)
            if message is None:  # the parent went away: nobody wants the rest
                os._exit(1)
            if message[0] == "stop":
                stops += 1
                inbox.put(None)
            else:
                inbox.put(message[1:])
        for worker in workers:
            worker.join()
    finally:
        engine.close()


# ------------------------------------------------------------------ the parent


class _Child:
    def __init__(self, number: int, setup: Any, messages: queue.Queue[Any]) -> None:
        task_read, task_write = os.pipe()
        reply_read, reply_write = os.pipe()
        self.name = f"search-{number}"
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "benchmorph.testgen.processes", str(task_read), str(reply_write)],
            pass_fds=(task_read, reply_write),
            stdin=subprocess.DEVNULL,
        )
        os.close(task_read)
        os.close(reply_write)
        self.tasks = os.fdopen(task_write, "wb")
        self.replies = os.fdopen(reply_read, "rb")
        self.lock = threading.Lock()
        self.held: set[int] = set()
        self.stopped = False
        _send(self.tasks, self.lock, setup)
        self.reader = threading.Thread(target=self._read, args=(messages,), daemon=True)
        self.reader.start()

    def _read(self, messages: queue.Queue[Any]) -> None:
        while True:
            message = _receive(self.replies)
            messages.put((self, message))
            if message is None:
                return

    def send(self, message: Any) -> None:
        try:
            _send(self.tasks, self.lock, message)
        except (BrokenPipeError, OSError):
            pass  # it died: its reader reports the end

    def close(self, wait: float) -> None:
        """Close its task pipe (a child still serving then exits), wait a little, then kill it."""
        try:
            self.tasks.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.reader.join(timeout=5)
        self.replies.close()


def search_in_processes(
    problems: Mapping[int, Problem],
    options: Any,
    texts: Mapping[int, Sequence[str | None]],
    recipe: EngineRecipe,
    *,
    processes: int,
    threads: int,
    on_done: Callable[[int, Any], None],
    on_found: Callable[[int], None],
    on_lost: Callable[[int, str], None],
) -> None:
    """Augment ``problems`` (index -> problem) in ``processes`` children; each result goes to
    ``on_done(index, result)`` as it arrives, in the caller's thread.

    ``on_lost(index, why)``: a problem whose child died before it finished,
    or that raised there.  An interrupt (or a callback raising) stops every
    child at once.
    """
    order = list(problems)
    messages: queue.Queue[Any] = queue.Queue()
    children: list[_Child] = []
    pending = set(order)
    finished = False
    try:
        for number in range(max(1, min(processes, len(order)))):
            children.append(_Child(number, (recipe, options, threads), messages))
        while pending:
            child, message = messages.get()
            if message is None:
                code = child.proc.wait()
                for index in sorted(child.held):
                    pending.discard(index)
                    on_lost(index, f"the search process died (exit code {code})")
                child.held.clear()
                child.stopped = True
                if all(other.stopped for other in children) and pending:
                    for index in sorted(pending):
                        on_lost(index, "every search process died before this problem was searched")
                    pending.clear()
                continue
            kind = message[0]
            if kind == "want":
                if order:
                    index = order.pop(0)
                    child.held.add(index)
                    child.send(("task", index, problems[index], texts.get(index)))
                else:
                    child.send(("stop",))
            elif kind == "found":
                on_found(message[1])
            elif kind in ("done", "error"):
                index = message[1]
                child.held.discard(index)
                pending.discard(index)
                if kind == "done":
                    on_done(index, message[2])
                else:
                    on_lost(index, f"the search raised {message[2]}")
        finished = True
    finally:
        # Done: every child has its stops and ends by itself.  Interrupted: they go now.
        for child in children:
            child.close(wait=30.0 if finished else 0.0)


if __name__ == "__main__":
    _child_main(int(sys.argv[1]), int(sys.argv[2]))
