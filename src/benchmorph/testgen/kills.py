"""Which tests kill which mutants of a reference: the per-test results the reduction and the score need.

A mutant is *killed* by a test when, judged like any answer (``Engine.evaluate``,
the engine's limits), it fails, raises or times out there.  The worker stops a
run at its first timeout, so after one the later tests are unknown: they are
not counted as killers (the timed-out test is).  A mutant that cannot even load
is killed by every test.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from benchmorph.data.models import Problem, Verdict
from benchmorph.execution.engine import Engine, Job
from benchmorph.testgen.mutants import Mutant

KILLING = ("fail", "error", "timeout")


@dataclass(frozen=True)
class MutantKills:
    """One mutant against one suite: the tests known to kill it (empty: it survived)."""

    mutant: Mutant
    killers: frozenset[int]

    @property
    def killed(self) -> bool:
        return bool(self.killers)


def killers(verdict: Verdict) -> frozenset[int]:
    """The tests a verdict shows failing; every test when the code never ran one (it failed to load)."""
    if verdict.ok:
        return frozenset()
    failing = frozenset(result.index for result in verdict.tests if result.status in KILLING)
    if failing:
        return failing
    not_run = [result.index for result in verdict.tests if result.status == "not-run"]
    if len(not_run) == len(verdict.tests):
        return frozenset(range(len(verdict.tests)))
    # Stopped by the sandbox (too much memory or output) at the first test it did not finish.
    return frozenset(not_run[:1])


def mutant_kills(
    problems: Sequence[Problem],
    mutants: Sequence[Sequence[Mutant]],
    engine: Engine,
    progress: Callable[[int], None] | None = None,
) -> list[list[MutantKills]]:
    """Per problem (prepared: every test has its expected output), what each of its mutants is killed by.

    All problems' mutants go to the engine in one batch, so the workers stay busy.
    """
    jobs: list[Job] = []
    owners: list[tuple[int, int]] = []
    for number, (problem, found) in enumerate(zip(problems, mutants, strict=True)):
        for index, mutant in enumerate(found):
            jobs.append(Job(problem, mutant.code, f"{problem.id}#mutant", index))
            owners.append((number, index))
    verdicts = engine.evaluate(jobs, progress) if jobs else []
    result: list[list[MutantKills]] = [[] for _ in problems]
    for (number, index), verdict in zip(owners, verdicts, strict=True):
        result[number].append(MutantKills(mutants[number][index], killers(verdict)))
    return result
