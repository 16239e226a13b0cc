"""``run_study``: one call from a model to a finding, across every family.

The stages, each resumable on its own:

1. **build**: every planned variant set (``build.build_set``: ``run_transform`` + ``write_morph_report``
   into a content-keyed folder of the cache) and, when asked, the augmented tests;
2. **run**: every model and baseline on the originals and on every set (``run_benchmark``: LLM cache
   and verdict checkpoints), and each model's samples on the augmented tests;
3. **report**: the findings (``findings.study_findings``), then ``build_report`` over the runs with the
   findings attached (the findings section comes first), written as ``report.html``, ``report.json``
   and ``study.md``; the answered-the-original re-runs are checkpointed in ``report/``;
4. **exports** (``exports.write_exports``) and ``study.json`` (schema: docs/study.md).

``study.json`` holds only what the study found and from what (configuration, sets, runs, findings,
files): no times and no counts of this session's work, so a study killed anywhere and run again
writes the same file.  What each session paid for is ``work.log``; the stages it went through,
``study.log``; the last session's totals, ``session.json``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from benchmorph import __version__
from benchmorph.core.notices import Notify
from benchmorph.core.progress import Advance, ProgressFactory, no_progress
from benchmorph.data.models import Problem
from benchmorph.data.registry import Benchmark, load_benchmark, select_problems
from benchmorph.data.storage import write_text_atomic
from benchmorph.evaluation.checkpoint import VerdictStore
from benchmorph.evaluation.rundir import RunDir, load_run
from benchmorph.evaluation.runs import ModelAccess
from benchmorph.evaluation.study.build import (
    AugmentedTests,
    VariantSet,
    build_augmented,
    build_set,
    set_problems,
)
from benchmorph.evaluation.study.config import StudyConfig
from benchmorph.evaluation.study.costs import (
    Costs,
    Rate,
    answer_key,
    build_key,
    load_costs,
    merge,
    save_costs,
)
from benchmorph.evaluation.study.estimate import estimate_plan, params_of, probe
from benchmorph.evaluation.study.exports import Exports, write_exports
from benchmorph.evaluation.study.findings import StudyRuns, study_findings
from benchmorph.evaluation.study.plan import Plan, prepare_plan
from benchmorph.evaluation.study.run import (
    ORIGINALS,
    RunRecord,
    baseline_spec,
    run_augmented,
    run_one,
    safe_name,
)
from benchmorph.evaluation.study.work import CountingCache, JudgingBackend, Tally, WorkLog
from benchmorph.execution.engine import Engine
from benchmorph.execution.limits import Limits
from benchmorph.models import RetryPolicy, parse_spec
from benchmorph.models.cache import LLMCache
from benchmorph.report.build import build_report, write_json
from benchmorph.report.exports import write_markdown
from benchmorph.report.findings import Findings
from benchmorph.report.html import write_html

SCHEMA_VERSION = 1
# Keys of the configuration that say where, not what: study.json leaves them out, so the same
# study written to another directory or with another cache file records the same.
WHERE_KEYS = ("out", "cache_path", "dry_run", "probe")


@dataclass
class StudyResult:
    """What ``run_study`` did; for a dry run, only ``plan``."""

    out: Path
    plan: Plan
    dry_run: bool = False
    sets: list[VariantSet] = field(default_factory=list)
    augmented: AugmentedTests | None = None
    runs: list[RunRecord] = field(default_factory=list)
    findings: Findings | None = None
    exports: Exports | None = None
    files: dict[str, Path] = field(default_factory=dict)
    tally: Tally = field(default_factory=Tally)
    seconds: float = 0.0
    sandbox: dict[str, Any] = field(default_factory=dict)  # the isolation and memory cap in force


class _Stages:
    """The caller's progress factory, recording each stage's start in ``study.log`` and its duration."""

    def __init__(self, log: WorkLog, path: Path, progress: ProgressFactory) -> None:
        self.log = log
        self.path = path
        self.progress = progress
        self.timings: list[tuple[str, float, int, int]] = []  # stage, seconds, answers paid, verdicts judged
        self.started = time.perf_counter()
        self.first_at: float | None = None

    def enter(self, stage: str) -> None:
        if self.first_at is None:
            self.first_at = time.perf_counter()
        self.log.stage = stage
        with self.path.open("a", encoding="utf-8") as handle:
            handle.write(f"{time.strftime('%H:%M:%S')} {self.log.session} {stage}\n")

    def __call__(self, description: str, total: int | None) -> AbstractContextManager[Advance]:
        return self._stage(description, total)

    @contextmanager
    def _stage(self, description: str, total: int | None) -> Iterator[Advance]:
        outer = self.log.stage
        self.enter(description)
        tally = self.log.tally
        before = (tally.llm_requests, tally.verdicts_judged)
        started = time.perf_counter()
        try:
            with self.progress(description, total) as advance:
                yield advance
        finally:
            self.timings.append(
                (
                    description,
                    time.perf_counter() - started,
                    tally.llm_requests - before[0],
                    tally.verdicts_judged - before[1],
                )
            )
            self.log.stage = outer


def _engine(config: StudyConfig) -> Engine:
    limits = Limits(min_time_limit=config.min_time_limit, time_factor=config.time_factor)
    if config.memory_mb is not None:
        from dataclasses import replace

        limits = replace(limits, memory=config.memory_mb * 2**20)
    engine = Engine(workers=config.workers, limits=limits, isolation=config.sandbox)
    engine.check_sandbox()
    return engine


def _access(config: StudyConfig, cache: LLMCache) -> ModelAccess:
    return ModelAccess(
        cache=cache,
        concurrency=config.concurrency,
        policy=RetryPolicy.model_validate(
            {"retries": config.retries, "base_delay": config.backoff, "timeout": config.timeout}
        ),
        api_key_env=config.api_key_env,
    )


def plan_only(config: StudyConfig, *, engine: Engine | None = None, notify: Notify | None = None) -> Plan:
    """The plan with its estimate (``--dry-run``).  It runs no model on the study's sets and writes
    nothing into the study's directory; with ``probe`` it builds the offline sets (kept in the cache:
    the study reuses them), times the sandbox on a few references and each model on three of the
    study's requests (kept in the LLM cache: the study does not ask them again)."""
    started = time.perf_counter()
    bench = load_benchmark(config.benchmark, config.data)
    problems = select_problems(bench.problems, config.limit, config.tasks, field="--tasks")
    plan = prepare_plan(config, problems, bench.name)
    costs = load_costs()
    with LLMCache(config.cache_path, enabled=config.cache) as cache:
        probed = None
        if config.probe:
            own = engine is None
            used = engine or _engine(config)
            try:
                probed = probe(config, plan, problems, used, cache, started)
            finally:
                if own:
                    used.close()
            for build, seconds in probed.built:  # what the probe built is a measurement too
                key = build_key(build.transform, bench.name, build.uses_llm)
                merge(costs.builds.setdefault(key, Rate()), seconds, len(problems))
                count = len(set_problems(build))
                merge(costs.yields.setdefault(key, Rate()), float(count), len(problems))
            if probed.built:
                save_costs(costs)
        return estimate_plan(plan, config, problems, costs, cache, probed)


def run_study(
    config: StudyConfig,
    *,
    engine: Engine | None = None,
    progress: ProgressFactory = no_progress,
    notify: Notify | None = None,
) -> StudyResult:
    """Plan, build, run, report and export a study into ``config.out``.

    ``engine`` (used, not closed) runs everything in the sandbox; without one the study makes its own
    from the configuration.  ``progress`` and ``notify`` are the usual callbacks.  A dry run
    (``config.dry_run``) returns the plan and its estimate only.
    """
    if config.dry_run:
        return StudyResult(config.out, plan_only(config, engine=engine, notify=notify), dry_run=True)
    started = time.perf_counter()
    tell = notify or (lambda notice: None)
    bench = load_benchmark(config.benchmark, config.data)
    problems = select_problems(bench.problems, config.limit, config.tasks, field="--tasks")
    plan = prepare_plan(config, problems, bench.name)
    out = config.out
    out.mkdir(parents=True, exist_ok=True)
    tally = Tally()
    log = WorkLog(out / "work.log", tally)
    stages = _Stages(log, out / "study.log", progress)
    stages.started = started
    result = StudyResult(out, plan, tally=tally)
    own_engine = engine is None
    used = engine or _engine(config)
    try:
        with CountingCache(config.cache_path, log, enabled=config.cache) as cache:
            # 1. build
            for build in plan.builds:
                stages.enter(f"build {build.name}")
                variant_set = build_set(
                    build, problems, used, out, cache=cache, seed=config.seed, benchmark=bench.name,
                    progress=stages, notify=tell,
                )  # fmt: skip
                tally.sets_built += int(variant_set.built)
                tally.sets_reused += int(not variant_set.built)
                result.sets.append(variant_set)
            if config.augment_tests:
                stages.enter("augment tests")
                result.augmented = build_augmented(
                    problems, plan.problems_sha, used, out, per_problem=config.augment_per_problem,
                    budget_s=config.augment_budget_s, seed=config.seed, progress=stages,
                )  # fmt: skip
                tally.sets_built += int(result.augmented.built)
                tally.sets_reused += int(not result.augmented.built)

            # 2. run
            params = params_of(config)
            access = _access(config, cache)
            originals_name = str(config.data.resolve()) if config.data is not None else config.benchmark
            variants_by_set = {s.name: s.problems() for s in result.sets}
            baselines = {
                baseline_spec(name, list(variants_by_set.values()), originals_name): name
                for name in config.baseline
            }
            # A baseline studied as a model (--model reference) runs once, as the model.
            baselines = {label: name for label, name in baselines.items() if label not in config.model}
            labels = [*config.model, *baselines]
            benches: list[tuple[str, Benchmark, list[Problem] | None]] = [(ORIGINALS, bench, problems)]
            # A set without variants (an LLM family whose every candidate was rejected) has nothing to run.
            benches += [(s.name, load_benchmark(str(s.path)), None) for s in result.sets if s.variants]
            for set_name, set_bench, subset in benches:
                for model in labels:
                    stages.enter(f"run {model} on {set_name}")
                    result.runs.append(
                        run_one(
                            set_bench,
                            model,
                            set_name,
                            out,
                            used,
                            log,
                            problems=subset,
                            params=params,
                            access=access,
                            progress=stages,
                            notify=tell,
                        )  # fmt: skip
                    )
            if result.augmented is not None:
                for record in [r for r in result.runs if r.set == ORIGINALS]:
                    stages.enter(f"run {record.model} on augmented tests")
                    result.runs.append(
                        run_augmented(
                            result.augmented.path, record, out, used, log, progress=stages, notify=tell
                        )
                    )

            # 3. report
            stages.enter("report")
            store = VerdictStore(out / "report" / "checkpoint.sqlite") if _mkdir(out / "report") else None
            try:
                judge = JudgingBackend(used, log, scope="report", store=store)
                loaded = {(r.set, r.model): load_run(r.path) for r in result.runs}
                study_runs = _study_runs(bench.name, len(problems), labels, baselines, loaded, result)
                references = config.reference_models
                if references is None:
                    references = [label for label in labels if _is_baseline(label, "reference")]
                off = _off_lines(plan, config)
                with stages("findings", None):
                    result.findings = study_findings(
                        study_runs, judge, k=config.variants, references=references,
                        minimum=config.min_problems, greedy=params.greedy, off=off,
                    )  # fmt: skip
                report_runs = [run for (set_name, _), run in loaded.items() if set_name != "augmented"]
                with stages("report tables", None):
                    report = build_report(report_runs, judge)
                report.findings = result.findings
                result.files["html"] = write_html(report, out / "report.html")
                result.files["json"] = write_json(report, out / "report.json")
                result.files["markdown"] = write_markdown(report, out / "study.md")
            finally:
                if store is not None:
                    store.close()

            # 4. exports and study.json
            stages.enter("exports")
            result.sandbox = {"isolation": used.isolation, "memory_limit": dict(used.resource_limits)}
            runs_by_model = {
                model: (loaded[(ORIGINALS, model)], loaded.get(("augmented", model)))
                for model in labels
                if (ORIGINALS, model) in loaded
            }
            result.exports = write_exports(
                out,
                problems,
                variants_by_set,
                runs_by_model,
                augmented_problems=_augmented_problems(result.augmented),
                hf=config.export_hf,
                label_of={model: safe_name(model) for model in labels},
            )
            result.files["study"] = write_study_json(out, config, plan, result, baselines)
            stages.enter("done")
    finally:
        log.close()
        if own_engine:
            used.close()
    result.seconds = time.perf_counter() - started
    _record_costs(config, bench.name, len(problems), result, stages)
    write_text_atomic(
        out / "session.json",
        json.dumps({"seconds": round(result.seconds, 3), **asdict(tally)}, indent=1) + "\n",
    )
    return result


def _is_baseline(label: str, name: str) -> bool:
    spec = parse_spec(label)
    return spec.is_baseline and spec.model == name


def _mkdir(folder: Path) -> bool:
    folder.mkdir(parents=True, exist_ok=True)
    return True


def _augmented_problems(augmented: AugmentedTests | None) -> list[Any]:
    if augmented is None:
        return []
    return load_benchmark(str(augmented.path)).problems


def _study_runs(
    benchmark: str,
    problems: int,
    labels: list[str],
    baselines: dict[str, str],
    loaded: dict[tuple[str, str], RunDir],
    result: StudyResult,
) -> StudyRuns:
    sets: dict[str, dict[str, RunDir]] = {}
    for variant_set in result.sets:
        runs = {
            model: loaded[(variant_set.name, model)]
            for model in labels
            if (variant_set.name, model) in loaded
        }
        if runs:
            sets[variant_set.name] = runs
    return StudyRuns(
        benchmark=benchmark,
        problems=problems,
        models=labels,
        baselines=baselines,
        originals={model: loaded[(ORIGINALS, model)] for model in labels if (ORIGINALS, model) in loaded},
        sets=sets,
        augmented={model: loaded[("augmented", model)] for model in labels if ("augmented", model) in loaded},
        new_tests=result.augmented.new_tests if result.augmented is not None else 0,
    )


def _off_lines(plan: Plan, config: StudyConfig) -> list[str]:
    lines = [f"{family.transform}: not built ({family.off})" for family in plan.families if family.off]
    if not config.augment_tests:
        lines.append("test rigour: off (--augment-tests augments the originals' tests)")
    return lines


def study_json(
    out: Path, config: StudyConfig, plan: Plan, result: StudyResult, baselines: dict[str, str]
) -> dict[str, Any]:
    """Everything the study found and from what; nothing about the session that found it."""
    recorded = {key: value for key, value in config.flags().items() if key not in WHERE_KEYS}
    return {
        "schema_version": SCHEMA_VERSION,
        "benchmorph": __version__,
        "config": recorded,
        "benchmark": {
            "name": plan.benchmark,
            "problems": plan.problems,
            "problems_sha256": plan.problems_sha,
        },
        "families": [
            {
                "transform": family.transform,
                "summary": family.summary,
                "sets": [build.name for build in family.builds],
                "off": family.off,
            }
            for family in plan.families
        ],
        "sets": [
            {
                "name": s.name,
                "transform": s.transform,
                "key": s.key,
                "file": str(s.path.relative_to(out)),
                "options": next(b.options for b in plan.builds if b.name == s.name),
                "uses_llm": next(b.uses_llm for b in plan.builds if b.name == s.name),
                "variants": s.variants,
                "parents": s.parents,
                "problems_with_variant": s.problems_with_variant,
                "yield": s.yield_table,
            }
            for s in result.sets
        ],
        "augmented_tests": None
        if result.augmented is None
        else {
            "key": result.augmented.key,
            "file": str(result.augmented.path.relative_to(out)),
            "problems": result.augmented.problems,
            "new_tests": result.augmented.new_tests,
        },
        "sandbox": result.sandbox,
        "models": list(config.model),
        "baselines": baselines,
        "runs": [record.to_json(out) for record in result.runs],
        "findings": asdict(result.findings) if result.findings is not None else None,
        "files": {name: str(path.relative_to(out)) for name, path in sorted(result.files.items())},
        "exports": result.exports.to_json() if result.exports is not None else None,
    }


def write_study_json(
    out: Path, config: StudyConfig, plan: Plan, result: StudyResult, baselines: dict[str, str]
) -> Path:
    target = out / "study.json"
    data = study_json(out, config, plan, result, baselines)
    data["files"]["study"] = "study.json"
    write_text_atomic(target, json.dumps(data, indent=1, allow_nan=False, sort_keys=False) + "\n")
    return target


def _record_costs(
    config: StudyConfig, benchmark: str, problems: int, result: StudyResult, stages: _Stages
) -> None:
    """Keep what this study measured, for the next dry run's estimate."""
    costs: Costs = load_costs()
    for variant_set in result.sets:
        if variant_set.built:
            build = next(b for b in result.plan.builds if b.name == variant_set.name)
            key = build_key(build.transform, benchmark, build.uses_llm)
            merge(costs.builds.setdefault(key, Rate()), variant_set.seconds, problems)
            merge(costs.yields.setdefault(key, Rate()), float(variant_set.variants), problems)
    if result.augmented is not None and result.augmented.built:
        merge(costs.augment, result.augmented.cpu_seconds, problems)
    for description, seconds, answers, verdicts in stages.timings:
        if description.startswith("generate ") and answers:
            model = description.removeprefix("generate ")
            try:
                identity = parse_spec(model).identity()
            except Exception:  # noqa: BLE001 - a progress line that is not a model: nothing to learn
                continue
            merge(costs.answers.setdefault(answer_key(identity, config.max_tokens), Rate()), seconds, answers)
        elif description.startswith("evaluate ") and verdicts:
            merge(costs.verdicts, seconds, verdicts)
    measured = sum(
        seconds
        for description, seconds, _, _ in stages.timings
        if description.startswith(("generate ", "evaluate "))
    )
    built = sum(s.seconds for s in result.sets if s.built)
    if result.augmented is not None and result.augmented.built:
        built += result.augmented.seconds
    start = stages.first_at - stages.started if stages.first_at is not None else 0.0
    merge(costs.start, start, 1, keep=5)
    if result.runs:  # what is left: per run directory, its preparing and writing, the report and exports
        merge(costs.runs, max(0.0, result.seconds - start - measured - built), len(result.runs))
    save_costs(costs)


__all__ = ["StudyResult", "plan_only", "run_study"]
