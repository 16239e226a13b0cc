"""`benchmorph audit`: errata for a benchmark, every problem through the checks that apply to an original."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from benchmorph.cli.options import (
    DataOption,
    LimitOption,
    MemoryOption,
    RunSeedOption,
    SandboxOption,
    TasksOption,
    WorkersOption,
)
from benchmorph.cli.shared import app, make_engine, out_console, progress


@app.command("audit")
def audit_command(
    benchmark: Annotated[
        str, typer.Argument(help="Benchmark name (see `benchmorph datasets`) or a problems file.")
    ],
    out: Annotated[Path, typer.Option("--out", "-o", help="Directory for errata.md and errata.jsonl.")],
    fix_suggestions: Annotated[
        bool,
        typer.Option(
            "--fix-suggestions", help="Add the minimal text change for each finding where one is known."
        ),
    ] = False,
    mutants: Annotated[
        int,
        typer.Option("--mutants", help="Reference mutants tried per problem by the weak-tests check.", min=0),
    ] = 20,
    checks: Annotated[
        str | None, typer.Option("--checks", help="Only these audit checks, comma-separated (default: all).")
    ] = None,
    data: DataOption = None,
    limit: LimitOption = None,
    tasks: TasksOption = None,
    seed: RunSeedOption = 0,
    workers: WorkersOption = None,
    sandbox: SandboxOption = None,
    memory_mb: MemoryOption = None,
) -> None:
    """Audit a benchmark: examples vs reference, promises vs test inputs, unstated rules, weak tests, copies, typos."""
    from benchmorph.data.registry import load_benchmark, select_problems
    from benchmorph.validation.audit import audit_benchmark, write_errata

    bench = load_benchmark(benchmark, data)
    problems = select_problems(bench.problems, limit, tasks, field="--tasks")
    names = [name.strip() for name in checks.split(",") if name.strip()] if checks else None
    checkpoint = out / ".audit-checkpoint.jsonl"
    with make_engine(workers, 1.0, 4.0, sandbox, memory_mb, test_details=False) as engine:
        report = audit_benchmark(
            problems,
            engine,
            benchmark=bench.name,
            checks=names,
            mutants=mutants,
            seed=seed,
            progress=progress,
            checkpoint=checkpoint,
        )
    markdown, lines = write_errata(report, out, fixes=fix_suggestions)
    checkpoint.unlink(missing_ok=True)
    table = Table(title=f"audit of {escape(bench.name)}: {len(report.problems)} problems")
    for column in ("severity", "check", "findings"):
        table.add_column(column, justify="right" if column == "findings" else "left")
    for severity, check, count in report.by_check():
        table.add_row(severity, check, str(count))
    out_console.print(table)
    counts = report.counts()
    out_console.print(
        ", ".join(f"{severity} {count}" for severity, count in counts.items())
        + f" ({len({f.problem for f in report.findings})} problems with findings, {report.seconds:.0f} s)"
    )
    out_console.print(f"errata: {markdown}\nfindings: {lines}")
