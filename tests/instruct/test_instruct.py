"""CTF-Instruct through the CLI: reading instruction data, pairs from a scripted loopback generator
(every branch: a good pair, an unparseable answer, code that does not parse, a benchmark duplicate),
decontamination against HumanEval and MBPP+, difficulty scoring, export and mixes.

The generator is scripted (this tests plumbing and branches); the new solutions are still run in the
real sandbox, and the benchmarks are the real HumanEval and MBPP+.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from benchmorph.data.errors import InputError
from benchmorph.data.formats.native import write_native
from benchmorph.data.models import Problem
from benchmorph.data.registry import load_benchmark
from benchmorph.instruct.difficulty import heuristic_difficulty, table2
from benchmorph.instruct.pairs import _is_code
from benchmorph.instruct.read import read_instructions
from benchmorph.instruct.records import Pair, read_pairs
from cli_runner import run_cli
from loopback_openai import ScriptedServer, request_text
from paths import FIXTURES, MBPP_PLUS

DATA = FIXTURES / "instruct"
ALPACA = DATA / "alpaca30.jsonl"
HUMANEVAL_0 = load_benchmark("humaneval").by_id()["HumanEval/0"]


def pair_json(instruction: str, solution: str) -> str:
    return "Sure! Here is the counterfactual task.\n" + json.dumps(
        {"instruction": instruction, "solution": solution}
    )


# What the scripted generator answers, keyed by a name in the original solution it is shown.
SCRIPT = {
    "def sum_even(": pair_json(  # good: one word changed, different logic
        "Write a Python function `sum_even(nums)` that returns the product of the even numbers in a list.",
        "```python\ndef sum_even(nums):\n    result = 1\n    for n in nums:\n        if n % 2 == 0:\n"
        "            result *= n\n    return result\n```",
    ),
    "def fibonacci(": (  # good, in headed sections rather than JSON
        "### New instruction\nWrite a function `fibonacci(n)` that returns the n-th Lucas number using "
        "dynamic programming.\n\n### Solution\n```python\ndef fibonacci(n):\n    a, b = 2, 1\n"
        "    for _ in range(n):\n        a, b = b, a + b\n    return a\n```\n"
    ),
    "def count_vowels(": "Sorry, I cannot help with that request.",  # unparseable
    "def max_of_list(": pair_json(  # code that does not parse
        "Write a function `max_of_list(xs)` that returns the smallest element of a non-empty list.",
        "def max_of_list(xs):\n    return min(xs[0],\n",
    ),
    "def word_lengths(": pair_json(HUMANEVAL_0.prompt, HUMANEVAL_0.reference),  # a benchmark duplicate
    "def is_palindrome(": pair_json(  # same outputs on every test: not a counterfactual
        "Write a function `is_palindrome(s)` that checks whether a string reads the same backwards and forwards.",
        "def is_palindrome(s):\n    return s[::-1] == s\n",
    ),
    "def factorial(": pair_json(  # crashes on every test input
        "Write a function `factorial(n)` that computes n! iteratively.",
        "def factorial(n):\n    raise RecursionError('not today')\n",
    ),
    "def count_uppercase(": pair_json(  # renamed function: tests still run through an alias
        "Write a function `count_lowercase(s)` that counts the lowercase letters of a string.",
        "def count_lowercase(s):\n    return sum(1 for c in s if c.islower())\n",
    ),
}


def generator(body: dict[str, Any]) -> str:
    text = request_text(body)
    for marker, answer in SCRIPT.items():
        if marker in text:
            return answer
    return "I do not know."


@pytest.fixture(scope="module")
def scripted_pairs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Any, ScriptedServer]:
    root = tmp_path_factory.mktemp("instruct")
    with ScriptedServer(lambda text: "", answer_with_body=generator) as server:
        args = ["instruct", "pairs", str(ALPACA), "--generator", f"openai:gen@{server.base_url}"]
        args += ["--embedder", f"openai:emb@{server.base_url}", "--out", str(root / "pairs.jsonl")]
        args += ["--concurrency", "4", "--cache-path", str(root / "llm.sqlite")]
        result = run_cli(*args, cache=root / "cache")
        assert result.returncode == 0, result.stderr
        requests = len(server.requests)
        again = run_cli(*args, cache=root / "cache")  # resumes from the cache: no new request
        assert again.returncode == 0, again.stderr
        assert len(server.requests) == requests and "0 requests, 30 answers from the cache" in again.stdout
    return root, result, server


@pytest.mark.server
def test_pairs_cover_every_branch(scripted_pairs: tuple[Path, Any, ScriptedServer]) -> None:
    root, result, _ = scripted_pairs
    candidates = {pair.source_id: pair for pair in read_pairs(root / "pairs.candidates.jsonl")}
    assert len(candidates) == 30
    outcome = {
        sid: pair.check or pair.status for sid, pair in candidates.items() if pair.check != "unparseable"
    }
    assert outcome == {
        "code-00": "accepted",
        "code-06": "accepted",
        "code-02": "code-does-not-parse",
        "code-08": "accepted",  # the HumanEval copy: only decontamination can catch it
        "code-04": "same-outputs",
        "code-05": "does-not-run",
        "code-28": "accepted",
    }
    assert candidates["code-01"].check == "unparseable" and candidates["code-01"].raw.startswith("Sorry")
    good = candidates["code-00"]
    assert 0 < good.d_q < 0.2 and good.d_s is not None and good.d_s >= 0
    assert good.tests == {"status": "runs", "entry_point": "sum_even", "inputs": 3, "ran": 3, "changed": 3}
    assert "result *= n" in good.cf_code and good.generator.startswith("openai:gen@")
    assert "Lucas number" in candidates["code-06"].cf_instruction
    assert "line 2: '(' was never closed" in candidates["code-02"].reason
    assert candidates["code-05"].tests["status"] == "does-not-run"
    assert candidates["code-28"].tests["entry_point"] == "count_lowercase"
    assert candidates["code-08"].tests is None  # no tests shipped: nothing to run
    accepted = read_pairs(root / "pairs.jsonl")
    assert {pair.source_id for pair in accepted} == {"code-00", "code-06", "code-08", "code-28"}
    assert "parse rate 23.3% (7/30), acceptance rate 13.3% (4/30)" in result.stdout
    assert "is weak for this task" in result.stderr


@pytest.mark.usefixtures("shared_data")
@pytest.mark.server
def test_decontamination_drops_the_benchmark_duplicate(
    scripted_pairs: tuple[Path, Any, ScriptedServer], tmp_path: Path
) -> None:
    root, _, _ = scripted_pairs
    args = ["instruct", "decontaminate", str(root / "pairs.jsonl"), "--against", "humaneval,mbpp+"]
    args += ["--data", f"mbpp+={MBPP_PLUS}", "--out", str(tmp_path / "clean.jsonl")]
    result = run_cli(*args, cache=tmp_path / "cache")
    assert result.returncode == 0, result.stderr
    kept = read_pairs(tmp_path / "clean.jsonl")
    dropped = read_pairs(tmp_path / "clean.dropped.jsonl")
    assert {pair.source_id for pair in kept} == {"code-00", "code-06", "code-28"}
    assert [pair.source_id for pair in dropped] == ["code-08"]
    why = dropped[0].extra["decontamination"]
    assert why["test"] == "ngram" and why["benchmark"] == "humaneval" and why["problem"] == "HumanEval/0"
    assert "ngram humaneval" in result.stdout and "kept 3 of 4 pairs" in result.stdout
    assert "humaneval (164), mbpp+ (399)" in result.stdout


def test_reader_formats_agree(tmp_path: Path) -> None:
    """The same sample in every supported format reads to the same instruction and code."""
    code = "def add(a, b):\n    return a + b\n"
    answer = f"Use this:\n```python\n{code}```\nThen call add(1, 2)."
    rows = [
        {"instruction": "Add two numbers.", "input": "", "output": answer},
        {"instruction": "Add two numbers.", "output": answer},
        {"problem": "Add two numbers.", "solution": answer},
        {"messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Add two numbers."},
                      {"role": "assistant", "content": answer}]},
        {"conversations": [{"from": "human", "value": "Add two numbers."}, {"from": "gpt", "value": answer}]},
    ]  # fmt: skip
    (tmp_path / "mixed.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    (tmp_path / "mixed.json").write_text(json.dumps(rows))
    for path in (tmp_path / "mixed.jsonl", tmp_path / "mixed.json"):
        samples = read_instructions(path)
        assert [sample.format for sample in samples] == ["alpaca", "evol", "oss", "messages", "messages"]
        assert {(sample.instruction, sample.code) for sample in samples} == {("Add two numbers.", code)}
    pyarrow = pytest.importorskip("pyarrow.parquet")
    import pyarrow as pa

    schema = pa.schema(
        [(name, pa.string()) for name in ("instruction", "input", "output", "problem", "solution")]
    )
    pyarrow.write_table(pa.Table.from_pylist(rows[:3], schema=schema), tmp_path / "mixed.parquet")
    assert [s.format for s in read_instructions(tmp_path / "mixed.parquet")] == ["alpaca", "evol", "oss"]


@pytest.mark.parametrize(
    ("content", "where"),
    [
        ('{"instruction": "x", "input": ""}\n', "bad.jsonl:1: field 'output': missing field"),
        ('{"id": "a", "instruction": "x", "output": "y"}\n\n{"instruction": "x", "output": 3}\n',
         "bad.jsonl:3: field 'output': expected a string, got int"),
        ('{"messages": [{"role": "user", "content": "hi"}]}\n',
         "bad.jsonl:1: field 'messages': no assistant turn after the first user turn"),
        ('{"messages": [{"role": "user", "content": 5}]}\n',
         "bad.jsonl:1: field 'messages[0].content': missing text"),
        ('{"prompt": "x", "completion": "y"}\n', "bad.jsonl:1: unrecognised instruction record"),
        ('{"instruction": "x", "output": "y", "tests": [1]}\n', "bad.jsonl:1: field 'tests': expected a string"),
        ('{"id": "a", "instruction": "x", "output": "y"}\n{"id": "a", "instruction": "z", "output": "y"}\n',
         "bad.jsonl:2: field 'id': duplicate id 'a'"),
        ('{"instruction": "x", "output": "y"\n', "bad.jsonl:1: malformed JSON"),
    ],
)  # fmt: skip
def test_malformed_records_name_file_line_and_field(tmp_path: Path, content: str, where: str) -> None:
    (tmp_path / "bad.jsonl").write_text(content)
    with pytest.raises(InputError) as caught:
        read_instructions(tmp_path / "bad.jsonl")
    assert where in str(caught.value) and "\n" not in str(caught.value)


def test_a_malformed_record_is_one_line_and_exit_2(tmp_path: Path) -> None:
    (tmp_path / "bad.jsonl").write_text(
        '{"instruction": "x", "output": "y"}\n{"instruction": "x", "input": ""}\n'
    )
    result = run_cli("instruct", "read", str(tmp_path / "bad.jsonl"), cache=tmp_path / "cache", timeout=120)
    assert result.returncode == 2
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "bad.jsonl:2: field 'output': missing field" in lines[0], result.stderr


@pytest.mark.server
def test_score_heuristic_and_table2(scripted_pairs: tuple[Path, Any, ScriptedServer], tmp_path: Path) -> None:
    root, _, _ = scripted_pairs
    out = tmp_path / "scored.jsonl"
    result = run_cli(
        "instruct", "score", str(root / "pairs.jsonl"), "--out", str(out), cache=tmp_path / "cache"
    )
    assert result.returncode == 0, result.stderr
    scored = {pair.source_id: pair for pair in read_pairs(out)}
    for pair in scored.values():
        assert pair.difficulty is not None and pair.difficulty["scorer"] == "heuristic"
        assert 1 <= pair.difficulty["original"] <= 5 and 1 <= pair.difficulty["counterfactual"] <= 5
    # product-of-evens has a loop and an if where the original had a comprehension: a little harder
    good = scored["code-00"].difficulty
    assert good["counterfactual"] > good["original"]
    assert "Table 2" in result.stdout and "95%" in result.stdout


def test_table2_percentiles_and_heuristic_order() -> None:
    pairs = [
        Pair(id=str(i), source_id=str(i), instruction="", output="", code="", d_s=1 - sim,
             difficulty={"original": 2.0, "counterfactual": 2.0 + diff, "scorer": "heuristic"})
        for i, (sim, diff) in enumerate(zip(np.linspace(0, 1, 101), np.linspace(0, 1, 101), strict=True))
    ]  # fmt: skip
    table = table2(pairs)
    # 25% of pairs have similarity >= 0.75; 25% have a difference <= 0.25
    assert table["similarity"] == {25: 0.75, 50: 0.5, 75: 0.25, 95: 0.05}
    assert table["difficulty_difference"] == {25: 0.25, 50: 0.5, 75: 0.75, 95: 0.95}
    easy = heuristic_difficulty("Add two numbers.", "def add(a, b):\n    return a + b\n")
    bfs = next(s for s in read_instructions(ALPACA) if s.id == "code-26")
    assert 1 <= easy < heuristic_difficulty(bfs.prompt, bfs.code) <= 5


@pytest.mark.server
def test_score_with_an_llm_judge(scripted_pairs: tuple[Path, Any, ScriptedServer], tmp_path: Path) -> None:
    root, _, _ = scripted_pairs

    def judge(text: str) -> str:
        assert "Rate the difficulty" in text
        if "Lucas" in text:
            return "It is hard to say."  # unreadable: that side stays unscored
        return '```json\n{"difficulty": 3}\n```' if "product" in text else '{"difficulty": 2}'

    with ScriptedServer(judge) as server:
        args = ["instruct", "score", str(root / "pairs.jsonl"), "--scorer", f"openai:judge@{server.base_url}"]
        args += ["--out", str(tmp_path / "judged.jsonl"), "--cache-path", str(tmp_path / "llm.sqlite")]
        result = run_cli(*args, cache=tmp_path / "cache")
        assert result.returncode == 0, result.stderr
        assert len(server.requests) == 8
    judged = {pair.source_id: pair.difficulty for pair in read_pairs(tmp_path / "judged.jsonl")}
    assert judged["code-00"]["original"] == 2.0 and judged["code-00"]["counterfactual"] == 3.0
    assert judged["code-06"]["counterfactual"] is None
    assert "1 of 8 sides got no readable score" in result.stderr


@pytest.mark.parametrize("fmt", ["alpaca", "messages", "hf"])
@pytest.mark.server
def test_export_round_trips(
    scripted_pairs: tuple[Path, Any, ScriptedServer], tmp_path: Path, fmt: str
) -> None:
    root, _, _ = scripted_pairs
    out = tmp_path / fmt
    args = ["instruct", "export", str(root / "pairs.jsonl"), "--base", str(ALPACA), "--format", fmt]
    result = run_cli(*args, "--out", str(out), cache=tmp_path / "cache")
    assert result.returncode == 0, result.stderr
    assert "30 base samples + 4 counterfactuals = 34 rows" in result.stdout
    pairs = {pair.id: pair for pair in read_pairs(root / "pairs.jsonl")}
    base = {sample.id: sample for sample in read_instructions(ALPACA)}
    if fmt == "hf":
        datasets = pytest.importorskip("datasets")
        loaded = datasets.load_from_disk(str(out))
        assert len(loaded) == 34 and loaded[0]["id"] == "code-00" and loaded[33]["origin"] == "ctf"
    samples = read_instructions(out if fmt == "hf" else out / "train.jsonl")
    assert len(samples) == 34
    for sample in samples[:30]:  # the base, as it was read
        original = base[sample.id]
        assert (sample.prompt, sample.output, sample.code) == (
            original.prompt,
            original.output,
            original.code,
        )
    for sample in samples[30:]:  # each counterfactual: its instruction and its code
        pair = pairs[sample.id]
        assert sample.instruction == pair.cf_instruction and sample.code == pair.cf_code


@pytest.mark.server
def test_mix_writes_prefixes_of_the_selection(
    scripted_pairs: tuple[Path, Any, ScriptedServer], tmp_path: Path
) -> None:
    root, _, _ = scripted_pairs
    args = ["instruct", "mix", str(root / "pairs.jsonl"), "--base", str(ALPACA), "--ratios", "0,10,20"]
    result = run_cli(*args, "--out", str(tmp_path / "mixes"), cache=tmp_path / "cache")
    assert result.returncode == 0, result.stderr
    order = [pair.id for pair in read_pairs(root / "pairs.jsonl")]
    sizes = {}
    for ratio, wanted in (("0", 0), ("10", 3), ("20", 4)):
        rows = read_instructions(tmp_path / "mixes" / f"mix-{ratio}" / "train.jsonl")
        assert [row.id for row in rows[30:]] == order[:wanted]
        sizes[ratio] = len(rows)
    assert sizes == {"0": 30, "10": 33, "20": 34}
    assert "the 20% mixes hold fewer counterfactuals than asked" in result.stderr  # 6 wanted, 4 exist


def loopback_vector(text: str) -> np.ndarray:
    """What the loopback server's /v1/embeddings returns for a text."""
    return np.array([float(len(text)), float(text.count("a")), 1.0])


@pytest.mark.server
def test_select_kcenter_matches_algorithm_1(
    scripted_pairs: tuple[Path, Any, ScriptedServer], tmp_path: Path
) -> None:
    root, _, _ = scripted_pairs
    pairs = read_pairs(root / "pairs.jsonl")
    base = read_instructions(ALPACA)
    with ScriptedServer(lambda text: "") as server:
        args = ["instruct", "select", str(root / "pairs.jsonl"), "--base", str(ALPACA), "--k", "3"]
        args += ["--trim-quantile", "1", "--embedder", f"openai:emb@{server.base_url}"]
        args += ["--out", str(tmp_path / "selected.jsonl"), "--cache-path", str(tmp_path / "llm.sqlite")]
        result = run_cli(*args, cache=tmp_path / "cache")
    assert result.returncode == 0, result.stderr
    # Algorithm 1 by hand: base solutions are the centers; pick the farthest pair, add it, repeat.
    centers = [loopback_vector(sample.code) for sample in base]
    left = {pair.id: loopback_vector(pair.cf_code) for pair in pairs}
    expected = []
    for _ in range(3):
        far = max(
            left,
            key=lambda pid: (min(np.linalg.norm(left[pid] - c) for c in centers), -list(left).index(pid)),
        )
        expected.append(far)
        centers.append(left.pop(far))
    chosen = read_pairs(tmp_path / "selected.jsonl")
    assert [pair.id for pair in chosen] == expected
    assert [pair.extra["selection"]["rank"] for pair in chosen] == [0, 1, 2]
    assert "selected 3 of 4 pairs" in result.stdout


@pytest.mark.server
def test_select_difficulty_takes_the_hardest(
    scripted_pairs: tuple[Path, Any, ScriptedServer], tmp_path: Path
) -> None:
    root, _, _ = scripted_pairs
    scored = tmp_path / "scored.jsonl"
    assert (
        run_cli(
            "instruct", "score", str(root / "pairs.jsonl"), "--out", str(scored), cache=tmp_path / "c"
        ).returncode
        == 0
    )
    args = ["instruct", "select", str(scored), "--base", str(ALPACA), "--k", "2", "--method", "difficulty"]
    result = run_cli(*args, "--out", str(tmp_path / "hard.jsonl"), cache=tmp_path / "cache")
    assert result.returncode == 0, result.stderr
    pairs = read_pairs(scored)
    hardest = sorted(pairs, key=lambda pair: -pair.difficulty["counterfactual"])[:2]
    assert [pair.id for pair in read_pairs(tmp_path / "hard.jsonl")] == [pair.id for pair in hardest]
    unscored = run_cli(
        *args[:2],
        str(root / "pairs.jsonl"),
        *args[3:],
        "--out",
        str(tmp_path / "x.jsonl"),
        cache=tmp_path / "cache",
    )
    assert unscored.returncode == 2 and "run `benchmorph instruct score` first" in unscored.stderr


@pytest.mark.usefixtures("shared_data")
@pytest.mark.server
def test_build_runs_the_whole_recipe(tmp_path: Path) -> None:
    with ScriptedServer(lambda text: "", answer_with_body=generator) as server:
        args = ["instruct", "build", str(ALPACA), "--generator", f"openai:gen@{server.base_url}"]
        args += ["--embedder", f"openai:emb@{server.base_url}", "--data", f"mbpp+={MBPP_PLUS}", "--k", "2"]
        args += [
            "--format",
            "hf",
            "--out",
            str(tmp_path / "build"),
            "--cache-path",
            str(tmp_path / "llm.sqlite"),
        ]
        result = run_cli(*args, cache=tmp_path / "cache")
    assert result.returncode == 0, result.stderr
    manifest = json.loads((tmp_path / "build" / "manifest.json").read_text())
    steps = manifest["steps"]
    assert list(steps) == ["read", "pairs", "decontaminate", "score", "select", "export"]
    assert steps["pairs"]["parse_rate"] == round(7 / 30, 4) and steps["pairs"]["acceptance_rate"] == round(
        4 / 30, 4
    )
    assert steps["decontaminate"]["kept"] == 3 and steps["decontaminate"]["dropped"] == {"ngram humaneval": 1}
    assert steps["select"]["selected"] == 2 and steps["export"]["added"] == 2
    for number, name in enumerate(("read", "pairs", "decontaminate", "score", "select", "export"), start=1):
        assert f"build {number}/6: {name}" in result.stderr
    datasets = pytest.importorskip("datasets")
    exported = datasets.load_from_disk(str(tmp_path / "build" / "export"))
    assert len(exported) == 32 and exported["origin"].count("ctf") == 2
    assert "code-08/ctf" not in exported["id"]  # the HumanEval copy was dropped before selection


LOCAL_SAMPLES = 10


@pytest.mark.usefixtures("shared_data")
@pytest.mark.slow
@pytest.mark.llm
def test_build_with_the_embedded_model_offline(tmp_path: Path) -> None:
    """`--generator local` on the first 10 samples: the tiny base model's pairs are poor, and the run says so.

    Ten, not the file's 30: the real model's plumbing (generation, parsing, embedding, selection) is the
    subject; the scripted-server tests above cover every sample's path.  The 30 took 8 of the suite's
    minutes on 2 cores."""
    args = ["instruct", "build", str(ALPACA), "--generator", "local", "--embedder", "local", "--k", "5"]
    args += ["--limit", str(LOCAL_SAMPLES)]
    args += ["--data", f"mbpp+={MBPP_PLUS}", "--max-tokens", "160", "--out", str(tmp_path / "build")]
    result = run_cli(
        *args, "--cache-path", str(tmp_path / "llm.sqlite"), cache=tmp_path / "cache", timeout=1500
    )
    assert result.returncode == 0, result.stderr
    manifest = json.loads((tmp_path / "build" / "manifest.json").read_text())
    pairs = manifest["steps"]["pairs"]
    assert pairs["answers"] == LOCAL_SAMPLES and 0 <= pairs["acceptance_rate"] <= pairs["parse_rate"] <= 1
    assert f"acceptance rate {pairs['acceptance_rate']:.1%}" in result.stderr
    if pairs["acceptance_rate"] < 0.5:
        assert "is weak for this task" in result.stderr
    selected = manifest["steps"]["select"]["selected"]
    assert selected <= min(5, manifest["steps"]["decontaminate"]["kept"])
    rows = read_instructions(tmp_path / "build" / "export" / "train.jsonl")
    assert len(rows) == LOCAL_SAMPLES + selected
    candidates = read_pairs(tmp_path / "build" / "pairs.candidates.jsonl")
    assert len(candidates) == LOCAL_SAMPLES
    # The tiny model often answers with code where the instruction belongs: those are rejected.
    for pair in read_pairs(tmp_path / "build" / "pairs.jsonl"):
        assert not _is_code(pair.cf_instruction), pair.cf_instruction


@pytest.mark.parametrize(
    ("text", "is_code"),
    [
        ("```python\ndef f(s):\n    return s", True),
        ("def count(s):\n    return len(s)", True),
        ("import re", True),
        ("Write a function `count(s)` that counts the consonants in a string.", False),
        ("Return the sum of the odd numbers.", False),
        ("sort", False),  # a bare name parses but defines nothing
        ('def f(s):\n    """Count the vowels in s."""\n', False),  # a completion-style prompt
    ],
)
def test_an_instruction_that_is_code_is_told_apart(text: str, is_code: bool) -> None:
    assert _is_code(text) is is_code


@pytest.mark.server
def test_decontamination_against_our_variant_file(
    scripted_pairs: tuple[Path, Any, ScriptedServer], tmp_path: Path
) -> None:
    """A variant file of ours is read like a benchmark: a pair repeating one of its problems is dropped."""
    root, _, _ = scripted_pairs
    variant = Problem(
        id="Mine/1",
        prompt='def sum_even(nums):\n    """Returns the PRODUCT of the even numbers in a list!"""\n',
        entry_point="sum_even",
        reference="def sum_even(nums):\n    return 0\n",
    )
    write_native(tmp_path / "variants.jsonl", [variant])
    args = [
        "instruct",
        "decontaminate",
        str(root / "pairs.jsonl"),
        "--against",
        str(tmp_path / "variants.jsonl"),
    ]
    result = run_cli(*args, "--ngram", "8", "--out", str(tmp_path / "clean.jsonl"), cache=tmp_path / "cache")
    assert result.returncode == 0, result.stderr
    dropped = read_pairs(tmp_path / "clean.dropped.jsonl")
    assert [pair.source_id for pair in dropped] == ["code-00"]
    assert (
        "8-gram 'returns the product of the even numbers in'" in dropped[0].extra["decontamination"]["reason"]
    )


@pytest.mark.server
def test_pairs_from_a_base_model_in_two_completions(tmp_path: Path) -> None:
    """A completion-mode generator writes the new instruction, then is asked for its solution."""

    def base_model(text: str) -> str:
        if "def sum_even(" not in text:
            return ""  # an empty instruction: unparseable, and no second request
        if text.endswith("### Counterfactual solution\n```python\n"):
            return "def sum_even(nums):\n    return sum(n for n in nums if n % 2 == 1)"
        return "Write a Python function `sum_even(nums)` that returns the sum of the odd numbers in a list.\n"

    (tmp_path / "two.jsonl").write_text("".join(ALPACA.read_text().splitlines(keepends=True)[:2]))
    with ScriptedServer(base_model) as server:
        spec = f"openai:base@{server.base_url}?mode=completion"
        args = ["instruct", "pairs", str(tmp_path / "two.jsonl"), "--generator", spec]
        args += ["--embedder", f"openai:emb@{server.base_url}", "--out", str(tmp_path / "pairs.jsonl")]
        result = run_cli(*args, "--cache-path", str(tmp_path / "llm.sqlite"), cache=tmp_path / "cache")
        assert result.returncode == 0, result.stderr
        completions = [
            r for r in server.requests if r["path"].endswith("/completions") and "prompt" in r["body"]
        ]
        assert len(completions) == 3, [
            (r["path"], r["body"].get("prompt", "")[-40:]) for r in server.requests
        ]
    pairs = {pair.source_id: pair for pair in read_pairs(tmp_path / "pairs.candidates.jsonl")}
    assert pairs["code-00"].status == "accepted" and "odd numbers" in pairs["code-00"].cf_instruction
    assert pairs["code-00"].tests["changed"] == 2 and "n % 2 == 1" in pairs["code-00"].cf_code
    assert pairs["code-01"].check == "unparseable"
