"""`benchmorph instruct ...`: CTF-Instruct, sensitivity training data from code instruction data."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table

from benchmorph.cli.options import (
    ConcurrencyOption,
    LimitOption,
    MaxTokensOption,
    MemoryOption,
    RetriesOption,
    RunSeedOption,
    SandboxOption,
    TemperatureOption,
    TimeoutOption,
    WorkersOption,
)
from benchmorph.cli.shared import app, console, make_engine, out_console, progress
from benchmorph.cli.shared import note as print_note

# Option defaults, the library's own values (tests/cli/test_cli_startup.py checks they match):
# importing their modules here would cost every command's start-up.
DEFAULT_COSINE = 0.95  # benchmorph.instruct.decontaminate.DEFAULT_COSINE
DEFAULT_N = 10  # benchmorph.instruct.decontaminate.DEFAULT_N
HEURISTIC = "heuristic"  # benchmorph.instruct.difficulty.HEURISTIC

if TYPE_CHECKING:
    from benchmorph.instruct.export import Format
    from benchmorph.instruct.pairs import PairsReport


instruct_app = typer.Typer(
    help="CTF-Instruct: counterfactual training pairs from code instruction data.", no_args_is_help=True
)
app.add_typer(instruct_app, name="instruct")

DataArgument = Annotated[
    str, typer.Argument(help="Instruction data: .jsonl, .json, .parquet, a datasets directory or owner/name.")
]
CachePath = Annotated[Path | None, typer.Option("--cache-path", help="LLM cache (default: the shared one).")]
Embedder = Annotated[str, typer.Option("--embedder", help="Embedder spec for D_S and similarity.")]
BaseOption = Annotated[
    str, typer.Option("--base", help="The original instruction data (for select: the initial centers).")
]
MaxDqOption = Annotated[
    float | None, typer.Option("--max-dq", help="Reject pairs whose D_Q is above this.", min=0.0)
]
AgainstOption = Annotated[
    str,
    typer.Option(
        "--against", help="Benchmarks (names or variant files) to decontaminate against, comma-separated."
    ),
]
BenchDataOption = Annotated[
    list[str] | None, typer.Option("--data", help="NAME=PATH: a local copy of a named benchmark.")
]
ScorerOption = Annotated[
    str, typer.Option("--scorer", help="heuristic (offline) or a model spec (an LLM judge).")
]
KOption = Annotated[int, typer.Option("--k", help="Pairs to select.", min=0)]


def note(text: str) -> None:
    print_note(text)


@instruct_app.command("read")
def read_command(
    data: DataArgument,
    limit: LimitOption = None,
) -> None:
    """Read instruction data and show what was found: formats, code, tests."""
    from benchmorph.instruct.read import read_instructions

    samples = read_instructions(data, limit)
    formats = Counter(sample.format for sample in samples)
    table = Table(title=f"{data}: {len(samples)} samples")
    for column in ("format", "samples", "with code", "with tests"):
        table.add_column(column, justify="left" if column == "format" else "right")
    for fmt, count in sorted(formats.items()):
        chosen = [sample for sample in samples if sample.format == fmt]
        table.add_row(
            fmt,
            str(count),
            str(sum(1 for sample in chosen if sample.code.strip())),
            str(sum(1 for sample in chosen if sample.tests)),
        )
    out_console.print(table)


def print_pairs_report(report: PairsReport, out: Path) -> None:
    table = Table(title="pairs: every answer, by the check that decided it")
    table.add_column("check")
    table.add_column("pairs", justify="right")
    for check, count in report.checks():
        table.add_row(check, str(count))
    out_console.print(table)
    out_console.print(
        f"parse rate {report.parse_rate:.1%} ({report.parsed}/{len(report.pairs)}), "
        f"acceptance rate {report.acceptance_rate:.1%} ({len(report.accepted)}/{len(report.pairs)}); "
        f"{report.asked} requests, {report.cached} answers from the cache"
    )
    for text in report.notes:
        note(text)
    out_console.print(f"pairs: {out}\ncandidates: {candidates_path(out)}")


def candidates_path(out: Path) -> Path:
    return out.with_name(out.name.removesuffix(".jsonl") + ".candidates.jsonl")


@instruct_app.command("pairs")
def pairs_command(
    data: DataArgument,
    generator: Annotated[str, typer.Option("--generator", "-g", help="Generator model spec.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Accepted pairs JSONL.")] = Path(
        "benchmorph-out/pairs.jsonl"
    ),
    limit: LimitOption = None,
    concurrency: ConcurrencyOption = None,
    embedder: Embedder = "local",
    max_dq: MaxDqOption = None,
    temperature: TemperatureOption = 0.7,
    max_tokens: MaxTokensOption = 1024,
    seed: RunSeedOption = 0,
    timeout: TimeoutOption = 300.0,
    retries: RetriesOption = 5,
    cache_path: CachePath = None,
    workers: WorkersOption = None,
    sandbox: SandboxOption = None,
    memory_mb: MemoryOption = None,
) -> None:
    """A counterfactual instruction and solution per sample: minimal wording change, large code change."""
    from benchmorph.instruct.pairs import make_pairs
    from benchmorph.instruct.read import read_instructions
    from benchmorph.instruct.records import write_pairs
    from benchmorph.models import GenerationParams, LLMCache, RetryPolicy

    samples = read_instructions(data, limit)
    params = GenerationParams(temperature=temperature, max_tokens=max_tokens, seed=seed)
    with make_engine(workers, 1.0, 4.0, sandbox, memory_mb) as engine, LLMCache(cache_path) as cache:
        report = make_pairs(
            samples,
            generator,
            cache,
            engine,
            embedder=embedder,
            params=params,
            max_dq=max_dq,
            progress=progress,
            concurrency=concurrency,
            policy=RetryPolicy(retries=retries, timeout=timeout),
        )
    write_pairs(out, report.accepted)
    write_pairs(candidates_path(out), report.pairs)
    print_pairs_report(report, out)


def parse_data_options(values: list[str]) -> dict[str, Path]:
    """``--data NAME=PATH`` (repeatable): local copies of benchmarks named in ``--against``."""
    from benchmorph.data.errors import InputError

    found: dict[str, Path] = {}
    for value in values:
        name, sep, path = value.partition("=")
        if not sep or not name.strip() or not path.strip():
            raise InputError(f"--data '{value}': expected NAME=PATH (e.g. mbpp+=MbppPlus.jsonl)")
        found[name.strip().lower()] = Path(path.strip())
    return found


@instruct_app.command("decontaminate")
def decontaminate_command(
    pairs_file: Annotated[Path, typer.Argument(help="Pairs JSONL (from `instruct pairs`).")],
    against: AgainstOption = "humaneval,mbpp+",
    data: BenchDataOption = None,
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="Kept pairs (default: PAIRS.clean.jsonl).")
    ] = None,
    ngram: Annotated[int, typer.Option("--ngram", help="n of the shared n-gram test.", min=3)] = DEFAULT_N,
    embedder: Annotated[
        str, typer.Option("--embedder", help="Embedder spec for the cosine test, or none.")
    ] = "none",
    cosine: Annotated[
        float, typer.Option("--cosine", help="Cosine above which a pair is dropped.")
    ] = DEFAULT_COSINE,
    cache_path: CachePath = None,
) -> None:
    """Drop pairs that share an n-gram (or, with --embedder, a near embedding) with a benchmark problem."""
    from benchmorph.data.errors import InputError
    from benchmorph.data.registry import load_benchmark
    from benchmorph.instruct.decontaminate import decontaminate
    from benchmorph.instruct.records import read_pairs, write_pairs
    from benchmorph.models import LLMCache

    pairs = read_pairs(pairs_file)
    paths = parse_data_options(data or [])
    names = [name.strip() for name in against.split(",") if name.strip()]
    if not names:
        raise InputError("--against names no benchmark")
    benchmarks = []
    for name in names:
        bench = load_benchmark(name, paths.get(name.lower()))
        benchmarks.append((name, bench.problems))
    with LLMCache(cache_path) as cache:
        report = decontaminate(
            pairs,
            benchmarks,
            n=ngram,
            embedder=None if embedder.lower() == "none" else embedder,
            cosine=cosine,
            cache=cache,
        )
    out = out or pairs_file.with_name(pairs_file.name.removesuffix(".jsonl") + ".clean.jsonl")
    dropped_path = out.with_name(out.name.removesuffix(".jsonl") + ".dropped.jsonl")
    write_pairs(out, report.kept)
    write_pairs(dropped_path, report.dropped)
    compared = ", ".join(f"{name} ({count})" for name, count in report.benchmarks.items())
    out_console.print(f"compared {len(pairs)} pairs with {compared}")
    table = Table(title="decontamination")
    table.add_column("test and benchmark")
    table.add_column("dropped", justify="right")
    for key, count in sorted(report.counts().items()):
        table.add_row(key, str(count))
    out_console.print(table)
    for pair in report.dropped:
        out_console.print(f"dropped {pair.id}: {pair.extra['decontamination']['reason']}", highlight=False)
    out_console.print(f"kept {len(report.kept)} of {len(pairs)} pairs: {out}\ndropped: {dropped_path}")


def print_table2(table: dict[str, dict[int, float | None]]) -> None:
    from benchmorph.instruct.difficulty import PERCENTILES

    shown = Table(
        title="Table 2: similarity of the solutions (share >= value), difficulty difference (share <= value)"
    )
    for column in ("percentile", "similarity", "difficulty difference"):
        shown.add_column(column, justify="right")
    for percentile in PERCENTILES:
        cells = [table[key][percentile] for key in ("similarity", "difficulty_difference")]
        shown.add_row(f"{percentile}%", *("-" if cell is None else f"{cell:.2f}" for cell in cells))
    out_console.print(shown)


@instruct_app.command("score")
def score_command(
    pairs_file: Annotated[Path, typer.Argument(help="Pairs JSONL.")],
    scorer: ScorerOption = HEURISTIC,
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="Scored pairs (default: PAIRS.scored.jsonl).")
    ] = None,
    concurrency: ConcurrencyOption = None,
    cache_path: CachePath = None,
) -> None:
    """Difficulty 1-5 of both sides of each pair, and the paper's Table 2."""
    from benchmorph.instruct.difficulty import score_pairs
    from benchmorph.instruct.records import read_pairs, write_pairs
    from benchmorph.models import LLMCache

    pairs = read_pairs(pairs_file)
    with LLMCache(cache_path) as cache:
        report = score_pairs(pairs, scorer, cache, progress=progress, concurrency=concurrency)
    out = out or pairs_file.with_name(pairs_file.name.removesuffix(".jsonl") + ".scored.jsonl")
    write_pairs(out, report.pairs)
    print_table2(report.table)
    if report.unscored:
        note(f"{report.unscored} of {2 * len(pairs)} sides got no readable score from {report.scorer}")
    out_console.print(f"scored {len(pairs)} pairs with {report.scorer}: {out}")


FormatOption = Annotated[
    str, typer.Option("--format", "-f", help="alpaca, messages or hf (a datasets directory).")
]


def check_format(fmt: str) -> Format:
    from benchmorph.data.errors import InputError
    from benchmorph.instruct.export import EXPORT_FORMATS

    if fmt not in EXPORT_FORMATS:
        raise InputError(f"--format '{fmt}': use one of {', '.join(EXPORT_FORMATS)}")
    return fmt  # type: ignore[return-value]


@instruct_app.command("export")
def export_command(
    selected: Annotated[Path, typer.Argument(help="Pairs JSONL to add (e.g. from `instruct select`).")],
    base: BaseOption,
    fmt: FormatOption = "alpaca",
    out: Annotated[Path, typer.Option("--out", "-o", help="Output directory.")] = Path(
        "benchmorph-out/ctf-instruct"
    ),
) -> None:
    """Merge the base data with the pairs' counterfactuals and write the training set."""
    from benchmorph.instruct.export import export_dataset
    from benchmorph.instruct.read import read_instructions
    from benchmorph.instruct.records import read_pairs

    report = export_dataset(read_pairs(selected), read_instructions(base), check_format(fmt), out)
    for text in report.notes:
        note(text)
    out_console.print(
        f"{report.base} base samples + {report.added} counterfactuals = {report.base + report.added} rows ({fmt}): "
        f"{report.path}"
    )


@instruct_app.command("mix")
def mix_command(
    selected: Annotated[
        Path, typer.Argument(help="Pairs JSONL, in priority order (e.g. from `instruct select`).")
    ],
    base: BaseOption,
    ratios: Annotated[
        str, typer.Option("--ratios", help="Counterfactuals as % of the base size, comma-separated.")
    ] = "0,10,20,40,80",
    fmt: FormatOption = "alpaca",
    out: Annotated[Path, typer.Option("--out", "-o", help="Output directory (one mix-R per ratio).")] = Path(
        "benchmorph-out/mixes"
    ),
) -> None:
    """The paper's Figure 4 study: the base data with the counterfactuals mixed in at several ratios."""
    from benchmorph.instruct.export import mix_datasets, parse_ratios
    from benchmorph.instruct.read import read_instructions
    from benchmorph.instruct.records import read_pairs

    pairs = read_pairs(selected)
    samples = read_instructions(base)
    mixes = mix_datasets(pairs, samples, parse_ratios(ratios), check_format(fmt), out)
    table = Table(title=f"mixes of {len(pairs)} pairs into {len(samples)} base samples")
    for column in ("ratio", "wanted", "added", "rows", "path"):
        table.add_column(column, justify="left" if column == "path" else "right")
    for mix in mixes:
        table.add_row(
            f"{mix.ratio:g}%",
            str(mix.requested),
            str(mix.added),
            str(len(samples) + mix.added),
            str(mix.path),
        )
    out_console.print(table)
    short = [mix for mix in mixes if mix.added < mix.requested]
    if short:
        note(
            f"only {len(pairs)} pairs: the {', '.join(f'{mix.ratio:g}%' for mix in short)} mixes hold fewer "
            "counterfactuals than asked"
        )


MethodOption = Annotated[str, typer.Option("--method", help="kcenter, difficulty (the k hardest) or random.")]
TrimOption = Annotated[
    float | None,
    typer.Option(
        "--trim-quantile", help="k-center: drop candidates beyond this distance quantile (1: none)."
    ),
]
DimOption = Annotated[
    int | None,
    typer.Option("--dim", help="k-center: seeded random projection to this many dimensions.", min=1),
]


def print_selection(summary: dict[str, object]) -> None:
    table = Table(title=f"selection ({summary['method']})")
    table.add_column("")
    table.add_column("value", justify="right")
    for key in ("selected", "candidates", "trimmed", "radius_before", "radius", "radius_full", "dim"):
        value = summary.get(key)
        if value is not None:
            table.add_row(key.replace("_", " "), f"{value:.4f}" if isinstance(value, float) else str(value))
    timings = summary.get("timings") or {}
    if isinstance(timings, dict) and timings:
        table.add_row("seconds", ", ".join(f"{name} {seconds:.2f}" for name, seconds in timings.items()))
    out_console.print(table)


@instruct_app.command("select")
def select_command(
    pairs_file: Annotated[Path, typer.Argument(help="Pairs JSONL (scored, for --method difficulty).")],
    base: BaseOption,
    k: KOption = 30000,
    method: MethodOption = "kcenter",
    trim_quantile: TrimOption = 0.99,
    dim: DimOption = None,
    embedder: Embedder = "local",
    seed: RunSeedOption = 0,
    device: Annotated[
        str, typer.Option("--device", help="cpu, or cuda where torch has it (untested here).")
    ] = "cpu",
    out: Annotated[Path, typer.Option("--out", "-o", help="Selected pairs, in pick order.")] = Path(
        "benchmorph-out/selected.jsonl"
    ),
    cache_path: CachePath = None,
) -> None:
    """Choose k pairs: k-center greedy from the base data (the paper), the k hardest, or at random."""
    from benchmorph.instruct.read import read_instructions
    from benchmorph.instruct.records import read_pairs, write_pairs
    from benchmorph.instruct.selection import choose_pairs
    from benchmorph.models import LLMCache

    pairs = read_pairs(pairs_file)
    samples = read_instructions(base)
    with LLMCache(cache_path) as cache:
        chosen, result = choose_pairs(
            pairs,
            samples,
            k,
            method,
            embedder=embedder,
            cache=cache,
            trim_quantile=trim_quantile,
            dim=dim,
            seed=seed,
            device=device,
            progress=progress,
        )
    write_pairs(out, chosen)
    print_selection(result.summary())
    out_console.print(f"selected {len(chosen)} of {len(pairs)} pairs: {out}")


@instruct_app.command("build")
def build_command(
    data: DataArgument,
    generator: Annotated[str, typer.Option("--generator", "-g", help="Generator model spec.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Output directory.")] = Path(
        "benchmorph-out/ctf-instruct"
    ),
    embedder: Embedder = "local",
    against: AgainstOption = "humaneval,mbpp+",
    data_paths: BenchDataOption = None,
    scorer: ScorerOption = HEURISTIC,
    k: KOption = 30000,
    method: MethodOption = "kcenter",
    trim_quantile: TrimOption = 0.99,
    dim: DimOption = None,
    fmt: FormatOption = "alpaca",
    limit: LimitOption = None,
    max_dq: MaxDqOption = None,
    temperature: TemperatureOption = 0.7,
    max_tokens: MaxTokensOption = 1024,
    seed: RunSeedOption = 0,
    concurrency: ConcurrencyOption = None,
    cache_path: CachePath = None,
    workers: WorkersOption = None,
    sandbox: SandboxOption = None,
    memory_mb: MemoryOption = None,
) -> None:
    """The whole recipe: pairs, decontamination, difficulty, selection and export, with a manifest."""
    from benchmorph.instruct.build import RecipeOptions, run_recipe
    from benchmorph.models import LLMCache

    options = RecipeOptions(
        generator=generator,
        embedder=embedder,
        against=[name.strip() for name in against.split(",") if name.strip()],
        data_paths={name: str(path) for name, path in parse_data_options(data_paths or []).items()},
        scorer=scorer,
        k=k,
        method=method,
        trim_quantile=trim_quantile,
        dim=dim,
        seed=seed,
        fmt=check_format(fmt),
        limit=limit,
        max_dq=max_dq,
        temperature=temperature,
        max_tokens=max_tokens,
    )
    with make_engine(workers, 1.0, 4.0, sandbox, memory_mb) as engine, LLMCache(cache_path) as cache:
        run_recipe(
            data,
            out,
            options,
            engine,
            cache,
            progress=progress,
            notify=lambda text: console.print(text, highlight=False, soft_wrap=True),
            concurrency=concurrency,
        )
    out_console.print(f"manifest: {out / 'manifest.json'}\ntraining data: {out / 'export'}")
