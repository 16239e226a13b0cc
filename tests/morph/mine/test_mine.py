"""The LLM-free miner on real HumanEval and MBPP+: every variant it writes must hold up in the sandbox."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from benchmorph.data.formats.native import read_native
from benchmorph.data.models import Problem, TestCase, Variant
from benchmorph.data.registry import load_benchmark
from benchmorph.execution.compare import values_match
from benchmorph.execution.engine import Engine, Job
from benchmorph.morph.transforms.mine.mine import mine, propose
from benchmorph.morph.transforms.mine.rules import RULES
from benchmorph.validation.distances import description_distance
from benchmorph.validation.examples.recompute import claim_agrees
from benchmorph.validation.examples.scan import claimed_values, rewrite_examples, scan_examples
from benchmorph.validation.links import strip_links
from cli_runner import run_cli
from paths import SharedData

# (problem, rule) of the variants the review found wrong (issue 11, section 3).
REVIEWED_BAD = {
    ("HumanEval/6", "extreme:maximum>minimum"),
    ("HumanEval/134", "position:last>first"),
    ("HumanEval/70", "extreme:maximum>minimum"),
    ("HumanEval/88", "parity:even>odd"),
    ("HumanEval/146", "position:first>last"),
    ("HumanEval/116", "order:ascending>descending"),
    ("HumanEval/149", "order:ascending>descending"),
    ("HumanEval/163", "parity:even>odd"),
    ("HumanEval/72", "aggregate:sum>product"),
    ("HumanEval/29", "affix:prefix>suffix"),
    ("HumanEval/160", "position:first>last"),
}


def check_variants(variants: list[Variant], parents: dict[str, Problem], engine: Engine) -> None:
    """The four checks the issue asks of every mined variant."""
    assert variants
    prepared_parents = {p.id: p for p in engine.prepare([parents[v.parent_id] for v in variants]).problems}
    # 1. Its reference passes its own reconstructed tests in the sandbox.
    verdicts = engine.evaluate([Job(v, v.reference, v.id) for v in variants])
    assert [v.status for v in verdicts] == ["pass"] * len(variants), [
        (v.task_id, v.error) for v in verdicts if v.status != "pass"
    ]
    for variant in variants:
        parent = prepared_parents[variant.parent_id]
        # 2. It differs from the parent's outputs on at least one inherited input.
        expected = {json.dumps(repr(t.input)): t.expected for t in parent.tests}
        assert any(
            not values_match(expected[json.dumps(repr(t.input))], t.expected, variant.atol)
            for t in variant.tests
        ), variant.id
        # 3. The wording moved, but at most epsilon (a function renamed with it counts as no wording).
        worded = variant.prompt
        if "renamed_from" in variant.provenance:
            ending = r"(?=\s*\()" if re.fullmatch(r"[a-z]+", parent.entry_point) else r"(?!\w)"
            worded = re.sub(rf"(?<![\w.]){variant.entry_point}{ending}", parent.entry_point, worded)
        # A link to the original task's page is cut from the variant (test_mine_copies): not wording either.
        original = (
            strip_links(parent.prompt).prompt if variant.provenance.get("links_removed") else parent.prompt
        )
        assert 0 < description_distance(original, worded, parent.entry_point) <= 0.13
        assert variant.provenance["review_status"] == "unreviewed" and variant.label == "ctf"
        assert variant.provenance["parent_reference"] == parent.reference
    # 4. Its description's examples agree with its reference.
    probes = []
    for variant in variants:
        scan = scan_examples(variant.prompt, variant.entry_point)
        assert not scan.unverifiable, variant.id
        if scan.examples:
            tests = [TestCase(input=list(e.args)) for e in scan.examples]
            probes.append(
                (variant, scan, variant.model_copy(update={"id": variant.id + "?ex", "tests": tests}))
            )
    computed = {p.id: p for p in engine.prepare([probe for _, _, probe in probes]).problems}
    for variant, scan, probe in probes:
        outputs = [t.expected for t in computed[probe.id].tests]
        assert len(outputs) == len(scan.examples), variant.id
        for example, claimed, actual in zip(scan.examples, claimed_values(scan), outputs, strict=True):
            assert claim_agrees(example, claimed, example.value_of(actual)), (variant.id, claimed, actual)


def test_mined_humaneval_variants_hold_up(engine: Engine, tmp_path: Path) -> None:
    bench = load_benchmark("humaneval")
    report = mine(bench.problems, engine)
    # The yield, reached with the quality checks on (20 when written); precision comes first,
    # so more rules, never looser checks, if this falls.
    assert report.problems_with_variant >= 15
    # None of the review's patterns survives (test_variant_quality shows the check that stops each).
    survived = {(v.parent_id, v.provenance["rule"]) for v in report.variants}
    assert not survived & REVIEWED_BAD, survived & REVIEWED_BAD
    check_variants(report.variants, bench.by_id(), engine)


@pytest.mark.slow
def test_mined_mbpp_plus_variants_hold_up(engine: Engine, shared_data: SharedData) -> None:
    bench = load_benchmark("mbpp+", shared_data.mbpp_plus)
    report = mine(bench.problems, engine)
    # 48 before the fifth review; 31 since variants that copy another MBPP+ problem (17, as Mbpp/447's
    # cube_nums is Mbpp/8) are dropped (test_mine_copies): precision over the yield of 45.
    assert report.problems_with_variant >= 29
    check_variants(report.variants, bench.by_id(), engine)


def test_rules_apply_only_where_text_and_code_patterns_are_unique() -> None:
    problem = Problem(
        id="t/1",
        prompt='def f(xs):\n    """Return the smallest number of xs.\n    >>> f([3, 1, 2])\n    1\n    """\n',
        entry_point="f",
        reference='def f(xs):\n    """Return the smallest number of xs.\n    >>> f([3, 1, 2])\n    1\n    """\n    return min(xs)\n',
    )
    (candidate,) = [c for c in propose(problem, RULES) if c.rule.name == "extreme:smallest>largest"]
    assert "largest number" in candidate.prompt and candidate.reference.endswith("return max(xs)\n")
    twice = problem.model_copy(update={"reference": problem.reference + "\ndef g(xs):\n    return min(xs)\n"})
    assert not [c for c in propose(twice, RULES) if c.rule.name.startswith("extreme")]
    # The example line is not part of the description: "smallest" there would not count.
    assert (
        propose(problem.model_copy(update={"prompt": problem.prompt.replace("smallest", "least")}), RULES)
        == []
    )


def test_examples_are_rewritten_in_every_spelling() -> None:
    text = (
        "    >>> f([])\n\n    >>> f([1, 2])\n    3\n    f([5]) ➞ 5\n    f([2, 2]) == 4\n"
        "    assert f([7]) == 7\n    f([1]) => 1 (a comment)\n"
    )
    scan = scan_examples(text, "f")
    assert len(scan.examples) == 6 and not scan.unverifiable
    new = rewrite_examples(text, scan.examples, [0, None, [5], "x", 70, (1,)])
    again = scan_examples(new, "f")
    assert claimed_values(again) == [0, None, [5], "x", 70, (1,)]
    assert "(a comment)" in new
    assert scan_examples("    f(n) = f(n - 1) + 1\n", "f").unverifiable


def test_mine_command_writes_variants_that_load_as_a_benchmark(tmp_path: Path) -> None:
    out = tmp_path / "v.jsonl"
    result = run_cli("morph", "mine", "humaneval", "--out", str(out), cache=tmp_path / "cache")
    assert result.returncode == 0, result.stderr
    words = " ".join(result.stdout.split())  # the table's title wraps where its width says
    assert "variants of" in words and "check that decided it" in words
    candidates = read_native(tmp_path / "v.candidates.jsonl")
    assert {c.provenance["status"] for c in candidates} >= {"accepted", "rejected"}
    assert all(c.provenance["check"] for c in candidates if c.provenance["status"] != "accepted")
    variants = read_native(out)
    assert variants and all(isinstance(v, Variant) and v.parent_id.startswith("HumanEval/") for v in variants)


def test_a_function_name_that_states_the_old_property_is_renamed_or_the_variant_dropped(
    engine: Engine,
) -> None:
    """HumanEval/51 `remove_vowels` that now removes consonants is `remove_consonants`; `multiply` that sums goes."""
    by_id = load_benchmark("humaneval").by_id()
    report = mine([by_id["HumanEval/51"], by_id["HumanEval/97"]], engine)
    [variant] = report.variants
    assert variant.parent_id == "HumanEval/51" and variant.entry_point == "remove_consonants"
    assert variant.provenance["renamed_from"] == "remove_vowels"
    assert "remove_vowels" not in variant.prompt and "remove_vowels" not in variant.reference
    assert "def remove_consonants(" in variant.prompt and ">>> remove_consonants(" in variant.prompt
    assert all(test.has_expected for test in variant.tests)
    [dropped] = [c for c in report.candidates if c.parent_id == "HumanEval/97"]
    assert dropped.provenance["check"] == "name-contradicts" and "'multiply'" in dropped.provenance["reason"]


def test_tests_a_program_that_ignores_the_task_passes_reject_the_variant(engine: Engine) -> None:
    """HumanEval/12 'shortest': all three inherited tests expect the first string, so `xs[0]` would pass."""
    by_id = load_benchmark("humaneval").by_id()
    report = mine([by_id["HumanEval/12"]], engine)
    assert not report.variants
    [record] = [c for c in report.candidates if c.provenance["check"] == "trivial-baseline"]
    assert "the first item of the first argument" in record.provenance["reason"]


def test_property_words_glued_to_a_noun_in_a_name_are_renamed() -> None:
    from benchmorph.morph.transforms.mine.mine import renamed_entry_point
    from benchmorph.validation.checks.base import Edit

    def edit(family: str, old: str, new: str) -> Edit:
        return Edit(family, "rule", old, new, (0, 0), "", "", (0, 0))

    assert renamed_entry_point("filter_oddnumbers", edit("parity", "odd", "even"))[0] == "filter_evennumbers"
    assert (
        renamed_entry_point("sum_negativenum", edit("sign", "negative", "positive"))[0] == "sum_positivenum"
    )
    assert renamed_entry_point("admin_tools", edit("extreme", "minimum", "maximum"))[0] == "admin_tools"


@pytest.fixture(scope="module")
def mbpp(shared_data: SharedData) -> dict[str, Problem]:
    return load_benchmark("mbpp+", shared_data.mbpp_plus).by_id()


def _only(problem: Problem, family: str) -> list[tuple[str, str, str]]:
    """(rule, new prompt, new reference) of every candidate of ``family`` on ``problem``."""
    return [(c.rule.name, c.prompt, c.reference) for c in propose(problem) if c.rule.name.startswith(family)]


def test_power_family_edits_the_operation_and_renames_what_states_it(mbpp: dict[str, Problem]) -> None:
    ((rule, prompt, reference),) = _only(mbpp["Mbpp/8"], "power")
    assert rule == "power:squares>cubes"
    assert "find cubes of individual elements" in prompt and "i**3" in reference
    assert "def cube_nums(" in reference and "assert cube_nums(" in prompt  # square_nums stated the old power
    # "the volume of a cube" is a shape, not an operation: no rule reads it.
    assert _only(mbpp["Mbpp/234"], "power") == []


def test_compare_family_leaves_thresholds_alone(mbpp: dict[str, Problem]) -> None:
    ((rule, prompt, reference),) = _only(mbpp["Mbpp/433"], "compare")
    assert rule == "compare:greater>smaller" and "number < el" in reference
    assert "smaller than the elements" in prompt and "def check_smaller(" in reference
    # "the next perfect square greater than N" is coded with `N < 0` (a guard against a constant):
    # the rule needs an order comparison of two names, so it does not apply.
    assert _only(mbpp["Mbpp/244"], "compare") == []
    # "smaller than or equal to" is not "smaller than".
    assert _only(mbpp["Mbpp/603"], "compare") == []


def test_local_names_that_state_the_old_property_are_renamed(humaneval_problems: dict[str, Problem]) -> None:
    (candidate,) = [
        c for c in propose(humaneval_problems["HumanEval/9"]) if c.rule.name == "extreme:maximum>minimum"
    ]
    code = candidate.reference[len(candidate.prompt) :]
    assert "running_min = min(running_min, n)" in code and "running_max" not in code
    # The edited piece's span in the variant is exact after the renames (the tie probe reads it).
    start, end = candidate.code_span
    assert candidate.reference[start:end] == candidate.edit.new_code == "min("


@pytest.fixture(scope="module")
def humaneval_problems() -> dict[str, Problem]:
    return load_benchmark("humaneval").by_id()


@pytest.mark.slow
def test_new_families_yield_publishable_mbpp_variants(engine: Engine, mbpp: dict[str, Problem]) -> None:
    # Mbpp/8 and Mbpp/447 are each other's variant: mined together both are dropped as copies
    # (test_mine_copies), so only Mbpp/8 is given here.
    ids = ["Mbpp/8", "Mbpp/422", "Mbpp/764", "Mbpp/805", "Mbpp/234", "Mbpp/398"]
    report = mine([mbpp[i] for i in ids], engine)
    rules = {v.parent_id: v.provenance["rule"] for v in report.variants}
    assert rules == {
        "Mbpp/8": "power:squares>cubes",
        "Mbpp/422": "power:cubes>squares",
        "Mbpp/764": "charclass:digits>letters",
        "Mbpp/805": "extreme:highest>lowest",
    }
    by_parent = {v.parent_id: v for v in report.variants}
    # The worked example is recomputed in place: 2 -> (1 + 4) / 2.
    assert "assert find_Average_Of_Square(2) == 2.5" in by_parent["Mbpp/422"].prompt
    assert "assert letter_ctr('program2bedone') == 13" in by_parent["Mbpp/764"].prompt
    check_variants(report.variants, mbpp, engine)


@pytest.mark.slow
def test_an_example_that_no_longer_shows_which_items_count_is_held(
    engine: Engine, mbpp: dict[str, Problem]
) -> None:
    # Mbpp/777: "the sum of non-repeated elements" of [1,2,3,1,1,4,5,6] is 21 (the distinct values; those
    # occurring once give 20).  As a product the 1s vanish (720 either way): held for review.  Mbpp/170 and
    # 270 also have a 1 in their example, but the parent's output never depended on it: they stay.
    report = mine([mbpp["Mbpp/777"], mbpp["Mbpp/170"], mbpp["Mbpp/270"]], engine)
    decided = {
        c.parent_id: c.provenance for c in report.candidates if c.provenance["rule"].startswith("aggregate")
    }
    assert decided["Mbpp/777"]["status"] == "needs_review"
    assert decided["Mbpp/777"]["check"] == "examples-hide-items"
    assert "equal to 1" in decided["Mbpp/777"]["reason"]
    # (they are held by aggregate-reading instead: their product over nothing, 1, is never shown)
    assert decided["Mbpp/170"]["check"] != "examples-hide-items" != decided["Mbpp/270"]["check"]


@pytest.mark.slow
def test_second_review_findings_are_fixed_or_held(
    engine: Engine, mbpp: dict[str, Problem], humaneval_problems: dict[str, Problem]
) -> None:
    """The fresh review's fixes (docs/review.md, second round), each on the real problem it was found in."""
    he = mine(
        [humaneval_problems[i] for i in ("HumanEval/98", "HumanEval/117", "HumanEval/133", "HumanEval/156")],
        engine,
    )
    by_parent = {v.parent_id: v for v in he.variants}
    # Inherited tests had lost the power to tell the rule from a near miss ("every index", ">= n"):
    # the probe adds a mutated input that does.
    for parent, near_miss in (("HumanEval/98", "count at every index"), ("HumanEval/117", "at least n")):
        added = [t for t in by_parent[parent].tests if t.origin == "mutation"]
        assert added and by_parent[parent].provenance["near_misses"]["tests_added"] >= 1, near_miss
    # Local names follow the new property; a name that says the old one through a synonym is rejected.
    assert (
        "cubed" in by_parent["HumanEval/133"].reference
        and "squared" not in by_parent["HumanEval/133"].reference
    )
    assert "HumanEval/156" not in by_parent
    assert {c.provenance["check"] for c in he.candidates if c.parent_id == "HumanEval/156"} >= {
        "name-contradicts"
    }

    mb = mine([mbpp[i] for i in ("Mbpp/120", "Mbpp/270", "Mbpp/764", "Mbpp/75")], engine)
    held = {
        (c.parent_id, c.provenance["check"])
        for c in mb.candidates
        if c.provenance["status"] == "needs_review"
    }
    assert ("Mbpp/120", "aggregate-reading") in held  # "maximum absolute sum": abs of the sum, or of each?
    assert ("Mbpp/270", "aggregate-reading") in held  # the product over nothing (1) is never shown
    rules = {v.parent_id: (v.entry_point, v.provenance["rule"]) for v in mb.variants}
    assert rules["Mbpp/764"] == ("letter_ctr", "charclass:digits>letters")
    assert rules["Mbpp/75"] == ("find_tuples", "quantifier:all>any")
    assert "Mbpp/270" not in rules


@pytest.mark.slow
def test_third_review_findings(
    engine: Engine, mbpp: dict[str, Problem], humaneval_problems: dict[str, Problem]
) -> None:
    """The third blind review's findings (docs/review.md), each on the real problem it was found in."""
    he = mine([humaneval_problems[i] for i in ("HumanEval/69", "HumanEval/149")], engine)
    by_parent = {v.parent_id: v for v in he.variants}
    # HumanEval/69 promises positive integers: an added test stays inside what the inherited inputs show.
    assert all(t.origin != "mutation" for t in by_parent["HumanEval/69"].tests)
    assert all(x > 0 for t in by_parent["HumanEval/69"].tests for x in t.input[0])
    # HumanEval/149: sorted() without key=len passed every inherited test; the probe adds one it fails.
    added = [t for t in by_parent["HumanEval/149"].tests if t.origin == "mutation"]
    assert added
    assert any(
        sorted(t.input[0]) != t.expected and sorted(s for s in t.input[0] if len(s) % 2) != t.expected
        for t in added
    )
    # Mbpp/805 "the list whose sum is the lowest": tests whose answer only the unstated tie-break decides
    # leave the variant, so every reading that follows the text passes.
    mb = mine([mbpp["Mbpp/805"]], engine)
    (variant,) = mb.variants
    assert variant.provenance["tie_tests_dropped"] >= 1
    for test in variant.tests:
        lists = test.input[0]
        lowest = min(sum(x) for x in lists) if lists else None
        assert (
            sum(1 for x in lists if sum(x) == lowest) <= 1
            or len({repr(x) for x in lists if sum(x) == lowest}) == 1
        )


def test_an_unexplained_length_argument_is_held(mbpp: dict[str, Problem]) -> None:
    # Mbpp/556 find_Even_Pair(A, N): N is len(A) in only some tests and the text never mentions it.
    from benchmorph.validation.checks.base import CheckInput
    from benchmorph.validation.checks.parameters import unexplained_parameter

    parent = mbpp["Mbpp/556"]
    finding = unexplained_parameter(CheckInput(variant=parent, parent=parent))
    assert finding is not None and finding.severity == "review" and "(N)" in finding.reason
    # A length the text names ("the first n elements") is explained.
    named = parent.model_copy(
        update={"prompt": parent.prompt.replace("count the number", "among the first N, count")}
    )
    assert unexplained_parameter(CheckInput(variant=named, parent=named)) is None


@pytest.mark.slow
def test_tests_only_an_unstated_type_filter_decides_leave_the_variant(
    engine: Engine, mbpp: dict[str, Problem]
) -> None:
    # Mbpp/294 "the minimum value in a heterogeneous list" keeps only isinstance(i, int) items: a reader who
    # takes floats too, or leaves bools out, fails the tests where a float or False is the answer.
    report = mine([mbpp["Mbpp/294"]], engine)
    (variant,) = report.variants
    assert variant.provenance["filter_tests_dropped"] >= 1
    for test in variant.tests:
        numbers = [x for x in test.input[0] if isinstance(x, int | float) and not isinstance(x, bool)]
        ints = [x for x in test.input[0] if isinstance(x, int) and not isinstance(x, bool)]
        assert not numbers or min(numbers) == min(ints)
