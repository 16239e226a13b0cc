"""`benchmorph review export|import`: a CSV round trip for people checking counterfactual candidates."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from benchmorph.cli.options import SandboxOption, WorkersOption
from benchmorph.cli.shared import app, make_engine, out_console

if TYPE_CHECKING:
    from benchmorph.data.models import Variant


review_app = typer.Typer(
    help="Export candidates for human review and import the verdicts.", no_args_is_help=True
)
app.add_typer(review_app, name="review")


def _candidates(variants_file: Path) -> list[Variant]:
    """Every candidate: the `.candidates.jsonl` beside the file when there is one, else the file itself."""
    from benchmorph.data.errors import InputError
    from benchmorph.data.formats.native import read_native
    from benchmorph.data.models import Variant
    from benchmorph.morph.review import candidates_path

    source = candidates_path(variants_file)
    records = read_native(source if source.exists() else variants_file)
    variants = [record for record in records if isinstance(record, Variant)]
    if not variants:
        raise InputError("no variants (records with a parent_id) in this file", path=variants_file)
    return variants


def _parent_prompts(variants: list[Variant]) -> dict[str, str]:
    """Parent prompts, from the benchmark the variants came from (when it can be loaded by name)."""
    from benchmorph.data.errors import InputError
    from benchmorph.data.registry import load_benchmark

    prompts: dict[str, str] = {}
    for benchmark in {str(v.source.get("benchmark")) for v in variants if v.source.get("benchmark")}:
        try:
            prompts.update({pid: p.prompt for pid, p in load_benchmark(benchmark).by_id().items()})
        except InputError:
            continue
    return prompts


@review_app.command("export")
def export_command(
    variants_file: Annotated[Path, typer.Argument(help="Variants JSONL from `morph ctf` or `morph mine`.")],
    csv_path: Annotated[Path, typer.Option("--csv", help="CSV to write.")] = Path("review.csv"),
) -> None:
    """One row per candidate: the paper's annotation columns, both descriptions and a word diff."""
    from benchmorph.morph.review import export_rows, write_csv

    variants = _candidates(variants_file)
    write_csv(csv_path, export_rows(variants, _parent_prompts(variants)))
    out_console.print(f"{len(variants)} candidates -> {csv_path}")


@review_app.command("import")
def import_command(
    variants_file: Annotated[Path, typer.Argument(help="The variants JSONL that was exported.")],
    csv_path: Annotated[Path, typer.Argument(help="The reviewed CSV.")],
    out: Annotated[
        Path, typer.Option("--out", "-o", help="Reviewed variants JSONL (accepted CTF variants).")
    ],
    workers: WorkersOption = None,
    sandbox: SandboxOption = None,
) -> None:
    """Apply reviewers' labels and corrected solutions (tests re-run); write the accepted CTF variants."""
    from benchmorph.data.formats.native import write_native
    from benchmorph.morph.review import apply_review, candidates_path, check_rows, read_csv

    variants = _candidates(variants_file)
    rows = read_csv(csv_path)
    check_rows(variants, rows, csv_path)  # a mistyped CSV fails before the sandbox starts
    with make_engine(workers, 1.0, 4.0, sandbox) as engine:
        reviewed = apply_review(variants, rows, engine, csv_path)
    accepted = [v for v in reviewed if v.label == "ctf" and v.provenance.get("review_status") != "rejected"]
    write_native(out, accepted)
    write_native(candidates_path(out), reviewed)
    out_console.print(
        f"{len(rows)} rows applied; {len(accepted)} accepted CTF variants -> {out}; all candidates -> {candidates_path(out)}"
    )
