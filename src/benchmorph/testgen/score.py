"""Mutation score: how many deliberately broken versions of the references a test suite catches.

The score of a suite is the share of the references' mutants (``validation.mutants``:
operator swaps, comparison flips, off-by-one constants, boolean connective swaps,
dropped statements) that fail at least one of its tests.  Some mutants behave
exactly like the reference on every valid input (equivalent mutants); no test can
kill them and they cannot be told apart automatically, so the score is a lower
bound on the share of *killable* mutants caught, and only comparisons between
suites on the same mutants mean something.

Every suite is judged the same way: its inputs are run on the *reference
problems'* reference (expected outputs recomputed, inputs its contract rejects
dropped), so two suites of the same problems differ only in their inputs.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from benchmorph.core.progress import ProgressFactory, no_progress
from benchmorph.data.models import Problem, TestCase
from benchmorph.execution.engine import Engine, Job
from benchmorph.testgen.kills import mutant_kills
from benchmorph.testgen.mutants import Mutant, mutants


@dataclass
class SuiteScore:
    """One suite's numbers over the problems every suite shares."""

    name: str
    problems: int = 0
    tests: int = 0
    mutants: int = 0
    killed: int = 0
    # Wall-clock seconds to run the reference against the whole suite in the sandbox (best of two runs).
    seconds: float = 0.0
    # Inputs the reference problem's contract (or the reference) rejected; not counted as tests.
    dropped: int = 0
    # Per problem id: (mutants killed, mutants), and which mutants (their index in mutant_set's list).
    per_problem: dict[str, tuple[int, int]] = field(default_factory=dict)
    killed_mutants: dict[str, list[int]] = field(default_factory=dict)

    @property
    def score(self) -> float:
        return self.killed / self.mutants if self.mutants else 0.0

    @property
    def tests_per_problem(self) -> float:
        return self.tests / self.problems if self.problems else 0.0


def mutant_set(problem: Problem, limit: int | None = None, seed: int = 0) -> list[Mutant]:
    """The mutants a problem is scored on: every distinct one (``limit`` None), or a seeded sample."""
    if problem.kind == "stdin" or not problem.entry_point or limit == 0:
        return []
    try:
        return mutants(problem.reference, problem.entry_point, limit=limit, seed=seed)
    except SyntaxError:
        return []


def restrict_to_origins(problems: Sequence[Problem], origins: Sequence[str]) -> list[Problem]:
    """The same problems keeping only tests of the given origins (``base``: a benchmark's own tests)."""
    wanted = set(origins)
    return [
        problem.model_copy(update={"tests": [test for test in problem.tests if test.origin in wanted]})
        for problem in problems
    ]


def score_suites(
    reference: Sequence[Problem],
    suites: Mapping[str, Sequence[Problem]],
    engine: Engine,
    *,
    mutant_limit: int | None = None,
    seed: int = 0,
    progress: ProgressFactory = no_progress,
) -> list[SuiteScore]:
    """Score every suite on the mutants of ``reference``'s references, over the problems all suites have.

    A suite is a list of problems whose ids match ``reference``'s; only its
    test inputs are used.  Problems missing from any suite are left out of
    every score (compare ``SuiteScore.problems`` with ``len(reference)``).
    """
    ids = [{problem.id for problem in suite} for suite in suites.values()]
    shared = [problem for problem in reference if all(problem.id in known for known in ids)]
    mutant_lists = [mutant_set(problem, mutant_limit, seed) for problem in shared]
    scores: list[SuiteScore] = []
    for name, suite in suites.items():
        by_id = {problem.id: problem for problem in suite}
        candidates = [
            problem.model_copy(
                update={
                    "tests": [
                        TestCase(input=test.input, origin=test.origin) for test in by_id[problem.id].tests
                    ]
                }
            )
            for problem in shared
        ]
        score = SuiteScore(name)
        with progress(f"{name}: reference outputs", len(candidates)) as advance:
            prepared = engine.prepare(candidates, advance)
        score.dropped = sum(len(reasons) for reasons in prepared.dropped_tests.values())
        ready = {problem.id: problem for problem in prepared.problems}
        # A problem whose every input is rejected still counts, with no tests: its mutants all survive.
        problems = [ready.get(problem.id, problem.model_copy(update={"tests": []})) for problem in candidates]
        jobs = [Job(problem, problem.reference, problem.id) for problem in problems]
        with progress(f"{name}: run the suite twice", 2 * len(problems)) as advance:
            # The faster of two runs: the first may pay for starting workers and sending inputs.
            for _ in range(2):
                started = time.monotonic()
                engine.evaluate(jobs, advance)
                elapsed = time.monotonic() - started
                score.seconds = elapsed if not score.seconds else min(score.seconds, elapsed)
        total = sum(len(found) for found in mutant_lists)
        with progress(f"{name}: {total} mutants", total) as advance:
            kills = mutant_kills(problems, mutant_lists, engine, advance)
        score.problems = len(problems)
        for problem, results in zip(problems, kills, strict=True):
            score.tests += len(problem.tests)
            killed = [index for index, result in enumerate(results) if result.killed]
            score.mutants += len(results)
            score.killed += len(killed)
            score.per_problem[problem.id] = (len(killed), len(results))
            score.killed_mutants[problem.id] = killed
        scores.append(score)
    return scores
