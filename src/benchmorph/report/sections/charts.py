"""The report's charts section: originals against variants as inline SVG charts (or pass@1 per run when nothing is paired)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from benchmorph.report import charts
from benchmorph.report.section import Page, Section, register_section

if TYPE_CHECKING:
    from benchmorph.report.build import Report

TEMPLATE = """<section id="charts">
  <h2>Charts</h2>
  {% if charts.bars %}
  <div class="charts">
    <figure id="chart-bars"><figcaption>{{ "pass@1 on originals vs variants" if charts.scatter else "pass@1 per run" }}</figcaption>{{ charts.bars|safe }}</figure>
    {% if charts.scatter %}<figure id="chart-scatter"><figcaption>original vs variant pass@1 (dashed: no change)</figcaption>{{ charts.scatter|safe }}</figure>{% endif %}
    {% if charts.drop %}<figure id="chart-drop"><figcaption>drop in pass@1, sorted, with paired 95% CI</figcaption>{{ charts.drop|safe }}</figure>{% endif %}
  </div>
  {% else %}<p class="meta">no runs to chart</p>{% endif %}
</section>"""


def render(report: Report, page: Page) -> str | None:
    if report.families:
        svgs = {
            "bars": charts.grouped_bars(report.families),
            "scatter": charts.scatter(report.families),
            "drop": charts.drop_chart(report.families),
        }
    elif report.leaderboard:
        svgs = {"bars": charts.leaderboard_bars(report.leaderboard), "scatter": "", "drop": ""}
    else:
        svgs = {"bars": "", "scatter": "", "drop": ""}
    return page.render(TEMPLATE, charts=svgs)


register_section(Section("charts", "charts", 20, render))
