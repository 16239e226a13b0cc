"""K retellings of one seed must be K texts: DyPass@K over near-copies measures little beyond pass@1.

A seed's siblings are compared pairwise, each as its residual (renames
mapped back to the parent's names, its own scenario words removed: two
variants that differ only in ``p, q`` against ``q, r`` are one text), whole
docstrings with their worked examples: the measure each passed against its
parent.  A
sibling closer than :data:`MAX_BLEU` (BLEU-4, the larger of both directions)
or keeping more than :data:`MAX_RUNS` of another's 8-word runs is rejected;
the earlier sibling stays.  The figures (``sibling_bleu4``, ``sibling_runs8``:
the largest against any earlier accepted sibling) are recorded on every
candidate compared.  The thresholds match the residual gates' against the
parent (``checks.residual``): siblings must differ from each other as much as
from their parent.
"""

from __future__ import annotations

from benchmorph.validation.checks.base import CheckInput, Finding, quality_check

MAX_BLEU = 0.45
MAX_RUNS = 0.20
# Descriptions alone (examples out): above this two siblings tell one text with different examples.
MAX_DESCRIPTION_BLEU = 0.80
# ... and no phrase of more than this many words in a row shared with an earlier sibling's description,
# once synonym swaps are read back and articles set aside: the limit a retelling meets against its parent
# (``checks.residual.MAX_DESCRIPTION_RUN``), so siblings differ from each other as much as from the
# parent.  Without it, one template with a noun or a synonym swapped passed ("list entries / items /
# members are monotonically ascending or descending"; review24h found every multi-sibling seed so).
MAX_DESCRIPTION_RUN = 3


@quality_check("sibling-distinct", reads={"rewording", "siblings"})
def sibling_distinct(item: CheckInput) -> Finding | None:
    """Too close to an earlier accepted retelling of the same parent."""
    from benchmorph.validation.residual import (
        sibling_description_bleu,
        sibling_description_run,
        sibling_similarity,
    )

    if not item.siblings:
        return None
    worst_bleu, worst_runs, worst_text, closest, closest_text = 0.0, 0.0, 0.0, "", ""
    worst_run, closest_run, shared = 0, "", ""
    for sibling in item.siblings:
        run, phrase = sibling_description_run(item.variant, sibling, item.parent)
        if run > worst_run:
            worst_run, closest_run, shared = run, sibling.id, phrase
        found = sibling_similarity(item.variant, sibling, item.parent)
        if found.bleu >= worst_bleu:
            worst_bleu, closest = found.bleu, sibling.id
        worst_runs = max(worst_runs, found.runs)
        described = sibling_description_bleu(item.variant, sibling, item.parent)
        if described >= worst_text:
            worst_text, closest_text = described, sibling.id
    item.figures.update(
        {
            "sibling_bleu4": round(worst_bleu, 4),
            "sibling_runs8": round(worst_runs, 4),
            "sibling_description_bleu4": round(worst_text, 4),
            "sibling_description_run": float(worst_run),
        }
    )
    if worst_bleu > MAX_BLEU:
        return Finding(
            "sibling-distinct", f"BLEU-4 {worst_bleu:.2f} against sibling {closest} (at most {MAX_BLEU:.2f})"
        )
    if worst_text > MAX_DESCRIPTION_BLEU:
        return Finding(
            "sibling-distinct",
            f"its description has BLEU-4 {worst_text:.2f} against sibling {closest_text}'s "
            f"(at most {MAX_DESCRIPTION_BLEU:.2f}): one text with other examples",
        )
    if worst_run > MAX_DESCRIPTION_RUN:
        return Finding(
            "sibling-distinct",
            f"its description shares a phrase of {worst_run} words with sibling {closest_run}'s once "
            f"synonyms are read back (at most {MAX_DESCRIPTION_RUN}): '{shared}'",
        )
    if worst_runs > MAX_RUNS:
        return Finding(
            "sibling-distinct",
            f"keeps {worst_runs:.0%} of a sibling's 8-word runs word for word (at most {MAX_RUNS:.0%})",
        )
    return None
