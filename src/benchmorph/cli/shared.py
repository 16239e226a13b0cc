"""What every command shares: the typer app, consoles, common options, progress, notices and the engine."""

from __future__ import annotations

from collections.abc import Callable
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
    from benchmorph.execution.backends import ExecutionBackend
    from benchmorph.execution.engine import Engine
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
        shown = sandbox if sandbox == "bwrap" else alarm(sandbox)
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


def memory_cap_cell(memory_limit: dict | None) -> str | Text:
    """The per-sample memory cap and how it holds; per process only (rlimits) is the weaker mode, in red."""
    if not memory_limit:
        return "?"
    text = f"{memory_limit.get('mb', '?')} MB {memory_limit.get('mode', '?')}"
    return text if str(memory_limit.get("mode", "")).startswith("cgroup") else alarm(text)


def make_engine(
    workers: int | None,
    min_time_limit: float,
    time_factor: float,
    sandbox: str | None = None,
    memory_mb: int | None = None,
    test_details: bool = True,
) -> Engine:
    """The engine for a command; the sandbox is checked now, so a command that cannot isolate stops first."""
    from benchmorph.execution.engine import Engine
    from benchmorph.execution.limits import Limits

    if min_time_limit <= 0 or time_factor <= 0:
        fail("--min-time-limit and --time-factor must be positive")
    limits = Limits(min_time_limit=min_time_limit, time_factor=time_factor)
    if memory_mb is not None:
        limits = replace(limits, memory=memory_mb * 2**20)
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
    """The engine (``--backend local``) or the Ray backend, its sandbox checked on every node now."""
    from benchmorph.core.notices import Notice
    from benchmorph.execution.backends import BackendUnavailable, make_backend
    from benchmorph.execution.limits import Limits

    if backend == "local":
        if ray_address is not None:
            fail("--ray-address needs --backend ray")
        return make_engine(workers, min_time_limit, time_factor, sandbox, memory_mb, test_details)
    if backend != "ray":
        fail(f"--backend: expected local or ray, not {backend!r}")
    if min_time_limit <= 0 or time_factor <= 0:
        fail("--min-time-limit and --time-factor must be positive")
    limits = Limits(min_time_limit=min_time_limit, time_factor=time_factor)
    if memory_mb is not None:
        limits = replace(limits, memory=memory_mb * 2**20)
    try:
        return make_backend(
            "ray",
            workers=workers,
            limits=limits,
            isolation=sandbox,
            ray_address=ray_address,
            engine_options={"test_details": test_details},
            notify=lambda text: show_notice(Notice("warning", text)),
        )
    except BackendUnavailable as exc:
        fail(f"--ray-address {ray_address}: {exc}" if ray_address else f"--backend ray: {exc}")
        raise
