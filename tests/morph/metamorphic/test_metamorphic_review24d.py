"""What the blind strict review of the rules retellings (review24d: 20 HumanEval, 20 MBPP+) found, each on
the problem or sentence it was found on.

- test_palindrome, test_happy, test_monotonic (11 rows): an entry point named ``test*`` is collected by
  pytest and reads as a unit test;
- "Is the string a palindrome? The function decides.": a tacked-on sentence;
- "the sum of its all divisors" (Mbpp/295), "the greatest's sum and least value" (Mbpp/476, /559): "its"
  and the possessive only own a plain noun phrase;
- "consecutive numbers" -> "neighbouring numbers" (Mbpp/472), "whitespaces" -> "whitespace characters"
  (Mbpp/800): swaps that change what is asked;
- Mbpp/400: the parent's only example (a reversed pair) was dropped from the retelling's examples.
"""

from __future__ import annotations

import re

import pytest

from benchmorph.data.models import Problem
from benchmorph.data.registry import load_benchmark, select_problems
from benchmorph.execution import Engine
from benchmorph.morph.transforms.metamorphic.grammar import SHAPES, mask, possessive, retell
from benchmorph.morph.transforms.metamorphic.lexicon import paraphrase
from benchmorph.morph.transforms.metamorphic.restate import front_container
from benchmorph.morph.transforms.metamorphic.rules import propose_variants
from paths import MBPP_PLUS as MBPP

HUMANEVAL_IDS = ["HumanEval/48", "HumanEval/80"]
MBPP_IDS = ["Mbpp/68", "Mbpp/472", "Mbpp/400", "Mbpp/600", "Mbpp/56"]


@pytest.fixture(scope="module")
def prepared(engine: Engine) -> dict[str, Problem]:
    humaneval = load_benchmark("humaneval").by_id()
    mbpp = select_problems(load_benchmark("mbpp+", MBPP).problems, tasks=",".join(MBPP_IDS))
    problems = [humaneval[i] for i in HUMANEVAL_IDS] + list(mbpp)
    return {p.id: p for p in engine.prepare(problems).problems}


def test_no_entry_point_starts_with_test(prepared: dict[str, Problem]) -> None:
    seen = 0
    for problem in prepared.values():
        for seed in range(3):
            for variant in propose_variants(problem, 5, seed=seed).variants:
                seen += 1
                assert not variant.entry_point.startswith("test"), (problem.id, variant.entry_point)
    assert seen > 10


def test_a_question_gets_no_tacked_on_sentence() -> None:
    # No template adds a sentence after the question (HumanEval/48, /80: "...? The function decides.").
    for shape in SHAPES:
        for template in shape.templates:
            assert not re.search(r"\?\s+The function\b", template), (shape.name, template)
    masked = mask("Checks if given string is a palindrome")
    for choice in range(14):
        told = masked.show(retell(masked, choice, "HumanEval/48").text)
        assert "decides" not in told, told


def test_its_and_the_possessive_own_only_a_plain_noun_phrase() -> None:
    for choice in range(4):
        told = front_container("return the sum of all divisors of a number.", choice, str)
        assert told is None or "its all" not in told, told
        # a plain one still turns round
        assert front_container("get the volume of a sphere.", choice, str) in (
            "take a sphere and get its volume.",
            "get a sphere's volume.",
        )
    assert possessive("find the sum of the largest and smallest value in a given array.") == (
        "find the sum of the largest and smallest value in a given array."
    )
    assert "'s" not in possessive("find the sum of the largest contiguous sublist in the given list.")
    assert possessive("find the volume of a sphere.") == "find a sphere's volume."
    for choice in range(6):
        for sentence, salt in (
            ("Write a function to return the sum of all divisors of a number.", "Mbpp/295"),
            ("Write a python function to find the sum of the largest and smallest value in a given array.", "Mbpp/476"),
            ("Write a function to find the sum of the largest contiguous sublist in the given list.", "Mbpp/559"),
        ):  # fmt: skip
            masked = mask(sentence)
            told = masked.show(retell(masked, choice, salt).text)
            assert "its all" not in told and "'s sum" not in told, told


def test_swaps_that_change_the_meaning_are_gone() -> None:
    for choice in range(6):
        told, _ = paraphrase("check whether the given list contains consecutive numbers or not", choice)
        assert "consecutive numbers" in told, told
        told, _ = paraphrase("remove all whitespaces from a string", choice)
        assert "whitespace characters" not in told and "whitespaces" in told, told
        told, _ = paraphrase("every 3 consecutive letters are distinct", choice)
        assert "neighbouring" not in told, told
        told, _ = paraphrase("count the characters of a string", choice)
        assert "symbol" not in told, told


def test_the_parents_only_example_stays_among_the_examples(prepared: dict[str, Problem]) -> None:
    """Mbpp/400 shows one example, [(3, 4), (1, 2), (4, 3), (5, 6)] -> 4: the only one where a reversed
    pair counts apart, the reading the tests hold."""
    parent = prepared["Mbpp/400"]
    variants = propose_variants(parent, 2).variants
    assert variants
    for variant in variants:
        assert "(3, 4), (1, 2), (4, 3), (5, 6)" in variant.prompt, variant.prompt
