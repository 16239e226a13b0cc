"""The report's contamination section: the contamination verdict: static against dynamic pass@1 across models."""

from __future__ import annotations

from typing import TYPE_CHECKING

from benchmorph.report.section import Page, Section, register_section

if TYPE_CHECKING:
    from benchmorph.report.build import Report

TEMPLATE = """{{ render_table(tables.contamination) }}
<p class="meta" id="contamination-method">Dynamic pass@1: per seed problem, the mean pass rate over its metamorphic variants. A model is flagged when its dynamic pass@1 lies outside the 95% prediction interval of a least-squares fit of dynamic on static pass@1 over the other models; the gap's interval is a paired bootstrap over seed problems.</p>"""


def render(report: Report, page: Page) -> str | None:
    if page.tables.get("contamination") is None:
        return None
    return page.render(TEMPLATE)


register_section(Section("contamination", "contamination", 60, render))
