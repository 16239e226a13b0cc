"""The per-problem drill-down: both descriptions with the changed words marked, and what each model wrote.

A reader who sees a model fail a counterfactual wants to know whether the
change was subtle, what the model wrote, and which test caught it; this is
that evidence, one record per problem.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from benchmorph.data.models import Problem, Verdict
from benchmorph.evaluation.rundir import RunDir
from benchmorph.report.analysis import Pairing, ProblemRow

CLIP = 240
# Words, runs of whitespace, and single punctuation marks: joined back they are the text unchanged.
_TOKENS = re.compile(r"\s+|\w+|[^\w\s]")


@dataclass
class Attempt:
    status: str
    code: str
    failure: str | None = None  # the first failing test: input, expected vs actual (or the error)
    raw: str | None = None  # the answer before sanitizing, when it differs from the code


@dataclass
class ProblemDetail:
    id: str
    parent_id: str | None
    family: str
    original_prompt: str | None
    variant_prompt: str | None
    original_marked: list[tuple[str, bool]] = field(default_factory=list)  # (text, changed)
    variant_marked: list[tuple[str, bool]] = field(default_factory=list)
    attempts: dict[str, dict[str, Attempt | None]] = field(default_factory=dict)  # model -> side -> attempt
    key: str = ""  # the per-problem row's key (ProblemRow.key), which the page looks details up by


def mark_changes(before: str, after: str) -> tuple[list[tuple[str, bool]], list[tuple[str, bool]]]:
    """Both texts cut into (text, changed) runs, whitespace kept so code and layout read as written."""
    old, new = _TOKENS.findall(before), _TOKENS.findall(after)
    left: list[tuple[str, bool]] = []
    right: list[tuple[str, bool]] = []
    matcher = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        changed = tag != "equal"
        _append(left, "".join(old[i1:i2]), changed)
        _append(right, "".join(new[j1:j2]), changed)
    return left, right


def _append(runs: list[tuple[str, bool]], text: str, changed: bool) -> None:
    if not text:
        return
    if changed and not text.strip():
        changed = False  # a changed run of spaces has nothing to highlight
    if runs and runs[-1][1] == changed:
        runs[-1] = (runs[-1][0] + text, changed)
    else:
        runs.append((text, changed))


def _clip(text: str) -> str:
    return text if len(text) <= CLIP else text[: CLIP - 3] + "..."


def describe_failure(verdict: Verdict, problem: Problem | None) -> str | None:
    """'test 3/9: f(1, 2): expected 3, got 4', or the error that stopped the sample."""
    if verdict.ok:
        return None
    failing = next((test for test in verdict.tests if test.status != "pass"), None)
    if failing is None:
        return _clip(verdict.error or verdict.status)
    what = failing.diff or failing.error or failing.status
    call = ""
    # The input is only known for sure when no test was dropped while preparing the problem.
    if problem is not None and len(problem.tests) == verdict.total and failing.index < len(problem.tests):
        value = problem.tests[failing.index].input
        if problem.kind == "stdin":
            call = f"stdin {_clip(repr(value))}: "
        elif isinstance(value, list | tuple):
            call = _clip(f"{problem.entry_point}({', '.join(repr(arg) for arg in value)})") + ": "
    return f"test {failing.index + 1}/{verdict.total}: {call}{_clip(what)}"


class _RunView:
    """Sample 0 and its verdict per task of one run, and the run's problems."""

    def __init__(self, run: RunDir) -> None:
        self.samples = {s.task_id: s for s in run.samples if s.index == 0}
        self.verdicts = {v.task_id: v for v in run.verdicts if v.index == 0}
        self.problems = run.problems()

    def attempt(self, task: str) -> Attempt | None:
        verdict = self.verdicts.get(task)
        if verdict is None:
            return None
        sample = self.samples.get(task)
        return Attempt(
            verdict.status,
            sample.code if sample else "",
            describe_failure(verdict, self.problems.get(task)),
            sample.raw if sample and sample.raw != sample.code else None,
        )


def problem_details(
    rows: Sequence[ProblemRow], pairs: Sequence[Pairing], originals: Sequence[RunDir], labels: dict[str, str]
) -> list[ProblemDetail]:
    """One drill-down record per per-problem row, in the same order."""
    views: dict[str, _RunView] = {}

    def view(run: RunDir) -> _RunView:
        key = str(run.path)
        if key not in views:
            views[key] = _RunView(run)
        return views[key]

    by_variant: dict[str, list[Pairing]] = {}
    for pairing in pairs:
        for vid in pairing.families:
            by_variant.setdefault(vid, []).append(pairing)
    details = []
    for row in rows:
        if row.parent_id is None:  # no variants: original problems only
            runs = [run for run in originals if run.benchmark == row.family and row.id in view(run).verdicts]
            prompt = next(
                (view(run).problems[row.id].prompt for run in runs if row.id in view(run).problems), None
            )
            detail = ProblemDetail(row.id, None, row.family, prompt, None, key=row.key)
            detail.original_marked = [(prompt or "", False)]
            for run in runs:
                detail.attempts[labels[str(run.path)]] = {
                    "original": view(run).attempt(row.id),
                    "variant": None,
                }
            details.append(detail)
            continue
        # Only the variant runs this row's family came from: sets that reuse ids are not mixed.
        matching = [
            pairing for pairing in by_variant.get(row.id, []) if pairing.families[row.id] == row.family
        ]
        original_prompt = variant_prompt = None
        attempts: dict[str, dict[str, Attempt | None]] = {}
        for pairing in matching:
            original_view, variant_view = view(pairing.original), view(pairing.variant)
            if original_prompt is None and row.parent_id in original_view.problems:
                original_prompt = original_view.problems[row.parent_id].prompt
            if variant_prompt is None and row.id in variant_view.problems:
                variant_prompt = variant_view.problems[row.id].prompt
            attempts[pairing.model] = {
                "original": original_view.attempt(row.parent_id),
                "variant": variant_view.attempt(row.id),
            }
        detail = ProblemDetail(
            row.id, row.parent_id, row.family, original_prompt, variant_prompt, key=row.key
        )
        detail.original_marked, detail.variant_marked = mark_changes(
            original_prompt or "", variant_prompt or ""
        )
        detail.attempts = {model: attempts[model] for model in sorted(attempts)}
        details.append(detail)
    return details
