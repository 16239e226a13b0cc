"""Commands that talk to models: `generate`, `run` (generate then evaluate) and `cache`."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from benchmorph.cli.progress import progress_bar
from benchmorph.cli.shared import (
    DataOption,
    FactorOption,
    MemoryOption,
    MinTimeOption,
    SandboxOption,
    WorkersOption,
    app,
    console,
    evaluate_into,
    fail,
    make_engine,
    out_console,
    summary_table,
)
from benchmorph.data.errors import InputError
from benchmorph.data.models import Problem
from benchmorph.data.registry import Benchmark, load_benchmark
from benchmorph.data.samples import write_samples
from benchmorph.evaluation.manifest import write_manifest
from benchmorph.execution.engine import Engine
from benchmorph.models import GenerationParams, GenerationReport, LLMCache, RetryPolicy, parse_spec
from benchmorph.models.generate import generate as generate_samples

ModelOption = Annotated[
    str,
    typer.Option(
        "--model",
        "-m",
        help="Model spec: openai:MODEL@URL[,URL], local, llamacpp:PATH.gguf, reference, original.",
    ),
]
NOption = Annotated[int, typer.Option("--n", help="Samples per problem.", min=1)]
TemperatureOption = Annotated[float, typer.Option("--temperature", help="0 = greedy.", min=0.0)]
TopPOption = Annotated[float, typer.Option("--top-p", min=0.0, max=1.0)]
MaxTokensOption = Annotated[int, typer.Option("--max-tokens", min=1)]
SeedOption = Annotated[int | None, typer.Option("--seed", help="Sample i uses seed + i.")]
ConcurrencyOption = Annotated[
    int | None,
    typer.Option(
        "--concurrency", "-c", help="Requests in flight (default 8 for servers, 1 in-process).", min=1
    ),
]
TimeoutOption = Annotated[float, typer.Option("--timeout", help="Per-request timeout, seconds.", min=0.001)]
RetriesOption = Annotated[int, typer.Option("--retries", help="Retries on 429, 5xx, timeouts.", min=0)]
BackoffOption = Annotated[
    float, typer.Option("--backoff", help="First retry delay, seconds (doubles, with jitter).", min=0.0)
]
ApiKeyEnvOption = Annotated[
    str | None, typer.Option("--api-key-env", help="Environment variable holding the API key.")
]
CacheOption = Annotated[
    bool, typer.Option("--cache/--no-cache", help="Reuse and record answers in the LLM cache.")
]
CachePathOption = Annotated[
    Path | None, typer.Option("--cache-path", help="LLM cache file (default $BENCHMORPH_CACHE/llm.sqlite).")
]
LimitOption = Annotated[int | None, typer.Option("--limit", help="Only the first N problems.", min=1)]
TasksOption = Annotated[str | None, typer.Option("--tasks", help="Only these task ids, comma-separated.")]


def select_problems(problems: Sequence[Problem], limit: int | None, tasks: str | None) -> list[Problem]:
    """The subset named by --tasks (in the order given) and/or --limit; an unknown id is an error."""
    chosen = list(problems)
    if tasks:
        by_id = {problem.id: problem for problem in problems}
        wanted = [task.strip() for task in tasks.split(",") if task.strip()]
        unknown = [task for task in wanted if task not in by_id]
        if unknown:
            raise InputError(f"unknown task id '{unknown[0]}'", field="--tasks")
        chosen = [by_id[task] for task in dict.fromkeys(wanted)]
    if limit is not None:
        chosen = chosen[:limit]
    return chosen


def run_generation(
    problems: Sequence[Problem],
    model: str,
    params: GenerationParams,
    *,
    concurrency: int | None,
    policy: RetryPolicy,
    api_key_env: str | None,
    use_cache: bool,
    cache_path: Path | None,
) -> GenerationReport:
    spec = parse_spec(model)
    total = len(problems) * (1 if spec.is_baseline else params.n)
    with (
        LLMCache(cache_path, enabled=use_cache) as cache,
        progress_bar(console, f"generate {model}", total) as advance,
    ):
        report = generate_samples(
            problems,
            spec,
            params,
            cache,
            concurrency=concurrency,
            policy=policy,
            api_key_env=api_key_env,
            progress=advance,
        )
    console.print(
        f"generation: {report.requests} new answers, {report.cached} from the cache, {report.errors} failed",
        highlight=False,
    )
    for message in report.error_messages[:10]:
        console.print(f"[yellow]warning:[/] generation failed for {message}", highlight=False, soft_wrap=True)
    if len(report.error_messages) > 10:
        console.print(f"[yellow]warning:[/] ... and {len(report.error_messages) - 10} more failed samples")
    return report


def generation_options(
    n: int,
    temperature: float,
    top_p: float,
    max_tokens: int,
    seed: int | None,
    timeout: float,
    retries: int,
    backoff: float,
) -> tuple[GenerationParams, RetryPolicy]:
    return (
        GenerationParams(n=n, temperature=temperature, top_p=top_p, max_tokens=max_tokens, seed=seed),
        RetryPolicy(retries=retries, base_delay=backoff, timeout=timeout),
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
    bench = load_benchmark(benchmark, data)
    problems = select_problems(bench.problems, limit, tasks)
    params, policy = generation_options(n, temperature, top_p, max_tokens, seed, timeout, retries, backoff)
    report = run_generation(
        problems,
        model,
        params,
        concurrency=concurrency,
        policy=policy,
        api_key_env=api_key_env,
        use_cache=cache,
        cache_path=cache_path,
    )
    write_samples(out, report.samples)
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
) -> None:
    """Generate samples with a model, then evaluate them: samples.jsonl, results.jsonl, summary.json."""
    bench = load_benchmark(benchmark, data)
    problems = select_problems(bench.problems, limit, tasks)
    params, policy = generation_options(n, temperature, top_p, max_tokens, seed, timeout, retries, backoff)
    out_dir = out or Path("benchmorph-out") / f"run-{bench.name}-{safe_name(model)}"
    engine = make_engine(workers, min_time_limit, time_factor, sandbox, memory_mb)
    summary = run_into(
        out_dir,
        engine,
        bench,
        problems,
        model,
        params,
        source=benchmark_source(benchmark, data),
        concurrency=concurrency,
        policy=policy,
        api_key_env=api_key_env,
        use_cache=cache,
        cache_path=cache_path,
    )
    out_console.print(summary_table(f"{bench.name}: {model}", {model: summary}))
    out_console.print(f"run: {out_dir} (samples.jsonl, results.jsonl, summary.json, manifest.json)")


def run_into(
    out_dir: Path,
    engine: Engine,
    bench: Benchmark,
    problems: Sequence[Problem],
    model: str,
    params: GenerationParams,
    *,
    source: dict[str, str | None],
    concurrency: int | None = None,
    policy: RetryPolicy | None = None,
    api_key_env: str | None = None,
    use_cache: bool = True,
    cache_path: Path | None = None,
) -> dict:
    """A run directory: samples, verdicts, summary and the manifest that reports pair runs by."""
    report = run_generation(
        problems,
        model,
        params,
        concurrency=concurrency,
        policy=policy or RetryPolicy(),
        api_key_env=api_key_env,
        use_cache=use_cache,
        cache_path=cache_path,
    )
    out_dir.mkdir(parents=True, exist_ok=True)
    write_samples(out_dir / "samples.jsonl", report.samples)
    summary = evaluate_into(out_dir, engine, bench.name, bench.by_id(), report.samples, model)
    write_manifest(
        out_dir,
        benchmark=bench.name,
        problems=problems,
        model=parse_spec(model).text,
        params=params.model_dump(),
        generation={"requests": report.requests, "cached": report.cached, "errors": report.errors},
        source=source,
    )
    return summary


def benchmark_source(benchmark: str, data: Path | None) -> dict[str, str | None]:
    """How to load the benchmark again (a name, or an absolute path), for commands that read a run later."""
    path = Path(benchmark)
    name = str(path.resolve()) if path.exists() else benchmark
    return {"benchmark": name, "data": str(data.resolve()) if data else None}


def safe_name(text: str) -> str:
    """A model spec as a directory name."""
    cleaned = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in text)
    return cleaned.strip("_")[:80] or "model"


cache_app = typer.Typer(help="Inspect or clear the LLM answer cache.", no_args_is_help=True)
app.add_typer(cache_app, name="cache")


@cache_app.command("stats")
def cache_stats(cache_path: CachePathOption = None) -> None:
    """Answers and embeddings cached per model, and the file's size."""
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
    identity = parse_spec(model).identity() if model else None
    with LLMCache(cache_path) as llm_cache:
        removed = llm_cache.clear(identity)
    out_console.print(f"removed {removed} cached entries" + (f" of {model}" if model else ""))


__all__ = ["select_problems", "run_generation", "fail"]
