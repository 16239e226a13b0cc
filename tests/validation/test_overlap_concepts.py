"""Overlap measures (runs of words kept, difflib's ratio) and meaning atoms (concepts, numbers, conditions)."""

from __future__ import annotations

import pytest

from benchmorph.validation.concepts import atoms, concepts, conditions, counterpart, numbers, statements
from benchmorph.validation.overlap import matching_ratio, ngram_share, words


def test_ngram_share_is_the_share_of_the_references_runs_kept_verbatim() -> None:
    original = "return the first one in case of multiple strings of the same length"
    assert ngram_share(original, original, 8) == 1.0
    assert ngram_share("give back the earliest of several equally long strings", original, 8) == 0.0
    kept = "when several strings share a length, return the first one in case of multiple strings"
    # The original has 6 runs of 8 words; the text keeps "return the first one in case of multiple strings".
    assert ngram_share(kept, original, 8) == pytest.approx(2 / 6)
    assert ngram_share("anything", "too short", 8) is None  # no run of 8 words to keep
    # Runs of all references together: 6 of the 6 + 2 runs are kept.
    assert (
        ngram_share(original, [original, "another reference text with its own eight words here"], 8) == 0.75
    )
    assert words("Return `x`, isn't it?") == ["return", "x", "isn", "t", "it"]


def test_matching_ratio_is_difflibs_over_words() -> None:
    assert matching_ratio("a b c d", "a b c d") == 1.0
    assert matching_ratio("a b c d", "w x y z") == 0.0
    assert matching_ratio("a b c d", "a b x y") == pytest.approx(0.5)


def test_concepts_read_each_class_once_and_longest_forms_first() -> None:
    found = concepts("Return the biggest item; at least two, no fewer than 3, in lower case, each other.")
    assert found["max"] == 1 and found["at-least"] == 2 and found["lower"] == 1
    assert "min" not in found and "less" not in found and "each" not in found  # "at least", "each other"
    assert concepts("don't use 'not' or None")["not"] == 1  # the quoted 'not' is data
    assert concepts("check whether it is sorted or not.").get("not") is None  # "whether ... or not"
    assert numbers("two lists of 2 numbers, -1 and 3.5") == {"2": 2, "-1": 1, "3.5": 1}
    assert atoms("Return 'Yes' if n <= 5", ["n"]) == {"l:Yes": 1, "o:<=": 1, "n:5": 1, "v:n": 1}
    assert "l:delimeter" not in atoms("Insert 'delimeter' between", ["delimeter"])  # a quoted name is a name


def test_statements_and_the_conditions_among_them() -> None:
    prose = (
        "Return the largest prime factor of n. Assume n > 1 and is not a prime.\n"
        "Note:\n    1. The length of the array will be in the range of [1, 1000].\n"
        "Separate groups are balanced\nIgnore any spaces"
    )
    found = statements(prose)
    assert found[:2] == ["Return the largest prime factor of n.", "Assume n > 1 and is not a prime."]
    assert "Ignore any spaces" in found and "Separate groups are balanced" in found
    assert "Assume n > 1 and is not a prime." in conditions(prose)
    assert "Return the largest prime factor of n." not in conditions(prose)


def test_a_conditions_counterpart_holds_all_its_atoms_in_one_or_two_adjacent_sentences() -> None:
    condition = "Return None in case the input list is empty."
    told = ["Give back the longest string.", "If the list holds nothing, the result is None: it is empty."]
    assert counterpart(condition, told).found == (told[1],)
    lost = counterpart(condition, ["Give back the longest string.", "The result is None."])
    assert not lost.found and lost.missing == ("c:empty",)
    split = ["When the list is empty,", "produce None."]
    assert counterpart(condition, split).found == tuple(split)
