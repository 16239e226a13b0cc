"""`benchmorph study`: one command from a model to a finding, across every family (``run_study``)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from benchmorph.cli.options import (
    ApiKeyEnvOption,
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
    NOption,
    RetriesOption,
    RunSeedOption,
    SandboxOption,
    TasksOption,
    TemperatureOption,
    TimeoutOption,
    TopPOption,
    WorkersOption,
)
from benchmorph.cli.shared import (
    app,
    fail,
    make_engine,
    out_console,
    progress,
    show_notice,
    show_study,
)


def _given(ctx: typer.Context, name: str) -> bool:
    """Whether the user gave this flag (it then overrides study.toml); typer's click may be its own copy,
    so the source is compared by name."""
    source = ctx.get_parameter_source(name)
    return source is not None and source.name in ("COMMANDLINE", "ENVIRONMENT")


def _family_options(items: list[str]) -> dict[str, dict[str, Any]]:
    parsed: dict[str, dict[str, Any]] = {}
    for item in items:
        name, dot, rest = item.partition(".")
        key, eq, value = rest.partition("=")
        if not dot or not eq or not name or not key:
            fail(f"--family-option: expected FAMILY.OPTION=VALUE (e.g. evolve.rounds=1), got {item!r}")
        parsed.setdefault(name, {})[key.replace("-", "_")] = value
    return parsed


@app.command()
def study(
    ctx: typer.Context,
    benchmark: Annotated[
        str | None, typer.Argument(help="Benchmark name or problems file (or `benchmark` in --config).")
    ] = None,
    model: Annotated[
        list[str] | None,
        typer.Option(
            "--model", "-m", help="Model spec to study; repeat for several (openai:M@URL, local, ...)."
        ),
    ] = None,
    out: Annotated[Path, typer.Option("--out", "-o", help="The study's directory.")] = Path(
        "benchmorph-out/study"
    ),
    config: Annotated[
        Path | None, typer.Option("--config", help="study.toml: every flag as a key (docs/study.md).")
    ] = None,
    data: DataOption = None,
    limit: LimitOption = None,
    tasks: TasksOption = None,
    seed: RunSeedOption = 0,
    family: Annotated[
        list[str] | None,
        typer.Option(
            "--family", help="Families to build (repeat or comma-separate; default: every one that can be)."
        ),
    ] = None,
    generator: Annotated[
        str | None,
        typer.Option(
            "--generator",
            "-g",
            help="Model spec for the LLM halves: ctf, metamorphic agents, LLM evolve types.",
        ),
    ] = None,
    solver: Annotated[
        str | None, typer.Option("--solver", help="Solver of the LLM halves (default: the generator).")
    ] = None,
    variants: Annotated[
        int, typer.Option("--variants", help="Metamorphic variants per problem: K of DyPass@K.", min=1)
    ] = 5,
    evolve_types: Annotated[
        str | None,
        typer.Option(
            "--evolve-types",
            help="EvoEval types (default: the evolve family's offline ones; every type with --generator).",
        ),
    ] = None,
    family_option: Annotated[
        list[str] | None,
        typer.Option("--family-option", help="A family's own option, FAMILY.OPTION=VALUE (repeat)."),
    ] = None,
    augment_tests: Annotated[
        bool,
        typer.Option(
            "--augment-tests/--no-augment-tests", help="Augment the originals' tests (test rigour)."
        ),
    ] = False,
    augment_per_problem: Annotated[
        int, typer.Option("--augment-per-problem", help="Valid new inputs to find per problem.", min=1)
    ] = 1000,
    augment_budget_s: Annotated[
        float, typer.Option("--augment-budget-s", help="Seconds of test search per problem.", min=0.0)
    ] = 20.0,
    baseline: Annotated[
        list[str] | None,
        typer.Option("--baseline", help="Calibration baselines (default: reference, original, memorizer)."),
    ] = None,
    no_baselines: Annotated[bool, typer.Option("--no-baselines", help="Run no baseline.")] = False,
    reference_models: Annotated[
        str | None,
        typer.Option(
            "--reference-models",
            help="Models trusted not to be contaminated, comma-separated (default: reference).",
        ),
    ] = None,
    n: NOption = 1,
    temperature: TemperatureOption = 0.0,
    top_p: TopPOption = 1.0,
    max_tokens: MaxTokensOption = 512,
    sample_seed: Annotated[
        int | None, typer.Option("--sample-seed", help="Sample i uses sample-seed + i.")
    ] = None,
    concurrency: ConcurrencyOption = None,
    timeout: TimeoutOption = 300.0,
    retries: RetriesOption = 5,
    backoff: BackoffOption = 1.0,
    api_key_env: ApiKeyEnvOption = None,
    cache: CacheOption = True,
    cache_path: CachePathOption = None,
    workers: WorkersOption = None,
    sandbox: SandboxOption = None,
    memory_mb: MemoryOption = None,
    min_time_limit: MinTimeOption = 1.0,
    time_factor: FactorOption = 4.0,
    min_problems: Annotated[
        int, typer.Option("--min-problems", help="Fewest problems a finding may rest on.", min=1)
    ] = 5,
    export_hf: Annotated[
        bool,
        typer.Option(
            "--export-hf/--no-export-hf", help="Also export the sets as a Hugging Face datasets directory."
        ),
    ] = True,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Print the plan and its time estimate; run nothing.")
    ] = False,
    probe: Annotated[
        bool,
        typer.Option(
            "--probe/--no-probe", help="A dry run times the sandbox and each model where no study has."
        ),
    ] = True,
) -> None:
    """Build every family's variants, run every model and baseline on all of them, report the findings."""
    from benchmorph.evaluation.study.config import make_config

    values = {
        key: value
        for key, value in ctx.params.items()
        if key not in ("config", "no_baselines") and _given(ctx, key)
    }
    if "family_option" in values:
        values["family_option"] = _family_options(values["family_option"])
    if "reference_models" in values:
        values["reference_models"] = [
            part.strip() for part in values["reference_models"].split(",") if part.strip()
        ]
    if no_baselines:
        values["baseline"] = []
    settings = make_config(values, config)
    if settings.dry_run:
        _dry_run(settings)
        return
    _run(settings)


def _dry_run(settings: Any) -> None:
    from benchmorph.evaluation.study.study import plan_only

    engine = None
    if settings.probe:
        engine = make_engine(
            settings.workers,
            settings.min_time_limit,
            settings.time_factor,
            settings.sandbox,
            settings.memory_mb,
        )
    try:
        plan = plan_only(settings, engine=engine, notify=show_notice)
    finally:
        if engine is not None:
            engine.close()
    for line in plan.lines():
        out_console.print(line, highlight=False, soft_wrap=True)


def _run(settings: Any) -> None:
    from benchmorph.evaluation.study.study import run_study

    # Every test of every sample: the transforms' checks (mutant kills) and the exports need them all.
    with make_engine(
        settings.workers, settings.min_time_limit, settings.time_factor, settings.sandbox, settings.memory_mb
    ) as engine:
        result = run_study(settings, engine=engine, progress=progress, notify=show_notice)
    show_study(result)
