"""The report's contamination section: the verdict on both axes and where the variants sit on the
memoriser's curve.

- the rewrite axis: static against dynamic (metamorphic) pass@1 across models;
- the date axis (``--cutoff``): pass@1 on problems released before and after each model's training
  cutoff, and per model which axis supports a verdict;
- the fuzzy memoriser's threshold sweep ("how close must the text stay for a memoriser to recall
  it") with the report's metamorphic variants on it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from benchmorph.report import charts
from benchmorph.report.section import Page, Section, register_section

if TYPE_CHECKING:
    from benchmorph.report.build import Report

TEMPLATE = """{% if tables.contamination %}{{ render_table(tables.contamination) }}
{% else %}<a id="contamination"></a>{% endif %}
{% if tables.contamination %}<p class="meta" id="contamination-method">Dynamic pass@1: per seed problem, the mean pass rate over its metamorphic variants. A model is flagged when its dynamic pass@1 lies outside the 95% prediction interval of a least-squares fit of dynamic on static pass@1 over the other models (a forward search from the most trusted models: a flagged model stays out of the fit); the gap's interval is a paired bootstrap over seed problems.</p>{% endif %}
{% if tables.contamination_dates %}{{ render_table(tables.contamination_dates) }}
<p class="meta" id="contamination-dates-method">pass@1 on the problems released before each model's training cutoff against those released on or after it; the gap's 95% interval resamples the two sets apart. A model is flagged when the interval lies wholly above zero (and above every reference model's).</p>{% endif %}
{% if tables.contamination_axes %}{{ render_table(tables.contamination_axes) }}{% endif %}
{% if tables.contamination_recall %}{{ render_table(tables.contamination_recall) }}
{% for svg in recall_charts %}<figure class="recall-chart" id="chart-recall-{{ loop.index0 }}"><figcaption>share recalled by the fuzzy memoriser against its threshold</figcaption>{{ svg|safe }}</figure>{% endfor %}
<p class="meta" id="contamination-recall-method">A fuzzy memoriser (<code>memorizer?recall=fuzzy</code>) answers from memory when a prompt keeps at least the threshold of an original's tokens in order. Near-copies are made from the originals alone: every parameter renamed, a framing sentence added, a tenth of the description's words replaced (all three: light edit), and more of the words replaced; unrelated originals are each original against the nearest other one. The threshold is the one that best separates light edits from unrelated originals (Youden's J), chosen on HumanEval's originals, never on a variant file.</p>{% endif %}"""

NAMES = ("contamination", "contamination_dates", "contamination_axes", "contamination_recall")


def render(report: Report, page: Page) -> str | None:
    if all(page.tables.get(name) is None for name in NAMES):
        return None
    svgs = [charts.recall_chart(curve, f"recall{index}") for index, curve in enumerate(report.recall)]
    return page.render(TEMPLATE, recall_charts=svgs)


register_section(Section("contamination", "contamination", 60, render))
