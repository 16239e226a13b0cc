"""The report's charts as inline SVG drawn by matplotlib.

SVG rather than a JavaScript chart library keeps the report one small file
that needs no network and renders the same in every browser.  Each data mark
gets an id (``data-...``) so a test can find it in the rendered page.
"""

from __future__ import annotations

import io
import re
from collections.abc import Sequence

import matplotlib
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from benchmorph.report.analysis import FamilyRow, LeaderboardRow
from benchmorph.report.recall import RecallCurve

ORIGINAL_COLOR = "#4c78a8"
VARIANT_COLOR = "#f58518"


def _svg(figure: Figure, salt: str) -> str:
    """The figure as an <svg> element; a salt per chart keeps clip-path ids unique on one page."""
    buffer = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": salt}):
        figure.savefig(buffer, format="svg", bbox_inches="tight", metadata={"Date": None})
    text = buffer.getvalue()
    text = text[text.index("<svg") :]
    # Element ids must be unique across the page's charts too (patch_1 in every figure).
    text = re.sub(r'id="(?!data-)([^"]+)"', lambda m: f'id="{salt}-{m.group(1)}"', text)
    return text.replace("url(#", f"url(#{salt}-").replace('href="#', f'href="#{salt}-')


def _figure(items: int, height: float = 3.6) -> Figure:
    return Figure(figsize=(max(5.5, min(14.0, 1.0 + 0.55 * items)), height), dpi=96)


def _rate_axis(axes: Axes, positions: list[int], labels: list[str]) -> None:
    """Bar positions labelled (slanted once there are many) under a 0..1 pass-rate scale."""
    crowded = len(labels) > 4
    axes.set_xticks(positions, labels, rotation=30 if crowded else 0, ha="right" if crowded else "center")
    axes.set_ylim(0, 1.05)


def _label(row: FamilyRow, families: int) -> str:
    return row.model if families == 1 else f"{row.model}\n{row.family}"


def grouped_bars(rows: Sequence[FamilyRow]) -> str:
    """pass@1 on originals next to pass@1 on their variants, per model (and family)."""
    families = len({row.family for row in rows})
    figure = _figure(2 * len(rows))
    axes = figure.add_subplot()
    positions = list(range(len(rows)))
    width = 0.38
    for offset, key, color, name in (
        (-width / 2, "pass_original", ORIGINAL_COLOR, "original"),
        (width / 2, "pass_variant", VARIANT_COLOR, "variant"),
    ):
        bars = axes.bar(
            [p + offset for p in positions],
            [getattr(row, key) for row in rows],
            width,
            color=color,
            label=name,
        )
        for index, bar in enumerate(bars):
            bar.set_gid(f"data-bar-{name}-{index}")
    _rate_axis(axes, positions, [_label(row, families) for row in rows])
    axes.set_ylabel("pass@1")
    axes.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=2, frameon=False)
    axes.spines[["top", "right"]].set_visible(False)
    return _svg(figure, "bars")


def scatter(rows: Sequence[FamilyRow]) -> str:
    """Original vs variant pass@1; points under the identity line lost accuracy on the variants."""
    families = len({row.family for row in rows})
    figure = Figure(figsize=(5.2, 5.0), dpi=96)
    axes = figure.add_subplot()
    line = axes.plot([0, 1], [0, 1], linestyle="--", color="#888888", linewidth=1)[0]
    line.set_gid("data-identity")
    for index, row in enumerate(rows):
        point = axes.scatter([row.pass_original], [row.pass_variant], s=36, color=VARIANT_COLOR, zorder=3)
        point.set_gid(f"data-point-{index}")
        axes.annotate(
            _label(row, families).replace("\n", " / "),
            (row.pass_original, row.pass_variant),
            textcoords="offset points",
            xytext=(5, 4),
            fontsize=7,
        )
    axes.set_xlim(-0.03, 1.05)
    axes.set_ylim(-0.03, 1.05)
    axes.set_xlabel("pass@1 on originals")
    axes.set_ylabel("pass@1 on variants")
    axes.spines[["top", "right"]].set_visible(False)
    return _svg(figure, "scatter")


def drop_chart(rows: Sequence[FamilyRow]) -> str:
    """Absolute drop per model with its paired 95% interval, largest drop on top."""
    families = len({row.family for row in rows})
    ordered = sorted(rows, key=lambda row: row.drop)
    figure = Figure(figsize=(6.5, max(2.2, 0.9 + 0.32 * len(rows))), dpi=96)
    axes = figure.add_subplot()
    positions = list(range(len(ordered)))
    errors = [
        [max(0.0, row.drop - row.drop_ci_low) for row in ordered],
        [max(0.0, row.drop_ci_high - row.drop) for row in ordered],
    ]
    bars = axes.barh(
        positions,
        [row.drop for row in ordered],
        xerr=errors,
        color=VARIANT_COLOR,
        error_kw={"ecolor": "#555555", "capsize": 3, "linewidth": 1},
    )
    for index, bar in enumerate(bars):
        bar.set_gid(f"data-drop-{index}")
    axes.set_yticks(positions, [_label(row, families).replace("\n", " / ") for row in ordered])
    axes.axvline(0, color="#888888", linewidth=1)
    axes.set_xlabel("drop in pass@1 (original − variant)")
    axes.spines[["top", "right"]].set_visible(False)
    return _svg(figure, "drop")


def leaderboard_bars(rows: Sequence[LeaderboardRow]) -> str:
    """With no variant runs, the bar chart shows pass@1 per run with its interval instead."""
    figure = _figure(len(rows))
    axes = figure.add_subplot()
    positions = list(range(len(rows)))
    errors = [[row.pass_at_1 - row.ci_low for row in rows], [row.ci_high - row.pass_at_1 for row in rows]]
    bars = axes.bar(
        positions,
        [row.pass_at_1 for row in rows],
        0.6,
        yerr=errors,
        color=ORIGINAL_COLOR,
        error_kw={"ecolor": "#555555", "capsize": 3, "linewidth": 1},
    )
    for index, bar in enumerate(bars):
        bar.set_gid(f"data-bar-run-{index}")
    _rate_axis(axes, positions, [f"{row.model}\n{row.benchmark}" for row in rows])
    axes.set_ylabel("pass@1")
    axes.spines[["top", "right"]].set_visible(False)
    return _svg(figure, "bars")


def recall_chart(curve: RecallCurve, salt: str = "recall") -> str:
    """The fuzzy memoriser's curve: share recalled against the threshold, per kind of text, with the
    chosen threshold marked; where the report's variants sit is their own line."""
    figure = Figure(figsize=(6.5, 3.4), dpi=96)
    axes = figure.add_subplot()
    lines = [
        ("light edit", curve.recalled["light edit"], ORIGINAL_COLOR, "-"),
        ("30% reworded", curve.recalled["reworded 30%"], "#72b7b2", "-"),
        ("half reworded", curve.recalled["reworded 50%"], "#54a24b", "-"),
        ("unrelated originals", curve.mistaken, "#999999", "--"),
    ]
    if curve.variants_recalled:
        lines.append((f"our variants ({curve.variants})", curve.variants_recalled, VARIANT_COLOR, "-"))
    for index, (label, shares, color, style) in enumerate(lines):
        (line,) = axes.plot(curve.thresholds, shares, style, color=color, linewidth=1.8, label=label)
        line.set_gid(f"data-recall-{index}")
    axes.axvline(curve.chosen, color="#c0392b", linewidth=1, linestyle=":")
    axes.text(curve.chosen, 1.02, f" chosen {curve.chosen:.2f}", color="#c0392b", fontsize=8, va="bottom")
    axes.set_xlabel("threshold: share of the original's tokens kept in order")
    axes.set_ylabel("share recalled")
    axes.set_ylim(-0.02, 1.1)
    axes.legend(fontsize=7, loc="lower left", frameon=False)
    axes.spines[["top", "right"]].set_visible(False)
    return _svg(figure, salt)
