"""Make a variant's worked examples agree with its reference by running them in the sandbox."""

from __future__ import annotations

import ast
from collections.abc import Sequence

from benchmorph.data.models import TestCase, Variant
from benchmorph.execution.engine import Engine
from benchmorph.validation.examples import has_literal_spelling, rewrite_examples, scan_examples
from benchmorph.validation.statement_examples import STATEMENT_KINDS, recompute_statement_examples


def with_recomputed_examples(variants: Sequence[Variant], engine: Engine) -> dict[str, Variant | str]:
    """Per variant id: the variant with its examples rewritten, or why that was impossible.

    The prompt is rewritten; where the reference embeds the prompt (HumanEval
    style, prompt + body), it gets the same text so the two never disagree.
    Statements of ``stdin`` and ``method`` problems (sample blocks, LeetCode
    examples) are handled by ``statement_examples``.
    """
    statements = [variant for variant in variants if variant.kind in STATEMENT_KINDS]
    if statements:
        rest = [variant for variant in variants if variant.kind not in STATEMENT_KINDS]
        return {**recompute_statement_examples(statements, engine), **with_recomputed_examples(rest, engine)}
    scans = {variant.id: scan_examples(variant.prompt, variant.entry_point) for variant in variants}
    probes = [
        variant.model_copy(
            update={
                "id": f"{variant.id}#examples",
                "tests": [TestCase(input=list(e.args)) for e in scans[variant.id].examples],
            }
        )
        for variant in variants
        if scans[variant.id].examples and not scans[variant.id].unverifiable
    ]
    computed = {problem.id: problem for problem in engine.prepare(probes).problems}
    results: dict[str, Variant | str] = {}
    for variant in variants:
        scan = scans[variant.id]
        if scan.unverifiable:
            results[variant.id] = "an example in the description cannot be recomputed"
            continue
        if not scan.examples:
            results[variant.id] = variant
            continue
        probe = computed.get(f"{variant.id}#examples")
        if probe is None or len(probe.tests) != len(scan.examples):
            results[variant.id] = "reference fails on an example of the description"
            continue
        outputs = [test.expected for test in probe.tests]
        if not all(has_literal_spelling(value) for value in outputs):
            results[variant.id] = "an example's new value has no literal spelling (inf, nan or an object)"
            continue
        prompt = rewrite_examples(variant.prompt, scan.examples, outputs)
        reference = variant.reference
        if reference.count(variant.prompt) == 1:
            reference = reference.replace(variant.prompt, prompt)
        try:
            ast.parse(reference)
        except SyntaxError:
            results[variant.id] = "rewritten examples break the reference"
            continue
        provenance = {**variant.provenance, "examples_rewritten": len(scan.examples)}
        results[variant.id] = variant.model_copy(
            update={"prompt": prompt, "reference": reference, "provenance": provenance}
        )
    return results
