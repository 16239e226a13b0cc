"""The report's per problem section: one row per problem, each opening its drill-down (the problem, the variant's diff, every answer)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from benchmorph.report.section import Page, Section, register_section

if TYPE_CHECKING:
    from benchmorph.report.build import Report

TEMPLATE = """{{ render_table(tables.problems, clickable=True) }}"""


def render(report: Report, page: Page) -> str | None:
    if page.tables.get("problems") is None:
        return None
    return page.render(TEMPLATE)


register_section(Section("problems", "per problem", 90, render))
