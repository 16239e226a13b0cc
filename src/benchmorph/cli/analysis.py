"""`benchmorph sensitivity`: paired analysis of runs on originals and on their counterfactuals."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from benchmorph.cli.options import JsonOption, SandboxOption, WorkersOption
from benchmorph.cli.shared import app, fail, make_engine, out_console


@app.command("sensitivity")
def sensitivity_command(
    runs: Annotated[list[Path], typer.Argument(help="Run directories: originals and variants, any models.")],
    json_out: JsonOption = None,
    workers: WorkersOption = None,
    sandbox: SandboxOption = None,
) -> None:
    """Per model: pass@1 on originals vs their variants, the paired 2x2, and answered-the-original failures."""
    from benchmorph.evaluation.evolve_metrics import evolve_for_runs
    from benchmorph.evaluation.rundir import load_run
    from benchmorph.evaluation.sensitivity import pair_runs, sensitivity

    loaded = [load_run(path) for path in runs]
    pairs = pair_runs(loaded)
    if not pairs:
        fail("no pair of runs of the same model where one holds variants of the other's problems")
    with make_engine(workers, 1.0, 4.0, sandbox) as engine:
        results = [sensitivity(original, variant, engine) for original, variant in pairs]
    table = Table(title="detail sensitivity (original -> counterfactual)")
    for column in ("model", "variants", "pass@1 orig", "pass@1 var", "drop", "rel. drop"):
        table.add_column(column, justify="right" if column != "model" else "left")
    for column in ("both", "orig only", "var only", "neither", "answered orig"):
        table.add_column(column, justify="right")
    for result in results:
        relative = f"{result.relative_drop:.1%}" if result.relative_drop is not None else "-"
        table.add_row(
            result.model,
            str(result.pairs),
            f"{result.pass_original:.3f}",
            f"{result.pass_variant:.3f}",
            f"{result.drop:+.3f}",
            relative,
            str(result.both),
            str(result.original_only),
            str(result.variant_only),
            str(result.neither),
            f"{result.answered_original}/{result.variant_failures}",
        )
    out_console.print(table)
    evolved = [evolve_for_runs(original, variant) for original, variant in pairs]
    if any(metrics is not None for metrics in evolved):
        out_console.print(_evolve_table(results, evolved))
    if json_out is not None:
        json_out.parent.mkdir(parents=True, exist_ok=True)
        rows = [
            {**r.to_json(), **({"evolve": m.to_json()} if m is not None else {})}
            for r, m in zip(results, evolved, strict=True)
        ]
        json_out.write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")
        out_console.print(f"json: {json_out}")


def _ratio(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _evolve_table(results: list[Any], evolved: list[Any]) -> Table:
    """Per model and EvoEval type: pass@1 on the parents and the variants, the drop, and the
    composition ratio (combined problems solved, of those whose two parents are solved)."""
    table = Table(title="evolved types (EvoEval)")
    for column in ("model", "type", "variants", "pass@1 parents", "pass@1 var", "drop", "composition"):
        table.add_column(column, justify="left" if column in ("model", "type") else "right")
    for result, metrics in zip(results, evolved, strict=True):
        if metrics is None:
            continue
        for kind, score in metrics.types.items():
            composition = "-"
            if kind == "combine" and metrics.composition is not None:
                ratio = metrics.composition
                composition = f"{_ratio(ratio.ratio)} ({ratio.solved}/{ratio.eligible})"
            drop = "-" if score.drop is None else f"{score.drop:+.3f}"
            table.add_row(result.model, kind, str(score.variants), _ratio(score.parent_pass_at_1),
                          f"{score.pass_at_1:.3f}", drop, composition)  # fmt: skip
    return table
