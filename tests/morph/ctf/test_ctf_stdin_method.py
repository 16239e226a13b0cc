"""`morph ctf` on competitive-programming problems: stdin programs and LeetCode-style methods.

The paper built CTF-Code from LiveCodeBench: statements with sample blocks,
programs judged on their printed output.  A scripted loopback server plays
generator and solver (it is a stand-in for plumbing only); every solution it
returns runs for real in the sandbox, labels come from the engine's own
token-wise comparison, and the variants are then evaluated with
`benchmorph run` as a user would.
"""

from __future__ import annotations

import base64
import json
import pickle
import zlib
from pathlib import Path
from typing import Any

import pytest

from benchmorph.data.formats.native import read_native
from benchmorph.data.models import Problem, Variant
from benchmorph.execution.engine import Engine
from benchmorph.morph.transforms.ctf.prompts import STATEMENT_END, parse_proposal, proposal_request
from benchmorph.validation.distances import description_distance
from benchmorph.validation.examples.statements import (
    recompute_statement_examples,
    scan_leetcode,
    scan_samples,
)
from cli_runner import run_cli
from loopback_openai import ScriptedServer, request_text
from paths import FIXTURES

GENERATOR_MARK = "counterfactual versions of programming problems"


def fixture(name: str, problem_id: str) -> dict[str, Any]:
    for line in (FIXTURES / name).read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        if row["id"] == problem_id:
            return row
    raise KeyError(problem_id)


def proposal(statement: str) -> str:
    return "Sure, here it is:\n" + json.dumps({"description": statement})


def fenced(code: str) -> str:
    return f"Here is my solution.\n```python\n{code}```\n"


def scripted(generator: dict[str, list[str]], solver: dict[str, list[str]]) -> Any:
    """An ``answer_with_body``: generator answers by parent marker and seed, solver answers by marker.

    Solver markers are tried in order, so a counterfactual's marker must come
    before the marker of the original statement it was made from.
    """

    def answer(body: dict[str, Any]) -> str:
        text = request_text(body)
        seed = int(body.get("seed") or 0)
        table = generator if GENERATOR_MARK in text else solver
        for marker, answers in table.items():
            if marker in text:
                return answers[seed % len(answers)]
        return "no idea"

    return answer


# ---------------------------------------------------------------- the fixtures (references given)

SUM = fixture("stdin_problems.jsonl", "stdin/sum_numbers")
TWO_SUM = fixture("method_problems.jsonl", "method/two_sum")
READ = "import sys\nnumbers = [int(t) for t in sys.stdin.read().split()]\n"
STALE_SAMPLE = "\nSample Input 1\n\n1 2 3\n\nSample Output 1\n\n6\n"
TWO_SUM_EXAMPLE = "\n\nExample 1:\n\nInput: nums = [2,7,11,15], target = 9\nOutput: [0,1]\n\nclass Solution:"
REVERSED = (
    "class Solution:\n    def twoSum(self, nums: list[int], target: int) -> list[int]:\n"
    "        seen = {}\n        for j, value in enumerate(nums):\n"
    "            if target - value in seen:\n                return [j, seen[target - value]]\n"
    "            seen[value] = j\n        return []\n"
)


def _sum_statement(old: str, new: str, extra: str = "") -> str:
    assert old in SUM["prompt"]
    return SUM["prompt"].replace(old, new) + extra


def _two_sum_statement(old: str, new: str, example: str = TWO_SUM_EXAMPLE) -> str:
    assert old in TWO_SUM["prompt"]
    return TWO_SUM["prompt"].replace(old, new).replace("\n\nclass Solution:", example)


FIXTURE_GENERATOR = {
    "whitespace-separated integers": [
        # 0: CTF, and its sample block still shows the original's output (6): it must be rewritten.
        proposal(_sum_statement("print their sum", "print their maximum", STALE_SAMPLE)),
        # 1: the same problem in other words: Robust.
        proposal(_sum_statement("print their sum", "print the sum of them")),
        # 2: the solver's solutions disagree: Bad.
        proposal(_sum_statement("print their sum", "print their median")),
        # 3: a CTF whose sample input the new reference cannot run: rejected by `examples`.
        proposal(
            _sum_statement("print their sum", "print their minimum", STALE_SAMPLE.replace("1 2 3", "1 two 3"))
        ),
    ],
    "def twoSum": [
        # 0: CTF (the pair comes back reversed); its LeetCode example shows the old order.
        proposal(_two_sum_statement("(i < j)", "(i > j)")),
        # 1: the method's parameters changed: unparseable.
        proposal(_two_sum_statement("target: int)", "goal: int)", "\n\nclass Solution:")),
        # 2: same answers: Robust.
        proposal(
            _two_sum_statement("Exactly one answer exists", "Exactly one pair exists", "\n\nclass Solution:")
        ),
        # 3: a CTF whose example names a parameter the method does not have: rejected by `examples`.
        proposal(
            _two_sum_statement("(i < j)", "(j < i)", TWO_SUM_EXAMPLE.replace("nums = [2", "numbers = [2"))
        ),
    ],
}

FIXTURE_SOLVER = {
    # Three programs that print the same numbers with different spacing: they agree token-wise.
    "their maximum": [
        fenced(READ + "print(max(numbers, default=0))\n"),
        fenced(READ + 'print(max(numbers) if numbers else 0, end=" \\n\\n")\n'),
        fenced(READ + 'print("  " + str(max([0] if not numbers else numbers)))\n'),
    ],
    "the sum of them": [
        fenced(READ + "print(sum(numbers))\n"),
        fenced(READ + 'print(sum(numbers), end="\\n\\n")\n'),
        fenced(READ + "total = 0\nfor n in numbers:\n    total += n\nprint(total)\n"),
    ],
    "their median": [
        fenced(READ + "numbers.sort()\nprint(numbers[len(numbers) // 2] if numbers else 0)\n"),
        fenced(READ + "print(sum(numbers) // max(1, len(numbers)))\n"),
        fenced(READ + "print(len(numbers))\n"),
    ],
    "their minimum": [fenced(READ + "print(min(numbers, default=0))\n")] * 3,
    "(i > j)": [fenced(REVERSED)] * 3,
    "(j < i)": [fenced(REVERSED)] * 3,
    "one pair exists": [fenced(TWO_SUM["reference"])] * 3,
}


@pytest.mark.server
def test_ctf_on_the_stdin_and_method_fixtures(tmp_path: Path) -> None:
    problems = tmp_path / "problems.jsonl"
    problems.write_text(json.dumps(SUM) + "\n" + json.dumps(TWO_SUM) + "\n", encoding="utf-8")
    answer = scripted(FIXTURE_GENERATOR, FIXTURE_SOLVER)
    with ScriptedServer(lambda text: "", answer_with_body=answer) as server:
        args = ["morph", "ctf", str(problems), "--generator", f"openai:gen@{server.base_url}"]
        args += ["--solver", f"openai:sol@{server.base_url}", "--embedder", f"openai:emb@{server.base_url}"]
        args += ["--candidates", "4", "--solutions", "3", "--out", str(tmp_path / "ctf.jsonl")]
        result = run_cli(*args, cache=tmp_path / "cache")
    assert result.returncode == 0, result.stderr

    candidates = {v.id: v for v in read_native(tmp_path / "ctf.candidates.jsonl")}
    outcome = {
        vid: (v.provenance["label"], v.provenance["status"], v.provenance["check"])
        for vid, v in candidates.items()
    }
    assert outcome == {
        "stdin/sum_numbers/ctf-0": ("ctf", "accepted", None),
        "stdin/sum_numbers/ctf-1": ("robust", "rejected", "robust"),
        "stdin/sum_numbers/ctf-2": ("bad", "rejected", "bad"),
        "stdin/sum_numbers/ctf-3": ("ctf", "rejected", "examples"),
        "method/two_sum/ctf-0": ("ctf", "accepted", None),
        "method/two_sum/ctf-1": ("unparseable", "rejected", "unparseable"),
        "method/two_sum/ctf-2": ("robust", "rejected", "robust"),
        "method/two_sum/ctf-3": ("ctf", "rejected", "examples"),
    }
    # Programs that differ only in spacing agree, as the engine would judge them.
    assert candidates["stdin/sum_numbers/ctf-0"].provenance["agreement"]["agreeing"] == 3
    assert candidates["stdin/sum_numbers/ctf-1"].provenance["agreement"]["groups"] == 1
    assert candidates["stdin/sum_numbers/ctf-2"].provenance["agreement"]["agreeing"] == 1
    assert "cannot run a worked example" in candidates["stdin/sum_numbers/ctf-3"].provenance["reason"]
    assert "numbers" in candidates["method/two_sum/ctf-3"].provenance["reason"]
    assert "changes the parameters of twoSum()" in candidates["method/two_sum/ctf-1"].provenance["reason"]

    variants = {v.parent_id: v for v in read_native(tmp_path / "ctf.jsonl")}
    assert set(variants) == {"stdin/sum_numbers", "method/two_sum"}
    maximum, pair = variants["stdin/sum_numbers"], variants["method/two_sum"]
    # The sample block and the LeetCode example now show the new reference's outputs, in place.
    assert maximum.prompt.endswith("Sample Input 1\n\n1 2 3\n\nSample Output 1\n\n3\n")
    assert "Input: nums = [2,7,11,15], target = 9\nOutput: [1,0]\n" in pair.prompt
    assert maximum.provenance["examples_rewritten"] == 1 and pair.provenance["examples_rewritten"] == 1
    # Tests keep the original inputs, with the CTF solution's outputs.
    assert [t.input for t in maximum.tests] == [t["input"] for t in SUM["tests"]]
    assert [t.expected.split() for t in maximum.tests] == [["3"], ["10"], ["0"], ["1000000000"]]
    assert [t.expected for t in pair.tests] == [[1, 0], [2, 1], [1, 0], [4, 2]]
    for variant in (maximum, pair):
        prov = variant.provenance
        assert 0 < prov["d_q"] <= 0.13 and prov["selected"] and variant.label == "ctf"


def test_d_q_reads_the_statement_without_its_samples_or_stub() -> None:
    stdin = SUM["prompt"]
    assert description_distance(stdin, stdin + STALE_SAMPLE, "", "stdin") == 0.0
    moved = description_distance(stdin, stdin.replace("sum", "maximum"), "", "stdin")
    assert 0 < moved < 0.1  # the line with parentheses counts too: the whole statement is the description
    method = TWO_SUM["prompt"]
    assert description_distance(method, _two_sum_statement("(i < j)", "(i < j)"), "twoSum", "method") == 0.0
    only_prose = description_distance(method, method.replace("(i < j)", "(i > j)"), "twoSum", "method")
    assert only_prose == description_distance(
        method.split("class Solution")[0], method.split("class Solution")[0].replace("<", ">"), "", "stdin"
    )


def test_statement_blocks_that_cannot_be_read_are_named() -> None:
    assert scan_samples("Sample Input 1\n\n3\n\nSample Output 2\n\n4\n").problems == [
        "Sample Input 1 is followed by Sample Output 2"
    ]
    assert scan_samples("Sample Output 1\n\n3\n").problems == ["Sample Output 1 follows no Sample Input"]
    assert scan_samples("Sample Input\n\n3\n").problems == ["Sample Input has no Sample Output"]
    assert scan_samples("Sample Input 1 is the smallest case.\n").problems
    leet = "Example 1:\nInput: nums = [1,2]\nExplanation: none\n\nclass Solution:\n    def f(self, nums):\n"
    assert scan_leetcode(leet, "f").problems
    # LeetCode pages carry no-break spaces; JSON spellings (true, null) are read as Python values.
    nbsp = "Example 1:\n\u00a0\nInput:\u00a0nums = [1,null], flag = true\nOutput:\u00a0false\n\nclass Solution:\n    def f(self, nums, flag):\n"
    (read,) = scan_leetcode(nbsp, "f").examples
    assert read.input == [[1, None], True] and read.output_text == "false"
    fenced_crlf = (
        "Do it.\r\n\r\n### Sample Input 1\r\n```\r\n1 1\r\n```\r\n### Sample Output 1\r\n```\r\n2\r\n```\r\n"
    )
    (example,) = scan_samples(fenced_crlf).examples
    assert example.input == "1 1\n" and example.output_text == "2" and example.newline == "\r\n"


def test_multi_line_outputs_are_rewritten_and_read_back() -> None:
    """A sample whose new output has several lines, with CRLF statements and inline samples."""
    statement = (
        "Read n and print 1..n, one per line.\r\n\r\nSample Input 1\r\n\r\n2\r\n\r\nSample Output 1\r\n\r\n1\r\n2\r\n"
        "\r\nSample Input 2: 1\r\nSample Output 2: 1\r\n"
    )
    code = "n = int(input())\nfor i in range(n, 0, -1):\n    print(i)\n"
    draft = Variant(id="v", kind="stdin", prompt=statement, reference=code, parent_id="p", transform="ctf")
    with Engine(workers=1) as engine:
        done = recompute_statement_examples([draft], engine)["v"]
        longer = draft.model_copy(update={"id": "w", "prompt": statement.replace("Input 2: 1", "Input 2: 3")})
        refused = recompute_statement_examples([longer], engine)["w"]
    assert not isinstance(done, str)
    assert done.prompt == statement.replace("1\r\n2\r\n", "2\r\n1\r\n", 1)
    assert refused == "Sample 2: the new output has several lines, the statement one"


# ---------------------------------------------------------------- a LiveCodeBench file (no references)


def pack(cases: list[dict[str, str]]) -> str:
    """LiveCodeBench's compressed private tests: base64 of zlib of a pickled JSON string."""
    return base64.b64encode(zlib.compress(pickle.dumps(json.dumps(cases)))).decode("ascii")


def stdin_cases(pairs: list[tuple[str, str]]) -> list[dict[str, str]]:
    return [{"input": i, "output": o, "testtype": "stdin"} for i, o in pairs]


SQUARES_STATEMENT = """You are given N integers A_1, A_2, \\ldots, A_N. Print the sum of A_i over all i.

Constraints

- 1 \\leq N \\leq 100
- -100 \\leq A_i \\leq 100
- All input values are integers.

Input

The input is given from Standard Input in the following format:
N
A_1 A_2 \\ldots A_N

Output

Print the answer.

Sample Input 1

3
1 2 3

Sample Output 1

6

Sample Input 2

2
-5 5

Sample Output 2

0

The two values cancel out."""

EVEN_STATEMENT = """You are given a 0-indexed integer array nums. Return the number of indices i such that nums[i] is even.

Example 1:

Input: nums = [1,2,3,4]
Output: 2
Explanation: nums[1] and nums[3] are even.

Example 2:

Input: nums = [1,3]
Output: 0

Constraints:

1 <= nums.length <= 100
1 <= nums[i] <= 100"""

LONGEST_STATEMENT = """You are given a string S of lowercase English letters. Print the length of the longest block of equal consecutive characters in S.

Input

The input is given from Standard Input in the following format:
S

Output

Print the answer.

Sample Input 1

aabbbc

Sample Output 1

3"""

HARD_STATEMENT = """You are given an integer N. Print the N-th prime number.

Sample Input 1

1

Sample Output 1

2"""

EVEN_STARTER = "class Solution:\n    def countEven(self, nums: List[int]) -> int:\n        "


def livecodebench_rows() -> list[dict[str, Any]]:
    def row(
        qid: str, title: str, content: str, platform: str, public: list, private: list, **extra: Any
    ) -> dict:
        return {
            "question_title": title,
            "question_content": content,
            "platform": platform,
            "question_id": qid,
            "contest_id": qid.split("_")[0],
            "contest_date": "2024-05-04T00:00:00",
            "starter_code": extra.get("starter_code", ""),
            "difficulty": "easy",
            "public_test_cases": json.dumps(public),
            "private_test_cases": pack(private),
            "metadata": json.dumps(extra.get("metadata", {})),
        }

    even_cases = [
        {
            "input": json.dumps(nums),
            "output": json.dumps(sum(1 for v in nums if v % 2 == 0)),
            "testtype": "functional",
        }
        for nums in ([1, 2, 3, 4], [1, 3], [2, 4, 6], [5], [10, 11, 12, 13, 14])
    ]
    return [
        row(
            "abc901_a",
            "Sum",
            SQUARES_STATEMENT,
            "atcoder",
            stdin_cases([("3\n1 2 3\n", "6\n"), ("2\n-5 5\n", "0\n")]),
            stdin_cases([("1\n-7\n", "-7\n"), ("4\n1 1 1 1\n", "4\n"), ("3\n100 -100 3\n", "3\n")]),
        ),  # fmt: skip
        row(
            "3001",
            "count-even",
            EVEN_STATEMENT,
            "leetcode",
            even_cases[:2],
            even_cases[2:],
            starter_code=EVEN_STARTER,
            metadata={"func_name": "countEven"},
        ),  # fmt: skip
        row(
            "abc902_b",
            "Longest Block",
            LONGEST_STATEMENT,
            "atcoder",
            stdin_cases([("aabbbc\n", "3\n")]),
            stdin_cases([("z\n", "1\n"), ("abab\n", "1\n")]),
        ),  # fmt: skip
        row(
            "abc903_c",
            "Nth Prime",
            HARD_STATEMENT,
            "atcoder",
            stdin_cases([("1\n", "2\n")]),
            stdin_cases([("5\n", "11\n"), ("10\n", "29\n")]),
        ),  # fmt: skip
    ]


SQUARES = "n = int(input())\nvalues = list(map(int, input().split()))\nprint(sum(v * v for v in values))\n"
LONGEST = (
    "s = input().strip()\nbest = run = 1\nfor a, b in zip(s, s[1:]):\n"
    "    run = run + 1 if a == b else 1\n    best = max(best, run)\nprint(best)\n"
)
LCB_GENERATOR = {
    "sum of A_i over all i": [proposal(SQUARES_STATEMENT.replace("sum of A_i over", "sum of A_i^2 over"))],
    "countEven": [
        proposal(
            EVEN_STATEMENT.replace("nums[i] is even", "nums[i] is odd")
            + "\n\n"
            + EVEN_STARTER.rstrip()
            + "\n"
        )
    ],
    # The counterfactual's samples are numbered inconsistently: it cannot be rewritten safely.
    "longest block": [
        proposal(
            LONGEST_STATEMENT.replace("longest block", "shortest block").replace(
                "Sample Output 1", "Sample Output 2"
            )
        )
    ],
    "N-th prime": [proposal(HARD_STATEMENT.replace("N-th prime", "N-th composite"))],
}
LCB_SOLVER = {
    # Counterfactuals first: their statements hold the originals' words too.
    "A_i^2": [fenced(SQUARES)] * 3,
    "sum of A_i over all i": [
        fenced("print(0)\n"),  # the first answer to the original is wrong; the second passes
        fenced("input()\nprint(sum(map(int, input().split())))\n"),
    ],
    "is odd": [
        fenced(
            "from typing import List\n\nclass Solution:\n    def countEven(self, nums: List[int]) -> int:\n"
            "        return sum(1 for v in nums if v % 2 == 1)\n"
        )
    ]
    * 3,  # fmt: skip
    "countEven": [
        fenced(
            "from typing import List\n\nclass Solution:\n    def countEven(self, nums: List[int]) -> int:\n"
            "        return len([v for v in nums if v % 2 == 0])\n"
        )
    ],  # fmt: skip
    "shortest block": [fenced("print(1)\n")] * 3,
    "longest block": [fenced(LONGEST)],
    "N-th prime": [fenced("print(2)\n")],  # never right beyond N = 1: the original stays unsolved
}


@pytest.mark.server
def test_ctf_on_a_livecodebench_file_then_run_the_variants(tmp_path: Path) -> None:
    data = tmp_path / "lcb.jsonl"
    data.write_text("".join(json.dumps(row) + "\n" for row in livecodebench_rows()), encoding="utf-8")
    out = tmp_path / "ctf.jsonl"
    answer = scripted(LCB_GENERATOR, LCB_SOLVER)
    with ScriptedServer(lambda text: "", answer_with_body=answer) as server:
        args = ["morph", "ctf", str(data), "--generator", f"openai:gen@{server.base_url}"]
        args += ["--solver", f"openai:sol@{server.base_url}", "--embedder", f"openai:emb@{server.base_url}"]
        args += ["--candidates", "1", "--solutions", "2", "--out", str(out)]
        result = run_cli(*args, cache=tmp_path / "cache")
    assert result.returncode == 0, result.stderr
    assert "abc902_b" in result.stderr and "no CTF candidate" in result.stderr
    assert "abc903_c" in result.stderr and "left out" in result.stderr

    candidates = {v.id: v for v in read_native(out.with_name("ctf.candidates.jsonl"))}
    assert set(candidates) == {"abc901_a/ctf-0", "3001/ctf-0", "abc902_b/ctf-0"}  # abc903_c never proposed
    rejected = candidates["abc902_b/ctf-0"].provenance
    assert (rejected["label"], rejected["status"], rejected["check"]) == ("ctf", "rejected", "examples")
    assert "Sample Input 1 is followed by Sample Output 2" in rejected["reason"]

    variants = {v.parent_id: v for v in read_native(out)}
    assert set(variants) == {"abc901_a", "3001"}
    squares, odd = variants["abc901_a"], variants["3001"]
    assert "Sample Output 1\n\n14\n\nSample Input 2" in squares.prompt
    assert "Sample Output 2\n\n50\n\nThe two values cancel out." in squares.prompt
    # Only the outputs change: an explanation under a changed output is named for the reviewer.
    assert squares.provenance["explanations_to_check"] == ["Sample 2"]
    assert "explanations_to_check" not in odd.provenance  # Example 1 kept its value; Example 2 has none
    assert "Input: nums = [1,2,3,4]\nOutput: 2\n" in odd.prompt
    assert "Input: nums = [1,3]\nOutput: 2\n" in odd.prompt and odd.prompt.endswith(
        EVEN_STARTER.rstrip() + "\n"
    )
    # Every inherited input (public and private), with the CTF solution's output.
    squares_inputs = ["3\n1 2 3\n", "2\n-5 5\n", "1\n-7\n", "4\n1 1 1 1\n", "3\n100 -100 3\n"]
    assert [t.input for t in squares.tests] == squares_inputs
    assert [t.expected.split() for t in squares.tests] == [["14"], ["50"], ["49"], ["4"], ["20009"]]
    assert [t.expected for t in odd.tests] == [2, 2, 0, 1, 2]
    for variant in (squares, odd):
        assert variant.provenance["parent_reference_from"].startswith("openai:sol@")
        assert variant.provenance["parent_reference"].strip()

    summaries = {}
    for model in ("reference", "original"):
        run = run_cli(
            "run", str(out), "--model", model, "--out", str(tmp_path / model), cache=tmp_path / "cache"
        )
        assert run.returncode == 0, run.stderr
        summaries[model] = json.loads((tmp_path / model / "summary.json").read_text())
    assert summaries["reference"]["pass@1"] == 1.0
    assert summaries["original"]["pass@1"] < 1.0


def test_proposal_requests_and_answers_for_statements() -> None:
    """Statements are asked for as statements (no function to keep), and read back from either mode."""
    stdin, method = Problem(**SUM), Problem(**TWO_SUM)
    chat = proposal_request(stdin, "chat").messages[0][1]
    assert (
        "input format stays exactly the same" in chat
        and "```python" not in chat
        and stdin.prompt.strip() in chat
    )
    assert (
        "class Solution, the method's name and its parameters"
        in proposal_request(method, "chat").messages[0][1]
    )

    completion = proposal_request(stdin, "completion")
    assert completion.stop == (STATEMENT_END,) and completion.prompt.startswith(stdin.prompt.strip())
    new = _sum_statement("print their sum", "print their maximum")
    assert parse_proposal(stdin, completion, new.rstrip("\n") + "\n") == (new, None)
    assert parse_proposal(stdin, completion, "  \n") == (None, "empty answer")

    keep = _two_sum_statement("(i < j)", "(i > j)", "\n\nclass Solution:")
    asked = proposal_request(method, "completion")
    assert parse_proposal(method, asked, keep) == (keep, None)
    dropped = keep.split("class Solution")[0]
    assert (
        parse_proposal(method, asked, dropped)[1]
        == "the new problem does not keep the class Solution stub with twoSum()"
    )
    fenced_answer = f"Here:\n~~~~\n{new}~~~~\n"
    assert parse_proposal(stdin, proposal_request(stdin, "chat"), fenced_answer) == (new, None)
