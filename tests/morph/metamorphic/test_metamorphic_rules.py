"""The offline metamorphic generator and the ``metamorphic`` transform on real HumanEval and MBPP+ problems.

The generator's promises are checked on every problem of both benchmarks
(text differs enough to defeat exact matching, meaning words and numbers
survive, renames are consistent in the AST, K distinct variants), and the
transform's in the real sandbox on a few of them (outputs kept, provenance,
a broken rewrite rejected).
"""

from __future__ import annotations

import ast
import re
import warnings
from collections import Counter
from functools import cache
from pathlib import Path

import pytest

from benchmorph.data.errors import InputError
from benchmorph.data.models import Problem, TestCase
from benchmorph.data.registry import load_benchmark, select_problems
from benchmorph.execution import Engine
from benchmorph.morph.finalize import Draft
from benchmorph.morph.transform import MorphContext, get_transform, run_transform
from benchmorph.morph.transforms.metamorphic import metamorphic
from benchmorph.morph.transforms.metamorphic.rules import (
    PHRASINGS,
    PROPERTY_WORDS,
    TEMPLATES,
    propose_variants,
    rename_code,
)
from benchmorph.testgen.types import param_names
from benchmorph.validation.distances import description_text
from benchmorph.validation.diversity import bleu4
from cli_runner import run_cli
from paths import MBPP_PLUS as MBPP
from paths import require_shared

K = 5


@cache
def problems(name: str) -> tuple[Problem, ...]:
    if name == "mbpp+":
        require_shared(MBPP)
        return tuple(load_benchmark("mbpp+", MBPP).problems)
    return tuple(load_benchmark(name).problems)


@cache
def proposals(name: str, seed: int = 0) -> dict[str, object]:
    return {problem.id: propose_variants(problem, K, seed) for problem in problems(name)}


def _normal(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", text.lower()).split())


# The test's own reading of "meaning": every number and every property word of the original prose.
_NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?![\w])")


def _meaning(prompt: str, entry_point: str) -> tuple[Counter[str], Counter[str]]:
    text = description_text(prompt, entry_point)
    words = Counter(
        w.lower() for w in re.findall(r"[A-Za-z][A-Za-z'-]*", text) if w.lower() in PROPERTY_WORDS
    )
    return Counter(_NUMBER.findall(text)), words


def test_the_template_pool_is_large_keyed_by_types_and_adds_no_meaning() -> None:
    assert len(TEMPLATES) >= 20
    keys = Counter(template.key for template in TEMPLATES)
    assert set(keys) == {"any", "text", "numbers", "collection"} and min(keys.values()) >= 4
    assert len({template.slug for template in TEMPLATES}) == len(TEMPLATES)
    texts = [template.text for template in TEMPLATES]
    texts += [alt for phrasing in PHRASINGS for alt in phrasing.alternatives]
    for text in texts:
        plain = re.sub(r"\{\w+\}", " ", text)  # placeholders are filled with the original's own words
        words = {w.lower() for w in re.findall(r"[A-Za-z][A-Za-z'-]*", plain)}
        assert not (words & PROPERTY_WORDS), (text, words & PROPERTY_WORDS)
        assert not re.search(r"\d", text), text


@pytest.mark.parametrize("name", ["humaneval", "mbpp+"])
def test_every_problem_gets_k_distinct_variants_that_defeat_exact_matching(name: str) -> None:
    made = proposals(name)
    skipped = {pid: p.skipped for pid, p in made.items() if p.skipped}  # type: ignore[attr-defined]
    assert len(skipped) <= 1, skipped  # HumanEval/115: its description is not the docstring
    for problem in problems(name):
        variants = made[problem.id].variants  # type: ignore[attr-defined]
        if problem.id in skipped:
            continue
        assert len(variants) == K, problem.id
        assert len({_normal(v.prompt) for v in variants}) == K, problem.id
        original = description_text(problem.prompt, problem.entry_point)
        for variant in variants:
            text = description_text(variant.prompt, variant.entry_point)
            assert _normal(text) != _normal(original), variant
            assert bleu4(text, original) < 1.0
            assert _normal(variant.prompt) != _normal(problem.prompt)


@pytest.mark.parametrize("name", ["humaneval", "mbpp+"])
def test_every_number_and_property_word_of_the_original_prose_survives(name: str) -> None:
    for problem in problems(name):
        numbers, words = _meaning(problem.prompt, problem.entry_point)
        for variant in proposals(name)[problem.id].variants:  # type: ignore[attr-defined]
            new_numbers, new_words = _meaning(variant.prompt, variant.entry_point)
            assert not numbers - new_numbers, (problem.id, numbers - new_numbers)
            assert not words - new_words, (problem.id, words - new_words)


def _parse(source: str) -> ast.Module:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", (SyntaxWarning, DeprecationWarning))  # MBPP's "\w" in plain strings
        return ast.parse(source + ("\n    pass\n" if source.rstrip().endswith(":") else ""))


def _entry_args(source: str, entry_point: str) -> list[str]:
    tree = _parse(source)
    node = next(
        n
        for n in ast.walk(tree)
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name == entry_point
    )
    return [a.arg for a in node.args.posonlyargs + node.args.args]


@pytest.mark.parametrize("name", ["humaneval", "mbpp+"])
def test_renames_are_consistent_in_signature_reference_and_docstring(name: str) -> None:
    renamed = 0
    for problem in problems(name):
        old_args = param_names(problem) or []
        for variant in proposals(name)[problem.id].variants:  # type: ignore[attr-defined]
            new_args = _entry_args(variant.reference, variant.entry_point)
            assert len(new_args) == len(old_args)
            assert new_args == [variant.renames.get(arg, arg) for arg in old_args]
            if problem.reference.startswith(problem.prompt):
                assert variant.reference.startswith(variant.prompt)
                assert _entry_args(variant.prompt, variant.entry_point) == new_args
            names = {n.id for n in ast.walk(_parse(variant.reference)) if isinstance(n, ast.Name)}
            for old, new in variant.renames.items():
                renamed += 1
                assert old not in names and new not in _entry_args(problem.reference, problem.entry_point)
                # The prose (less the scenario sentence, whose type words are its own) names no old name.
                prose = description_text(variant.prompt, variant.entry_point)
                prose = prose.replace(" ".join(variant.scenario.split()), "")
                assert not re.search(rf"(?<![\w.])(?<!\w'){re.escape(old)}(?!\w)", prose), (problem.id, old)
    assert renamed > 100


def test_the_generator_is_deterministic_by_seed() -> None:
    first = proposals("humaneval", 0)
    again = {p.id: propose_variants(p, K, 0) for p in problems("humaneval")}
    other = {p.id: propose_variants(p, K, 1) for p in problems("humaneval")}
    prompts = {pid: [v.prompt for v in p.variants] for pid, p in first.items()}  # type: ignore[attr-defined]
    assert prompts == {pid: [v.prompt for v in p.variants] for pid, p in again.items()}
    assert prompts != {pid: [v.prompt for v in p.variants] for pid, p in other.items()}


def test_variants_of_one_seed_use_different_templates_and_names() -> None:
    variants = proposals("humaneval")["HumanEval/1"].variants  # type: ignore[attr-defined]
    assert len({v.template for v in variants}) == K
    assert len({tuple(sorted(v.renames.items())) for v in variants}) == K  # paren_string -> 5 names


def test_humaneval_0_reads_as_the_same_task_in_a_scenario() -> None:
    problem = {p.id: p for p in problems("humaneval")}["HumanEval/0"]
    variant = proposals("humaneval")["HumanEval/0"].variants[0]  # type: ignore[attr-defined]
    # The parameters are English words the prose uses ("list of numbers", "threshold"): kept.
    assert variant.renames == {}
    assert "`numbers` (a list of numbers) and `threshold` (a number)" in " ".join(variant.prompt.split())
    assert "whether in given list of numbers, are any two numbers closer" in " ".join(variant.prompt.split())
    assert variant.prompt.split(">>>", 1)[1] == problem.prompt.split(">>>", 1)[1]  # examples untouched


def test_a_single_letter_the_prose_uses_becomes_another_letter_everywhere() -> None:
    variant = proposals("humaneval")["HumanEval/129"].variants[0]  # type: ignore[attr-defined]
    new = variant.renames["k"]
    assert len(new) == 1 and "grid" not in variant.renames
    text = " ".join(variant.prompt.split())
    assert f"a positive integer {new}," in text and f"grid = [ [1,2,3], [4,5,6], [7,8,9]], {new} = 3" in text
    assert not re.search(r"(?<![\w'])k(?![\w'])", text)


def test_the_article_a_is_never_renamed_and_keeps_its_sibling_letters() -> None:
    for variant in proposals("humaneval")["HumanEval/13"].variants:  # type: ignore[attr-defined]
        assert variant.renames == {}  # a, b: "two integers a and b"


def test_mbpp_contracts_follow_the_renamed_parameters() -> None:
    problem = {p.id: p for p in problems("mbpp+")}["Mbpp/2"]
    variant = proposals("mbpp+")["Mbpp/2"].variants[0]  # type: ignore[attr-defined]
    assert problem.contract and "test_tup1" in problem.contract
    assert variant.contract is not None and "test_tup1" not in variant.contract
    for new in variant.renames.values():
        assert f"isinstance({new}, tuple)" in variant.contract


def _problem(
    reference: str, prompt: str, entry_point: str = "f", tests: list[list[object]] | None = None
) -> Problem:
    return Problem(
        id="Toy/0",
        prompt=prompt,
        entry_point=entry_point,
        reference=reference,
        tests=[TestCase(input=args) for args in (tests or [[3], [5]])],
    )


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


def test_rename_entry_point_reaches_recursion_examples_and_prose() -> None:
    prompt = 'def count_down(num):\n    """Return count_down of num.\n    >>> count_down(3)\n    0\n    """\n'
    reference = prompt + "    return 0 if num <= 0 else count_down(num - 1)\n"
    problem = _problem(reference, prompt, "count_down")
    variants = propose_variants(problem, 2, 0, rename_entry_point=True).variants
    for variant in variants:
        assert variant.entry_point != "count_down" and variant.entry_point.endswith("_count_down")
        assert "count_down(" not in variant.prompt.replace(variant.entry_point + "(", "")
        assert f">>> {variant.entry_point}(3)" in variant.prompt
        assert f"else {variant.entry_point}({variant.renames['num']} - 1)" in variant.reference
        assert "num" not in re.findall(r"\w+", variant.reference)


def test_problems_that_are_not_functions_are_skipped_with_the_reason() -> None:
    stdin = Problem(
        id="S/0", kind="stdin", prompt="Read n.", reference="print(input())", tests=[TestCase(input="1")]
    )
    assert "stdin" in (propose_variants(stdin, 3).skipped or "")


TASKS = "HumanEval/0,HumanEval/13,HumanEval/60,HumanEval/112,HumanEval/129,HumanEval/147"


def test_the_transform_publishes_verified_variants_with_provenance(engine: Engine) -> None:
    chosen = select_problems(problems("humaneval"), tasks=TASKS)
    report = run_transform("metamorphic", chosen, MorphContext(engine=engine, seed=3), {"variants": 3})
    assert len(report.variants) == 18 and report.problems_with_variant == 6
    assert [v.id for v in report.variants[:3]] == [f"HumanEval/0/meta-{i}" for i in range(3)]
    prepared = {p.id: p for p in engine.prepare(chosen).problems}
    for variant in report.variants:
        assert (variant.label, variant.transform) == ("metamorphic", "metamorphic")
        provenance = variant.provenance
        assert provenance["generator"] == "rules" and provenance["seed"] == 3
        assert provenance["template"] and "renames" in provenance and provenance["behavior_change"] == 0.0
        assert provenance["seed_acceptance"] == {"accepted": 3, "variants": 3, "attempts": 3, "rate": 1.0}
        assert 0.0 < provenance["bleu_external"] < 1.0 and 0.0 < provenance["bleu_internal"] <= 1.0
        assert provenance["bleu_tokenizer"] == "13a"
        parent = prepared[variant.parent_id]
        assert provenance["parent_prompt"] == parent.prompt
        # Validation (b): the variant's tests are the parent's inputs with the parent's outputs.
        assert [t.input for t in variant.tests] == [t.input for t in parent.tests]
        assert [t.expected for t in variant.tests] == [t.expected for t in parent.tests]
    assert any("diversity (BLEU-4" in note and "'13a'" in note for note in report.notes)
    assert any(note.startswith("acceptance per seed problem: mean 1.000") for note in report.notes)


def test_a_rewrite_whose_reference_changes_an_output_is_rejected(engine: Engine) -> None:
    parent = engine.prepare(select_problems(problems("humaneval"), tasks="HumanEval/60")).problems[0]
    drafts, records, skipped = metamorphic.rules_drafts([parent], 0, 2, False)
    assert len(drafts) == 2 and not records and not skipped
    broken = drafts[1].variant
    drafts[1] = Draft(
        broken.model_copy(update={"reference": broken.reference.replace("range(", "range(1 + ")}),
        parent,
        outputs="keep",
        examples="keep",
        parent_defects="record",
    )
    report = metamorphic.publish([parent], drafts, records, MorphContext(engine=engine), 2, [])
    assert [v.id for v in report.variants] == ["HumanEval/60/meta-0"]
    rejected = next(c for c in report.candidates if c.id == "HumanEval/60/meta-1")
    assert rejected.provenance["check"] == "keeps-outputs"
    assert rejected.provenance["seed_acceptance"]["rate"] == 0.5


def test_a_rewrite_that_changes_the_signature_is_rejected_before_the_sandbox() -> None:
    parent = {p.id: p for p in problems("humaneval")}["HumanEval/60"]
    variant = metamorphic._variant(parent, propose_variants(parent, 1).variants[0], 0)
    wider = variant.reference.replace("def sum_to_n(m: int):", "def sum_to_n(m: int, extra):")
    assert metamorphic.check_signature(parent, variant.prompt, wider, "sum_to_n") is not None
    assert metamorphic.check_signature(parent, variant.prompt, variant.reference, "sum_to_n") is None


def test_the_llm_branch_without_its_module_is_one_clear_error(
    monkeypatch: pytest.MonkeyPatch, engine: Engine
) -> None:
    monkeypatch.setattr(metamorphic, "AGENTS_MODULE", "benchmorph.morph.not_there")
    chosen = select_problems(problems("humaneval"), tasks="HumanEval/0")
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
        "morph", "run", "metamorphic", "humaneval", "--tasks", "HumanEval/2,HumanEval/7", "--variants", "2",
        "--rename-entry-point", "--out", str(out), cache=tmp_path / "cache",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "4 variants of 2 of 2 problems" in result.stdout
    assert "external (variant vs original)" in " ".join(result.stderr.split())  # notes go to stderr
    variants = load_benchmark(str(out)).problems
    assert all(v.entry_point != "truncate_number" for v in variants if v.parent_id == "HumanEval/2")  # type: ignore[attr-defined]
    listed = run_cli("morph", "list", cache=tmp_path / "cache")
    row = next(line for line in listed.stdout.splitlines() if "metamorphic" in line)
    assert "optional" in row


def test_quoted_example_data_is_not_renamed_and_parent_defects_do_not_drop_a_seed(engine: Engine) -> None:
    # Mbpp/301 renames `d`, and its example's dictionary has a key 'd': data, kept.  Mbpp/556's `N` is
    # never explained, in the parent as in every rewording: the seed keeps its variants, the finding noted.
    chosen = select_problems(problems("mbpp+"), tasks="Mbpp/301,Mbpp/556")
    report = run_transform("metamorphic", chosen, MorphContext(engine=engine), {"variants": 2})
    assert sorted(v.id for v in report.variants) == [
        "Mbpp/301/meta-0",
        "Mbpp/301/meta-1",
        "Mbpp/556/meta-0",
        "Mbpp/556/meta-1",
    ]
    for variant in report.variants:
        if variant.parent_id == "Mbpp/301":
            assert "{'c': {'d': {}}}" in variant.prompt and "d" in variant.provenance["renames"]
        else:
            assert variant.provenance["parent_findings"] == ["unexplained-parameter"]
