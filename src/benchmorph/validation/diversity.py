"""How far rewrites moved from their original, and from each other: BLEU-4 as DyCodeEval measures it.

A metamorphic benchmark only resists memorisation if its texts differ from the
originals (external diversity) and from each other (internal diversity).  The
paper reports BLEU-4; so do we, with ``sacrebleu``'s sentence BLEU and its
``13a`` tokenizer (the WMT standard: punctuation split off words, case kept),
stated here because BLEU numbers are only comparable under one tokenizer.
Scores are reported on a 0-1 scale (sacrebleu's 0-100 divided by 100), as the
paper prints them.

What is compared is the *description*: the docstring prose without the
signature, code and worked examples (``description_text``).  The examples of
a meaning-preserving variant are its parent's, and counting them would make
every variant look like a copy.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from statistics import fmean

import numpy as np
import sacrebleu

from benchmorph.data.models import Problem, Variant
from benchmorph.validation.distances import description_text

TOKENIZER = "13a"
# DyCodeEval's own figures (ICML 2025): external BLEU-4 of its LLM rewrites against the originals.
PAPER_EXTERNAL = {"HumanEval": 0.17, "MBPP": 0.02}


def bleu4(hypothesis: str, reference: str) -> float:
    """Sentence BLEU-4 of ``hypothesis`` against one ``reference``, 0 (nothing shared) to 1 (identical)."""
    return float(sacrebleu.sentence_bleu(hypothesis, [reference], tokenize=TOKENIZER).score) / 100.0


def description(problem: Problem) -> str:
    """The words BLEU compares: the description without code or worked examples."""
    return description_text(problem.prompt, problem.entry_point, problem.kind)


def internal_bleu(texts: Sequence[str]) -> list[float]:
    """Per text: the mean BLEU-4 of it against each other text (BLEU is not symmetric); 0 with no other."""
    scores = []
    for i, text in enumerate(texts):
        others = [bleu4(text, other) for j, other in enumerate(texts) if j != i]
        scores.append(fmean(others) if others else 0.0)
    return scores


@dataclass
class Diversity:
    """External and internal BLEU-4 per variant id, and their means."""

    external: dict[str, float] = field(default_factory=dict)
    internal: dict[str, float] = field(default_factory=dict)
    tokenizer: str = TOKENIZER

    @property
    def external_mean(self) -> float | None:
        return fmean(self.external.values()) if self.external else None

    @property
    def internal_mean(self) -> float | None:
        return fmean(self.internal.values()) if self.internal else None

    def summary(self) -> str:
        """One line for the morph report."""
        if not self.external:
            return "diversity: no variants to measure"
        internal = f"{self.internal_mean:.3f}" if self.internal else "-"
        paper = ", ".join(f"{name} {value:.2f}" for name, value in PAPER_EXTERNAL.items())
        return (
            f"diversity (BLEU-4 of the descriptions, sacrebleu tokenizer '{self.tokenizer}'): "
            f"external (variant vs original) {self.external_mean:.3f}, "
            f"internal (between variants of one problem) {internal}; DyCodeEval reports external {paper}"
        )


def measure(variants: Sequence[Variant], parents: Mapping[str, Problem]) -> Diversity:
    """External BLEU-4 of each variant against its parent, internal BLEU-4 among variants of one parent
    (only where a parent has two or more)."""
    found = Diversity()
    by_parent: dict[str, list[Variant]] = defaultdict(list)
    for variant in variants:
        parent = parents.get(variant.parent_id)
        if parent is None:
            continue
        found.external[variant.id] = round(bleu4(description(variant), description(parent)), 4)
        by_parent[variant.parent_id].append(variant)
    for siblings in by_parent.values():
        if len(siblings) < 2:
            continue
        scores = internal_bleu([description(variant) for variant in siblings])
        for variant, score in zip(siblings, scores, strict=True):
            found.internal[variant.id] = round(score, 4)
    return found


def with_diversity(variants: Sequence[Variant], diversity: Diversity) -> list[Variant]:
    """The variants with ``bleu_external`` / ``bleu_internal`` / ``bleu_tokenizer`` in their provenance."""
    out = []
    for variant in variants:
        provenance = dict(variant.provenance)
        if variant.id in diversity.external:
            provenance["bleu_external"] = diversity.external[variant.id]
            provenance["bleu_tokenizer"] = diversity.tokenizer
        if variant.id in diversity.internal:
            provenance["bleu_internal"] = diversity.internal[variant.id]
        out.append(variant.model_copy(update={"provenance": provenance}))
    return out


def collision_probability(pool: int, k: int) -> float:
    """The chance that two independently drawn K-variant sets of one seed share a scenario.

    Each set is ``k`` distinct draws from ``pool`` scenarios (templates for
    the rules generator), as DyCodeEval argues: the larger the pool against
    K, the less a leaked set of variants says about a fresh one.
    1 - C(pool - k, k) / C(pool, k); 1 when 2k exceeds the pool.
    """
    if k <= 0 or pool <= 0:
        return 0.0
    if 2 * k > pool:
        return 1.0
    return 1.0 - math.comb(pool - k, k) / math.comb(pool, k)


def embedding_similarity(
    variants: Sequence[Variant], parents: Mapping[str, Problem], vectors: Callable[[list[str]], np.ndarray]
) -> dict[str, float]:
    """Per variant: the cosine similarity of its description's embedding with its parent's (``vectors`` embeds)."""
    pairs = [(variant, parents[variant.parent_id]) for variant in variants if variant.parent_id in parents]
    if not pairs:
        return {}
    texts = [text for variant, parent in pairs for text in (description(variant), description(parent))]
    matrix = np.asarray(vectors(texts), dtype=np.float64)
    found = {}
    for index, (variant, _) in enumerate(pairs):
        a, b = matrix[2 * index], matrix[2 * index + 1]
        norm = float(np.linalg.norm(a) * np.linalg.norm(b))
        found[variant.id] = round(float(np.dot(a, b)) / norm, 4) if norm else 0.0
    return found
