"""Validation layer: how far a variant moved (D_Q, D_S) and whether execution backs it up."""

from benchmorph.validation.distances import description_distance, prose, solution_distance
from benchmorph.validation.testgen import AugmentOptions, AugmentResult, augment_benchmark, augment_problem
from benchmorph.validation.types import Signature, TypeExpr, admits, infer_signature, infer_type, infer_types

__all__ = [
    "AugmentOptions",
    "AugmentResult",
    "Signature",
    "TypeExpr",
    "admits",
    "augment_benchmark",
    "augment_problem",
    "description_distance",
    "infer_signature",
    "infer_type",
    "infer_types",
    "prose",
    "solution_distance",
]
