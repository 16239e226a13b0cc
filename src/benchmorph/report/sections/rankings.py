"""The report's ranking change section: how the models' ranking changes from the originals to the variants."""

from __future__ import annotations

from typing import TYPE_CHECKING

from benchmorph.report.section import Page, Section, register_section

if TYPE_CHECKING:
    from benchmorph.report.build import Report

TEMPLATE = """{% if tables.rankings %}{{ render_table(tables.rankings) }}{% else %}<section id="rankings"><h2>Ranking change</h2><p class="meta">Needs at least two models paired on the same variants.</p></section>{% endif %}"""


def render(report: Report, page: Page) -> str | None:
    return page.render(TEMPLATE)


register_section(Section("rankings", "ranking change", 40, render))
