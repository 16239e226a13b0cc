"""The report's metamorphic section: pass@K beside DyPass@K and the BLEU-4 diversity of metamorphic variants."""

from __future__ import annotations

from typing import TYPE_CHECKING

from benchmorph.report.section import Page, Section, register_section

if TYPE_CHECKING:
    from benchmorph.report.build import Report

TEMPLATE = """{{ render_table(tables.metamorphic) }}
<p class="meta" id="metamorphic-method">DyPass@k: one answer per metamorphic variant; per seed problem, the unbiased pass@k over its variants (at least one of k rewordings solved), averaged over seeds. BLEU-4 (sacrebleu, 13a tokenizer) compares the descriptions: external against the original, internal between variants of one seed; lower is more diverse.</p>"""


def render(report: Report, page: Page) -> str | None:
    if page.tables.get("metamorphic") is None:
        return None
    return page.render(TEMPLATE)


register_section(Section("metamorphic", "metamorphic", 50, render))
