"""`benchmorph report`: every analysis across runs, as HTML, Markdown, CSV and report.json."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Annotated

import typer

from benchmorph.cli.shared import SandboxOption, WorkersOption, app, console, fail, make_engine, out_console
from benchmorph.evaluation.rundir import load_run
from benchmorph.report import build_report, write_csv, write_html, write_json, write_markdown


def write_report(
    runs: Sequence[Path],
    html: Path,
    *,
    markdown: Path | None = None,
    csv_dir: Path | None = None,
    workers: int | None = None,
    sandbox: str | None = None,
) -> Path:
    """Build the report once and write every export asked for; report.json always sits beside the HTML."""
    loaded = [load_run(path) for path in runs]
    if not loaded:
        fail("name at least one run directory")
    with console.status("analysing runs (answered-the-original re-runs failed variant samples)"):
        with make_engine(workers, 1.0, 4.0, sandbox) as engine:
            report = build_report(loaded, engine)
    write_html(report, html)
    json_path = write_json(report, html.with_suffix(".json"))
    out_console.print(f"report: {html.resolve()}")
    out_console.print(f"numbers: {json_path}")
    if markdown is not None:
        out_console.print(f"markdown: {write_markdown(report, markdown)}")
    if csv_dir is not None:
        out_console.print(f"csv: {', '.join(str(path) for path in write_csv(report, csv_dir))}")
    return html


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
    write_report(runs, html, markdown=markdown, csv_dir=csv_dir, workers=workers, sandbox=sandbox)
