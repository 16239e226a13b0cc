"""A retelling must not be its parent in other words' clothing: the gates on what of the parent's wording is left.

DyCodeEval's construct is memorisation: a model that saw the original
recognises it by its wording.  A variant that keeps most of that wording
(the original's docstring plus a scenario sentence, single-letter renames)
measures nothing a static benchmark does not.  These checks read the
variant's *residual* (``validation.residual``: renames mapped back, scenario
words removed) against the parent's docstring, worked examples included, and
record three figures on every candidate (``provenance["figures"]``), whether
or not it passes:

- ``residual_runs8``: share of the parent's 8-word runs still present;
- ``residual_bleu4``: sentence BLEU-4 (sacrebleu, 13a), variant as hypothesis;
- ``residual_difflib``: difflib's ratio over words.

Thresholds (:data:`MAX_RUNS`, :data:`MAX_BLEU`, :data:`MAX_RATIO`) were chosen
from the data, as the README's "metamorphic gates" section records: the
issue's guide for runs (a variant keeping more than a fifth of the parent's
8-word runs is not a rewrite); for BLEU-4 and difflib, the point above which
every variant a strict reviewer read was recognisable from its wording (the
old rules generator's variants sit at 0.65-0.95), with the examples of the
DyCodeEval paper's LLM rewrites (0.17 external BLEU-4) well below it.
"""

from __future__ import annotations

from benchmorph.validation.checks.base import CheckInput, Finding, quality_check

MAX_RUNS = 0.20
MAX_BLEU = 0.45
MAX_RATIO = 0.60


def _measured(item: CheckInput):  # type: ignore[no-untyped-def]
    """The residual similarity of this candidate, computed once for the three checks."""
    from benchmorph.validation.residual import residual_similarity

    key = "residual_similarity"
    if key not in item.memo:
        found = residual_similarity(item.variant, item.parent)
        item.memo[key] = found
        item.figures.update(found.figures("residual"))
    return item.memo[key]


@quality_check("residual-runs", reads={"rewording"})
def residual_runs(item: CheckInput) -> Finding | None:
    """More than :data:`MAX_RUNS` of the parent's 8-word runs kept verbatim: a memoriser still recognises it."""
    share = _measured(item).runs
    if share > MAX_RUNS:
        return Finding(
            "residual-runs",
            f"{share:.0%} of the parent's 8-word runs are kept word for word (at most {MAX_RUNS:.0%})",
        )
    return None


@quality_check("residual-bleu", reads={"rewording"})
def residual_bleu(item: CheckInput) -> Finding | None:
    """BLEU-4 against the parent's docstring (examples included) above :data:`MAX_BLEU`."""
    bleu = _measured(item).bleu
    if bleu > MAX_BLEU:
        return Finding(
            "residual-bleu", f"BLEU-4 against the parent's docstring is {bleu:.2f} (at most {MAX_BLEU:.2f})"
        )
    return None


@quality_check("residual-difflib", reads={"rewording"})
def residual_difflib(item: CheckInput) -> Finding | None:
    """difflib's word ratio against the parent's docstring above :data:`MAX_RATIO`: one alignment covers most of it."""
    ratio = _measured(item).ratio
    if ratio > MAX_RATIO:
        return Finding(
            "residual-difflib",
            f"difflib ratio against the parent's docstring is {ratio:.2f} (at most {MAX_RATIO:.2f})",
        )
    return None
