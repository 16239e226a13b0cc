"""What every command shares: the typer app, consoles, common options and the evaluate steps."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from benchmorph.cli.progress import progress_bar
from benchmorph.data.models import Problem, Sample
from benchmorph.evaluation.checkpoint import VerdictStore
from benchmorph.evaluation.evaluate import Evaluation, evaluate_samples, write_evaluation
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
SandboxOption = Annotated[
    str | None,
    typer.Option(
        "--sandbox",
        help="bwrap (default: bubblewrap isolation, the run stops if it cannot start) or rlimits "
        "(no file-system or network isolation, only by explicit choice). Default: $BENCHMORPH_SANDBOX or bwrap.",
        show_default=False,
    ),
]
MemoryOption = Annotated[
    int | None,
    typer.Option(
        "--memory-mb",
        min=64,
        help="Memory cap per sample, in MB, for all its processes together (a cgroup where one is "
        "writable, else per process). Default: 4096.",
        show_default=False,
    ),
]
DataOption = Annotated[
    Path | None,
    typer.Option("--data", help="Local data file for the benchmark (instead of the cached download)."),
]


def fail(message: str, code: int = 2) -> None:
    # soft_wrap: one line however narrow the terminal (or 80 columns when piped), as main() prints InputError.
    console.print(f"[bold red]error:[/] {message}", highlight=False, soft_wrap=True)
    raise typer.Exit(code)


def prepare(engine: Engine, name: str, problems: Sequence[Problem]) -> dict[str, Problem]:
    """Compute expected outputs and reference times (cached), reporting what had to be dropped."""
    with progress_bar(console, f"references {name}", len(problems)) as advance:
        report = engine.prepare(problems, advance)
    rejected = {
        task_id: len(reasons) - len(report.oracle_failures.get(task_id, []))
        for task_id, reasons in report.dropped_tests.items()
    }
    dropped = sum(rejected.values())
    if dropped:
        console.print(
            f"[yellow]note:[/] dropped {dropped} test inputs of {sum(1 for n in rejected.values() if n)} "
            "problems where the reference (with its contract) rejects the input"
        )
    for task_id, reasons in sorted(report.oracle_failures.items()):
        shown = "; ".join(reasons[:3]) + (f"; and {len(reasons) - 3} more" if len(reasons) > 3 else "")
        console.print(
            f"[yellow]warning:[/] {escape(task_id)}: dropped {len(reasons)} tests where the reference's own "
            f"answer fails the problem's oracle: {escape(shown)}",
            highlight=False,
            soft_wrap=True,  # one line however narrow the terminal, so logs can be searched for it
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
    # The sandbox in force is part of every result: a weaker one must be seen where the scores are.
    table.add_column("sandbox")
    table.add_column("memory cap")
    for label, summary in rows.items():
        statuses = ", ".join(f"{status} {count}" for status, count in summary["statuses"].items())
        cells = [f"{summary[k]:.3f}" if k in summary else "-" for k in ks]
        sandbox = summary.get("isolation", "?")
        shown = sandbox if sandbox == "bwrap" else f"[bold red]{sandbox}[/]"
        table.add_row(
            label,
            str(summary["n_problems"]),
            str(summary["n_samples"]),
            *cells,
            statuses,
            shown,
            memory_cap_cell(summary.get("memory_limit")),
        )
    return table


def memory_cap_cell(memory_limit: dict | None) -> str:
    """The per-sample memory cap and how it holds; per process only (rlimits) is the weaker mode, in red."""
    if not memory_limit:
        return "?"
    text = f"{memory_limit.get('mb', '?')} MB {memory_limit.get('mode', '?')}"
    return text if str(memory_limit.get("mode", "")).startswith("cgroup") else f"[bold red]{text}[/]"


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


def make_engine(
    workers: int | None,
    min_time_limit: float,
    time_factor: float,
    sandbox: str | None = None,
    memory_mb: int | None = None,
) -> Engine:
    """The engine for a command; the sandbox is checked now, so a command that cannot isolate stops first."""
    if min_time_limit <= 0 or time_factor <= 0:
        fail("--min-time-limit and --time-factor must be positive")
    limits = Limits(min_time_limit=min_time_limit, time_factor=time_factor)
    if memory_mb is not None:
        limits = replace(limits, memory=memory_mb * 2**20)
    engine = Engine(workers=workers, limits=limits, isolation=sandbox)
    engine.check_sandbox()
    return engine


def evaluate_into(
    out_dir: Path,
    engine: Engine,
    benchmark: str,
    by_id: dict[str, Problem],
    samples: list[Sample],
    label: str,
    resume: bool = True,
) -> dict:
    """Prepare the problems the samples need, judge the samples with a checkpoint, write the results."""
    needed = [by_id[task] for task in dict.fromkeys(sample.task_id for sample in samples)]
    out_dir.mkdir(parents=True, exist_ok=True)
    with engine:
        ready = prepare(engine, benchmark, needed)
        usable = [sample for sample in samples if sample.task_id in ready]
        skipped = len(samples) - len(usable)
        if skipped:
            console.print(f"[yellow]warning:[/] {skipped} samples skipped: their problem cannot be evaluated")
        checkpoint = out_dir / "checkpoint.sqlite"
        if not resume:
            for suffix in ("", "-wal", "-shm"):
                Path(f"{checkpoint}{suffix}").unlink(missing_ok=True)
        store = VerdictStore(checkpoint)
        try:
            evaluation = run_evaluation(engine, benchmark, ready, usable, label, store)
        finally:
            store.close()
    return write_evaluation(out_dir, evaluation)
