"""Validation layer: how far a variant moved (D_Q, D_S) and whether execution backs it up."""

from benchmorph.validation.distances import description_distance, prose, solution_distance

__all__ = ["description_distance", "prose", "solution_distance"]
