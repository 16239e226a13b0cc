"""``audit_benchmark``: every problem of a benchmark through every registered audit check.

The references run once (``Engine.prepare``, cached by content), then each
check reads the prepared problems.  Checks of one problem at a time run on
slices of the benchmark, and each slice's findings are written to a
checkpoint as it finishes, keyed by the check, its version, the options
and the slice's content: an interrupted audit started again with the same
checkpoint redoes only what it had not finished, and a changed problem is
audited afresh.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchmorph.core.progress import ProgressFactory, no_progress
from benchmorph.data.models import Problem
from benchmorph.validation.audit.base import AuditCheck, AuditContext, Subject, audit_checks
from benchmorph.validation.audit.findings import AuditFinding, AuditReport, ordered

if TYPE_CHECKING:
    from benchmorph.execution.engine import Engine

# Bump when what every check reads changes (the prepared problems, the subjects): checkpoints then miss.
AUDIT_PROTOCOL = 1
SLICE = 16


class Checkpoint:
    """Findings per (check, slice) key, read from and appended to a JSONL file (none: kept in memory)."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.saved: dict[str, list[AuditFinding]] = {}
        if path is not None and path.exists():
            for line in path.read_text(encoding="utf-8").splitlines():
                try:
                    row = json.loads(line)
                    self.saved[row["key"]] = [AuditFinding.from_json(item) for item in row["findings"]]
                except (ValueError, KeyError, TypeError):
                    continue  # a line cut short by the interruption: that slice is audited again

    def get(self, key: str) -> list[AuditFinding] | None:
        return self.saved.get(key)

    def put(self, key: str, findings: list[AuditFinding]) -> None:
        self.saved[key] = findings
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            row = {"key": key, "findings": [finding.to_json() for finding in findings]}
            with self.path.open("a", encoding="utf-8") as handle:
                handle.write(json.dumps(row, ensure_ascii=False) + "\n")


def _key(check: AuditCheck, group: Sequence[Subject], ctx: AuditContext) -> str:
    payload: list[Any] = [
        AUDIT_PROTOCOL,
        check.name,
        check.version,
        ctx.mutants,
        ctx.seed,
        [subject.loaded.content_hash() for subject in group],
    ]
    return hashlib.sha256(json.dumps(payload).encode()).hexdigest()


def prepare_subjects(
    problems: Sequence[Problem], engine: Engine, progress: ProgressFactory = no_progress
) -> list[Subject]:
    """The problems with their reference outputs, and what preparing them dropped and why."""
    loaded = list(problems)
    with progress(f"audit: run {len(loaded)} references", len(loaded)) as advance:
        prepared = engine.prepare(loaded, advance)
    ready = {problem.id: problem for problem in prepared.problems}
    return [
        Subject(
            problem=ready.get(problem.id, problem),
            loaded=problem,
            dropped=prepared.dropped_tests.get(problem.id, []),
            oracle_failures=prepared.oracle_failures.get(problem.id, []),
            unusable=prepared.unusable.get(problem.id),
        )
        for problem in loaded
    ]


def audit_benchmark(
    problems: Sequence[Problem],
    engine: Engine,
    *,
    benchmark: str = "",
    checks: Sequence[str] | None = None,
    inherited: bool | None = None,
    mutants: int = 20,
    seed: int = 0,
    progress: ProgressFactory = no_progress,
    checkpoint: Path | None = None,
) -> AuditReport:
    """Audit ``problems`` (as loaded: their references run here) with the registered checks.

    ``checks`` names the checks to run (default: all), ``inherited`` keeps
    only the checks whose findings a variant inherits (True) or the others
    (False); ``mutants`` is how many reference mutants the weak-tests check
    tries per problem.  ``checkpoint``: a JSONL file to resume from and
    record into (see the module docstring).
    """
    started = time.monotonic()
    subjects = prepare_subjects(problems, engine, progress)
    ctx = AuditContext(engine=engine, benchmark=subjects, mutants=mutants, seed=seed)
    store = Checkpoint(checkpoint)
    chosen = audit_checks(checks, inherited=inherited)
    findings: list[AuditFinding] = []
    timings: dict[str, float] = {"references": time.monotonic() - started}
    for check in chosen:
        began = time.monotonic()
        if check.scope == "benchmark":
            groups = [subjects]
        else:
            groups = [subjects[i : i + SLICE] for i in range(0, len(subjects), SLICE)]
        with progress(f"audit: {check.name}", len(subjects)) as advance:
            for group in groups:
                key = _key(check, group, ctx)
                found = store.get(key)
                if found is None:
                    found = check(group, ctx)
                    store.put(key, found)
                findings.extend(found)
                advance(len(group))
        timings[check.name] = time.monotonic() - began
    ids = [subject.id for subject in subjects]
    return AuditReport(
        benchmark=benchmark,
        problems=ids,
        findings=ordered(findings, ids),
        checks_run=[check.name for check in chosen],
        seconds=time.monotonic() - started,
        titles={subject.id: subject.problem.entry_point for subject in subjects},
        timings=timings,
    )
