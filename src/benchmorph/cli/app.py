"""The `benchmorph` command: one thin command per use case.

Every error a user can cause ends as one red line and a non-zero exit code,
never a traceback (InputError carries file, line and field).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table
from rich.text import Text

# Imported to register their commands on `app`.
from benchmorph.cli import (  # noqa: F401
    analysis,
    contamination_cmd,
    generation,
    instruct_cmd,
    morph,
    reporting,
    review,
    scenarios_cmd,
    tests_cmd,
)
from benchmorph.cli.options import (
    BackendOption,
    DataOption,
    FactorOption,
    MemoryOption,
    MinTimeOption,
    RayAddressOption,
    SandboxOption,
    TestDetailsOption,
    WorkersOption,
)
from benchmorph.cli.shared import (
    app,
    console,
    fail,
    labelled,
    literal_help,
    make_engine,
    make_executor,
    out_console,
    progress,
    show_notice,
    show_report_files,
    summary_table,
)


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
    test_details: TestDetailsOption = False,
    backend: BackendOption = "local",
    ray_address: RayAddressOption = None,
    sanitize: Annotated[
        bool,
        typer.Option(
            "--sanitize/--as-written",
            help="Read each completion or solution through the sanitizer first: raw model answers "
            "(code in Markdown fences, prose around it, repeated or truncated copies, a body without "
            "its def line) become the program they contain. The raw text stays in results.jsonl and "
            "the summary counts the samples it changed. Default: judge the samples as written.",
        ),
    ] = False,
) -> None:
    """Run samples against a benchmark in the sandbox; write results.jsonl and summary.json.

    Time limits are CPU seconds (a busy machine does not change verdicts); a sample that times out
    is run once more at the end before its verdict is final.
    """
    from benchmorph.data.registry import load_benchmark
    from benchmorph.data.samples import read_samples
    from benchmorph.evaluation.runs import Notice, evaluate_run

    bench = load_benchmark(benchmark, data)
    sample_list, warnings = read_samples(samples, bench.by_id())
    for warning in warnings:
        console.print(labelled("warning", warning), highlight=False, soft_wrap=True)
    if not sample_list:
        fail(f"{samples}: no samples for any task of {bench.name}")
    out_dir = out or Path("benchmorph-out") / f"evaluate-{bench.name}"
    hints: list[Notice] = []  # printed last, after the scores
    with make_executor(
        backend, ray_address, workers, min_time_limit, time_factor, sandbox, memory_mb, test_details
    ) as engine:
        result = evaluate_run(
            bench,
            sample_list,
            out_dir,
            engine,
            samples_file=samples,
            resume=resume,
            sanitize=sanitize,
            progress=progress,
            notify=lambda notice: hints.append(notice) if notice.level == "hint" else show_notice(notice),
        )
    out_console.print(summary_table(f"{bench.name}: {samples}", {samples.name: result.summary}))
    out_console.print(f"results: {out_dir / 'results.jsonl'}\nsummary: {out_dir / 'summary.json'}")
    for hint in hints:
        show_notice(hint)


@app.command()
def datasets() -> None:
    """List the benchmarks benchmorph can load by name."""
    from benchmorph.data.registry import available_benchmarks

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
    from benchmorph.evaluation.demo import MinedVariants, PairedRuns, SandboxTour, demo_steps
    from benchmorph.report.files import write_report

    models = ("reference", "original", *(["local"] if local else []))
    run_dirs: list[Path] = []
    with make_engine(workers, 1.0, 4.0, sandbox, memory_mb) as engine:
        steps = demo_steps(
            out,
            engine,
            broken_per_problem=broken_per_problem,
            pairs=pairs,
            models=models,
            progress=progress,
            notify=show_notice,
        )
        for step in steps:
            if isinstance(step, SandboxTour):
                title = "benchmorph demo: HumanEval through the sandbox"
                out_console.print(summary_table(title, step.summaries))
                cap = step.memory_limit
                out_console.print(
                    f"isolation: {step.isolation}; memory cap: {cap['mb']} MB per sample ({cap['mode']})"
                )
            elif isinstance(step, MinedVariants):
                out_console.print(
                    f"mined {len(step.variants)} counterfactual variants ({step.path}); "
                    f"models attempt {len(step.chosen)} pairs"
                )
            elif isinstance(step, PairedRuns):
                run_dirs = step.run_dirs
                out_console.print(summary_table("originals and their counterfactuals", step.summaries))
        with console.status("analysing runs (answered-the-original re-runs failed variant samples)"):
            files = write_report(run_dirs, engine, out / "report.html", markdown=out / "report.md")
    show_report_files(files)


def main(argv: list[str] | None = None) -> None:
    literal_help(app)
    try:
        app(args=argv, standalone_mode=True)
    except KeyboardInterrupt:
        console.print(Text("interrupted", style="yellow"))
        sys.exit(130)
    except Exception as exc:
        _exit_on_user_error(exc)
        raise


def _exit_on_user_error(exc: Exception) -> None:
    """An error the user can cause ends as one red line and a non-zero exit; any other goes on up.

    The classes are imported here, once something was raised, so that start-up does not pay for them.
    """
    import sqlite3

    from benchmorph.data.errors import DiskFull, InputError
    from benchmorph.data.storage import disk_full
    from benchmorph.execution.backends import BackendLost
    from benchmorph.execution.sandbox import SandboxUnavailable

    if isinstance(exc, InputError | SandboxUnavailable):
        console.print(labelled("error", str(exc), "bold red"), highlight=False, soft_wrap=True)
        sys.exit(2)
    if isinstance(exc, BackendLost):  # every Ray node gone: what was judged is checkpointed, a re-run resumes
        console.print(labelled("error", str(exc), "bold red"), highlight=False, soft_wrap=True)
        sys.exit(1)
    if isinstance(exc, DiskFull | OSError | sqlite3.Error):
        # A full disk is the user's to fix, not a bug: one line naming the file, no traceback.
        # Writes raise DiskFull with the file; a bare ENOSPC from anywhere else names what it can.
        full = disk_full(exc, getattr(exc, "filename", None) or "a file benchmorph writes")
        if full is None:
            return
        console.print(labelled("error", str(full), "bold red"), highlight=False, soft_wrap=True)
        sys.exit(1)
