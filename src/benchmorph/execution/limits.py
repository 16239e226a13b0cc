"""Resource caps for running model code, with the defaults the EvoEval/EvalPlus papers use."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Limits:
    """Per-sample caps.  Times in seconds, sizes in bytes.

    Time limits are charged in **CPU seconds** of the sample's processes (its
    cgroup's counter, or its process tree where there is no cgroup), so a
    verdict does not move with the machine's load.  The per-test limit is
    ``max(min_time_limit, time_factor * reference time)`` (EvoEval: 1 s and
    4x), the reference's time measured in CPU seconds too; ``setup_time``
    covers importing and executing the solution's top level before the first
    test.  A sample that sleeps or blocks uses no CPU: ``wall_factor`` times
    each limit is the wall-clock backstop that stops it (in wall time less the
    time the sample waited for a CPU; four times that in plain wall time is the
    last resort).

    ``memory`` and ``tasks`` hold for all of a sample's processes together where
    a cgroup is writable (see ``cgroups.py``), else per process (rlimits).
    ``tasks`` counts processes and threads alike (the kernel's pids controller
    and RLIMIT_NPROC count both), so it is generous: a sample with a thread pool,
    or a library that starts a thread per core, stays far under it, and a fork
    bomb still stops there.
    """

    min_time_limit: float = 1.0
    time_factor: float = 4.0
    setup_time: float = 2.0
    wall_factor: float = 3.0
    memory: int = 4 * 1024**3
    tasks: int = 256
    open_files: int = 64
    file_size: int = 16 * 1024**2
    output: int = 16 * 1024**2
    scratch_size: int = 64 * 1024**2

    def test_time_limit(self, reference_time: float | None) -> float:
        """The CPU seconds one test may take, from the reference's CPU seconds on it."""
        if reference_time is None:
            return self.min_time_limit
        return max(self.min_time_limit, self.time_factor * reference_time)

    def to_worker(self) -> dict[str, int]:
        # Field by field, not dataclasses.asdict: this runs once per sample, and asdict's deep copy
        # of every field was a tenth of the host's time per sample.
        return {
            "memory": self.memory,
            "tasks": self.tasks,
            "open_files": self.open_files,
            "file_size": self.file_size,
            "output": self.output,
        }

    def describe(self) -> dict[str, float | int | str]:
        """The limits as a run's manifest records them (times in CPU seconds, sizes in bytes)."""
        return {
            "time_unit": "cpu-seconds",
            "min_time_limit": self.min_time_limit,
            "time_factor": self.time_factor,
            "setup_time": self.setup_time,
            "wall_factor": self.wall_factor,
            "memory": self.memory,
            "tasks": self.tasks,
            "open_files": self.open_files,
            "file_size": self.file_size,
            "output": self.output,
            "scratch_size": self.scratch_size,
        }


# References run under these caps when their outputs and times are measured:
# generous, since a reference is trusted to be correct, but still bounded.
REFERENCE_LIMITS = Limits(min_time_limit=10.0, time_factor=1.0, setup_time=20.0)

# A traced reference (``Engine.coverage``) runs several times slower than an untraced one.
TRACE_LIMITS = Limits(min_time_limit=20.0, time_factor=1.0, setup_time=20.0)
