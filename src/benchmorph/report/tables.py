"""The report's tables as rows of raw values with one formatter per column.

Markdown and HTML print ``cell_text`` of the same values and CSV writes the
raw values, so a number can only differ between exports by its rounding.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from benchmorph.report.analysis import ModelOutcome
from benchmorph.report.build import Report


@dataclass
class Column:
    key: str
    title: str
    kind: str = "text"  # text | int | rate | signed | percent | interval | outcome | tau


@dataclass
class Table:
    name: str  # file stem for CSV, element id in HTML
    title: str
    columns: list[Column]
    rows: list[list[Any]] = field(default_factory=list)
    row_ids: list[str] = field(default_factory=list)  # per-problem rows link to their drill-down


def _mark(value: float | None) -> str:
    if value is None:
        return "·"
    if value in (0.0, 1.0):
        return "✓" if value == 1.0 else "✗"
    return f"{value:.2f}"  # several samples, some passing


def cell_text(value: Any, kind: str) -> str:
    """How every export prints one value."""
    if value is None:
        return "-"
    if kind == "rate":
        return f"{value:.3f}"
    if kind == "signed":
        return f"{value:+.3f}"
    if kind == "percent":
        return f"{value:.1%}"
    if kind == "tau":
        return f"{value:+.3f}"
    if kind == "interval":
        low, high = value
        return f"[{low:.3f}, {high:.3f}]"
    if kind == "outcome":
        return (
            f"{_mark(value.original)}→{_mark(value.variant)}"
            if value.variant is not None
            else _mark(value.original)
        )
    return str(value)


def sort_value(value: Any, kind: str) -> float | str:
    """What a sortable column orders by: the number, not its text."""
    if value is None:
        return float("-inf")
    if kind == "interval":
        return float(value[0])
    if kind == "outcome":
        return (value.original or 0.0) + 2 * (value.variant or 0.0)
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int | float):
        return float(value)
    return str(value)


def leaderboard_table(report: Report) -> Table:
    ks = sorted({k for row in report.leaderboard for k in row.pass_at_k}, key=lambda k: int(k.split("@")[1]))
    columns = [
        Column("model", "model"),
        Column("benchmark", "benchmark"),
        Column("problems", "problems", "int"),
        Column("samples_per_problem", "n", "int"),
        Column("pass_at_1", "pass@1", "rate"),
        Column("ci", "95% CI", "interval"),
        *[Column(k, k, "rate") for k in ks],
    ]
    table = Table("leaderboard", "Leaderboard", columns)
    for row in report.leaderboard:
        values = [
            row.model,
            row.benchmark,
            row.problems,
            row.samples_per_problem,
            row.pass_at_1,
            (row.ci_low, row.ci_high),
        ]
        table.rows.append(values + [row.pass_at_k.get(k) for k in ks])
    return table


def family_table(report: Report) -> Table:
    columns = [
        Column("model", "model"),
        Column("family", "family"),
        Column("variant_benchmark", "variants"),
        Column("pairs", "pairs", "int"),
        Column("pass_original", "pass@1 original", "rate"),
        Column("pass_variant", "pass@1 variant", "rate"),
        Column("drop", "drop", "signed"),
        Column("drop_ci", "drop 95% CI", "interval"),
        Column("relative_drop", "relative drop", "percent"),
        Column("both", "both", "int"),
        Column("original_only", "original only", "int"),
        Column("variant_only", "variant only", "int"),
        Column("neither", "neither", "int"),
        Column("answered_original", "answered original", "int"),
        Column("variant_failures", "variant failures", "int"),
    ]
    composed = any(row.composition_ratio is not None for row in report.families)
    if composed:  # evolved combine families: EvoEval's composition ratio
        columns.append(Column("composition_ratio", "composition ratio", "rate"))
    table = Table("families", "Originals vs variants, per model and family", columns)
    for row in report.families:
        extra = [row.composition_ratio] if composed else []
        table.rows.append(
            [
                row.model,
                row.family,
                row.variant_benchmark,
                row.pairs,
                row.pass_original,
                row.pass_variant,
                row.drop,
                (row.drop_ci_low, row.drop_ci_high),
                row.relative_drop,
                row.both,
                row.original_only,
                row.variant_only,
                row.neither,
                row.answered_original,
                row.variant_failures,
                *extra,
            ]
        )
    return table


def ranking_table(report: Report) -> Table:
    columns = [
        Column("family", "family"),
        Column("variant_benchmark", "variants"),
        Column("kendall_tau", "Kendall tau", "tau"),
        Column("model", "model"),
        Column("rank_original", "rank original", "int"),
        Column("rank_variant", "rank variant", "int"),
        Column("places", "places moved", "int"),
    ]
    table = Table("rankings", "Ranking change from originals to variants", columns)
    for change in report.rankings:
        for move in change.moves:
            table.rows.append(
                [
                    change.family,
                    change.variant_benchmark,
                    change.kendall_tau,
                    move.model,
                    move.rank_original,
                    move.rank_variant,
                    move.places,
                ]
            )
    return table


def problem_table(report: Report) -> Table:
    """Per problem; without variant runs there is one side only: which models pass each problem."""
    models = report.models
    paired = any(row.parent_id for row in report.problems)
    columns = [Column("id", "problem"), Column("family", "family" if paired else "benchmark")]
    if paired:
        columns += [
            Column("pass_original", "pass original", "int"),
            Column("pass_variant", "pass variant", "int"),
            Column("pass_both", "pass both", "int"),
        ]
    else:
        columns.append(Column("pass_original", "models passing", "int"))
    columns += [Column(f"model:{model}", model, "outcome") for model in models]
    title = "Per problem: original → variant for each model" if paired else "Per problem: which models pass"
    table = Table("problems", title, columns)
    for row in report.problems:
        counts = [len(row.passing("original"))]
        if paired:
            counts += [len(row.passing("variant")), len(row.passing_both())]
        outcomes: list[ModelOutcome | None] = [row.outcomes.get(model) for model in models]
        table.rows.append([row.id, row.family, *counts, *outcomes])
        table.row_ids.append(row.key)
    return table


def contamination_table(report: Report) -> Table:
    """Static vs dynamic (metamorphic) pass@1 per model, the gap's interval and the fit's verdict."""
    columns = [
        Column("benchmark", "benchmark"),
        Column("model", "model"),
        Column("seeds", "seeds", "int"),
        Column("static", "static pass@1", "rate"),
        Column("dynamic", "dynamic pass@1", "rate"),
        Column("gap", "gap", "signed"),
        Column("gap_ci", "gap 95% CI", "interval"),
        Column("predicted", "predicted dynamic", "rate"),
        Column("interval", "95% prediction interval", "interval"),
        Column("verdict", "verdict"),
    ]
    table = Table("contamination", "Contamination: static vs metamorphic (dynamic) pass@1", columns)
    for group in report.contamination:
        for row in group.models:
            interval = None if row.interval_low is None else (row.interval_low, row.interval_high)
            verdict = f"flagged ({row.side})" if row.flagged else "not flagged"
            if row.predicted is None:
                verdict = "no fit (too few other models)"
            if row.reference:
                verdict += ", reference"
            elif row.exceeds_reference:
                verdict += ", gap above the references'"
            table.rows.append(
                [
                    group.benchmark,
                    row.model,
                    row.seeds,
                    row.static,
                    row.dynamic,
                    row.gap,
                    (row.gap_ci_low, row.gap_ci_high),
                    row.predicted,
                    interval,
                    verdict,
                ]
            )
    return table


def contamination_dates_table(report: Report) -> Table:
    """pass@1 on the dated originals released before and after each model's cutoff, and the gap."""
    columns = [
        Column("benchmark", "benchmark"),
        Column("model", "model"),
        Column("cutoff", "cutoff"),
        Column("before", "released before", "int"),
        Column("pass_before", "pass@1 before", "rate"),
        Column("after", "released after", "int"),
        Column("pass_after", "pass@1 after", "rate"),
        Column("gap", "gap", "signed"),
        Column("gap_ci", "gap 95% CI", "interval"),
        Column("verdict", "verdict"),
    ]
    table = Table(
        "contamination_dates", "Contamination by release date: before vs after the training cutoff", columns
    )
    for group in report.dates:
        for row in group.models:
            verdict = "flagged" if row.flagged else "not flagged"
            if row.reference:
                verdict += ", reference"
            table.rows.append(
                [
                    group.benchmark,
                    row.model,
                    row.cutoff,
                    row.before,
                    row.pass_before,
                    row.after,
                    row.pass_after,
                    row.gap,
                    (row.gap_ci_low, row.gap_ci_high),
                    verdict,
                ]
            )
    return table


def contamination_axes_table(report: Report) -> Table:
    """Per model, what each axis says and which supports a contamination verdict (only with dates)."""
    columns = [
        Column("benchmark", "benchmark"),
        Column("model", "model"),
        Column("rewrites", "rewrites"),
        Column("dates", "dates"),
        Column("verdict", "verdict"),
    ]
    table = Table("contamination_axes", "Contamination verdict: which axis supports it", columns)
    if not report.dates:
        return table

    def word(flag: bool | None) -> str:
        return "not measured" if flag is None else ("flagged" if flag else "not flagged")

    for verdict in report.verdicts:
        table.rows.append(
            [verdict.benchmark, verdict.model, word(verdict.rewrites), word(verdict.dates), verdict.says]
        )
    return table


def recall_table(report: Report) -> Table:
    """The fuzzy memoriser's curve: at each threshold, the share of near-copies it recalls, of originals it
    mistakes for another, and of the report's metamorphic variants it recalls."""
    columns = [
        Column("benchmark", "originals"),
        Column("variants", "variants"),
        Column("threshold", "threshold"),
        Column("renamed", "renamed", "rate"),
        Column("framed", "framed", "rate"),
        Column("light", "light edit", "rate"),
        Column("reworded30", "30% reworded", "rate"),
        Column("reworded50", "half reworded", "rate"),
        Column("unrelated", "unrelated originals", "rate"),
        Column("variants_recalled", "our variants", "rate"),
    ]
    table = Table(
        "contamination_recall", "How close must the text stay for a memoriser to recall it?", columns
    )
    for curve in report.recall:
        for threshold in curve.thresholds:
            step = round(threshold * 100)
            if step % 5 and abs(threshold - curve.chosen) > 1e-9:
                continue
            row = curve.at(threshold)
            mark = " (chosen)" if abs(threshold - curve.chosen) < 1e-9 else ""
            table.rows.append(
                [
                    curve.benchmark,
                    curve.variant_benchmark,
                    f"{threshold:.2f}{mark}",
                    row["renamed"],
                    row["framed"],
                    row["light edit"],
                    row["reworded 30%"],
                    row["reworded 50%"],
                    row["unrelated originals"],
                    row.get("variants"),
                ]
            )
    return table


def metamorphic_table(report: Report) -> Table:
    """DyCodeEval's table: pass@k on the originals beside DyPass@k on their metamorphic variants, per
    model, and the variants' mean BLEU-4 against their originals (external) and each other (internal)."""
    ks = sorted({int(key.split("@")[1]) for row in report.metamorphic for key in row.dypass})
    columns = [
        Column("benchmark", "benchmark"),
        Column("model", "model"),
        Column("seeds", "seeds", "int"),
        *(Column(f"pass@{k}", f"Pass@{k}", "rate") for k in ks),
        *(Column(f"dypass@{k}", f"DyPass@{k}", "rate") for k in ks),
        Column("bleu_external", "BLEU-4 external", "rate"),
        Column("bleu_internal", "BLEU-4 internal", "rate"),
    ]
    table = Table(
        "metamorphic", "Metamorphic: Pass@K on the originals vs DyPass@K on their variants", columns
    )
    for row in report.metamorphic:
        table.rows.append(
            [
                row.benchmark,
                row.model,
                row.seeds,
                *(row.passk.get(f"pass@{k}") for k in ks),
                *(row.dypass.get(f"dypass@{k}") for k in ks),
                row.bleu_external,
                row.bleu_internal,
            ]
        )
    return table


def all_tables(report: Report) -> list[Table]:
    tables = [
        leaderboard_table(report),
        family_table(report),
        ranking_table(report),
        problem_table(report),
        metamorphic_table(report),
        contamination_table(report),
        contamination_dates_table(report),
        contamination_axes_table(report),
        recall_table(report),
    ]
    return [table for table in tables if table.rows]


def text_rows(table: Table) -> Sequence[list[str]]:
    return [
        [cell_text(value, column.kind) for value, column in zip(row, table.columns, strict=True)]
        for row in table.rows
    ]
