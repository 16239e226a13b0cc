"""Variant sets, built once and reused: ``run_transform`` + ``write_morph_report`` into a content-keyed folder.

A set lives in ``$BENCHMORPH_CACHE/study/sets/KEY/`` (``variants.jsonl``, ``variants.candidates.jsonl``
and ``set.json``: what was built from what, the yield table, the notes, how long it took).  The folder
appears in one rename once the set is complete, so a study killed while building leaves nothing half
written, and the next one builds it again, its LLM answers coming from the cache.  The study copies
each set into its own directory (``DIR/variants/NAME.jsonl``), which its runs and exports read.

The augmented tests (``augment_benchmark``) are a set of the same kind: keyed by the problems and the
augmentation options, with the per-problem journal that lets an interrupted augmentation resume.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmorph.core.notices import Notice, Notify
from benchmorph.core.progress import ProgressFactory, no_progress
from benchmorph.data.formats.native import read_native, write_native
from benchmorph.data.models import Problem, Variant
from benchmorph.data.storage import write_text_atomic
from benchmorph.evaluation.study.plan import AUGMENT, BuildSpec, augment_key, sets_root
from benchmorph.execution.engine import Engine
from benchmorph.models.cache import LLMCache
from benchmorph.morph.transform import MorphContext, run_transform, write_morph_report

SET_FILE = "set.json"
VARIANTS_FILE = "variants.jsonl"
CANDIDATES_FILE = "variants.candidates.jsonl"


@dataclass
class VariantSet:
    """A built set as the study uses it."""

    name: str
    transform: str
    key: str
    path: Path  # the study's copy: DIR/variants/NAME.jsonl
    variants: int
    parents: int
    problems_with_variant: int
    yield_table: list[list[Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    built: bool = False  # built by this session (False: reused from the cache)
    seconds: float = 0.0  # how long the build took, when it was built

    def problems(self) -> list[Variant]:
        return [problem for problem in read_native(self.path) if isinstance(problem, Variant)]


def _publish(folder: Path, write: Any) -> None:
    """Write a set into a fresh folder beside ``folder`` and rename it into place in one step."""
    staging = folder.with_name(f"{folder.name}.building-{os.getpid()}")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    write(staging)
    try:
        os.replace(staging, folder)
    except OSError:  # another study published the same set meanwhile: theirs is as good
        shutil.rmtree(staging, ignore_errors=True)


def _copy_into(source: Path, target: Path) -> None:
    """The study's own copy of a set's file (unchanged files are left alone)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    data = source.read_bytes()
    if not target.exists() or target.read_bytes() != data:
        tmp = target.with_name(target.name + ".tmp")
        tmp.write_bytes(data)
        os.replace(tmp, target)


def _loaded(spec: BuildSpec, out_dir: Path, built: bool) -> VariantSet:
    meta = json.loads((spec.folder / SET_FILE).read_text(encoding="utf-8"))
    target = out_dir / "variants" / f"{spec.name}.jsonl"
    _copy_into(spec.folder / VARIANTS_FILE, target)
    _copy_into(spec.folder / CANDIDATES_FILE, target.with_name(f"{spec.name}.candidates.jsonl"))
    return VariantSet(
        name=spec.name,
        transform=spec.transform,
        key=spec.key,
        path=target,
        variants=int(meta["variants"]),
        parents=int(meta["parents"]),
        problems_with_variant=int(meta["problems_with_variant"]),
        yield_table=meta.get("yield_table", []),
        notes=meta.get("notes", []),
        built=built,
        seconds=float(meta.get("seconds", 0.0)),
    )


def ensure_set(
    spec: BuildSpec,
    problems: Sequence[Problem],
    engine: Engine,
    *,
    cache: LLMCache | None,
    seed: int,
    benchmark: str,
    progress: ProgressFactory = no_progress,
    notify: Notify | None = None,
) -> bool:
    """Build the set ``spec`` names into the cache unless it is there; True when it was built now."""
    if spec.cached:
        return False
    started = time.perf_counter()
    ctx = MorphContext(engine=engine, cache=cache if spec.uses_llm else None, progress=progress, seed=seed)
    report = run_transform(spec.transform, problems, ctx, spec.options)
    seconds = time.perf_counter() - started
    meta = {
        "key": spec.key,
        "name": spec.name,
        "transform": spec.transform,
        "options": spec.options,
        "benchmark": benchmark,
        "problems": len(problems),
        "seed": seed,
        "variants": len(report.variants),
        "parents": report.parents,
        "problems_with_variant": report.problems_with_variant,
        "yield_table": [list(row) for row in report.yield_table()],
        "notes": list(report.notes),
        "seconds": round(seconds, 3),
    }

    def write(folder: Path) -> None:
        write_morph_report(report, folder / VARIANTS_FILE)
        write_text_atomic(folder / SET_FILE, json.dumps(meta, indent=1) + "\n")

    sets_root().mkdir(parents=True, exist_ok=True)
    _publish(spec.folder, write)
    for note in report.notes:
        if notify is not None:
            notify(Notice("note", f"{spec.name}: {note}"))
    return True


def build_set(
    spec: BuildSpec,
    problems: Sequence[Problem],
    engine: Engine,
    out_dir: Path,
    *,
    cache: LLMCache | None,
    seed: int,
    benchmark: str,
    progress: ProgressFactory = no_progress,
    notify: Notify | None = None,
) -> VariantSet:
    """The set ``spec`` names, copied into the study: from the cache when it was built before (by any
    study, or by a dry run's probe), else built now and kept there."""
    built = ensure_set(
        spec, problems, engine, cache=cache, seed=seed, benchmark=benchmark, progress=progress, notify=notify
    )
    return _loaded(spec, out_dir, built=built)


def set_problems(spec: BuildSpec) -> list[Problem]:
    """A built set's variants, read from the cache."""
    return read_native(spec.folder / VARIANTS_FILE)


@dataclass
class AugmentedTests:
    """The originals with their augmented tests (``tests augment``), and what augmenting found."""

    key: str
    path: Path  # DIR/tests/augmented.jsonl
    problems: int
    new_tests: int
    built: bool
    seconds: float = 0.0  # wall
    cpu_seconds: float = 0.0  # every problem's own CPU seconds (what ``augment_budget_s`` bounds)


def augment_options(per_problem: int, budget_s: float, seed: int) -> Any:
    from benchmorph.testgen.augment import AugmentOptions

    return AugmentOptions(per_problem=per_problem, budget_s=budget_s, seed=seed)


def build_augmented(
    problems: Sequence[Problem],
    problems_sha: str,
    engine: Engine,
    out_dir: Path,
    *,
    per_problem: int,
    budget_s: float,
    seed: int,
    progress: ProgressFactory = no_progress,
) -> AugmentedTests:
    """More tests for the originals (type-aware mutation, reduced), once per problems and options."""
    from benchmorph.testgen.augment import augment_benchmark

    options = augment_options(per_problem, budget_s, seed)
    key = augment_key(problems_sha, options.identity())
    folder = sets_root() / key
    target = out_dir / "tests" / "augmented.jsonl"
    built = False
    if not (folder / SET_FILE).exists():
        started = time.perf_counter()
        journal = sets_root() / f"{key}.journal.jsonl"
        sets_root().mkdir(parents=True, exist_ok=True)
        results = augment_benchmark(problems, engine, options, journal=journal, progress=progress)
        seconds = time.perf_counter() - started
        augmented = [result.problem for result in results]
        meta = {
            "key": key,
            "transform": AUGMENT,
            "options": options.identity(),
            "problems": len(augmented),
            "new_tests": sum(result.kept for result in results),
            "seconds": round(seconds, 3),
            "cpu_s": round(sum(result.cpu_s for result in results), 3),
        }

        def write(staging: Path) -> None:
            write_native(staging / VARIANTS_FILE, augmented)
            write_text_atomic(staging / SET_FILE, json.dumps(meta, indent=1) + "\n")

        _publish(folder, write)
        built = True
    meta = json.loads((folder / SET_FILE).read_text(encoding="utf-8"))
    _copy_into(folder / VARIANTS_FILE, target)
    return AugmentedTests(
        key=key,
        path=target,
        problems=int(meta["problems"]),
        new_tests=int(meta["new_tests"]),
        built=built,
        seconds=float(meta.get("seconds", 0.0)),
        cpu_seconds=float(meta.get("cpu_s", 0.0)),
    )
