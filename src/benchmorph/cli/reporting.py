"""`benchmorph report`: every analysis across runs, as HTML, Markdown, CSV and report.json."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from benchmorph.cli.options import SandboxOption, WorkersOption
from benchmorph.cli.shared import app, console, fail, make_engine, show_report_files


@app.command("report")
def report_command(
    runs: Annotated[list[Path], typer.Argument(help="Run directories: any models, originals and variants.")],
    html: Annotated[Path, typer.Option("--html", help="The single-file HTML report.")] = Path("report.html"),
    markdown: Annotated[Path | None, typer.Option("--md", help="Also write Markdown tables here.")] = None,
    csv_dir: Annotated[Path | None, typer.Option("--csv", help="Also write one CSV per table here.")] = None,
    workers: WorkersOption = None,
    sandbox: SandboxOption = None,
) -> None:
    """Leaderboard with CIs, originals vs variants, ranking change and a per-problem drill-down."""
    from benchmorph.evaluation.rundir import load_run
    from benchmorph.report.files import write_report

    loaded = [load_run(path) for path in runs]  # a bad run directory fails before the sandbox starts
    if not loaded:
        fail("name at least one run directory")
    with console.status("analysing runs (answered-the-original re-runs failed variant samples)"):
        with make_engine(workers, 1.0, 4.0, sandbox) as engine:
            files = write_report(loaded, engine, html, markdown=markdown, csv_dir=csv_dir)
    show_report_files(files)
