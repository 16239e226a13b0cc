"""Samples in, verdicts and scores out: the evaluate use case without any UI.

The CLI wraps this with progress bars and tables; tests and scripts call it
directly.  Nothing is reused between runs except reference runs, which are
keyed by content, so a re-run gives the same verdicts and never stale ones.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmorph import __version__
from benchmorph.core.progress import Advance
from benchmorph.data.jsonl import write_jsonl
from benchmorph.data.models import Problem, Sample, TestResult, Variant, Verdict
from benchmorph.data.storage import write_text_atomic
from benchmorph.evaluation.checkpoint import VerdictStore
from benchmorph.evaluation.passk import dypass_at_k_table, dypass_counts, pass_at_k_table, sample_counts
from benchmorph.evaluation.sample_code import SanitizeReport
from benchmorph.execution.backends import ExecutionBackend
from benchmorph.execution.engine import Job, TimeoutReruns


@dataclass
class Evaluation:
    benchmark: str
    problems: dict[str, Problem]
    samples: list[Sample]
    verdicts: list[Verdict]
    isolation: str
    # Verdicts taken from a checkpoint of an earlier, interrupted run.
    reused: int = 0
    # The per-sample memory cap and how it held (Engine.resource_limits).
    memory_limit: dict[str, Any] | None = None
    # What re-running the timed-out samples changed (the flake rate); None: nothing was run here.
    reruns: TimeoutReruns | None = None
    # What the sanitizer changed (``evaluate --sanitize``, or at generation for ``run``); None: not applied.
    sanitizer: SanitizeReport | None = None

    def summary(self) -> dict[str, Any]:
        parents = {task: p.parent_id for task, p in self.problems.items() if isinstance(p, Variant)}
        summary = summarize(
            self.benchmark, self.samples, self.verdicts, self.isolation, self.memory_limit, parents
        )
        summary["reused_verdicts"] = self.reused
        if self.reruns is not None:
            summary["timeout_reruns"] = {
                "rerun": self.reruns.rerun,
                "changed": self.reruns.changed,
                "flake_rate": self.reruns.changed / self.reruns.rerun if self.reruns.rerun else 0.0,
                "changed_samples": list(self.reruns.changed_ids),
            }
        if self.sanitizer is not None:
            summary["sanitizer"] = self.sanitizer.summary()
        return summary


def generation_failure(problem: Problem, sample: Sample, isolation: str) -> Verdict:
    """A sample the model never answered: an error verdict, so it still counts against pass@k."""
    return Verdict(
        task_id=sample.task_id,
        index=sample.index,
        status="error",
        total=len(problem.tests),
        tests=[TestResult(index=i, status="not-run") for i in range(len(problem.tests))],
        error=f"generation failed: {sample.error}",
        isolation=isolation,
    )


def evaluate_samples(
    benchmark: str,
    problems: dict[str, Problem],
    samples: Sequence[Sample],
    engine: ExecutionBackend,
    progress: Advance | None = None,
    store: VerdictStore | None = None,
) -> Evaluation:
    """Judge every sample against its (prepared) problem; samples for unknown tasks must be filtered first.

    With a ``store``, verdicts already in it (same content key) are reused and
    new ones are saved as they come, so a killed run resumes where it stopped.
    """
    jobs = [Job(problems[s.task_id], s.code, s.task_id, s.index) for s in samples]
    verdicts: list[Verdict | None] = [
        generation_failure(problems[s.task_id], s, engine.isolation) if s.error is not None else None
        for s in samples
    ]
    keys = [engine.verdict_key(job) for job in jobs] if store is not None else []
    for position, key in enumerate(keys):
        if verdicts[position] is not None:
            continue
        saved = store.get(key)  # type: ignore[union-attr]
        if saved is not None and saved.task_id == jobs[position].task_id:
            verdicts[position] = saved.model_copy(update={"index": jobs[position].index})
    todo = [position for position, verdict in enumerate(verdicts) if verdict is None]
    if progress and len(todo) < len(jobs):
        progress(len(jobs) - len(todo))

    def save(index: int, verdict: Verdict) -> None:
        if store is not None:
            store.put(keys[todo[index]], verdict)

    fresh = engine.evaluate([jobs[i] for i in todo], progress, save)
    for position, verdict in zip(todo, fresh, strict=True):
        verdicts[position] = verdict
    done = [verdict for verdict in verdicts if verdict is not None]
    unanswered = sum(1 for sample in samples if sample.error is not None)
    reused = len(jobs) - len(todo) - unanswered
    reruns = engine.reruns if todo else TimeoutReruns()
    return Evaluation(
        benchmark, problems, list(samples), done, engine.isolation, reused, engine.resource_limits, reruns
    )


def summarize(
    benchmark: str,
    samples: Sequence[Sample],
    verdicts: Sequence[Verdict],
    isolation: str,
    memory_limit: dict[str, Any] | None = None,
    parents: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """Scores over the tasks that have samples: pass@k for every k up to the smallest sample count.

    ``memory_limit`` (``{"mode", "mb", "processes"}``) says how samples were
    capped: ``mode`` ``rlimits`` is per process only, the weaker cap.
    ``parents`` (variant id -> seed id): where variants share seeds,
    ``dypass@k`` for every k up to the fewest variants of a seed, with
    ``dypass_seeds`` and ``dypass_n`` (that fewest count) beside it.
    """
    counts = sample_counts(verdicts)
    table = pass_at_k_table(counts)
    statuses = Counter(verdict.status for verdict in verdicts)
    summary: dict[str, Any] = {
        "benchmark": benchmark,
        "n_problems": len(counts),
        "n_samples": len(samples),
        "pass@1": table.get(1, 0.0),
    }
    for k, value in table.items():
        summary[f"pass@{k}"] = value
    dynamic = dypass_at_k_table(verdicts, parents or {})
    if dynamic:
        for k, value in dynamic.items():
            summary[f"dypass@{k}"] = value
        seeds = dypass_counts(verdicts, parents or {})
        summary["dypass_seeds"] = len(seeds)
        summary["dypass_n"] = min(n for n, _ in seeds.values())
    summary["statuses"] = dict(sorted(statuses.items()))
    summary["solved_problems"] = sum(1 for _, c in counts.values() if c > 0)
    summary["isolation"] = isolation
    if memory_limit is not None:
        summary["memory_limit"] = dict(memory_limit)
    summary["benchmorph_version"] = __version__
    return summary


def verdict_rows(verdicts: Sequence[Verdict], raw: Mapping[int, str] | None = None) -> list[dict[str, Any]]:
    """One JSON row per verdict; ``raw[i]``, where given, is the text the sanitizer read for sample ``i``
    (kept beside the verdict as ``raw``, with ``sanitized: true``)."""
    rows = [verdict.model_dump(mode="json") for verdict in verdicts]
    for index, text in (raw or {}).items():
        rows[index]["sanitized"] = True
        rows[index]["raw"] = text
    return rows


def write_evaluation(out_dir: str | Path, evaluation: Evaluation) -> dict[str, Any]:
    """Write results.jsonl (one Verdict per sample) and summary.json; returns the summary."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    changed = evaluation.sanitizer.changed if evaluation.sanitizer is not None else None
    write_jsonl(out / "results.jsonl", verdict_rows(evaluation.verdicts, changed))
    # EvoEval runs only: per-type pass@1, the composition ratio (benchmorph.evaluation.evolve_metrics).
    from benchmorph.evaluation.evolve_metrics import evolve_summary

    summary = {**evaluation.summary(), **evolve_summary(evaluation.problems, evaluation.verdicts)}
    write_text_atomic(out / "summary.json", json.dumps(summary, indent=2) + "\n")
    return summary
