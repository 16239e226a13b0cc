"""The execution backend interface, the local backend, and the registry that picks one by name.

A backend prepares problems (expected outputs and reference times, cached by
content hash) and judges jobs, calling ``on_verdict`` as each verdict is made
so the caller can checkpoint it.  ``Engine`` already has this shape; the local
backend is that engine, and the Ray backend runs one such engine per node.

Backends are found by name in ``EXECUTION_BACKENDS`` (the one registry of
``core.registry``): a factory that takes ``BackendOptions`` and returns a
started backend whose sandbox is checked.  A plug-in backend (a batch
scheduler, a remote sandbox service) registers its factory under the
``benchmorph.execution_backends`` entry point group and is then a value of
``--backend``.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from benchmorph.core.progress import Advance
from benchmorph.core.registry import Registry
from benchmorph.data.errors import InputError
from benchmorph.data.models import Problem, Verdict
from benchmorph.execution.engine import Engine, Job, PrepareReport, TimeoutReruns
from benchmorph.execution.limits import Limits


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


@dataclass(frozen=True)
class BackendOptions:
    """What every backend factory is given: the pool size per node, the limits and isolation of the
    sandbox, the cluster's address (``--ray-address``; ``None`` where a backend runs here), further
    ``Engine`` keyword arguments, and who hears about lost nodes (one line each)."""

    workers: int | None = None
    limits: Limits | None = None
    isolation: str | None = None
    address: str | None = None
    engine_options: Mapping[str, Any] = field(default_factory=dict)
    notify: Callable[[str], None] | None = None


BackendFactory = Callable[[BackendOptions], ExecutionBackend]
EXECUTION_BACKENDS: Registry[BackendFactory] = Registry(
    "execution backend", group="benchmorph.execution_backends", unknown=InputError
)


@EXECUTION_BACKENDS.register("local", summary="this machine's pool of sandboxed workers")
def local_backend(options: BackendOptions) -> ExecutionBackend:
    """The engine on this machine, its sandbox checked."""
    if options.address is not None:
        raise ValueError("--ray-address needs --backend ray")
    backend = LocalBackend(
        Engine(
            workers=options.workers,
            limits=options.limits,
            isolation=options.isolation,
            **options.engine_options,
        )
    )
    backend.check_sandbox()
    return backend


@EXECUTION_BACKENDS.register(
    "ray", summary="one pool per node of a Ray cluster (pip install 'benchmorph[ray]')"
)
def ray_backend(options: BackendOptions) -> ExecutionBackend:
    """One engine per node of a Ray cluster (a Ray instance started here without an address)."""
    if importlib.util.find_spec("ray") is None:
        raise BackendUnavailable("Ray is not installed: pip install 'benchmorph[ray]'")
    from benchmorph.execution.backends.ray_cluster import RayBackend

    backend: ExecutionBackend = RayBackend(
        address=options.address,
        workers=options.workers,
        limits=options.limits,
        isolation=options.isolation,
        engine_options=options.engine_options,
        notify=options.notify,
    )
    return backend


def make_backend(
    name: str,
    *,
    workers: int | None = None,
    limits: Limits | None = None,
    isolation: str | None = None,
    ray_address: str | None = None,
    engine_options: Mapping[str, Any] | None = None,
    notify: Callable[[str], None] | None = None,
) -> ExecutionBackend:
    """The backend called ``name`` (``EXECUTION_BACKENDS``), its sandbox checked (``SandboxUnavailable``
    if it cannot isolate; an ``InputError`` listing the known names for an unknown one).

    ``ray`` needs the optional extra (``pip install benchmorph[ray]``); without
    ``ray_address`` it starts a Ray instance on this machine for the run, and
    ``close()`` shuts it down.  ``workers`` is the pool size on each node; ``engine_options`` are
    further ``Engine`` keyword arguments (the same on every node); ``notify`` hears, one line each,
    about lost nodes.

    >>> from benchmorph.execution.backends import make_backend
    >>> with make_backend("local", workers=2) as backend:  # doctest: +SKIP
    ...     report = backend.prepare(problems)
    """
    options = BackendOptions(
        workers=workers,
        limits=limits,
        isolation=isolation,
        address=ray_address,
        engine_options=dict(engine_options or {}),
        notify=notify,
    )
    return EXECUTION_BACKENDS.get(name)(options)
