"""The evolve family: EvoEval's eight evolutions; combine and tool_use offline, all with a model.

This module is what discovery imports: the transform's name, contract and
options.  The rules half (``rules.py``), the LLM half (``llm.py``,
``prompts.py``) and the run (``evolve.py``) load when a run starts.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from pydantic import Field, field_validator

from benchmorph.morph.transform import (
    MorphContext,
    MorphReport,
    Transform,
    TransformOptions,
    register_transform,
)

if TYPE_CHECKING:
    from benchmorph.data.models import Problem

TRANSFORM = "evolve"
TYPES = ("difficult", "creative", "subtle", "combine", "tool_use", "verbose", "concise", "decompose")
RULE_TYPES = ("combine", "tool_use")


class EvolveOptions(TransformOptions):
    type: str = Field("combine,tool_use", description="EvoEval types, comma-separated: " + ", ".join(TYPES))
    generator: str = Field(
        "rules", min_length=1, description="'rules' (offline: combine, tool_use) or a model spec."
    )
    solver: str | None = Field(
        None, description="Model spec writing M solutions for self-consistency (LLM types)."
    )
    judge: str | None = Field(
        None, description="Model spec judging verbose/concise rewordings (default: the generator)."
    )
    solutions: int = Field(3, ge=2, description="Solutions per candidate (M).")
    rounds: int = Field(3, ge=0, description="Refinement rounds (R) after the first answer.")
    temperature: float = Field(0.8, ge=0.0, description="Sampling temperature of the generator and solver.")
    max_tokens: int = Field(1536, ge=16, description="Most tokens per generator answer.")
    concurrency: int | None = Field(None, ge=1, description="Requests in flight per model.")
    tests: int = Field(
        20,
        ge=0,
        description="With a generator model: new test inputs per variant from test generation (the rules half keeps f's own inputs).",
    )

    @field_validator("type")
    @classmethod
    def _known(cls, value: str) -> str:
        names = [part.strip() for part in value.split(",") if part.strip()]
        unknown = [name for name in names if name not in TYPES]
        if unknown or not names:
            raise ValueError(f"unknown type {unknown[0] if unknown else value!r}; known: {', '.join(TYPES)}")
        return ",".join(dict.fromkeys(names))

    @property
    def types(self) -> list[str]:
        return self.type.split(",")


@register_transform
class EvolveTransform(Transform):
    """EvoEval's evolutions; offline ``combine`` and ``tool_use`` (``--generator rules``).

    Contract: applies to function problems.  combine: a variant per seed f
    whose outputs fit a single-parameter g (type and observed range), its
    reference ``g(f(x))``, tests from f's inputs grown by test generation,
    outputs changed from f's, worked examples computed by the composed
    reference.  tool_use: a documented helper moved into the prompt, the
    parent's reference and tests kept, outputs identical; or f given as a
    helper of a combined problem.  Other types need a generator model.
    """

    name = TRANSFORM
    summary = (
        "EvoEval evolutions: combine and tool_use offline (--generator rules); all eight types with "
        "--generator SPEC --solver SPEC (self-consistency refinement)"
    )
    Options = EvolveOptions

    def uses_llm(self, options: TransformOptions) -> bool:
        return isinstance(options, EvolveOptions) and options.generator != "rules"

    def run(self, problems: Sequence[Problem], ctx: MorphContext) -> MorphReport:
        from benchmorph.morph.transforms.evolve.evolve import run_evolve

        return run_evolve(problems, ctx)
