"""``instruct export`` and ``instruct mix``: the training data, base plus counterfactuals, in three formats.

The paper merges the selected sensitivity data with the original data (CTF-Instruct = D_diff + D_sens^sub)
and studies how much of it to add (Figure 4).  Every base sample is written as it was read; each pair
adds its counterfactual side (new instruction, and the new solution as one Python code block).  Rows
carry ``origin`` (``base`` or ``ctf``) and, for counterfactuals, ``source_id``.

Formats: ``alpaca`` (``train.jsonl``: instruction/input/output), ``messages`` (``train.jsonl``: a user and
an assistant turn) and ``hf`` (a ``datasets`` directory for ``datasets.load_from_disk``, Alpaca columns;
needs ``benchmorph[instruct]``).  All three read back through :func:`benchmorph.instruct.read`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from benchmorph.data.errors import InputError
from benchmorph.data.jsonl import write_jsonl
from benchmorph.instruct.records import InstructSample, Pair

Format = Literal["alpaca", "messages", "hf"]
EXPORT_FORMATS = ("alpaca", "messages", "hf")


def _row(
    identifier: str, instruction: str, extra: str, output: str, origin: str, source: str
) -> dict[str, Any]:
    return {
        "id": identifier,
        "instruction": instruction,
        "input": extra,
        "output": output,
        "origin": origin,
        "source_id": source,
    }


def training_rows(pairs: Sequence[Pair], base: Sequence[InstructSample]) -> list[dict[str, Any]]:
    """Alpaca-shaped rows: every base sample, then each pair's counterfactual side."""
    rows = [_row(s.id, s.instruction, s.input, s.output, "base", s.id) for s in base]
    taken = {s.id for s in base}
    for pair in pairs:
        identifier = pair.id if pair.id not in taken else f"{pair.id}#{len(rows)}"
        taken.add(identifier)
        output = f"```python\n{pair.cf_code.rstrip()}\n```"
        rows.append(_row(identifier, pair.cf_instruction, "", output, "ctf", pair.source_id))
    return rows


def _as_messages(row: dict[str, Any]) -> dict[str, Any]:
    user = row["instruction"] if not row["input"].strip() else f"{row['instruction']}\n\n{row['input']}"
    return {
        "id": row["id"],
        "messages": [{"role": "user", "content": user}, {"role": "assistant", "content": row["output"]}],
        "origin": row["origin"],
        "source_id": row["source_id"],
    }


def write_rows(rows: list[dict[str, Any]], fmt: Format, out: Path) -> Path:
    """Write ``rows`` under ``out`` in ``fmt``; returns the file or directory written."""
    if fmt == "alpaca":
        write_jsonl(out / "train.jsonl", rows)
        return out / "train.jsonl"
    if fmt == "messages":
        write_jsonl(out / "train.jsonl", (_as_messages(row) for row in rows))
        return out / "train.jsonl"
    if fmt == "hf":
        try:
            import datasets  # type: ignore[import-not-found]
        except ImportError:
            raise InputError(
                "--format hf needs the datasets package: pip install 'benchmorph[instruct]'"
            ) from None
        columns = ("id", "instruction", "input", "output", "origin", "source_id")
        table = datasets.Dataset.from_dict({name: [row[name] for row in rows] for name in columns})
        table.save_to_disk(str(out))
        return out
    raise InputError(f"unknown export format '{fmt}' (use one of: {', '.join(EXPORT_FORMATS)})")


@dataclass
class ExportReport:
    path: Path
    base: int
    added: int
    notes: list[str] = field(default_factory=list)


def export_dataset(
    pairs: Sequence[Pair], base: Sequence[InstructSample], fmt: Format, out: str | Path
) -> ExportReport:
    """Base plus every pair's counterfactual, written to ``out`` in ``fmt``."""
    out = Path(out)
    path = write_rows(training_rows(pairs, base), fmt, out)
    known = {sample.id for sample in base}
    strangers = sum(1 for pair in pairs if pair.source_id not in known)
    notes = [f"{strangers} pairs come from samples that are not in the base data"] if strangers else []
    return ExportReport(path, len(base), len(pairs), notes)


@dataclass
class Mix:
    ratio: float  # counterfactuals as a percentage of the base size
    requested: int
    added: int
    path: Path


def parse_ratios(text: str) -> list[float]:
    try:
        ratios = [float(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise InputError(
            f"--ratios '{text}': expected numbers separated by commas, e.g. 0,10,20,40,80"
        ) from None
    if not ratios or any(ratio < 0 for ratio in ratios):
        raise InputError(f"--ratios '{text}': expected non-negative percentages")
    return ratios


def mix_datasets(
    pairs: Sequence[Pair],
    base: Sequence[InstructSample],
    ratios: Sequence[float],
    fmt: Format,
    out: str | Path,
) -> list[Mix]:
    """For each ratio r, base plus the first r% x |base| pairs, in ``out/mix-r``.

    Pairs are taken in file order: a selection file lists its pairs in the order they were picked, so a
    smaller mix is the start of a larger one, as in the paper's Figure 4.
    """
    out = Path(out)
    mixes = []
    for ratio in ratios:
        requested = round(ratio / 100 * len(base))
        chosen = list(pairs[:requested])
        name = f"mix-{ratio:g}"
        path = write_rows(training_rows(chosen, base), fmt, out / name)
        mixes.append(Mix(ratio, requested, len(chosen), path))
    return mixes
