"""The metamorphic family: DyCodeEval's meaning-preserving rewrites, K per seed problem.

This module is what discovery imports: the transform's name, contract and
options.  The rules generator (``rules.py``), the LLM agents (``agents.py``,
``prompts.py``) and the publishing step (``metamorphic.py``) load when a run
starts.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from pydantic import Field

from benchmorph.morph.transform import (
    MorphContext,
    MorphReport,
    Transform,
    TransformOptions,
    register_transform,
)

if TYPE_CHECKING:
    from benchmorph.data.models import Problem

TRANSFORM = "metamorphic"
RULES = "rules"


class MetamorphicOptions(TransformOptions):
    generator: str = Field(RULES, min_length=1, description="'rules' (offline) or an LLM model spec.")
    variants: int = Field(5, ge=1, description="Variants per seed problem (K).")
    scenarios: int = Field(50, ge=1, description="LLM generator: size of the scenario pool.")
    retries: int = Field(
        3, ge=0, description="Regenerations of a variant that fails a check (rules: another retelling)."
    )
    rename_entry_point: bool = Field(
        True, description="Rules generator: rename the function (off: the variants keep the parent's name)."
    )
    judge: str | None = Field(None, description="LLM generator: judge model spec (default: the generator).")
    embedder: str | None = Field(
        None,
        description="Embedder: scenario de-duplication (LLM generator) and the variants' embedding similarity.",
    )
    concurrency: int | None = Field(None, ge=1, description="LLM generator: requests in flight.")


@register_transform
class MetamorphicTransform(Transform):
    """DyCodeEval's metamorphic rewrites: K variants per seed problem that a model must solve alike.

    Contract: applies to ``function`` problems (others are skipped with the
    reason).  A variant changes only the text a model reads (scenario,
    wording, and with the rules generator parameter names, plus the function
    name under ``--rename-entry-point``); it keeps the parent's test inputs,
    and its reference must reproduce every parent output on them
    (``finalize_variants`` with outputs kept), its prompt must parse, its
    signature keep the parent's arity and its worked examples agree with the
    reference; a retelling must pass the retelling gates (what is left of the
    parent's wording, every condition kept, distinct from its siblings).  Variants are labelled ``metamorphic`` with ids
    ``<parent>/meta-<i>``; each records its generator, scenario or template,
    seed, renames, per-seed acceptance and BLEU-4 diversity.
    """

    name = TRANSFORM
    summary = "meaning-preserving rewrites, K per problem (DyCodeEval); offline 'rules' or an LLM generator"
    Options = MetamorphicOptions

    def uses_llm(self, options: TransformOptions) -> bool:
        return isinstance(options, MetamorphicOptions) and options.generator != RULES

    def run(self, problems: Sequence[Problem], ctx: MorphContext) -> MorphReport:
        from benchmorph.morph.transforms.metamorphic.metamorphic import run_metamorphic

        return run_metamorphic(problems, ctx)
