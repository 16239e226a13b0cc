"""`benchmorph morph ...`: commands that make new benchmarks from existing ones."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.table import Table

from benchmorph.cli.options import (
    BackoffOption,
    CachePathOption,
    ConcurrencyOption,
    DataOption,
    LimitOption,
    MaxTokensOption,
    MemoryOption,
    RetriesOption,
    RunSeedOption,
    SandboxOption,
    TasksOption,
    TemperatureOption,
    TimeoutOption,
    WorkersOption,
)
from benchmorph.cli.shared import app, make_engine, out_console, progress
from benchmorph.cli.shared import note as print_note

# Option defaults, the library's own values (tests/cli/test_cli_startup.py checks they match):
# importing their modules here would cost every command's start-up.
DEFAULT_EPSILON = (
    0.13  # benchmorph.morph.common.figures.DEFAULT_EPSILON (inlined: no library import at start-up)
)
DEFAULT_LAMBDA = 1.2  # benchmorph.morph.common.figures.DEFAULT_LAMBDA
EpsilonOption = Annotated[
    float, typer.Option("--epsilon", help="Largest D_Q (wording change) kept.", min=0.0)
]

if TYPE_CHECKING:
    from pydantic.fields import FieldInfo

    from benchmorph.morph.transform import MorphReport


morph_app = typer.Typer(
    help="Make new, execution-verified benchmarks from existing ones.", no_args_is_help=True
)
app.add_typer(morph_app, name="morph")


def run_and_print(
    name: str,
    benchmark: str,
    out: Path,
    options: dict[str, Any],
    *,
    data: Path | None,
    workers: int | None,
    sandbox: str | None,
    memory_mb: int | None,
    seed: int = 0,
    limit: int | None = None,
    tasks: str | None = None,
    cache_path: Path | None = None,
) -> MorphReport:
    """What every morph command does: load, run the transform, write variants and candidates, print yields."""
    from benchmorph.data.registry import load_benchmark, select_problems
    from benchmorph.models import LLMCache
    from benchmorph.morph.transform import MorphContext, get_transform, run_transform, write_morph_report

    transform = get_transform(name)
    bench = load_benchmark(benchmark, data)
    problems = select_problems(bench.problems, limit, tasks, field="--tasks")
    uses_llm = transform.uses_llm(transform.parse_options(options, where=f"transform {name}"))
    with make_engine(workers, 1.0, 4.0, sandbox, memory_mb) as engine:
        cache = LLMCache(cache_path) if uses_llm else None
        try:
            ctx = MorphContext(
                engine=engine,
                cache=cache,
                seed=seed,
                progress=progress,
            )
            report = run_transform(name, problems, ctx, options)
        finally:
            if cache is not None:
                cache.close()
    variants_path, candidates_path = write_morph_report(report, out)
    table = Table(title=f"{name} on {bench.name}: every candidate, by the check that decided it")
    for column in ("status", "check", "candidates"):
        table.add_column(column, justify="right" if column == "candidates" else "left")
    for status, check, count in report.yield_table():
        table.add_row(status, check, str(count))
    out_console.print(table)
    out_console.print(
        f"{len(report.variants)} variants of {report.problems_with_variant} of {report.parents} problems"
    )
    for note in report.notes:
        print_note(note)
    out_console.print(f"variants: {variants_path}\ncandidates (for review): {candidates_path}")
    return report


def parse_transform_options(name: str, args: list[str]) -> dict[str, Any]:
    """``--field-name value`` / ``--flag`` / ``--field-name=value`` pairs for the transform's own options."""
    from benchmorph.data.errors import InputError
    from benchmorph.morph.transform import get_transform

    fields: dict[str, FieldInfo] = get_transform(name).Options.model_fields
    parsed: dict[str, Any] = {}
    index = 0
    while index < len(args):
        word = args[index]
        if not word.startswith("--"):
            raise InputError(f"unexpected argument '{word}' (transform options look like --name value)")
        key, has_value, value = word[2:].partition("=")
        field = key.replace("-", "_")
        if field not in fields:
            known = ", ".join("--" + known.replace("_", "-") for known in fields) or "none"
            raise InputError(f"transform {name} has no option --{key}; its options: {known}")
        if fields[field].annotation is bool and not has_value:
            parsed[field] = True
            index += 1
            continue
        if not has_value:
            if index + 1 >= len(args):
                raise InputError(f"--{key} needs a value")
            value = args[index + 1]
            index += 1
        parsed[field] = value
        index += 1
    return parsed


@morph_app.command("list")
def list_command() -> None:
    """The registered transforms, their contracts and their options."""
    from benchmorph.morph.transform import Transform, get_transform, transform_names

    table = Table(title="transforms (benchmorph morph run NAME BENCH --out V.jsonl [options])")
    for column in ("name", "LLM", "what it makes", "options"):
        table.add_column(column)
    for name in transform_names():
        transform = get_transform(name)
        options = ", ".join("--" + field.replace("_", "-") for field in transform.Options.model_fields)
        optional = type(transform).uses_llm is not Transform.uses_llm
        llm = "yes" if transform.needs_llm else "optional" if optional else "no"
        table.add_row(name, llm, transform.summary, options or "-")
    out_console.print(table)


@morph_app.command("run", context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
def run_command(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="Transform name (see `benchmorph morph list`).")],
    benchmark: Annotated[str, typer.Argument(help="Benchmark name or problems file.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Variants JSONL to write.")] = Path(
        "benchmorph-out/variants.jsonl"
    ),
    seed: RunSeedOption = 0,
    limit: LimitOption = None,
    tasks: TasksOption = None,
    cache_path: CachePathOption = None,
    data: DataOption = None,
    workers: WorkersOption = None,
    sandbox: SandboxOption = None,
    memory_mb: MemoryOption = None,
) -> None:
    """Run any registered transform; its own options follow as --name value (see `morph list`)."""
    options = parse_transform_options(name, list(ctx.args))
    run_and_print(
        name, benchmark, out, options, data=data, workers=workers, sandbox=sandbox, memory_mb=memory_mb,
        seed=seed, limit=limit, tasks=tasks, cache_path=cache_path,
    )  # fmt: skip


@morph_app.command("mine")
def mine_command(
    benchmark: Annotated[str, typer.Argument(help="Benchmark name or problems file.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Variants JSONL to write.")] = Path(
        "benchmorph-out/variants.jsonl"
    ),
    epsilon: EpsilonOption = DEFAULT_EPSILON,
    keep_all: Annotated[
        bool, typer.Option("--all", help="Keep every valid variant, not one per problem.")
    ] = False,
    data: DataOption = None,
    workers: WorkersOption = None,
    sandbox: SandboxOption = None,
    memory_mb: MemoryOption = None,
) -> None:
    """Alias of `morph run mine`: counterfactuals from paired description/code edits, verified by execution."""
    run_and_print(
        "mine", benchmark, out, {"epsilon": epsilon, "all": keep_all},
        data=data, workers=workers, sandbox=sandbox, memory_mb=memory_mb,
    )  # fmt: skip


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
    epsilon: EpsilonOption = DEFAULT_EPSILON,
    lam: Annotated[
        float, typer.Option("--lam", help="Selection: argmax D_S - lam * D_Q.", min=0.0)
    ] = DEFAULT_LAMBDA,
    min_agreement: Annotated[
        int, typer.Option("--min-agreement", help="Solutions that must agree for Robust/CTF.", min=2)
    ] = 2,
    embedder: Annotated[str, typer.Option("--embedder", help="Embedder spec for D_S.")] = "local",
    temperature: TemperatureOption = 0.8,
    max_tokens: MaxTokensOption = 1024,
    seed: RunSeedOption = 0,
    concurrency: ConcurrencyOption = None,
    timeout: TimeoutOption = 300.0,
    retries: RetriesOption = 5,
    backoff: BackoffOption = 1.0,
    cache_path: CachePathOption = None,
    limit: LimitOption = None,
    tasks: TasksOption = None,
    data: DataOption = None,
    workers: WorkersOption = None,
    sandbox: SandboxOption = None,
    memory_mb: MemoryOption = None,
) -> None:
    """Alias of `morph run ctf`: propose with LLMs, filter by D_Q, solve, label Bad/Robust/CTF, select, test."""
    options = {
        "generator": generator, "solver": solver, "candidates": candidates, "solutions": solutions,
        "epsilon": epsilon, "lam": lam, "min_agreement": min_agreement, "embedder": embedder,
        "temperature": temperature, "max_tokens": max_tokens, "concurrency": concurrency,
        "timeout": timeout, "retries": retries, "backoff": backoff,
    }  # fmt: skip
    run_and_print(
        "ctf", benchmark, out, options, data=data, workers=workers, sandbox=sandbox, memory_mb=memory_mb,
        seed=seed, limit=limit, tasks=tasks, cache_path=cache_path,
    )  # fmt: skip
