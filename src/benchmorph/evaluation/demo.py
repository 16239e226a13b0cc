"""The offline tour behind ``benchmorph demo``, as a library generator.

It yields one result per step as soon as the step is done, so a caller (the CLI) can show each table
while the next step runs: the sandbox on HumanEval's references and on deliberately broken solutions,
counterfactual variants mined without an LLM, and models run on originals and their variants.  Writing
the report over the runs is the report layer's ``write_report``, one layer up.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmorph.core.notices import Notify
from benchmorph.core.progress import ProgressFactory, no_progress
from benchmorph.data.formats.native import write_native
from benchmorph.data.models import Problem, Sample, Variant
from benchmorph.data.registry import load_benchmark
from benchmorph.evaluation.evaluate import evaluate_samples, write_evaluation
from benchmorph.evaluation.runs import prepare_problems, run_benchmark
from benchmorph.evaluation.summary import RunSummary
from benchmorph.execution.engine import Engine
from benchmorph.models import GenerationParams
from benchmorph.morph.transforms.mine.mine import mine
from benchmorph.testgen.mutants import mutants

DEMO_MODELS = ("reference", "original", "local")


@dataclass
class SandboxTour:
    """Step 1: every reference passes, broken solutions (mutants) mostly fail, under ``isolation``."""

    problems: dict[str, Problem]
    summaries: dict[str, RunSummary]
    isolation: str
    memory_limit: dict[str, Any]


@dataclass
class MinedVariants:
    """Step 2: counterfactuals mined from HumanEval (written to ``path``); ``chosen`` go to the models."""

    path: Path
    variants: list[Variant]
    chosen: list[Variant]


@dataclass
class PairedRuns:
    """Step 3: each model on the chosen originals and on their variants, one run directory each."""

    summaries: dict[str, RunSummary]
    run_dirs: list[Path]


DemoStep = SandboxTour | MinedVariants | PairedRuns


def demo_steps(
    out: str | Path,
    engine: Engine,
    *,
    broken_per_problem: int = 2,
    pairs: int = 10,
    models: Sequence[str] = DEMO_MODELS,
    progress: ProgressFactory = no_progress,
    notify: Notify | None = None,
) -> Iterator[DemoStep]:
    """Run the tour into ``out``, yielding ``SandboxTour``, ``MinedVariants`` and ``PairedRuns`` in turn.

    ``pairs`` is how many mined pairs each model attempts (0: all).  Later runs reuse the LLM cache,
    the reference cache and each run's checkpoint.
    """
    out = Path(out)
    bench = load_benchmark("humaneval")
    problems = prepare_problems(engine, bench.name, bench.problems, progress=progress, notify=notify)
    references = [Sample(task_id=p.id, code=p.reference, model="reference") for p in problems.values()]
    broken = [
        Sample(task_id=p.id, index=i, code=m.code, model=f"mutant:{m.operator}")
        for p in problems.values()
        for i, m in enumerate(mutants(p.reference, p.entry_point, limit=broken_per_problem))
    ]
    summaries = {}
    isolation = engine.isolation
    for label, folder, samples in (
        ("reference", "reference", references),
        ("broken (mutants)", "broken", broken),
    ):
        with progress(f"evaluate {folder}", len(samples)) as advance:
            evaluation = evaluate_samples(bench.name, problems, samples, engine, advance)
        isolation = evaluation.isolation
        summaries[label] = write_evaluation(out / folder, evaluation)
    yield SandboxTour(problems, summaries, isolation, dict(engine.resource_limits))

    with progress("mine counterfactuals", len(bench.problems)) as advance:
        mined = mine(bench.problems, engine, progress=advance).variants
    variants_file = out / "humaneval-ctf.jsonl"
    write_native(variants_file, mined)
    chosen = mined[:pairs] if pairs else mined
    yield MinedVariants(variants_file, mined, chosen)

    parents = [problems[variant.parent_id] for variant in chosen]
    variant_bench = load_benchmark(str(variants_file))
    run_dirs = []
    pair_summaries = {}
    for model in models:
        for folder, source_bench, subset in (
            (f"runs/humaneval-{model}", bench, parents),
            (f"runs/ctf-{model}", variant_bench, chosen),
        ):
            result = run_benchmark(
                source_bench,
                model,
                out / folder,
                engine,
                problems=subset,
                params=GenerationParams(max_tokens=256),
                progress=progress,
                notify=notify,
            )
            pair_summaries[f"{model} on {source_bench.name}"] = result.summary
            run_dirs.append(out / folder)
    yield PairedRuns(pair_summaries, run_dirs)
