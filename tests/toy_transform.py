"""A transform defined outside benchmorph, to show that adding one is one new module.

``scale`` multiplies a numeric answer: "Return the sum" becomes "Return FACTOR times the sum".
It proposes; ``finalize_variants`` does the rest, exactly as for the built-in transforms.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pydantic import Field

from benchmorph.data.models import Problem, TestCase, Variant
from benchmorph.morph.finalize import Draft, finalize_variants
from benchmorph.morph.transform import (
    MorphContext,
    MorphReport,
    Transform,
    TransformOptions,
    register_transform,
)


class ScaleOptions(TransformOptions):
    factor: int = Field(2, ge=2, description="What the answer is multiplied by.")


@register_transform
class ScaleTransform(Transform):
    """Problems whose description says "Return the X" get "Return FACTOR times the X"; outputs scale."""

    name = "toy-scale"
    summary = "test-only: multiplies a numeric answer"
    Options = ScaleOptions

    def run(self, problems: Sequence[Problem], ctx: MorphContext) -> MorphReport:
        assert isinstance(ctx.options, ScaleOptions)
        factor = ctx.options.factor
        parents = ctx.engine.prepare(problems).problems
        drafts = []
        for parent in parents:
            if not re.search(r"Return the ", parent.prompt):
                continue
            body = re.search(r"\n(\s+)return (.+)\n", parent.reference)
            if body is None:
                continue
            reference = parent.reference.replace(
                body.group(0), f"\n{body.group(1)}return {factor} * ({body.group(2)})\n"
            )
            variant = Variant(
                **parent.model_dump(exclude={"id", "prompt", "reference", "tests"}),
                id=f"{parent.id}/scale",
                prompt=parent.prompt.replace("Return the ", f"Return {factor} times the ", 1),
                reference=reference,
                tests=[TestCase(input=test.input) for test in parent.tests],
                parent_id=parent.id,
                transform=self.name,
                label="scaled",
            )
            drafts.append(Draft(variant=variant, parent=parent))
        finalized = finalize_variants(drafts, ctx.engine)
        return MorphReport(self.name, finalized.variants, finalized.candidates, parents=len(parents))
