"""The execution engine's public face: prepare problems, then judge solutions.

``prepare`` runs each trusted reference once (in the sandbox all the same) to
get expected outputs and per-test reference times, cached by the content hash
of the problem, never by file path.  ``evaluate`` runs samples and judges them
with time limits derived from those reference times.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from benchmorph.core.progress import Advance
from benchmorph.data import values
from benchmorph.data.models import Problem, TestCase, Verdict
from benchmorph.data.paths import cache_dir
from benchmorph.data.storage import space_for, write_text_atomic
from benchmorph.execution.charge import CpuCharge
from benchmorph.execution.compare import show_value
from benchmorph.execution.limits import REFERENCE_LIMITS, TRACE_LIMITS, Limits
from benchmorph.execution.pool import WorkerPool
from benchmorph.execution.protocol import TestRecord, WorkerJob, WorkerReply
from benchmorph.execution.replies import StreamWatch
from benchmorph.execution.sandbox import isolation_mode
from benchmorph.execution.verdicts import FirstFailure, build_verdict, oracle_accepts

# Bump when the way references are run or measured changes: old cache entries then miss.
# 3: reference times are CPU seconds; samples run with plain Python semantics.
REFERENCE_PROTOCOL = 3
# Bump when the way answers are judged changes: checkpointed verdicts then miss.
# 2: oracle problems are judged by the oracle alone; comparisons never raise.
# 3: time limits in CPU seconds, timeouts re-run; plain Python semantics (no inherited future flags).
JUDGING_PROTOCOL = 3

sys.set_int_max_str_digits(0)


@dataclass
class PrepareReport:
    """What preparing a benchmark did: problems ready to evaluate, and what was dropped and why."""

    problems: list[Problem]
    dropped_tests: dict[str, list[str]] = field(default_factory=dict)
    # The subset of dropped_tests whose reference answer fails the problem's own oracle:
    # the data's reference is wrong there, which users should hear about by name.
    oracle_failures: dict[str, list[str]] = field(default_factory=dict)
    unusable: dict[str, str] = field(default_factory=dict)
    cached: int = 0
    measured: int = 0


@dataclass
class RunOutputs:
    """Outputs of one piece of code per test input; ``ok[i]`` is False where it raised or timed out."""

    outputs: list[Any]
    ok: list[bool]
    error: str | None = None  # the code did not load at all


@dataclass
class InputRun:
    """What one piece of code did on one input (``Engine.run_inputs``).

    ``status``: ``ok`` (returned ``output``), ``error`` (raised, or its output
    cannot be carried; ``error`` says what), ``timeout`` or ``not-run``.
    ``time``: CPU seconds (the unit of time limits).
    ``coverage``: the executed lines and arcs, for traced runs that returned.
    """

    status: str
    output: Any = None
    time: float | None = None
    error: str | None = None
    coverage: frozenset | None = None

    @property
    def ok(self) -> bool:
        return self.status == "ok"


@dataclass
class TimeoutReruns:
    """What re-running the timed-out samples at the end of an ``evaluate`` did.

    ``rerun``: samples that timed out and were run again; ``changed``: those
    whose verdict the re-run changed (the flake rate is ``changed / rerun``),
    named in ``changed_ids`` (``task_id#index``).
    """

    rerun: int = 0
    changed: int = 0
    changed_ids: list[str] = field(default_factory=list)

    def add(self, other: TimeoutReruns) -> None:
        self.rerun += other.rerun
        self.changed += other.changed
        self.changed_ids += other.changed_ids


@dataclass
class ReferenceRun:
    """What one reference run gave: a record per test (None: timed out or not run), or why it gave none.

    ``results`` is None for a problem whose tests already have expected
    outputs and no reference to run.  Stored in the reference cache as JSON
    (``to_json``), records in their wire form, read back through the same
    checks as a worker's (a damaged entry is a miss).
    """

    results: list[TestRecord | None] | None = None
    timeout_in: int | None = None
    error: str | None = None

    def to_json(self) -> dict[str, Any]:
        if self.error is not None:
            return {"error": self.error}
        entry: dict[str, Any] = {
            "results": None if self.results is None else [r.to_wire() if r else None for r in self.results]
        }
        if self.timeout_in is not None:
            entry["timeout_in"] = self.timeout_in
        return entry

    @classmethod
    def from_json(cls, entry: object) -> ReferenceRun | None:
        if not isinstance(entry, dict):
            return None
        if isinstance(entry.get("error"), str):
            return cls(error=entry["error"])
        raw = entry.get("results")
        if raw is None:
            return cls() if "results" in entry else None
        if not isinstance(raw, list):
            return None
        results: list[TestRecord | None] = []
        for index, wire in enumerate(raw):
            record = TestRecord.from_wire(wire, index) if isinstance(wire, dict) else None
            if wire is not None and record is None:
                return None
            results.append(record)
        stopped = entry.get("timeout_in")
        return cls(results, stopped if isinstance(stopped, int) else None)

    @classmethod
    def from_reply(cls, reply: WorkerReply) -> ReferenceRun:
        failed = reply.failed_to_run
        if failed is not None:
            return cls(error=failed)
        if reply.timeout_in == "setup":
            return cls(error="reference did not load in time")
        if reply.violation:
            return cls(error=reply.violation)
        return cls(list(reply.results), reply.timeout_in if isinstance(reply.timeout_in, int) else None)


@dataclass(frozen=True)
class Job:
    """A solution to run for one problem; ``task_id``/``index`` name the sample."""

    problem: Problem
    code: str
    task_id: str
    index: int = 0


def _reference_code(problem: Problem) -> str:
    if problem.contract:
        from benchmorph.data.formats.evalplus import reference_with_contract

        return reference_with_contract(problem)
    return problem.reference


class ReferenceCache:
    """Reference outputs and times on disk, one private JSON file per problem content hash."""

    def __init__(self, root: Path | None = None) -> None:
        self.root = (root or cache_dir()) / "references"

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> ReferenceRun | None:
        try:
            entry = json.loads(self._path(key).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        # A damaged entry is a miss (measured again), never a crash or a wrong answer.
        return ReferenceRun.from_json(entry)

    def put(self, key: str, entry: ReferenceRun) -> None:
        path = self._path(key)
        with space_for(path):  # a full disk: one DiskFull naming the file, and no temporary left
            path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        write_text_atomic(path, json.dumps(entry.to_json()), mode=0o600)


class Engine:
    """Sandboxed execution of solutions against problems, with a pool of workers."""

    def __init__(
        self,
        workers: int | None = None,
        limits: Limits | None = None,
        isolation: str | None = None,
        cache_root: Path | None = None,
        test_details: bool = True,
        rerun_timeouts: bool = True,
    ) -> None:
        """``test_details=False``: ``evaluate`` stops each sample at its first failing test.

        The verdict's status is the same either way (the first test that does
        not pass decides it); only the per-test table is left out, and the
        tests after a failure are not run, which is most of the time spent on
        wrong answers.  Validation (mutant kills) needs every test: the default.

        ``rerun_timeouts``: a sample that times out in ``evaluate`` is run once
        more at the end, on a quieter pool, and that run's verdict is final
        (``reruns`` counts what it changed).
        """
        self.limits = limits or Limits()
        self.test_details = test_details
        self.rerun_timeouts = rerun_timeouts
        # What the last ``evaluate`` call's re-run of timeouts did.
        self.reruns = TimeoutReruns()
        self._workers = workers
        self._isolation = isolation
        self._pool: WorkerPool | None = None
        self.references = ReferenceCache(cache_root)
        self._memo: dict[tuple[str, int], tuple[Problem, Any]] = {}

    @property
    def pool(self) -> WorkerPool:
        if self._pool is None:
            self._pool = WorkerPool(self._workers, self._isolation, self.limits.scratch_size)
        return self._pool

    @property
    def isolation(self) -> str:
        return self.pool.isolation

    @property
    def resource_limits(self) -> dict[str, Any]:
        """The per-sample caps on memory, tasks and time, and how they are enforced.

        ``mode`` is ``cgroup-v2`` or ``cgroup-v1`` when one cgroup per worker
        caps a sample's processes together, or ``rlimits`` when each process
        is capped alone (a sample that forks can then use a multiple of ``mb``).
        ``tasks`` caps processes and threads together.  ``cpu_clock`` is what
        charges time limits: the cgroup's CPU counter, or ``process-tree``.
        """
        return {
            "mode": self.pool.memory_mode,
            "mb": self.limits.memory // 2**20,
            "tasks": self.limits.tasks,
            "cpu_clock": self.pool.cpu_clock,
        }

    def check_sandbox(self) -> str:
        """Start nothing yet, but make sure the requested sandbox can run here (raises SandboxUnavailable)."""
        return isolation_mode(self._isolation)

    def __enter__(self) -> Engine:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._pool is not None:
            self._pool.close()
            self._pool = None

    # ------------------------------------------------------------ jobs

    def _per_problem(self, name: str, problem: Problem, compute: Callable[[], Any]) -> Any:
        """``compute()`` once per (name, problem object).

        The problem object itself is held in the memo so its id cannot be reused
        by another problem while the entry lives.
        """
        cached = self._memo.get((name, id(problem)))
        if cached is None or cached[0] is not problem:
            cached = (problem, compute())
            self._memo[(name, id(problem))] = cached
        return cached[1]

    def _encoded_inputs(self, problem: Problem) -> tuple[str, list[Any]]:
        """Encoded test inputs and a content key for them."""

        def compute() -> tuple[str, list[Any]]:
            if problem.kind == "stdin":
                encoded = [test.input for test in problem.tests]
            else:
                encoded = [values.encode(test.input) for test in problem.tests]
            blob = json.dumps([problem.kind, encoded], sort_keys=True).encode()
            return hashlib.sha256(blob).hexdigest(), encoded

        return self._per_problem("inputs", problem, compute)

    def _job(self, problem: Problem, code: str, limits: Limits, job_id: str) -> WorkerJob:
        key, inputs = self._encoded_inputs(problem)
        timeouts = [limits.test_time_limit(test.ref_time) for test in problem.tests]
        return _worker_job(problem, code, limits, job_id, key, inputs, timeouts)

    # ------------------------------------------------------ single inputs

    def run_inputs(
        self,
        problem: Problem,
        inputs: Sequence[Any],
        *,
        code: str | None = None,
        limits: Limits | None = None,
        trace: bool = False,
        charge: CpuCharge | None = None,
    ) -> list[InputRun]:
        """What ``code`` (default: the reference, its contract active) does on each input: one InputRun each.

        For checking candidate test inputs before they become tests, many at a
        time in one sandbox job: unlike ``prepare``, a timeout does not end the
        batch (the inputs after it run in a new job), and every input gets its
        own status, output and error.  ``limits`` (default: the engine's) give
        each input ``limits.test_time_limit(None)``.  ``trace`` also records,
        per input that returned, the lines and arcs of ``code`` it executed.
        ``charge`` adds what each sandbox job cost (``execution.charge``).
        """
        limits = limits or self.limits
        if code is None:
            code = _reference_code(problem)
        encoded = [text if problem.kind == "stdin" else values.encode(text) for text in inputs]
        runs: list[InputRun] = [InputRun("not-run") for _ in encoded]
        start = 0
        while start < len(encoded):
            rest = encoded[start:]
            timeouts = [limits.test_time_limit(None)] * len(rest)
            # No inputs key: candidate inputs are seen once, so workers should not keep them.
            job = _worker_job(problem, code, limits, f"{problem.id}@inputs", None, rest, timeouts)
            job.trace = trace
            reply = self.pool.submit_one(job)
            if charge is not None:
                charge.add(job, reply)
            # A violation (too much output) ends the job at one input; the others still count.
            entry = ReferenceRun.from_reply(replace(reply, violation=None))
            if entry.error is not None:
                for index in range(start, len(encoded)):
                    runs[index] = InputRun("error", error=entry.error)
                break
            results = entry.results or []
            stopped = entry.timeout_in
            following = len(encoded)
            for offset, record in enumerate(results):
                if record is None:
                    following = start + offset
                    break
                runs[start + offset] = _input_run(problem, record)
            else:
                following = start + len(results)
            if stopped is not None:
                runs[start + stopped] = InputRun("timeout", error="time limit exceeded")
                following = start + stopped + 1
            elif following < len(encoded) and reply.violation:
                runs[following] = InputRun("error", error=reply.violation)
                following += 1
            if following <= start:  # nothing ran and nothing said why: do not loop
                for index in range(start, len(encoded)):
                    runs[index] = InputRun("error", error="the reference stopped without a result")
                break
            start = following
        return runs

    def coverage(
        self,
        problem: Problem,
        inputs: Sequence[Any],
        limits: Limits | None = None,
        charge: CpuCharge | None = None,
    ) -> list[frozenset]:
        """Per input, the reference's own lines and arcs it executes (empty where it raised or timed out).

        Items are ``("line", n)`` and ``("arc", from, to)``; an arc from or to
        ``-first_line`` of a function is its entry or return.  Measured inside
        the sandbox with ``sys.settrace`` (the jail has no coverage package),
        on the reference without its contract (the inputs are already known
        valid), so line numbers are those of ``problem.reference``.
        """
        runs = self.run_inputs(
            problem, inputs, code=problem.reference, limits=limits or TRACE_LIMITS, trace=True, charge=charge
        )
        return [run.coverage or frozenset() for run in runs]

    # ------------------------------------------------------------ prepare

    def prepare(self, problems: Sequence[Problem], progress: Advance | None = None) -> PrepareReport:
        """Fill expected outputs and reference times; drop tests the reference cannot run.

        A test whose input the reference rejects (a contract assert, an
        exception, a timeout) cannot have a trustworthy expected output, so it
        is dropped and listed in the report rather than silently kept.  So is a
        test of a problem with an oracle where the reference's answer fails that
        oracle (also listed in ``oracle_failures``): samples are judged by the
        oracle alone, and a test the reference cannot pass is not a fair one.
        """
        report = PrepareReport(problems=[])
        pending: list[tuple[Problem, str, str]] = []  # problem, cache key, code to run
        ready: dict[str, ReferenceRun] = {}
        for problem in problems:
            if not problem.reference.strip():
                if all(test.has_expected for test in problem.tests):
                    ready[problem.id] = ReferenceRun()
                else:
                    report.unusable[problem.id] = "no reference solution and no expected outputs"
                continue
            key = f"{REFERENCE_PROTOCOL}-{problem.content_hash()}"
            entry = self.references.get(key)
            if entry is not None:
                ready[problem.id] = entry
                report.cached += 1
                if progress:
                    progress(1)
            else:
                try:
                    code = _reference_code(problem)
                except ValueError as exc:  # e.g. a reference that does not parse cannot take a contract
                    report.unusable[problem.id] = f"reference unusable: {exc}"
                    if progress:
                        progress(1)
                    continue
                pending.append((problem, key, code))

        jobs = [self._job(problem, code, REFERENCE_LIMITS, problem.id) for problem, _, code in pending]

        def done(index: int, reply: WorkerReply) -> None:
            # Saved as each reference finishes, so an interrupted prepare resumes where it stopped.
            problem, key, _ = pending[index]
            entry = self._past_timeouts(problem, ReferenceRun.from_reply(reply))
            if reply.crashed is None:
                self.references.put(key, entry)
            ready[problem.id] = entry
            if progress:
                progress(1)

        if jobs:
            self.pool.map(jobs, done)
        report.measured = len(jobs)

        for problem in problems:
            if problem.id in report.unusable:
                continue
            entry = ready[problem.id]
            if entry.error is not None:
                report.unusable[problem.id] = f"reference failed: {entry.error}"
                continue
            kept, dropped, wrong = _apply_reference(problem, entry)
            if dropped:
                report.dropped_tests[problem.id] = dropped
            if wrong:
                report.oracle_failures[problem.id] = wrong
            if not kept:
                report.unusable[problem.id] = "the reference fails on every test input"
                continue
            report.problems.append(problem.model_copy(update={"tests": kept}))
        return report

    def _past_timeouts(self, problem: Problem, entry: ReferenceRun, rounds: int = 3) -> ReferenceRun:
        """Run the tests after a reference timeout again, so one slow input does not cost all later ones.

        The worker stops a sample at its first timeout; for a reference that
        would drop every later test.  A few more rounds recover them; past that,
        the reference is too slow on this data and the rest is dropped.
        """
        code = _reference_code(problem)
        for _ in range(rounds):
            stopped = entry.timeout_in
            if stopped is None or stopped + 1 >= len(problem.tests) or entry.results is None:
                break
            start = stopped + 1
            rest = problem.model_copy(update={"tests": problem.tests[start:]})
            more = ReferenceRun.from_reply(
                self.pool.submit_one(self._job(rest, code, REFERENCE_LIMITS, problem.id))
            )
            if more.error is not None or more.results is None:
                break
            shifted = [
                replace(record, index=start + record.index) if record else None for record in more.results
            ]
            entry = ReferenceRun(
                entry.results[:start] + shifted,
                start + more.timeout_in if more.timeout_in is not None else None,
            )
        return entry

    # ----------------------------------------------------------- evaluate

    def evaluate(
        self,
        jobs: Sequence[Job],
        progress: Advance | None = None,
        on_verdict: Callable[[int, Verdict], None] | None = None,
        *,
        details: bool | None = None,
        charge: CpuCharge | None = None,
    ) -> list[Verdict]:
        """Run every job in the sandbox; always one Verdict per job, in order.

        ``on_verdict(index, verdict)`` is called as each one is final (from a
        worker thread), so callers can checkpoint long runs.  A sample that
        timed out is final only after its re-run (``rerun_timeouts``): once
        every other job is done, the timed-out ones run again, each on a worker
        of its own as before but on a pool with nothing else to do, and the
        re-run's verdict stands.  ``self.reruns`` then says how many there were
        and how many verdicts changed.  ``details`` overrides the engine's
        ``test_details`` for these jobs (False: stop each at its first failing
        test, which the verdict keeps).  ``charge`` adds what each sandbox job
        cost, its re-run included (``execution.charge``).
        """
        raw = [self._job(job.problem, job.code, self.limits, f"{job.task_id}#{job.index}") for job in jobs]
        verdicts: list[Verdict | None] = [None] * len(jobs)
        first: dict[int, Verdict] = {}
        isolation = self.isolation
        details = self.test_details if details is None else details
        judges: list[FirstFailure | None] = [None] * len(jobs)
        if not details:
            for request in raw:
                request.first_failure = True
        self.reruns = TimeoutReruns()

        def watch(index: int) -> StreamWatch:
            judge = judges[index] = FirstFailure(jobs[index].problem)
            return StreamWatch(jobs[index].problem.kind, len(jobs[index].problem.tests), judge)

        def judged(index: int, reply: WorkerReply) -> Verdict:
            job = jobs[index]
            judge = judges[index]
            seen = judge.judged if judge is not None else None
            judges[index] = None
            return build_verdict(job.problem, reply, job.task_id, job.index, isolation, details, seen)

        def final(index: int, verdict: Verdict) -> None:
            verdicts[index] = verdict
            if on_verdict:
                on_verdict(index, verdict)
            if progress:
                progress(1)

        def done(index: int, reply: WorkerReply) -> None:
            if charge is not None:
                charge.add(raw[index], reply)
            verdict = judged(index, reply)
            if self.rerun_timeouts and verdict.status == "timeout":
                first[index] = verdict  # final after its re-run
                return
            final(index, verdict)

        self.pool.map(raw, done, None if details else watch)
        if first:
            order = sorted(first)

            def again(position: int, reply: WorkerReply) -> None:
                index = order[position]
                if charge is not None:
                    charge.add(raw[index], reply)
                verdict = judged(index, reply)
                if verdict.status != first[index].status:
                    self.reruns.changed += 1
                    self.reruns.changed_ids.append(f"{jobs[index].task_id}#{jobs[index].index}")
                final(index, verdict)

            self.reruns.rerun = len(order)
            # Every worker is idle by now: each re-run gets one to itself, as the first runs did.
            self.pool.map(
                [raw[index] for index in order],
                again,
                None if details else (lambda position: watch(order[position])),
            )
        return [verdict for verdict in verdicts if verdict is not None]

    def run_outputs(self, problem: Problem, codes: Sequence[str]) -> list[RunOutputs]:
        """What each piece of code returns on the problem's inputs, under the evaluation limits.

        For comparing several candidate solutions with each other and with a
        reference (self-consistency), where there is no expected output yet.
        The problem should be prepared, so per-test limits follow its
        reference times.
        """
        jobs = [self._job(problem, code, self.limits, f"{problem.id}@{i}") for i, code in enumerate(codes)]
        entries: list[ReferenceRun] = [ReferenceRun() for _ in jobs]

        def done(index: int, reply: WorkerReply) -> None:
            entries[index] = ReferenceRun.from_reply(reply)

        self.pool.map(jobs, done)
        runs = []
        for entry in entries:
            if entry.error is not None:
                runs.append(
                    RunOutputs([None] * len(problem.tests), [False] * len(problem.tests), entry.error)
                )
                continue
            results = entry.results or []
            outputs: list[Any] = []
            ok: list[bool] = []
            for i in range(len(problem.tests)):
                record = results[i] if i < len(results) else None
                if record is not None and record.returned:
                    outputs.append(record.output if problem.kind == "stdin" else values.decode(record.output))
                    ok.append(True)
                else:
                    outputs.append(None)
                    ok.append(False)
            runs.append(RunOutputs(outputs, ok, None))
        return runs

    def verdict_key(self, job: Job, sandbox: Sequence[str] | None = None) -> str:
        """Content key of a verdict: problem, tests with expected outputs, code, limits and sandbox.

        Equal keys mean the sandbox would be asked exactly the same question,
        which is what makes reusing a checkpointed verdict safe.  The sandbox
        and how memory is capped are part of the question: a verdict judged
        under rlimits must not be reused by a bwrap run, nor the other way.
        ``sandbox`` ([isolation, memory mode]) names a sandbox other than this
        engine's own, for a backend whose workers run elsewhere (Ray nodes);
        this engine's pool is then never started.
        """
        sandbox = list(sandbox) if sandbox is not None else [self.isolation, self.pool.memory_mode]
        payload = [self._problem_key(job.problem), job.code, self.limits.__dict__, sandbox]
        if not self.test_details:  # a verdict without the per-test table must not stand in for one with it
            payload.append("first-failure")
        return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()

    def _problem_key(self, problem: Problem) -> str:
        def compute() -> str:
            inputs_key, _ = self._encoded_inputs(problem)
            expected = [[values.encode(t.expected), t.has_expected, t.ref_time] for t in problem.tests]
            payload = [
                REFERENCE_PROTOCOL,
                JUDGING_PROTOCOL,
                problem.entry_point,
                problem.atol,
                problem.oracle,
                problem.strict_sequences,
                inputs_key,
                expected,
            ]
            return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()

        return self._per_problem("verdict", problem, compute)


def _worker_job(
    problem: Problem,
    code: str,
    limits: Limits,
    job_id: str,
    key: str | None,
    inputs: list[Any],
    timeouts: list[float],
) -> WorkerJob:
    """A worker request for ``code`` on encoded ``inputs``, with the wall-clock budget the host allows it.

    The budget covers every limit at its wall-clock last resort (``WALL_CAP``
    times the backstop, see ``_worker.py``): past it the host declares the
    worker lost, which only a worker that stopped answering should reach.
    """
    slack = 10.0 + 0.01 * len(inputs)
    charged = limits.setup_time + sum(timeouts)
    if problem.kind == "stdin":
        charged += limits.setup_time * len(inputs)
    budget = WALL_CAP * limits.wall_factor * charged + slack
    return WorkerJob(
        id=job_id,
        kind=problem.kind,
        code=code,
        entry_point=problem.entry_point,
        inputs=inputs,
        timeouts=timeouts,
        setup_time=limits.setup_time,
        wall_factor=limits.wall_factor,
        limits=limits.to_worker(),
        budget=budget,
        inputs_key=key,
    )


# The worker's last resort in plain wall time, as a multiple of the backstop (``_worker.WALL_CAP``).
WALL_CAP = 4.0


def _input_run(problem: Problem, record: TestRecord) -> InputRun:
    """One result record of ``run_inputs`` as an InputRun (output decoded, coverage as items)."""
    elapsed = record.charged
    if not record.returned:
        return InputRun("error", time=elapsed, error=record.error or "error")
    try:
        output = record.output if problem.kind == "stdin" else values.decode(record.output)
    except Exception as exc:  # noqa: BLE001 - an output the host cannot decode is that input's error
        return InputRun("error", time=elapsed, error=f"output cannot be decoded: {type(exc).__name__}")
    items = record.coverage.items() if record.coverage is not None else None
    return InputRun("ok", output=output, time=elapsed, coverage=items)


def _apply_reference(problem: Problem, entry: ReferenceRun) -> tuple[list[TestCase], list[str], list[str]]:
    """Tests with expected outputs and reference times; the reasons for every dropped test,
    and, among them, those where the reference's answer fails the problem's oracle.

    A reference time is the CPU seconds the reference took (wall seconds from
    an old worker that did not say), the unit time limits are charged in.
    """
    results = entry.results
    kept: list[TestCase] = []
    dropped: list[str] = []
    wrong: list[str] = []
    for i, test in enumerate(problem.tests):
        update: dict[str, Any] = {}
        answer = test.expected
        if results is not None:
            record = results[i] if i < len(results) else None
            if record is None:
                dropped.append(f"test {i}: reference timed out or did not run")
                continue
            if not record.returned:
                dropped.append(f"test {i}: reference raised {record.error or 'an error'}")
                continue
            answer = record.output if problem.kind == "stdin" else values.decode(record.output)
            update["ref_time"] = record.charged
            if not test.has_expected:
                update.update(expected=answer, has_expected=True)
        if (
            problem.oracle
            and problem.kind != "stdin"
            and not oracle_accepts(problem, test.input, answer, answer)
        ):
            reason = (
                f"test {i}: the reference's answer {show_value(answer)} fails the oracle {problem.oracle}"
            )
            dropped.append(reason)
            wrong.append(reason)
            continue
        kept.append(test.model_copy(update=update) if update else test)
    return kept, dropped, wrong
