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

from benchmorph.execution.cgroups import detect as detect_cgroups
from benchmorph.execution.protocol import WorkerJob, WorkerReply
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
        # What charges a sample's CPU time (time limits): the cgroup's counter, or its process tree.
        self.cpu_clock = self.cgroups.cpu_clock if self.cgroups else "process-tree"
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

    def submit_one(self, job: WorkerJob, watch: StreamWatch | None = None) -> WorkerReply:
        """Run one job on an idle worker; returns the worker's reply (``crashed`` set when it was lost).

        ``watch`` sees the results as they stream and may stop the job early (``StreamWatch``).
        """
        worker = self._idle.get()
        try:
            return self._run(worker, job, watch)
        finally:
            self._idle.put(worker)

    def _run(self, worker: WorkerProcess, job: WorkerJob, watch: StreamWatch | None = None) -> WorkerReply:
        key = job.inputs_key
        with_inputs = key is None or key not in worker.known_inputs
        for _attempt in range(2):
            try:
                reply = worker.request(job, with_inputs, watch)
            except WorkerCrashed as exc:
                return WorkerReply.lost(str(exc))
            if reply.need_inputs:
                with_inputs = True
                continue
            if key is not None:
                worker.known_inputs.add(key)
            return reply
        return WorkerReply.lost("worker lost the test inputs")

    def map(
        self,
        jobs: Iterable[WorkerJob],
        on_done: Callable[[int, WorkerReply], None] | None = None,
        watch: Callable[[int], StreamWatch | None] | None = None,
        concurrency: int | None = None,
    ) -> list[WorkerReply]:
        """Run jobs in parallel; replies come back in input order.

        ``watch(index)``, when given, makes the job's ``StreamWatch`` (see ``submit_one``).
        ``concurrency`` caps how many jobs run at once (default: every worker).
        """
        jobs = list(jobs)
        replies: list[WorkerReply | None] = [None] * len(jobs)
        running = threading.BoundedSemaphore(concurrency) if concurrency else None

        def run(index: int) -> None:
            if running is not None:
                with running:
                    reply = self.submit_one(jobs[index], watch(index) if watch else None)
            else:
                reply = self.submit_one(jobs[index], watch(index) if watch else None)
            replies[index] = reply
            if on_done is not None:
                on_done(index, reply)

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
        return [reply if reply is not None else WorkerReply.lost("no reply") for reply in replies]

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
        for worker in self._all:
            worker.stop()
