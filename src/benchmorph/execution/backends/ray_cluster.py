"""The Ray backend: one actor per node holding that node's sandboxed worker pool; batches are the tasks.

Why it is shaped this way:

* **One actor per node**, pinned there (node affinity), each a ``NodeExecutor``
  with a normal ``Engine`` of ``workers`` bwrap workers.  The sandbox the driver
  resolved (``bwrap`` unless ``rlimits`` was asked for by name) is the one every
  node must run: each actor checks it when it starts, and one that cannot isolate
  stops the run (``SandboxUnavailable`` naming the node), exactly as on one machine.
* **References** are measured once per problem, spread over the nodes
  (``prepare``), each node's ``ReferenceCache`` keeping them by content hash, so a
  re-run measures nothing again.  The prepared problems (expected outputs,
  reference times) go into the object store once and each node fetches them once
  and holds them by content hash; a batch names its problems by digest only.
  One measurement per problem for the whole cluster also means one time limit per
  test, whichever node judges the sample.
* **Batches of samples are the tasks.**  Each live actor has ``depth`` batches in
  flight, so its pool never waits for the driver.  Verdicts come back per batch
  and go to ``on_verdict`` at once: the run's checkpoint gets them as they are made.
* **A node or actor that dies** fails its in-flight batches with a Ray actor
  error; they go back to the queue, a replacement actor is started (anywhere
  there is room), and the batches run again elsewhere.  Verdicts are kept by
  sample position and the first one wins, so every sample gets exactly one
  verdict even if a batch that was thought lost still answers.
* **Without an address** a Ray instance is started on this machine for the run
  (``num_cpus`` = ``workers``, in a temporary directory) and shut down by ``close``.
"""

from __future__ import annotations

import logging
import os
import shutil
import socket
import tempfile
import uuid
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import ray
from ray.exceptions import NodeDiedError, ObjectLostError, RayActorError, RayTaskError, WorkerCrashedError
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

from benchmorph.core.progress import Advance
from benchmorph.data.models import Problem, Verdict
from benchmorph.execution.backends.base import BackendLost, BackendUnavailable
from benchmorph.execution.backends.node import BatchItem, NodeExecutor, problem_digest
from benchmorph.execution.engine import Engine, Job, PrepareReport, TimeoutReruns
from benchmorph.execution.limits import Limits
from benchmorph.execution.sandbox import SandboxUnavailable, requested_sandbox

NAMESPACE = "benchmorph"
# Failures that mean "the actor or its node is gone", not "the code raised": the work is retried.
LOST = (RayActorError, WorkerCrashedError, NodeDiedError, ObjectLostError)


def _unreachable(address: str, timeout: float = 5.0) -> str | None:
    """Why a ``host:port`` head cannot be reached, or None (Ray itself would retry for minutes)."""
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit() or "//" in address:
        return None  # "auto", a ray:// client address: left to Ray
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=timeout):
            return None
    except OSError as exc:
        return f"cannot reach the Ray head at {address}: {exc.strerror or exc}"


def _first_line(exc: BaseException) -> str:
    """The first non-empty line of an error (Ray's errors run to pages of advice)."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    return lines[0] if lines else type(exc).__name__


class _RayNode(NodeExecutor):
    """The node executor as a Ray actor: fetches the run's problem table once, on first need."""

    def run_batch_from(
        self, tables: list[Any], items: Sequence[BatchItem]
    ) -> tuple[list[tuple[int, Verdict]], TimeoutReruns]:
        # ``tables`` wraps the ObjectRef in a list so Ray does not fetch it for every batch.
        if self.missing(sorted({item.problem for item in items})):
            self.add_problems(ray.get(tables[0]))
        return self.run_batch(items)


_NODE_CLASS: Any = None


def _node_class() -> Any:
    """``_RayNode`` as a Ray actor class, made once per process."""
    global _NODE_CLASS
    if _NODE_CLASS is None:
        _NODE_CLASS = ray.remote(_RayNode)
    return _NODE_CLASS


@dataclass
class _Slot:
    """One node actor and what the driver knows of it."""

    name: str
    actor: Any
    info: dict[str, Any]
    alive: bool = True
    inflight: int = 0


class RayBackend:
    """Samples judged on every node of a Ray cluster (``address``) or of a Ray instance started here."""

    name = "ray"

    def __init__(
        self,
        address: str | None = None,
        workers: int | None = None,
        limits: Limits | None = None,
        isolation: str | None = None,
        *,
        batch_size: int = 32,
        depth: int = 2,
        replacements: int | None = None,
        engine_options: Mapping[str, Any] | None = None,
        notify: Callable[[str], None] | None = None,
    ) -> None:
        self.limits = limits or Limits()
        # Told (one line) when a node actor is lost and replaced: the user should know the cluster is unwell.
        self._notify = notify or (lambda text: None)
        # Further Engine keyword arguments (e.g. test_details), passed to every node's engine.
        self._engine_options = dict(engine_options or {})
        # Resolved here, once: every node runs the sandbox the driver was asked for, never its own default.
        self._sandbox = requested_sandbox(isolation)
        self._workers = workers
        # What re-running timeouts changed in the last ``evaluate`` (see ``Engine.evaluate``).
        self.reruns = TimeoutReruns()
        self.batch_size = max(1, batch_size)
        self.depth = max(1, depth)
        # Only computes content keys; its own pool is never started.
        self._keys = Engine(
            workers=workers, limits=self.limits, isolation=self._sandbox, **self._engine_options
        )
        self._run = uuid.uuid4().hex[:8]
        self._temp_dir: str | None = None
        self._started = 0
        self._slots: list[_Slot] = []
        self._tables: dict[str, Any] = {}
        self._connect(address)
        try:
            self._start_nodes()
            self._replacements = replacements if replacements is not None else 2 * len(self._slots) + 1
        except BaseException:
            self.close()
            raise

    # ------------------------------------------------------------ cluster

    def _connect(self, address: str | None) -> None:
        options: dict[str, Any] = {
            "namespace": NAMESPACE,
            "log_to_driver": False,
            "logging_level": logging.ERROR,
            "configure_logging": True,
            "include_dashboard": False,
        }
        if address is None:
            # Ray's own defaults otherwise, token authentication included (a token in ~/.ray/auth_token).
            os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
            # Unix socket paths must stay short: a fresh directory directly under /tmp when there is one.
            base = "/tmp" if os.path.isdir("/tmp") else None
            self._temp_dir = tempfile.mkdtemp(prefix="bm-ray-", dir=base)
            cpus = self._workers or os.cpu_count() or 1
            try:
                ray.init(num_cpus=cpus, _temp_dir=self._temp_dir, **options)
            except Exception as exc:  # noqa: BLE001 - whatever stops Ray from starting ends the run
                self.close()
                raise BackendUnavailable(f"cannot start a local Ray instance: {_first_line(exc)}") from exc
        else:
            options.pop("include_dashboard")
            unreachable = _unreachable(address)
            if unreachable:
                raise BackendUnavailable(unreachable)
            try:
                ray.init(address=address, **options)
            except Exception as exc:  # noqa: BLE001 - an unreachable or refusing cluster ends the run
                self.close()
                raise BackendUnavailable(f"cannot connect to the Ray cluster: {_first_line(exc)}") from exc

    @property
    def owns_cluster(self) -> bool:
        """True when this backend started the Ray instance (and ``close`` stops it)."""
        return self._temp_dir is not None

    def _new_actor(self, node_id: str | None, cpus: float) -> _Slot:
        self._started += 1
        name = f"benchmorph-{self._run}-node-{self._started}"
        options: dict[str, Any] = {"name": name, "num_cpus": cpus, "max_restarts": 0, "max_concurrency": 2}
        if node_id is not None:
            options["scheduling_strategy"] = NodeAffinitySchedulingStrategy(node_id, soft=False)
        actor = (
            _node_class()
            .options(**options)
            .remote(self._workers, self.limits, self._sandbox, self._engine_options)
        )
        return _Slot(name, actor, {})

    def _cpus_for(self, node_cpus: float) -> float:
        wanted = float(self._workers) if self._workers else node_cpus
        return max(0.0, min(wanted, node_cpus))

    def _start_nodes(self) -> None:
        nodes = [node for node in ray.nodes() if node.get("Alive") and node["Resources"].get("CPU", 0) > 0]
        if not nodes:
            raise BackendLost("the Ray cluster has no live node with CPUs")
        slots = [self._new_actor(node["NodeID"], self._cpus_for(node["Resources"]["CPU"])) for node in nodes]
        infos = self._await_ready(slots)
        for slot, info in zip(slots, infos, strict=True):
            slot.info = info
        self._slots = slots
        modes = {(info["isolation"]) for info in infos}
        if modes != {self._sandbox}:
            raise SandboxUnavailable(f"Ray nodes run {sorted(modes)}, not the requested {self._sandbox}")

    def _await_ready(self, slots: Sequence[_Slot]) -> list[dict[str, Any]]:
        """Each actor's sandbox check; one that cannot isolate fails the run closed, naming its node."""
        infos = []
        for slot in slots:
            try:
                infos.append(ray.get(slot.actor.ready.remote()))
            except RayTaskError as exc:
                cause = exc.cause if isinstance(getattr(exc, "cause", None), BaseException) else exc
                if isinstance(cause, SandboxUnavailable):
                    raise SandboxUnavailable(f"Ray node actor {slot.name}: {cause}") from None
                raise
        return infos

    def _replace(self, dead: _Slot) -> None:
        """Start an actor in place of a dead one, wherever the cluster has room for it."""
        dead.alive = False
        host = dead.info.get("host", "?")
        if self._replacements <= 0:
            self._notify(f"Ray node actor {dead.name} on {host} was lost; no replacements left")
            return
        self._replacements -= 1
        cpus = float(dead.info.get("workers") or self._workers or 1)
        slot = self._new_actor(None, cpus)
        try:
            slot.info = self._await_ready([slot])[0]
        except LOST:
            self._notify(f"Ray node actor {dead.name} on {host} was lost and its replacement did not start")
            return
        if slot.info["isolation"] != self._sandbox:
            raise SandboxUnavailable(f"Ray node actor {slot.name} runs {slot.info['isolation']}")
        self._slots.append(slot)
        self._notify(
            f"Ray node actor {dead.name} on {host} was lost; replaced by {slot.name} on "
            f"{slot.info.get('host', '?')}, its batches run again there"
        )

    def actor_names(self) -> list[str]:
        """Names of the live node actors (namespace ``benchmorph``)."""
        return [slot.name for slot in self._slots if slot.alive]

    # ----------------------------------------------------- the interface

    @property
    def nodes(self) -> list[dict[str, Any]]:
        """What each live node actor reported when it started: host, isolation, memory mode, workers."""
        return [dict(slot.info) for slot in self._slots if slot.alive]

    @property
    def isolation(self) -> str:
        return self._sandbox

    @property
    def memory_mode(self) -> str:
        """How memory is capped; where nodes differ, the weakest (``rlimits``) is what holds for every sample."""
        modes = {slot.info.get("memory_mode", "rlimits") for slot in self._slots}
        return modes.pop() if len(modes) == 1 else "rlimits"

    @property
    def resource_limits(self) -> dict[str, Any]:
        clocks = {slot.info.get("cpu_clock", "process-tree") for slot in self._slots}
        return {
            "mode": self.memory_mode,
            "mb": self.limits.memory // 2**20,
            "tasks": self.limits.tasks,
            # Where nodes differ, the weakest (the process tree) is what holds for every sample.
            "cpu_clock": clocks.pop() if len(clocks) == 1 else "process-tree",
        }

    def check_sandbox(self) -> str:
        """Checked on every node when its actor started; here only the answer is given."""
        return self._sandbox

    def verdict_key(self, job: Job) -> str:
        return self._keys.verdict_key(job, sandbox=[self._sandbox, self.memory_mode])

    def prepare(self, problems: Sequence[Problem], progress: Advance | None = None) -> PrepareReport:
        """Reference outputs and times, each problem measured once on some node (its cache by content hash)."""
        chunks = [list(problems[i : i + 8]) for i in range(0, len(problems), 8)]
        reports: list[PrepareReport | None] = [None] * len(chunks)

        def done(number: int, report: PrepareReport) -> None:
            reports[number] = report
            if progress:
                progress(len(chunks[number]))

        self._dispatch(len(chunks), lambda slot, n: slot.actor.prepare.remote(chunks[n]), done)
        merged = PrepareReport(problems=[])
        prepared: dict[str, Problem] = {}
        for report in reports:
            assert report is not None
            prepared.update({problem.id: problem for problem in report.problems})
            merged.dropped_tests.update(report.dropped_tests)
            merged.oracle_failures.update(report.oracle_failures)
            merged.unusable.update(report.unusable)
            merged.cached += report.cached
            merged.measured += report.measured
        merged.problems = [prepared[problem.id] for problem in problems if problem.id in prepared]
        return merged

    def evaluate(
        self,
        jobs: Sequence[Job],
        progress: Advance | None = None,
        on_verdict: Callable[[int, Verdict], None] | None = None,
    ) -> list[Verdict]:
        """One verdict per job, in order; each handed to ``on_verdict`` once, as its batch returns.

        Each node re-runs its batch's timeouts at the batch's end (``Engine.evaluate``); ``reruns``
        adds up what that changed over the call.
        """
        digests: dict[int, str] = {}
        table: dict[str, Problem] = {}
        items = []
        for position, job in enumerate(jobs):
            digest = digests.get(id(job.problem))
            if digest is None:
                digest = digests[id(job.problem)] = problem_digest(job.problem)
                table[digest] = job.problem
            items.append(BatchItem(position, digest, job.code, job.task_id, job.index))
        tables = [ray.put(table)]
        batches = [items[i : i + self.batch_size] for i in range(0, len(items), self.batch_size)]
        verdicts: list[Verdict | None] = [None] * len(jobs)
        self.reruns = TimeoutReruns()

        def done(_number: int, answer: tuple[list[tuple[int, Verdict]], TimeoutReruns]) -> None:
            results, reruns = answer
            self.reruns.add(reruns)
            fresh = 0
            for position, verdict in results:
                if verdicts[position] is None:  # the first answer wins: exactly one verdict per sample
                    verdicts[position] = verdict
                    fresh += 1
                    if on_verdict:
                        on_verdict(position, verdict)
            if progress and fresh:
                progress(fresh)

        self._dispatch(
            len(batches), lambda slot, n: slot.actor.run_batch_from.remote(tables, batches[n]), done
        )
        missing = [position for position, verdict in enumerate(verdicts) if verdict is None]
        if missing:
            raise BackendLost(f"{len(missing)} samples got no verdict")
        return [verdict for verdict in verdicts if verdict is not None]

    def _dispatch(
        self, count: int, submit: Callable[[_Slot, int], Any], done: Callable[[int, Any], None]
    ) -> None:
        """Run tasks ``0..count-1`` on the live actors, ``depth`` at a time each; retry lost ones elsewhere."""
        pending = deque(range(count))
        finished: set[int] = set()
        inflight: dict[Any, tuple[_Slot, int]] = {}
        while pending or inflight:
            for slot in [slot for slot in self._slots if slot.alive]:
                while pending and slot.inflight < self.depth:
                    number = pending.popleft()
                    inflight[submit(slot, number)] = (slot, number)
                    slot.inflight += 1
            if not inflight:
                raise BackendLost(
                    f"every Ray node actor died; {len(pending)} of {count} tasks were not run "
                    "(verdicts already made are checkpointed: run again to resume)"
                )
            ready, _ = ray.wait(list(inflight), num_returns=1)
            for ref in ready:
                slot, number = inflight.pop(ref)
                slot.inflight -= 1
                try:
                    result = ray.get(ref)
                except LOST:
                    if number not in finished:
                        pending.appendleft(number)
                    if slot.alive:
                        self._replace(slot)
                    continue
                if number not in finished:
                    finished.add(number)
                    done(number, result)

    # ------------------------------------------------------------ closing

    def close(self) -> None:
        """Stop the node actors (their worker pools first); shut down the Ray instance if this backend started it."""
        live = [slot for slot in self._slots if slot.alive]
        if live and ray.is_initialized():
            closing = [slot.actor.close.remote() for slot in live]
            try:
                ray.wait(closing, num_returns=len(closing), timeout=30)
            except Exception:  # noqa: BLE001 - a node already gone has nothing left to close
                pass
            for slot in live:
                try:
                    ray.kill(slot.actor)
                except Exception:  # noqa: BLE001 - already gone is as good as stopped
                    pass
        self._slots = []
        if ray.is_initialized():
            ray.shutdown()
        if self._temp_dir is not None:
            shutil.rmtree(self._temp_dir, ignore_errors=True)
            self._temp_dir = None

    def __enter__(self) -> RayBackend:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()
