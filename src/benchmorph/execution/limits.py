"""Resource caps for running model code, with the defaults the EvoEval/EvalPlus papers use."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Limits:
    """Per-sample caps.  Times in seconds, sizes in bytes.

    The per-test time limit is ``max(min_time_limit, time_factor * reference
    time)`` (EvoEval: 1 s and 4x); ``setup_time`` covers importing and
    executing the solution's top level before the first test.  ``memory`` and
    ``processes`` hold for all of a sample's processes together where a cgroup
    is writable (see ``cgroups.py``), else per process (rlimits).
    """

    min_time_limit: float = 1.0
    time_factor: float = 4.0
    setup_time: float = 2.0
    memory: int = 4 * 1024**3
    processes: int = 16
    open_files: int = 64
    file_size: int = 16 * 1024**2
    output: int = 16 * 1024**2
    scratch_size: int = 64 * 1024**2

    def test_time_limit(self, reference_time: float | None) -> float:
        if reference_time is None:
            return self.min_time_limit
        return max(self.min_time_limit, self.time_factor * reference_time)

    def to_worker(self) -> dict[str, int]:
        # Field by field, not dataclasses.asdict: this runs once per sample, and asdict's deep copy
        # of every field was a tenth of the host's time per sample.
        return {
            "memory": self.memory,
            "processes": self.processes,
            "open_files": self.open_files,
            "file_size": self.file_size,
            "output": self.output,
        }


# References run under these caps when their outputs and times are measured:
# generous, since a reference is trusted to be correct, but still bounded.
REFERENCE_LIMITS = Limits(min_time_limit=10.0, time_factor=1.0, setup_time=20.0)

# A traced reference (``Engine.coverage``) runs several times slower than an untraced one.
TRACE_LIMITS = Limits(min_time_limit=20.0, time_factor=1.0, setup_time=20.0)
