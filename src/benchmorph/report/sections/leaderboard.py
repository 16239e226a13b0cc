"""The report's leaderboard section: pass@1 of every run, with its interval."""

from __future__ import annotations

from typing import TYPE_CHECKING

from benchmorph.report.section import Page, Section, register_section

if TYPE_CHECKING:
    from benchmorph.report.build import Report

TEMPLATE = """{{ render_table(tables.leaderboard) }}"""


def render(report: Report, page: Page) -> str | None:
    return page.render(TEMPLATE)


register_section(Section("leaderboard", "leaderboard", 10, render))
