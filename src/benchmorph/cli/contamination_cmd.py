"""`benchmorph contamination`: which models score much better on the originals than on their rewordings."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich import box
from rich.table import Table
from rich.text import Text

from benchmorph.cli.options import JsonOption
from benchmorph.cli.shared import app, fail, out_console
from benchmorph.cli.shared import note as print_note

if TYPE_CHECKING:
    from benchmorph.report.contamination import ContaminationGroup


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


@app.command("contamination")
def contamination_command(
    runs: Annotated[
        list[Path],
        typer.Argument(help="Run directories: each model on the originals and on metamorphic variants."),
    ],
    json_out: JsonOption = None,
    reference_models: Annotated[
        str | None,
        typer.Option("--reference-models", help="Comma-separated models trusted to be uncontaminated."),
    ] = None,
) -> None:
    """Static vs dynamic pass@1 across models: a fit with 95% prediction intervals and paired bootstrap gaps."""
    from benchmorph.evaluation.rundir import load_run
    from benchmorph.report.contamination import MIN_MODELS, contamination

    loaded = [load_run(path) for path in runs]
    references = [name.strip() for name in (reference_models or "").split(",") if name.strip()]
    groups = contamination(loaded, references)
    if not groups:
        fail(
            f"no benchmark has runs of {MIN_MODELS} or more models on both its originals and its metamorphic "
            "variants (`benchmorph run V.jsonl --model M` on `morph run metamorphic` output, and the same "
            "model on the originals)"
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
    if json_out is not None:
        json_out.parent.mkdir(parents=True, exist_ok=True)
        json_out.write_text(
            json.dumps([group.to_json() for group in groups], indent=2) + "\n", encoding="utf-8"
        )
        out_console.print(f"json: {json_out}")
