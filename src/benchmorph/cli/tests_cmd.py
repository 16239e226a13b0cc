"""`benchmorph tests ...`: more tests for a benchmark (augment), and how many broken solutions a suite catches (score)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from benchmorph.cli.options import (
    CachePathOption,
    ConcurrencyOption,
    DataOption,
    JsonOption,
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
from benchmorph.cli.shared import app, fail, make_engine, note, out_console, progress

tests_app = typer.Typer(
    help="Generate tests for a benchmark and measure test suites by the mutants they kill.",
    no_args_is_help=True,
)
app.add_typer(tests_app, name="tests")

# benchmorph.testgen.saturation.SATURATION_WINDOW, written out so the CLI starts without the library
# (tests/test_cli_startup.py holds them equal).
SATURATION_WINDOW = 500


def journal_path(out: Path) -> Path:
    """Where augment records each finished problem, so a rerun resumes (kept beside the output)."""
    return out.with_name(out.name.removesuffix(".jsonl") + ".journal.jsonl")


@tests_app.command("augment")
def augment_command(
    benchmark: Annotated[str, typer.Argument(help="Benchmark name or problems file.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Augmented problems (benchmorph JSONL).")],
    generator: Annotated[
        str | None,
        typer.Option("--generator", "-g", help="Model spec asked for seed inputs (default: mutation only)."),
    ] = None,
    saturation: Annotated[
        int,
        typer.Option(
            "--saturation",
            help="Stop a problem's search once this many valid new inputs in a row added no covered line, "
            "arc or mutant kill (0: search to --per-problem or --budget-s).",
            min=0,
        ),
    ] = SATURATION_WINDOW,
    per_problem: Annotated[
        int,
        typer.Option("--per-problem", help="Valid new inputs to find per problem at most.", min=1),
    ] = 1000,
    budget_s: Annotated[
        float,
        typer.Option(
            "--budget-s",
            help="CPU seconds of search per problem at most: its own sandbox jobs' and its host thread's, "
            "so a busy machine does not shorten it (30 times this in wall seconds is the last resort).",
            min=0.0,
        ),
    ] = 20.0,
    suite_time_s: Annotated[
        float,
        typer.Option("--suite-time-s", help="Most reference time the new inputs may take together.", min=0.0),
    ] = 1.0,
    input_time_limit: Annotated[
        float, typer.Option("--input-time-limit", help="Most seconds one input may take.", min=0.001)
    ] = 1.0,
    seed: RunSeedOption = 0,
    reduce: Annotated[
        bool, typer.Option("--reduce/--no-reduce", help="Keep only tests that add coverage or mutant kills.")
    ] = True,
    mutants: Annotated[
        int | None,
        typer.Option(
            "--mutants", help="Mutants per problem the reduction keeps killers for (default all).", min=0
        ),
    ] = None,
    llm_inputs: Annotated[
        int, typer.Option("--llm-inputs", help="Inputs asked of the generator per answer.", min=1)
    ] = 10,
    answers: Annotated[int, typer.Option("--answers", help="Generator answers per problem.", min=1)] = 1,
    temperature: TemperatureOption = 0.8,
    max_tokens: MaxTokensOption = 1024,
    concurrency: ConcurrencyOption = None,
    timeout: TimeoutOption = 300.0,
    retries: RetriesOption = 5,
    cache_path: CachePathOption = None,
    limit: LimitOption = None,
    tasks: TasksOption = None,
    data: DataOption = None,
    workers: WorkersOption = None,
    sandbox: SandboxOption = None,
    memory_mb: MemoryOption = None,
) -> None:
    """New valid inputs (LLM seeds, type-aware mutation), kept where they add coverage or mutant kills."""
    from benchmorph.data.formats.native import write_native
    from benchmorph.data.registry import load_benchmark, select_problems
    from benchmorph.models import GenerationParams, LLMCache, RetryPolicy, parse_spec
    from benchmorph.testgen.augment import AugmentOptions, augment_benchmark, summarize
    from benchmorph.testgen.seed_llm import SeedGenerator

    bench = load_benchmark(benchmark, data)
    problems = select_problems(bench.problems, limit, tasks, field="--tasks")
    options = AugmentOptions(
        per_problem=per_problem,
        budget_s=budget_s,
        suite_time_s=suite_time_s,
        seed=seed,
        reduce=reduce,
        input_time_limit=input_time_limit,
        mutants=mutants,
        saturation=saturation or None,
    )
    cache = LLMCache(cache_path) if generator else None
    try:
        seeds = None
        if generator is not None and cache is not None:
            seeds = SeedGenerator(
                parse_spec(generator),
                cache,
                GenerationParams(n=answers, temperature=temperature, max_tokens=max_tokens, seed=seed),
                inputs=llm_inputs,
                concurrency=concurrency,
                policy=RetryPolicy(retries=retries, timeout=timeout),
            )
        with make_engine(workers, 1.0, 4.0, sandbox, memory_mb) as engine:
            results = augment_benchmark(
                problems, engine, options, generator=seeds, journal=journal_path(out), progress=progress
            )
    finally:
        if cache is not None:
            cache.close()
    write_native(out, [result.problem for result in results])
    summary = summarize(results)
    table = Table(title=f"tests augment {bench.name}: {summary.augmented} of {summary.problems} problems")
    table.add_column("what")
    table.add_column("count", justify="right")
    rows = [
        ("base tests", summary.base_tests),
        ("candidates judged", summary.tried),
        ("  dropped before the sandbox (contract on the host, size)", summary.screened),
        *((f"  rejected: {reason}", count) for reason, count in summary.rejected.items()),
        ("valid new inputs found", summary.found),
        ("new tests kept" + (" after reduction" if reduce else ""), summary.kept),
        *((f"  tests of origin {origin}", count) for origin, count in summary.origins.items()),
        *((f"problems stopped by: {reason}", count) for reason, count in summary.stopped.items()),
    ]
    if summary.llm_answers:
        rows.append(("generator answers read", summary.llm_answers))
        rows.append(("inputs in them", summary.llm_inputs))
    if summary.mutants:
        rows.append(("reference mutants", summary.mutants))
        rows.append(("  killed by the base tests", summary.base_killed))
        rows.append(("  killed by base + new tests", summary.killed))
    for label, count in rows:
        table.add_row(label, str(count))
    out_console.print(table)
    per = summary.tests / summary.problems if summary.problems else 0.0
    out_console.print(
        f"{summary.tests} tests, {per:.1f} per problem; {summary.seconds:.0f} s of problem time"
    )
    for task_id, reason in summary.skipped.items():
        note(f"{task_id} not augmented: {reason}")
    if summary.without_contract:
        note(
            f"{summary.without_contract} problems have no input contract: every input their "
            "reference runs on was accepted, including inputs the description may rule out"
        )
    out_console.print(f"augmented: {out}\nper-problem journal (resume): {journal_path(out)}")


@tests_app.command("score")
def score_command(
    benchmark: Annotated[
        str, typer.Argument(help="Benchmark whose references are mutated; its own tests are the first suite.")
    ],
    against: Annotated[
        list[str] | None,
        typer.Option("--against", "-a", help="Another suite of the same problems (file or benchmark name)."),
    ] = None,
    mutants: Annotated[
        str, typer.Option("--mutants", help="auto (every distinct mutant) or N per problem (seeded sample).")
    ] = "auto",
    by_origin: Annotated[
        bool, typer.Option("--by-origin", help="Also score each suite's base tests alone (e.g. MBPP+ base).")
    ] = False,
    seed: RunSeedOption = 0,
    json_out: JsonOption = None,
    limit: LimitOption = None,
    tasks: TasksOption = None,
    data: DataOption = None,
    workers: WorkersOption = None,
    sandbox: SandboxOption = None,
    memory_mb: MemoryOption = None,
) -> None:
    """Share of reference mutants each suite kills, its tests per problem and its run time."""
    from benchmorph.data.registry import load_benchmark, select_problems
    from benchmorph.testgen.score import restrict_to_origins, score_suites

    if mutants == "auto":
        limit_mutants = None
    elif mutants.isdigit() and int(mutants) > 0:
        limit_mutants = int(mutants)
    else:
        fail(f"--mutants: expected 'auto' or a positive number, got '{mutants}'")
    bench = load_benchmark(benchmark, data)
    problems = select_problems(bench.problems, limit, tasks, field="--tasks")
    given = {bench.name: problems}
    for spec in against or []:
        name = Path(spec).name if Path(spec).exists() else spec
        given[name if name not in given else f"{name} ({len(given) + 1})"] = load_benchmark(spec).problems
    suites = {}
    for name, suite in given.items():
        if by_origin and any(test.origin != "base" for problem in suite for test in problem.tests):
            suites[f"{name} (base tests)"] = restrict_to_origins(suite, ["base"])
        suites[name] = suite
    with make_engine(workers, 1.0, 4.0, sandbox, memory_mb) as engine:
        scores = score_suites(
            problems, suites, engine, mutant_limit=limit_mutants, seed=seed, progress=progress
        )
    table = Table(title=f"mutation score on {bench.name}'s references ({mutants} mutants)")
    for column in ("suite", "problems", "tests/problem", "killed", "score", "run s", "dropped"):
        table.add_column(column, justify="left" if column == "suite" else "right")
    for score in scores:
        table.add_row(
            score.name,
            str(score.problems),
            f"{score.tests_per_problem:.1f}",
            f"{score.killed}/{score.mutants}",
            f"{100 * score.score:.1f}%",
            f"{score.seconds:.2f}",
            str(score.dropped),
        )
    out_console.print(table)
    left_out = len(problems) - (scores[0].problems if scores else 0)
    if left_out:
        note(f"{left_out} problems are missing from some suite and are not scored")
    out_console.print(
        "killed: mutants of the reference that fail a test of the suite. Equivalent mutants (the "
        "reference's behaviour on every valid input) cannot be told apart automatically, so scores are "
        "lower bounds: compare suites on the same mutants. run s: seconds to run the reference on the "
        "suite in the sandbox. dropped: inputs the reference's contract rejects (or it raises on), not "
        "counted as tests."
    )
    if json_out is not None:
        payload = [
            {
                "suite": s.name, "problems": s.problems, "tests": s.tests, "mutants": s.mutants,
                "killed": s.killed, "score": s.score, "seconds": s.seconds, "dropped": s.dropped,
                "per_problem": s.per_problem,
            }
            for s in scores
        ]  # fmt: skip
        json_out.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
        out_console.print(f"scores: {json_out}")
