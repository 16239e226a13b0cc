"""The LLM-free counterfactual miner: paired description/reference edits, kept only if execution agrees.

Deterministic and offline, so it gives every user counterfactual variants
with no model at all, and a cheap first pass before the LLM pipeline.  A
candidate survives only if its reference runs on every inherited input,
changes the output on at least one, its worked examples can be recomputed,
and its wording moved at most ``epsilon`` (D_Q).
"""

from __future__ import annotations

import ast
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from benchmorph.data import values
from benchmorph.data.models import Problem, TestCase, Variant
from benchmorph.execution.compare import values_match
from benchmorph.execution.engine import Engine
from benchmorph.morph.rules import RULES, EditRule, match_case
from benchmorph.validation.distances import description_distance, prose
from benchmorph.validation.example_check import with_recomputed_examples
from benchmorph.validation.examples import scan_examples

Progress = Callable[[int], None]
DEFAULT_EPSILON = 0.13


@dataclass
class Candidate:
    parent: Problem
    rule: EditRule
    prompt: str
    reference: str


@dataclass
class MineReport:
    variants: list[Variant]
    parents: int = 0
    candidates: int = 0
    rejected: dict[str, int] = field(default_factory=dict)  # reason -> count

    def reject(self, reason: str) -> None:
        self.rejected[reason] = self.rejected.get(reason, 0) + 1

    @property
    def problems_with_variant(self) -> int:
        return len({variant.parent_id for variant in self.variants})


def split_reference(problem: Problem) -> tuple[str, str]:
    """(part shared with the prompt, the solution code after it); only the latter is edited as code."""
    if problem.reference.startswith(problem.prompt):
        return problem.prompt, problem.reference[len(problem.prompt) :]
    return "", problem.reference


def _single(pattern: Any, text: str) -> Any:
    matches = list(pattern.finditer(text))
    return matches[0] if len(matches) == 1 else None


def propose(problem: Problem, rules: Sequence[EditRule] = RULES) -> list[Candidate]:
    """Every rule whose text pattern occurs once in the description and code pattern once in the solution."""
    if problem.kind != "function":
        return []
    scan = scan_examples(problem.prompt, problem.entry_point)
    description = prose(problem.prompt, scan, problem.entry_point)
    shared, code = split_reference(problem)
    found = []
    for rule in rules:
        text_match = _single(rule.text_pattern, description)
        code_match = _single(rule.code_pattern, code)
        if text_match is None or code_match is None:
            continue
        start, end = text_match.span()
        new_prompt = (
            problem.prompt[:start]
            + match_case(text_match.group(0), rule.text_replacement)
            + problem.prompt[end:]
        )
        new_code = (
            code[: code_match.start()] + code_match.expand(rule.code_replacement) + code[code_match.end() :]
        )
        new_reference = rule.code_prelude + (new_prompt if shared else "") + new_code
        try:
            ast.parse(new_reference)
        except SyntaxError:
            continue
        found.append(Candidate(problem, rule, new_prompt, new_reference))
    return found


def _constant(tests: Sequence[TestCase], at_least: int = 3) -> bool:
    """True when a solution answers every one of several inputs alike."""
    outputs = {json.dumps(values.encode(test.expected), sort_keys=True) for test in tests}
    return len(tests) >= at_least and len(outputs) == 1


def _input_key(test: TestCase) -> str:
    return json.dumps(values.encode(test.input), sort_keys=True)


def mine(
    problems: Sequence[Problem],
    engine: Engine,
    *,
    epsilon: float = DEFAULT_EPSILON,
    keep_all: bool = False,
    rules: Sequence[EditRule] = RULES,
    progress: Progress | None = None,
) -> MineReport:
    """Counterfactual variants of ``problems`` (one per problem, the largest behaviour change, unless keep_all)."""
    set_total = getattr(progress, "set_total", None)
    if set_total is not None:
        set_total(len(problems))
    parents = {problem.id: problem for problem in engine.prepare(problems, progress).problems}
    report = MineReport([], parents=len(parents))
    candidates = [candidate for problem in parents.values() for candidate in propose(problem, rules)]
    report.candidates = len(candidates)
    drafts: list[tuple[Candidate, Variant]] = []
    per_parent: dict[str, int] = {}
    for candidate in candidates:
        parent = candidate.parent
        number = per_parent.get(parent.id, 0)
        per_parent[parent.id] = number + 1
        d_q = description_distance(parent.prompt, candidate.prompt, parent.entry_point)
        if d_q == 0.0:
            report.reject("identical wording")
            continue
        if d_q > epsilon:
            report.reject("D_Q above epsilon")
            continue
        variant = Variant(
            **parent.model_dump(exclude={"id", "prompt", "reference", "tests", "source"}),
            id=f"{parent.id}/ctf-mine-{number}",
            prompt=candidate.prompt,
            reference=candidate.reference,
            tests=[TestCase(input=test.input, origin=test.origin) for test in parent.tests],
            source={"benchmark": parent.source.get("benchmark"), "derived_from": parent.id},
            parent_id=parent.id,
            transform="mine",
            label="ctf",
            provenance={"rule": candidate.rule.name, "d_q": round(d_q, 4), "review_status": "unreviewed"},
        )
        drafts.append((candidate, variant))

    if set_total is not None:
        set_total(len(problems) + len(drafts))
    prepared = engine.prepare([variant for _, variant in drafts], progress)
    ready = {problem.id: problem for problem in prepared.problems}
    checked: list[tuple[Candidate, Variant, float]] = []
    for candidate, variant in drafts:
        if variant.id in prepared.unusable or variant.id in prepared.dropped_tests or variant.id not in ready:
            report.reject("reference fails on an inherited input")
            continue
        done = ready[variant.id]
        parent_out = {_input_key(test): test.expected for test in candidate.parent.tests}
        differing = sum(
            1
            for test in done.tests
            if not values_match(parent_out[_input_key(test)], test.expected, done.atol, done.strict_sequences)
        )
        if differing == 0:
            report.reject("same outputs on every input (robust, not counterfactual)")
            continue
        if _constant(done.tests) and not _constant(candidate.parent.tests):
            # e.g. "maximum" -> "minimum" nesting depth that is always 0: valid by execution, useless as a task.
            report.reject("degenerate: the same output for every input")
            continue
        checked.append((candidate, done, differing / max(1, len(done.tests))))

    rewritten = with_recomputed_examples([variant for _, variant, _ in checked], engine)
    finished: list[tuple[Variant, float]] = []
    for candidate, variant, change in checked:
        outcome = rewritten[variant.id]
        if isinstance(outcome, str):
            report.reject(outcome)
            continue
        provenance = {
            **outcome.provenance,
            "behavior_change": round(change, 4),
            "examples_rewritten": outcome.provenance.get("examples_rewritten", 0),
            "parent_reference": candidate.parent.reference,
        }
        finished.append((outcome.model_copy(update={"provenance": provenance}), change))
    if not keep_all:
        best: dict[str, tuple[Variant, float]] = {}
        for variant, change in finished:
            current = best.get(variant.parent_id)
            if current is None or (change, -variant.provenance["d_q"]) > (
                current[1],
                -current[0].provenance["d_q"],
            ):
                best[variant.parent_id] = (variant, change)
        finished = list(best.values())
    order = {problem.id: index for index, problem in enumerate(problems)}
    finished.sort(key=lambda pair: (order.get(pair[0].parent_id, 0), pair[0].id))
    report.variants = [variant for variant, _ in finished]
    return report
