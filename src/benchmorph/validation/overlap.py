"""How much of its parents' wording a new description keeps: the share of their word n-grams it reuses.

An evolved or reworded problem that keeps most of its parents' 8-word runs
is recognisable from them (a model that memorised the parent meets it
again), however new its task; one that keeps none was written afresh.  The
figure is the share of the parents' distinct n-grams that occur in the new
text, so it reads as "how much of the parents survives", and it does not
grow when the new text merely gets longer.

Words are lower-cased runs of letters, digits and underscores, so layout,
punctuation and quoting do not count as changes.  Feed it description text
(``validation.distances.description_text``), not whole prompts: code and
worked examples would count as wording.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_WORD = re.compile(r"[A-Za-z0-9_]+")


def words(text: str) -> list[str]:
    """The text's words, lower-cased, without punctuation."""
    return [word.lower() for word in _WORD.findall(text)]


def ngrams(text: str, n: int = 8) -> set[tuple[str, ...]]:
    """The distinct runs of ``n`` consecutive words of ``text`` (none when it has fewer words)."""
    tokens = words(text)
    return {tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1)}


def ngram_share(text: str, reference_texts: Iterable[str], n: int = 8) -> float | None:
    """Share of the reference texts' distinct ``n``-word runs that ``text`` keeps (0 none, 1 all).

    ``None`` when the references hold no run of ``n`` words at all (too
    short to say).  Several references are pooled: a combined problem that
    quotes one parent whole and nothing of the other keeps about half.

    >>> ngram_share("one two three four five", ["one two three four five six"], n=3)
    0.75
    """
    if n < 1:
        raise ValueError(f"n must be at least 1, not {n}")
    reference: set[tuple[str, ...]] = set()
    for other in reference_texts:
        reference |= ngrams(other, n)
    if not reference:
        return None
    return len(reference & ngrams(text, n)) / len(reference)
