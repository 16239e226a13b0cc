"""What a study will do, before it does it: the families it builds, the runs, the work, the time.

Families come from the transform registry (``morph.transform.TRANSFORMS``), never from a list here:
a family is built offline when its options, with the study's choices filled in, validate and its
``uses_llm(options)`` is False; with ``--generator`` every family whose options take a generator gets
an LLM build too.  A family that keeps its sub-types beside its options (evolve's ``TYPES`` and the
offline ``RULE_TYPES``) has them split between its offline and its LLM build.  Each build is keyed by
its content: the benchmark problems' content hashes, the transform, its validated options, the
identities of the models in them, the seed and the code that makes variants (the library's layers
below ``evaluation``), so a build is reused by every study that asks the same and never when anything
it depends on changed.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from benchmorph.data.errors import InputError
from benchmorph.data.models import Problem
from benchmorph.data.paths import cache_dir
from benchmorph.evaluation.manifest import problems_digest
from benchmorph.evaluation.study.config import StudyConfig
from benchmorph.models.spec import parse_spec
from benchmorph.morph.transform import Transform, TransformOptions, get_transform, transform_names

# The layers whose code decides what a variant set holds; a change there rebuilds the sets.
VARIANT_LAYERS = ("core", "data", "execution", "models", "testgen", "validation", "morph")
# Options that name models: their identities (what the LLM cache keys on) go into a build's key.
MODEL_FIELDS = ("generator", "solver", "judge", "embedder")
OFFLINE_GENERATOR = "rules"
AUGMENT = "tests-augment"


@cache
def code_digest() -> str:
    """One hash over the source of every module that decides what a variant set holds."""
    root = Path(__file__).resolve().parents[2]
    digest = hashlib.sha256()
    for layer in VARIANT_LAYERS:
        for path in sorted((root / layer).rglob("*.py")):
            digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def sets_root() -> Path:
    """Where built variant sets live, one folder per key: shared by every study using this cache."""
    return cache_dir() / "study" / "sets"


@dataclass
class BuildSpec:
    """One variant set to build: a transform with validated options."""

    name: str  # the set's name in the study (file stem, run folder, report family)
    transform: str
    options: dict[str, Any]
    uses_llm: bool
    key: str = ""

    @property
    def folder(self) -> Path:
        return sets_root() / self.key

    @property
    def cached(self) -> bool:
        return (self.folder / "set.json").exists()


@dataclass
class FamilyPlan:
    """A registered family and what the study does with it."""

    transform: str
    summary: str
    builds: list[BuildSpec] = field(default_factory=list)
    off: str | None = None  # why the family is not built (and how to turn it on)


def _identity(text: str) -> str:
    try:
        return parse_spec(text).identity()
    except InputError:
        return text  # several comma-separated generators (ctf): the texts themselves


def build_key(spec: BuildSpec, problems_sha: str, seed: int) -> str:
    models = {
        name: _identity(value)
        for name, value in spec.options.items()
        if name in MODEL_FIELDS and isinstance(value, str) and value != OFFLINE_GENERATOR
    }
    payload = {
        "problems": problems_sha,
        "transform": spec.transform,
        "options": spec.options,
        "models": models,
        "seed": seed,
        "code": code_digest(),
    }
    return hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()[:32]


def family_types(transform: Transform) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """(every sub-type, the ones made offline) for a family that keeps them beside its options."""
    module = sys.modules.get(type(transform).__module__)
    every, offline = getattr(module, "TYPES", None), getattr(module, "RULE_TYPES", None)
    if isinstance(every, tuple) and isinstance(offline, tuple):
        return every, offline
    return None


def _types(value: str | None) -> list[str] | None:
    return [part.strip() for part in value.split(",") if part.strip()] if value else None


def _parse(transform: Transform, values: dict[str, Any]) -> TransformOptions | str:
    try:
        return transform.parse_options(values, where=f"transform {transform.name}")
    except InputError as exc:
        return str(exc)


def plan_families(config: StudyConfig) -> list[FamilyPlan]:
    """Every registered family, with its builds (offline, LLM) or the reason it is off."""
    names = transform_names()
    wanted = config.family
    if wanted is not None:
        unknown = [name for name in wanted if name not in names]
        if unknown:
            raise InputError(f"--family: no family '{unknown[0]}' (registered: {', '.join(names)})")
    unknown_options = sorted(set(config.family_option) - set(names))
    if unknown_options:
        raise InputError(
            f"--family-option: no family '{unknown_options[0]}' (registered: {', '.join(names)})"
        )
    plans = []
    for name in names:
        transform = get_transform(name)
        plan = FamilyPlan(name, transform.summary)
        plans.append(plan)
        if wanted is not None and name not in wanted:
            plan.off = "not in --family"
            continue
        fields = transform.Options.model_fields
        common: dict[str, Any] = {}
        if "variants" in fields:
            common["variants"] = config.variants
        own = dict(config.family_option.get(name, {}))
        types = family_types(transform)
        requested = _types(config.evolve_types) if types is not None else None
        if requested is not None and types is not None:
            unknown = [kind for kind in requested if kind not in types[0]]
            if unknown:
                raise InputError(
                    f"--evolve-types: unknown type '{unknown[0]}' (known: {', '.join(types[0])})"
                )

        offline_types: list[str] = []
        values = dict(common)
        if types is not None and "type" in fields:
            default = str(fields["type"].default or "")
            offline_types = [k for k in (requested or default.split(",")) if k in types[1]]
            if offline_types:
                values["type"] = ",".join(offline_types)
        offline = _parse(transform, {**values, **own})
        if isinstance(offline, str) and own and not isinstance(_parse(transform, values), str):
            raise InputError(f"--family-option {name}: {offline.removeprefix(f'transform {name}: ')}")
        reasons = []
        if isinstance(offline, str):
            reasons.append(offline)
        elif transform.uses_llm(offline):
            reasons.append("needs an LLM: --generator SPEC")
        elif types is not None and not offline_types and "type" not in own:
            reasons.append("no offline type asked for")
        else:
            plan.builds.append(BuildSpec(name, name, offline.model_dump(mode="json"), False))

        if config.generator is not None and "generator" in fields:
            values = {**common, "generator": config.generator}
            if "solver" in fields:
                values["solver"] = config.solver or config.generator
            built_offline = offline_types if plan.builds else []
            llm_types = [k for k in (requested or list(types[0] if types else ())) if k not in built_offline]
            if types is not None and "type" in fields:
                values["type"] = ",".join(llm_types)
            llm = _parse(transform, {**values, **{k: v for k, v in own.items() if k != "generator"}})
            if types is not None and not llm_types:
                pass  # every type asked for is built offline
            elif isinstance(llm, str):
                reasons.append(llm)
            elif transform.uses_llm(llm):
                set_name = f"{name}-llm" if plan.builds else name
                plan.builds.append(BuildSpec(set_name, name, llm.model_dump(mode="json"), True))
        if not plan.builds:
            generic = "needs --generator SPEC" if "generator" in fields and config.generator is None else None
            plan.off = "; ".join(dict.fromkeys([generic] if generic else reasons)) or "nothing to build"
    return plans


@dataclass
class EstimateLine:
    what: str
    seconds: float
    source: str  # measured (an earlier study here), probe (measured now), prior, cached (nothing to do)


@dataclass
class Plan:
    """The plan of one study: what it builds and runs, how much work that is, and how long it takes."""

    benchmark: str
    problems: int
    problems_sha: str
    families: list[FamilyPlan]
    models: list[str]
    baselines: list[str]
    augment: bool
    variants_expected: dict[str, tuple[int, str]] = field(default_factory=dict)  # set -> (count, source)
    answers: dict[str, tuple[int, int]] = field(default_factory=dict)  # model -> (to ask, cached)
    generator_requests: str = "none"
    verdicts: int = 0
    estimate: list[EstimateLine] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def builds(self) -> list[BuildSpec]:
        return [build for family in self.families for build in family.builds]

    @property
    def seconds(self) -> float:
        return sum(line.seconds for line in self.estimate)

    def lines(self) -> list[str]:
        """The plan as a user reads it (what ``--dry-run`` prints)."""
        out = [f"study of {self.benchmark}: {self.problems} problems"]
        out.append("families:")
        for family in self.families:
            if family.off:
                out.append(f"  {family.transform}: off ({family.off})")
            for build in family.builds:
                count, source = self.variants_expected.get(build.name, (0, "?"))
                kind = "LLM" if build.uses_llm else "offline"
                state = "built already (the study reuses it)" if build.cached else "to build"
                shown = ", ".join(f"{k}={v}" for k, v in sorted(build.options.items()) if v is not None)
                out.append(f"  {build.name}: {kind}, {state}, {count} variants ({source}); {shown}")
        out.append(f"test augmentation: {'on' if self.augment else 'off (--augment-tests turns it on)'}")
        out.append(f"models: {', '.join(self.models)}; baselines: {', '.join(self.baselines) or 'none'}")
        for model, (todo, cached) in self.answers.items():
            out.append(f"  {model}: {todo + cached} answers, {cached} already cached")
        out.append(f"generator requests: {self.generator_requests}")
        out.append(f"executions (verdicts): about {self.verdicts}")
        out.append("estimate:")
        for line in self.estimate:
            out.append(f"  {line.what}: {line.seconds:.0f} s ({line.source})")
        out.append(f"  total: {self.seconds:.0f} s ({self.seconds / 60:.1f} min)")
        out += [f"note: {note}" for note in self.notes]
        return out


def prepare_plan(config: StudyConfig, problems: Sequence[Problem], benchmark: str) -> Plan:
    """The families and builds with their keys (no estimate yet: see ``estimate.estimate_plan``)."""
    families = plan_families(config)
    digest = problems_digest(problems)
    for family in families:
        for build in family.builds:
            build.key = build_key(build, digest, config.seed)
    return Plan(
        benchmark=benchmark,
        problems=len(problems),
        problems_sha=digest,
        families=families,
        models=list(config.model),
        baselines=list(config.baseline),
        augment=config.augment_tests,
    )


def augment_key(problems_sha: str, options: dict[str, Any]) -> str:
    payload = {"problems": problems_sha, "transform": AUGMENT, "options": options, "code": code_digest()}
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:32]
