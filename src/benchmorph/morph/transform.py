"""One interface for every way of making variants: a registered ``Transform`` with a documented contract.

A transform turns problems into variants and says what happened to every
candidate it considered.  Transforms differ in how they propose (paired edit
rules, LLM rewrites, evolutions), never in how a proposal becomes a variant:
that is ``finalize_variants`` (``benchmorph.morph.finalize``), which every
transform ends with.  Adding a transform is one new module in this package
(or any module that is imported, e.g. through the ``benchmorph.transforms``
entry point group) holding a subclass decorated with ``@register_transform``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from benchmorph.core.progress import ProgressFactory, no_progress
from benchmorph.core.registry import Registry
from benchmorph.data.errors import InputError

if TYPE_CHECKING:
    from benchmorph.data.models import Problem, Variant
    from benchmorph.execution.engine import Engine
    from benchmorph.models import GenerationParams, LLMCache

# What a candidate's provenance["status"] may say.
ACCEPTED = "accepted"
REJECTED = "rejected"
NEEDS_REVIEW = "needs_review"


class TransformOptions(BaseModel):
    """Base of a transform's own options; unknown names are an error, not silently ignored."""

    model_config = ConfigDict(extra="forbid")


def _default_params() -> GenerationParams:
    from benchmorph.models.params import GenerationParams

    return GenerationParams()


@dataclass
class MorphContext:
    """What a transform may use: the sandbox, the LLM cache, sampling parameters, progress and a seed.

    ``audit``: ``on`` (``run_transform`` audits the parents first, and a
    variant that inherits a parent's wrong or ambiguous finding is fixed or
    rejected: ``morph.parents``) or ``off``.
    """

    engine: Engine
    cache: LLMCache | None = None
    params: GenerationParams = field(default_factory=lambda: _default_params())
    progress: ProgressFactory = no_progress
    seed: int = 0
    options: TransformOptions = field(default_factory=TransformOptions)
    audit: Literal["on", "off"] = "on"


@dataclass
class MorphReport:
    """A transform's outcome: the variants to publish and every candidate with its status and reason.

    ``candidates`` holds every candidate considered, accepted or not, as a
    variant whose provenance carries ``status`` (accepted / rejected /
    needs_review), the ``check`` that decided it and a one-line ``reason``;
    that is what ``V.candidates.jsonl`` holds and what reviewers read.
    """

    transform: str
    variants: list[Variant]
    candidates: list[Variant]
    parents: int = 0
    notes: list[str] = field(default_factory=list)

    def yield_table(self) -> list[tuple[str, str, int]]:
        """(status, check, count) rows: how many candidates each check decided, accepted first."""
        counts = Counter(
            (str(c.provenance.get("status", "?")), str(c.provenance.get("check") or "-"))
            for c in self.candidates
        )
        order = {ACCEPTED: 0, NEEDS_REVIEW: 1, REJECTED: 2}
        return [
            (status, check, count)
            for (status, check), count in sorted(
                counts.items(), key=lambda item: (order.get(item[0][0], 3), item)
            )
        ]

    @property
    def problems_with_variant(self) -> int:
        return len({variant.parent_id for variant in self.variants})


class Transform(ABC):
    """A way of making variants.  Subclasses state their contract in their docstring.

    ``name`` is what ``benchmorph morph run NAME`` takes, ``Options`` the
    transform's own options (a pydantic model: its fields become
    ``--field-name`` command-line options), and ``run`` must end in
    ``finalize_variants`` so that every variant gets the same checks.
    """

    name: ClassVar[str]
    summary: ClassVar[str] = ""
    needs_llm: ClassVar[bool] = False
    Options: ClassVar[type[TransformOptions]] = TransformOptions

    @abstractmethod
    def run(self, problems: Sequence[Problem], ctx: MorphContext) -> MorphReport:
        """Variants of ``problems``; ``ctx.options`` is an instance of ``self.Options``."""

    def uses_llm(self, options: TransformOptions) -> bool:
        """Whether a run with these options needs ``ctx.cache`` (an LLM); ``needs_llm`` unless a
        transform's options choose (``metamorphic --generator rules`` needs none)."""
        return self.needs_llm

    def parse_options(self, values: dict[str, Any], where: str = "options") -> TransformOptions:
        """Validate user-given options; a bad one is an InputError naming it."""
        try:
            return self.Options(**values)
        except ValidationError as exc:
            error = exc.errors()[0]
            name = "-".join(str(part) for part in error["loc"]).replace("_", "-") or "?"
            raise InputError(f"{where}: --{name}: {error['msg']}") from None


TRANSFORMS: Registry[type[Transform]] = Registry(
    "transform",
    packages=("benchmorph.morph.transforms",),
    group="benchmorph.transforms",
    env="BENCHMORPH_TRANSFORMS",
    unknown=InputError,
)


def register_transform(cls: type[Transform]) -> type[Transform]:
    """Class decorator: make a transform available by its ``name``."""
    name = getattr(cls, "name", None)
    if not isinstance(name, str) or not name:
        raise TypeError(f"{cls.__name__} needs a non-empty class attribute 'name'")
    TRANSFORMS.add(name, cls)
    return cls


def discover() -> None:
    """Import every family package under ``benchmorph.morph.transforms`` (only its ``__init__``: the
    contract and options; a family's work loads when it runs), every ``benchmorph.transforms`` entry
    point, and the modules named in ``$BENCHMORPH_TRANSFORMS`` (comma-separated), once."""
    TRANSFORMS.discover()


def transform_names() -> list[str]:
    return sorted(TRANSFORMS.names())


def get_transform(name: str) -> Transform:
    """An instance of the transform registered as ``name``; an InputError lists the known ones."""
    return TRANSFORMS.get(name)()


def run_transform(
    name: str, problems: Sequence[Problem], ctx: MorphContext, options: dict[str, Any] | None = None
) -> MorphReport:
    """Look up ``name``, validate ``options`` against it, and run it: the use case behind ``morph run``.

    With ``ctx.audit == "on"`` the parents are audited first and no variant
    keeps a slip it inherits from its parent (``morph.parents``).
    """
    transform = get_transform(name)
    ctx.options = transform.parse_options(options or {}, where=f"transform {name}")
    if ctx.audit == "off":
        return transform.run(problems, ctx)
    from benchmorph.morph.parents import apply_parent_audit, audit_parents

    audit = audit_parents(problems, ctx.engine, ctx.progress)
    return apply_parent_audit(transform.run(problems, ctx), audit, ctx.engine)


def write_morph_report(report: MorphReport, out: str | Path) -> tuple[Path, Path]:
    """``out`` gets the variants; ``<out stem>.candidates.jsonl`` beside it every candidate with its reason."""
    from benchmorph.data.formats.native import write_native

    out = Path(out)
    candidates = out.with_name(out.stem + ".candidates.jsonl")
    write_native(out, report.variants)
    write_native(candidates, report.candidates)
    return out, candidates
