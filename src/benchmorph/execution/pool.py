"""A fixed set of sandbox workers shared by threads, one job at a time each.

Threads are enough here: the host side only moves bytes and waits on pipes,
the real work happens in the worker processes.  A worker that dies or hangs
becomes a failed reply for the job it held and is restarted for the next one.
"""

from __future__ import annotations

import os
import queue
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from typing import Any

from benchmorph.execution.cgroups import detect as detect_cgroups
from benchmorph.execution.replies import StreamWatch
from benchmorph.execution.sandbox import WorkerCrashed, WorkerProcess, isolation_mode


class WorkerPool:
    def __init__(
        self, workers: int | None = None, isolation: str | None = None, scratch_size: int = 64 << 20
    ):
        self.size = max(1, workers or os.cpu_count() or 1)
        # Validated even when given: 'bwrap' must really work here, or the pool refuses to start.
        self.isolation = isolation_mode(isolation)
        # One cgroup per worker caps each sample's processes together; without one, rlimits per process.
        self.cgroups = detect_cgroups()
        self.memory_mode = self.cgroups.mode if self.cgroups else "rlimits"
        self._idle: queue.Queue[WorkerProcess] = queue.Queue()
        self._all = [
            WorkerProcess(slot, self.isolation, scratch_size, self.cgroups) for slot in range(self.size)
        ]
        for worker in self._all:
            self._idle.put(worker)
        self._closed = False
        self._lock = threading.Lock()

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def submit_one(
        self, job: dict[str, Any], inputs: list[Any], timeout: float, watch: StreamWatch | None = None
    ) -> dict[str, Any]:
        """Run one job on an idle worker; returns the worker's reply or ``{"crashed": reason}``.

        ``watch`` sees the results as they stream and may stop the job early (``StreamWatch``).
        """
        worker = self._idle.get()
        try:
            return self._run(worker, job, inputs, timeout, watch)
        finally:
            self._idle.put(worker)

    def _run(
        self,
        worker: WorkerProcess,
        job: dict[str, Any],
        inputs: list[Any],
        timeout: float,
        watch: StreamWatch | None = None,
    ) -> dict[str, Any]:
        key = job.get("inputs_key")
        message = dict(job)
        if key is None or key not in worker.known_inputs:
            message["inputs"] = inputs
        for _attempt in range(2):
            try:
                reply = worker.request(message, timeout, watch)
            except WorkerCrashed as exc:
                return {"crashed": str(exc)}
            if reply.get("need_inputs"):
                message["inputs"] = inputs
                continue
            if key is not None:
                worker.known_inputs.add(key)
            return reply
        return {"crashed": "worker lost the test inputs"}

    def map(
        self,
        jobs: Iterable[tuple[dict[str, Any], list[Any], float]],
        on_done: Callable[[int, dict[str, Any]], None] | None = None,
        watch: Callable[[int], StreamWatch | None] | None = None,
    ) -> list[dict[str, Any]]:
        """Run (job, inputs, timeout) triples in parallel; replies come back in input order.

        ``watch(index)``, when given, makes the job's ``StreamWatch`` (see ``submit_one``).
        """
        jobs = list(jobs)
        replies: list[dict[str, Any] | None] = [None] * len(jobs)

        def run(index: int) -> None:
            job, inputs, timeout = jobs[index]
            replies[index] = self.submit_one(job, inputs, timeout, watch(index) if watch else None)
            if on_done is not None:
                on_done(index, replies[index])

        # Twice as many threads as workers: while one thread turns a reply into a verdict
        # (``on_done``), another already hands the worker it freed its next job, so no worker
        # idles on the host's bookkeeping.  Still at most ``size`` jobs run at once.
        with ThreadPoolExecutor(max_workers=2 * self.size) as executor:
            futures = [executor.submit(run, index) for index in range(len(jobs))]
            try:
                finished, _ = wait(futures, return_when=FIRST_EXCEPTION)
                failed = [future for future in futures if future in finished and future.exception()]
                if failed:
                    raise failed[0].exception()  # type: ignore[misc]
            except BaseException:
                # A failing on_done (a full disk under the checkpoint) stops the batch now,
                # instead of running every remaining job only to fail to save it.
                for future in futures:
                    future.cancel()
                raise
        return [reply if reply is not None else {"crashed": "no reply"} for reply in replies]

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
        for worker in self._all:
            worker.stop()
