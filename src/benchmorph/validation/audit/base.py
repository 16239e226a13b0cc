"""The audit's extension point: registered checks over prepared problems, and what each may read.

An audit check is a function of many problems at once (so its sandbox runs
go to the engine in one batch) that returns findings.  It is registered
with ``@audit_check(name, severities={...}, inherited=...)``:
``severities`` says what it can report, ``inherited`` whether what it finds
lives in the text and tests a variant takes from its parent (a transform
audits its parents with those checks, ``morph.parents``), and ``scope``
whether it looks at one problem at a time (``problem``: it may be run on
any slice of a benchmark, and an interrupted audit resumes slice by slice)
or at the benchmark as a whole (``benchmark``: near-duplicates).

A new module in this package registers its checks when discovered, as do
modules named by the ``benchmorph.audit_checks`` entry point group or
``$BENCHMORPH_AUDIT_CHECKS``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Literal

from benchmorph.core.registry import Registry, RegistryError
from benchmorph.data.errors import InputError
from benchmorph.data.models import Problem
from benchmorph.validation.audit.findings import SEVERITIES, AuditFinding

if TYPE_CHECKING:
    from benchmorph.execution.engine import Engine
    from benchmorph.validation.examples.scan import ExampleScan


@dataclass
class Subject:
    """One problem as the audit sees it: prepared, with what preparing it said."""

    problem: Problem  # tests carry the reference's outputs (the loaded problem where it could not run)
    loaded: Problem  # as the benchmark gave it (every test, before the reference ran)
    dropped: list[str] = field(default_factory=list)  # why each test the reference could not run was dropped
    oracle_failures: list[str] = field(default_factory=list)
    unusable: str | None = None  # the reference could not run at all

    @property
    def id(self) -> str:
        return self.problem.id

    @property
    def runs(self) -> bool:
        """A function problem whose reference ran: readings and mutants can be run against it."""
        return self.unusable is None and bool(self.problem.reference.strip()) and bool(self.problem.tests)

    @cached_property
    def description(self) -> str:
        """The description's words (no code, no worked examples)."""
        from benchmorph.validation.distances import description_text

        p = self.problem
        return description_text(p.prompt, p.entry_point, p.kind)

    @cached_property
    def prose(self) -> str:
        """The prompt with everything but the description blanked, offsets kept (function prompts only)."""
        from benchmorph.validation.distances import prose

        p = self.problem
        if p.kind != "function":
            return p.prompt
        return prose(p.prompt, self.scan, p.entry_point)

    @cached_property
    def scan(self) -> ExampleScan:
        from benchmorph.validation.examples.recompute import scan_problem
        from benchmorph.validation.examples.scan import ExampleScan

        return scan_problem(self.problem) if self.problem.kind == "function" else ExampleScan([], [])

    @cached_property
    def name_words(self) -> list[str]:
        """The entry point's words: ``sorted_list_sum`` and ``sortedListSum`` are sorted, list, sum."""
        parts = re.split(r"_+|(?<=[a-z0-9])(?=[A-Z])", self.problem.entry_point)
        return [part.lower() for part in parts if part]

    @cached_property
    def words(self) -> str:
        """What a reader reads as the task: the description and the function's name."""
        return f"{' '.join(self.name_words)} {self.description}"


@dataclass
class AuditContext:
    """What checks may use besides the problems: the sandbox, the whole benchmark, and the options."""

    engine: Engine
    benchmark: Sequence[Subject] = ()  # every problem audited (for checks of the whole benchmark)
    mutants: int = 20  # reference mutants tried per problem by the weak-tests check (0: none)
    seed: int = 0


CheckFunction = Callable[[Sequence[Subject], AuditContext], list[AuditFinding]]


@dataclass(frozen=True)
class AuditCheck:
    name: str
    severities: frozenset[str]
    inherited: bool  # what it finds lives in text and tests a variant takes from its parent
    scope: Literal["problem", "benchmark"]
    function: CheckFunction
    version: int = 1  # bump when the check's findings change for the same problems (resumed audits miss)

    def __call__(self, subjects: Sequence[Subject], ctx: AuditContext) -> list[AuditFinding]:
        return self.function(subjects, ctx)


AUDIT_CHECKS: Registry[AuditCheck] = Registry(
    "audit check",
    packages=("benchmorph.validation.audit",),
    group="benchmorph.audit_checks",
    env="BENCHMORPH_AUDIT_CHECKS",
    unknown=InputError,
)


def audit_check(
    name: str,
    *,
    severities: Iterable[str],
    inherited: bool,
    scope: Literal["problem", "benchmark"] = "problem",
    version: int = 1,
) -> Callable[[CheckFunction], CheckFunction]:
    """Register an audit check (see the module docstring); checks run in registration order."""
    declared = frozenset(severities)
    if not declared or not declared <= set(SEVERITIES):
        raise RegistryError(f"audit check {name!r} must declare severities among {', '.join(SEVERITIES)}")

    def register(function: CheckFunction) -> CheckFunction:
        AUDIT_CHECKS.add(name, AuditCheck(name, declared, inherited, scope, function, version))
        return function

    return register


def audit_checks(names: Sequence[str] | None = None, *, inherited: bool | None = None) -> list[AuditCheck]:
    """The registered checks (all, or those named, in registration order), optionally only inherited ones."""
    chosen = [check for _, check in AUDIT_CHECKS.items()]
    if names is not None:
        for name in names:
            AUDIT_CHECKS.check(name, "--checks")
        chosen = [check for check in chosen if check.name in set(names)]
    if inherited is not None:
        chosen = [check for check in chosen if check.inherited == inherited]
    return chosen


# ------------------------------------------------------------------ reading text

_BOUNDARY = re.compile(r"[.!?](?=\s)|\n[ \t]*\n|\n[ \t]*(?:\d+[.)]|[-*\u2022])[ \t]")


_QUOTES = re.compile(r"[rRuU]?(?:\"{3}|'{3})\s*")


def sentence_span(text: str, start: int, end: int) -> tuple[int, int]:
    """The sentence of ``text`` around ``[start, end)``: from after the previous boundary (a sentence's
    end, a blank line, a list item) to its own end, its full stop included."""
    before = 0
    for match in _BOUNDARY.finditer(text, 0, start):
        before = match.end()
    while before < start and text[before].isspace():
        before += 1
    quotes = _QUOTES.match(text, before, start)
    if quotes:  # the docstring's opening quotes are not part of its first sentence
        before = quotes.end()
    after = _BOUNDARY.search(text, end)
    if after is None:
        stop = len(text)
    else:
        stop = after.start() + (1 if text[after.start()] in ".!?" else 0)
    while stop > end and text[stop - 1].isspace():
        stop -= 1
    return before, max(stop, end)


def one_line(text: str, limit: int = 160) -> str:
    """``text`` on one line, cut to ``limit`` characters."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def call_text(problem: Problem, arguments: object) -> str:
    """``f(1, [2])`` for a test's input (stdin problems: the input's first line)."""
    if problem.kind == "stdin":
        return f"stdin {one_line(str(arguments), 60)!r}"
    args = arguments if isinstance(arguments, list | tuple) else [arguments]
    return one_line(f"{problem.entry_point}({', '.join(repr(arg) for arg in args)})", 120)


def value_text(value: object, limit: int = 60) -> str:
    return one_line(repr(value), limit)
