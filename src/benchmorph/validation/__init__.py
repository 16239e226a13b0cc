"""Judging variants and originals: how far a variant moved (D_Q, D_S), its worked examples, the
registered quality checks, and whether execution backs it up.  Public names load lazily."""

from typing import TYPE_CHECKING

from benchmorph.core.lazy import lazy_exports

if TYPE_CHECKING:
    from benchmorph.validation.distances import description_distance, prose, solution_distance

_EXPORTS = dict.fromkeys(
    ("description_distance", "prose", "solution_distance"), "benchmorph.validation.distances"
)
__getattr__ = lazy_exports(__name__, _EXPORTS)
__all__ = ["description_distance", "prose", "solution_distance"]
