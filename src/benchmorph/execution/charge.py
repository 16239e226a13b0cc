"""What one caller's sandbox jobs cost, in seconds that do not grow with the machine's load.

A caller that shares the workers with others (``testgen.augment`` searches
several problems at once over one pool) cannot bound its work by the wall
clock: its jobs wait behind the others' and its samples wait for a CPU on a
busy machine, so a wall-clock budget stops it after less work the busier the
machine is.  A :class:`CpuCharge` handed to ``Engine.run_inputs``,
``coverage`` or ``evaluate`` adds up what each of the caller's jobs cost
instead: the CPU seconds its sample's processes used (the worker's own
counter, the one time limits are charged by), plus, for a test stopped by the
wall-clock backstop (a sample that waits without using the CPU), that test's
time limit, as though it had used it; a job with no CPU figure (a lost
worker) is charged its wall seconds.
"""

from __future__ import annotations

import threading

from benchmorph.execution.protocol import WorkerJob, WorkerReply

__all__ = ["CpuCharge", "job_charge"]


def job_charge(job: WorkerJob, reply: WorkerReply) -> float:
    """The seconds one job costs its caller (see the module docstring)."""
    if reply.cpu is None:
        return reply.wall
    seconds = reply.cpu
    if reply.timeout_by == "wall":
        stopped = reply.timeout_in
        if isinstance(stopped, int) and 0 <= stopped < len(job.timeouts):
            seconds += job.timeouts[stopped]
        else:
            seconds += job.setup_time
    return seconds


class CpuCharge:
    """A running total of :func:`job_charge` over the jobs it is handed, safe to share between threads."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.jobs = 0
        self._lock = threading.Lock()

    def add(self, job: WorkerJob, reply: WorkerReply) -> None:
        seconds = job_charge(job, reply)
        with self._lock:
            self.seconds += seconds
            self.jobs += 1
