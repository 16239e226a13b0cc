"""What a study pays for, counted where it is paid: LLM answers at the cache, verdicts at the sandbox.

A study is many runs over hours, killed and resumed; "a re-run makes no new request and re-judges no
verdict" must be something a user (and a test) can check, not something we believe.  So:

- ``CountingCache`` is the LLM cache every answer of the study goes through; each answer stored
  (every paid request is stored the moment it arrives) is one line in the study's ``work.log``;
- ``JudgingBackend`` stands in front of the sandbox: each job it sends to the engine is one line in
  ``work.log``, and with a ``store`` it answers from that checkpoint what was judged before (the
  report's answered-the-original re-runs have no run directory of their own).

``work.log`` is append-only JSONL across sessions (``{"session", "stage", "kind", "key", ...}``), so
a job or a request that appears twice is work paid twice, whichever session paid it.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmorph.core.progress import Advance
from benchmorph.data.models import Problem, Verdict
from benchmorph.evaluation.checkpoint import VerdictStore
from benchmorph.execution.backends import ExecutionBackend
from benchmorph.execution.engine import Job, PrepareReport, TimeoutReruns
from benchmorph.execution.limits import Limits
from benchmorph.models.cache import CachedAnswer, LLMCache


@dataclass
class Tally:
    """This session's work: answers paid, answers repeated, verdicts judged and reused."""

    llm_requests: int = 0
    llm_repeats: int = 0  # answers stored under a key the cache already held
    embeddings: int = 0
    verdicts_judged: int = 0
    verdicts_reused: int = 0  # answered from a checkpoint instead of the sandbox
    sets_built: int = 0
    sets_reused: int = 0
    by_stage: dict[str, dict[str, int]] = field(default_factory=dict)

    def count(self, stage: str, kind: str, amount: int = 1) -> None:
        counts = self.by_stage.setdefault(stage, {})
        counts[kind] = counts.get(kind, 0) + amount


class WorkLog:
    """The study's append-only ``work.log``: one JSON line per paid request or judged job."""

    def __init__(self, path: Path, tally: Tally) -> None:
        self.path = path
        self.tally = tally
        self.stage = "start"
        self.session = f"{time.strftime('%Y%m%dT%H%M%S', time.gmtime())}-{os.getpid()}"
        self._lock = threading.Lock()
        path.parent.mkdir(parents=True, exist_ok=True)
        self._handle = path.open("a", encoding="utf-8")

    def write(self, kind: str, **fields: Any) -> None:
        line = json.dumps({"session": self.session, "stage": self.stage, "kind": kind, **fields})
        with self._lock:
            self._handle.write(line + "\n")
            self._handle.flush()  # a SIGKILL loses at most the line being written
            self.tally.count(self.stage, kind)
            if kind == "llm":
                self.tally.llm_requests += 1
                self.tally.llm_repeats += int(bool(fields.get("repeat")))
            elif kind == "embedding":
                self.tally.embeddings += 1
            elif kind == "verdict":
                self.tally.verdicts_judged += 1

    def close(self) -> None:
        with self._lock:
            self._handle.close()


def read_work_log(path: str | Path) -> list[dict[str, Any]]:
    """Every complete line of a work.log (a line cut by a kill is skipped)."""
    rows = []
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return rows


class CountingCache(LLMCache):
    """The LLM cache, counting (and logging) every answer stored: an answer stored is a request paid."""

    def __init__(self, path: str | Path | None, log: WorkLog, *, enabled: bool = True) -> None:
        super().__init__(path, enabled=enabled)
        self.log = log

    def put(self, key: str, model: str, request: dict[str, Any], answer: CachedAnswer) -> None:
        repeat = self.get(key) is not None
        super().put(key, model, request, answer)
        self.log.write("llm", key=key, model=model, repeat=repeat)

    def put_vectors(self, model: str, vectors: dict[str, list[float]]) -> None:
        super().put_vectors(model, vectors)
        for key in vectors:
            self.log.write("embedding", key=key, model=model)


class JudgingBackend:
    """An execution backend in front of the study's engine: logs every job it judges, and with a
    ``store`` answers from it the jobs judged before (keyed as run checkpoints are: content hashes)."""

    def __init__(
        self, inner: ExecutionBackend, log: WorkLog, scope: str, store: VerdictStore | None = None
    ) -> None:
        self.inner = inner
        self.log = log
        self.scope = scope
        self.store = store
        self._reruns = TimeoutReruns()

    @property
    def limits(self) -> Limits:
        return self.inner.limits

    @property
    def reruns(self) -> TimeoutReruns:
        """The last ``evaluate``'s re-runs of timed-out samples: none when every verdict was stored."""
        return self._reruns

    @property
    def isolation(self) -> str:
        return self.inner.isolation

    @property
    def resource_limits(self) -> dict[str, Any]:
        return self.inner.resource_limits

    def check_sandbox(self) -> str:
        return self.inner.check_sandbox()

    def prepare(self, problems: Sequence[Problem], progress: Advance | None = None) -> PrepareReport:
        return self.inner.prepare(problems, progress)

    def verdict_key(self, job: Job) -> str:
        return self.inner.verdict_key(job)

    def evaluate(
        self,
        jobs: Sequence[Job],
        progress: Advance | None = None,
        on_verdict: Callable[[int, Verdict], None] | None = None,
    ) -> list[Verdict]:
        """One verdict per job, in order.  Jobs with equal keys ask the sandbox the same question (the
        memorizer's one answer to two variants of a parent, run on that parent): it is asked once and
        the verdict given to each, under its own task id and index."""
        keys = [self.inner.verdict_key(job) for job in jobs]
        found: list[Verdict | None] = [None] * len(jobs)

        def give(position: int, verdict: Verdict) -> None:
            job = jobs[position]
            found[position] = verdict.model_copy(update={"task_id": job.task_id, "index": job.index})
            if on_verdict is not None:
                on_verdict(position, found[position])  # type: ignore[arg-type]

        if self.store is not None:
            for position, key in enumerate(keys):
                saved = self.store.get(key)
                if saved is not None:
                    give(position, saved)
        reused = sum(1 for verdict in found if verdict is not None)
        self.log.tally.verdicts_reused += reused
        if progress and reused:
            progress(reused)
        waiting: dict[str, list[int]] = {}
        for position, verdict in enumerate(found):
            if verdict is None:
                waiting.setdefault(keys[position], []).append(position)
        asked = list(waiting)

        def done(index: int, verdict: Verdict) -> None:
            key = asked[index]
            if self.store is not None:
                self.store.put(key, verdict)
            for position in waiting[key]:  # the caller's checkpoint first: a kill in between undercounts
                give(position, verdict)
            self.log.write("verdict", scope=self.scope, key=key, index=jobs[waiting[key][0]].index)
            if progress and len(waiting[key]) > 1:
                progress(len(waiting[key]) - 1)

        self._reruns = TimeoutReruns()
        if asked:
            self.inner.evaluate([jobs[waiting[key][0]] for key in asked], progress, done)
            self._reruns = self.inner.reruns
        return [verdict for verdict in found if verdict is not None]

    def close(self) -> None:
        """The engine belongs to the study, not to this view of it: nothing to close."""

    def __enter__(self) -> JudgingBackend:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()
