"""The report's originals vs variants section: originals against variants per model and family: the paired drop and answered-the-original failures."""

from __future__ import annotations

from typing import TYPE_CHECKING

from benchmorph.report.section import Page, Section, register_section

if TYPE_CHECKING:
    from benchmorph.report.build import Report

TEMPLATE = """{% if tables.families %}{{ render_table(tables.families) }}{% else %}<section id="families"><h2>Originals vs variants</h2><p class="meta">No variant run was paired with a run of the same model on the parent problems.</p></section>{% endif %}"""


def render(report: Report, page: Page) -> str | None:
    return page.render(TEMPLATE)


register_section(Section("families", "originals vs variants", 30, render))
