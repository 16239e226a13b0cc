"""The share of the parents' 8-word runs a new description keeps (``validation.overlap``)."""

from __future__ import annotations

import pytest

from benchmorph.data.registry import load_benchmark
from benchmorph.validation.distances import description_text
from benchmorph.validation.overlap import ngram_share, ngrams


def test_share_counts_the_references_runs_kept() -> None:
    parent = "return the number of distinct characters in the string regardless of their case"
    assert ngram_share(parent, [parent]) == 1.0
    assert (
        ngram_share("an unrelated text about sorting lists of integers by the sum of digits", [parent]) == 0.0
    )
    # Punctuation, quoting and case are not changes; a new word in the middle breaks the runs through it.
    assert ngram_share(parent.upper().replace(" ", ", "), [parent]) == 1.0
    changed = parent.replace("distinct", "repeated")
    share = ngram_share(changed, [parent])
    assert share is not None and 0.0 < share < 0.5
    # Two parents are pooled: quoting one whole keeps about half of both.
    other = "insert a number delimiter between every two consecutive elements of the input list"
    pooled = ngram_share(parent, [parent, other])
    assert pooled == pytest.approx(len(ngrams(parent)) / (len(ngrams(parent)) + len(ngrams(other))))


def test_too_short_to_say_and_bad_n() -> None:
    assert ngram_share("anything at all", ["Return median of elements."]) is None
    assert ngram_share("a b c", ["a b c"], n=2) == 1.0
    with pytest.raises(ValueError, match="at least 1"):
        ngram_share("a", ["a"], n=0)


def test_on_humaneval_descriptions() -> None:
    problems = load_benchmark("humaneval").by_id()
    text = description_text(problems["HumanEval/16"].prompt, "count_distinct_characters")
    assert ngram_share(text, [text]) == 1.0
    other = description_text(problems["HumanEval/15"].prompt, "string_sequence")
    assert ngram_share(other, [text]) == 0.0
