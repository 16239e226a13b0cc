"""The review's examples: each new check fails on the old output, and the new run does not publish it.

The old output is rebuilt as the old offline combine made it: g composed
after f on f's own inputs that lie inside what g's tests show (no stated
bound read, no generated input), the steps' texts quoted as the parents
wrote them.  Each new check then runs on it in the sandbox, as
``finalize_variants`` runs it, and must say what the reviewers said.
"""

from __future__ import annotations

import pytest

from benchmorph.data.models import Problem, TestCase
from benchmorph.data.registry import load_benchmark
from benchmorph.execution.engine import Engine
from benchmorph.morph.finalize import baseline_passes
from benchmorph.morph.transforms.evolve import combine, rules
from benchmorph.validation.checks.base import CheckInput, Steps
from benchmorph.validation.checks.baselines import solved_without
from benchmorph.validation.checks.steps import leftover_imperative, stale_name, step_domain, steps_exercised
from benchmorph.validation.checks.suite import thin_suite
from paths import HUMANEVAL_PLUS_INPUTS as HUMANEVAL_PLUS

PAIRS = [(19, 16), (37, 70), (60, 75), (98, 31), (133, 39)]


@pytest.fixture(scope="module")
def state(engine: Engine) -> combine.Pairing:
    humaneval = load_benchmark("humaneval").by_id()
    wanted = {f"HumanEval/{i}" for pair in PAIRS for i in pair}
    parents = engine.prepare([humaneval[t] for t in sorted(wanted)]).problems
    pairing = combine.Pairing(parents, engine, 0)
    pairing.shapes = {p.id: rules.shape(p) for p in parents}
    pairing.mutants = combine.killed_mutants(parents, engine, 0)
    return pairing


def old_output(state: combine.Pairing, f_id: int, g_id: int) -> tuple[CheckInput, problem_pair]:
    """The old variant of g(f(x)), prepared, with what the new checks read of it."""
    by_id = {p.id: p for p in state.parents}
    f, g = by_id[f"HumanEval/{f_id}"], by_id[f"HumanEval/{g_id}"]
    g_shape = state.shapes[g.id]
    assert g_shape.seen is not None
    # The old fit: inside g's observed range only, whatever g's description states.
    inside = [(t.input, t.expected) for t in f.tests if rules.inside_observed(t.expected, g_shape.seen)]
    outputs = combine._g_outputs(g, [out for _, out in inside], state.engine, state.g_cache)
    kept = [(args, out) for args, out in inside if outputs[combine.value_key(out)] is not combine._FAILED]
    built = rules.combine(f, g, rules.fits(f, g).g_param)  # type: ignore[union-attr]
    assert not isinstance(built, str)
    variant = Problem(id=f"{f.id}+{g.id}", prompt=built.prompt, reference=built.reference,
                      entry_point=built.entry_point, tests=[TestCase(input=args) for args, _ in kept])  # fmt: skip
    prepared = state.engine.prepare([variant]).problems[0]
    candidates = [combine.Candidate(args, out, t.expected, "base") for (args, out), t in zip(kept, prepared.tests, strict=True)]  # fmt: skip
    judged = combine._judge(built, f, g, candidates, state.mutants, state.engine)
    assert not isinstance(judged, str)
    survivors = tuple(label for label, killers in judged.kills.items() if not killers)
    steps = Steps(
        quoted=(rules.description(f) or "", rules.description(g) or ""), names=(f.entry_point, g.entry_point),
        handoffs=tuple(kept), receiver=rules.description(g) or "", receiver_param=built.g_param,
        survivors=survivors, exercised=True,
    )  # fmt: skip
    baselines = {
        "step 1 alone": f"{f.reference}\n\n{built.entry_point} = {f.entry_point}\n",
        "step 2 alone": f"{built.g_code}\n\n{built.entry_point} = {built.renames.get(g.entry_point, g.entry_point)}\n",
    }
    passes = baseline_passes(prepared, baselines, state.engine)
    return CheckInput(variant=prepared, parent=f, steps=steps, baseline_passes=passes), (f, g)  # type: ignore[arg-type]


problem_pair = tuple[Problem, Problem]


def test_step_one_has_no_effect(state: combine.Pairing) -> None:
    # Sorting the words changes no set of characters; strange_sort_list is a function of the multiset.
    for f_id, g_id in ((19, 16), (37, 70)):
        item, (f, g) = old_output(state, f_id, g_id)
        found = solved_without(item)
        assert found is not None and found.reason.startswith("step 2 alone passes 100%"), (f_id, g_id)
        outcome = combine.try_pair(f, g, rules.fits(f, g), state)  # type: ignore[arg-type]
        assert isinstance(outcome, tuple) and outcome[0] == "solved-without", outcome


def test_a_stated_bound_is_respected(state: combine.Pairing) -> None:
    item, (f, g) = old_output(state, 60, 75)  # sum_to_n(30) = 465 to "(a) is less then 100"
    found = step_domain(item)
    assert found is not None and "gives 465" in found.reason and "< 100" in found.reason
    fit = rules.fits(f, g)
    assert fit is not None and all(f.tests[i].expected < 100 for i in fit.inside)  # the new fit reads it
    assert not isinstance(combine.try_pair(f, g, fit, state), combine.Pair)


def test_step_two_must_be_exercised(state: combine.Pairing) -> None:
    item, (f, g) = old_output(state, 98, 31)  # only the counts 1 and 2 reach is_prime
    assert {h for _, h in item.steps.handoffs} <= {0, 1, 2}  # type: ignore[union-attr]
    found = steps_exercised(item)
    assert found is not None and "mutants of the parents" in found.reason
    assert any(label.startswith("is_prime") for label in item.steps.survivors)  # type: ignore[union-attr]
    outcome = combine.try_pair(f, g, rules.fits(f, g), state)  # type: ignore[arg-type]
    assert isinstance(outcome, tuple) and outcome[0] == "steps-exercised", outcome


def test_a_rule_no_test_decides(state: combine.Pairing) -> None:
    item, (f, g) = old_output(state, 133, 39)  # truncation passed the three tests of the ceiling
    assert len(item.variant.tests) == 3 and "3 tests" in thin_suite(item).reason  # type: ignore[union-attr]
    pair = combine.try_pair(f, g, rules.fits(f, g), state)  # type: ignore[arg-type]
    assert isinstance(pair, combine.Pair) and len(pair.tests) >= 5 and not pair.survivors
    # Now a test has a positive fraction, where the ceiling and truncation differ.
    assert any(any(isinstance(x, float) and x > 0 and x % 1 for x in c.args[0]) for c in pair.tests)


def test_leftover_imperative_text(state: combine.Pairing) -> None:
    humaneval = load_benchmark("humaneval").by_id()
    for task in ("HumanEval/89", "HumanEval/64", "HumanEval/81"):  # Create..., Write..., you have to write...
        old = rules.description(humaneval[task])
        assert old is not None
        item = CheckInput(variant=humaneval[task], parent=humaneval[task], steps=Steps(quoted=(old,)))  # type: ignore[arg-type]
        assert leftover_imperative(item) is not None, task
    # Rewritten as a step, the first two read as an instruction of the step; the third cannot be.
    from benchmorph.morph.transforms.evolve.wording import as_step

    encrypt = as_step(rules.description(humaneval["HumanEval/89"]) or "", "encrypt")
    assert encrypt.startswith("Take a string as an argument and return a string encrypted")
    vowels = as_step(rules.description(humaneval["HumanEval/64"]) or "", "vowels_count")
    assert vowels.startswith("Take a string representing a word as input and return the number of vowels")
    for text in (encrypt, vowels):
        assert leftover_imperative(CheckInput(variant=humaneval["HumanEval/1"], parent=humaneval["HumanEval/1"], steps=Steps(quoted=(text,)))) is None  # type: ignore[arg-type]  # fmt: skip
    grades = as_step(rules.description(humaneval["HumanEval/81"]) or "", "numerical_letter_grade")
    assert "write a function" in grades


def test_stale_names(state: combine.Pairing) -> None:
    humaneval = load_benchmark("humaneval").by_id()
    old = rules.description(humaneval["HumanEval/51"]) or ""
    assert old.startswith("remove_vowels is a function that")
    item = CheckInput(variant=humaneval["HumanEval/51"], parent=humaneval["HumanEval/51"],
                      steps=Steps(quoted=(old,), names=("remove_vowels",)))  # type: ignore[arg-type]  # fmt: skip
    assert stale_name(item) is not None
    from benchmorph.morph.transforms.evolve.wording import as_step

    assert as_step(old, "remove_vowels") == "Take string and return string without vowels."


# --- what a second reading of the new output found, and fixed ---------------------------------------


def test_a_composition_the_benchmark_already_holds_is_refused(engine: Engine) -> None:
    """strlen then is_prime is HumanEval/82's prime_length: a model that solved 82 passes it."""
    from benchmorph.morph.finalize import finalize_variants
    from benchmorph.morph.transforms.evolve.copies import copies_of_benchmark
    from benchmorph.morph.transforms.evolve.evolve import _variant

    plus = load_benchmark("humaneval+", HUMANEVAL_PLUS).by_id()  # HumanEval's strlen has three tests
    parents = engine.prepare([plus[t] for t in ("HumanEval/23", "HumanEval/31", "HumanEval/82")]).problems
    pairing = combine.Pairing(parents, engine, 0)
    pairing.shapes = {p.id: rules.shape(p) for p in parents}
    pairing.mutants = combine.killed_mutants(parents, engine, 0)
    f, g = parents[0], parents[1]
    pair = combine.try_pair(f, g, rules.fits(f, g), pairing)  # type: ignore[arg-type]
    assert isinstance(pair, combine.Pair)
    draft = combine._draft(pair, _variant, pairing.shown_for(f), pairing.shown_for(g))
    (candidate,) = finalize_variants([draft], engine).candidates
    assert candidate.provenance["status"] == "accepted"  # every per-variant check passes it
    (judged,) = copies_of_benchmark([candidate], parents, engine)
    assert judged.provenance["check"] == "copy-of-benchmark" and "HumanEval/82" in judged.provenance["reason"]


def test_steps_state_their_parents_examples(state: combine.Pairing) -> None:
    """vowels_count counts 'ACEDY' as 3 only in its example: the step keeps it (and g's too)."""
    humaneval = load_benchmark("humaneval").by_id()
    f, g = humaneval["HumanEval/64"], humaneval["HumanEval/31"]
    shown = combine.parent_examples(state.engine.prepare([f]).problems[0], state.engine)
    assert (["ACEDY"], 3) in shown
    built = rules.combine(f, g, "n", [], shown, [([6], False)])
    assert not isinstance(built, str)
    text = " ".join(built.prompt.split())
    assert "for 'ACEDY' it gives 3" in text and "For example, for 6 step 2 gives False." in text


def test_generated_strings_keep_the_parents_layout() -> None:
    """Music notes are separated by single spaces in every test of HumanEval/17: "o|  .|" is another format."""
    from benchmorph.morph.transforms.evolve.inputs import adjacent_pairs

    own = set().union(*(adjacent_pairs(s) for s in ["o o o o", ".| .| .| .|", "o| .| o| .| o o| o o|"]))
    assert adjacent_pairs("o| o o|") <= own
    assert not adjacent_pairs("o|  .|") <= own  # two spaces side by side
    assert adjacent_pairs(["ab", "c"]) == {("lower", "lower")}


def test_own_inputs_honour_the_bounds_their_parent_states() -> None:
    """HumanEval+/75's tests feed 891 to "Knowing that (a) is less then 100": not an input to reuse."""
    from benchmorph.morph.transforms.evolve.inputs import own_pool

    problem = load_benchmark("humaneval").by_id()["HumanEval/75"]
    tests = [TestCase(input=[a], expected=False, has_expected=True) for a in (30, 99, 891, 465)]
    shaped = problem.model_copy(update={"tests": tests})
    assert [args[0] for args in own_pool(shaped, rules.shape(problem)).inputs] == [30, 99]


def test_booleans_a_step_never_mentions_are_not_tested() -> None:
    """'Filter given list of any python values only for integers' says nothing of True: Python counts
    it an int, HumanEval+'s reference does not; an input holding one in a list is left out."""
    assert combine._bool_inside([[True, 0, -10, "test"]]) and not combine._bool_inside([[1, 2], 3])
    text = rules.description(load_benchmark("humaneval").by_id()["HumanEval/22"]) or ""
    assert not combine._BOOLEANS.search(text)


def test_a_step_states_the_example_that_decides_a_tie(engine: Engine) -> None:
    """HumanEval/62 + 90: the derivative of [3, 2, 1] is [2, 2], and "the 2nd smallest element" says
    nothing of ties; only next_smallest's fourth example ([1, 1] gives None) does, so the step states it."""
    humaneval = load_benchmark("humaneval").by_id()
    g = engine.prepare([humaneval["HumanEval/90"]]).problems[0]
    shown = combine.parent_examples(g, engine)
    assert ([[1, 1]], None) in shown and ([[1, 2, 3, 4, 5]], 2) in shown
    built = rules.combine(humaneval["HumanEval/62"], g, "lst", [], [], shown)
    assert not isinstance(built, str)
    assert "and for [1, 1] it gives None" in " ".join(built.prompt.split())


def test_tool_use_items_are_the_parents_own_inputs(engine: Engine) -> None:
    """HumanEval/94 sorted by "the sum of the digits of the largest prime": a generated [0, 81, 12, 0, 1,
    21] holds no prime, the docstring says nothing of that case and the reference answers 1 (it counts 1
    as a prime).  Lists are made of the parent's own inputs only."""
    from benchmorph.morph.transforms.evolve import tool_use
    from benchmorph.morph.transforms.evolve.evolve import _variant

    parent = engine.prepare([load_benchmark("humaneval").by_id()["HumanEval/94"]]).problems[0]
    own = {combine.value_key(t.input[0]) for t in parent.tests}
    assert {combine.value_key(x) for x, _ in tool_use._item_pool(parent)} <= own
    draft = tool_use.lift(parent, engine, 0, _variant)
    assert not isinstance(draft, tuple), draft
    items = [x for test in draft.variant.tests for x in test.input[0]]
    assert items and all(combine.value_key(x) in own for x in items)
    assert combine.value_key([0, 81, 12, 0, 1, 21]) not in {combine.value_key(x) for x in items}


def test_tool_use_sorts_no_values_a_rounding_error_apart() -> None:
    """truncate_number(0.3) is 0.3 and truncate_number(1.3) is 0.30000000000000004: no list sorts both,
    since how the float is computed, not the description, would decide their order (equal values, as
    truncate_number(124.456) and truncate_number(123.456) are, tie and keep their order)."""
    import random

    from benchmorph.morph.transforms.evolve import tool_use

    pool = [(x, x % 1.0) for x in (0.3, 3.5, 1.3, 1.25, 2.75, 0.125, 7.0, 124.456, 123.456)]
    lists = tool_use._lists(pool, "sort", random.Random(0))
    assert not isinstance(lists, str) and len(lists) >= 6
    assert not any(0.3 in xs and 1.3 in xs for xs in lists)
    assert any(0.3 in xs for xs in lists)  # the first of the two stays
    assert any(124.456 in xs and 123.456 in xs for xs in lists)  # a true tie is a test of the stable order


def test_a_helper_docstring_asking_to_be_written_is_refused(engine: Engine) -> None:
    """HumanEval/46's description, as the prompt surgery reads it, is its first line; "Please write a
    function to efficiently compute the n-th element" comes after the sequence's definition, and a
    reviewed HumanEval+ tool_use variant showed it in its helper."""
    from benchmorph.morph.transforms.evolve import tool_use
    from benchmorph.morph.transforms.evolve.evolve import _variant

    plus = load_benchmark("humaneval+", HUMANEVAL_PLUS).by_id()["HumanEval/46"]
    parent = engine.prepare([plus]).problems[0]
    assert "Please write a function" in tool_use._docstring(parent.prompt, parent.entry_point)
    outcome = tool_use.lift(parent, engine, 0, _variant)
    assert isinstance(outcome, tuple) and outcome[0] == "leftover-imperative", outcome
    assert "Please write" in outcome[1]
