"""The offline ``evolve`` transform's building blocks on real HumanEval problems, and the EvoEval metrics.

What the offline run makes of them (combine, tool_use, decompose, subtle) is in
``tests/morph/evolve/test_evolve_new_problems.py``; the review's cases in
``tests/morph/evolve/test_review_cases.py``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmorph.data.errors import InputError
from benchmorph.data.models import Problem, TestCase, Variant, Verdict
from benchmorph.data.registry import load_benchmark
from benchmorph.evaluation.evolve_metrics import evolve_metrics, evolve_summary
from benchmorph.execution.engine import Engine
from benchmorph.morph.transform import MorphContext, run_transform, write_morph_report
from benchmorph.morph.transforms.evolve import rules
from benchmorph.morph.transforms.evolve.helpers import document
from cli_runner import run_cli

SUBSET = ["HumanEval/15", "HumanEval/16", "HumanEval/24", "HumanEval/39", "HumanEval/75", "HumanEval/11"]
# Problems whose offline run gives both combine and tool_use variants (for the slow end-to-end test).
RUN = ["HumanEval/3", "HumanEval/15", "HumanEval/16", "HumanEval/108"]


@pytest.fixture(scope="module")
def humaneval() -> dict[str, Problem]:
    return load_benchmark("humaneval").by_id()


@pytest.fixture(scope="module")
def prepared(engine: Engine, humaneval: dict[str, Problem]) -> dict[str, Problem]:
    return {p.id: p for p in engine.prepare([humaneval[t] for t in SUBSET]).problems}


@pytest.fixture(scope="module")
def report(engine: Engine, humaneval: dict[str, Problem]):
    return run_transform("evolve", [humaneval[t] for t in RUN], MorphContext(engine=engine), {})


def test_observed_domain_rejects_what_the_tests_never_show() -> None:
    seen = rules.observe([3, 10, 0])
    assert rules.inside_observed(5, seen) and rules.inside_observed(0, seen)
    assert not rules.inside_observed(-1, seen)  # no negative in g's tests
    words = rules.observe(["abc", "Hello world"])
    assert rules.inside_observed("xyz", words) and not rules.inside_observed("a1", words)
    assert not rules.inside_observed("", words)  # never an empty string
    lists = rules.observe([[1, 2], [3]])
    assert rules.inside_observed([4], lists) and not rules.inside_observed([], lists)
    assert not rules.inside_observed([-4], lists)


def test_descriptions_are_read_whole_or_not_at_all(humaneval: dict[str, Problem]) -> None:
    # HumanEval/139 says what the function returns only after its example: cut there, it would not.
    assert rules.description(humaneval["HumanEval/139"]) is None
    text = rules.description(humaneval["HumanEval/33"])
    assert text is not None and "\n" not in text and text.startswith("This function takes a list l")
    grades = rules.description(humaneval["HumanEval/81"])
    assert grades is not None and grades.rstrip().endswith("E")  # a table's last cell gets no period
    # "Assume n > 1 and is not a prime": a precondition in words makes a problem no partner g.
    assert rules.shape(humaneval["HumanEval/59"]).assumes
    assert not rules.shape(humaneval["HumanEval/15"]).assumes


def test_composition_needs_fitting_types_and_one_parameter(prepared: dict[str, Problem]) -> None:
    f, g = prepared["HumanEval/16"], prepared["HumanEval/15"]  # str -> int, then int -> str
    fit = rules.fits(f, g)
    assert fit is not None and fit.g_param == "n" and len(fit.inside) == len(f.tests)
    back = rules.fits(g, f)  # str fits str, but "0 1 2" has digits, which count_distinct's tests never show
    assert back is not None and back.inside == []
    assert rules.fits(f, prepared["HumanEval/11"]) is None  # string_xor takes two parameters
    assert rules.fits(f, f) is None


def test_combined_prompt_and_reference(prepared: dict[str, Problem], engine: Engine) -> None:
    f, g = prepared["HumanEval/16"], prepared["HumanEval/15"]
    built = rules.combine(f, g, "n", [(["abc"], "0 1 2 3")])
    assert not isinstance(built, str)
    assert built.entry_point == "count_distinct_characters_then_string_sequence"
    assert "def count_distinct_characters_then_string_sequence(string: str) -> str:" in built.prompt
    assert "take the value that step 1 returns as `n`" in built.prompt
    assert "Step 1, on the arguments of this function: Given a string" in built.prompt.replace("\n    ", " ")
    assert ">>> count_distinct_characters_then_string_sequence('abc')" in built.prompt
    assert rules.description(f) in built.prompt.replace("\n    ", " ") or "distinct" in built.prompt
    probe = Problem(id="c", prompt=built.prompt, reference=built.reference, entry_point=built.entry_point,
                    tests=[TestCase(input=["aAbB"]), TestCase(input=["xyz"])])  # fmt: skip
    ready = engine.prepare([probe]).problems[0]
    assert [t.expected for t in ready.tests] == ["0 1 2", "0 1 2 3"]


def test_helpers_are_documented_only_where_an_oracle_agrees(
    prepared: dict[str, Problem], humaneval: dict[str, Problem], engine: Engine
) -> None:
    (helper,) = rules.nested_helpers(prepared["HumanEval/39"])
    assert helper.name == "is_prime"
    found = document(helper.name, helper.code, helper.arg, [2, 3, 5, 8, 13, 21], engine)
    assert found is not None and found.docstring == "Return True if p is a prime number, and False otherwise."
    assert found.verified == (2, 3, 5, 8, 13, 21)
    (loose,) = rules.nested_helpers(prepared["HumanEval/75"])  # for j in range(2, n): True for 0 and 1
    found = document(loose.name, loose.code, loose.arg, [1, 2, 3, 4, 97], engine)
    assert found is not None and found.docstring == (
        "Return True if n is a prime number, and False otherwise, where n is an integer of at least 2."
    )
    assert 1 not in found.verified  # outside the stated domain: no test
    # HumanEval/107's is_palindrome says False for -121, whose digits do read the same both ways.
    (palindrome,) = rules.nested_helpers(humaneval["HumanEval/107"])
    found = document(palindrome.name, palindrome.code, palindrome.arg, [1, 11, 12, 121], engine)
    assert found is not None and found.behaviour.name == "is_digit_palindrome"
    assert found.docstring.endswith(", where n is a non-negative integer.")
    assert not rules.nested_helpers(prepared["HumanEval/11"])  # xor(i, j) takes two: not movable alone
    # A helper called on what no behaviour covers is not documented.
    (digits,) = rules.nested_helpers(humaneval["HumanEval/145"])
    assert document(digits.name, digits.code, digits.arg, ["12"], engine) is None
    signed = document(digits.name, digits.code, digits.arg, [-12, 5], engine)
    assert signed is not None and signed.behaviour.name == "signed_digit_sum"


def test_llm_types_say_what_they_need(engine: Engine, humaneval: dict[str, Problem]) -> None:
    problems = [humaneval["HumanEval/0"]]
    offline = run_transform("evolve", problems, MorphContext(engine=engine), {"type": "difficult,verbose"})
    assert not offline.variants
    assert {c.provenance["reason"] for c in offline.candidates} == {
        "needs a generator model (--generator SPEC)"
    }
    # With a generator every type is asked of it (tests/morph/evolve/test_evolve_llm.py); a spec that names no model
    # is a clear input error, not a run.
    with pytest.raises(InputError, match="unknown model spec"):
        run_transform(
            "evolve", problems, MorphContext(engine=engine), {"type": "subtle", "generator": "gpt4"}
        )


def _verdict(task: str, ok: bool) -> Verdict:
    return Verdict(task_id=task, status="pass" if ok else "fail", passed=int(ok), total=1)


def test_composition_and_decomposition_ratios() -> None:
    def variant(vid: str, kind: str, parents: list[str], **extra: object) -> Variant:
        return Variant(id=vid, prompt="", reference="", parent_id=parents[0], transform="evolve", label=kind,
                       provenance={"evolve_type": kind, "parents": parents, **extra})  # fmt: skip

    problems: dict[str, Problem] = {
        "c1": variant("c1", "combine", ["a", "b"]),
        "c2": variant("c2", "combine", ["a", "c"]),
        "c3": variant("c3", "combine", ["c", "b"]),  # c unsolved: not eligible
    }
    verdicts = [_verdict("c1", True), _verdict("c2", False), _verdict("c3", True)]
    parents = [_verdict("a", True), _verdict("b", True), _verdict("c", True), _verdict("c", False)]
    metrics = evolve_metrics(problems, verdicts, [*parents[:2], _verdict("c", True)])
    assert metrics is not None and metrics.composition is not None
    assert (metrics.composition.eligible, metrics.composition.solved) == (3, 2)
    score = metrics.types["combine"]
    assert score.pass_at_1 == pytest.approx(2 / 3) and score.parent_pass_at_1 == 1.0
    assert score.drop == pytest.approx(1 / 3)
    # A run that judged the parents too (one benchmark holding both): summary.json has the ratio.
    same_run = evolve_summary(problems, [*verdicts, *parents[:2], _verdict("c", True)])["evolve"]
    assert same_run["composition"] == {"eligible": 3, "solved": 2, "ratio": pytest.approx(2 / 3)}
    assert evolve_summary({"x": Problem(id="x", prompt="", reference="")}, [_verdict("x", True)]) == {}
    half = evolve_metrics(problems, verdicts, [*parents[:2], _verdict("c", False)])
    assert half is not None and half.composition is not None and half.composition.ratio == 1.0
    assert "decomposition" not in half.to_json()
    problems.update(
        {
            "s1": variant("s1", "decompose", ["p"], role="subproblem"),
            "s2": variant("s2", "decompose", ["p"], role="subproblem"),
            "t1": variant("t1", "decompose", ["q"], role="subproblem"),
            "t2": variant("t2", "decompose", ["q"], role="subproblem"),
        }
    )
    verdicts += [_verdict("s1", True), _verdict("s2", True), _verdict("t1", True), _verdict("t2", False)]
    both = evolve_metrics(problems, verdicts, [*parents[:3], _verdict("p", True), _verdict("q", False)])
    assert both is not None
    decomposition = both.to_json()["decomposition"]
    assert decomposition["parent_solved"] == {"eligible": 1, "solved": 1, "ratio": 1.0}
    assert decomposition["parent_unsolved"] == {"eligible": 1, "solved": 0, "ratio": 0.0}
    # An offline decomposition names its one subproblem: it counts when that one is there.
    problems["u1"] = variant("u1", "decompose", ["r"], role="subproblem", subproblems=["is_prime"])
    verdicts.append(_verdict("u1", True))
    one = evolve_metrics(
        problems, verdicts, [*parents[:3], _verdict("p", True), _verdict("q", False), _verdict("r", True)]
    )
    assert one is not None and one.to_json()["decomposition"]["parent_solved"] == {
        "eligible": 2,
        "solved": 2,
        "ratio": 1.0,
    }


@pytest.mark.slow
def test_reference_scores_one_and_composes_everything(report, tmp_path: Path) -> None:
    """`benchmorph run V.jsonl --model reference`: pass@1 1.0 per type in summary.json, and
    `benchmorph sensitivity` against the reference on the originals: composition ratio 1.0."""
    out, _ = write_morph_report(report, tmp_path / "v.jsonl")
    cache = tmp_path / "cache"
    variants = run_cli("run", str(out), "--model", "reference", "--out", str(tmp_path / "var"), cache=cache)
    assert variants.returncode == 0, variants.stderr
    summary = json.loads((tmp_path / "var" / "summary.json").read_text())
    assert {kind: score["pass_at_1"] for kind, score in summary["evolve"]["types"].items()} == {
        "combine": 1.0,
        "tool_use": 1.0,
    }
    # The original baseline (the parent's reference, under the variant's name) solves none of them.
    original = tmp_path / "var-original"
    answered = run_cli("run", str(out), "--model", "original", "--out", str(original), cache=cache)
    assert answered.returncode == 0, answered.stderr
    scores = json.loads((original / "summary.json").read_text())["evolve"]["types"]
    assert scores["tool_use"]["pass_at_1"] <= 0.2 and scores["combine"]["pass_at_1"] <= 0.2
    parents = sorted({p for v in report.variants for p in v.provenance["parents"]})
    original = run_cli("run", "humaneval", "--tasks", ",".join(parents), "--model", "reference",
                       "--out", str(tmp_path / "orig"), cache=cache)  # fmt: skip
    assert original.returncode == 0, original.stderr
    paired = run_cli("sensitivity", str(tmp_path / "orig"), str(tmp_path / "var"),
                     "--json", str(tmp_path / "s.json"), cache=cache)  # fmt: skip
    assert paired.returncode == 0, paired.stderr
    assert "evolved types (EvoEval)" in paired.stdout
    (row,) = json.loads((tmp_path / "s.json").read_text())
    assert row["evolve"]["composition"]["ratio"] == 1.0
    assert row["evolve"]["types"]["combine"]["drop"] == 0.0
    html = tmp_path / "r.html"
    rendered = run_cli(
        "report", str(tmp_path / "orig"), str(tmp_path / "var"), "--html", str(html), cache=cache
    )
    assert rendered.returncode == 0, rendered.stderr
    page = html.read_text()
    assert "evolve/combine" in page and "evolve/tool_use" in page and "composition ratio" in page


def test_reviewed_combine_defects_are_refused(humaneval: dict[str, Problem]) -> None:
    """Descriptions a reviewer found cut or bent in published combine variants are not used."""
    # Constraints and the output type after the examples (HumanEval/84: "0 <= N <= 10000", "Output: a
    # string of binary number") would be lost by cutting at the examples.
    assert rules.description(humaneval["HumanEval/84"]) is None
    assert rules.description(humaneval["HumanEval/122"]) is None  # "Constraints: 1 <= k <= len(arr)"
    # "...defined as follows:" with the definition in the examples' place; "for examble:" dangling.
    for task in ("HumanEval/46", "HumanEval/63", "HumanEval/67"):
        assert rules.description(humaneval[task]) is None, task
    # Still read: examples that hold words of their own, and a note before them.
    assert rules.description(humaneval["HumanEval/16"]).startswith("Given a string, find out how many")
    assert rules.description(humaneval["HumanEval/145"]).endswith("based on their index in original list.")
    # A partner whose description states a precondition no bound reads never takes f's outputs:
    # "Restrictions: 1 <= num <= 1000" (HumanEval/156: the parameter is `number`), "will not contain
    # duplicate values" (HumanEval/135), "contains different words" (HumanEval/158).
    for g in ("HumanEval/156", "HumanEval/135", "HumanEval/158"):
        assert rules.shape(humaneval[g]).assumes, g
    assert not rules.shape(humaneval["HumanEval/16"]).assumes  # "how many distinct characters": none
    # One whose precondition is a bound takes only the outputs inside it (HumanEval/88: non-negative).
    sorted_copy = rules.shape(humaneval["HumanEval/88"])
    assert not sorted_copy.assumes and [str(b) for b in sorted_copy.pre.bounds] == ["every number in it >= 0"]
    assert not rules.receivable([1, -5], sorted_copy)
