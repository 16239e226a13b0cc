"""A study's findings: each headline number with its 95% interval and the count it rests on.

``benchmorph study`` computes these (``benchmorph.evaluation.study.findings``, one layer up, where the
runs are) and hands them to the report as ``Report.findings``: the findings section (shown first),
report.json, study.json and the Markdown all print the same objects, through the tables below.

A number that rests on fewer problems than the study's ``min_problems`` is not printed: its
``Estimate`` has ``value`` None and a ``note`` that says why ("too few problems: 3, at least 5").
"""

from __future__ import annotations

from dataclasses import dataclass, field

from benchmorph.report.tables import Column, Table


@dataclass
class Estimate:
    """One number, its 95% interval (paired bootstrap, or Wilson for a share) and its count."""

    value: float | None
    low: float | None = None
    high: float | None = None
    n: int = 0
    unit: str = "problems"  # what n counts: problems, seeds, samples, failures, models
    note: str | None = None  # why there is no value, or a caveat beside it

    def text(self, signed: bool = False) -> str:
        """``-0.412 [-0.610, -0.200] n=12`` (the unit follows n unless it is problems), or the note
        where there is no value."""
        if self.value is None:
            return self.note or "-"
        form = "{:+.3f}" if signed else "{:.3f}"
        interval = ""
        if self.low is not None and self.high is not None:
            interval = f" [{form.format(self.low)}, {form.format(self.high)}]"
        unit = "" if self.unit == "problems" else f" {self.unit}"
        caveat = f"; {self.note}" if self.note else ""
        return f"{form.format(self.value)}{interval} n={self.n}{unit}{caveat}"


@dataclass
class SensitivityRow:
    """One model on one counterfactual set (CTF-Code): originals vs variants, and why it fails."""

    model: str
    family: str  # the variant set (study build), e.g. mine, ctf
    label: str  # the variants' label (ctf; other labels of changed-behaviour families)
    pass_original: Estimate
    pass_variant: Estimate
    drop: Estimate  # paired over the variant/parent pairs
    answered_original: Estimate  # share of failing variant samples that pass the parent (Wilson)


@dataclass
class ContaminationRow:
    """One model on one metamorphic set (DyCodeEval): static against dynamic scores, and the verdict."""

    model: str
    family: str
    k: int  # DyPass@K's K
    static: Estimate  # pass@K on the seed problems (greedy decoding: pass@1)
    dynamic: Estimate  # DyPass@K over the seeds' variants
    gap: Estimate  # static minus dynamic pass@1, paired over seeds (the verdict's measure)
    verdict: str  # flagged | not flagged | a reason there is none
    flagged: bool | None = None
    trusted: bool = False  # named in reference_models (the verdict compares gaps with theirs)
    exceeds_reference: bool | None = None


@dataclass
class EvolutionRow:
    """One model on one EvoEval type: the drop from the parents, and the composition ratio for combine."""

    model: str
    family: str
    type: str
    pass_original: Estimate
    pass_variant: Estimate
    drop: Estimate
    composition: Estimate | None = None  # combine: solved of those whose two parents are solved


@dataclass
class RigourRow:
    """One model's samples on the base tests and on the augmented tests of the same problems."""

    model: str
    base: Estimate
    augmented: Estimate
    drop: Estimate
    caught: Estimate  # share of base-passing samples the extra tests fail (Wilson)
    new_tests: int = 0


@dataclass
class RankingRow:
    """How the order of models on a family's variants agrees with their order on its parents."""

    family: str
    models: int
    tau: Estimate  # Kendall's tau-b, bootstrap over the paired problems
    ranks: dict[str, list[int]] = field(default_factory=dict)  # model -> [rank on parents, rank on variants]


@dataclass
class Findings:
    benchmark: str
    problems: int
    models: list[str]  # every model and baseline, as the report labels them
    baselines: dict[str, str]  # label -> baseline name (reference, original, memorizer, ...)
    min_problems: int
    originals: dict[str, Estimate] = field(default_factory=dict)  # pass@1 on the originals
    sensitivity: list[SensitivityRow] = field(default_factory=list)
    contamination: list[ContaminationRow] = field(default_factory=list)
    evolution: list[EvolutionRow] = field(default_factory=list)
    rigour: list[RigourRow] = field(default_factory=list)
    ranking: list[RankingRow] = field(default_factory=list)
    off: list[str] = field(default_factory=list)  # what the study did not measure, and how to turn it on
    notes: list[str] = field(default_factory=list)  # caveats that hold for the whole panel


# ------------------------------------------------------------------ tables (HTML section and Markdown)


def _model_cell(findings: Findings, model: str) -> str:
    """A baseline by its registry name (``memorizer``, not ``memorizer?originals=humaneval``)."""
    name = findings.baselines.get(model)
    return f"{name} (baseline)" if name is not None else model


def summary_table(findings: Findings) -> Table:
    """One row per model, one column per finding: what the first screen says."""
    sensitivity = sorted(
        {row.family if row.label == "ctf" else f"{row.family} ({row.label})" for row in findings.sensitivity}
    )
    contamination = sorted({row.family for row in findings.contamination})
    evolution = sorted({(row.family, row.type) for row in findings.evolution})
    combine = sorted({(row.family, row.type) for row in findings.evolution if row.composition is not None})
    several = len({family for family, _ in evolution}) > 1
    columns = [Column("model", "model"), Column("originals", "pass@1 on the originals")]
    columns += [Column(f"sensitivity:{name}", f"drop on counterfactuals ({name})") for name in sensitivity]
    columns += [Column(f"contamination:{name}", f"contamination ({name})") for name in contamination]
    for family, kind in evolution:
        shown = f"{family}/{kind}" if several else kind
        columns.append(Column(f"evolution:{family}/{kind}", f"drop on {shown}"))
    for family, kind in combine:
        shown = f"{family}/{kind}" if several else kind
        columns.append(Column(f"composition:{family}/{kind}", f"composition ratio ({shown})"))
    if findings.rigour:
        columns.append(Column("rigour", "passing samples the new tests catch"))
    table = Table("findings-summary", "Findings per model", columns)
    for model in findings.models:
        original = findings.originals.get(model)
        cells = [_model_cell(findings, model), original.text() if original else "-"]
        for name in sensitivity:
            row = next(
                (
                    r
                    for r in findings.sensitivity
                    if r.model == model and name in (r.family, f"{r.family} ({r.label})")
                ),
                None,
            )
            cells.append(row.drop.text(signed=True) if row else "-")
        for name in contamination:
            found = next((r for r in findings.contamination if r.model == model and r.family == name), None)
            cells.append(verdict_text(found) if found else "-")
        for family, kind in evolution:
            evolved = next(
                (r for r in findings.evolution if r.model == model and (r.family, r.type) == (family, kind)),
                None,
            )
            cells.append(evolved.drop.text(signed=True) if evolved else "-")
        for family, kind in combine:
            evolved = next(
                (r for r in findings.evolution if r.model == model and (r.family, r.type) == (family, kind)),
                None,
            )
            cells.append(evolved.composition.text() if evolved and evolved.composition else "-")
        if findings.rigour:
            rigour = next((r for r in findings.rigour if r.model == model), None)
            cells.append(rigour.caught.text() if rigour else "-")
        table.rows.append(cells)
        table.row_ids.append(model)
    return table


def verdict_label(row: ContaminationRow) -> str:
    """``CONTAMINATED``, ``not flagged (trusted)``, or why there is no verdict."""
    if row.flagged is None:
        return row.verdict
    verdict = row.verdict.upper() if row.flagged else row.verdict
    if row.trusted:
        verdict += " (trusted)"
    elif row.exceeds_reference:
        verdict += ", gap above the trusted models'"
    return verdict


def verdict_text(row: ContaminationRow) -> str:
    """The verdict with the gap it rests on."""
    if row.flagged is None:
        return row.verdict
    return f"{verdict_label(row)}; gap {row.gap.text(signed=True)}"


def sensitivity_table(findings: Findings) -> Table:
    table = Table(
        "findings-sensitivity",
        "Sensitivity to details: originals vs counterfactuals",
        [
            Column("model", "model"),
            Column("family", "variant set"),
            Column("pass_original", "pass@1 original"),
            Column("pass_variant", "pass@1 counterfactual"),
            Column("drop", "drop, paired 95% CI"),
            Column("answered_original", "failures that answered the original"),
        ],
    )
    for row in findings.sensitivity:
        table.rows.append(
            [
                _model_cell(findings, row.model),
                row.family if row.label == "ctf" else f"{row.family} ({row.label})",
                row.pass_original.text(),
                row.pass_variant.text(),
                row.drop.text(signed=True),
                row.answered_original.text(),
            ]
        )
    return table


def contamination_table(findings: Findings) -> Table:
    table = Table(
        "findings-contamination",
        "Contamination: static pass@K vs DyPass@K",
        [
            Column("model", "model"),
            Column("family", "variant set"),
            Column("k", "K", "int"),
            Column("static", "static pass@K"),
            Column("dynamic", "DyPass@K"),
            Column("gap", "gap (static - dynamic pass@1), paired 95% CI"),
            Column("verdict", "verdict"),
        ],
    )
    for row in findings.contamination:
        table.rows.append(
            [
                _model_cell(findings, row.model),
                row.family,
                row.k,
                row.static.text(),
                row.dynamic.text(),
                row.gap.text(signed=True),
                verdict_label(row),
            ]
        )
    return table


def evolution_table(findings: Findings) -> Table:
    table = Table(
        "findings-evolution",
        "Evolution: the drop per EvoEval type",
        [
            Column("model", "model"),
            Column("type", "type"),
            Column("pass_original", "pass@1 parents"),
            Column("pass_variant", "pass@1 evolved"),
            Column("drop", "drop, paired 95% CI"),
            Column("composition", "composition ratio"),
        ],
    )
    for row in findings.evolution:
        table.rows.append(
            [
                _model_cell(findings, row.model),
                row.type,
                row.pass_original.text(),
                row.pass_variant.text(),
                row.drop.text(signed=True),
                row.composition.text() if row.composition is not None else "-",
            ]
        )
    return table


def rigour_table(findings: Findings) -> Table:
    table = Table(
        "findings-rigour",
        "Test rigour: base tests vs augmented tests",
        [
            Column("model", "model"),
            Column("base", "pass@1 base tests"),
            Column("augmented", "pass@1 base + new tests"),
            Column("drop", "drop, paired 95% CI"),
            Column("caught", "passing samples the new tests catch"),
            Column("new_tests", "new tests", "int"),
        ],
    )
    for row in findings.rigour:
        table.rows.append(
            [
                _model_cell(findings, row.model),
                row.base.text(),
                row.augmented.text(),
                row.drop.text(signed=True),
                row.caught.text(),
                row.new_tests,
            ]
        )
    return table


def ranking_table(findings: Findings) -> Table:
    models = findings.models
    table = Table(
        "findings-ranking",
        "Ranking across families: Kendall's tau between the parents' and the variants' order",
        [
            Column("family", "family"),
            Column("tau", "Kendall tau-b, 95% CI"),
            *[
                Column(f"rank:{model}", f"{_model_cell(findings, model)}: rank parents→variants")
                for model in models
            ],
        ],
    )
    for row in findings.ranking:
        cells: list[object] = [row.family, row.tau.text(signed=True)]
        for model in models:
            ranks = row.ranks.get(model)
            cells.append(f"{ranks[0]}→{ranks[1]}" if ranks else "-")
        table.rows.append(cells)
    return table


def findings_tables(findings: Findings) -> list[Table]:
    """The summary first, then every finding's own table that has rows."""
    tables = [
        summary_table(findings),
        sensitivity_table(findings),
        contamination_table(findings),
        evolution_table(findings),
        rigour_table(findings),
        ranking_table(findings),
    ]
    return [tables[0], *(table for table in tables[1:] if table.rows)]
