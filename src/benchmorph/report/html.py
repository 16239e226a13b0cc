"""The single-file HTML report: tables rendered server-side, charts as inline SVG, drill-down data as JSON.

Nothing is fetched: CSS, JavaScript, charts and data are inside the file, and
a Content-Security-Policy forbids the page any network request, so the file
can be mailed, attached to a pull request or opened offline.  The page is
the registered sections (``report.section``), in order.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

import jinja2

from benchmorph import __version__
from benchmorph.report.analysis import ModelOutcome
from benchmorph.report.build import Report
from benchmorph.report.section import Page, Tables, asset, sections
from benchmorph.report.tables import all_tables, cell_text, sort_value


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
    environment.globals.update(cell_text=cell_text, sort_value=sort_value, outcome_class=_outcome_class)
    page = Page(environment, Tables({table.name: table for table in all_tables(report)}))
    rendered = [(section, section.render(report, page)) for section in sections()]
    shown = [(section, fragment) for section, fragment in rendered if fragment is not None]
    return environment.from_string(asset("report.html.j2")).render(
        report=report,
        models=report.models,
        version=__version__,
        sections=[section for section, _ in shown],
        fragments=[fragment for _, fragment in shown],
        details_json=_script_json([asdict(detail) for detail in report.details]),
        css=asset("report.css"),
        js=asset("report.js"),
    )


def write_html(report: Report, path: str | Path) -> Path:
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(render_html(report), encoding="utf-8")
    return target
