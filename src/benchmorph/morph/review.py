"""Human review of counterfactual candidates through a CSV, because the paper's variants were checked by people.

Export writes one row per candidate with the columns of the paper's
annotation table (original id, original meaning, model, new id, statement
error, type, modification, add new tests) plus both descriptions, a
word-level diff and the solution.  Import applies what reviewers changed:
labels, notes, and corrected solutions, whose tests are then recomputed in
the sandbox.  A row that matches no candidate is an error, never skipped.
"""

from __future__ import annotations

import codecs
import csv
import difflib
import io
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import cast

from benchmorph.data.errors import InputError
from benchmorph.data.models import TestCase, Variant
from benchmorph.execution.engine import Engine
from benchmorph.validation.distances import description_text
from benchmorph.validation.examples.recompute import with_recomputed_examples

COLUMNS = [
    "original_id",
    "original_meaning",
    "model",
    "new_id",
    "statement_error",
    "type",
    "modification",
    "add_new_tests",
    "review_status",
    "original_description",
    "new_description",
    "word_diff",
    "solution",
    "notes",
]
LABELS = {"bad": "Bad", "robust": "Robust", "ctf": "CTF"}
REVIEW_STATUSES = ("unreviewed", "accepted", "rejected", "reviewed")


def candidates_path(variants_path: Path) -> Path:
    """Where `morph ctf` puts every candidate beside the selected variants."""
    return variants_path.with_name(variants_path.stem + ".candidates.jsonl")


def word_diff(before: str, after: str) -> str:
    """``[-removed-]{+added+}`` marks over words, the way reviewers read changes."""
    old, new = before.split(), after.split()
    pieces: list[str] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes():
        if tag == "equal":
            pieces.extend(old[i1:i2])
            continue
        if i2 > i1:
            pieces.append("[-" + " ".join(old[i1:i2]) + "-]")
        if j2 > j1:
            pieces.append("{+" + " ".join(new[j1:j2]) + "+}")
    return " ".join(pieces)


def _model_of(variant: Variant) -> str:
    provenance = variant.provenance
    if provenance.get("generator"):
        return str(provenance["generator"])
    if provenance.get("rule"):
        return f"mine:{provenance['rule']}"
    return variant.transform


def export_rows(variants: Sequence[Variant], parents: dict[str, str]) -> list[dict[str, str]]:
    """One CSV row per candidate; ``parents`` maps parent id to the parent's prompt."""
    rows = []
    for variant in variants:
        parent_prompt = parents.get(variant.parent_id, "")
        original = description_text(parent_prompt, variant.entry_point) if parent_prompt else ""
        new = description_text(variant.prompt, variant.entry_point)
        label = str(variant.provenance.get("label") or variant.label)
        needs = variant.provenance.get("needs_new_tests") or []
        rows.append(
            {
                "original_id": variant.parent_id,
                "original_meaning": original[:300],
                "model": _model_of(variant),
                "new_id": variant.id,
                "statement_error": "",
                "type": LABELS.get(label, label),
                "modification": str(variant.provenance.get("rule") or ""),
                "add_new_tests": "; ".join(needs) if needs else "",
                "review_status": str(variant.provenance.get("review_status", "unreviewed")),
                "original_description": original,
                "new_description": new,
                "word_diff": word_diff(original, new),
                "solution": variant.reference,
                "notes": "",
            }
        )
    return rows


def write_csv(path: Path, rows: Sequence[dict[str, str]]) -> None:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=COLUMNS)
    writer.writeheader()
    writer.writerows(rows)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(buffer.getvalue(), encoding="utf-8")


@dataclass
class ReviewRow:
    line: int
    values: dict[str, str]


def _csv_text(path: Path) -> str:
    """The file as text: UTF-8 (a spreadsheet's byte-order mark allowed), else an error naming the line."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise InputError("no such file", path=path) from None
    except IsADirectoryError:
        raise InputError("is a directory, expected a CSV file", path=path) from None
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", path=path) from None
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        raise InputError("UTF-16 text; save the CSV as UTF-8", path=path, line=1)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise InputError(
            f"not UTF-8 text: {exc.reason} (byte 0x{data[exc.start]:02x}); save the CSV as UTF-8",
            path=path,
            line=line,
        ) from None


def read_csv(path: Path) -> list[ReviewRow]:
    """Rows with their line numbers; a missing required column is an error naming it."""
    text = _csv_text(path)
    if not text.strip():
        raise InputError("empty file: expected a header row with at least new_id and type", path=path)
    # strict: an unterminated quote is an error, not a cell that swallows the rest of the file.
    reader = csv.DictReader(io.StringIO(text), strict=True)
    rows = []
    ended = 0  # a record may span lines (quoted newlines): report the line it starts on
    try:
        missing = [column for column in ("new_id", "type") if column not in (reader.fieldnames or [])]
        if missing:
            raise InputError("missing column", path=path, line=1, field=missing[0])
        ended = reader.line_num
        for row in reader:
            rows.append(ReviewRow(ended + 1, {key: (value or "") for key, value in row.items() if key}))
            ended = reader.line_num
    except csv.Error as exc:
        raise InputError(f"malformed CSV: {exc}", path=path, line=ended + 1) from None
    return rows


@dataclass
class CheckedRow:
    row: ReviewRow
    variant: Variant
    label: str
    status: str


def check_rows(variants: Sequence[Variant], rows: Sequence[ReviewRow], csv_path: Path) -> list[CheckedRow]:
    """Every row names one known candidate, once, with a valid label and status; runs nothing.

    The CLI calls this before starting the sandbox, so a mistyped CSV fails at once.
    """
    by_id = {variant.id: variant for variant in variants}
    first_line: dict[str, int] = {}
    checked = []
    for row in rows:
        new_id = row.values.get("new_id", "").strip()
        variant = by_id.get(new_id)
        if variant is None:
            raise InputError(
                f"no candidate '{new_id}' in the variants file", path=csv_path, line=row.line, field="new_id"
            )
        if new_id in first_line:
            raise InputError(
                f"candidate '{new_id}' reviewed twice (first on line {first_line[new_id]})",
                path=csv_path,
                line=row.line,
                field="new_id",
            )
        first_line[new_id] = row.line
        label = row.values.get("type", "").strip().lower()
        if label not in LABELS:
            raise InputError(
                f"type must be Bad, Robust or CTF, not '{row.values.get('type')}'",
                path=csv_path,
                line=row.line,
                field="type",
            )
        status = row.values.get("review_status", "").strip().lower() or "reviewed"
        if status not in REVIEW_STATUSES:
            raise InputError(
                f"review_status must be one of {', '.join(REVIEW_STATUSES)}, not '{row.values.get('review_status')}'",
                path=csv_path,
                line=row.line,
                field="review_status",
            )
        checked.append(CheckedRow(row, variant, label, "reviewed" if status == "unreviewed" else status))
    return checked


def apply_review(
    variants: Sequence[Variant], rows: Sequence[ReviewRow], engine: Engine, csv_path: Path
) -> list[Variant]:
    """The candidates with reviewers' labels, notes and corrected solutions (tests recomputed)."""
    updated: dict[str, Variant] = {}
    corrected: list[Variant] = []
    for checked in check_rows(variants, rows, csv_path):
        row, variant, label, status = checked.row, checked.variant, checked.label, checked.status
        new_id = variant.id
        provenance = {
            **variant.provenance,
            "label": label,
            "review_status": status,
            "statement_error": row.values.get("statement_error", "").strip(),
            "modification": row.values.get("modification", "").strip(),
            "review_notes": row.values.get("notes", "").strip(),
        }
        solution = row.values.get("solution", variant.reference)
        reviewed = variant.model_copy(update={"label": label, "provenance": provenance})
        if solution.strip() and solution.strip() != variant.reference.strip():
            provenance["solution_corrected"] = True
            reviewed = reviewed.model_copy(
                update={
                    "reference": solution if solution.endswith("\n") else solution + "\n",
                    "tests": [TestCase(input=test.input, origin=test.origin) for test in variant.tests],
                    "provenance": provenance,
                }
            )
            corrected.append(reviewed)
        if label == "ctf" and not reviewed.reference.strip():
            raise InputError("a CTF variant needs a solution", path=csv_path, line=row.line, field="solution")
        updated[new_id] = reviewed
    if corrected:
        prepared = engine.prepare(corrected)
        ready = {variant.id: cast(Variant, variant) for variant in prepared.problems}
        for variant in corrected:
            done = ready.get(variant.id)
            if done is None:
                raise InputError(
                    f"the corrected solution of '{variant.id}' fails on every test input: {prepared.unusable.get(variant.id)}",
                    path=csv_path,
                    field="solution",
                )
            needs = prepared.dropped_tests.get(variant.id, [])
            updated[variant.id] = done.model_copy(
                update={"provenance": {**done.provenance, "needs_new_tests": needs}}
            )
        rewritten = with_recomputed_examples([updated[v.id] for v in corrected], engine)
        for vid, outcome in rewritten.items():
            if not isinstance(outcome, str):
                updated[vid] = outcome
    return [updated.get(variant.id, variant) for variant in variants]
