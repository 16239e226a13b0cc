"""A new problem must not be solved by a program that ignores what it adds."""

from __future__ import annotations

from benchmorph.validation.checks.base import CheckInput, Finding, quality_check

# The most of a new problem's tests a program that ignores what it adds may pass: it must fail a
# clear majority (two in three), so that answering the parent, or one step alone, is told apart.
MAX_BASELINE_PASS = 1 / 3


@quality_check("solved-without", reads={"baselines"})
def solved_without(item: CheckInput) -> Finding | None:
    """The parent's reference, or one step of a combined problem alone, passes too many of the tests.

    A combined problem whose second step alone passes its tests ("sort the
    words, then count the distinct characters": sorting changes no set of
    characters, HumanEval/19 + 16) does not need its first step; a tool_use
    problem its parent's reference solves is the parent in disguise.  The
    programs come from the transform (``Draft.baselines``) and ran on the
    variant's tests in the sandbox.
    """
    passes = item.baseline_passes or {}
    worst = max(passes.items(), key=lambda pair: (pair[1], pair[0]), default=None)
    if worst is None or worst[1] <= MAX_BASELINE_PASS:
        return None
    name, share = worst
    total = len([test for test in item.variant.tests if test.has_expected])
    return Finding(
        "solved-without",
        f"{name} passes {share:.0%} of the {total} tests (at most {MAX_BASELINE_PASS:.0%} allowed): "
        "the problem does not need what it adds",
    )
