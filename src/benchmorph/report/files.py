"""The report use case behind ``benchmorph report`` (and the demo's last step): build once, write every export."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from benchmorph.evaluation.rundir import RunDir
from benchmorph.execution.backends import ExecutionBackend
from benchmorph.report.build import Report, build_report, write_json
from benchmorph.report.contamination import Cutoffs
from benchmorph.report.exports import write_csv, write_markdown
from benchmorph.report.html import write_html


@dataclass
class ReportFiles:
    """What ``write_report`` wrote: the HTML, report.json beside it, and the exports asked for."""

    report: Report
    html: Path
    json: Path
    markdown: Path | None = None
    csv: list[Path] = field(default_factory=list)


def write_report(
    runs: Sequence[RunDir | str | Path],
    engine: ExecutionBackend,
    html: str | Path,
    *,
    markdown: str | Path | None = None,
    csv_dir: str | Path | None = None,
    cutoffs: Cutoffs | None = None,
    reference_models: Sequence[str] = (),
) -> ReportFiles:
    """Build the report over ``runs`` once and write the HTML, ``report.json`` beside it (same stem,
    always: it holds every number the page shows), and Markdown and one CSV per table on request.
    ``cutoffs`` and ``reference_models`` go to the contamination section (:func:`build_report`).

    The engine re-runs failed variant samples on their parents (answered-the-original); it is used,
    not closed.
    """
    if not runs:
        raise ValueError("write_report needs at least one run directory")
    report = build_report(runs, engine, cutoffs=cutoffs, reference_models=reference_models)
    html_path = write_html(report, html)
    return ReportFiles(
        report=report,
        html=html_path,
        json=write_json(report, html_path.with_suffix(".json")),
        markdown=write_markdown(report, markdown) if markdown is not None else None,
        csv=write_csv(report, csv_dir) if csv_dir is not None else [],
    )
