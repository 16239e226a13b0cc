"""Test generation end to end, on the real sandbox and real HumanEval/HumanEval+ problems.

What must hold: an input the contract rejects, or one the reference raises or
times out on, never becomes a test; the reduced suite keeps the whole suite's
coverage and mutant kills; LLM seed inputs are read from prose/JSON/Python
literals and kept with origin ``llm``, and a malicious answer runs nothing on
the host; the CLI augments, resumes and scores.
"""

from __future__ import annotations

import itertools
import json
import random
import re
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest

from benchmorph.data.formats.native import read_native
from benchmorph.data.models import Problem, TestCase
from benchmorph.data.registry import load_benchmark
from benchmorph.execution import Engine
from benchmorph.execution.protocol import Coverage
from benchmorph.models import GenerationParams, LLMCache
from benchmorph.testgen.augment import (
    CONTRACT_MARK,
    AugmentOptions,
    augment_benchmark,
    augment_problem,
    checked_reference,
)
from benchmorph.testgen.reduce import achieved, greedy_cover
from benchmorph.testgen.score import mutant_set, restrict_to_origins, score_suites
from benchmorph.testgen.seed_llm import SeedGenerator
from cli_runner import run_cli
from loopback_openai import ScriptedServer
from paths import HUMANEVAL_PLUS_INPUTS as PLUS_INPUTS
from paths import ROOT, require_shared

HUMANEVAL = load_benchmark("humaneval").by_id()


@cache
def humaneval_plus() -> dict[str, Problem]:
    require_shared(PLUS_INPUTS)
    return load_benchmark("humaneval+", PLUS_INPUTS).by_id()


def base_only(problem: Problem) -> Problem:
    return restrict_to_origins([problem], ["base"])[0]


# ------------------------------------------------------------------ the sandbox's part


def test_coverage_is_traced_in_the_sandbox_per_input(engine: Engine) -> None:
    problem = humaneval_plus()["HumanEval/0"]  # has_close_elements: a loop with an early return
    early, late = engine.coverage(problem, [[[1.0, 1.5], 1.0], [[1.0, 3.0], 1.0]])
    lines = {item[1] for item in early if item[0] == "line"}
    assert lines and lines <= set(range(1, problem.reference.count("\n") + 2))
    returns_true = next(
        n for n, text in enumerate(problem.reference.splitlines(), 1) if "return True" in text
    )
    assert ("line", returns_true) in early and ("line", returns_true) not in late
    assert any(item[0] == "arc" for item in early)  # branch arcs, not only lines


def test_stdin_programs_are_traced_too(engine: Engine) -> None:
    reference = "n = int(input())\nif n > 0:\n    print('pos')\nelse:\n    print('neg')\n"
    problem = Problem(id="sign", kind="stdin", prompt="Print the sign.", reference=reference)
    positive, negative = engine.coverage(problem, ["3\n", "-2\n"])
    assert ("line", 3) in positive and ("line", 5) not in positive
    assert ("line", 5) in negative and ("arc", 2, 5) in negative


def test_run_inputs_gives_every_input_its_own_status_past_a_timeout(engine: Engine) -> None:
    from benchmorph.execution.limits import Limits

    reference = "def f(n):\n    if n < 0:\n        raise ValueError('negative')\n    while n > 50:\n        pass\n    return 2 * n\n"
    problem = Problem(id="f", prompt="", entry_point="f", reference=reference)
    runs = engine.run_inputs(problem, [[1], [-1], [99], [3]], limits=Limits(min_time_limit=0.3))
    assert [run.status for run in runs] == ["ok", "error", "timeout", "ok"]
    assert runs[0].output == 2 and runs[3].output == 6 and "negative" in (runs[1].error or "")


def test_forged_coverage_records_are_refused() -> None:
    checked = Coverage.from_wire({"l": [1, 2], "a": [[-1, 1], [1, 2]]})
    assert checked is not None and checked.to_wire() == {"l": [1, 2], "a": [[-1, 1], [1, 2]]}
    for forged in (
        {"l": ["x"], "a": []},
        {"l": [], "a": [[1]]},
        {"l": []},
        [1, 2],
        {"l": [], "a": [[1, "2"]]},
    ):
        assert Coverage.from_wire(forged) is None


def test_greedy_cover_keeps_required_and_covers_everything() -> None:
    items = [frozenset({1}), frozenset({1, 2, 3}), frozenset({2}), frozenset({3, 4}), frozenset({4})]
    chosen = greedy_cover(items, required=[0], cost=[1, 1, 1, 1, 1])
    assert 0 in chosen and achieved(items, chosen) == achieved(items, range(len(items)))
    assert chosen == [0, 1, 3]


def test_greedy_cover_drops_a_test_that_later_ones_made_redundant() -> None:
    # The greedy takes 0 first (three items), then 1 and 2 for what 0 lacks; together 1 and 2
    # achieve everything 0 does, so 0 goes again.  Required tests stay whatever they add.
    items = [frozenset({1, 2, 3}), frozenset({1, 2, 4}), frozenset({3, 5})]
    assert greedy_cover(items) == [1, 2]
    assert greedy_cover(items, required=[0]) == [0, 1, 2]
    assert achieved(items, greedy_cover(items)) == achieved(items, range(3))


def test_greedy_cover_takes_an_exactly_smaller_cover_of_what_the_required_tests_miss() -> None:
    # The greedy takes 0 (four items), then 2 and 3 for 1, 2 and 7; none is redundant, yet 2 and 5
    # together achieve all seven.
    items = [frozenset(s) for s in ({3, 4, 5, 6}, {6}, {1, 2, 4, 5}, {5, 6, 7}, {4, 5}, {2, 3, 6, 7})]
    assert greedy_cover(items) == [2, 5]
    # With 0 required, what it misses (1, 2, 7) takes one test: 2 or 5 alone cannot, so two.
    chosen = greedy_cover(items, required=[0])
    assert 0 in chosen and len(chosen) == 3 and achieved(items, chosen) == achieved(items, range(6))


def test_greedy_cover_finds_the_fewest_tests_as_a_brute_force_does() -> None:
    # Random instances, some with far more than two dozen items the required test misses: the
    # answer achieves everything and has as few tests as the smallest cover found by trying all.
    rng = random.Random(3)
    for _ in range(60):  # the greedy alone takes a test too many on five of them
        width, count = rng.randint(20, 40), rng.randint(8, 14)
        items = [frozenset(rng.sample(range(width), rng.randint(2, width // 4))) for _ in range(count)]
        items.append(frozenset(range(0, width, 5)))  # required
        universe = achieved(items, range(len(items)))
        fewest = next(
            size
            for size in range(1, len(items) + 1)
            for subset in itertools.combinations(range(len(items) - 1), size - 1)
            if achieved(items, [*subset, len(items) - 1]) == universe
        )
        chosen = greedy_cover(items, required=[len(items) - 1])
        assert achieved(items, chosen) == universe and len(items) - 1 in chosen
        assert len(chosen) == fewest, (items, chosen)


# ------------------------------------------------------------------ validity


def test_an_input_outside_the_contract_is_never_kept(engine: Engine) -> None:
    problem = base_only(humaneval_plus()["HumanEval/0"])  # contract: threshold > 0, numbers are numbers
    assert CONTRACT_MARK in checked_reference(problem)
    outside = [[[1.0, 2.0], -1.0], [[1.0, 2.0], 0.0], [[1.0, "2"], 0.5]]
    result = augment_problem(
        problem, engine, AugmentOptions(per_problem=60, reduce=False), seed_inputs=outside
    )
    assert result.rejected.get("contract", 0) >= len(outside)
    assert result.found > 0
    for test in result.problem.tests:
        numbers, threshold = test.input
        assert threshold > 0 and all(isinstance(v, (int, float)) for v in numbers), test.input
        assert test.has_expected
    assert {test.origin for test in result.problem.tests} <= {"base", "mutation"}


def test_an_input_the_reference_raises_or_times_out_on_is_never_kept(engine: Engine) -> None:
    reference = (
        "def double(n):\n"
        "    if n < 0:\n"
        "        raise ValueError('negative')\n"
        "    while n > 50:\n"
        "        pass\n"
        "    return 2 * n\n"
    )
    problem = Problem(
        id="double",
        prompt="def double(n):\n",
        entry_point="double",
        reference=reference,
        tests=[TestCase(input=[n]) for n in (1, 7, 20)],
    )
    options = AugmentOptions(per_problem=40, reduce=False, input_time_limit=0.2, budget_s=30)
    result = augment_problem(problem, engine, options, seed_inputs=[[-4], [80]])
    assert result.rejected.get("raises", 0) >= 1 and result.rejected.get("timeout", 0) >= 1
    assert result.found > 0
    for test in result.problem.tests:
        assert 0 <= test.input[0] <= 50 and test.expected == 2 * test.input[0]


# ------------------------------------------------------------------ reduction


@pytest.mark.slow
def test_the_reduced_suite_keeps_coverage_and_mutant_kills_on_real_problems(engine: Engine) -> None:
    problems = [
        base_only(humaneval_plus()[task]) for task in ("HumanEval/12", "HumanEval/26", "HumanEval/106")
    ]
    results = augment_benchmark(problems, engine, AugmentOptions(per_problem=300))
    for result in results:
        full, reduced = result.unreduced, result.problem
        assert full is not None and result.skipped is None
        assert len(reduced.tests) < len(full.tests)
        assert [t.input for t in reduced.tests[: result.base_tests]] == [
            t.input for t in full.tests[: result.base_tests]
        ]  # the base tests are always kept
        full_cover = set().union(*engine.coverage(full, [t.input for t in full.tests]))
        reduced_cover = set().union(*engine.coverage(reduced, [t.input for t in reduced.tests]))
        assert reduced_cover == full_cover
        assert result.mutants == len(mutant_set(full))
    fulls = [result.unreduced for result in results]
    scores = score_suites(fulls, {"full": fulls, "reduced": [r.problem for r in results]}, engine)
    assert scores[0].killed_mutants == scores[1].killed_mutants
    assert scores[1].killed == sum(result.killed for result in results)


# ------------------------------------------------------------------ LLM seeds


LONGEST = HUMANEVAL["HumanEval/12"]
LLM_ANSWER = """Sure! Here are some corner cases for `longest`:

1. An empty list: `[]`
```json
[["a", "bb", "ccc"]]
[["tie", "toe"]]
```
- longest(['x', 'yy', 'zzz', 'yy'])
- (["", ""],)
This one is wrong on purpose: longest(5)
Hope this helps.
"""


def seed_generator(server: ScriptedServer, tmp_path: Path) -> SeedGenerator:
    return SeedGenerator(
        f"openai:seeds@{server.base_url}?mode=chat",
        LLMCache(tmp_path / "llm.sqlite"),
        GenerationParams(temperature=0.0, max_tokens=512),
    )


@pytest.mark.server
def test_a_scripted_llm_answer_is_read_and_its_valid_inputs_kept_as_llm(
    tmp_path: Path, engine: Engine
) -> None:
    with ScriptedServer(lambda text: LLM_ANSWER) as server:
        generator = seed_generator(server, tmp_path)
        result = augment_problem(
            LONGEST, engine, AugmentOptions(per_problem=20, reduce=False), generator=generator
        )
        generator.cache.close()
    assert len(server.requests) == 1
    llm = [test.input for test in result.problem.tests if test.origin == "llm"]
    assert ["a", "bb", "ccc"] in [args[0] for args in llm]
    assert ["x", "yy", "zzz", "yy"] in [args[0] for args in llm]
    assert ["tie", "toe"] in [args[0] for args in llm]
    assert all(isinstance(args[0], list) for args in llm)  # longest(5) is not a list of strings: not read
    assert result.llm_answers == 1 and result.llm_inputs >= 4
    by_input = {json.dumps(test.input): test for test in result.problem.tests}
    assert by_input[json.dumps([["tie", "toe"]])].expected == "tie"  # expected outputs are the reference's


@pytest.mark.server
def test_a_malicious_answer_is_rejected_without_running_on_the_host(tmp_path: Path, engine: Engine) -> None:
    marker = tmp_path / "pwned"
    answer = "\n".join(
        [
            f"longest(__import__('os').system('touch {marker}'))",
            f"[__import__('os').system('touch {marker}')]",
            f"[[open('{marker}', 'w').write('x')]]",
            "[(lambda: __import__('os'))()]",
        ]
    )
    with ScriptedServer(lambda text: answer) as server:
        generator = seed_generator(server, tmp_path)
        result = augment_problem(
            LONGEST, engine, AugmentOptions(per_problem=5, reduce=False), generator=generator
        )
        generator.cache.close()
    assert not marker.exists()
    assert result.llm_answers == 1 and result.llm_inputs == 0
    assert not any(test.origin == "llm" for test in result.problem.tests)


# ------------------------------------------------------------------ variants


def test_a_variant_gets_tests_from_its_parents_inputs_and_its_own_reference(engine: Engine) -> None:
    parent = HUMANEVAL["HumanEval/12"]
    shortest = parent.prompt + "    if not strings:\n        return None\n    return min(strings, key=len)\n"
    variant = parent.model_copy(update={"id": "HumanEval/12/shortest", "reference": shortest, "tests": []})
    result = augment_problem(
        variant, engine, AugmentOptions(per_problem=30), seed_inputs=[test.input for test in parent.tests]
    )
    assert result.skipped is None
    base = [test for test in result.problem.tests if test.origin == "base"]
    assert [test.input for test in base] == [test.input for test in parent.tests]
    for test in result.problem.tests:
        strings = test.input[0]
        assert test.expected == (min(strings, key=len) if strings else None)


def test_the_journal_resumes_only_what_the_same_question_produced(tmp_path: Path, engine: Engine) -> None:
    journal = tmp_path / "aug.journal.jsonl"
    first = [base_only(humaneval_plus()[task]) for task in ("HumanEval/0", "HumanEval/12")]
    options = AugmentOptions(per_problem=20, reduce=False)
    done = augment_benchmark(first, engine, options, journal=journal)
    assert len(journal.read_text().splitlines()) == 2
    with journal.open("a") as handle:
        handle.write('{"key": "torn')  # a crash mid-line
    more = [*first, base_only(humaneval_plus()["HumanEval/55"])]
    again = augment_benchmark(more, engine, options, journal=journal)
    assert [r.problem for r in again[:2]] == [r.problem for r in done]  # read back, not recomputed
    assert len(journal.read_text().splitlines()) == 4  # 2 + the torn line + the one new problem
    changed = AugmentOptions(per_problem=21, reduce=False)
    augment_benchmark(first[:1], engine, changed, journal=journal)
    assert len(journal.read_text().splitlines()) == 5  # other options: computed again


# ------------------------------------------------------------------ CLI and bench


@pytest.mark.slow
def test_cli_augments_resumes_and_scores(tmp_path: Path) -> None:
    out = tmp_path / "aug.jsonl"
    tasks = "HumanEval/0,HumanEval/12,HumanEval/55"
    args = ["tests", "augment", "humaneval", "--tasks", tasks, "--out", str(out), "--per-problem", "60"]
    first = run_cli(*args, cache=tmp_path / "cache")
    assert first.returncode == 0, first.stderr
    assert (
        "new tests kept after reduction" in first.stdout
        and "3 problems have no input contract" in first.stderr
    )
    augmented = read_native(out)
    assert [p.id for p in augmented] == tasks.split(",")
    originals = HUMANEVAL
    for problem in augmented:
        assert [t.input for t in problem.tests if t.origin == "base"] == [
            t.input for t in originals[problem.id].tests
        ]
        assert {t.origin for t in problem.tests} <= {"base", "mutation"}
        assert all(t.has_expected for t in problem.tests)
    journal = tmp_path / "aug.journal.jsonl"
    assert len(journal.read_text().splitlines()) == 3

    again = run_cli(*args, cache=tmp_path / "cache")
    assert again.returncode == 0, again.stderr
    assert len(journal.read_text().splitlines()) == 3  # every problem came from the journal
    assert read_native(out) == augmented

    scored = run_cli(
        "tests", "score", "humaneval", "--tasks", tasks, "--against", str(out), "--by-origin",
        "--json", str(tmp_path / "scores.json"), cache=tmp_path / "cache",
    )  # fmt: skip
    assert scored.returncode == 0, scored.stderr
    assert "lower bounds" in scored.stdout
    rows = {row["suite"]: row for row in json.loads((tmp_path / "scores.json").read_text())}
    assert set(rows) == {"humaneval", "aug.jsonl (base tests)", "aug.jsonl"}
    assert rows["aug.jsonl (base tests)"]["killed"] == rows["humaneval"]["killed"]
    assert rows["aug.jsonl"]["killed"] >= rows["humaneval"]["killed"]
    assert rows["aug.jsonl"]["tests"] >= rows["humaneval"]["tests"]


def test_cli_rejects_a_bad_mutant_count(tmp_path: Path) -> None:
    done = run_cli("tests", "score", "humaneval", "--limit", "1", "--mutants", "many", cache=tmp_path / "c")
    assert done.returncode == 2 and "--mutants" in done.stderr and "Traceback" not in done.stderr


def test_bench_runs_on_a_tiny_slice(tmp_path: Path) -> None:
    numbers = tmp_path / "numbers.json"
    # The code before the saturation stop runs beside ours where this checkout's history has it.
    bench = ROOT / "bench" / "testgen.py"
    found = re.search(r'^BEFORE_REV = "(\w+)"', bench.read_text(), re.M)
    assert found is not None
    known = subprocess.run(["git", "-C", str(ROOT), "cat-file", "-e", f"{found[1]}^{{commit}}"], check=False)
    before = found[1] if known.returncode == 0 else "none"
    done = subprocess.run(
        [sys.executable, str(bench), "--limit", "3", "--per-problem", "40", "--before-per-problem", "40"]
        + [
            "--workers",
            "2",
            "--before",
            before,
            "--json",
            str(numbers),
            "--suites",
            str(tmp_path / "suites"),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert re.search(r"^\| HumanEval\+ \(base \+ plus inputs\) \| \d+\.\d \| \d+/\d+ \|", done.stdout, re.M)
    assert "goal (ours kills >= HumanEval+'s mutants" in done.stdout
    assert re.search(r"^\| after \| 2 \| 3 \| \d+ \| [\d./]+ -> [\d./]+ \| \d+ \+ \d+ \|", done.stdout, re.M)
    data = json.loads(numbers.read_text())
    assert [row["suite"] for row in data["suites"]][0] == "HumanEval+ base tests"
    assert all(row["problems"] == 3 for row in data["suites"])
    runs = {run["version"].split()[0]: run for run in data["runs"]}
    assert runs["after"]["problems"] == 3 and runs["after"]["mutants"] > 0
    if before != "none":
        assert runs["before"]["problems"] == 3 and runs["before"]["mutants"] == runs["after"]["mutants"]
        # The kept suites, judged alike: the kills of each, and what one kills and the other does not.
        suites = [tmp_path / "suites" / f"humaneval-{version}-w2.jsonl" for version in ("before", "after")]
        compared = tmp_path / "compared.json"
        done = subprocess.run(
            [
                sys.executable,
                str(bench),
                "--workers",
                "2",
                "--compare",
                *map(str, suites),
                "--json",
                str(compared),
            ],
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
        result = json.loads(compared.read_text())
        assert result["problems"] == 3
        assert result["killed"] == [runs["before"]["killed"], runs["after"]["killed"]]


def test_saturation_replay_runs_on_a_tiny_slice(tmp_path: Path) -> None:
    record = tmp_path / "record.json"
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "saturation.py"), "--limit", "2", "--budget-s", "3"]
        + ["--record", str(record), "--replay", str(record)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert len(json.loads(record.read_text())["records"]) == 2
    rows = re.findall(r"^\| (\d+|none) \| (\d+) \| (\d+) \| \d+ \| \d+ \| (\d+) \|", done.stdout, re.M)
    assert [row[0] for row in rows][-2:] == ["500", "none"]
    killed = [int(row[1]) for row in rows]
    measured = [int(row[3]) for row in rows]
    # A longer window never keeps fewer kills nor measures fewer inputs; the whole search loses nothing.
    assert killed == sorted(killed) and measured == sorted(measured) and rows[-1][2] == "0"
