"""Tests that let wrong answers through: too few, one answer for nearly all, or a wrong program passing them.

HumanEval/35 ("return the maximum element") has 2 tests; MBPP+'s Mbpp/734
has 3 once its contract drops ``[]``.  A suite whose tests nearly all
expect one output is passed by a program that mostly returns it.  And the
strongest evidence: a mutant of the reference (``testgen.mutants``: an
operator swapped, a comparison flipped, a constant off by one) that passes
every test, while some valid input shows it wrong.  Valid means what the
tests themselves keep to (``validation.lost_power.ObservedDomain``: no
negative number, zero, empty container or new character where no test has
one, and every number and length within the tests' range), what the
description promises (``preconditions``), an input the reference (its
contract active) accepts with an answer like the tests' answers (no zero,
negative or empty answer where no test expects one: HumanEval/6's depth 0
comes only from a group without parentheses), and one whose answer no
tie-break decides; without such an input the mutant may be equivalent, and
nothing is said.  A mutant that is another reading of the description
(``testgen.readings``), or a comparison made strict or non-strict (MBPP+'s
Mbpp/468 reads "increasing" as non-decreasing that way), is not a wrong
program and is left to the readings probe.  The worked examples are held to the first two standards too: five
examples of which four show ``[]`` (the mined variant of HumanEval/117)
show a reader little of the rule.
"""

from __future__ import annotations

import ast
import difflib
import itertools
import re
from collections import Counter
from collections.abc import Sequence
from typing import Any

from benchmorph.data.models import Problem, TestCase
from benchmorph.execution.compare import outputs_match
from benchmorph.execution.engine import Job
from benchmorph.testgen.mutants import Mutant, mutants
from benchmorph.testgen.mutation import mutation_stream
from benchmorph.testgen.readings import reading_mutants
from benchmorph.testgen.types import infer_signature
from benchmorph.validation.audit.base import (
    AuditContext,
    Subject,
    audit_check,
    call_text,
    one_line,
    value_text,
)
from benchmorph.validation.audit.findings import AuditFinding, Evidence
from benchmorph.validation.audit.preconditions import promises
from benchmorph.validation.checks.base import value_key
from benchmorph.validation.examples.recompute import reference_parameters
from benchmorph.validation.lost_power import ObservedDomain
from benchmorph.validation.ties import tie_free

CHECK = "weak-tests"
FEW_TESTS = 4  # fewer tests than this is a finding
DOMINANT = 0.9  # one output for at least this share of the tests ...
MINORITY = 2  # ... leaving at most this many tests to tell a solution from a constant
SEARCH = 60  # new valid inputs tried against each surviving mutant
SURVIVORS = 5  # surviving mutants looked into per problem
DRAWS = 1500  # mutated inputs drawn per problem before the validity filters


def _counted(subject: Subject) -> list[AuditFinding]:
    problem = subject.problem
    tests = [test for test in problem.tests if test.has_expected]
    found = []
    if subject.unusable is None and len(tests) < FEW_TESTS:
        found.append(
            AuditFinding(
                problem.id,
                CHECK,
                "weak",
                f"only {len(tests)} tests"
                + (
                    f" ({len(subject.dropped)} more the reference or its contract rejects)"
                    if subject.dropped
                    else ""
                ),
                f"{CHECK}:few",
                tuple(
                    Evidence("test", f"{call_text(problem, t.input)} expects {value_text(t.expected)}")
                    for t in tests[:3]
                ),
            )
        )
    if len(tests) >= 5:
        counts = Counter(value_key(test.expected) for test in tests)
        key, count = counts.most_common(1)[0]
        if count >= DOMINANT * len(tests) and len(tests) - count <= MINORITY:
            value = next(test.expected for test in tests if value_key(test.expected) == key)
            others = len(tests) - count
            found.append(
                AuditFinding(
                    problem.id,
                    CHECK,
                    "weak",
                    f"{count} of {len(tests)} tests expect {value_text(value, 40)}: "
                    f"{'no test tells' if not others else f'only {others} tell'} a solution from one that always returns it",
                    f"{CHECK}:dominant",
                )
            )
    examples = subject.scan.examples
    if problem.kind == "function" and len(examples) >= 4 and not subject.scan.unverifiable:
        try:
            claims = [example.claimed() for example in examples]
        except ValueError:
            claims = []
        # Booleans are left out: examples of a predicate that show both answers show its rule.
        shown = Counter(value_key(claim) for claim in claims if not isinstance(claim, bool))
        if shown:
            key, count = shown.most_common(1)[0]
            if count >= 0.75 * len(examples):
                example = next(e for e in examples if value_key(e.claimed()) == key)
                found.append(
                    AuditFinding(
                        problem.id,
                        CHECK,
                        "weak",
                        f"{count} of the {len(examples)} worked examples show {one_line(example.expected_text, 40)}: "
                        "they show a reader little of the rule",
                        f"{CHECK}:examples",
                    )
                )
    return found


def _change(reference: str, mutant: Mutant) -> str:
    try:
        old = ast.unparse(ast.parse(reference)).splitlines()
    except SyntaxError:
        return mutant.operator
    diff = list(difflib.ndiff(old, mutant.code.splitlines()))
    removed = [line[2:].strip() for line in diff if line.startswith("- ")]
    added = [line[2:].strip() for line in diff if line.startswith("+ ")]
    return one_line(f"{' / '.join(removed[:1]) or '-'}  ->  {' / '.join(added[:1]) or '(removed)'}", 160)


def _envelope(seeds: Sequence[Sequence[Any]]) -> dict[int, tuple[float, float]]:
    """Per argument position: the least and greatest number, or length of a string or container, the tests pass."""
    found: dict[int, tuple[float, float]] = {}
    for args in seeds:
        for position, value in enumerate(args):
            if isinstance(value, bool):
                continue
            if isinstance(value, int | float):
                size: float = value
            elif isinstance(value, str | list | tuple | dict | set):
                size = len(value)
            else:
                continue
            low, high = found.get(position, (size, size))
            found[position] = (min(low, size), max(high, size))
    return found


def _like_tests(args: Sequence[Any], envelope: dict[int, tuple[float, float]]) -> bool:
    """Every number, and every string's or container's length, within what the tests pass at its position.

    ``''`` where no test passes an empty string, ``[5.5]`` where every list
    has two numbers or more (HumanEval/20: "of length at least two"), or
    ``n = 1000`` where the tests stop at 10 (and the reference at 10 already
    takes a second): an input outside the tests' envelope may be one the
    task never meant.
    """
    for position, value in enumerate(args):
        if position not in envelope or isinstance(value, bool):
            continue
        low, high = envelope[position]
        if isinstance(value, int | float):
            size: float = value
        elif isinstance(value, str | list | tuple | dict | set):
            size = len(value)
        else:
            continue
        if not low <= size <= high:
            return False
    return True


def _candidates(subject: Subject, ctx: AuditContext) -> list[list[Any]]:
    """New inputs within what the tests keep to and the description promises."""
    problem = subject.problem
    try:
        signature = infer_signature(problem)
    except Exception:  # noqa: BLE001 - inputs the inference cannot type are not mutated
        return []
    seeds = [list(test.input) for test in problem.tests if isinstance(test.input, list | tuple)]
    if not seeds:
        return []
    domain = ObservedDomain(seeds)
    envelope = _envelope(seeds)
    params = reference_parameters(problem) or []
    stated = promises(subject)

    def valid(args: list[Any]) -> bool:
        if not domain.admits(args) or not _like_tests(args, envelope):
            return False
        named = dict(zip(params, args, strict=False))
        return all(p.target not in named or p.holds(named) is not False for p in stated)

    drawn = itertools.islice(mutation_stream(seeds, signature, ctx.seed), DRAWS)
    return list(itertools.islice((args for args in drawn if valid(args)), SEARCH * 2))


def _outputs_like_tests(problem: Problem) -> ObservedDomain:
    """What the tests' answers keep to (the sign, zero, empty, characters of every output)."""
    return ObservedDomain([[test.expected] for test in problem.tests if test.has_expected])


_STRICT_PAIRS = {("<", "<="), ("<=", "<"), (">", ">="), (">=", ">")}


def _strictness(reference: str, mutant: Mutant) -> bool:
    """A comparison made strict or non-strict: another reading of a boundary ("increasing", "up to"),
    which the words, not the tests, must decide (the readings probe asks them)."""
    if mutant.operator != "compare-flip":
        return False
    try:
        old = ast.unparse(ast.parse(reference)).splitlines()
    except SyntaxError:
        return False
    new = mutant.code.splitlines()
    changed = [(a, b) for a, b in zip(old, new, strict=False) if a != b]
    if len(changed) != 1 or len(old) != len(new):
        return False
    before, after = changed[0]
    ops = re.compile(r"<=|>=|<|>|==|!=")
    pairs = [(x, y) for x, y in zip(ops.findall(before), ops.findall(after), strict=False) if x != y]
    return len(pairs) == 1 and pairs[0] in _STRICT_PAIRS


def _survivors(subjects: Sequence[Subject], ctx: AuditContext) -> list[AuditFinding]:
    # A problem judged by an oracle has many right answers (any root of HumanEval/32's polynomial): an
    # answer other than the reference's is no evidence of a wrong program there.
    runnable = [
        s
        for s in subjects
        if s.runs and s.problem.kind == "function" and ctx.mutants > 0 and not s.problem.oracle
    ]
    planned: list[tuple[Subject, Mutant]] = []
    for subject in runnable:
        problem = subject.problem
        try:
            found = mutants(problem.reference, problem.entry_point, limit=ctx.mutants, seed=ctx.seed)
        except SyntaxError:
            continue
        # A mutant that is another reading of the description (the later of two tied candidates, the
        # bound included) is the readings probe's business, not a wrong program.
        readings = {reading.code for reading in reading_mutants(problem.reference, problem.entry_point)}
        planned.extend(
            (subject, mutant)
            for mutant in found
            if mutant.code not in readings and not _strictness(problem.reference, mutant)
        )
    if not planned:
        return []
    jobs = [Job(s.problem, m.code, f"{s.id}#audit-mutant", i) for i, (s, m) in enumerate(planned)]
    verdicts = ctx.engine.evaluate(jobs)
    alive: dict[str, list[Mutant]] = {}
    for (subject, mutant), verdict in zip(planned, verdicts, strict=True):
        if verdict.status == "pass":
            alive.setdefault(subject.id, []).append(mutant)
    findings = []
    for subject in runnable:
        survivors = alive.get(subject.id, [])[:SURVIVORS]
        if not survivors:
            continue
        problem = subject.problem
        inputs = _candidates(subject, ctx)
        if not inputs:
            continue
        reference = ctx.engine.run_inputs(problem, inputs)
        answers = _outputs_like_tests(problem)
        usable = [
            (args, run.output)
            for args, run in zip(inputs, reference, strict=True)
            if run.ok and answers.admits([run.output])
        ]
        usable = usable[:SEARCH]
        free = tie_free(problem, [args for args, _ in usable], ctx.engine)
        usable = [pair for pair, ok in zip(usable, free, strict=True) if ok]
        if not usable:
            continue
        probe = problem.model_copy(
            update={"id": f"{problem.id}#audit-inputs", "tests": [TestCase(input=args) for args, _ in usable]}
        )
        shown = []
        for mutant, run in zip(
            survivors, ctx.engine.run_outputs(probe, [m.code for m in survivors]), strict=True
        ):
            for index, (args, expected) in enumerate(usable):
                same = run.ok[index] and outputs_match(
                    problem.kind, expected, run.outputs[index], problem.atol, problem.strict_sequences
                )
                if not same:
                    gives = f"gives {value_text(run.outputs[index])}" if run.ok[index] else "raises"
                    shown.append((mutant, args, expected, gives))
                    break
        if not shown:
            continue
        mutant, args, expected, gives = shown[0]
        evidence = tuple(
            item
            for m, a, e, g in shown[:1]
            for item in (
                Evidence("mutant", _change(problem.reference, m)),
                Evidence(
                    "input", f"{call_text(problem, a)}: the reference gives {value_text(e)}, the mutant {g}"
                ),
            )
        )
        findings.append(
            AuditFinding(
                problem.id,
                CHECK,
                "weak",
                f"{len(shown)} wrong version(s) of the reference pass all {len(problem.tests)} tests "
                f"(e.g. {one_line(_change(problem.reference, mutant), 70)}; {call_text(problem, args)} tells them apart)",
                f"{CHECK}:mutant",
                evidence,
            )
        )
    return findings


@audit_check(CHECK, severities={"weak"}, inherited=False, version=2)
def weak_tests(subjects: Sequence[Subject], ctx: AuditContext) -> list[AuditFinding]:
    """Few tests, one output for nearly all, examples that show one value, surviving mutants."""
    found = [finding for subject in subjects for finding in _counted(subject)]
    return found + _survivors(subjects, ctx)
