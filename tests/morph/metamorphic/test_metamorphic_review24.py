"""What the second strict review of the rules retellings (40 HumanEval, 25 MBPP+) found, each on the real
problem it was found on.

- HumanEval/63 (and /46): the base cases ``fibfib(0) == 0 ... fibfib(2) == 1`` read as examples, so the
  retelling replaced them with new ones and two base cases were gone: the problem stays out;
- HumanEval/7: "contain given substring" became "that have supplied `fragment`" (a verb, to a reader):
  a bare "given" before a noun takes "the" when it is retold;
- HumanEval/108: "negative:" in a template ending in a full stop read "negative:.";
- HumanEval/33, /37, /57, /95: the parent's misspellings ("indicies") and its slip "True is list" were
  kept, the surest sign of the original's wording: corrected;
- HumanEval/98: "even indices" became "even positions", which a reader may count from one: index words
  are no longer swapped;
- Mbpp/17, /441: "given" as a preposition ("a square given its side length") became "input", and "a given
  size" "an input size".
"""

from __future__ import annotations

import re

from benchmorph.data.registry import load_benchmark
from benchmorph.morph.transforms.metamorphic import document
from benchmorph.morph.transforms.metamorphic.grammar import mask, retell
from benchmorph.morph.transforms.metamorphic.lexicon import correct_spelling, paraphrase

HUMANEVAL = load_benchmark("humaneval").by_id()


def test_base_cases_written_as_examples_keep_the_problem_out() -> None:
    for task in ("HumanEval/46", "HumanEval/63"):
        problem = HUMANEVAL[task]
        found = document.read(problem.prompt, problem.entry_point)
        assert isinstance(found, str) and "definition" in found, task
    # Examples after an examples header, even with a note after them, are examples (HumanEval/0, /29).
    for task in ("HumanEval/0", "HumanEval/29", "HumanEval/95"):
        problem = HUMANEVAL[task]
        assert not isinstance(document.read(problem.prompt, problem.entry_point), str), task


def test_a_bare_given_before_a_noun_takes_an_article_when_retold() -> None:
    for choice in range(6):
        told, _ = paraphrase(
            "Filter a list of strings only for ones that contain given substring §0§", choice
        )
        assert re.search(r"\bthe (?:supplied|provided|input) substring §0§$", told), told
        # not after an article, not after "is", not at the start
        assert "a the" not in paraphrase("For a given number n, find it", choice)[0]
        assert paraphrase("n is given.", choice)[0] == "n is given."
        assert paraphrase("Given list of numbers (of two), apply", choice)[0].startswith("Given list")


def test_a_slot_ending_in_a_colon_gets_no_full_stop() -> None:
    masked = mask("If a number is negative, then its first signed digit will be negative:")
    for choice in range(6):
        assert not masked.show(retell(masked, choice, "HumanEval/108").text).endswith(":.")


def test_the_parents_misspellings_and_its_is_for_if_slip_are_corrected() -> None:
    assert correct_spelling("the odd indicies of the sequnece") == ("the odd indices of the sequence", 2)
    assert correct_spelling("Return True is list elements are increasing")[0].startswith(
        "Return True if list"
    )
    assert correct_spelling("return False is the given dictionary is empty")[0] == (
        "return False if the given dictionary is empty"
    )
    # A name of the problem is never "corrected", nor a word codespell gives two corrections for.
    assert correct_spelling("the list lenght", frozenset({"lenght"}))[0] == "the list lenght"
    assert correct_spelling("True is the answer")[1] == 0


def test_index_words_are_not_swapped_for_positions() -> None:
    for choice in range(6):
        told, _ = paraphrase("count the uppercase vowels in even indices", choice)
        assert "indices" in told and "positions" not in told


def test_given_as_a_preposition_stays_and_no_input_size() -> None:
    """Mbpp/17 "a square given its side length" became "a square input its side length"; Mbpp/441 "a cube
    of a given size" became "a cube of an input size"."""
    for choice in range(6):
        assert (
            "given its side length"
            in paraphrase("the perimeter of a square given its side length", choice)[0]
        )
        assert "an input size" not in paraphrase("the surface area of a cube of a given size", choice)[0]
