"""What one node of a cluster runs: a normal Engine, problems held by content hash, batches of samples.

Kept free of any cluster library so it is the same code a local run uses: the
Ray backend wraps it in an actor, one per node.  The sandbox is checked when
the node starts (``SandboxUnavailable`` fails the whole run closed, as on one
machine), and the worker pool is started then too, so every batch finds it ready.
"""

from __future__ import annotations

import hashlib
import os
import socket
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from benchmorph.data.models import Problem, Verdict
from benchmorph.execution.engine import Engine, Job, PrepareReport, TimeoutReruns
from benchmorph.execution.limits import Limits


def problem_digest(problem: Problem) -> str:
    """Content hash of a prepared problem as a whole (tests, expected outputs and reference times included)."""
    return hashlib.sha256(problem.model_dump_json().encode()).hexdigest()


@dataclass(frozen=True)
class BatchItem:
    """One sample of a batch: where it sits in the run (``position``), its problem's digest, its code."""

    position: int
    problem: str
    code: str
    task_id: str
    index: int


class NodeExecutor:
    """One node's engine: ``workers`` sandboxed workers (default: the node's cores).

    ``engine_options`` are further ``Engine`` keyword arguments, the same on every node.
    """

    def __init__(
        self,
        workers: int | None,
        limits: Limits,
        isolation: str,
        engine_options: Mapping[str, Any] | None = None,
    ) -> None:
        options = dict(engine_options or {})
        self.engine = Engine(workers=workers, limits=limits, isolation=isolation, **options)
        self.problems: dict[str, Problem] = {}

    def ready(self) -> dict[str, Any]:
        """Check the sandbox and start the pool; what this node runs with (raises SandboxUnavailable)."""
        self.engine.check_sandbox()
        pool = self.engine.pool
        return {
            "host": socket.gethostname(),
            "pid": os.getpid(),
            "isolation": pool.isolation,
            "memory_mode": pool.memory_mode,
            "cpu_clock": pool.cpu_clock,
            "workers": pool.size,
        }

    def prepare(self, problems: Sequence[Problem]) -> PrepareReport:
        """Reference outputs and times, from this node's reference cache (by content hash) or measured."""
        return self.engine.prepare(problems)

    def missing(self, digests: Sequence[str]) -> list[str]:
        return [digest for digest in digests if digest not in self.problems]

    def add_problems(self, problems: dict[str, Problem]) -> None:
        self.problems.update(problems)

    def run_batch(self, items: Sequence[BatchItem]) -> tuple[list[tuple[int, Verdict]], TimeoutReruns]:
        """Judge a batch on this node's pool: (position, verdict) for every item, and what re-running
        the batch's timeouts at its end changed."""
        jobs = [Job(self.problems[item.problem], item.code, item.task_id, item.index) for item in items]
        verdicts = self.engine.evaluate(jobs)
        return [
            (item.position, verdict) for item, verdict in zip(items, verdicts, strict=True)
        ], self.engine.reruns

    def close(self) -> None:
        self.engine.close()
