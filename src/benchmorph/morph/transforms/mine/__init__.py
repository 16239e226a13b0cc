"""The mine family: counterfactuals from paired description/code edit rules, offline (no LLM).

This module is what discovery imports: the transform's name, contract and
options.  The work (``mine.py``, ``rules.py``; copies are found by ``validation.copies``) loads when a
run starts.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from pydantic import Field

from benchmorph.morph.common.figures import DEFAULT_EPSILON
from benchmorph.morph.transform import (
    MorphContext,
    MorphReport,
    Transform,
    TransformOptions,
    register_transform,
)

if TYPE_CHECKING:
    from benchmorph.data.models import Problem


class MineOptions(TransformOptions):
    epsilon: float = Field(DEFAULT_EPSILON, ge=0.0, description="Largest D_Q (wording change) kept.")
    all: bool = Field(False, description="Keep every valid variant, not one per problem.")


@register_transform
class MineTransform(Transform):
    """Counterfactuals without an LLM: paired description/reference edit rules, verified by execution.

    Contract: a rule applies only where its description pattern and its code
    pattern each occur exactly once; the variant keeps the parent's inputs,
    its outputs come from the edited reference, its worked examples are
    recomputed, and it passes every quality check.  One variant per problem
    (the largest behaviour change) unless ``--all``.
    """

    name = "mine"
    summary = "counterfactuals from paired description/code edit rules (offline, no LLM)"
    Options = MineOptions

    def run(self, problems: Sequence[Problem], ctx: MorphContext) -> MorphReport:
        from benchmorph.morph.transforms.mine.mine import run_mine

        return run_mine(problems, ctx)
