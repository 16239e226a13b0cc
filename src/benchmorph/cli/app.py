"""The `benchmorph` command: one thin command per use case.

Every error a user can cause ends as one red line and a non-zero exit code,
never a traceback (InputError carries file, line and field).
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from benchmorph.cli import analysis, morph, review  # noqa: F401 - register `sensitivity`, `morph`, `review`
from benchmorph.cli.generation import benchmark_source, run_generation  # also registers generate, run, cache
from benchmorph.cli.shared import (
    DataOption,
    FactorOption,
    MinTimeOption,
    WorkersOption,
    app,
    console,
    evaluate_into,
    fail,
    make_engine,
    out_console,
    prepare,
    run_evaluation,
    summary_table,
    unparsable_warnings,
)
from benchmorph.data.errors import InputError
from benchmorph.data.models import Sample
from benchmorph.data.registry import available_benchmarks, load_benchmark
from benchmorph.data.samples import read_samples
from benchmorph.evaluation.evaluate import write_evaluation
from benchmorph.evaluation.manifest import write_manifest
from benchmorph.evaluation.mutants import mutants
from benchmorph.models import GenerationParams, RetryPolicy


@app.command()
def evaluate(
    benchmark: Annotated[
        str, typer.Argument(help="Benchmark name (see `benchmorph datasets`) or a problems file.")
    ],
    samples: Annotated[
        Path, typer.Option("--samples", "-s", help="Samples JSONL (task_id + solution|completion) or dir.")
    ],
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Output directory.")] = None,
    workers: WorkersOption = None,
    min_time_limit: MinTimeOption = 1.0,
    time_factor: FactorOption = 4.0,
    data: DataOption = None,
    resume: Annotated[
        bool,
        typer.Option(
            "--resume/--no-resume", help="Reuse verdicts checkpointed in --out by an interrupted run."
        ),
    ] = True,
) -> None:
    """Run samples against a benchmark in the sandbox; write results.jsonl and summary.json."""
    bench = load_benchmark(benchmark, data)
    by_id = bench.by_id()
    sample_list, warnings = read_samples(samples, by_id)
    warnings += unparsable_warnings(sample_list)
    for warning in warnings:
        console.print(f"[yellow]warning:[/] {warning}", highlight=False)
    if not sample_list:
        fail(f"{samples}: no samples for any task of {bench.name}")
    out_dir = out or Path("benchmorph-out") / f"evaluate-{bench.name}"
    engine = make_engine(workers, min_time_limit, time_factor)
    summary = evaluate_into(out_dir, engine, bench.name, by_id, sample_list, samples.name, resume)
    models = Counter(sample.model for sample in sample_list)
    write_manifest(
        out_dir,
        benchmark=bench.name,
        problems=[by_id[task] for task in dict.fromkeys(sample.task_id for sample in sample_list)],
        model=models.most_common(1)[0][0],
        samples_file=str(samples.resolve()),
        source=benchmark_source(benchmark, data),
    )
    out_console.print(summary_table(f"{bench.name}: {samples}", {samples.name: summary}))
    out_console.print(f"results: {out_dir / 'results.jsonl'}\nsummary: {out_dir / 'summary.json'}")


@app.command()
def datasets() -> None:
    """List the benchmarks benchmorph can load by name."""
    table = Table(title="benchmarks")
    for column in ("name", "problems", "kinds", "data", "description"):
        table.add_column(column)
    for entry in available_benchmarks():
        size = str(entry.size) if entry.size is not None else "?"
        data = "download or --data PATH" if entry.needs_data else "bundled with a dependency"
        table.add_row(entry.name, size, ", ".join(entry.kinds), data, entry.description)
    out_console.print(table)


@app.command()
def demo(
    out: Annotated[Path, typer.Option("--out", "-o", help="Output directory.")] = Path("benchmorph-out/demo"),
    workers: WorkersOption = None,
    broken_per_problem: Annotated[int, typer.Option(help="Mutated (broken) solutions per problem.")] = 2,
    local_problems: Annotated[
        int,
        typer.Option("--local-problems", help="HumanEval problems the embedded model attempts (0: skip)."),
    ] = 10,
) -> None:
    """Offline tour: HumanEval references, broken solutions and the embedded model, through the sandbox."""
    bench = load_benchmark("humaneval")
    local_samples: list[Sample] = []
    if local_problems > 0:
        subset = bench.problems[:local_problems]
        report = run_generation(
            subset,
            "local",
            GenerationParams(max_tokens=256),
            concurrency=None,
            policy=RetryPolicy(),
            api_key_env=None,
            use_cache=True,
            cache_path=None,
        )
        local_samples = report.samples
    with make_engine(workers, 1.0, 4.0) as engine:
        problems = prepare(engine, bench.name, bench.problems)
        references = [Sample(task_id=p.id, code=p.reference, model="reference") for p in problems.values()]
        broken = [
            Sample(task_id=p.id, index=i, code=m.code, model=f"mutant:{m.operator}")
            for p in problems.values()
            for i, m in enumerate(mutants(p.reference, p.entry_point, limit=broken_per_problem))
        ]
        # label -> (output folder, evaluation)
        runs = {
            "reference": ("reference", run_evaluation(engine, bench.name, problems, references, "reference")),
            "broken (mutants)": ("broken", run_evaluation(engine, bench.name, problems, broken, "broken")),
        }
        if local_samples:
            subset_ids = {sample.task_id for sample in local_samples}
            subset_refs = [sample for sample in references if sample.task_id in subset_ids]
            runs[f"reference (first {len(subset_ids)})"] = (
                "reference-subset",
                run_evaluation(engine, bench.name, problems, subset_refs, "reference subset"),
            )
            runs[f"local (first {len(subset_ids)})"] = (
                "local",
                run_evaluation(engine, bench.name, problems, local_samples, "local"),
            )
    summaries = {label: write_evaluation(out / folder, run) for label, (folder, run) in runs.items()}
    out_console.print(summary_table("benchmorph demo: HumanEval", summaries))
    out_console.print(f"isolation: {runs['reference'][1].isolation}; outputs under {out}")


def main(argv: list[str] | None = None) -> None:
    try:
        app(args=argv, standalone_mode=True)
    except InputError as exc:
        console.print(f"[bold red]error:[/] {exc}", highlight=False, soft_wrap=True)
        sys.exit(2)
    except KeyboardInterrupt:
        console.print("[yellow]interrupted[/]")
        sys.exit(130)
