"""Errata files: ``errata.md`` for people (grouped by problem, most serious first) and ``errata.jsonl``.

Every text that comes from the benchmark (a sentence, an input, a value)
is printed literally, inside code spans whose fences are longer than any
run of backticks the text holds, so Markdown never reinterprets it.
``errata.jsonl`` holds one finding per line (``AuditFinding.to_json``),
after a first line that describes the audit (``record: "audit"``).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from benchmorph.data.storage import write_text_atomic
from benchmorph.validation.audit.findings import SEVERITIES, AuditFinding, AuditReport

ERRATA_SCHEMA = 1


def code(text: str) -> str:
    """``text`` as an inline code span that shows it literally."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or not text.strip() else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _line(text: str) -> str:
    """One line of a finding for Markdown: the whole line in a code span where it holds markup characters."""
    if re.search(r"[`*_<>\[\]#|\\]", text):
        return code(text)
    return text


def _finding_md(finding: AuditFinding, fixes: bool) -> list[str]:
    lines = [f"- **{finding.severity}** · {finding.check}: {_line(finding.summary)}"]
    for item in finding.evidence:
        lines.append(f"  - {item.kind}: {code(item.text)}")
    if fixes and finding.fix is not None:
        how = "fix" if finding.fix.mechanical else "suggestion"
        lines.append(f"  - {how}: {_line(finding.fix.says)}")
    return lines


def errata_markdown(report: AuditReport, fixes: bool = False) -> str:
    counts = report.counts()
    problems = report.problems_with()
    title = report.benchmark or "benchmark"
    out = [
        f"# Errata: {title}",
        "",
        f"{len(report.problems)} problems audited; {len(report.findings)} findings on "
        f"{len({f.problem for f in report.findings})} problems.",
        "",
        "| severity | findings | problems |",
        "|---|---:|---:|",
        *(f"| {severity} | {counts[severity]} | {problems[severity]} |" for severity in SEVERITIES),
        "",
        "| severity | check | findings |",
        "|---|---|---:|",
        *(f"| {severity} | {check} | {count} |" for severity, check, count in report.by_check()),
        "",
        "Severities: **wrong** (the problem contradicts itself), **ambiguous** (tests decide what the "
        "description leaves open), **weak** (tests let wrong answers through, or the problem is another's "
        "copy), **cosmetic** (slips that mislead nobody).",
        "",
    ]
    for problem in report.problems:
        found = report.for_problem(problem)
        if not found:
            continue
        name = report.titles.get(problem)
        out.append(f"## {problem}" + (f" ({code(name)})" if name else ""))
        out.append("")
        for finding in found:
            out.extend(_finding_md(finding, fixes))
        out.append("")
    return "\n".join(out)


def write_errata(report: AuditReport, out: str | Path, *, fixes: bool = False) -> tuple[Path, Path]:
    """``errata.md`` and ``errata.jsonl`` in the directory ``out`` (created); fixes only with ``fixes``."""
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    markdown, lines = folder / "errata.md", folder / "errata.jsonl"
    write_text_atomic(markdown, errata_markdown(report, fixes) + "\n")
    header = {
        "record": "audit",
        "schema": ERRATA_SCHEMA,
        "benchmark": report.benchmark,
        "problems": len(report.problems),
        "checks": report.checks_run,
        "counts": report.counts(),
    }
    rows = [header, *(finding.to_json(fixes) for finding in report.findings)]
    write_text_atomic(lines, "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows))
    return markdown, lines
