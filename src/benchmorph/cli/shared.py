"""What every command shares: the typer app, consoles, common options, progress, notices and the engine."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from dataclasses import replace
from typing import TYPE_CHECKING

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from benchmorph.cli.progress import progress_bar

if TYPE_CHECKING:
    from benchmorph.core.notices import Notice
    from benchmorph.evaluation.study.study import StudyResult
    from benchmorph.evaluation.summary import RunSummary
    from benchmorph.execution.backends import ExecutionBackend
    from benchmorph.execution.engine import Engine
    from benchmorph.execution.limits import Limits
    from benchmorph.report.files import ReportFiles


app = typer.Typer(
    name="benchmorph",
    help="Turn code benchmarks into new, execution-verified ones and measure code LLMs on both.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)
# Literal printing: what benchmorph prints is mostly user-derived (paths, task ids, messages, sample
# text, exception text), and Rich would read "[ray]" or "list[int]" as markup and ":100:" as an
# emoji code.  So markup and emoji codes are off on both consoles, and the few styled words
# (``labelled``, ``alarm``) are Text with a style, never markup in a string.
console = Console(stderr=True, markup=False, emoji=False)
out_console = Console(markup=False, emoji=False)


def labelled(label: str, text: str, style: str = "yellow") -> Text:
    """``label: text`` with the label styled and the text printed exactly as it is."""
    return Text.assemble((f"{label}:", style), " ", text)


def note(text: str) -> None:
    """One literal ``note:`` line on stderr, however narrow the terminal."""
    console.print(labelled("note", text), highlight=False, soft_wrap=True)


def alarm(text: str) -> Text:
    """A table cell that must be seen (a weaker sandbox, a flagged model): bold red, literal."""
    return Text(text, style="bold red")


def literal_help(typer_app: typer.Typer) -> None:
    """Plain help for ``typer_app`` and every command group under it: brackets render, nothing is cut.

    Rich help parses option texts as markup (``'benchmorph[ray]'`` lost its ``[ray]``) and lays
    options out in a table whose columns are cut with an ellipsis at 80 columns; Click's own
    formatter prints the text as written and wraps it at the terminal's width.
    """
    typer_app.rich_markup_mode = None
    for group in typer_app.registered_groups:
        if group.typer_instance is not None:
            literal_help(group.typer_instance)


def fail(message: str, code: int = 2) -> None:
    # soft_wrap: one line however narrow the terminal (or 80 columns when piped), as main() prints InputError.
    console.print(labelled("error", message, "bold red"), highlight=False, soft_wrap=True)
    raise typer.Exit(code)


def progress(description: str, total: int | None) -> AbstractContextManager[Callable[[int], None]]:
    """The progress factory every command hands to library functions: one rich bar (or log line) each."""
    return progress_bar(console, description, total)


def show_notice(notice: Notice) -> None:
    """Print what a library function wants the user to hear, as it happens: one line each, on stderr."""
    line = Text(notice.text) if notice.level == "info" else labelled(notice.level, notice.text)
    # soft_wrap: one line however narrow the terminal, so logs can be searched for it.
    console.print(line, highlight=False, soft_wrap=True)


def show_report_files(files: ReportFiles) -> None:
    """Where the report and its exports went (stdout: the report's path is what a script reads)."""
    out_console.print(f"report: {files.html.resolve()}")
    out_console.print(f"numbers: {files.json}")
    if files.markdown is not None:
        out_console.print(f"markdown: {files.markdown}")
    if files.csv:
        out_console.print(f"csv: {', '.join(str(path) for path in files.csv)}")


def show_study(result: StudyResult) -> None:
    """A finished study: the findings per model (stdout), what it did not measure (stderr), the sandbox,
    what this session paid for, and where the report went (``benchmorph study`` and ``benchmorph demo``).

    Styles are ``Text`` styles, never markup: a model label such as ``memorizer?originals=x[1]`` prints
    as it is.
    """
    from benchmorph.report.findings import summary_table as findings_table
    from benchmorph.report.tables import text_rows

    if result.findings is not None:
        summary = findings_table(result.findings)
        title = Text(summary.title, style="bold")
        title.append(f" ({result.findings.benchmark}, {result.findings.problems} problems)", style="")
        out_console.print(title, highlight=False)
        for row in text_rows(summary):
            out_console.print(Text(row[0], style="bold"), highlight=False)
            for column, cell in zip(summary.columns[1:], row[1:], strict=True):
                if cell != "-":
                    out_console.print(f"  {column.title}: {cell}", highlight=False, soft_wrap=True)
        for line in result.findings.off:
            console.print(labelled("note", line), highlight=False, soft_wrap=True)
    tally = result.tally
    cap = result.sandbox.get("memory_limit", {})
    isolation = str(result.sandbox.get("isolation", "?"))
    shown = Text("sandbox: ")
    shown.append(isolation, style="" if isolation == "bwrap" else "bold red")  # a weaker mode, loudly
    shown.append(f"; memory cap {cap.get('mb', '?')} MB per sample ({cap.get('mode', '?')})")
    out_console.print(shown, highlight=False)
    out_console.print(
        f"this session: {tally.llm_requests} LLM answers paid ({tally.llm_repeats} asked before), "
        f"{tally.verdicts_judged} verdicts judged, {tally.verdicts_reused} reused from checkpoints; "
        f"variant sets {tally.sets_built} built, {tally.sets_reused} reused; {result.seconds:.0f} s",
        highlight=False,
        soft_wrap=True,
    )
    for name in ("html", "json", "markdown", "study"):
        if name in result.files:
            out_console.print(f"{name}: {result.files[name]}", highlight=False, soft_wrap=True)


def summary_table(title: str, rows: Mapping[str, RunSummary]) -> Table:
    # The table shows the customary k; summary.json has every k.
    present = {k for summary in rows.values() for k in summary.pass_at}
    ks = [k for k in (1, 5, 10, 100) if k in present]
    table = Table(title=title)
    table.add_column("run")
    table.add_column("problems", justify="right")
    table.add_column("samples", justify="right")
    for k in ks:
        table.add_column(f"pass@{k}", justify="right")
    table.add_column("statuses")
    # The sandbox in force is part of every result: a weaker one must be seen where the scores are.
    table.add_column("sandbox")
    table.add_column("memory cap")
    for label, summary in rows.items():
        statuses = ", ".join(f"{status} {count}" for status, count in summary.statuses.items())
        cells = [f"{summary.pass_at[k]:.3f}" if k in summary.pass_at else "-" for k in ks]
        shown = summary.isolation if summary.isolation == "bwrap" else alarm(summary.isolation)
        table.add_row(
            label,
            str(summary.n_problems),
            str(summary.n_samples),
            *cells,
            statuses,
            shown,
            memory_cap_cell(summary.memory_limit),
        )
    return table


def memory_cap_cell(memory_limit: dict | None) -> str | Text:
    """The per-sample memory cap and how it holds; per process only (rlimits) is the weaker mode, in red."""
    if not memory_limit:
        return "?"
    text = f"{memory_limit.get('mb', '?')} MB {memory_limit.get('mode', '?')}"
    return text if str(memory_limit.get("mode", "")).startswith("cgroup") else alarm(text)


def _limits(min_time_limit: float, time_factor: float, memory_mb: int | None) -> Limits:
    from benchmorph.execution.limits import Limits

    if min_time_limit <= 0 or time_factor <= 0:
        fail("--min-time-limit and --time-factor must be positive")
    limits = Limits(min_time_limit=min_time_limit, time_factor=time_factor)
    return limits if memory_mb is None else replace(limits, memory=memory_mb * 2**20)


def make_engine(
    workers: int | None,
    min_time_limit: float,
    time_factor: float,
    sandbox: str | None = None,
    memory_mb: int | None = None,
    test_details: bool = True,
) -> Engine:
    """The engine for a command that needs this machine's engine itself (morph, tests, instruct); the
    sandbox is checked now, so a command that cannot isolate stops first."""
    from benchmorph.execution.engine import Engine

    limits = _limits(min_time_limit, time_factor, memory_mb)
    engine = Engine(workers=workers, limits=limits, isolation=sandbox, test_details=test_details)
    engine.check_sandbox()
    return engine


def make_executor(
    backend: str,
    ray_address: str | None,
    workers: int | None,
    min_time_limit: float,
    time_factor: float,
    sandbox: str | None = None,
    memory_mb: int | None = None,
    test_details: bool = True,
) -> ExecutionBackend:
    """The ``--backend`` by name from the execution-backend registry, its sandbox checked on every node now."""
    from benchmorph.core.notices import Notice
    from benchmorph.data.errors import InputError
    from benchmorph.execution.backends import BackendUnavailable, make_backend

    limits = _limits(min_time_limit, time_factor, memory_mb)
    try:
        return make_backend(
            backend,
            workers=workers,
            limits=limits,
            isolation=sandbox,
            ray_address=ray_address,
            engine_options={"test_details": test_details},
            notify=lambda text: show_notice(Notice("warning", text)),
        )
    except InputError as exc:  # a name no registered backend has
        fail(f"--backend: {exc.message}")
        raise
    except ValueError as exc:  # options that contradict each other (--ray-address without ray)
        fail(str(exc))
        raise
    except BackendUnavailable as exc:
        fail(f"--ray-address {ray_address}: {exc}" if ray_address else f"--backend {backend}: {exc}")
        raise
