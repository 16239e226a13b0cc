"""Reports across runs: paired analysis, charts, a single-file HTML report, Markdown/CSV/JSON exports.

>>> from benchmorph.execution import Engine
>>> from benchmorph.report import build_report, write_html
>>> with Engine() as engine:  # doctest: +SKIP
...     report = build_report(["he-local", "v-local", "he-reference", "v-reference"], engine)
>>> write_html(report, "report.html")  # doctest: +SKIP
"""

from benchmorph.report.analysis import (
    FamilyRow,
    LeaderboardRow,
    ProblemRow,
    RankingChange,
    family_rows,
    leaderboard,
    pairings,
    problem_rows,
    ranking_changes,
)
from benchmorph.report.build import Report, build_report, write_json
from benchmorph.report.exports import to_markdown, write_csv, write_markdown
from benchmorph.report.files import ReportFiles, write_report
from benchmorph.report.html import render_html, write_html
from benchmorph.report.stats import bootstrap_mean, kendall_tau

__all__ = [
    "FamilyRow",
    "LeaderboardRow",
    "ProblemRow",
    "RankingChange",
    "Report",
    "ReportFiles",
    "bootstrap_mean",
    "build_report",
    "family_rows",
    "kendall_tau",
    "leaderboard",
    "pairings",
    "problem_rows",
    "ranking_changes",
    "render_html",
    "to_markdown",
    "write_csv",
    "write_html",
    "write_json",
    "write_markdown",
    "write_report",
]
