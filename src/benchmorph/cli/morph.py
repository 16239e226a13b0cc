"""`benchmorph morph ...`: commands that make new benchmarks from existing ones."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from benchmorph.cli.progress import progress_bar
from benchmorph.cli.shared import (
    DataOption,
    MemoryOption,
    SandboxOption,
    WorkersOption,
    app,
    console,
    make_engine,
    out_console,
)
from benchmorph.data.native import write_native
from benchmorph.data.registry import load_benchmark
from benchmorph.morph.mine import DEFAULT_EPSILON, mine

morph_app = typer.Typer(
    help="Make new, execution-verified benchmarks from existing ones.", no_args_is_help=True
)
app.add_typer(morph_app, name="morph")


@morph_app.command("mine")
def mine_command(
    benchmark: Annotated[str, typer.Argument(help="Benchmark name or problems file.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Variants JSONL to write.")] = Path(
        "benchmorph-out/variants.jsonl"
    ),
    epsilon: Annotated[
        float, typer.Option("--epsilon", help="Largest D_Q (wording change) kept.", min=0.0)
    ] = DEFAULT_EPSILON,
    keep_all: Annotated[
        bool, typer.Option("--all", help="Keep every valid variant, not one per problem.")
    ] = False,
    data: DataOption = None,
    workers: WorkersOption = None,
    sandbox: SandboxOption = None,
    memory_mb: MemoryOption = None,
) -> None:
    """Counterfactual variants without an LLM: paired description/reference edits verified by execution."""
    bench = load_benchmark(benchmark, data)
    with (
        make_engine(workers, 1.0, 4.0, sandbox, memory_mb) as engine,
        progress_bar(console, f"mine {bench.name}", None) as advance,
    ):
        report = mine(bench.problems, engine, epsilon=epsilon, keep_all=keep_all, progress=advance)
    write_native(out, report.variants)
    table = Table(title=f"mined counterfactuals: {bench.name}")
    table.add_column("what")
    table.add_column("count", justify="right")
    table.add_row("problems", str(report.parents))
    table.add_row("candidate edits", str(report.candidates))
    for reason, count in sorted(report.rejected.items()):
        table.add_row(f"rejected: {reason}", str(count))
    table.add_row("variants written", str(len(report.variants)))
    table.add_row("problems with a variant", str(report.problems_with_variant))
    out_console.print(table)
    out_console.print(f"variants: {out}")


def split_specs(text: str) -> list[str]:
    """``SPEC[,SPEC...]`` where an openai spec may itself list URLs separated by commas."""
    specs: list[str] = []
    for piece in (part.strip() for part in text.split(",")):
        if not piece:
            continue
        if specs and piece.startswith(("http://", "https://")):
            specs[-1] += "," + piece
        else:
            specs.append(piece)
    return specs


@morph_app.command("ctf")
def ctf_command(
    benchmark: Annotated[str, typer.Argument(help="Benchmark name or problems file.")],
    generator: Annotated[
        str, typer.Option("--generator", "-g", help="Generator model spec(s), comma-separated.")
    ],
    solver: Annotated[str, typer.Option("--solver", "-s", help="Solver model spec.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Variants JSONL (selected CTF variants).")] = Path(
        "benchmorph-out/ctf.jsonl"
    ),
    candidates: Annotated[
        int, typer.Option("--candidates", "-k", help="Proposals per generator and problem.", min=1)
    ] = 5,
    solutions: Annotated[
        int, typer.Option("--solutions", "-m", help="Solver solutions per candidate.", min=2)
    ] = 3,
    epsilon: Annotated[float, typer.Option("--epsilon", help="Largest D_Q kept.", min=0.0)] = 0.13,
    lam: Annotated[float, typer.Option("--lam", help="Selection: argmax D_S - lam * D_Q.", min=0.0)] = 1.2,
    min_agreement: Annotated[
        int, typer.Option("--min-agreement", help="Solutions that must agree for Robust/CTF.", min=2)
    ] = 2,
    embedder: Annotated[str, typer.Option("--embedder", help="Embedder spec for D_S.")] = "local",
    temperature: Annotated[
        float, typer.Option("--temperature", help="Sampling temperature (both models).", min=0.0)
    ] = 0.8,
    max_tokens: Annotated[int, typer.Option("--max-tokens", min=1)] = 1024,
    seed: Annotated[int, typer.Option("--seed")] = 0,
    concurrency: Annotated[int | None, typer.Option("--concurrency", "-c", min=1)] = None,
    timeout: Annotated[float, typer.Option("--timeout", min=0.001)] = 300.0,
    retries: Annotated[int, typer.Option("--retries", min=0)] = 5,
    backoff: Annotated[float, typer.Option("--backoff", min=0.0)] = 1.0,
    cache_path: Annotated[Path | None, typer.Option("--cache-path")] = None,
    limit: Annotated[int | None, typer.Option("--limit", min=1)] = None,
    tasks: Annotated[str | None, typer.Option("--tasks")] = None,
    data: DataOption = None,
    workers: WorkersOption = None,
    sandbox: SandboxOption = None,
    memory_mb: MemoryOption = None,
) -> None:
    """Counterfactual variants with LLMs: propose, filter by D_Q, solve, label Bad/Robust/CTF, select, test."""
    from benchmorph.cli.generation import select_problems
    from benchmorph.models import GenerationParams, LLMCache, RetryPolicy, parse_spec
    from benchmorph.morph.ctf import run_pipeline

    generators = [parse_spec(text) for text in split_specs(generator)]
    solver_spec = parse_spec(solver)
    bench = load_benchmark(benchmark, data)
    chosen = select_problems(bench.problems, limit, tasks)
    params = GenerationParams(temperature=temperature, max_tokens=max_tokens, seed=seed)
    policy = RetryPolicy(retries=retries, base_delay=backoff, timeout=timeout)
    with make_engine(workers, 1.0, 4.0, sandbox, memory_mb) as engine, LLMCache(cache_path) as cache:
        with progress_bar(console, f"references {bench.name}", len(chosen)) as advance:
            parents = engine.prepare(chosen, advance).problems
        console.print(
            f"asking {len(generators)} generator(s) for {candidates} candidates on {len(parents)} problems"
        )
        report = run_pipeline(
            parents,
            generators,
            solver_spec,
            engine,
            cache,
            candidates=candidates,
            solutions=solutions,
            epsilon=epsilon,
            lam=lam,
            min_agreement=min_agreement,
            embedder=embedder,
            generator_params=params,
            solver_params=params,
            concurrency=concurrency,
            policy=policy,
            bar=lambda description, total: progress_bar(console, description, total),
        )
    write_native(out, report.variants)
    everything = out.with_name(out.stem + ".candidates.jsonl")
    write_native(everything, [candidate.as_variant(solver_spec.text) for candidate in report.candidates])
    table = Table(title=f"counterfactual candidates: {bench.name}")
    table.add_column("outcome")
    table.add_column("count", justify="right")
    for outcome, count in sorted(report.counts.items()):
        table.add_row(outcome, str(count))
    table.add_row("variants written", str(len(report.variants)))
    out_console.print(table)
    if report.without_ctf:
        shown = ", ".join(report.without_ctf[:10]) + (" ..." if len(report.without_ctf) > 10 else "")
        console.print(f"[yellow]note:[/] {len(report.without_ctf)} problems got no CTF candidate: {shown}")
    out_console.print(f"variants: {out}\ncandidates (for review): {everything}")
