"""The report over `reference`, `original` and `local` on HumanEval originals plus the offline evolve sets.

Issue 14's acceptance: the offline `evolve` transform (combine and tool_use)
on HumanEval, each model run on the variants and on their parents, and the
one HTML report rendering in headless Chromium with an `evolve/<type>` row
per model and the composition ratio, which `reference` must score 1.0 on.
Everything goes through the CLI as a user runs it.  To keep CI time modest
the sets come from the first 30 HumanEval problems, and `local` (the
embedded 270M model, in-process) answers 6 variants and their parents with
a small token budget; `reference` and `original` answer every variant.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from browser import keep_screenshot, open_page
from cli_runner import run_cli

pytest.importorskip("llama_cpp", reason="llama-cpp-python is part of the test install")

SEEDS = 30
LOCAL_PER_TYPE = 1  # the embedded model answers slowly on long evolved prompts: 13 s each at load 8
TYPES = ("combine", "tool_use")


def cli(*args: str, cwd: Path) -> None:
    result = run_cli(*args, cache=cwd / "cache", cwd=cwd)
    assert result.returncode == 0, result.stderr[-3000:]


def _variants(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@pytest.mark.slow
@pytest.mark.llm
@pytest.mark.browser
def test_evolve_report_renders_families_and_composition_ratio(tmp_path: Path) -> None:
    cli("morph", "run", "evolve", "humaneval", "--type", ",".join(TYPES), "--limit", str(SEEDS), "--out", "evo.jsonl",
        cwd=tmp_path)  # fmt: skip
    variants = _variants(tmp_path / "evo.jsonl")
    by_type = {kind: [v for v in variants if v["label"] == kind] for kind in TYPES}
    assert all(len(members) >= LOCAL_PER_TYPE for members in by_type.values()), {
        kind: len(members) for kind, members in by_type.items()
    }
    parents = sorted({p for v in variants for p in v["provenance"]["parents"]})
    chosen = [v for kind in TYPES for v in by_type[kind][:LOCAL_PER_TYPE]]
    chosen_parents = sorted({p for v in chosen for p in v["provenance"]["parents"]})

    runs = []
    for model in ("reference", "original"):
        cli(
            "run",
            "humaneval",
            "--model",
            model,
            "--tasks",
            ",".join(parents),
            "--out",
            f"he-{model}",
            cwd=tmp_path,
        )
        cli("run", "evo.jsonl", "--model", model, "--out", f"evo-{model}", cwd=tmp_path)
        runs += [f"he-{model}", f"evo-{model}"]
    small = ["--model", "local", "--max-tokens", "64"]
    cli("run", "humaneval", *small, "--tasks", ",".join(chosen_parents), "--out", "he-local", cwd=tmp_path)
    cli(
        "run",
        "evo.jsonl",
        *small,
        "--tasks",
        ",".join(v["id"] for v in chosen),
        "--out",
        "evo-local",
        cwd=tmp_path,
    )
    runs += ["he-local", "evo-local"]
    cli("report", *runs, "--html", "report.html", cwd=tmp_path)

    report = json.loads((tmp_path / "report.json").read_text())
    families = {(row["model"], row["family"]): row for row in report["families"]}
    expected = {(model, f"evolve/{kind}") for model in ("reference", "original", "local") for kind in TYPES}
    assert set(families) == expected
    reference = families[("reference", "evolve/combine")]
    assert reference["pass_variant"] == 1.0 and reference["composition_ratio"] == 1.0
    assert reference["composition_eligible"] == len(by_type["combine"])
    # `original` answers the parent: it solves both parents, so its ratio is what its variant pass@1 says.
    assert families[("original", "evolve/combine")]["composition_ratio"] is not None
    assert families[("local", "evolve/combine")]["pairs"] == LOCAL_PER_TYPE
    assert all(
        row["composition_ratio"] is None
        for (_, family), row in families.items()
        if family != "evolve/combine"
    )

    with open_page(tmp_path / "report.html") as visit:
        page = visit.page
        assert visit.errors == [] and visit.external_requests() == []
        table = page.locator("#table-families")
        headers = [text.strip() for text in table.locator("thead th").all_inner_texts()]
        assert "composition ratio" in headers
        column = headers.index("composition ratio")
        shown = {}
        for row in table.locator("tbody tr").all():
            cells = [text.strip() for text in row.locator("td").all_inner_texts()]
            shown[(cells[0], cells[1])] = cells[column]
        assert set(shown) == expected
        assert float(shown[("reference", "evolve/combine")].rstrip("%")) in (1.0, 100.0)
        assert table.is_visible()
        keep_screenshot(page, "report-evolve.png", tmp_path)
