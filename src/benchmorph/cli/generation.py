"""Commands that talk to models: `generate`, `run` (generate then evaluate) and `cache`."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table

from benchmorph.cli.options import (
    ApiKeyEnvOption,
    BackendOption,
    BackoffOption,
    CacheOption,
    CachePathOption,
    ConcurrencyOption,
    DataOption,
    FactorOption,
    LimitOption,
    MaxTokensOption,
    MemoryOption,
    MinTimeOption,
    ModelOption,
    NOption,
    RayAddressOption,
    RetriesOption,
    SandboxOption,
    SeedOption,
    TasksOption,
    TemperatureOption,
    TestDetailsOption,
    TimeoutOption,
    TopPOption,
    WorkersOption,
)
from benchmorph.cli.shared import app, make_executor, out_console, progress, show_notice, summary_table

if TYPE_CHECKING:
    from benchmorph.evaluation.runs import ModelAccess
    from benchmorph.models import GenerationParams


def generation_options(
    n: int,
    temperature: float,
    top_p: float,
    max_tokens: int,
    seed: int | None,
    concurrency: int | None,
    timeout: float,
    retries: int,
    backoff: float,
    api_key_env: str | None,
    use_cache: bool,
    cache_path: Path | None,
) -> tuple[GenerationParams, ModelAccess]:
    """What to sample and how to reach the model, from the options `generate` and `run` both take."""
    from benchmorph.evaluation.runs import ModelAccess
    from benchmorph.models import GenerationParams, RetryPolicy

    return (
        GenerationParams(n=n, temperature=temperature, top_p=top_p, max_tokens=max_tokens, seed=seed),
        ModelAccess(
            cache_path=cache_path,
            use_cache=use_cache,
            concurrency=concurrency,
            policy=RetryPolicy(retries=retries, base_delay=backoff, timeout=timeout),
            api_key_env=api_key_env,
        ),
    )


@app.command()
def generate(
    benchmark: Annotated[str, typer.Argument(help="Benchmark name or problems file.")],
    model: ModelOption,
    out: Annotated[Path, typer.Option("--out", "-o", help="Samples JSONL to write.")] = Path(
        "benchmorph-out/samples.jsonl"
    ),
    n: NOption = 1,
    temperature: TemperatureOption = 0.0,
    top_p: TopPOption = 1.0,
    max_tokens: MaxTokensOption = 512,
    seed: SeedOption = None,
    concurrency: ConcurrencyOption = None,
    timeout: TimeoutOption = 300.0,
    retries: RetriesOption = 5,
    backoff: BackoffOption = 1.0,
    api_key_env: ApiKeyEnvOption = None,
    cache: CacheOption = True,
    cache_path: CachePathOption = None,
    limit: LimitOption = None,
    tasks: TasksOption = None,
    data: DataOption = None,
) -> None:
    """Ask a model for samples; writes EvalPlus-compatible JSONL (solution + raw text). Resumable."""
    from benchmorph.data.registry import load_benchmark, select_problems
    from benchmorph.evaluation.runs import generate_run

    bench = load_benchmark(benchmark, data)
    problems = select_problems(bench.problems, limit, tasks, field="--tasks")
    params, access = generation_options(
        n, temperature, top_p, max_tokens, seed, concurrency, timeout, retries, backoff, api_key_env,
        cache, cache_path,
    )  # fmt: skip
    report = generate_run(
        problems, model, params, access=access, out=out, progress=progress, notify=show_notice
    )
    out_console.print(f"samples: {out} ({len(report.samples)} for {len(problems)} problems)")


@app.command()
def run(
    benchmark: Annotated[str, typer.Argument(help="Benchmark name or problems file.")],
    model: ModelOption,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Run directory.")] = None,
    n: NOption = 1,
    temperature: TemperatureOption = 0.0,
    top_p: TopPOption = 1.0,
    max_tokens: MaxTokensOption = 512,
    seed: SeedOption = None,
    concurrency: ConcurrencyOption = None,
    timeout: TimeoutOption = 300.0,
    retries: RetriesOption = 5,
    backoff: BackoffOption = 1.0,
    api_key_env: ApiKeyEnvOption = None,
    cache: CacheOption = True,
    cache_path: CachePathOption = None,
    limit: LimitOption = None,
    tasks: TasksOption = None,
    data: DataOption = None,
    workers: WorkersOption = None,
    sandbox: SandboxOption = None,
    memory_mb: MemoryOption = None,
    min_time_limit: MinTimeOption = 1.0,
    time_factor: FactorOption = 4.0,
    test_details: TestDetailsOption = False,
    backend: BackendOption = "local",
    ray_address: RayAddressOption = None,
) -> None:
    """Generate samples with a model, then evaluate them: samples.jsonl, results.jsonl, summary.json."""
    from benchmorph.data.registry import load_benchmark, select_problems
    from benchmorph.evaluation.runs import run_benchmark

    bench = load_benchmark(benchmark, data)
    problems = select_problems(bench.problems, limit, tasks, field="--tasks")
    params, access = generation_options(
        n, temperature, top_p, max_tokens, seed, concurrency, timeout, retries, backoff, api_key_env,
        cache, cache_path,
    )  # fmt: skip
    out_dir = out or Path("benchmorph-out") / f"run-{bench.name}-{safe_name(model)}"
    with make_executor(
        backend, ray_address, workers, min_time_limit, time_factor, sandbox, memory_mb, test_details
    ) as engine:
        result = run_benchmark(
            bench, model, out_dir, engine, problems=problems, params=params, access=access,
            progress=progress, notify=show_notice,
        )  # fmt: skip
    out_console.print(summary_table(f"{bench.name}: {model}", {model: result.summary}))
    out_console.print(f"run: {out_dir} (samples.jsonl, results.jsonl, summary.json, manifest.json)")


def safe_name(text: str) -> str:
    """A model spec as a directory name."""
    cleaned = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in text)
    return cleaned.strip("_")[:80] or "model"


cache_app = typer.Typer(help="Inspect or clear the LLM answer cache.", no_args_is_help=True)
app.add_typer(cache_app, name="cache")


@cache_app.command("stats")
def cache_stats(cache_path: CachePathOption = None) -> None:
    """Answers and embeddings cached per model, and the file's size."""
    from benchmorph.models import LLMCache

    with LLMCache(cache_path) as llm_cache:
        stats = llm_cache.stats()
    table = Table(title=f"LLM cache: {stats.path} ({stats.bytes / 1e6:.1f} MB)")
    table.add_column("model")
    table.add_column("answers", justify="right")
    table.add_column("embeddings", justify="right")
    for model in sorted(set(stats.generations) | set(stats.embeddings)):
        table.add_row(model, str(stats.generations.get(model, 0)), str(stats.embeddings.get(model, 0)))
    table.add_row("total", str(sum(stats.generations.values())), str(sum(stats.embeddings.values())))
    out_console.print(table)


@cache_app.command("clear")
def cache_clear(
    model: Annotated[
        str | None, typer.Option("--model", "-m", help="Only this model spec's entries.")
    ] = None,
    cache_path: CachePathOption = None,
) -> None:
    """Delete cached answers and embeddings (all, or one model's)."""
    from benchmorph.models import LLMCache, parse_spec

    identity = parse_spec(model).identity() if model else None
    with LLMCache(cache_path) as llm_cache:
        removed = llm_cache.clear(identity)
    out_console.print(f"removed {removed} cached entries" + (f" of {model}" if model else ""))
