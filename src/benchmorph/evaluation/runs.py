"""The run use cases as library functions: ``evaluate_run``, ``generate_run`` and ``run_benchmark``.

``benchmorph evaluate``, ``generate`` and ``run`` are thin wrappers over these, and a Python user calls
them the same way (see the README).  Nothing here prints: progress goes through a ``ProgressFactory``
(the CLI passes rich bars, the default shows nothing), and what the user should hear about (dropped
tests, skipped samples, failed requests) is a ``Notice``, handed to ``notify`` when it happens (so a
long run reports it at once) and kept in the result.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmorph.core.notices import Notice, Notify
from benchmorph.core.progress import ProgressFactory, no_progress
from benchmorph.data.models import Problem, Sample
from benchmorph.data.registry import Benchmark
from benchmorph.data.samples import write_samples
from benchmorph.evaluation.checkpoint import VerdictStore
from benchmorph.evaluation.evaluate import Evaluation, evaluate_samples, write_evaluation
from benchmorph.evaluation.manifest import write_manifest
from benchmorph.evaluation.sample_code import (
    SanitizeReport,
    generated_changes,
    raw_answer_hint,
    sanitize_samples,
    unparsable_message,
)
from benchmorph.execution.backends import ExecutionBackend
from benchmorph.models import GenerationParams, GenerationReport, LLMCache, RetryPolicy, parse_spec
from benchmorph.models.generate import generate

# How many failed requests are named one by one; the rest are counted, so a dead endpoint does not
# bury the run's output under thousands of identical lines (all of them stay in the samples file).
SHOWN_FAILURES = 10


@dataclass
class _Notices:
    """Hands each notice to the caller's callback as it happens and keeps it for the result."""

    notify: Notify | None = None
    items: list[Notice] = field(default_factory=list)

    def __call__(self, notice: Notice) -> None:
        self.items.append(notice)
        if self.notify is not None:
            self.notify(notice)


@dataclass
class ModelAccess:
    """How to reach a model, as opposed to what to sample from it (``GenerationParams``)."""

    cache: LLMCache | None = None  # an open LLM cache to use; None: open one at cache_path
    cache_path: str | Path | None = None  # default $BENCHMORPH_CACHE/llm.sqlite
    use_cache: bool = True  # False: neither read nor write the cache
    concurrency: int | None = None  # requests in flight (default 8 for servers, 1 in-process)
    policy: RetryPolicy = field(default_factory=RetryPolicy)  # retries, backoff, per-request timeout
    api_key_env: str | None = None  # the variable holding the API key (default OPENAI_API_KEY)


@dataclass
class RunResult:
    """A finished run directory: ``out_dir`` holds results.jsonl, summary.json and manifest.json
    (plus samples.jsonl for ``run_benchmark``)."""

    out_dir: Path
    summary: dict[str, Any]
    evaluation: Evaluation
    notices: list[Notice] = field(default_factory=list)
    generation: GenerationReport | None = None


def prepare_problems(
    engine: ExecutionBackend,
    benchmark: str,
    problems: Sequence[Problem],
    *,
    progress: ProgressFactory = no_progress,
    notify: Notify | None = None,
) -> dict[str, Problem]:
    """Expected outputs and reference times (cached by content) for ``problems``, by id.

    A problem the reference cannot run is left out, and tests its reference (with its contract) rejects
    or whose reference answer fails the problem's oracle are dropped; each is reported to ``notify``.
    """
    tell = notify or (lambda notice: None)
    with progress(f"references {benchmark}", len(problems)) as advance:
        report = engine.prepare(problems, advance)
    rejected = {
        task_id: len(reasons) - len(report.oracle_failures.get(task_id, []))
        for task_id, reasons in report.dropped_tests.items()
    }
    dropped = sum(rejected.values())
    if dropped:
        tell(
            Notice(
                "note",
                f"dropped {dropped} test inputs of {sum(1 for n in rejected.values() if n)} "
                "problems where the reference (with its contract) rejects the input",
            )
        )
    for task_id, reasons in sorted(report.oracle_failures.items()):
        shown = "; ".join(reasons[:3]) + (f"; and {len(reasons) - 3} more" if len(reasons) > 3 else "")
        tell(
            Notice(
                "warning",
                f"{task_id}: dropped {len(reasons)} tests where the reference's own answer fails the "
                f"problem's oracle: {shown}",
            )
        )
    for task_id, reason in sorted(report.unusable.items()):
        tell(Notice("warning", f"{task_id} cannot be evaluated: {reason}"))
    return {problem.id: problem for problem in report.problems}


def unparsable_samples(
    samples: Sequence[Sample], shown: int = 10, problems: Mapping[str, Problem] | None = None
) -> list[str]:
    """One line per sample that is not Python (at most ``shown``, then a count): it is still judged,
    as an error, but the user should know that the file holds something other than code.  Each line
    names the field the sample has (``solution`` or ``completion``) and the line inside that field."""
    lines = []
    for sample in samples:
        message = unparsable_message(sample, (problems or {}).get(sample.task_id))
        if message is not None:
            lines.append(message)
    if len(lines) > shown:
        lines = lines[:shown] + [f"... and {len(lines) - shown} more samples that are not valid Python"]
    return lines


def load_average() -> list[float] | None:
    """The machine's 1, 5 and 15 minute load averages (None where the system does not say)."""
    try:
        return [round(value, 2) for value in os.getloadavg()]
    except OSError:
        return None


def execution_record(engine: ExecutionBackend, load_at_start: list[float] | None) -> dict[str, Any]:
    """What a run's manifest says about how samples ran: the limits, the sandbox and its modes, the load."""
    return {
        "limits": engine.limits.describe(),
        "sandbox": {"isolation": engine.isolation, **engine.resource_limits},
        "load_average": {"start": load_at_start, "end": load_average()},
    }


def _judge_into(
    out_dir: Path,
    engine: ExecutionBackend,
    benchmark: str,
    problems: Mapping[str, Problem],
    samples: Sequence[Sample],
    label: str,
    *,
    resume: bool,
    progress: ProgressFactory,
    notices: _Notices,
    sanitizer: SanitizeReport | None = None,
) -> tuple[Evaluation, dict[str, Any]]:
    """Prepare the problems the samples need, judge the samples with a checkpoint, write the results."""
    needed = [problems[task] for task in dict.fromkeys(sample.task_id for sample in samples)]
    out_dir.mkdir(parents=True, exist_ok=True)
    ready = prepare_problems(engine, benchmark, needed, progress=progress, notify=notices)
    usable = [sample for sample in samples if sample.task_id in ready]
    skipped = len(samples) - len(usable)
    if skipped:
        notices(Notice("warning", f"{skipped} samples skipped: their problem cannot be evaluated"))
    checkpoint = out_dir / "checkpoint.sqlite"
    if not resume:
        for suffix in ("", "-wal", "-shm"):
            Path(f"{checkpoint}{suffix}").unlink(missing_ok=True)
    store = VerdictStore(checkpoint)
    try:
        with progress(f"evaluate {label}", len(usable)) as advance:
            evaluation = evaluate_samples(benchmark, ready, usable, engine, advance, store)
    finally:
        store.close()
    if sanitizer is not None:
        # Indices into ``usable``, the samples the evaluation holds.
        where = {id(sample): index for index, sample in enumerate(usable)}
        changed = {
            where[id(samples[i])]: text for i, text in sanitizer.changed.items() if id(samples[i]) in where
        }
        evaluation.sanitizer = SanitizeReport(len(usable), changed, sanitizer.no_code)
    reruns = evaluation.reruns
    if reruns is not None and reruns.rerun:
        notices(
            Notice(
                "info",
                f"timeouts re-run at the end: {reruns.rerun}; verdicts the re-run changed: {reruns.changed}",
            )
        )
    return evaluation, write_evaluation(out_dir, evaluation)


def evaluate_run(
    bench: Benchmark,
    samples: Sequence[Sample],
    out_dir: str | Path,
    engine: ExecutionBackend,
    *,
    samples_file: str | Path | None = None,
    label: str | None = None,
    resume: bool = True,
    sanitize: bool = False,
    progress: ProgressFactory = no_progress,
    notify: Notify | None = None,
) -> RunResult:
    """Judge ``samples`` (for tasks of ``bench``) in the sandbox and write a run directory.

    ``out_dir`` gets results.jsonl (one verdict per sample), summary.json (pass@k) and manifest.json;
    verdicts are checkpointed in ``out_dir/checkpoint.sqlite`` as they are made, so the same call after
    a crash judges only what is missing (``resume=False`` starts over).  Samples for unknown tasks
    must be filtered first (``read_samples`` does).  ``label`` names the progress bar (default: the
    samples file's name).  The engine is used, not closed: an ``Engine`` (this machine) or any
    ``ExecutionBackend``, such as ``make_backend("ray", ray_address=...)`` (every node of a Ray cluster).

    ``sanitize=True`` reads each sample's ``completion`` or ``solution`` through the sanitizer first
    (raw chat answers: fences, prose, repeated or truncated copies), keeps the text it read as ``raw``
    in results.jsonl, and counts the samples it changed (``summary["sanitizer"]``).  Without it, a
    run whose samples do not parse and read like raw answers ends with a ``hint`` notice.
    """
    if not samples:
        raise ValueError("evaluate_run needs at least one sample")
    load_at_start = load_average()
    out = Path(out_dir)
    notices = _Notices(notify)
    by_id = bench.by_id()
    report = None
    if sanitize:
        samples, report = sanitize_samples(samples, by_id)
        notices(
            Notice(
                "info",
                f"sanitizer: changed {len(report.changed)} of {report.samples} samples"
                + (f"; found no code in {report.no_code} (judged as written)" if report.no_code else ""),
            )
        )
    for line in unparsable_samples(samples, problems=by_id):
        notices(Notice("warning", line))
    name = label or (Path(samples_file).name if samples_file is not None else "samples")
    evaluation, summary = _judge_into(
        out, engine, bench.name, by_id, samples, name, resume=resume, progress=progress, notices=notices,
        sanitizer=report,
    )  # fmt: skip
    models = Counter(sample.model for sample in samples)
    write_manifest(
        out,
        benchmark=bench.name,
        problems=[by_id[task] for task in dict.fromkeys(sample.task_id for sample in samples)],
        model=models.most_common(1)[0][0],
        samples_file=str(Path(samples_file).resolve()) if samples_file is not None else None,
        source=bench.source,
        execution=execution_record(engine, load_at_start),
    )
    if not sanitize:
        hint = raw_answer_hint(samples, by_id)
        if hint is not None:
            notices(Notice("hint", hint))
    return RunResult(out, summary, evaluation, notices.items)


def generate_run(
    problems: Sequence[Problem],
    model: str,
    params: GenerationParams | None = None,
    *,
    access: ModelAccess | None = None,
    out: str | Path | None = None,
    progress: ProgressFactory = no_progress,
    notify: Notify | None = None,
) -> GenerationReport:
    """Ask the model named by the spec ``model`` for ``params.n`` samples per problem.

    Every answer goes through the LLM cache (``access``: an open cache, or one opened at its path),
    so a re-run asks nothing again.  A request that fails after its retries becomes a sample with an
    ``error`` and a warning; the run goes on.  With ``out`` the samples are written there
    (EvalPlus-style JSONL).
    """
    params = params or GenerationParams()
    access = access or ModelAccess()
    spec = parse_spec(model)
    tell = notify or (lambda notice: None)
    total = len(problems) * (1 if spec.is_baseline else params.n)

    def ask(llm_cache: LLMCache) -> GenerationReport:
        with progress(f"generate {model}", total) as advance:
            return generate(
                problems,
                spec,
                params,
                llm_cache,
                concurrency=access.concurrency,
                policy=access.policy,
                api_key_env=access.api_key_env,
                progress=advance,
            )

    if access.cache is not None:
        report = ask(access.cache)
    else:
        with LLMCache(access.cache_path, enabled=access.use_cache) as opened:
            report = ask(opened)
    tell(
        Notice(
            "info",
            f"generation: {report.requests} new answers, {report.cached} from the cache, {report.errors} failed",
        )
    )
    for message in report.error_messages[:SHOWN_FAILURES]:
        tell(Notice("warning", f"generation failed for {message}"))
    if len(report.error_messages) > SHOWN_FAILURES:
        tell(Notice("warning", f"... and {len(report.error_messages) - SHOWN_FAILURES} more failed samples"))
    if out is not None:
        write_samples(Path(out), report.samples)
    return report


def run_benchmark(
    bench: Benchmark,
    model: str,
    out_dir: str | Path,
    engine: ExecutionBackend,
    *,
    problems: Sequence[Problem] | None = None,
    params: GenerationParams | None = None,
    access: ModelAccess | None = None,
    progress: ProgressFactory = no_progress,
    notify: Notify | None = None,
) -> RunResult:
    """Generate with ``model`` on ``problems`` (default: all of ``bench``), then evaluate: a run directory.

    ``out_dir`` gets samples.jsonl, results.jsonl, summary.json and the manifest that ``report`` and
    ``sensitivity`` pair runs by (benchmark source, model, parameters, problem content hashes).  Both
    halves resume: answers come from the LLM cache, verdicts from the run's checkpoint.
    """
    chosen = list(bench.problems if problems is None else problems)
    params = params or GenerationParams()
    notices = _Notices(notify)
    report = generate_run(chosen, model, params, access=access, progress=progress, notify=notices)
    load_at_start = load_average()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    write_samples(out / "samples.jsonl", report.samples)
    by_id = bench.by_id()
    evaluation, summary = _judge_into(
        out,
        engine,
        bench.name,
        by_id,
        report.samples,
        model,
        resume=True,
        progress=progress,
        notices=notices,
        sanitizer=generated_changes(report.samples, by_id),
    )
    write_manifest(
        out,
        benchmark=bench.name,
        problems=chosen,
        model=parse_spec(model).text,
        params=params.model_dump(),
        generation={"requests": report.requests, "cached": report.cached, "errors": report.errors},
        source=bench.source,
        execution=execution_record(engine, load_at_start),
    )
    return RunResult(out, summary, evaluation, notices.items, report)
