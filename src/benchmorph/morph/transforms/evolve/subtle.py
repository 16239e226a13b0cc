"""Offline ``subtle``: the counterfactual miner's variants, published under the evolve family's name.

EvoEval's subtle type is a small change of the description that changes the
behaviour, which is what the miner's paired description/code edit rules make.
The miner runs through the transform registry (families do not import each
other), with its own checks and provenance; its candidates are relabelled
(``transform`` evolve, ``label`` subtle, ids ``.../evolve-subtle-N``) and keep
everything else, so a subtle variant is exactly the mined counterfactual, held
to the suite size every evolved problem needs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from benchmorph.data.models import Problem, Variant
from benchmorph.morph.finalize import decided
from benchmorph.morph.transform import ACCEPTED, REJECTED, MorphContext, MorphReport, run_transform
from benchmorph.validation.checks.base import CheckInput
from benchmorph.validation.checks.suite import thin_suite

MINER = "mine"


def relabelled(candidate: Variant) -> Variant:
    """A mined candidate as an evolve/subtle one: new id, transform and label; the rest kept."""
    number = candidate.id.rsplit("-", 1)[-1]
    provenance = {
        **candidate.provenance,
        "evolve_type": "subtle",
        "generator": "rules",
        "parents": [candidate.parent_id],
        "made_by": MINER,
        "mined_id": candidate.id,
    }
    return candidate.model_copy(
        update={
            "id": f"{candidate.parent_id}/evolve-subtle-{number}",
            "transform": "evolve",
            "label": "subtle",
            "provenance": provenance,
        }
    )


def propose_subtle(problems: Sequence[Problem], ctx: MorphContext) -> MorphReport:
    """The miner's report on ``problems``, every candidate relabelled (accepted ones are the variants).

    An accepted counterfactual keeps its parent's inputs; where those are too
    few to judge a solution (HumanEval/35 has two), the evolve family's suite
    check (``thin-suite``) rejects it, as it would any evolved problem.
    """
    mined = run_transform(MINER, problems, replace(ctx), {})
    candidates = []
    for candidate in (relabelled(c) for c in mined.candidates):
        if candidate.provenance.get("status") == ACCEPTED:
            finding = thin_suite(CheckInput(variant=candidate, parent=candidate))
            if finding is not None:
                candidate = decided(candidate, REJECTED, finding.check, finding.reason)
            else:
                runs = [*candidate.provenance.get("checks_run", []), "thin-suite"]
                candidate = candidate.model_copy(
                    update={"provenance": {**candidate.provenance, "checks_run": runs}}
                )
        candidates.append(candidate)
    return MorphReport(
        "evolve",
        [c for c in candidates if c.provenance.get("status") == ACCEPTED],
        candidates,
        parents=mined.parents,
        notes=[f"subtle (by the {MINER} transform's rules): {note}" for note in mined.notes],
    )
