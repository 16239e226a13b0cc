"""Every model and baseline on the originals and on every variant set, through ``run_benchmark``.

Each run is an ordinary run directory (``DIR/runs/SET/MODEL``): answers come from the LLM cache and
verdicts from the run's own checkpoint, so a study killed anywhere resumes where it stopped, and
``benchmorph report`` reads the runs like any others.  Baselines come from the baseline registry
(``models.baselines.BASELINES``); one that declares an ``originals`` option and cannot answer a set on
its own (the memorizer does not know the parent of a variant that does not record its prompt) runs
with ``?originals=BENCH`` on every set, so its runs pair with one another.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmorph.core.notices import Notify
from benchmorph.core.progress import ProgressFactory, no_progress
from benchmorph.data.errors import InputError
from benchmorph.data.models import Problem
from benchmorph.data.registry import Benchmark, load_benchmark
from benchmorph.data.samples import read_samples
from benchmorph.evaluation.runs import ModelAccess, RunResult, evaluate_run, run_benchmark
from benchmorph.evaluation.study.work import JudgingBackend, WorkLog
from benchmorph.execution.backends import ExecutionBackend
from benchmorph.models import GenerationParams
from benchmorph.models.baselines import BASELINES

ORIGINALS = "originals"
AUGMENTED = "augmented"


def safe_name(text: str) -> str:
    """A model spec as a directory name."""
    cleaned = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in text)
    return cleaned.strip("_")[:80] or "model"


def baseline_spec(name: str, sets: Sequence[Sequence[Problem]], originals: str) -> str:
    """The spec a baseline runs as in this study: bare, or with ``?originals=`` where it needs them."""
    declared = BASELINES.meta(name).get("options", ())
    if "originals" not in declared:
        return name
    answer = BASELINES.get(name)
    for problems in sets:
        try:
            answer(list(problems), {})
        except InputError:
            return f"{name}?originals={originals}"
    return name


@dataclass
class RunRecord:
    """One finished run of the study: which model on which set, and its directory."""

    model: str  # the label (the spec as run)
    set: str  # originals, augmented or a variant set's name
    path: Path
    pass_at_1: float
    problems: int
    samples: int
    seconds: float = 0.0
    answers_paid: int = 0

    def to_json(self, root: Path) -> dict[str, Any]:
        return {
            "model": self.model,
            "set": self.set,
            "path": str(self.path.relative_to(root)),
            "pass@1": self.pass_at_1,
            "problems": self.problems,
            "samples": self.samples,
        }


def run_one(
    bench: Benchmark,
    model: str,
    set_name: str,
    out_dir: Path,
    engine: ExecutionBackend,
    log: WorkLog,
    *,
    problems: Sequence[Problem] | None,
    params: GenerationParams,
    access: ModelAccess,
    progress: ProgressFactory = no_progress,
    notify: Notify | None = None,
) -> RunRecord:
    folder = out_dir / "runs" / set_name / safe_name(model)
    judge = JudgingBackend(engine, log, scope=str(folder.relative_to(out_dir)))
    started = time.perf_counter()
    result: RunResult = run_benchmark(
        bench,
        model,
        folder,
        judge,
        problems=problems,
        params=params,
        access=access,
        progress=progress,
        notify=notify,
    )
    generation = result.generation
    log.tally.verdicts_reused += result.summary.reused_verdicts or 0
    return RunRecord(
        model=model,
        set=set_name,
        path=folder,
        pass_at_1=result.summary.pass_at_1,
        problems=result.summary.n_problems,
        samples=result.summary.n_samples,
        seconds=time.perf_counter() - started,
        answers_paid=generation.requests if generation is not None else 0,
    )


def run_augmented(
    augmented_file: Path,
    original_run: RunRecord,
    out_dir: Path,
    engine: ExecutionBackend,
    log: WorkLog,
    *,
    progress: ProgressFactory = no_progress,
    notify: Notify | None = None,
) -> RunRecord:
    """The model's own samples on the originals, judged again on the augmented tests (no new answers)."""
    bench = load_benchmark(str(augmented_file))
    samples_file = original_run.path / "samples.jsonl"
    samples, _ = read_samples(samples_file, bench.by_id())
    folder = out_dir / "runs" / AUGMENTED / safe_name(original_run.model)
    judge = JudgingBackend(engine, log, scope=str(folder.relative_to(out_dir)))
    started = time.perf_counter()
    result = evaluate_run(
        bench,
        samples,
        folder,
        judge,
        samples_file=samples_file,
        label=f"{original_run.model} on augmented tests",
        progress=progress,
        notify=notify,
    )
    log.tally.verdicts_reused += result.summary.reused_verdicts or 0
    return RunRecord(
        model=original_run.model,
        set=AUGMENTED,
        path=folder,
        pass_at_1=result.summary.pass_at_1,
        problems=result.summary.n_problems,
        samples=result.summary.n_samples,
        seconds=time.perf_counter() - started,
    )
