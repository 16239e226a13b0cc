"""Every command-line option more than one command takes, declared once.

A command names its parameters with these ``Annotated`` types (``seed:
RunSeedOption = 0``) and keeps only its default; the flag, its help text and
its bounds live here, so ``--seed`` or ``--cache-path`` read the same in
every command.  Options one command alone takes stay with that command.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

# ---- sandbox and execution
WorkersOption = Annotated[
    int | None, typer.Option("--workers", "-j", help="Sandbox workers (default: number of cores).")
]
MinTimeOption = Annotated[
    float,
    typer.Option(
        "--min-time-limit",
        help="Smallest per-test time limit, in CPU seconds (a sample that sleeps is stopped at 3x its "
        "limit of wall time).",
    ),
]
FactorOption = Annotated[
    float,
    typer.Option(
        "--time-factor", help="Per-test limit = max(min, factor x reference time), both in CPU seconds."
    ),
]
SandboxOption = Annotated[
    str | None,
    typer.Option(
        "--sandbox",
        help="bwrap (default: bubblewrap isolation, the run stops if it cannot start) or rlimits "
        "(no file-system or network isolation, only by explicit choice). Default: $BENCHMORPH_SANDBOX or bwrap.",
        show_default=False,
    ),
]
MemoryOption = Annotated[
    int | None,
    typer.Option(
        "--memory-mb",
        min=64,
        help="Memory cap per sample, in MB, for all its processes together (a cgroup where one is "
        "writable, else per process). Default: 4096.",
        show_default=False,
    ),
]
TestDetailsOption = Annotated[
    bool,
    typer.Option(
        "--test-details/--first-failure",
        help="Run every test and keep the per-test table (default: stop each sample at its first failing "
        "test, as EvalPlus does; the verdicts' statuses are the same).",
    ),
]
DataOption = Annotated[
    Path | None,
    typer.Option("--data", help="Local data file for the benchmark (instead of the cached download)."),
]
BackendOption = Annotated[
    str,
    typer.Option(
        "--backend",
        help="Where samples run: local (this machine's worker pool) or ray (one pool per node of a Ray "
        "cluster; needs pip install 'benchmorph[ray]').",
    ),
]
RayAddressOption = Annotated[
    str | None,
    typer.Option(
        "--ray-address",
        help="The Ray cluster for --backend ray (head host:port, or auto). Default: a Ray instance "
        "started on this machine for the run and stopped at its end.",
        show_default=False,
    ),
]

# ---- models and generation
ModelOption = Annotated[
    str,
    typer.Option(
        "--model",
        "-m",
        help="Model spec: openai:MODEL@URL[,URL], local, llamacpp:PATH.gguf, reference, original, "
        "memorizer[?originals=BENCH].",
    ),
]
NOption = Annotated[int, typer.Option("--n", help="Samples per problem.", min=1)]
TemperatureOption = Annotated[
    float, typer.Option("--temperature", help="Sampling temperature (0 = greedy).", min=0.0)
]
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

# ---- problem selection, seeds and exports
LimitOption = Annotated[int | None, typer.Option("--limit", help="Only the first N problems.", min=1)]
TasksOption = Annotated[str | None, typer.Option("--tasks", help="Only these task ids, comma-separated.")]
RunSeedOption = Annotated[
    int, typer.Option("--seed", help="Seed of the run: the same seed and inputs give the same output.")
]
JsonOption = Annotated[
    Path | None, typer.Option("--json", help="Also write the numbers as JSON to this file.")
]
