"""How much of one text survives in another: runs of words kept verbatim, and difflib's matching ratio.

An evolved or reworded problem that keeps most of its parents' 8-word runs
is recognisable from them (a model that memorised the parent meets it
again), however new its task; one that keeps none was written afresh.  BLEU
(``validation.diversity``) averages n-gram precisions up to 4 words and
forgives a lot: a rewrite that keeps every long clause of its original and
changes the words around them still scores moderately.  A memoriser recalls
a text by its long runs, so :func:`ngram_share` asks "what share of the
original's 8-word runs are still here, word for word?"; it reads as "how
much of the parents survives" and does not grow when the new text merely
gets longer.  :func:`matching_ratio` is difflib's ratio over words (how much
of both texts one alignment covers), the figure reviews of the old rewriter
quoted.

Words are lower-cased runs of letters, digits and underscores, so layout,
punctuation and quoting do not count as changes.  Feed it description text
(``data.prompt.anatomy``), not whole prompts: code and worked examples would
count as wording.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from difflib import SequenceMatcher

_WORD = re.compile(r"[A-Za-z0-9_]+")


def words(text: str) -> list[str]:
    """The text's words, lower-cased, in order, without punctuation."""
    return [word.lower() for word in _WORD.findall(text)]


def runs(tokens: Sequence[str], n: int) -> set[tuple[str, ...]]:
    """Every run of ``n`` consecutive tokens (none when there are fewer)."""
    return {tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1)}


def ngrams(text: str, n: int = 8) -> set[tuple[str, ...]]:
    """The distinct runs of ``n`` consecutive words of ``text`` (none when it has fewer words)."""
    return runs(words(text), n)


def ngram_share(text: str, reference_texts: str | Iterable[str], n: int = 8) -> float | None:
    """Share of the reference texts' distinct ``n``-word runs that ``text`` keeps (0 none, 1 all).

    ``None`` when the references hold no run of ``n`` words at all (too
    short to say).  Several references are pooled: a combined problem that
    quotes one parent whole and nothing of the other keeps about half.

    >>> ngram_share("one two three four five", ["one two three four five six"], n=3)
    0.75
    """
    if n < 1:
        raise ValueError(f"n must be at least 1, not {n}")
    texts = [reference_texts] if isinstance(reference_texts, str) else list(reference_texts)
    reference: set[tuple[str, ...]] = set()
    for other in texts:
        reference |= ngrams(other, n)
    if not reference:
        return None
    return len(reference & ngrams(text, n)) / len(reference)


def matching_ratio(a: str, b: str) -> float:
    """difflib's ratio over the two texts' words: 2 * matched words / all words (1 identical, 0 disjoint)."""
    left, right = words(a), words(b)
    if not left and not right:
        return 1.0
    return SequenceMatcher(None, left, right, autojunk=False).ratio()


def longest_run(text: str, original: str) -> int:
    """The longest run of consecutive words of ``original`` that ``text`` keeps word for word.

    A share of long runs (:func:`ngram_share`) says nothing of a one-sentence description, which holds
    few runs at all; its longest surviving phrase does: "the lateral surface area of a cylinder" kept
    whole is the original, whatever frame is put round it.

    >>> longest_run("Your code should determine the area of a cylinder.", "Find the area of a cylinder.")
    5
    """
    return len(longest_phrase(text, original))


def longest_phrase(text: str, original: str) -> list[str]:
    """The words of :func:`longest_run`'s run (for a finding to quote).

    >>> longest_phrase("Your code should determine the area of a cylinder.", "Find the area of a cylinder.")
    ['the', 'area', 'of', 'a', 'cylinder']
    """
    left, right = words(original), words(text)
    if not left or not right:
        return []
    match = SequenceMatcher(None, left, right, autojunk=False).find_longest_match(0, len(left), 0, len(right))
    return left[match.a : match.a + match.size]


def kept_in_order(text: str, original: str, ignore: Iterable[str] = ()) -> float | None:
    """Share of ``original``'s words (less ``ignore``) that ``text`` keeps in the same order (one alignment).

    A retelling that swaps a synonym for every third word keeps no long run and a low BLEU, yet it is the
    original sentence read aloud with other words ("count up the positive numbers in a list" for "count
    the number of positive numbers in a list": 6 of 8 kept in order).  ``None`` when nothing is left.

    >>> kept_in_order("Count up the positive numbers in a list", "Count the number of positive numbers in a list")
    0.7777777777777778
    """
    skip = {word.lower() for word in ignore}
    left = [word for word in words(original) if word not in skip]
    if not left:
        return None
    matcher = SequenceMatcher(None, left, words(text), autojunk=False)
    return sum(block.size for block in matcher.get_matching_blocks()) / len(left)
