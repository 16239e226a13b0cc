"""Recall by text: how much of a memorised prompt a new prompt still holds, and which one it is nearest.

A model that memorised a benchmark does not need the exact bytes of a prompt
to answer it from memory: it recognises a near-copy (a parameter renamed, a
sentence added, a word swapped).  The ``memorizer?recall=fuzzy`` baseline
models that, and the contamination report uses the same measure to show how
close our metamorphic variants stay to their originals.

The measure, :func:`kept_share`: the share of the original's tokens (words,
identifiers and punctuation marks, lower-cased) that the new text keeps *in
order* (the longest common subsequence of the two token sequences, over the
original's length).  It is 1.0 when the new text contains the original whole,
so a framing sentence added anywhere does not lower it, and it falls with every
word replaced, every renamed parameter and every sentence retold.  A memoriser
recalls the original with the highest share (ties: the one the new text is
most like overall, :func:`rapidfuzz.distance.Indel`), when that share reaches
the threshold.

:data:`RECALL_THRESHOLD` was chosen from HumanEval's originals alone, never
from a variant file (``bench/recall_curve.py`` prints the curve): the
threshold that best separates *near-copies* (each original with every parameter
renamed, a framing sentence added and a tenth of its description's words
replaced, :mod:`benchmorph.report.recall`) from *unrelated originals* (each
original against the nearest other original, which a memoriser must not
mistake for it), by Youden's J.  docs/metamorphic.md ("How close must a text stay") shows the curve.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from rapidfuzz.distance import Indel, LCSseq

# Chosen by bench/recall_curve.py on HumanEval (see the module docstring): near-copies recalled at
# 0.994, unrelated originals mistaken at 0.037 (HumanEval's own near-duplicates: 56/61, 40/43, 7/29).
RECALL_THRESHOLD = 0.84

_TOKEN = re.compile(r"\w+|[^\w\s]")


@lru_cache(maxsize=16384)
def tokens(text: str) -> tuple[str, ...]:
    """The text as lower-cased words and punctuation marks (whitespace and layout do not count)."""
    return tuple(_TOKEN.findall(text.lower()))


def kept_share(original: str | Sequence[str], text: str | Sequence[str]) -> float:
    """The share of ``original``'s tokens that ``text`` keeps in order (1.0: contained whole)."""
    first = tokens(original) if isinstance(original, str) else original
    second = tokens(text) if isinstance(text, str) else text
    if not first:
        return 1.0 if not second else 0.0
    return LCSseq.similarity(first, second) / len(first)


@dataclass(frozen=True)
class Recalled:
    """The memorised text nearest a prompt: its index among the memories and the share it keeps."""

    index: int
    similarity: float


class TextMemory:
    """Prompts a memoriser has seen, searchable by :func:`kept_share`."""

    def __init__(self, prompts: Sequence[str]) -> None:
        self._tokens = [tokens(prompt) for prompt in prompts]

    def __len__(self) -> int:
        return len(self._tokens)

    def nearest(self, prompt: str, exclude: int | None = None) -> Recalled | None:
        """The memory ``prompt`` keeps most of (``exclude``: an index to leave out); None if empty."""
        query = tokens(prompt)
        best: tuple[float, float, int] | None = None
        for index, memory in enumerate(self._tokens):
            if index == exclude:
                continue
            share = kept_share(memory, query)
            if best is not None and share < best[0]:
                continue
            overall = Indel.normalized_similarity(memory, query)
            if best is None or (share, overall) > best[:2]:
                best = (share, overall, index)
        return None if best is None else Recalled(best[2], best[0])

    def recall(self, prompt: str, threshold: float = RECALL_THRESHOLD) -> Recalled | None:
        """The nearest memory when ``prompt`` keeps at least ``threshold`` of it, else None."""
        found = self.nearest(prompt)
        return found if found is not None and found.similarity >= threshold else None
