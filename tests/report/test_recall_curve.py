"""The fuzzy memoriser's threshold comes from the originals: near-copies made from them are recalled,
unrelated originals are not, and the stated threshold is the one Youden's J picks on HumanEval."""

from __future__ import annotations

import pytest

from benchmorph.data.registry import load_benchmark
from benchmorph.models.recall import RECALL_THRESHOLD, kept_share
from benchmorph.report.recall import KINDS, LIGHT, choose_threshold, near_copies, recall_curve, vocabulary_of


def test_near_copies_are_deterministic_edits_of_the_original() -> None:
    problems = load_benchmark("humaneval").problems[:5]
    vocabulary = vocabulary_of(problems)
    first = near_copies(problems[0], vocabulary)
    assert first == near_copies(problems[0], vocabulary) and list(first) == list(KINDS)
    assert all(text != problems[0].prompt for text in first.values())
    assert "numbers" not in first["renamed"] and "threshold" not in first["renamed"].split("(")[1]
    assert kept_share(problems[0].prompt, first["framed"]) == 1.0  # an added sentence keeps it all
    shares = [kept_share(problems[0].prompt, first[f"reworded {n}%"]) for n in (10, 20, 30, 50, 70)]
    assert shares == sorted(shares, reverse=True)  # more words replaced, less kept


def test_the_threshold_is_the_best_separation_and_the_middle_of_a_tie() -> None:
    grid = [round(0.5 + i / 100, 2) for i in range(51)]
    assert choose_threshold([0.95, 0.9, 0.92], [0.6, 0.7, 0.75], grid) == 0.83  # J = 1 from 0.76 to 0.90
    assert (
        choose_threshold([0.9, 0.6], [0.7, 0.5], grid) == 0.76
    )  # J = 0.5 at 0.51-0.60 and 0.71-0.90: the 16th of 30


@pytest.mark.slow
def test_the_stated_threshold_is_youdens_pick_on_humaneval() -> None:
    curve = recall_curve("humaneval", load_benchmark("humaneval").problems)
    assert curve.best == RECALL_THRESHOLD == curve.chosen
    at = curve.at(RECALL_THRESHOLD)
    assert at[LIGHT] >= 0.99 and at["framed"] == 1.0 and at["renamed"] == 1.0
    assert at["unrelated originals"] <= 0.05 and at["reworded 50%"] <= 0.3
