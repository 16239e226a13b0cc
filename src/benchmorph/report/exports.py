"""Markdown (for papers and pull requests) and one CSV per table, from the shared tables."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import cast

from benchmorph.report.build import Report
from benchmorph.report.tables import Table, all_tables, text_rows


def _escape(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def markdown_table(table: Table) -> str:
    header = [_escape(column.title) for column in table.columns]
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(" --- " for _ in header) + "|"]
    lines += ["| " + " | ".join(_escape(cell) for cell in row) + " |" for row in text_rows(table)]
    return "\n".join(lines)


def to_markdown(report: Report) -> str:
    parts = [
        "# benchmorph report",
        "",
        f"{len(report.runs)} runs, {len(report.models)} models, {len(report.problems)} problems; "
        f"created {report.created}. Intervals: 95% bootstrap over problems.",
    ]
    for table in all_tables(report):
        parts += ["", f"## {table.title}", "", markdown_table(table)]
    return "\n".join(parts) + "\n"


def write_markdown(report: Report, path: str | Path) -> Path:
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(to_markdown(report), encoding="utf-8")
    return target


def _csv_cells(value: object, kind: str) -> list[object]:
    if kind == "interval":
        low, high = cast(tuple[object, object], value) if value is not None else (None, None)
        return [low, high]
    if kind == "outcome":
        return [None, None] if value is None else [value.original, value.variant]  # type: ignore[attr-defined]
    return [value]


def _csv_header(table: Table) -> list[str]:
    header: list[str] = []
    for column in table.columns:
        if column.kind == "interval":
            header += [f"{column.key}_low", f"{column.key}_high"]
        elif column.kind == "outcome":
            header += [f"{column.key}:original", f"{column.key}:variant"]
        else:
            header.append(column.key)
    return header


def write_csv(report: Report, folder: str | Path) -> list[Path]:
    """One file per table, raw numbers (not rounded), so spreadsheets can recompute anything."""
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for table in all_tables(report):
        path = out / f"{table.name}.csv"
        with path.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle)
            writer.writerow(_csv_header(table))
            for row in table.rows:
                cells: list[object] = []
                for value, column in zip(row, table.columns, strict=True):
                    cells += _csv_cells(value, column.kind)
                writer.writerow(["" if cell is None else cell for cell in cells])
        written.append(path)
    return written
