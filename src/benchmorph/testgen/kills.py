"""Which tests kill which mutants of a reference: the per-test results the reduction and the score need.

A mutant is *killed* by a test when, judged like any answer (``Engine.evaluate``,
the engine's limits), it fails, raises or times out there.  The worker stops a
run at its first timeout, so after one the later tests are unknown: they are
not counted as killers (the timed-out test is).  Judged to the first failure
only, a mutant's one known killer is the first test that kills it.  A mutant that cannot even load
is killed by every test.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from benchmorph.data.models import Problem, Verdict
from benchmorph.execution.charge import CpuCharge
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
    """The tests a verdict shows failing; every test when the code never ran one (it failed to load).

    A verdict judged to its first failure only (``first_failure``) shows that one test.
    """
    if verdict.ok:
        return frozenset()
    failing = frozenset(result.index for result in verdict.tests if result.status in KILLING)
    if failing:
        return failing
    not_run = [result.index for result in verdict.tests if result.status == "not-run"]
    # It never ran a test: every test shown is not-run (or, judged to its first failure, none is
    # shown, or the one shown is the first) and none passed.  Judged so, a not-run test after passing
    # ones is where the sandbox stopped it, as with the whole table.
    if verdict.passed == 0 and len(not_run) == len(verdict.tests):
        return frozenset(range(verdict.total))
    # Stopped by the sandbox (too much memory or output) at the first test it did not finish.
    return frozenset(not_run[:1])


def mutant_kills(
    problems: Sequence[Problem],
    mutants: Sequence[Sequence[Mutant]],
    engine: Engine,
    progress: Callable[[int], None] | None = None,
    *,
    first_failure: bool = False,
    charge: CpuCharge | None = None,
) -> list[list[MutantKills]]:
    """Per problem (prepared: every test has its expected output), what each of its mutants is killed by.

    All problems' mutants go to the engine in one batch, so the workers stay busy.
    ``first_failure``: each mutant stops at the first test that kills it, and
    that test is its only killer known: enough to tell killed from alive and
    which test killed it first, for a fraction of the runs.  ``charge`` adds
    what the sandbox jobs cost (``execution.charge``).
    """
    jobs: list[Job] = []
    owners: list[tuple[int, int]] = []
    for number, (problem, found) in enumerate(zip(problems, mutants, strict=True)):
        for index, mutant in enumerate(found):
            jobs.append(Job(problem, mutant.code, f"{problem.id}#mutant", index))
            owners.append((number, index))
    verdicts = engine.evaluate(jobs, progress, details=not first_failure, charge=charge) if jobs else []
    result: list[list[MutantKills]] = [[] for _ in problems]
    for (number, index), verdict in zip(owners, verdicts, strict=True):
        result[number].append(MutantKills(mutants[number][index], killers(verdict)))
    return result
