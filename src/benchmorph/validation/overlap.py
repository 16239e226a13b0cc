"""How much of one text survives in another: runs of words kept verbatim, and difflib's matching ratio.

BLEU (``validation.diversity``) averages n-gram precisions up to 4 words and
forgives a lot: a rewrite that keeps every long clause of its original and
changes the words around them still scores moderately.  A memoriser recalls
a text by its long runs, so the question "is this still the original's
wording?" is better asked as "what share of the original's 8-word runs are
still here, word for word?".  :func:`ngram_share` answers it for any texts;
:func:`matching_ratio` is difflib's ratio over words (how much of both texts
one alignment covers), the figure reviews of the old rewriter quoted.

Words are lowercase runs of letters, digits and underscores: punctuation,
quotes and layout do not make a text new.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from difflib import SequenceMatcher

_WORD = re.compile(r"[A-Za-z0-9_]+")


def words(text: str) -> list[str]:
    """The text's words, lowercased, in order."""
    return [word.lower() for word in _WORD.findall(text)]


def runs(tokens: Sequence[str], n: int) -> set[tuple[str, ...]]:
    """Every run of ``n`` consecutive tokens."""
    return {tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1)}


def ngram_share(text: str, references: str | Iterable[str], n: int = 8) -> float:
    """Share of the reference texts' distinct ``n``-word runs that occur in ``text`` (0 none, 1 all).

    A reference shorter than ``n`` words has no run, and references with no
    run at all give 0.0: nothing of that length could have been kept.
    """
    texts = [references] if isinstance(references, str) else list(references)
    wanted: set[tuple[str, ...]] = set()
    for reference in texts:
        wanted |= runs(words(reference), n)
    if not wanted:
        return 0.0
    return len(wanted & runs(words(text), n)) / len(wanted)


def matching_ratio(a: str, b: str) -> float:
    """difflib's ratio over the two texts' words: 2 * matched words / all words (1 identical, 0 disjoint)."""
    left, right = words(a), words(b)
    if not left and not right:
        return 1.0
    return SequenceMatcher(None, left, right, autojunk=False).ratio()
