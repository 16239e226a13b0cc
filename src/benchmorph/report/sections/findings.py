"""The report's findings section, first on the page: a study's findings per model, each with its interval and count."""

from __future__ import annotations

from typing import TYPE_CHECKING

from benchmorph.report.findings import findings_tables
from benchmorph.report.section import Page, Section, register_section

if TYPE_CHECKING:
    from benchmorph.report.build import Report

TEMPLATE = """<section id="findings" class="findings">
  <h2>Findings</h2>
  <p class="meta" id="findings-meta">{{ findings.benchmark }}: {{ findings.problems }} problems, {{ findings.models|length }} models and baselines. Every number has its 95% interval (paired bootstrap over problems; Wilson for a share of samples) and the count it rests on; a number resting on fewer than {{ findings.min_problems }} problems is not shown.</p>
  {% for table in finding_tables %}{{ render_table(table) }}{% endfor %}
  {% if findings.notes %}<ul class="meta" id="findings-notes">{% for line in findings.notes %}<li>{{ line }}</li>{% endfor %}</ul>{% endif %}
  {% if findings.off %}<ul class="meta" id="findings-off">{% for line in findings.off %}<li>{{ line }}</li>{% endfor %}</ul>{% endif %}
</section>"""


def render(report: Report, page: Page) -> str | None:
    if report.findings is None:
        return None
    return page.render(TEMPLATE, findings=report.findings, finding_tables=findings_tables(report.findings))


register_section(Section("findings", "findings", 5, render))
