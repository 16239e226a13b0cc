"""`benchmorph contamination`: which models score much better on the originals than on their rewordings."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich import box
from rich.table import Table
from rich.text import Text

from benchmorph.cli.options import CutoffOption, JsonOption, ReferenceModelsOption
from benchmorph.cli.shared import app, fail, out_console
from benchmorph.cli.shared import note as print_note

if TYPE_CHECKING:
    from benchmorph.report.contamination import AxisVerdict, ContaminationGroup, DateGroup


def _interval(low: float | None, high: float | None) -> str:
    return "-" if low is None or high is None else f"[{low:.2f}, {high:.2f}]"


def _table(group: ContaminationGroup) -> Table:
    table = Table(
        title=f"contamination on {group.benchmark}: {group.seeds} seed problems, static vs metamorphic",
        caption="FLAGGED: dynamic pass@1 below the 95% prediction interval of the other models' fit; "
        ">refs: gap interval wholly above the reference models'",
        box=box.SIMPLE_HEAD,
        padding=(0, 1),
        pad_edge=False,
        collapse_padding=True,
    )
    widest = max((len(row.model) for row in group.models), default=5)
    for column in ("model", "static", "dynamic", "gap [95% CI]", "95% PI", "verdict"):
        if column == "model":  # a model's name is never cut short
            table.add_column(column, no_wrap=True, min_width=min(widest, 40))
        else:
            table.add_column(column, justify="left" if column == "verdict" else "right", no_wrap=True)
    for row in group.models:
        # Short cells: the table must stay readable in 80 columns (a pipe, a log); --json has the rest
        # (the predicted dynamic score, the fit, the runs).
        verdict = Text("no fit" if row.predicted is None else "ok")
        if row.predicted is not None and row.flagged:
            verdict = Text("FLAGGED", style="red") if row.side == "below" else Text("above", style="yellow")
        if row.reference:
            verdict += " (ref)"
        elif row.exceeds_reference is not None:
            verdict += " >refs" if row.exceeds_reference else " <=refs"
        table.add_row(
            row.model,
            f"{row.static:.3f}",
            f"{row.dynamic:.3f}",
            f"{row.gap:+.3f} {_interval(row.gap_ci_low, row.gap_ci_high)}",
            _interval(row.interval_low, row.interval_high),
            verdict,
        )
    return table


def _date_table(group: DateGroup) -> Table:
    span = f", released {group.first} to {group.last}" if group.first else ""
    table = Table(
        title=f"release dates on {group.benchmark}: {group.problems} dated problems{span}",
        caption="FLAGGED: pass@1 before the cutoff minus after it, its 95% bootstrap interval wholly above 0"
        " (and above the reference models')",
        box=box.SIMPLE_HEAD,
        padding=(0, 1),
        pad_edge=False,
        collapse_padding=True,
    )
    widest = max((len(row.model) for row in group.models), default=5)
    table.add_column("model", no_wrap=True, min_width=min(widest, 40))
    for column in ("cutoff", "before", "after", "gap [95% CI]", "verdict"):
        table.add_column(column, justify="left" if column == "verdict" else "right", no_wrap=True)
    for row in group.models:
        verdict = Text("FLAGGED", style="red") if row.flagged else Text("ok")
        if row.reference:
            verdict.append(" (ref)")
        table.add_row(
            row.model,
            row.cutoff,
            f"{row.pass_before:.3f} ({row.before})",
            f"{row.pass_after:.3f} ({row.after})",
            f"{row.gap:+.3f} {_interval(row.gap_ci_low, row.gap_ci_high)}",
            verdict,
        )
    return table


def _verdict_line(verdict: AxisVerdict) -> str:
    return f"{verdict.benchmark} · {verdict.model}: {verdict.says}"


@app.command("contamination")
def contamination_command(
    runs: Annotated[
        list[Path],
        typer.Argument(help="Run directories: each model on the originals and on metamorphic variants."),
    ],
    json_out: JsonOption = None,
    reference_models: ReferenceModelsOption = None,
    cutoff: CutoffOption = None,
) -> None:
    """Static vs dynamic pass@1 across models (a fit with 95% prediction intervals and paired bootstrap
    gaps) and, with --cutoff, pass@1 before vs after each model's training cutoff."""
    from benchmorph.evaluation.rundir import load_run
    from benchmorph.report.contamination import (
        MIN_MODELS,
        axis_verdicts,
        contamination,
        date_split,
        parse_cutoffs,
    )

    cutoffs = parse_cutoffs(cutoff or [])
    loaded = [load_run(path) for path in runs]
    references = [name.strip() for name in (reference_models or "").split(",") if name.strip()]
    dates = date_split(loaded, cutoffs, references) if cutoffs else []
    groups = contamination(loaded, references, known_models=[row.model for g in dates for row in g.models])
    if not groups and not dates:
        fail(
            f"no benchmark has runs of {MIN_MODELS} or more models on both its originals and its metamorphic "
            "variants (`benchmorph run V.jsonl --model M` on `morph run metamorphic` output, and the same "
            "model on the originals)"
            + ("" if not cutoffs else ", and no judged original problem carries a release date")
        )
    for group in groups:
        out_console.print(_table(group))
        for note in group.notes:
            print_note(note)
        flagged = [row.model for row in group.models if row.flagged and row.side == "below"]
        out_console.print(
            f"{group.benchmark}: {len(flagged)} of {len(group.models)} models flagged as contaminated"
            + (f": {', '.join(flagged)}" if flagged else "")
        )
    for date_group in dates:
        out_console.print(_date_table(date_group))
        for note in date_group.notes:
            print_note(note)
    verdicts = axis_verdicts(groups, dates)
    if dates:  # with both axes, say per model which one supports a verdict
        for verdict in verdicts:
            out_console.print(_verdict_line(verdict), highlight=False)
    if json_out is not None:
        json_out.parent.mkdir(parents=True, exist_ok=True)
        data: object = [group.to_json() for group in groups]
        if cutoffs:
            data = {
                "rewrites": data,
                "dates": [group.to_json() for group in dates],
                "verdicts": [asdict(verdict) for verdict in verdicts],
            }
        json_out.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
        out_console.print(f"json: {json_out}")
