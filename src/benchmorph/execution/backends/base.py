"""The execution backend interface, the local backend, and the factory that picks one by name.

A backend prepares problems (expected outputs and reference times, cached by
content hash) and judges jobs, calling ``on_verdict`` as each verdict is made
so the caller can checkpoint it.  ``Engine`` already has this shape; the local
backend is that engine, and the Ray backend runs one such engine per node.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal, Protocol, runtime_checkable

from benchmorph.core.progress import Advance
from benchmorph.data.models import Problem, Verdict
from benchmorph.execution.engine import Engine, Job, PrepareReport, TimeoutReruns
from benchmorph.execution.limits import Limits

BackendName = Literal["local", "ray"]
BACKENDS: tuple[str, ...] = ("local", "ray")


class BackendLost(RuntimeError):
    """The backend lost every place it could run samples (all Ray node actors died, none could replace
    them).  Verdicts made before are in the run's checkpoint: running again resumes from them."""


class BackendUnavailable(RuntimeError):
    """The backend cannot start: its library is missing, or the cluster cannot be reached or started."""


@runtime_checkable
class ExecutionBackend(Protocol):
    """What the run use cases need from whatever runs the samples.

    ``evaluate`` returns exactly one verdict per job, in order, and calls
    ``on_verdict(index, verdict)`` once per job as it is made.
    ``verdict_key`` is the checkpoint key of a job's verdict: equal keys mean
    the same question asked of the same sandbox.  ``reruns`` says what the
    last ``evaluate`` call's re-run of timed-out samples changed.
    """

    @property
    def limits(self) -> Limits: ...

    @property
    def reruns(self) -> TimeoutReruns: ...

    @property
    def isolation(self) -> str: ...

    @property
    def resource_limits(self) -> dict[str, Any]: ...

    def check_sandbox(self) -> str: ...

    def prepare(self, problems: Sequence[Problem], progress: Advance | None = None) -> PrepareReport: ...

    def evaluate(
        self,
        jobs: Sequence[Job],
        progress: Advance | None = None,
        on_verdict: Callable[[int, Verdict], None] | None = None,
    ) -> list[Verdict]: ...

    def verdict_key(self, job: Job) -> str: ...

    def close(self) -> None: ...

    def __enter__(self) -> Any: ...

    def __exit__(self, *_exc: object) -> None: ...


class LocalBackend:
    """Today's engine on this machine: one worker pool of ``--workers`` sandboxed workers."""

    name = "local"

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    @property
    def isolation(self) -> str:
        return self.engine.isolation

    @property
    def resource_limits(self) -> dict[str, Any]:
        return self.engine.resource_limits

    @property
    def limits(self) -> Limits:
        return self.engine.limits

    @property
    def reruns(self) -> TimeoutReruns:
        return self.engine.reruns

    def check_sandbox(self) -> str:
        return self.engine.check_sandbox()

    def prepare(self, problems: Sequence[Problem], progress: Advance | None = None) -> PrepareReport:
        return self.engine.prepare(problems, progress)

    def evaluate(
        self,
        jobs: Sequence[Job],
        progress: Advance | None = None,
        on_verdict: Callable[[int, Verdict], None] | None = None,
    ) -> list[Verdict]:
        return self.engine.evaluate(jobs, progress, on_verdict)

    def verdict_key(self, job: Job) -> str:
        return self.engine.verdict_key(job)

    def close(self) -> None:
        self.engine.close()

    def __enter__(self) -> LocalBackend:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()


def make_backend(
    name: str,
    *,
    workers: int | None = None,
    limits: Limits | None = None,
    isolation: str | None = None,
    ray_address: str | None = None,
    engine_options: Mapping[str, Any] | None = None,
    notify: Callable[[str], None] | None = None,
) -> LocalBackend | Any:
    """The backend called ``name``, its sandbox checked (``SandboxUnavailable`` if it cannot isolate).

    ``ray`` needs the optional extra (``pip install benchmorph[ray]``); without
    ``ray_address`` it starts a Ray instance on this machine for the run, and
    ``close()`` shuts it down.  ``workers`` is the pool size on each node; ``engine_options`` are
    further ``Engine`` keyword arguments (the same on every node); ``notify`` hears, one line each,
    about lost nodes.
    """
    if name == "local":
        if ray_address is not None:
            raise ValueError("--ray-address needs --backend ray")
        options = dict(engine_options or {})
        backend = LocalBackend(Engine(workers=workers, limits=limits, isolation=isolation, **options))
        backend.check_sandbox()
        return backend
    if name == "ray":
        if importlib.util.find_spec("ray") is None:
            raise BackendUnavailable("Ray is not installed: pip install 'benchmorph[ray]'")
        from benchmorph.execution.backends.ray_cluster import RayBackend

        return RayBackend(
            address=ray_address,
            workers=workers,
            limits=limits,
            isolation=isolation,
            engine_options=engine_options,
            notify=notify,
        )
    raise ValueError(f"unknown backend {name!r}: choose one of {', '.join(BACKENDS)}")
