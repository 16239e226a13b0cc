"""The single-file HTML report: tables rendered server-side, charts as inline SVG, drill-down data as JSON.

Nothing is fetched: CSS, JavaScript, charts and data are inside the file, and
a Content-Security-Policy forbids the page any network request, so the file
can be mailed, attached to a pull request or opened offline.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from importlib import resources
from pathlib import Path

import jinja2

from benchmorph import __version__
from benchmorph.report import charts
from benchmorph.report.analysis import ModelOutcome
from benchmorph.report.build import Report
from benchmorph.report.tables import all_tables, cell_text, sort_value


def _asset(name: str) -> str:
    return resources.files("benchmorph.report").joinpath("assets", name).read_text(encoding="utf-8")


def _outcome_class(value: ModelOutcome | None) -> str:
    """The cell colour of a per-problem outcome, by the same majority rule the counts use."""
    if value is None or value.variant is None:
        return ""
    return {(True, True): "pass-both", (True, False): "pass-original", (False, True): "pass-variant"}.get(
        (value.passes("original"), value.passes("variant")), "pass-neither"
    )


def _script_json(data: object) -> str:
    """JSON safe inside a <script> element: no '</' can end it early."""
    return json.dumps(data, separators=(",", ":")).replace("</", "<\\/").replace("<!--", "<\\!--")


def render_html(report: Report) -> str:
    environment = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined)
    template = environment.from_string(_asset("report.html.j2"))
    tables = {table.name: table for table in all_tables(report)}
    if report.families:
        chart_svgs = {
            "bars": charts.grouped_bars(report.families),
            "scatter": charts.scatter(report.families),
            "drop": charts.drop_chart(report.families),
        }
    elif report.leaderboard:
        chart_svgs = {"bars": charts.leaderboard_bars(report.leaderboard), "scatter": "", "drop": ""}
    else:
        chart_svgs = {"bars": "", "scatter": "", "drop": ""}
    return template.render(
        report=report,
        models=report.models,
        version=__version__,
        tables={
            name: tables.get(name)
            for name in ("leaderboard", "families", "rankings", "problems", "metamorphic", "contamination")
        },
        charts=chart_svgs,
        cell_text=cell_text,
        sort_value=sort_value,
        outcome_class=_outcome_class,
        details_json=_script_json([asdict(detail) for detail in report.details]),
        css=_asset("report.css"),
        js=_asset("report.js"),
    )


def write_html(report: Report, path: str | Path) -> Path:
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(render_html(report), encoding="utf-8")
    return target
