"""The retelling gates: what is left of the parent's wording, every condition kept, siblings distinct.

The gates are registered quality checks that read ``rewording`` and ``siblings``, offered by a draft
with ``retold=True`` and outputs kept; ``finalize_variants`` runs them and records their figures.  The
constraint check is shown to reject rewrites seeded from real accepted retellings of HumanEval (and of a
few MBPP+ seeds): each
drops, in turn, the counterpart of one of its parent's conditions, or swaps a meaning word.
"""

from __future__ import annotations

import re

import pytest

from benchmorph.data.models import Problem, TestCase, Variant
from benchmorph.data.prompt import anatomy
from benchmorph.data.registry import load_benchmark, select_problems
from benchmorph.execution import Engine
from benchmorph.morph.finalize import Draft, finalize_variants
from benchmorph.morph.transforms.metamorphic.metamorphic import rules_drafts
from benchmorph.validation.checks.base import CHECKS, CheckInput, checks_for
from benchmorph.validation.checks.meaning import _names, _prose
from benchmorph.validation.concepts import conditions, counterpart, statements
from benchmorph.validation.residual import Rewording, residual, residual_similarity


@pytest.fixture(scope="module")
def accepted(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[Variant, Problem]]:
    """Retellings of every HumanEval problem the text gates accept, with their prepared parents: the
    generator as ``morph run`` runs it (K = 5, 3 retries), since the turned-round rule (review24c) leaves
    too few at K = 2 with one retry for the seeded rewrites below."""
    with Engine(workers=2, cache_root=tmp_path_factory.mktemp("engine")) as engine:
        parents = engine.prepare(load_benchmark("humaneval").problems).problems
    drafts, _, _ = rules_drafts(parents, 0, 5, True, 3)
    return [(draft.variant, draft.parent) for draft in drafts]


# MBPP+ seeds whose accepted retellings (K = 2, 3 retries) state a condition of the parent once: since
# the 3-word phrase limit (review24d) HumanEval's retellings seed only 4 constraint-dropping rewrites.
CONDITION_SEEDS = "Mbpp/66,Mbpp/436,Mbpp/582,Mbpp/588,Mbpp/605,Mbpp/744"


@pytest.fixture(scope="module")
def accepted_mbpp(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[Variant, Problem]]:
    """Retellings of :data:`CONDITION_SEEDS` the text gates accept, with their prepared parents."""
    from paths import MBPP_PLUS

    chosen = select_problems(load_benchmark("mbpp+", MBPP_PLUS).problems, tasks=CONDITION_SEEDS)
    with Engine(workers=2, cache_root=tmp_path_factory.mktemp("engine-mbpp")) as engine:
        parents = engine.prepare(chosen).problems
    drafts, _, _ = rules_drafts(parents, 0, 5, True, 3)
    return [(draft.variant, draft.parent) for draft in drafts]


def _check(name: str, variant: Variant, parent: Problem, siblings: list[Variant] | None = None):  # type: ignore[no-untyped-def]
    item = CheckInput(variant=variant, parent=parent, siblings=siblings or [])
    return CHECKS[name](item), item.figures


def test_a_retold_draft_offers_the_gates_and_a_plain_one_does_not() -> None:
    parent = load_benchmark("humaneval").by_id()["HumanEval/0"]
    variant = Variant(
        **parent.model_dump(exclude={"id"}), id="p/meta-0", parent_id=parent.id, transform="metamorphic"
    )
    retold = {
        check.name for check in checks_for(Draft(variant, parent, outputs="keep", retold=True).offers())
    }
    plain = {check.name for check in checks_for(Draft(variant, parent, outputs="keep").offers())}
    gates = {
        "residual-runs",
        "residual-bleu",
        "residual-difflib",
        "residual-description",
        "constraints-kept",
        "meaning-atoms",
        "sibling-distinct",
    }
    assert gates <= retold and not gates & plain
    # Evolve's tool_use and decompose keep outputs too; without retold=True they are not gated.
    assert not gates & {
        c.name for c in checks_for(Draft(variant, parent, outputs="keep", examples="keep").offers())
    }


def test_the_parent_itself_and_its_copy_plus_a_scenario_sentence_fail_the_residual_gates() -> None:
    parent = load_benchmark("humaneval").by_id()["HumanEval/12"]
    doc = anatomy(parent.prompt, parent.entry_point).docstring
    assert doc is not None
    scenario = " A library's catalogue calls this helper with `strings`. "
    prompt = parent.prompt[: doc.content_start] + scenario + parent.prompt[doc.content_start :]
    copy = Variant(
        **parent.model_dump(exclude={"id", "prompt"}), id="x", prompt=prompt, parent_id=parent.id,
        transform="metamorphic", provenance={"scenario_terms": ["library", "catalogue", "calls", "helper"]},
    )  # fmt: skip
    assert "library" not in residual(copy, parent)  # the scenario's words are set aside
    for name in ("residual-runs", "residual-bleu", "residual-difflib"):
        finding, figures = _check(name, copy, parent)
        assert finding is not None and finding.check == name, name
    assert figures["residual_runs8"] == 1.0 and figures["residual_bleu4"] > 0.85


def test_renamed_names_are_mapped_back_before_measuring() -> None:
    parent = Problem(
        id="p", prompt='def f(numbers):\n    """Return the sum of numbers in the list numbers, or zero if empty."""\n',
        entry_point="f", reference="",
    )  # fmt: skip
    renamed = Variant(
        **parent.model_dump(exclude={"id", "prompt", "entry_point"}), id="p/meta-0", parent_id="p", transform="m",
        entry_point="total_readings",
        prompt='def total_readings(readings):\n    """Return the sum of readings in the list readings, or zero if empty."""\n',
        provenance={"renames": {"numbers": "readings"}},
    )  # fmt: skip
    assert Rewording.of(renamed, parent).names_back == {"readings": "numbers", "total_readings": "f"}
    assert residual_similarity(renamed, parent).runs == 1.0  # a rename alone keeps every run


def test_constraint_dropping_rewrites_seeded_from_accepted_retellings_are_rejected(
    accepted: list[tuple[Variant, Problem]], accepted_mbpp: list[tuple[Variant, Problem]]
) -> None:
    seeded = rejected = 0
    for variant, parent in accepted + accepted_mbpp:
        finding, figures = _check("constraints-kept", variant, parent)
        assert finding is None, (variant.id, finding)
        assert figures["conditions_kept"] == figures["conditions"]
        back = Rewording.of(variant, parent).names_back
        have = statements(_prose(variant, back))
        doc = anatomy(variant.prompt, variant.entry_point)
        for condition in conditions(_prose(parent)):
            match = counterpart(condition, have, _names(parent))
            if not match.found or len(match.found) > 1:
                continue
            # The counterpart, as the variant writes it (with its new names), dropped from the docstring.
            content = doc.content
            dropped_text = _drop(content, match.found[0], back)
            if dropped_text is None or dropped_text == content:
                continue
            prompt = variant.prompt.replace(content, dropped_text)
            dropped = variant.model_copy(update={"prompt": prompt})
            seeded += 1
            found, _ = _check("constraints-kept", dropped, parent)
            rejected += int(found is not None)
            assert found is not None, (variant.id, condition)
    print(f"seeded constraint-dropping rewrites: {seeded}, rejected: {rejected}")
    # Since the description gate (rev24) and the turned-round rule (review24c) few HumanEval retellings pass
    # (13 seeded here at K = 5, 12 at K = 2 before the rule, 98 before the description gate; 4 since the
    # 3-word phrase limit, with 11 from the MBPP+ seeds; since the gates read synonym swaps back (review24h)
    # 2 from HumanEval and 6 from the MBPP+ seeds, now told at K = 5: every MBPP+ retelling at K = 2 seeds 7;
    # 6 once a question of the parent's clause stopped counting as turned round, review24i).  The question
    # forms are covered by tests/validation/test_constraints_questions.py.
    assert seeded >= 6 and rejected == seeded


def _drop(content: str, told: str, back: dict[str, str]) -> str | None:
    """``content`` less the sentence ``told`` names (written with the variant's new names), or None."""
    forward = {old: new for new, old in back.items()}
    words = [re.escape(word) for word in re.findall(r"\S+", told)]
    for index, word in enumerate(words):
        for old, new in forward.items():
            if word.strip("`") == re.escape(old):
                words[index] = rf"`?(?:{re.escape(new)}|{re.escape(old)})`?[,.;:]?"
    pattern = r"\s+".join(words)
    found = re.search(pattern, content)
    if found is None:
        return None
    return content[: found.start()] + content[found.end() :]


def test_a_swapped_meaning_word_or_an_added_requirement_is_rejected(
    accepted: list[tuple[Variant, Problem]], accepted_mbpp: list[tuple[Variant, Problem]]
) -> None:
    swaps = {
        "largest": "smallest", "smallest": "largest", "even": "odd", "odd": "even", "first": "last",
        # since the turned-round rule (review24c) fewer retellings say the words above
        "positive": "negative", "negative": "positive", "longest": "shortest", "ascending": "descending",
    }  # fmt: skip
    tried = 0
    for variant, parent in accepted + accepted_mbpp:
        content = anatomy(variant.prompt, variant.entry_point).content
        word = next((w for w in swaps if re.search(rf"\b{w}\b", content.split("\n\n")[0])), None)
        if word is None:
            continue
        swapped = variant.model_copy(
            update={
                "prompt": variant.prompt.replace(
                    content, re.sub(rf"\b{word}\b", swaps[word], content, count=1)
                )
            }
        )
        tried += 1
        finding, _ = _check("meaning-atoms", swapped, parent)
        assert finding is not None, variant.id
    # 4 since the description gate (rev24), 10 or more before; swaps widened (review24c); with the MBPP+
    # seeds since the gates read synonym swaps back (review24h: 2 HumanEval retellings say these words)
    assert tried >= 3


def test_a_sibling_with_the_same_description_and_other_examples_is_not_distinct(
    accepted: list[tuple[Variant, Problem]],
) -> None:
    variant, parent = next((v, p) for v, p in accepted if v.id.endswith("meta-0"))
    twin = variant.model_copy(update={"id": variant.id.replace("meta-0", "meta-1")})
    finding, figures = _check("sibling-distinct", twin, parent, [variant])
    assert finding is not None and figures["sibling_bleu4"] == pytest.approx(1.0)
    assert figures["sibling_description_bleu4"] == pytest.approx(1.0)
    assert _check("sibling-distinct", twin, parent, [])[0] is None  # no earlier sibling: nothing to say


def test_finalize_runs_the_gates_records_their_figures_and_compares_siblings_in_order(
    accepted: list[tuple[Variant, Problem]], tmp_path_factory: pytest.TempPathFactory
) -> None:
    variant, parent = next((v, p) for v, p in accepted if v.parent_id == "HumanEval/7")
    twin = variant.model_copy(update={"id": variant.id + "-twin"})
    drafts = [
        Draft(v, parent, outputs="keep", examples="keep", parent_defects="record", retold=True)
        for v in (variant, twin)
    ]
    for draft in drafts:
        draft.variant = draft.variant.model_copy(
            update={"tests": [TestCase(input=t.input) for t in parent.tests]}
        )
    with Engine(workers=1, cache_root=tmp_path_factory.mktemp("engine2")) as engine:
        finalized = finalize_variants(drafts, engine)
        again = finalize_variants(drafts[1:], engine, siblings={parent.id: [finalized.variants[0]]})
    first, second = finalized.candidates
    assert first.provenance["status"] == "accepted" and "sibling-distinct" in first.provenance["checks_run"]
    assert {"residual_bleu4", "residual_runs8", "residual_difflib", "conditions"} <= set(
        first.provenance["figures"]
    )
    assert (second.provenance["status"], second.provenance["check"]) == ("rejected", "sibling-distinct")
    assert again.candidates[0].provenance["check"] == "sibling-distinct"  # an earlier call's sibling counts


# Two retellings the second strict review read (rev24): HumanEval/33's keeps the parent's sentence with
# "indicies" -> "positions" and passes the whole-docstring gates on its new examples (BLEU-4 0.30, runs
# 0.14, difflib 0.52); HumanEval/7's is told anew.
_SORT_THIRD = '''

def order_third(l: list):
    """ The input is a list l; the output is a list l' such that l' is identical to l in the
    positions that are not divisible by three, while its values at the positions
    divisible by three equal the values of the matching positions of l, but sorted.

    A few cases:
    For l = [5, 8, -12, 4, 23, 2, 3, 11, 12, -10], the result should be [-10, 8, -12, 3, 23, 2, 4, 11, 12, 5]
    For l = [5, 3, -5, 2, -3, 3, 9, 0, 123, 1, -10], the result should be [1, 3, -5, 2, -3, 3, 5, 0, 123, 9, -10]
    """
'''
_FILTER = '''from typing import List


def keep_by_piece(usernames: List[str], piece: str) -> List[str]:
    """ Return only those entries of a list of usernames `usernames` that include input
    `piece`.

    Some inputs and answers:
    For usernames = [], piece = 'a', the result should be []
    For usernames = ['xxx', 'asd', 'xxy', 'john doe', 'xxxAAA', 'xxx'], piece = 'xxx', the result should be ['xxx', 'xxxAAA', 'xxx']
    """
'''


def test_a_description_that_is_the_parents_with_words_swapped_fails_though_new_examples_dilute_it() -> None:
    humaneval = load_benchmark("humaneval").by_id()
    cases = [
        ("HumanEval/33", _SORT_THIRD, "order_third", {}, ["l"]),
        (
            "HumanEval/7",
            _FILTER,
            "keep_by_piece",
            {"strings": "usernames", "substring": "piece"},
            ["username"],
        ),
    ]
    found = {}
    for task, prompt, entry, renames, terms in cases:
        parent = humaneval[task]
        variant = Variant(
            **parent.model_dump(exclude={"id", "prompt", "entry_point"}), id=f"{task}/meta-0", prompt=prompt,
            entry_point=entry, parent_id=task, transform="metamorphic",
            provenance={"renames": renames, "scenario_terms": terms},
        )  # fmt: skip
        assert _check("residual-bleu", variant, parent)[0] is None, task  # the whole docstring passes
        found[task] = _check("residual-description", variant, parent)
    finding, figures = found["HumanEval/33"]
    assert finding is not None and finding.check == "residual-description"
    assert figures["residual_description_bleu4"] > 0.45
    finding, figures = found["HumanEval/7"]
    assert finding is None and figures["residual_description_bleu4"] < 0.2


def test_a_one_sentence_description_that_keeps_the_parents_phrase_whole_fails() -> None:
    """Mbpp/420's retelling put a new frame round "the cube sum of first n even natural numbers" (9 of the
    parent's words whole) and showed new examples, so every whole-docstring figure passed; Mbpp/605's
    told the same kind of sentence with no phrase of over two words kept."""
    from benchmorph.data.registry import load_benchmark as load
    from paths import MBPP_PLUS

    mbpp = load("mbpp+", MBPP_PLUS).by_id()
    cases = {
        "Mbpp/420": ("cube_total", '"""\nThe job is to determine the cube sum of first n even natural numbers.\n\n'
                     'For instance:\ncube_total(92) returns 146410272\ncube_total(68) returns 44029728\n"""\n'),
        "Mbpp/605": ("prime_value", '"""\nIs a whole number handed in prime? Say so with True, and with False if not.\n\n'
                     "For example:\n>>> prime_value(7)\nTrue\n>>> prime_value(-1010)\nFalse\n\"\"\"\n"),
        # one-for-one swaps of the parent's sentence, no phrase of over two words kept: read back, it is
        # "check if the given integer is prime" (review24h)
        "Mbpp/605 swapped": ("prime_value", '"""\nThe function should decide whether the input integer value is prime.\n\n'
                     "For example:\n>>> prime_value(7)\nTrue\n>>> prime_value(-1010)\nFalse\n\"\"\"\n"),
    }  # fmt: skip
    found = {}
    for case, (entry, prompt) in cases.items():
        task = case.split()[0]
        parent = mbpp[task]
        variant = Variant(
            **parent.model_dump(exclude={"id", "prompt", "entry_point"}), id=f"{task}/meta-0", prompt=prompt,
            entry_point=entry, parent_id=task, transform="metamorphic", provenance={"renames": {}},
        )  # fmt: skip
        assert _check("residual-bleu", variant, parent)[0] is None, task
        found[case] = _check("residual-description", variant, parent)
    finding, figures = found["Mbpp/420"]
    assert finding is not None and finding.check == "residual-description"
    assert figures["residual_description_run"] == 9
    finding, figures = found["Mbpp/605"]
    assert finding is None and figures["residual_description_run"] <= 2
    assert figures["residual_description_run_swapped"] <= 2
    finding, figures = found["Mbpp/605 swapped"]
    assert figures["residual_description_run"] <= 2  # word for word it keeps nothing long ...
    assert figures["residual_description_run_swapped"] == 6  # ... but read back it is the parent's phrase
    assert finding is not None and "read back" in finding.reason
    assert "check if given integer is prime" in finding.reason


def test_the_parents_sentence_with_synonyms_swapped_in_fails_however_short_its_runs() -> None:
    """Mbpp/66's retelling changes every third word (no phrase of over 3 words kept, low BLEU) and is the
    parent's sentence read with other words; Mbpp/293's turned the phrase round.  The generator's own
    retellings kept "positive numbers in a list" and "a right angled triangle" whole, which the 3-word
    phrase limit (review24d) now rejects by itself; "held in a list" and "the right angled triangle's"
    keep the words and break the phrase."""
    from benchmorph.data.registry import load_benchmark as load
    from benchmorph.validation.checks.residual import MAX_DESCRIPTION_KEPT, MAX_DESCRIPTION_RUN
    from paths import MBPP_PLUS

    mbpp = load("mbpp+", MBPP_PLUS).by_id()
    count = (
        "\n\nFor example:\n>>> place_count([10, -2, -9, 40])\n2\n>>> place_count([3, 2, 3, 4, 2, 4, 2])\n"
        '7\n"""\n'
    )
    side = (
        "\n\nFor instance:\ncompute_otherside_rightangle(7, 15) returns 16.552945357\n"
        'compute_otherside_rightangle(3, 4) returns 5.0\n"""\n'
    )
    cases = {
        "swapped": ("Mbpp/66", "place_count", '"""\nThe function should count up the positive numbers held in a list.' + count),
        "swapped, phrase kept": ("Mbpp/66", "place_count", '"""\nThe function should count up the positive numbers in a list.' + count),
        "turned": ("Mbpp/293", "compute_otherside_rightangle", '"""\nWork out the right angled triangle\'s third side.' + side),
        "turned, phrase kept": ("Mbpp/293", "compute_otherside_rightangle", '"""\nWork out a right angled triangle\'s third side.' + side),
    }  # fmt: skip
    found = {}
    for case, (task, entry, prompt) in cases.items():
        parent = mbpp[task]
        variant = Variant(
            **parent.model_dump(exclude={"id", "prompt", "entry_point"}), id=f"{task}/meta-0", prompt=prompt,
            entry_point=entry, parent_id=task, transform="metamorphic", provenance={"renames": {}},
        )  # fmt: skip
        found[case] = _check("residual-description", variant, parent)
    for case, run in (("swapped, phrase kept", 5), ("turned, phrase kept", 4)):
        finding, figures = found[case]
        assert figures["residual_description_run"] == run > MAX_DESCRIPTION_RUN
        assert finding is not None and f"a phrase of {run} of the parent's words" in finding.reason
    finding, figures = found["swapped"]
    assert figures["residual_description_run"] <= MAX_DESCRIPTION_RUN
    assert finding is not None and "in their order" in finding.reason
    assert figures["residual_description_kept"] > MAX_DESCRIPTION_KEPT
    finding, figures = found["turned"]
    assert finding is None and figures["residual_description_kept"] <= 0.5
