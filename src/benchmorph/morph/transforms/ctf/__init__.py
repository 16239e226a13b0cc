"""The ctf family: the CTF-Code pipeline, LLM-proposed counterfactuals labelled by execution.

This module is what discovery imports: the transform's name, contract and
options.  The pipeline (``ctf.py``, ``prompts.py``) loads when a run starts.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from pydantic import Field

from benchmorph.morph.common.figures import DEFAULT_EPSILON, DEFAULT_LAMBDA
from benchmorph.morph.transform import (
    MorphContext,
    MorphReport,
    Transform,
    TransformOptions,
    register_transform,
)

if TYPE_CHECKING:
    from benchmorph.data.models import Problem


class CtfOptions(TransformOptions):
    generator: str = Field(description="Generator model spec(s), comma-separated.")
    solver: str = Field(description="Solver model spec.")
    candidates: int = Field(5, ge=1, description="Proposals per generator and problem.")
    solutions: int = Field(3, ge=2, description="Solver solutions per candidate.")
    epsilon: float = Field(DEFAULT_EPSILON, ge=0.0, description="Largest D_Q kept.")
    lam: float = Field(DEFAULT_LAMBDA, ge=0.0, description="Selection: argmax D_S - lam * D_Q.")
    min_agreement: int = Field(2, ge=2, description="Solutions that must agree for Robust/CTF.")
    embedder: str = Field("local", description="Embedder spec for D_S.")
    temperature: float = Field(0.8, ge=0.0, description="Sampling temperature (both models).")
    max_tokens: int = Field(1024, ge=1)
    concurrency: int | None = Field(None, ge=1)
    timeout: float = Field(300.0, gt=0.0)
    retries: int = Field(5, ge=0)
    backoff: float = Field(1.0, ge=0.0)


@register_transform
class CtfTransform(Transform):
    """The CTF-Code pipeline: LLM-proposed counterfactual descriptions, labelled by running solver solutions.

    Contract: each candidate description moves at most epsilon (D_Q) from the
    parent's; at least ``min_agreement`` independent solutions must agree on
    the parent's inputs and differ from the parent's outputs (CTF, not Robust
    or Bad); the variant keeps the parent's inputs with outputs from the agreed
    solution (inputs it cannot run are listed as ``needs_new_tests``), passes
    ``finalize_variants``, and per problem the accepted candidate with the
    largest D_S - lam * D_Q is published.
    """

    name = "ctf"
    summary = "counterfactuals proposed by LLMs and labelled Bad/Robust/CTF by execution (CTF-Code)"
    needs_llm = True
    Options = CtfOptions

    def run(self, problems: Sequence[Problem], ctx: MorphContext) -> MorphReport:
        from benchmorph.morph.transforms.ctf.ctf import run_ctf

        return run_ctf(problems, ctx)
