"""The residual and sibling gates read a retelling with its synonym swaps undone (review24h).

A blind strict review of the rules retellings failed 8 of 17 HumanEval retellings as recognisable: the
parent's sentence with one-for-one swaps ("If a supplied number is prime, return true" for "Return true
if a given number is prime"), no phrase of over three words kept word for word, so the 3-word limit
passed them; and it found every multi-sibling seed's siblings to be one template with a noun or a synonym
swapped ("list entries / items / members are monotonically ascending or descending").  The gates now
undo every swap the rewriter's table (``validation.synonyms.SYNONYMS``) could have made, toward the
parent's own words, and set articles aside, before they measure the longest phrase kept.
"""

from __future__ import annotations

import re

from benchmorph.data.models import Problem, Variant
from benchmorph.data.registry import load_benchmark
from benchmorph.validation.checks.base import CHECKS, CheckInput, Finding
from benchmorph.validation.checks.residual import MAX_DESCRIPTION_RUN
from benchmorph.validation.distances import description_text
from benchmorph.validation.overlap import words
from benchmorph.validation.synonyms import ARTICLES, SYNONYMS, swapped_back
from paths import MBPP_PLUS


def _told(parent: Problem, description: str, entry: str, renames: dict[str, str] | None = None) -> Variant:
    """``parent`` with its description sentence replaced (examples and signature as they were)."""
    old = description_text(parent.prompt, parent.entry_point, parent.kind)
    prompt = re.sub(rf"\b{re.escape(parent.entry_point)}\b", entry, parent.prompt.replace(old, description))
    return Variant(
        **parent.model_dump(exclude={"id", "prompt", "entry_point"}),
        id=f"{parent.id}/meta-0",
        prompt=prompt,
        entry_point=entry,
        parent_id=parent.id,
        transform="metamorphic",
        provenance={"renames": renames or {}},
    )


def _check(
    name: str, variant: Variant, parent: Problem, siblings: list[Variant] | None = None
) -> tuple[Finding | None, dict[str, float]]:
    item = CheckInput(variant=variant, parent=parent, siblings=siblings or [])
    return CHECKS[name](item), item.figures


def test_every_swap_of_the_table_is_undone_toward_the_original_and_only_toward_it() -> None:
    undone = 0
    for phrase, alternatives in SYNONYMS.items():
        original = f"please {phrase} now"
        want = [word for word in words(original) if word not in ARTICLES]
        for alternative in alternatives:
            told = swapped_back(f"please {alternative} now", original)
            assert set(told) <= set(words(original)) | set(words(alternative)), (phrase, alternative, told)
            undone += told == want
    # Nearly all come back whole; the rest are alternatives that hold a longer phrase of their own.
    assert undone >= 0.9 * sum(len(alternatives) for alternatives in SYNONYMS.values())
    # Nothing to undo where the original does not use the phrase: the text's own words stay.
    assert swapped_back("Say whether a supplied number is prime.", "Count the vowels.") == [
        "say", "whether", "supplied", "number", "is", "prime",
    ]  # fmt: skip


def test_the_parents_sentence_with_one_for_one_swaps_fails_the_description_gate() -> None:
    humaneval = load_benchmark("humaneval").by_id()
    cases = [
        # review24h's W fails: (task, description, entry point, renames)
        ("HumanEval/31", "If a supplied number is prime, return true; otherwise return false.", "check_prime",
         {"n": "amount"}),
        ("HumanEval/57", "If list entries are monotonically ascending or descending, return True.", "steady",
         {"l": "readings"}),
        ("HumanEval/29", "From a list of student names, select only the ones that begin with a provided "
         "prefix `opening`.", "select_by_opening", {"prefix": "opening"}),
    ]  # fmt: skip
    for task, description, entry, renames in cases:
        parent = humaneval[task]
        finding, figures = _check("residual-description", _told(parent, description, entry, renames), parent)
        assert figures["residual_description_run"] <= MAX_DESCRIPTION_RUN, task  # passed word for word
        assert figures["residual_description_run_swapped"] > MAX_DESCRIPTION_RUN, task
        assert finding is not None and "read back" in finding.reason, task
    # A retelling that says it its own way still passes (the question, the condition turned round).
    parent = humaneval["HumanEval/31"]
    fresh = _told(parent, "Is `amount` divisible only by one and by itself (and above one)? Then the answer is "
                  "true, else it is false.", "check_prime", {"n": "amount"})  # fmt: skip
    finding, figures = _check("residual-description", fresh, parent)
    assert finding is None and figures["residual_description_run_swapped"] <= MAX_DESCRIPTION_RUN


def test_siblings_that_share_a_phrase_once_swaps_are_undone_are_not_distinct() -> None:
    mbpp = load_benchmark("mbpp+", MBPP_PLUS).by_id()
    parent = mbpp["Mbpp/105"]
    # review24h: the two retellings kept for Mbpp/105 differ in one verb ("go through" / "look through")
    first = _told(parent, "What is wanted is a function to go through the input list and count true booleans.",
                  "tally", {"lst": "values"})  # fmt: skip
    second = _told(parent, "Your code should look through the input list and count true booleans.", "how_many",
                   {"lst": "values"})  # fmt: skip
    finding, figures = _check("sibling-distinct", second, parent, [first])
    assert figures["sibling_description_run"] > MAX_DESCRIPTION_RUN
    assert finding is not None  # (here the parent's shared examples fail it first, by BLEU-4)
    assert figures["sibling_description_run"] == 7  # "through input list and count true booleans"
    # "a supplied number" and "a provided number" are one phrase: a swap between siblings is undone too
    humaneval = load_benchmark("humaneval").by_id()
    prime = humaneval["HumanEval/31"]
    one = _told(prime, "Say whether a supplied number is prime: true if so, false otherwise.", "is_prime_a")
    other = _told(prime, "When a provided number is prime the answer is true; in all other cases false.",
                  "is_prime_b")  # fmt: skip
    finding, figures = _check("sibling-distinct", other, prime, [one])
    assert figures["sibling_description_run"] == 4 and finding is not None  # "given number is prime"
    # siblings told differently pass
    apart = _told(prime, "Is the value handed in divisible by nothing but one and itself? Answer true or false.",
                  "is_prime_c")  # fmt: skip
    finding, figures = _check("sibling-distinct", apart, prime, [one])
    assert figures["sibling_description_run"] <= MAX_DESCRIPTION_RUN
