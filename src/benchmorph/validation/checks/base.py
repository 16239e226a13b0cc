"""Quality checks a variant must pass before anyone sees it: small named functions, one concern each.

Execution proves a variant's reference runs; it does not prove that a careful
reader of the new description would write that reference.  Each check looks
for one way a variant can be valid by execution and still wrong or useless as
a task, and says so in one line.

A check is registered with ``@quality_check(name, reads={...})``, declaring
what it reads of a candidate (:data:`READS`).  A draft offers some of those
things (``Draft.offers()`` in ``morph.finalize``: every draft has text and
outputs, a rule edit offers ``edit``, and so on), and ``finalize_variants``
runs every check whose reads the draft offers, in registration order, and
records their names on the candidate (``provenance["checks_run"]``): a check
never silently fails to run because someone forgot to list it.

Checks live one module per subject in this package; a new module here, a
``benchmorph.checks`` entry point, or a module named in ``$BENCHMORPH_CHECKS``
registers its checks when discovered.  A check returns ``None`` (nothing to
say) or a ``Finding``: ``reject`` drops the variant, ``review`` holds it for
a person (kept out of the default output).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from benchmorph.core.registry import Registry, RegistryError
from benchmorph.data import values
from benchmorph.data.errors import InputError
from benchmorph.data.models import Problem, TestCase, Variant
from benchmorph.execution.compare import outputs_match

Severity = Literal["reject", "review"]


@dataclass(frozen=True)
class Edit:
    """What a rule-based transform changed: one span of the description and one of the code.

    Offsets are into the parent's prompt and the parent's reference; the
    structure, contrast and tie checks read them.  LLM transforms have none.
    """

    family: str  # rule family: extreme, order, parity, position, affix, case, sign, strict, aggregate, count,
    # power, compare, charclass, side, quantifier
    rule: str
    old_text: str
    new_text: str
    text_span: tuple[int, int]
    old_code: str
    new_code: str
    code_span: tuple[int, int]


@dataclass(frozen=True)
class Steps:
    """What a problem built from its parents' texts quotes of them: a combined problem's two steps, a
    helper's docstring.  Read by the composition checks (``validation.checks.steps``).

    ``quoted``: the parents' texts as they now stand in the new description
    (after the transform's rewording); ``names``: parents' function names the
    quoted texts must not use (the new problem has no function of that name);
    ``handoffs``: per test, its input and the value the second step receives
    (the first step's output); ``receiver``/``receiver_param``: the second
    step's description, which states its domain, and its parameter's name;
    ``survivors``: mutants of a parent that its own tests kill and the new
    tests do not (a stated rule no test decides), when they were looked for
    (``exercised``).  A helper's docstring (``role`` ``helper``) still speaks
    of its own function, so "the function should return" is right there.
    """

    quoted: tuple[str, ...] = ()
    role: Literal["step", "helper"] = "step"  # a step of the new function, or a given helper's docstring
    names: tuple[str, ...] = ()
    handoffs: tuple[tuple[Any, Any], ...] = ()
    receiver: str = ""
    receiver_param: str = ""
    survivors: tuple[str, ...] = ()
    exercised: bool = False


@dataclass(frozen=True)
class Finding:
    check: str
    reason: str
    severity: Severity = "reject"


@dataclass
class CheckInput:
    """Everything a check may read about one candidate, after its outputs and examples were recomputed."""

    variant: Variant  # tests carry the variant's outputs; examples rewritten
    parent: Problem  # tests carry the parent's outputs
    edit: Edit | None = None
    example_outputs: tuple[list[Any], list[Any]] | None = None  # (parent's, variant's) example values
    extra: dict[str, Any] = field(default_factory=dict)
    # Share of the variant's tests each program that ignores what it adds passes ("baselines").
    baseline_passes: dict[str, float] | None = None
    steps: Steps | None = None  # what a problem built from its parents' texts quotes of them ("steps")
    _pairs: tuple[tuple[int, int], list[tuple[Any, Any, Any]]] | None = field(
        default=None, init=False, repr=False, compare=False
    )

    def paired_outputs(self) -> list[tuple[Any, Any, Any]]:
        """(input, parent output, variant output) for every inherited input both have an output for.

        Computed once per pair of test lists: every output check reads it, and on MBPP+'s large
        inputs encoding them is the checks' main cost.
        """
        key = (id(self.variant.tests), id(self.parent.tests))
        if self._pairs is None or self._pairs[0] != key:
            parent_out = {
                value_key(test.input): test.expected for test in self.parent.tests if test.has_expected
            }
            pairs = [
                (test.input, parent_out[code], test.expected)
                for test in self.variant.tests
                if test.has_expected and (code := value_key(test.input)) in parent_out
            ]
            self._pairs = (key, pairs)
        return self._pairs[1]


Check = Callable[[CheckInput], "Finding | None"]

# What a check may read of a candidate.  A draft offers a subset (``morph.finalize.Draft.offers``), and a
# check runs on it exactly when the draft offers everything the check reads.
READS: dict[str, str] = {
    "text": "the variant's prompt and reference (every draft)",
    "outputs": "the variant's tests with their outputs, and the parent's on the same inputs (every draft)",
    "changes": "output changes against the parent that measure one changed detail (a counterfactual twin)",
    "edit": "the rule edit: the description span and code span a rule-based transform changed",
    "examples": "the worked examples, recomputed from the variant's reference",
    "baselines": "programs that ignore what a new problem adds (its parent's reference, either step of a "
    "combined problem alone), with the share of the variant's tests each passes",
    "suite": "the variant's tests as a suite of its own (a new problem's: how many, how many distinct outputs)",
    "steps": "what a problem built from its parents' texts quotes of them: the quoted texts, the parents' "
    "names, the first step's outputs handed to the second and its stated domain, and the parents' mutants "
    "the new tests let through",
}


@dataclass(frozen=True)
class QualityCheck:
    """A registered check: its name, what it reads, and the function."""

    name: str
    reads: frozenset[str]
    function: Check

    def applies(self, offers: frozenset[str] | set[str]) -> bool:
        return self.reads <= offers

    def __call__(self, item: CheckInput) -> Finding | None:
        return self.function(item)


CHECKS: Registry[QualityCheck] = Registry(
    "quality check",
    packages=("benchmorph.validation.checks",),
    group="benchmorph.checks",
    env="BENCHMORPH_CHECKS",
    unknown=InputError,
)


def quality_check(name: str, *, reads: Iterable[str]) -> Callable[[Check], Check]:
    """Register a check under ``name`` that reads ``reads`` (keys of :data:`READS`); checks run in
    registration order (module by module, in name order, then as defined)."""
    declared = frozenset(reads)
    unknown = sorted(declared - set(READS))
    if unknown or not declared:
        raise RegistryError(
            f"quality check {name!r} must declare what it reads, from {', '.join(READS)}; "
            f"got {', '.join(unknown) or 'nothing'}"
        )

    def register(function: Check) -> Check:
        CHECKS.add(name, QualityCheck(name, declared, function))
        return function

    return register


def checks_for(offers: frozenset[str] | set[str]) -> list[QualityCheck]:
    """Every registered check that reads only what a draft ``offers``, in run order."""
    return [check for _, check in CHECKS.items() if check.applies(offers)]


def run_checks(item: CheckInput, names: Sequence[str] | None = None) -> list[Finding]:
    """Every finding of the named checks (all registered ones by default), in order."""
    found = []
    for name in names if names is not None else CHECKS.names():
        finding = CHECKS.get(name)(item)
        if finding is not None:
            found.append(finding)
    return found


def value_key(value: Any) -> str:
    """A value as canonical JSON text: equal values, equal keys (for sets and counts of outputs)."""
    return json.dumps(values.encode(value), sort_keys=True)


def same_output(a: Any, b: Any, problem: Problem) -> bool:
    """Whether two outputs count as equal for ``problem`` (its kind, tolerance and sequence rules)."""
    return outputs_match(problem.kind, a, b, problem.atol, problem.strict_sequences)


def changed_fraction(item: CheckInput) -> float:
    """Share of inherited inputs whose output differs between parent and variant."""
    pairs = item.paired_outputs()
    if not pairs:
        return 0.0
    return sum(1 for _, old, new in pairs if not same_output(old, new, item.variant)) / len(pairs)


def constant_outputs(tests: Sequence[TestCase], at_least: int = 3) -> bool:
    """At least ``at_least`` tests with outputs, all one value: no task (a constant function solves it)."""
    outputs = {value_key(test.expected) for test in tests if test.has_expected}
    return len([t for t in tests if t.has_expected]) >= at_least and len(outputs) == 1


def quote(text: str, limit: int = 70) -> str:
    """Text on one line, cut to ``limit`` characters, for a finding's reason."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def leaves(value: Any) -> list[Any]:
    """The scalar leaves of a nested container, in order."""
    if isinstance(value, list | tuple | set | frozenset):
        return [leaf for item in value for leaf in leaves(item)]
    if isinstance(value, dict):
        return [leaf for item in value.values() for leaf in leaves(item)]
    return [value]


def short_repr(value: Any, limit: int = 30) -> str:
    """``repr(value)`` cut to ``limit`` characters, for a finding's reason."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
