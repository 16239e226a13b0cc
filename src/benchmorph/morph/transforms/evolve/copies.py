"""A new problem the benchmark already holds is no new problem: another problem's reference solving it.

Composing two problems can land on a third: ``strlen`` then ``is_prime`` is
HumanEval/82's ``prime_length``, which a model that solved 82 passes.  Each
accepted combine or tool_use variant is run against the references of every
other problem of the benchmark that could answer it (same number of
arguments, their types admitting the variant's inputs and the variant's
outputs), each aliased to the variant's name, in one sandbox batch per
variant; where one passes at least :data:`COPY_SHARE` of the tests, the
variant is rejected as ``copy-of-benchmark`` naming it.  Its parents are left
to ``solved-without``, which already ran them.
"""

from __future__ import annotations

from collections.abc import Sequence

from benchmorph.data.models import Problem, Variant
from benchmorph.execution.engine import Engine
from benchmorph.morph.finalize import decided
from benchmorph.morph.transform import ACCEPTED, REJECTED
from benchmorph.testgen.types import Signature, TypeExpr, admits, infer_signature, infer_type
from benchmorph.validation.checks.base import same_output

COPY_SHARE = 0.8  # the share of a variant's tests another problem's reference may pass at most
CHECKED = ("combine", "tool_use")


def _answers(sig: Signature, returns: TypeExpr, variant: Variant) -> bool:
    """Whether a problem of this signature and output type could be asked the variant's tests."""
    tests = [t for t in variant.tests if t.has_expected]
    return bool(tests) and all(
        sig.admits_args(t.input, numeric_widening=True) and admits(returns, t.expected, numeric_widening=True)
        for t in tests
    )


def copies_of_benchmark(
    candidates: Sequence[Variant], problems: Sequence[Problem], engine: Engine
) -> list[Variant]:
    """``candidates`` with each accepted combine/tool_use variant that another problem solves rejected."""
    shapes = {}
    for problem in problems:
        if problem.kind != "function" or not problem.tests:
            continue
        try:
            sig = infer_signature(problem)
        except Exception:  # noqa: BLE001 - a problem we cannot type answers nothing here
            continue
        shapes[problem.id] = (problem, sig, infer_type([t.expected for t in problem.tests if t.has_expected]))
    out = []
    for candidate in candidates:
        if candidate.provenance.get("status") == ACCEPTED and candidate.label in CHECKED:
            found = _copy(candidate, shapes, engine)
            if found is not None:
                candidate = decided(candidate, REJECTED, "copy-of-benchmark", found)
        out.append(candidate)
    return out


def _copy(
    variant: Variant, shapes: dict[str, tuple[Problem, Signature, TypeExpr]], engine: Engine
) -> str | None:
    parents = set(variant.provenance.get("parents") or [variant.parent_id])
    others = [
        problem
        for pid, (problem, sig, returns) in shapes.items()
        if pid not in parents and _answers(sig, returns, variant)
    ]
    if not others:
        return None
    codes = [f"{p.reference.rstrip()}\n\n\n{variant.entry_point} = {p.entry_point}\n" for p in others]
    tests = [t for t in variant.tests if t.has_expected]
    best: tuple[float, str] = (0.0, "")
    for problem, run in zip(others, engine.run_outputs(variant, codes), strict=True):
        passed = sum(
            1
            for test, ok, output in zip(variant.tests, run.ok, run.outputs, strict=True)
            if test.has_expected and ok and same_output(test.expected, output, variant)
        )
        best = max(best, (passed / len(tests), problem.id))
    if best[0] >= COPY_SHARE:
        return f"{best[1]}'s reference passes {best[0]:.0%} of the {len(tests)} tests: the benchmark already holds it"
    return None
