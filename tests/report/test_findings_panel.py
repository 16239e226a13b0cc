"""The findings panel (report/findings.py, report/sections/findings.py): a study's findings come first on
the page, in report.json and in the Markdown, each number with its interval and count, and a finding
resting on too few problems prints the reason instead of a number."""

from __future__ import annotations

import json
import re
from pathlib import Path

from benchmorph.execution import Engine
from benchmorph.report import build_report, to_markdown, write_html, write_json
from benchmorph.report.findings import ContaminationRow, Estimate, Findings, SensitivityRow, summary_table
from benchmorph.report.stats import wilson
from benchmorph.report.tables import text_rows
from synthetic_runs import make_runs


def findings() -> Findings:
    few = Estimate(None, n=3, note="too few problems: 3, at least 5")
    return Findings(
        benchmark="synth",
        problems=12,
        models=["model-00", "memorizer?originals=synth"],
        baselines={"memorizer?originals=synth": "memorizer"},
        min_problems=5,
        originals={"model-00": Estimate(0.75, 0.5, 0.9, 12), "memorizer?originals=synth": Estimate(1.0, 1.0, 1.0, 12)},
        sensitivity=[SensitivityRow("model-00", "mine", "ctf", few, few, few, few)],
        contamination=[
            ContaminationRow(
                "memorizer?originals=synth", "metamorphic", 5, Estimate(1.0, 1.0, 1.0, 12, "seeds"),
                Estimate(0.0, 0.0, 0.0, 12, "seeds"), Estimate(1.0, 1.0, 1.0, 12, "seeds"), "contaminated", True,
            )
        ],
        off=["test rigour: off (--augment-tests augments the originals' tests)"],
    )  # fmt: skip


def test_estimate_text_and_wilson() -> None:
    assert Estimate(-0.25, -0.5, 0.0, 8).text(signed=True) == "-0.250 [-0.500, +0.000] n=8"
    assert Estimate(0.5, 0.2, 0.8, 6, "failing samples").text() == "0.500 [0.200, 0.800] n=6 failing samples"
    assert (
        Estimate(None, n=2, note="too few problems: 2, at least 5").text()
        == "too few problems: 2, at least 5"
    )
    interval = wilson(3, 3)
    assert 0.43 < interval.low < 0.44 and interval.high == 1.0  # Wilson, not the degenerate [1, 1]
    assert wilson(0, 10).low == 0.0


def test_the_panel_is_first_and_says_too_few(tmp_path: Path) -> None:
    original, variant = make_runs(tmp_path / "runs", problems=4, models=1)
    with Engine(workers=1) as engine:
        report = build_report([original, variant], engine)
    report.findings = findings()
    html = write_html(report, tmp_path / "report.html").read_text()
    sections = re.findall(r'<section[^>]*id="([^"]+)"', html)
    assert sections[0] == "findings" and sections.index("findings") < sections.index("leaderboard")
    assert "too few problems: 3, at least 5" in html and "memorizer (baseline)" in html
    assert "CONTAMINATED; gap +1.000 [+1.000, +1.000] n=12 seeds" in html
    assert "test rigour: off" in html
    summary = text_rows(summary_table(report.findings))
    assert summary[0][:2] == ["model-00", "0.750 [0.500, 0.900] n=12"]
    markdown = to_markdown(report)
    assert markdown.index("## Findings") < markdown.index("## Leaderboard")
    data = json.loads(write_json(report, tmp_path / "report.json").read_text())
    assert data["findings"]["contamination"][0]["verdict"] == "contaminated"
    assert data["findings"]["sensitivity"][0]["drop"]["value"] is None


def test_a_report_without_a_study_has_no_panel(tmp_path: Path) -> None:
    original, variant = make_runs(tmp_path / "runs", problems=3, models=1)
    with Engine(workers=1) as engine:
        report = build_report([original, variant], engine)
    assert 'id="findings"' not in write_html(report, tmp_path / "r.html").read_text()
    assert "## Findings" not in to_markdown(report)
