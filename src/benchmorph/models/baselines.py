"""Models that need no LLM: calibration points for every measurement.

``reference`` answers with the problem's own reference solution (it should
score 1.0 everywhere).  ``original`` answers a variant with its parent's
reference: a model that ignores whatever the variant changed, so its score
on variants shows how much a benchmark punishes answering the original.
"""

from __future__ import annotations

from benchmorph.data.errors import InputError
from benchmorph.data.models import Problem, Variant


def parent_reference(problem: Problem) -> str:
    """The reference of the problem a variant was made from (a variant records it in its provenance)."""
    if not isinstance(problem, Variant):
        return problem.reference
    reference = problem.provenance.get("parent_reference")
    if not isinstance(reference, str):
        raise InputError(
            f"variant {problem.id} has no provenance.parent_reference, so the 'original' baseline cannot answer it"
        )
    renamed_from = problem.provenance.get("renamed_from")
    if isinstance(renamed_from, str) and renamed_from != problem.entry_point:
        # A model that ignores the change still answers under the name the prompt asks for.
        reference = f"{reference.rstrip()}\n\n\n{problem.entry_point} = {renamed_from}\n"
    return reference


def baseline_code(name: str, problem: Problem) -> str:
    if name == "reference":
        return problem.reference
    if name == "original":
        return parent_reference(problem)
    raise ValueError(f"not a baseline: {name}")
