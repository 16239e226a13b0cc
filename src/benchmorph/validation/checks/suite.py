"""A new problem's own test suite must be big and varied enough to judge a solution."""

from __future__ import annotations

from benchmorph.validation.checks.base import CheckInput, Finding, quality_check, short_repr, value_key

MIN_TESTS = 5
MIN_DISTINCT = 3  # distinct expected outputs; a yes/no answer needs both answers, each at least twice
MAX_SHARE = 2 / 3  # the most of the tests one expected output may cover (a constant answer passes them)


def dominant_share(outputs: list[object]) -> tuple[float, object]:
    """The share of ``outputs`` the most common one covers, and that output."""
    counts: dict[str, int] = {}
    for output in outputs:
        counts[value_key(output)] = counts.get(value_key(output), 0) + 1
    key = max(counts, key=lambda k: counts[k])
    return counts[key] / len(outputs), next(o for o in outputs if value_key(o) == key)


@quality_check("thin-suite", reads={"suite"})
def thin_suite(item: CheckInput) -> Finding | None:
    """Fewer than 5 tests, fewer than 3 distinct expected outputs (both answers, twice each, for yes/no),
    or one output on more than two tests in three (a program answering it always passes those).

    A suite of three tests with two outputs (12 of 49 of a reviewed set of
    combined problems) lets a solution that reads a rule wrongly pass: the
    truncation of HumanEval/133 + 39 passed all three tests of its ceiling.
    """
    outputs = [test.expected for test in item.variant.tests if test.has_expected]
    if len(outputs) < MIN_TESTS:
        return Finding("thin-suite", f"{len(outputs)} tests (at least {MIN_TESTS} needed)")
    share, common = dominant_share(outputs)
    if share > MAX_SHARE:
        return Finding(
            "thin-suite",
            f"{share:.0%} of the {len(outputs)} tests expect {short_repr(common)} (at most {MAX_SHARE:.0%}): "
            "a program that always answers it passes them",
        )
    if outputs and all(isinstance(output, bool) for output in outputs):
        rarer = min(outputs.count(True), outputs.count(False))
        if rarer < 2:
            return Finding(
                "thin-suite",
                f"a yes/no answer with {outputs.count(True)} True and {outputs.count(False)} False "
                "(each needed at least twice)",
            )
        return None
    distinct = len({value_key(output) for output in outputs})
    if distinct < MIN_DISTINCT:
        return Finding(
            "thin-suite",
            f"{distinct} distinct expected outputs over {len(outputs)} tests (at least {MIN_DISTINCT} needed)",
        )
    return None
