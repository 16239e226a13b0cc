"""The evolve family: EvoEval's eight evolutions; subtle, combine, tool_use and decompose offline, all with a model.

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
RULE_TYPES = ("subtle", "combine", "tool_use", "decompose")


class EvolveOptions(TransformOptions):
    type: str = Field("combine,tool_use", description="EvoEval types, comma-separated: " + ", ".join(TYPES))
    generator: str = Field(
        "rules",
        min_length=1,
        description="'rules' (offline: subtle, combine, tool_use, decompose) or a model spec.",
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
        description="With a generator model: new test inputs per variant from test generation (the rules half "
        "tops up a combined problem's own inputs only where its suite falls short).",
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
    """EvoEval's evolutions; offline ``subtle``, ``combine``, ``tool_use`` and ``decompose`` (``--generator rules``).

    Contract: applies to function problems; every variant is a problem its
    parent does not already solve.  combine: ``g(f(x))`` for a single-parameter
    g whose type, observed range and stated bounds admit f's outputs; step 1
    alone and step 2 alone each fail two tests in three, every mutant either
    parent's own tests kill fails its tests, at least 5 tests and 3 distinct
    outputs (f's inputs, topped up by test generation within f's stated
    preconditions), steps reworded so that none asks to write a function or
    names a parent's function.  tool_use: the parent given as a documented
    helper and a filter or stable sort over lists of its inputs; its tests are
    its own.  decompose: each helper of the reference that agrees with a known
    behaviour becomes a subproblem tested on the arguments the parent passes it,
    the subproblems of a parent published together or not at all.  subtle: the
    counterfactual miner's variants (its checks and provenance), relabelled.
    Every variant records ``parent_overlap``.  Other types need a generator model.
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
