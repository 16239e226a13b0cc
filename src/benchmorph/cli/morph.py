"""`benchmorph morph ...`: commands that make new benchmarks from existing ones."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from benchmorph.cli.progress import progress_bar
from benchmorph.cli.shared import DataOption, WorkersOption, app, console, make_engine, out_console
from benchmorph.data.native import write_native
from benchmorph.data.registry import load_benchmark
from benchmorph.morph.mine import DEFAULT_EPSILON, mine

morph_app = typer.Typer(
    help="Make new, execution-verified benchmarks from existing ones.", no_args_is_help=True
)
app.add_typer(morph_app, name="morph")


@morph_app.command("mine")
def mine_command(
    benchmark: Annotated[str, typer.Argument(help="Benchmark name or problems file.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Variants JSONL to write.")] = Path(
        "benchmorph-out/variants.jsonl"
    ),
    epsilon: Annotated[
        float, typer.Option("--epsilon", help="Largest D_Q (wording change) kept.", min=0.0)
    ] = DEFAULT_EPSILON,
    keep_all: Annotated[
        bool, typer.Option("--all", help="Keep every valid variant, not one per problem.")
    ] = False,
    data: DataOption = None,
    workers: WorkersOption = None,
) -> None:
    """Counterfactual variants without an LLM: paired description/reference edits verified by execution."""
    bench = load_benchmark(benchmark, data)
    with (
        make_engine(workers, 1.0, 4.0) as engine,
        progress_bar(console, f"mine {bench.name}", None) as advance,
    ):
        report = mine(bench.problems, engine, epsilon=epsilon, keep_all=keep_all, progress=advance)
    write_native(out, report.variants)
    table = Table(title=f"mined counterfactuals: {bench.name}")
    table.add_column("what")
    table.add_column("count", justify="right")
    table.add_row("problems", str(report.parents))
    table.add_row("candidate edits", str(report.candidates))
    for reason, count in sorted(report.rejected.items()):
        table.add_row(f"rejected: {reason}", str(count))
    table.add_row("variants written", str(len(report.variants)))
    table.add_row("problems with a variant", str(report.problems_with_variant))
    out_console.print(table)
    out_console.print(f"variants: {out}")
