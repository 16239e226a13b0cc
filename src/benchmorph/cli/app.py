"""The `benchmorph` command: one thin command per use case.

Every error a user can cause ends as one red line and a non-zero exit code,
never a traceback (InputError carries file, line and field).
"""

from __future__ import annotations

import sqlite3
import sys
from collections import Counter
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from benchmorph.cli import analysis, morph, reporting, review  # noqa: F401 - register their commands
from benchmorph.cli.generation import benchmark_source, run_into  # also registers generate, run, cache
from benchmorph.cli.progress import progress_bar
from benchmorph.cli.reporting import write_report
from benchmorph.cli.shared import (
    DataOption,
    FactorOption,
    MemoryOption,
    MinTimeOption,
    SandboxOption,
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
from benchmorph.data.errors import DiskFull, InputError
from benchmorph.data.models import Sample
from benchmorph.data.native import write_native
from benchmorph.data.registry import available_benchmarks, load_benchmark
from benchmorph.data.samples import read_samples
from benchmorph.data.storage import disk_full
from benchmorph.evaluation.evaluate import write_evaluation
from benchmorph.evaluation.manifest import write_manifest
from benchmorph.evaluation.mutants import mutants
from benchmorph.execution.sandbox import SandboxUnavailable
from benchmorph.models import GenerationParams
from benchmorph.morph.mine import mine


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
    sandbox: SandboxOption = None,
    memory_mb: MemoryOption = None,
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
    engine = make_engine(workers, min_time_limit, time_factor, sandbox, memory_mb)
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
    sandbox: SandboxOption = None,
    memory_mb: MemoryOption = None,
    broken_per_problem: Annotated[int, typer.Option(help="Mutated (broken) solutions per problem.")] = 2,
    pairs: Annotated[
        int,
        typer.Option("--pairs", help="Mined counterfactual pairs each model attempts (0: all).", min=0),
    ] = 10,
    local: Annotated[
        bool, typer.Option("--local/--no-local", help="Include the embedded model (Gemma 3 270M base).")
    ] = True,
) -> None:
    """Offline tour: the sandbox on HumanEval, mined counterfactuals, three models on both, an HTML report."""
    bench = load_benchmark("humaneval")
    with make_engine(workers, 1.0, 4.0, sandbox, memory_mb) as engine:
        problems = prepare(engine, bench.name, bench.problems)
        references = [Sample(task_id=p.id, code=p.reference, model="reference") for p in problems.values()]
        broken = [
            Sample(task_id=p.id, index=i, code=m.code, model=f"mutant:{m.operator}")
            for p in problems.values()
            for i, m in enumerate(mutants(p.reference, p.entry_point, limit=broken_per_problem))
        ]
        runs = {
            "reference": ("reference", run_evaluation(engine, bench.name, problems, references, "reference")),
            "broken (mutants)": ("broken", run_evaluation(engine, bench.name, problems, broken, "broken")),
        }
        summaries = {label: write_evaluation(out / folder, run) for label, (folder, run) in runs.items()}
        out_console.print(summary_table("benchmorph demo: HumanEval through the sandbox", summaries))
        cap = engine.resource_limits
        out_console.print(
            f"isolation: {runs['reference'][1].isolation}; memory cap: {cap['mb']} MB per sample ({cap['mode']})"
        )

        with progress_bar(console, "mine counterfactuals", len(bench.problems)) as advance:
            mined = mine(bench.problems, engine, progress=advance).variants
        variants_file = out / "humaneval-ctf.jsonl"
        write_native(variants_file, mined)
        chosen = mined[:pairs] if pairs else mined
        parents = [problems[variant.parent_id] for variant in chosen]
        out_console.print(
            f"mined {len(mined)} counterfactual variants ({variants_file}); models attempt {len(chosen)} pairs"
        )
        variant_bench = load_benchmark(str(variants_file))
        run_dirs = []
        pair_summaries = {}
        for model in ("reference", "original", *(["local"] if local else [])):
            for folder, source_bench, subset, source in (
                (f"runs/humaneval-{model}", bench, parents, benchmark_source("humaneval", None)),
                (f"runs/ctf-{model}", variant_bench, chosen, benchmark_source(str(variants_file), None)),
            ):
                summary = run_into(
                    out / folder,
                    engine,
                    source_bench,
                    subset,
                    model,
                    GenerationParams(max_tokens=256),
                    source=source,
                )
                pair_summaries[f"{model} on {source_bench.name}"] = summary
                run_dirs.append(out / folder)
    out_console.print(summary_table("originals and their counterfactuals", pair_summaries))
    write_report(run_dirs, out / "report.html", markdown=out / "report.md", workers=workers, sandbox=sandbox)


def main(argv: list[str] | None = None) -> None:
    try:
        app(args=argv, standalone_mode=True)
    except (InputError, SandboxUnavailable) as exc:
        console.print(f"[bold red]error:[/] {exc}", highlight=False, soft_wrap=True)
        sys.exit(2)
    except KeyboardInterrupt:
        console.print("[yellow]interrupted[/]")
        sys.exit(130)
    except (DiskFull, OSError, sqlite3.Error) as exc:
        # A full disk is the user's to fix, not a bug: one line naming the file, no traceback.
        # Writes raise DiskFull with the file; a bare ENOSPC from anywhere else names what it can.
        full = disk_full(exc, getattr(exc, "filename", None) or "a file benchmorph writes")
        if full is None:
            raise
        console.print(f"[bold red]error:[/] {full}", highlight=False, soft_wrap=True)
        sys.exit(1)
