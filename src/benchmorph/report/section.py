"""What a report section is, and the registry the HTML page is assembled from.

The page is a list of sections (leaderboard, charts, originals vs variants,
...), each a small module in ``benchmorph.report.sections`` that registers a
:class:`Section`: its anchor, its link text, its place on the page and a
``render(report, page)`` that returns an HTML fragment, or None when the
report holds nothing for it (the section and its link are then left out).
A plug-in adds one through an entry point in ``benchmorph.report_sections``
or a module named in ``$BENCHMORPH_REPORT_SECTIONS``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from typing import TYPE_CHECKING, Any

import jinja2

from benchmorph.core.registry import Registry
from benchmorph.data.errors import InputError

if TYPE_CHECKING:
    from benchmorph.report.build import Report


def asset(name: str) -> str:
    return resources.files("benchmorph.report").joinpath("assets", name).read_text(encoding="utf-8")


class Tables(dict[str, Any]):
    """The report's tables by name; a table the report does not have is None, not an error."""

    def __missing__(self, key: str) -> None:
        return None


@dataclass
class Page:
    """What sections share while one page is rendered: the template environment and the report's tables."""

    environment: jinja2.Environment
    tables: Tables

    def render(self, template: str, **values: Any) -> str:
        """A jinja fragment, with the shared macros (``render_table``) and helpers in scope."""
        macros = asset("macros.html.j2")
        return self.environment.from_string(macros + template).render(tables=self.tables, **values)


@dataclass(frozen=True)
class Section:
    """One part of the report page."""

    name: str  # the anchor (id) of the section
    title: str  # its link in the page's navigation
    order: int  # position on the page, smaller first
    render: Callable[[Report, Page], str | None]


SECTIONS: Registry[Section] = Registry(
    "report section",
    packages=("benchmorph.report.sections",),
    group="benchmorph.report_sections",
    env="BENCHMORPH_REPORT_SECTIONS",
    unknown=InputError,
)


def register_section(section: Section) -> Section:
    SECTIONS.add(section.name, section)
    return section


def sections() -> list[Section]:
    """Every registered section, in page order."""
    return sorted((section for _, section in SECTIONS.items()), key=lambda section: section.order)
