"""Synthetic run directories at any scale (problems x models) for report tests.

The problems, variants and samples are real (they load, and failed variant
samples really run against their parents); only the verdict files are
written directly instead of by the sandbox, which keeps 200 x 10 quick.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from benchmorph.data.formats.native import write_native
from benchmorph.data.models import Problem, TestCase, Variant


def _problem(i: int) -> Problem:
    prompt = (
        f"def shift_{i}(x: int) -> int:\n"
        f'    """Return x plus {i}, the offset this task adds to every number it is given.\n'
        f'    >>> shift_{i}(1)\n    {1 + i}\n    """\n'
    )
    return Problem(
        id=f"Synth/{i}",
        prompt=prompt,
        entry_point=f"shift_{i}",
        reference=prompt + f"    return x + {i}\n",
        tests=[TestCase(input=[value]) for value in (1, 2, 3)],
    )


def _variant(parent: Problem, i: int) -> Variant:
    prompt = parent.prompt.replace(f"plus {i}", f"minus {i}").replace(f"    {1 + i}\n", f"    {1 - i}\n")
    return Variant(
        id=f"{parent.id}/ctf-0",
        prompt=prompt,
        entry_point=parent.entry_point,
        reference=prompt + f"    return x - {i}\n",
        tests=parent.tests,
        parent_id=parent.id,
        transform="synthetic",
        label="ctf",
        provenance={"parent_reference": parent.reference},
    )


def _verdict(task: str, ok: bool) -> dict:
    tests = [{"index": 0, "status": "pass" if ok else "fail", "diff": None if ok else "expected 3, got 5"}]
    return {
        "task_id": task,
        "index": 0,
        "status": "pass" if ok else "fail",
        "passed": int(ok),
        "total": 3,
        "tests": tests,
    }


def _write_run(
    root: Path,
    benchmark: str,
    source: Path,
    model: str,
    rows: list[tuple[str, str, bool]],
    parent_ids: dict[str, str],
) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    with (root / "samples.jsonl").open("w") as handle:
        for task, code, _ in rows:
            handle.write(json.dumps({"task_id": task, "solution": code}) + "\n")
    with (root / "results.jsonl").open("w") as handle:
        for task, _, ok in rows:
            handle.write(json.dumps(_verdict(task, ok)) + "\n")
    passed = sum(ok for _, _, ok in rows)
    (root / "summary.json").write_text(json.dumps({"pass@1": passed / len(rows), "n_problems": len(rows)}))
    manifest = {
        "benchmark": benchmark,
        "model": model,
        "problem_ids": [task for task, _, _ in rows],
        "parent_ids": parent_ids,
        "source": {"benchmark": str(source), "data": None},
    }
    (root / "manifest.json").write_text(json.dumps(manifest))
    return root


def make_runs(root: Path, problems: int, models: int, seed: int = 0) -> list[Path]:
    """Original and variant runs for ``models`` models of decreasing skill; returns the run directories."""
    rng = random.Random(seed)
    parents = [_problem(i) for i in range(problems)]
    variants = [_variant(parent, i) for i, parent in enumerate(parents)]
    write_native(root / "synth.jsonl", parents)
    write_native(root / "synth-ctf.jsonl", variants)
    runs = []
    for m in range(models):
        skill = 0.95 - 0.08 * m
        original_rows, variant_rows = [], []
        for parent, variant in zip(parents, variants, strict=True):
            ok = rng.random() < skill
            original_rows.append(
                (parent.id, parent.reference if ok else parent.prompt + "    return x\n", ok)
            )
            keeps = ok and rng.random() < 0.7
            # A failed variant answer is usually the parent's solution: it answered the original.
            code = variant.reference if keeps else parent.reference
            variant_rows.append((variant.id, code, keeps))
        model = f"model-{m:02d}"
        runs.append(
            _write_run(root / f"orig-{model}", "synth", root / "synth.jsonl", model, original_rows, {})
        )
        runs.append(
            _write_run(
                root / f"ctf-{model}",
                "synth-ctf",
                root / "synth-ctf.jsonl",
                model,
                variant_rows,
                {variant.id: variant.parent_id for variant in variants},
            )
        )
    return runs
