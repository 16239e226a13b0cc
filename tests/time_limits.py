"""Which samples no engine can decide the same way twice: those whose CPU time sits at a test's limit.

Limits are charged in CPU seconds, so a busy machine does not move a verdict, but a CPU second is not
a fixed amount of work: a core whose hyperthread sibling is busy, or a cache shared with many
processes, makes the same code take a few tenths more.  HumanEval/75's tenth mutant of
``reference_and_mutants`` takes 0.97 CPU s on its first test, whose limit is 1.0 s; it timed out on one
run and passed on another in CI.  Tests that compare verdicts across runs, backends or loads tolerate a
difference only for such a sample, re-measured here under a generous limit.
"""

from __future__ import annotations

from collections.abc import Mapping

from benchmorph.data.models import Problem
from benchmorph.execution import Engine
from benchmorph.execution.limits import Limits

# A test whose CPU time is within this factor of its limit is "at the limit".
AT_THE_LIMIT = (0.6, 1.6)


def at_the_limit(problem: Problem, code: str, limits: Limits | None = None) -> bool:
    """Whether ``code`` takes, on one of ``problem``'s tests, a CPU time within ``AT_THE_LIMIT`` of that
    test's limit (``limits``'s rule on the reference's CPU time, both measured here)."""
    limits = limits or Limits()
    inputs = [test.input for test in problem.tests]
    with Engine(workers=1) as engine:
        sample = engine.run_inputs(problem, inputs, code=code, limits=Limits(min_time_limit=10.0))
        reference = engine.run_inputs(problem, inputs)
    low, high = AT_THE_LIMIT
    for run, ref in zip(sample, reference, strict=True):
        if run.time is not None and ref.time is not None:
            if low <= run.time / limits.test_time_limit(ref.time) <= high:
                return True
    return False


def unexplained_differences(
    first: Mapping[tuple[str, int], tuple],
    second: Mapping[tuple[str, int], tuple],
    problems: Mapping[str, Problem],
    codes: Mapping[tuple[str, int], str],
    most: int = 3,
) -> list[tuple]:
    """The samples whose two verdicts (status first) differ other than by a timeout of a sample at the
    limit; also fails when more than ``most`` differ at all (a handful of a thousand sit at a limit)."""
    differing = sorted(key for key in first if second.get(key) != first[key])
    assert len(differing) <= most, [(key, first[key], second.get(key)) for key in differing]
    return [
        (key, first[key], second.get(key))
        for key in differing
        if "timeout" not in (first[key][0], (second.get(key) or ("",))[0])
        or not at_the_limit(problems[key[0]], codes[key])
    ]
