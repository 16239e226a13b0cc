"""The offline metamorphic generator and the ``metamorphic`` transform on real HumanEval and MBPP+ problems.

The generator retells the whole problem (names, scenario, sentences, worked examples) and keeps its
meaning; these tests check both halves on every HumanEval problem (names consistent through the AST,
examples read back and valued by the reference, every vocabulary swap inside one meaning class), and the
transform in the real sandbox on a few (outputs kept, the retelling gates run, provenance).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from benchmorph.data.errors import InputError
from benchmorph.data.models import Problem, TestCase
from benchmorph.data.prompt import anatomy
from benchmorph.data.registry import load_benchmark, select_problems
from benchmorph.execution import Engine
from benchmorph.morph.transform import MorphContext, get_transform, run_transform
from benchmorph.morph.transforms.metamorphic import metamorphic
from benchmorph.morph.transforms.metamorphic.lexicon import KEEP, PHRASES
from benchmorph.morph.transforms.metamorphic.renaming import rename_code
from benchmorph.morph.transforms.metamorphic.retelling import retelling_draft
from benchmorph.morph.transforms.metamorphic.rules import propose_variants
from benchmorph.morph.transforms.metamorphic.scenes import SCENES
from benchmorph.morph.transforms.metamorphic.worked import is_edge, parent_styles
from benchmorph.validation.concepts import atoms, concepts
from benchmorph.validation.examples.recompute import reference_parameters, scan_problem
from benchmorph.validation.examples.scan import same_value
from cli_runner import run_cli
from paths import MBPP_PLUS as MBPP

K = 5


@pytest.fixture(scope="module")
def humaneval(engine: Engine) -> dict[str, Problem]:
    """Every HumanEval problem, prepared: its tests carry the reference's outputs."""
    return {problem.id: problem for problem in engine.prepare(load_benchmark("humaneval").problems).problems}


_PROPOSED: dict[str, object] = {}


def proposals(humaneval: dict[str, Problem]) -> dict[str, object]:
    """K retellings of every problem, made once for the module."""
    if not _PROPOSED:
        _PROPOSED.update({pid: propose_variants(problem, K) for pid, problem in humaneval.items()})
    return _PROPOSED


def _def_params(prompt: str, name: str) -> list[str] | None:
    tree = anatomy(prompt, name).tree
    for node in ast.walk(tree) if tree is not None else []:
        if isinstance(node, ast.FunctionDef) and node.name == name:
            return [arg.arg for arg in node.args.args]
    return None


def test_every_retelling_renames_the_function_and_parameters_consistently(
    humaneval: dict[str, Problem],
) -> None:
    made = 0
    for pid, proposal in proposals(humaneval).items():
        parent = humaneval[pid]
        old = reference_parameters(parent) or []
        for variant in proposal.variants:  # type: ignore[attr-defined]
            made += 1
            assert variant.entry_point != parent.entry_point, pid
            new = [variant.renames.get(name, name) for name in old]
            assert _def_params(variant.prompt, variant.entry_point) == new, pid
            problem = Problem(
                id="x", prompt=variant.prompt, entry_point=variant.entry_point, reference=variant.reference
            )
            assert reference_parameters(problem) == new, pid
            for name in old:
                if name not in variant.renames:  # kept, and the reason said
                    assert name in variant.details["names_kept"], (pid, name)
            assert all(len(name) > 1 for name in variant.renames.values()), (pid, variant.renames)
            # A name in backticks is one of the function's or its parameters' new names.
            shown = set(re.findall(r"`([A-Za-z_]\w*)`", anatomy(variant.prompt, variant.entry_point).content))
            assert shown <= set(new) | {variant.entry_point}, (pid, shown)
            assert parent.entry_point not in re.findall(
                r"\w+", variant.reference.replace(variant.prompt, "")
            ), pid
    assert made >= 500


def test_new_worked_examples_are_read_back_valued_by_the_reference_in_another_style(
    humaneval: dict[str, Problem],
) -> None:
    for pid, proposal in proposals(humaneval).items():
        parent = humaneval[pid]
        outputs = {repr(t.input): t.expected for t in parent.tests}
        old = scan_problem(parent)
        edges = [repr(list(e.args)) for e in old.examples if is_edge(e.args, e.claimed())]
        for variant in proposal.variants:  # type: ignore[attr-defined]
            as_problem = Problem(
                id="x", prompt=variant.prompt, entry_point=variant.entry_point, reference=variant.reference
            )
            scan = scan_problem(as_problem)
            assert scan.examples and not scan.unverifiable, pid
            for example in scan.examples:
                key = repr(list(example.args))
                if key in outputs:  # drawn from the tests: the reference's output on them
                    assert same_value(example.claimed(), outputs[key]), (pid, example.args)
            assert variant.details["example_style"] not in parent_styles(old, parent.prompt), pid
            shown = {repr(list(e.args)) for e in scan.examples}
            assert all(edge in shown for edge in edges), (pid, edges)  # the parent's edge cases stay


def test_every_vocabulary_swap_stays_inside_one_meaning_class() -> None:
    for entry in PHRASES:
        assert entry.phrase not in KEEP
        for alternative in entry.alternatives:
            assert atoms(entry.phrase) == atoms(alternative), (entry.phrase, alternative)


def test_scenario_nouns_state_no_requirement() -> None:
    for scene in SCENES:
        for kind in ("numbers", "texts", "text", "word"):
            noun = scene.noun(kind)
            if noun is not None:
                assert not concepts(f"{noun.plural} {noun.singular} {noun.name.replace('_', ' ')}"), noun


def test_the_generator_is_deterministic_by_seed_and_siblings_differ(humaneval: dict[str, Problem]) -> None:
    parent = humaneval["HumanEval/12"]
    first = [v.prompt for v in propose_variants(parent, K, seed=1).variants]
    assert first == [v.prompt for v in propose_variants(parent, K, seed=1).variants]
    assert first != [v.prompt for v in propose_variants(parent, K, seed=2).variants]
    assert len(set(first)) == len(first) >= 3


def test_keyword_calls_of_the_module_functions_are_renamed_but_not_of_builtins() -> None:
    source = (
        "def f(lst, key=None):\n    return sorted(lst, key=key) if not lst else f(lst=lst[1:], key=key)\n"
    )
    renamed = rename_code(source, {"lst": "values", "key": "order"})
    assert renamed == (
        "def f(values, order=None):\n"
        "    return sorted(values, key=order) if not values else f(values=values[1:], order=order)\n"
    )


def test_unsafe_renames_are_refused() -> None:
    assert rename_code("def f(x):\n    return f'{x}'\n", {"x": "y"}) is None
    assert rename_code("def f(x):\n    return locals()['x']\n", {"x": "y"}) is None
    assert rename_code("def f(x):\n    global x\n    return x\n", {"x": "y"}) is None


def test_mbpp_contracts_follow_the_renamed_parameters(engine: Engine) -> None:
    parent = engine.prepare(select_problems(load_benchmark("mbpp+", MBPP).problems, tasks="Mbpp/2")).problems[
        0
    ]
    assert parent.contract and "test_tup1" in parent.contract
    for variant in propose_variants(parent, 2).variants:
        assert variant.contract is not None and "test_tup1" not in variant.contract
        for new in variant.renames.values():
            assert f"isinstance({new}, tuple)" in variant.contract


def test_problems_that_are_not_functions_are_skipped_with_the_reason() -> None:
    stdin = Problem(
        id="S/0", kind="stdin", prompt="Read n.", reference="print(input())", tests=[TestCase(input="1")]
    )
    assert "stdin" in (propose_variants(stdin, 3).skipped or "")


# 7, 23, 30, 35 and 48 still yield at K=3 since the gates read synonym swaps back (review24h); 31 and 90
# yielded at K=3 before (rev24)
TASKS = "HumanEval/7,HumanEval/23,HumanEval/30,HumanEval/35,HumanEval/48"


def test_the_transform_publishes_gated_variants_with_provenance(engine: Engine) -> None:
    chosen = select_problems(load_benchmark("humaneval").problems, tasks=TASKS)
    report = run_transform("metamorphic", chosen, MorphContext(engine=engine, seed=0), {"variants": 3})
    assert report.variants and report.problems_with_variant >= 3
    prepared = {p.id: p for p in engine.prepare(chosen).problems}
    gates = {"residual-runs", "residual-bleu", "residual-difflib", "constraints-kept", "meaning-atoms"}
    for variant in report.variants:
        provenance = variant.provenance
        assert (variant.label, provenance["generator"], provenance["status"]) == (
            "metamorphic",
            "rules",
            "accepted",
        )
        assert gates <= set(provenance["checks_run"]), provenance["checks_run"]
        figures = provenance["figures"]
        assert figures["residual_bleu4"] <= 0.45 and figures["residual_runs8"] <= 0.20
        assert figures["residual_difflib"] <= 0.60 and figures["conditions_kept"] == figures["conditions"]
        assert provenance["renamed_from"] == prepared[variant.parent_id].entry_point
        assert (
            "scenario_terms" in provenance
            and provenance["parent_prompt"] == prepared[variant.parent_id].prompt
        )
        parent = prepared[variant.parent_id]
        assert [t.input for t in variant.tests] == [t.input for t in parent.tests]
        assert [t.expected for t in variant.tests] == [t.expected for t in parent.tests]
        assert 0.0 < provenance["bleu_external"] < 1.0
    accepted = [c for c in report.candidates if c.provenance["status"] == "accepted"]
    siblings = [c for c in accepted if c.id.endswith(("meta-1", "meta-2"))]
    assert all("sibling-distinct" in c.provenance["checks_run"] for c in siblings)
    assert any(note.startswith("retelling gates") for note in report.notes)
    assert any("DyCodeEval reports" in note for note in report.notes)


def test_a_rewrite_whose_reference_changes_an_output_is_rejected(engine: Engine) -> None:
    # Mbpp/66 (HumanEval/90 until the turned-round rule left it one retelling at K = 2, HumanEval/57 until
    # the gates read synonym swaps back, review24h: no HumanEval seed keeps two at K = 2 since).
    parent = engine.prepare(
        select_problems(load_benchmark("mbpp+", MBPP).problems, tasks="Mbpp/66")
    ).problems[0]
    drafts, records, skipped = metamorphic.rules_drafts([parent], 0, 2, True, 3)
    assert len(drafts) == 2 and not skipped
    broken = drafts[1].variant
    assert "> 0" in broken.reference
    drafts[1] = retelling_draft(
        # zeros counted as positive: a list with a zero now gives one more
        broken.model_copy(update={"reference": broken.reference.replace("> 0", ">= 0")}),
        parent,
    )
    report = metamorphic.publish([parent], drafts, records, MorphContext(engine=engine), 2, [])
    assert [v.id for v in report.variants] == ["Mbpp/66/meta-0"]
    rejected = next(c for c in report.candidates if c.id == "Mbpp/66/meta-1")
    assert rejected.provenance["check"] in ("keeps-outputs", "examples", "runs-on-inputs")


def test_the_llm_branch_without_its_module_is_one_clear_error(
    monkeypatch: pytest.MonkeyPatch, engine: Engine
) -> None:
    monkeypatch.setattr(metamorphic, "AGENTS_MODULE", "benchmorph.morph.not_there")
    chosen = select_problems(load_benchmark("humaneval").problems, tasks="HumanEval/0")
    with pytest.raises(InputError, match="use --generator rules"):
        run_transform(
            "metamorphic", chosen, MorphContext(engine=engine), {"generator": "openai:m@http://x/v1"}
        )


def test_only_the_llm_generator_asks_for_an_llm_cache() -> None:
    transform = get_transform("metamorphic")
    assert not transform.uses_llm(transform.parse_options({}))
    assert transform.uses_llm(transform.parse_options({"generator": "local"}))


def test_morph_run_metamorphic_from_the_command_line(tmp_path: Path) -> None:
    out = tmp_path / "v.jsonl"
    result = run_cli(
        "morph", "run", "metamorphic", "humaneval", "--tasks", "HumanEval/7,HumanEval/23", "--variants", "2",
        "--out", str(out), cache=tmp_path / "cache",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert re.search(r"\d variants of 2 of 2 problems", result.stdout), result.stdout
    assert "external (variant vs original)" in " ".join(result.stderr.split())  # notes go to stderr
    variants = load_benchmark(str(out)).problems
    assert variants and all(v.entry_point not in ("filter_by_substring", "strlen") for v in variants)
    kept = run_cli(
        "morph", "run", "metamorphic", "humaneval", "--tasks", "HumanEval/7", "--variants", "1",
        "--rename-entry-point=false", "--out", str(tmp_path / "k.jsonl"), cache=tmp_path / "cache",
    )  # fmt: skip
    assert kept.returncode == 0, kept.stderr
    assert all(
        v.entry_point == "filter_by_substring" for v in load_benchmark(str(tmp_path / "k.jsonl")).problems
    )


def test_parent_defects_do_not_drop_a_seed(engine: Engine) -> None:
    # Mbpp/597's parent finding (unexplained-parameter: a parameter its sentence does not explain) holds
    # for every rewording: it is noted, and decides nothing.  (Mbpp/556, then Mbpp/101 were the example until
    # the description gate, then the turned-round rule, refused their retellings.)
    # Since review24d keeps the parent's only example, no seed with a parent finding yields (Mbpp/597's
    # retellings now keep too many of the parent's 8-word runs): what is asserted is that the finding
    # rejects no candidate, and that a variant that passes carries it.
    chosen = select_problems(load_benchmark("mbpp+", MBPP).problems, tasks="Mbpp/597")
    report = run_transform("metamorphic", chosen, MorphContext(engine=engine), {"variants": 2})
    assert report.candidates
    assert not any(c.provenance.get("check") == "unexplained-parameter" for c in report.candidates)
    for variant in report.variants:
        assert variant.provenance["parent_findings"] == ["unexplained-parameter"]
