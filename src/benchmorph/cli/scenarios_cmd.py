"""`benchmorph scenarios show|grow`: the scenario pools of the LLM metamorphic generator."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.table import Table

from benchmorph.cli.options import CachePathOption, MaxTokensOption, TemperatureOption
from benchmorph.cli.shared import app, note, out_console, progress

scenarios_app = typer.Typer(
    help="Scenario pools of the LLM metamorphic generator (`morph run metamorphic --generator SPEC`).",
    no_args_is_help=True,
)
app.add_typer(scenarios_app, name="scenarios")


def _embedding(metadata: dict) -> str:
    step = metadata.get("embedding") or {}
    if step.get("used"):
        return f"on ({step.get('embedder')})"
    return f"off: {step.get('reason', '?')}"


@scenarios_app.command("show")
def show_command(
    pool: Annotated[
        str | None,
        typer.Argument(
            help="A pool key (or a unique prefix), a pool file, or 'builtin'. None: list the pools."
        ),
    ] = None,
) -> None:
    """List the saved pools, or show one pool's scenarios and how it was grown."""
    from benchmorph.morph.common.scenarios import find_pool, list_pools, pools_dir

    if pool is None:
        pools = list_pools()
        if not pools:
            out_console.print(
                f"no saved scenario pools under {pools_dir()}; `scenarios show builtin` shows the seeds",
                soft_wrap=True,
            )
            return
        table = Table(title=f"scenario pools ({pools_dir()})")
        for column in ("key", "generator", "scenarios", "rounds", "embedding step", "stopped"):
            table.add_column(column)
        for _, found in pools:
            table.add_row(
                found.key,
                found.generator or "-",
                f"{len(found.scenarios)} of {found.target}",
                str(found.metadata.get("rounds", "?")),
                _embedding(found.metadata),
                str(found.metadata.get("stopped", "")),
            )
        out_console.print(table)
        return
    path, found = find_pool(pool)
    table = Table(title=f"scenario pool {found.key}: {len(found.scenarios)} of {found.target}")
    for column in ("#", "name", "description", "origin"):
        table.add_column(column)
    for number, scenario in enumerate(found.scenarios, 1):
        table.add_row(str(number), scenario.name, scenario.description, scenario.origin)
    out_console.print(table)
    out_console.print(f"generator: {found.generator or '-'}")
    out_console.print(f"embedding step: {_embedding(found.metadata)}")
    rejected = found.metadata.get("rejected") or []
    out_console.print(f"near-duplicates dropped: {len(rejected)}")
    for item in rejected[:20]:
        out_console.print(f"  {item.get('scenario', '?')}  <- {item.get('reason', '?')}", soft_wrap=True)
    for error in found.metadata.get("errors") or []:
        note(str(error))
    if path is not None:
        out_console.print(f"file: {path}")


@scenarios_app.command("grow")
def grow_command(
    generator: Annotated[str, typer.Option("--generator", "-g", help="Model spec that proposes scenarios.")],
    scenarios: Annotated[int, typer.Option("--scenarios", "-n", help="Target pool size.", min=1)] = 50,
    embedder: Annotated[
        str | None,
        typer.Option(
            "--embedder", help="Embedder spec for the cosine de-duplication step (off when not given)."
        ),
    ] = None,
    temperature: TemperatureOption = 0.8,
    max_tokens: MaxTokensOption = 1024,
    cache_path: CachePathOption = None,
) -> None:
    """Grow the pool for these settings to --scenarios (or reuse the saved one); a larger target replays
    the cached rounds of a smaller one and continues from there."""
    from benchmorph.models import GenerationParams, LLMCache, parse_spec
    from benchmorph.morph.common.scenarios import DedupSettings, load_or_grow_pool

    spec = parse_spec(generator)
    params = GenerationParams(temperature=temperature, max_tokens=max_tokens)
    where: dict[str, object] = {}
    with LLMCache(cache_path) as cache:
        pool = load_or_grow_pool(
            spec,
            scenarios,
            cache,
            params,
            dedup=DedupSettings(embedder=embedder),
            progress=progress,
            on_saved=lambda path, reused: where.update(path=path, reused=reused),
        )
    for error in pool.metadata.get("errors") or []:
        note(str(error))
    state = "reused" if where.get("reused") else "grown"
    out_console.print(
        f"pool {pool.key} ({state}): {len(pool.scenarios)} of {pool.target} scenarios; "
        f"{len(pool.metadata.get('rejected') or [])} near-duplicates dropped; "
        f"embedding step {_embedding(pool.metadata)}",
        soft_wrap=True,
    )
    if not pool.complete:
        note(str(pool.metadata.get("stopped")))
    out_console.print(f"file: {where.get('path')}")
