"""``instruct build``: the whole CTF-Instruct recipe in one directory, with a manifest.

read -> pairs -> decontaminate -> score -> select -> export, each step writing the file the next one
reads (the same files the single commands write), so a step can be inspected or re-run by hand:

    DIR/pairs.jsonl, pairs.candidates.jsonl   accepted pairs / every answer with its check
    DIR/clean.jsonl, clean.dropped.jsonl      after decontamination / dropped, with the reason
    DIR/scored.jsonl                          with difficulty on both sides
    DIR/selected.jsonl                        the chosen pairs, in pick order
    DIR/export/                               base + selected counterfactuals (alpaca, messages or hf)
    DIR/manifest.json                         parameters, counts, rates, Table 2, selection, timings

The manifest is rewritten after every step, so an interrupted build shows how far it got; LLM answers
and embeddings are cached, so running the same command again resumes without paying twice.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from benchmorph.core.progress import ProgressFactory, no_progress
from benchmorph.data.registry import load_benchmark
from benchmorph.execution.engine import Engine
from benchmorph.instruct.decontaminate import DEFAULT_COSINE, DEFAULT_N, decontaminate
from benchmorph.instruct.difficulty import HEURISTIC, score_pairs
from benchmorph.instruct.export import export_dataset
from benchmorph.instruct.pairs import make_pairs
from benchmorph.instruct.read import read_instructions
from benchmorph.instruct.records import write_pairs
from benchmorph.instruct.selection import choose_pairs, eligible_k
from benchmorph.models import GenerationParams, LLMCache

STEPS = ("read", "pairs", "decontaminate", "score", "select", "export")


@dataclass
class RecipeOptions:
    """Every knob of the recipe; the manifest records them all."""

    generator: str
    embedder: str = "local"
    against: list[str] = field(default_factory=lambda: ["humaneval", "mbpp+"])
    data_paths: dict[str, str] = field(default_factory=dict)  # benchmark name -> local file
    ngram: int = DEFAULT_N
    decontamination_embedder: str | None = None
    cosine: float = DEFAULT_COSINE
    scorer: str = HEURISTIC
    k: int = 30000
    method: str = "kcenter"
    trim_quantile: float | None = 0.99
    dim: int | None = None
    seed: int = 0
    fmt: str = "alpaca"
    limit: int | None = None
    max_dq: float | None = None
    temperature: float = 0.7
    max_tokens: int = 1024


def run_recipe(
    data: str | Path,
    out: str | Path,
    options: RecipeOptions,
    engine: Engine | None,
    cache: LLMCache,
    *,
    progress: ProgressFactory = no_progress,
    notify: Callable[[str], None] = lambda _: None,
    **ask_options: Any,
) -> dict[str, Any]:
    """Run every step; returns the manifest (also written to ``out/manifest.json``)."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    manifest: dict[str, Any] = {
        "recipe": "ctf-instruct",
        "data": str(Path(data).resolve()) if Path(data).exists() else str(data),
        "options": asdict(options),
        "steps": {},
    }

    def record(step: str, started: float, **facts: Any) -> None:
        facts["seconds"] = round(time.monotonic() - started, 3)
        manifest["steps"][step] = facts
        write_manifest(out / "manifest.json", manifest)

    def step(number: int) -> str:
        return f"build {number}/{len(STEPS)}: {STEPS[number - 1]}"

    started = time.monotonic()
    with progress(step(1), None):
        samples = read_instructions(data, options.limit)
    record("read", started, samples=len(samples), with_tests=sum(1 for s in samples if s.tests))
    notify(f"{step(1)}: {len(samples)} samples")

    started = time.monotonic()
    params = GenerationParams(
        temperature=options.temperature, max_tokens=options.max_tokens, seed=options.seed
    )
    report = make_pairs(
        samples,
        options.generator,
        cache,
        engine,
        embedder=options.embedder,
        params=params,
        max_dq=options.max_dq,
        progress=progress,
        **ask_options,
    )
    write_pairs(out / "pairs.jsonl", report.accepted)
    write_pairs(out / "pairs.candidates.jsonl", report.pairs)
    record(
        "pairs",
        started,
        answers=len(report.pairs),
        parsed=report.parsed,
        accepted=len(report.accepted),
        parse_rate=round(report.parse_rate, 4),
        acceptance_rate=round(report.acceptance_rate, 4),
        checks=dict(report.checks()),
        requests=report.asked,
        cached=report.cached,
        notes=report.notes,
    )
    notify(
        f"{step(2)}: {len(report.accepted)} of {len(report.pairs)} accepted (parse rate {report.parse_rate:.1%}, "
        f"acceptance rate {report.acceptance_rate:.1%})"
    )
    for text in report.notes:
        notify(f"note: {text}")

    started = time.monotonic()
    with progress(step(3), None):
        benchmarks = [
            (name, load_benchmark(name, options.data_paths.get(name.lower())).problems)
            for name in options.against
        ]
        clean = decontaminate(
            report.accepted,
            benchmarks,
            n=options.ngram,
            embedder=options.decontamination_embedder,
            cosine=options.cosine,
            cache=cache,
        )
    write_pairs(out / "clean.jsonl", clean.kept)
    write_pairs(out / "clean.dropped.jsonl", clean.dropped)
    record(
        "decontaminate", started, kept=len(clean.kept), dropped=clean.counts(), benchmarks=clean.benchmarks
    )
    notify(f"{step(3)}: kept {len(clean.kept)}, dropped {len(clean.dropped)} ({clean.counts() or 'none'})")

    started = time.monotonic()
    scored = score_pairs(clean.kept, options.scorer, cache, progress=progress, **ask_options)
    write_pairs(out / "scored.jsonl", scored.pairs)
    table = {name: {str(p): value for p, value in column.items()} for name, column in scored.table.items()}
    record("score", started, scorer=scored.scorer, unscored=scored.unscored, table2=table)
    notify(f"{step(4)}: scored {len(scored.pairs)} pairs with {scored.scorer}")

    started = time.monotonic()
    k = eligible_k(
        options.k, len(scored.pairs), options.trim_quantile if options.method == "kcenter" else None
    )
    if k < options.k:
        notify(f"note: {len(scored.pairs)} pairs after decontamination: selecting {k}, not {options.k}")
    chosen, selection = choose_pairs(
        scored.pairs,
        samples,
        k,
        options.method,
        embedder=options.embedder,
        cache=cache,
        trim_quantile=options.trim_quantile,
        dim=options.dim,
        seed=options.seed,
        progress=progress,
    )
    write_pairs(out / "selected.jsonl", chosen)
    record("select", started, k=k, **selection.summary())
    notify(f"{step(5)}: selected {len(chosen)} of {len(scored.pairs)} pairs ({options.method})")

    started = time.monotonic()
    with progress(step(6), None):
        exported = export_dataset(chosen, samples, options.fmt, out / "export")  # type: ignore[arg-type]
    record(
        "export",
        started,
        format=options.fmt,
        path=str(exported.path),
        base=exported.base,
        added=exported.added,
    )
    notify(f"{step(6)}: {exported.base} base + {exported.added} counterfactuals -> {exported.path}")
    return manifest


def write_manifest(path: Path, manifest: dict[str, Any]) -> None:
    """The manifest as pretty JSON, written to a temporary file and renamed into place."""
    text = json.dumps(manifest, indent=2, ensure_ascii=False, default=str)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text + "\n", encoding="utf-8")
    tmp.replace(path)
