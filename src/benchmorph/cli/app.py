"""The `benchmorph` command: one thin command per use case.

Every error a user can cause ends as one red line and a non-zero exit code,
never a traceback (InputError carries file, line and field).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from benchmorph.cli.progress import progress_bar
from benchmorph.data.errors import InputError
from benchmorph.data.models import Problem, Sample
from benchmorph.data.registry import available_benchmarks, load_benchmark
from benchmorph.data.samples import read_samples
from benchmorph.evaluation.checkpoint import VerdictStore
from benchmorph.evaluation.evaluate import Evaluation, evaluate_samples, write_evaluation
from benchmorph.evaluation.mutants import mutants
from benchmorph.execution.engine import Engine
from benchmorph.execution.limits import Limits

app = typer.Typer(
    name="benchmorph",
    help="Turn code benchmarks into new, execution-verified ones and measure code LLMs on both.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
console = Console(stderr=True)
out_console = Console()

WorkersOption = Annotated[
    int | None, typer.Option("--workers", "-j", help="Sandbox workers (default: number of cores).")
]
MinTimeOption = Annotated[
    float, typer.Option("--min-time-limit", help="Smallest per-test time limit, seconds.")
]
FactorOption = Annotated[
    float, typer.Option("--time-factor", help="Per-test limit = max(min, factor x reference time).")
]
DataOption = Annotated[
    Path | None,
    typer.Option("--data", help="Local data file for the benchmark (instead of the cached download)."),
]


def fail(message: str, code: int = 2) -> None:
    console.print(f"[bold red]error:[/] {message}", highlight=False)
    raise typer.Exit(code)


def prepare(engine: Engine, name: str, problems: Sequence[Problem]) -> dict[str, Problem]:
    """Compute expected outputs and reference times (cached), reporting what had to be dropped."""
    with progress_bar(console, f"references {name}", len(problems)) as advance:
        report = engine.prepare(problems, advance)
    dropped = sum(len(reasons) for reasons in report.dropped_tests.values())
    if dropped:
        console.print(
            f"[yellow]note:[/] dropped {dropped} test inputs of {len(report.dropped_tests)} problems "
            "where the reference (with its contract) rejects the input"
        )
    for task_id, reason in sorted(report.unusable.items()):
        console.print(f"[yellow]warning:[/] {task_id} cannot be evaluated: {reason}")
    return {problem.id: problem for problem in report.problems}


def run_evaluation(
    engine: Engine,
    name: str,
    problems: dict[str, Problem],
    samples: list[Sample],
    label: str,
    store: VerdictStore | None = None,
) -> Evaluation:
    with progress_bar(console, f"evaluate {label}", len(samples)) as advance:
        return evaluate_samples(name, problems, samples, engine, advance, store)


def summary_table(title: str, rows: dict[str, dict]) -> Table:
    # The table shows the customary k; summary.json has every k.
    present = {key for summary in rows.values() for key in summary if key.startswith("pass@")}
    ks = [f"pass@{k}" for k in (1, 5, 10, 100) if f"pass@{k}" in present]
    table = Table(title=title)
    table.add_column("run")
    table.add_column("problems", justify="right")
    table.add_column("samples", justify="right")
    for k in ks:
        table.add_column(k, justify="right")
    table.add_column("statuses")
    for label, summary in rows.items():
        statuses = ", ".join(f"{status} {count}" for status, count in summary["statuses"].items())
        cells = [f"{summary[k]:.3f}" if k in summary else "-" for k in ks]
        table.add_row(label, str(summary["n_problems"]), str(summary["n_samples"]), *cells, statuses)
    return table


def unparsable_warnings(samples: Sequence[Sample], shown: int = 10) -> list[str]:
    """One line per sample that is not Python: it is still judged (as an error), but the user should know."""
    lines = []
    for sample in samples:
        try:
            compile(sample.code, "<sample>", "exec", dont_inherit=True)
        except (SyntaxError, ValueError) as exc:
            reason = getattr(exc, "msg", str(exc))
            lines.append(
                f"{sample.origin or sample.task_id}: field 'solution': not valid Python ({reason}); judged as an error"
            )
    if len(lines) > shown:
        lines = lines[:shown] + [f"... and {len(lines) - shown} more samples that are not valid Python"]
    return lines


def make_engine(workers: int | None, min_time_limit: float, time_factor: float) -> Engine:
    if min_time_limit <= 0 or time_factor <= 0:
        fail("--min-time-limit and --time-factor must be positive")
    return Engine(workers=workers, limits=Limits(min_time_limit=min_time_limit, time_factor=time_factor))


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
    needed = [by_id[task] for task in dict.fromkeys(sample.task_id for sample in sample_list)]
    out_dir = out or Path("benchmorph-out") / f"evaluate-{bench.name}"
    out_dir.mkdir(parents=True, exist_ok=True)
    with make_engine(workers, min_time_limit, time_factor) as engine:
        ready = prepare(engine, bench.name, needed)
        usable = [sample for sample in sample_list if sample.task_id in ready]
        skipped = len(sample_list) - len(usable)
        if skipped:
            console.print(f"[yellow]warning:[/] {skipped} samples skipped: their problem cannot be evaluated")
        checkpoint = out_dir / "checkpoint.sqlite"
        if not resume:
            for suffix in ("", "-wal", "-shm"):
                Path(f"{checkpoint}{suffix}").unlink(missing_ok=True)
        store = VerdictStore(checkpoint)
        try:
            evaluation = run_evaluation(engine, bench.name, ready, usable, samples.name, store)
        finally:
            store.close()
    summary = write_evaluation(out_dir, evaluation)
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
) -> None:
    """Offline tour: HumanEval references and deliberately broken solutions through the sandbox."""
    bench = load_benchmark("humaneval")
    with make_engine(workers, 1.0, 4.0) as engine:
        problems = prepare(engine, bench.name, bench.problems)
        references = [Sample(task_id=p.id, code=p.reference, model="reference") for p in problems.values()]
        broken = [
            Sample(task_id=p.id, index=i, code=m.code, model=f"mutant:{m.operator}")
            for p in problems.values()
            for i, m in enumerate(mutants(p.reference, p.entry_point, limit=broken_per_problem))
        ]
        runs = {
            "reference": run_evaluation(engine, bench.name, problems, references, "reference"),
            "broken (mutants)": run_evaluation(engine, bench.name, problems, broken, "broken"),
        }
    summaries = {label: write_evaluation(out / label.split()[0], run) for label, run in runs.items()}
    out_console.print(summary_table("benchmorph demo: HumanEval", summaries))
    out_console.print(f"isolation: {runs['reference'].isolation}; outputs under {out}")


def main(argv: list[str] | None = None) -> None:
    try:
        app(args=argv, standalone_mode=True)
    except InputError as exc:
        console.print(f"[bold red]error:[/] {exc}", highlight=False, soft_wrap=True)
        sys.exit(2)
    except KeyboardInterrupt:
        console.print("[yellow]interrupted[/]")
        sys.exit(130)
