"""Make a variant's worked examples agree with its reference by running them in the sandbox.

Every example the description shows (``benchmorph.validation.examples.scan``
finds them) is run with the variant's reference and its value is replaced in
place.  When the parent is known, its reference runs on the same inputs too:
an example the parent's own reference disagrees with is not an example of
the function (HumanEval/130 writes ``tri(4) = 3`` for the sequence, while
``tri`` returns a list) or is a typo nobody can repair safely, so the
variant is rejected rather than rewritten into nonsense.  The parent's and
the variant's values go to the quality checks (``CheckInput.example_outputs``).
"""

from __future__ import annotations

import ast
import json
import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from benchmorph.data import values as value_codec
from benchmorph.data.models import Problem, TestCase, Variant
from benchmorph.execution.compare import values_match
from benchmorph.execution.engine import Engine
from benchmorph.validation.examples.scan import (
    Example,
    ExampleScan,
    has_literal_spelling,
    rewrite_examples,
    scan_examples,
)
from benchmorph.validation.examples.statements import STATEMENT_KINDS, recompute_statement_examples


@dataclass
class Recomputed:
    """One variant after its examples were recomputed: the rewritten variant, or why not."""

    result: Variant | str
    parent_values: list[Any] | None = None  # what the parent's reference shows on the examples' inputs
    values: list[Any] | None = None  # what the variant's reference shows (now written in its text)


def reference_parameters(problem: Problem) -> list[str] | None:
    """The entry point's parameter names, from the reference (MBPP prompts have no signature)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", (SyntaxWarning, DeprecationWarning))
            tree = ast.parse(problem.reference)
    except SyntaxError:
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == problem.entry_point:
            return [arg.arg for arg in [*node.args.posonlyargs, *node.args.args]]
    return None


def scan_problem(problem: Problem) -> ExampleScan:
    """The worked examples of a function problem's description."""
    return scan_examples(problem.prompt, problem.entry_point, reference_parameters(problem))


def _key(value: Any) -> str:
    return json.dumps(value_codec.encode(value), sort_keys=True)


def _probe(problem: Problem, probe_id: str, examples: Sequence[Example]) -> Problem:
    inputs: dict[str, list[Any]] = {}
    for example in examples:
        inputs.setdefault(_key(list(example.args)), list(example.args))
    return problem.model_copy(update={"id": probe_id, "tests": [TestCase(input=i) for i in inputs.values()]})


def _shown(example: Example, outputs: Mapping[str, Any]) -> tuple[bool, Any]:
    """(found, value the text should show) for one example, from the probe's outputs by input."""
    key = _key(list(example.args))
    if key not in outputs:
        return False, None
    try:
        return True, example.value_of(outputs[key])
    except (ValueError, TypeError, OverflowError):
        return False, None


def claim_agrees(example: Example, claimed: Any, value: Any, atol: float = 1e-6) -> bool:
    """Whether the text's claim is what the reference shows (``math.isclose`` examples use their rel_tol)."""
    if example.rel_tol is not None and isinstance(claimed, int | float) and isinstance(value, int | float):
        return math.isclose(claimed, value, rel_tol=example.rel_tol)
    if example.compare is not None:
        try:
            return values_match(example.compared(claimed), example.compared(value), max(atol, 1e-6), False)
        except (ValueError, TypeError):
            return False
    return values_match(claimed, value, max(atol, 1e-6), strict_sequences=False)


def recompute_examples(
    variants: Sequence[Variant], engine: Engine, parents: Mapping[str, Problem] | None = None
) -> dict[str, Recomputed]:
    """Per variant id: its examples recomputed and rewritten in place, or why that was impossible.

    ``parents`` (variant id to its parent problem) adds a demand and a
    measurement: each example of the parent's description agrees with the
    parent's own reference, and the parent's reference runs on the variant's
    examples too (``Recomputed.parent_values``, for ``examples-show-change``).
    The prompt is rewritten; where the reference
    embeds the prompt (HumanEval style, prompt + body), it gets the same text
    so the two never disagree.  Statements of ``stdin`` and ``method``
    problems (sample blocks, LeetCode examples) go to ``statement_examples``.
    """
    results: dict[str, Recomputed] = {}
    statements = [variant for variant in variants if variant.kind in STATEMENT_KINDS]
    if statements:
        results.update(
            {
                key: Recomputed(value)
                for key, value in recompute_statement_examples(statements, engine).items()
            }
        )
        variants = [variant for variant in variants if variant.kind not in STATEMENT_KINDS]
    parents = parents or {}
    scans = {variant.id: scan_problem(variant) for variant in variants}
    parent_scans = {vid: scan_problem(parent) for vid, parent in parents.items() if vid in scans}
    probes = []
    for variant in variants:
        scan = scans[variant.id]
        if scan.examples and not scan.unverifiable:
            probes.append(_probe(variant, f"{variant.id}#examples", scan.examples))
            if variant.id in parents:
                both = [*parent_scans[variant.id].examples, *scan.examples]
                probes.append(_probe(parents[variant.id], f"{variant.id}#parent-examples", both))
    prepared = engine.prepare(probes)
    computed = {
        problem.id: {_key(test.input): test.expected for test in problem.tests if test.has_expected}
        for problem in prepared.problems
    }
    for variant in variants:
        results[variant.id] = _recompute_one(
            variant, scans[variant.id], parent_scans.get(variant.id), computed
        )
    return results


def _recompute_one(
    variant: Variant,
    scan: ExampleScan,
    parent_scan: ExampleScan | None,
    computed: Mapping[str, Mapping[str, Any]],
) -> Recomputed:
    if scan.unverifiable:
        return Recomputed(
            f"an example in the description cannot be recomputed: {scan.unverifiable[0][:120]!r}"
        )
    if not scan.examples:
        if scan.has_examples:
            return Recomputed("the description shows examples but none of them could be read")
        if parent_scan is not None and parent_scan.has_examples:
            return Recomputed("the parent's description shows examples, the variant's none that can be read")
        return Recomputed(variant, [], [])
    outputs = computed.get(f"{variant.id}#examples", {})
    shown = [_shown(example, outputs) for example in scan.examples]
    if not all(found for found, _ in shown):
        missing = next(e for e, (found, _) in zip(scan.examples, shown, strict=True) if not found)
        return Recomputed(f"the reference fails on the example on line {missing.line + 1}")
    new_values = [value for _, value in shown]
    if not all(has_literal_spelling(value) for value in new_values):
        return Recomputed("an example's new value has no literal spelling (inf, nan or an object)")
    parent_values: list[Any] | None = None
    if parent_scan is not None:
        parent_outputs = computed.get(f"{variant.id}#parent-examples", {})
        parent_shown = [_shown(example, parent_outputs) for example in parent_scan.examples]
        if not all(found for found, _ in parent_shown):
            return Recomputed("the parent's reference fails on an example of its own description")
        for example, (_, value) in zip(parent_scan.examples, parent_shown, strict=True):
            try:
                claimed = example.claimed()
            except ValueError:
                return Recomputed(f"cannot read the parent's example on line {example.line + 1}")
            if not claim_agrees(example, claimed, value):
                return Recomputed(
                    f"the parent's example on line {example.line + 1} claims {example.expected_text.strip()[:40]!r} "
                    f"but its reference gives {value!r:.40}: not an example that can be recomputed"
                )
        on_variant = [_shown(example, parent_outputs) for example in scan.examples]
        # The parent may not run on an input only the variant shows: then there is nothing to compare.
        parent_values = [value for _, value in on_variant] if all(found for found, _ in on_variant) else None
    prompt = rewrite_examples(variant.prompt, scan.examples, new_values)
    again = scan_examples(prompt, variant.entry_point, reference_parameters(variant))
    if (
        len(again.examples) != len(scan.examples)
        or again.unverifiable
        or not all(
            claim_agrees(example, example.claimed(), value)
            for example, value in zip(again.examples, new_values, strict=True)
        )
    ):
        return Recomputed("the rewritten examples do not read back as the new values")
    reference = variant.reference
    if reference.count(variant.prompt) == 1:
        reference = reference.replace(variant.prompt, prompt)
    try:
        ast.parse(reference)
    except SyntaxError:
        return Recomputed("rewritten examples break the reference")
    provenance = {**variant.provenance, "examples_rewritten": len(scan.examples)}
    rewritten = variant.model_copy(
        update={"prompt": prompt, "reference": reference, "provenance": provenance}
    )
    return Recomputed(rewritten, parent_values, new_values)


@dataclass(frozen=True)
class ExampleCheck:
    """One worked example judged against the reference: what the text claims and what the reference gives.

    ``ran`` is False where the reference fails on the example's input;
    ``readable`` is False where the text's value cannot be read.
    """

    example: Example
    ran: bool
    value: Any = None
    readable: bool = True
    claimed: Any = None
    agrees: bool = False


def check_examples(problems: Sequence[Problem], engine: Engine) -> dict[str, list[ExampleCheck]]:
    """Per problem id: every worked example its scanner reads, judged against its reference.

    The problems must be prepared: their tests' outputs already answer an
    example whose input a test has, and only the other examples are run
    (one batch for all problems).  What the scanner cannot read is not
    judged here.
    """
    scans = {problem.id: scan_problem(problem) for problem in problems}
    known = {
        problem.id: {_key(test.input): test.expected for test in problem.tests if test.has_expected}
        for problem in problems
    }
    probes = []
    for problem in problems:
        missing = [e for e in scans[problem.id].examples if _key(list(e.args)) not in known[problem.id]]
        if missing:
            probes.append(_probe(problem, f"{problem.id}#kept-examples", missing))
    computed: dict[str, dict[str, Any]] = {}
    if probes:
        prepared = engine.prepare(probes)
        computed = {
            problem.id: {_key(test.input): test.expected for test in problem.tests if test.has_expected}
            for problem in prepared.problems
        }
    judged: dict[str, list[ExampleCheck]] = {}
    for problem in problems:
        outputs = {**known[problem.id], **computed.get(f"{problem.id}#kept-examples", {})}
        checks = []
        for example in scans[problem.id].examples:
            present, value = _shown(example, outputs)
            if not present:
                checks.append(ExampleCheck(example, ran=False))
                continue
            try:
                claimed = example.claimed()
            except ValueError:
                checks.append(ExampleCheck(example, ran=True, value=value, readable=False))
                continue
            agrees = claim_agrees(example, claimed, value, problem.atol)
            checks.append(ExampleCheck(example, True, value, True, claimed, agrees))
        judged[problem.id] = checks
    return judged


def kept_examples_disagree(variants: Sequence[Variant], engine: Engine) -> dict[str, str]:
    """Per variant id whose worked examples are kept as written: why one disagrees with its reference.

    A rewording keeps its parent's examples (``Draft(examples="keep")``), so
    nothing rewrites them, and a wrong one (MBPP+'s Mbpp/295 says
    ``assert sum_div(8)==7`` while its reference returns 15) would be
    published as it stands.  Every example the scanner reads is run with the
    variant's reference and its claim compared, as :func:`recompute_examples`
    does for the parent's examples (:func:`check_examples`); what it cannot
    read is not judged here.  Variants without a disagreement are absent
    from the result.
    """
    found: dict[str, str] = {}
    for variant_id, checks in check_examples(variants, engine).items():
        for check in checks:
            line = check.example.line + 1
            if not check.ran:
                found[variant_id] = f"the reference fails on the example on line {line}"
                break
            if not check.readable:
                found[variant_id] = f"cannot read the example on line {line}"
                break
            if not check.agrees:
                found[variant_id] = (
                    f"the example on line {line} claims {check.example.expected_text.strip()[:40]!r} "
                    f"but the reference gives {check.value!r:.40}"
                )
                break
    return found


def with_recomputed_examples(variants: Sequence[Variant], engine: Engine) -> dict[str, Variant | str]:
    """Per variant id: the variant with its examples rewritten, or why that was impossible."""
    return {key: outcome.result for key, outcome in recompute_examples(variants, engine).items()}
