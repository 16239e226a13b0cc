"""The LLM evolve generator (EvoEval's types, self-consistency refinement) through the real OpenAI SDK, a
scripted loopback server and the real sandbox.

The server plays three models: the generator (``gen``: writes problems, answers refinement requests and
judges rewordings), and the solver (``sol``: writes solutions from a prompt alone).  Each branch of the
refinement loop is one scripted behaviour on a real HumanEval problem; everything else is real: the
requests, the LLM cache, the readers, test generation, the sandbox runs of reference and solutions,
the agreement rule and finalize_variants.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from benchmorph.data.formats.native import read_native
from benchmorph.data.registry import load_benchmark
from benchmorph.evaluation.evolve_metrics import evolve_metrics
from benchmorph.execution.engine import Engine
from benchmorph.models import LLMCache
from benchmorph.morph.transform import MorphContext, run_transform
from benchmorph.morph.transforms.evolve.prompts import evolve_request, parse_program
from cli_runner import run_cli
from loopback_openai import ScriptedServer, request_text

HUMANEVAL = load_benchmark("humaneval").by_id()
REFINE = "We gave the problem, without your solution, to independent programmers"
JUDGE = "You review a retold programming exercise"


def block(code: str, calls: str = "") -> str:
    text = f"Here is the new problem.\n```python\n{code.strip()}\n```\n"
    return text + (f"Test calls:\n```python\n{calls.strip()}\n```\n" if calls else "")


# --- the scripted generator's problems -------------------------------------------------------------

VOWELS_AMBIGUOUS = '''
def strlen(string: str) -> int:
    """ Return the number of vowels in the given string.
    >>> strlen('')
    0
    >>> strlen('abc')
    1
    """
    return sum(1 for c in string if c in 'aeiou')
'''
VOWELS_CLEAR = '''
def strlen(string: str) -> int:
    """ Return the number of lowercase vowels (a, e, i, o, u) in the given string; uppercase letters
    do not count.
    >>> strlen('')
    0
    >>> strlen('abc')
    1
    """
    return sum(1 for c in string if c in 'aeiou')
'''
SQUARES_WRONG = '''
def sum_squares(numbers: list) -> int:
    """ Return the sum of the squares of the numbers in the list.
    >>> sum_squares([1, 2])
    5
    """
    return sum(numbers)
'''
SQUARES_FIXED = SQUARES_WRONG.replace("return sum(numbers)", "return sum(x * x for x in numbers)")
CREATIVE = '''
def dragon_hoard(coins: list) -> int:
    """ A dragon counts the coins of its hoard, listed as numbers: return how many coins are even.
    >>> dragon_hoard([1, 2, 4])
    2
    """
    return sum(1 for c in coins if c % 2 == 0)
'''
TOOLS = '''
def is_even(n: int) -> bool:
    """Return True when n is even."""
    return n % 2 == 0


def count_even(numbers: list) -> int:
    """ Return how many numbers of the list are even, using is_even.
    >>> count_even([1, 2, 4])
    2
    """
    return sum(1 for n in numbers if is_even(n))
'''
DECOMPOSED = '''
def distinct(l: list):
    """Return the distinct elements of l in the order they first appear.
    >>> distinct([3, 1, 3, 2])
    [3, 1, 2]
    """
    return list(dict.fromkeys(l))


def sort_descending(l: list):
    """Return the elements of l sorted from the largest to the smallest.
    >>> sort_descending([3, 1, 2])
    [3, 2, 1]
    """
    return sorted(l, reverse=True)


def unique(l: list):
    """Return sorted unique elements in a list
    >>> unique([5, 3, 5, 2, 3, 3, 9, 0, 123])
    [0, 2, 3, 5, 9, 123]
    """
    return sort_descending(distinct(l))[::-1]
'''
# The same split with an ascending sort: on what unique passes it (distinct values), sorting them
# ascending is what unique itself does, so the parent's reference solves that subproblem.
DECOMPOSED_ASCENDING = (
    DECOMPOSED.replace("sort_descending", "sort_ascending")
    .replace("from the largest to the smallest", "in ascending order")
    .replace("[3, 2, 1]", "[1, 2, 3]")
    .replace("sorted(l, reverse=True)", "sorted(l)")
    .replace("(distinct(l))[::-1]", "(distinct(l))")
)

# --- the scripted solver's solutions, chosen by what the prompt says --------------------------------

SOLUTIONS = [
    (
        "uppercase letters\n    do not count",
        "def strlen(string):\n    return sum(1 for c in string if c in 'aeiou')\n",
    ),
    ("number of vowels", "def strlen(string):\n    return sum(1 for c in string.lower() if c in 'aeiou')\n"),
    ("sum of the squares", "def sum_squares(numbers):\n    return sum(x ** 2 for x in numbers)\n"),
    ("dragon counts", "def dragon_hoard(coins):\n    return len(coins) + 1\n"),  # never agrees
    ("using is_even", "def count_even(numbers):\n    return len([n for n in numbers if is_even(n)])\n"),
    (
        "distinct elements of l",
        "def distinct(l):\n    out = []\n    for x in l:\n        if x not in out:\n            out.append(x)\n    return out\n",
    ),
    ("sorted in ascending", "def sort_ascending(l):\n    return sorted(l)\n"),
    ("from the largest to the smallest", "def sort_descending(l):\n    return sorted(l)[::-1]\n"),
]


class Script:
    """The generator and solver; records what they were asked."""

    def __init__(self, decomposed: str = DECOMPOSED) -> None:
        self.refinements: list[str] = []
        self.decomposed = decomposed

    def generator(self, text: str) -> str:
        if JUDGE in text:
            text = " ".join(text.split())  # the prompt wraps the description
            retold = text.split("Retold:", 1)[1]
            if "counting every character" not in retold and "String length." not in retold:
                return '{"preserved": false, "issues": ["half of the task is gone"]}'  # e.g. the control
            if "counting every character" in text and "zero for the empty" not in text:
                return '{"preserved": false, "issues": ["the empty string case is gone"]}'
            return '{"preserved": true, "issues": []}'
        if REFINE in text:
            self.refinements.append(text)
            if "number of vowels" in text:
                return block(VOWELS_CLEAR, "strlen('AEIOU')\nstrlen('Hello World')")
            if "sum of the squares" in text:
                return block(SQUARES_FIXED, "sum_squares([3, -1])")
            return block(CREATIVE)
        if "Rewrite the description in more words" in text:
            words = "Return the length of the given string, that is, how many characters it holds in all, "
            if "An earlier rewording was rejected: the meaning changed: the empty string case" in text:
                words += "zero for the empty string, "
            return json.dumps({"description": words + "counting every character including spaces."})
        if "Rewrite the description in as few words" in text:
            return json.dumps({"description": "String length."})
        if "def strlen" in text and "Change the meaning of the problem slightly" in text:
            return block(VOWELS_AMBIGUOUS, "strlen('Apple')\nstrlen('queue')\nstrlen('xyz')")
        if "Make the problem more difficult" in text:
            return block(SQUARES_WRONG, "sum_squares([1, 2, 3])\nsum_squares([])\nsum_squares([-2, 5])")
        if "unusual, imaginative story" in text:
            return block(CREATIVE, "dragon_hoard([2, 3])\ndragon_hoard([])")
        if "helper functions in full" in text:
            return block(TOOLS, "count_even([1, 2, 3, 4])\ncount_even([])")
        if "Split the problem into two subproblems" in text:
            return block(self.decomposed)
        return "I cannot help with that."

    def solver(self, text: str) -> str:
        for marker, code in SOLUTIONS:
            if marker in text:
                return f"```python\n{code}```"
        return "```python\ndef nothing():\n    return None\n```"

    def answer(self, body: dict[str, Any]) -> str:
        text = request_text(body)
        return self.solver(text) if body.get("model") == "sol" else self.generator(text)


def run_evolve(problems: list, tmp_path: Path, script: Script, **options: Any):
    with ScriptedServer(lambda text: "", answer_with_body=script.answer) as server:
        with Engine(workers=2) as engine, LLMCache(tmp_path / "cache.sqlite") as cache:
            ctx = MorphContext(engine=engine, cache=cache, seed=0)
            opts = {"generator": f"openai:gen@{server.base_url}", "solver": f"openai:sol@{server.base_url}"}
            report = run_transform("evolve", problems, ctx, {**opts, **options})
    return report


def by_id(records: list) -> dict[str, Any]:
    return {record.id: record for record in records}


@pytest.fixture(scope="module")
def evolved(tmp_path_factory: pytest.TempPathFactory):
    """One run over the branches that need one seed each (all types, two problems)."""
    script = Script()
    problems = [HUMANEVAL["HumanEval/23"], HUMANEVAL["HumanEval/34"]]
    report = run_evolve(problems, tmp_path_factory.mktemp("evolve"), script,
                        type="subtle,difficult,creative,tool_use,verbose,concise,decompose", rounds=1)  # fmt: skip
    return report, script


@pytest.mark.server
def test_disagreement_then_clarified_then_accepted(evolved) -> None:
    report, script = evolved
    variant = by_id(report.variants)["HumanEval/23/evolve-subtle"]
    rounds = variant.provenance["rounds"]
    assert [r["check"] for r in rounds] == ["self-consistency", "self-consistency"]
    assert rounds[0]["reason"].startswith("0 of 3 solutions agree") and rounds[1]["reason"] == "accepted"
    assert "uppercase letters" in variant.prompt and variant.reference.count("def strlen") == 1
    # The generator was shown an input where the readings differ, with both outputs.
    asked = next(text for text in script.refinements if "number of vowels" in text)
    shown = re.findall(
        r"- strlen\((.*?)\): your solution returns (\d+); 3 of 3 independent solutions return (\d+)", asked
    )
    assert shown and all(any(ch.isupper() for ch in args) and ours != theirs for args, ours, theirs in shown)
    assert variant.provenance["agreeing_solutions"] == 3 and variant.label == "subtle"


@pytest.mark.server
def test_wrong_reference_then_fixed(evolved) -> None:
    report, script = evolved
    variant = by_id(report.variants)["HumanEval/23/evolve-difficult"]
    assert (
        "x * x" in variant.reference and [r["reason"] for r in variant.provenance["rounds"]][-1] == "accepted"
    )
    # The examples were fixed by execution: the docstring shows what the fixed reference returns.
    assert ">>> sum_squares([1, 2])\n    5" in variant.prompt
    inputs = [test.input for test in variant.tests]
    assert [3, -1] in [args[0] for args in inputs[:0]] or [[3, -1]] in inputs  # the generator's new call
    assert all(test.expected == sum(x * x for x in test.input[0]) for test in variant.tests)


@pytest.mark.server
def test_rounds_run_out_then_dropped_with_reason(evolved) -> None:
    report, _ = evolved
    assert "HumanEval/23/evolve-creative" not in by_id(report.variants)
    record = by_id(report.candidates)["HumanEval/23/evolve-creative"]
    assert record.provenance["status"] == "rejected" and record.provenance["check"] == "self-consistency"
    assert record.provenance["reason"].startswith("dropped after 2 rounds; last: 0 of 3 solutions agree")


@pytest.mark.server
def test_tool_use_gives_helpers_in_the_prompt(evolved) -> None:
    report, _ = evolved
    variant = by_id(report.variants)["HumanEval/23/evolve-tool_use"]
    assert variant.entry_point == "count_even" and "return n % 2 == 0" in variant.prompt
    assert "return sum(1 for n" not in variant.prompt  # the main solution is not given away


@pytest.mark.server
def test_decompose_subproblems_with_the_parent_as_main(evolved) -> None:
    report, _ = evolved
    got = by_id(report.variants)
    subs = [got[f"HumanEval/34/evolve-decompose-{i}"] for i in (1, 2)]
    assert [s.entry_point for s in subs] == ["distinct", "sort_descending"]
    assert all(
        s.provenance["role"] == "subproblem" and s.provenance["decomposition"] == "HumanEval/34" for s in subs
    )
    # The main function solves the parent (verified), and is the parent: a copy with the subproblems
    # handed over would be solved by the parent's reference, so it is named, not published.
    assert "HumanEval/34/evolve-decompose-main" not in got
    assert all(
        s.provenance["main"] == "HumanEval/34" and "def unique" in s.provenance["main_code"] for s in subs
    )
    # The same checks as the rules half: a suite of its own, not solved by the parent's reference.
    assert all({"thin-suite", "solved-without"} <= set(s.provenance["checks_run"]) for s in subs)
    assert all(max(s.provenance["baselines"].values()) <= 1 / 3 for s in subs)
    # The subproblems' inputs include what unique passes them on the parent's own test.
    assert [[5, 3, 5, 2, 3, 3, 9, 0, 123]] in [t.input for t in subs[0].tests]
    assert [[5, 3, 2, 9, 0, 123]] in [t.input for t in subs[1].tests]
    # The decomposition ratio reads them: the reference solves the parent and both subproblems.
    problems = {p.id: p for p in [*report.variants, HUMANEVAL["HumanEval/34"]]}
    from benchmorph.data.models import Verdict

    verdicts = [Verdict(task_id=pid, status="pass", passed=1, total=1) for pid in problems]
    metrics = evolve_metrics(problems, verdicts)
    assert metrics is not None and metrics.decomposition_solved is not None
    assert (metrics.decomposition_solved.eligible, metrics.decomposition_solved.solved) == (1, 1)


@pytest.mark.server
def test_a_subproblem_the_parent_solves_drops_the_decomposition(tmp_path: Path) -> None:
    """sort_ascending on the distinct values unique passes it is what unique does: the parent's
    reference passes most of its tests, so it is rejected, and its sibling with it."""
    script = Script(DECOMPOSED_ASCENDING)
    report = run_evolve([HUMANEVAL["HumanEval/34"]], tmp_path, script, type="decompose", rounds=0)
    got = by_id(report.candidates)
    assert not report.variants
    sort = got["HumanEval/34/evolve-decompose-2"].provenance
    assert sort["check"] == "solved-without" and "the parent's reference passes" in sort["reason"]
    assert got["HumanEval/34/evolve-decompose-1"].provenance["check"] == "decompose-part"


@pytest.mark.server
def test_verbose_and_concise_judged_and_accepted(evolved) -> None:
    report, script = evolved
    got = by_id(report.variants)
    verbose, concise = got["HumanEval/23/evolve-verbose"], got["HumanEval/23/evolve-concise"]
    assert "counting every character including spaces" in verbose.prompt
    assert "String length." in concise.prompt and ">>> strlen('abc')" in concise.prompt
    assert [r["check"] for r in verbose.provenance["rounds"]] == [
        "judge",
        "judge",
    ]  # rejected once, then kept
    assert all(t.expected == len(t.input[0]) for t in verbose.tests + concise.tests)


@pytest.mark.server
def test_every_seed_and_type_is_counted(evolved) -> None:
    report, _ = evolved
    lines = [line for line in report.notes if "seeds gave an accepted variant" in line]
    kinds = {line.split(":")[0] for line in lines}
    assert kinds == {"subtle", "difficult", "creative", "tool_use", "verbose", "concise", "decompose"}
    assert any(line.startswith("decompose: 1 of 2 seeds") for line in lines)


def test_reader_takes_the_code_and_the_calls() -> None:
    request = evolve_request("difficult", HUMANEVAL["HumanEval/23"], "chat")
    program = parse_program(
        request, block(SQUARES_FIXED + "\nprint(sum_squares([1]))\n", "sum_squares([2, 3])"), "difficult"
    )
    assert not isinstance(program, str)
    assert program.calls == [[[1]], [[2, 3]]] and "print(" not in program.code
    assert program.prompt.rstrip().endswith('"""') and "x * x" not in program.prompt
    assert (
        parse_program(request, "no code here", "difficult")
        == "the answer holds no Python function that parses"
    )
    tools = parse_program(request, block(SQUARES_FIXED), "tool_use")
    assert tools == "a tool_use problem must give at least one helper function"


@pytest.mark.server
def test_cli_runs_evolve_with_models(tmp_path: Path) -> None:
    script = Script()
    with ScriptedServer(lambda text: "", answer_with_body=script.answer) as server:
        out = tmp_path / "evo.jsonl"
        result = run_cli(
            "morph", "run", "evolve", "humaneval", "--tasks", "HumanEval/34", "--type", "decompose",
            "--generator", f"openai:gen@{server.base_url}", "--solver", f"openai:sol@{server.base_url}",
            "--out", str(out), cache=tmp_path / "home",
        )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "decompose: 1 of 1 seeds gave an accepted variant" in result.stdout + result.stderr
    assert sorted(v.id for v in read_native(out)) == [
        "HumanEval/34/evolve-decompose-1", "HumanEval/34/evolve-decompose-2",
    ]  # fmt: skip


def test_rewordings_a_reviewer_would_not_publish_are_dropped() -> None:
    # Both were accepted by the 270M model as its own judge before these checks existed.
    original = HUMANEVAL["HumanEval/33"]
    from benchmorph.morph.common.docstrings import split_prompt
    from benchmorph.morph.transforms.evolve.llm import control_description, not_prose

    text = split_prompt(original).text  # type: ignore[union-attr]
    cut = text.rsplit(",", 1)[0].replace("corresponding indicies of l", "")
    assert not_prose(cut.split(" to the values")[0], text) == "the rewording stops mid-sentence"
    assert not_prose("def is_odd(l):", text) == "the rewording holds code, not a description"
    assert not_prose("Sort the values at indices divisible by three; keep the rest.", text) is None
    assert control_description("Return length of given string") == "Return length."


@pytest.mark.server
def test_a_judge_that_accepts_anything_is_not_trusted(tmp_path: Path) -> None:
    script = Script()
    lenient = script.generator

    def generator(text: str) -> str:
        return '{"preserved": true, "issues": []}' if JUDGE in text else lenient(text)

    script.generator = generator  # type: ignore[method-assign]
    report = run_evolve([HUMANEVAL["HumanEval/23"]], tmp_path, script, type="concise", rounds=2)
    assert not report.variants
    record = by_id(report.candidates)["HumanEval/23/evolve-concise"]
    assert record.provenance["check"] == "judge-control" and len(record.provenance["rounds"]) == 1


@pytest.mark.server
def test_a_solution_that_returns_one_value_for_everything_is_not_verified(tmp_path: Path) -> None:
    # The 270M model wrote a sort_third whose body falls off its end; its own solutions "agreed" with it.
    script = Script()
    normal = script.generator
    stub = VOWELS_CLEAR.replace(
        "return sum(1 for c in string if c in 'aeiou')", "if not string:\n        pass"
    )

    def generator(text: str) -> str:
        return block(stub, "strlen('ab')\nstrlen('xyz')") if "Change the meaning" in text else normal(text)

    script.generator = generator  # type: ignore[method-assign]
    report = run_evolve([HUMANEVAL["HumanEval/23"]], tmp_path, script, type="subtle", rounds=0)
    record = by_id(report.candidates)["HumanEval/23/evolve-subtle"]
    assert record.provenance["check"] == "degenerate-outputs"
    assert "returns None for every one of its" in record.provenance["reason"]
