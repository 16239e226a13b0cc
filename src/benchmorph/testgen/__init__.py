"""Test generation: type inference, type-aware input mutation, LLM seeds, reference mutants, kills,
set-cover reduction, mutation scores and the augmentation use case.

This layer sits below ``validation`` and ``morph`` and imports neither; its
public names load lazily, so importing one module (``testgen.mutants`` is
stdlib only) does not load the sandbox engine.
"""

from typing import TYPE_CHECKING

from benchmorph.core.lazy import lazy_exports

if TYPE_CHECKING:
    from benchmorph.testgen.augment import AugmentOptions, AugmentResult, augment_benchmark, augment_problem
    from benchmorph.testgen.score import score_suites
    from benchmorph.testgen.types import Signature, TypeExpr, admits, infer_signature, infer_type, infer_types

_EXPORTS = {
    **dict.fromkeys(
        ("AugmentOptions", "AugmentResult", "augment_benchmark", "augment_problem"),
        "benchmorph.testgen.augment",
    ),
    "score_suites": "benchmorph.testgen.score",
    **dict.fromkeys(
        ("Signature", "TypeExpr", "admits", "infer_signature", "infer_type", "infer_types"),
        "benchmorph.testgen.types",
    ),
}
__getattr__ = lazy_exports(__name__, _EXPORTS)
__all__ = [
    "AugmentOptions",
    "AugmentResult",
    "Signature",
    "TypeExpr",
    "admits",
    "augment_benchmark",
    "augment_problem",
    "infer_signature",
    "infer_type",
    "infer_types",
    "score_suites",
]
