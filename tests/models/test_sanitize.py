"""benchmorph.models.sanitize: the code pulled out of raw LLM answers runs, and holds only the solution."""

from __future__ import annotations

import ast
import gc
import importlib.util
import io
import statistics
import sys
import time
import warnings
from collections.abc import Callable
from typing import Any

import pytest

from benchmorph.models.sanitize import KINDS, sanitize
from paths import ROOT

ENTRY = "has_close_elements"
PROMPT = '''from typing import List


def has_close_elements(numbers: List[float], threshold: float) -> bool:
    """ Check if in given list of numbers, are any two numbers closer to each other than
    given threshold.
    >>> has_close_elements([1.0, 2.0, 3.0], 0.5)
    False
    >>> has_close_elements([1.0, 2.8, 3.0, 4.0, 5.0, 2.0], 0.3)
    True
    """
'''
CASES = [
    ([1.0, 2.0, 3.0], 0.5, False),
    ([1.0, 2.8, 3.0, 4.0, 5.0, 2.0], 0.3, True),
    ([1.0, 2.0, 3.9, 4.0, 5.0, 2.2], 0.05, False),
    ([1.1, 2.2, 3.1, 4.1, 5.1], 1.0, True),
]
SOLUTION = """def has_close_elements(numbers, threshold):
    for i, a in enumerate(numbers):
        for b in numbers[i + 1:]:
            if abs(a - b) < threshold:
                return True
    return False
"""
BENCH = ROOT / "bench" / "sanitize_speed.py"


def run(code: str, capsys: pytest.CaptureFixture[str] | None = None) -> dict[str, Any]:
    """Compile and execute the sanitized code; importing it must print nothing."""
    namespace: dict[str, Any] = {"__name__": "sanitized"}
    exec(compile(code, "<sanitized>", "exec", dont_inherit=True), namespace)
    if capsys is not None:
        assert capsys.readouterr().out == "", "sanitized code printed at import"
    return namespace


def solves(code: str, capsys: pytest.CaptureFixture[str] | None = None) -> Callable[..., Any]:
    func = run(code, capsys)[ENTRY]
    for numbers, threshold, expected in CASES:
        assert func(numbers, threshold) is expected, (numbers, threshold)
    return func


def top_level_names(code: str) -> list[str]:
    names = []
    for node in ast.parse(code).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.append(node.name)
    return names


# --------------------------------------------------------------------------- fences


CHAT_ANSWER = """Sure! Here's an efficient implementation. We sort first so that only neighbours matter.

```python
from typing import List

EPSILON = 1e-12


def _gap(a: float, b: float) -> float:
    # distance between two readings
    return abs(a - b)


def has_close_elements(numbers: List[float], threshold: float) -> bool:
    ordered = sorted(numbers)
    return any(_gap(a, b) < threshold - EPSILON for a, b in zip(ordered, ordered[1:]))


def unrelated_formatter(values):
    return ", ".join(map(str, values))


print(has_close_elements([1.0, 2.0, 3.0], 0.5))
assert has_close_elements([1.0, 2.8, 3.0, 4.0, 5.0, 2.0], 0.3)


def test_examples():
    assert not has_close_elements([1.0, 2.0], 0.5)


if __name__ == "__main__":
    test_examples()
    print("all good")
```

This works because after sorting, the closest pair is always adjacent, so the check is O(n log n).
"""


def test_chat_answer_keeps_solution_helpers_and_constants_and_drops_the_rest(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = sanitize(CHAT_ANSWER, entry_point=ENTRY)
    solves(code, capsys)
    assert top_level_names(code) == ["_gap", ENTRY]
    assert "EPSILON = 1e-12" in code
    assert "# distance between two readings" in code  # original lines, comments survive
    for dropped in ("print(", "assert ", "unrelated_formatter", "__main__", "test_examples", "Sure!", "```"):
        assert dropped not in code


@pytest.mark.parametrize(
    ("opening", "closing"),
    [
        ("```python", "```"),
        ("```py", "```"),
        ("```Python3", "```"),
        ("```", "```"),
        ("~~~", "~~~"),
        ("~~~python", "~~~"),
        ("````python", "````"),
        ("``` {.python}", "```"),
        ("[PYTHON]", "[/PYTHON]"),
    ],
)
def test_fence_styles(opening: str, closing: str, capsys: pytest.CaptureFixture[str]) -> None:
    raw = f"Here you go:\n{opening}\n{SOLUTION}print({ENTRY}([1.0], 0.5))\n{closing}\nExplanation: pairs.\n"
    code = sanitize(raw, entry_point=ENTRY)
    solves(code, capsys)
    assert "print" not in code and "Explanation" not in code


def test_fence_indented_inside_a_list_item(capsys: pytest.CaptureFixture[str]) -> None:
    indented = "".join("   " + line + "\n" if line else "\n" for line in SOLUTION.splitlines())
    raw = f"1. Write the function:\n   ```python\n{indented}   ```\n2. Call it.\n"
    solves(sanitize(raw, entry_point=ENTRY), capsys)


def test_fence_inside_a_docstring_does_not_close_the_block() -> None:
    raw = '''```python
def f():
    """Use it like this:

    ```
    f()
    ```
    """
    return 1
```
'''
    assert run(sanitize(raw, entry_point="f"))["f"]() == 1


def test_unclosed_final_fence_takes_the_rest_and_cuts_the_truncated_tail(
    capsys: pytest.CaptureFixture[str],
) -> None:
    raw = f"```python\n{SOLUTION}\n\nif __name__ == '__main__':\n    print({ENTRY}([1.0, 2.0], 0.5))\n    for numbers in ["
    code = sanitize(raw, entry_point=ENTRY)
    solves(code, capsys)
    assert "__main__" not in code


def test_block_defining_the_entry_point_is_chosen_among_others(capsys: pytest.CaptureFixture[str]) -> None:
    raw = (
        "Install nothing:\n```bash\npip install nothing\n```\n"
        f"Solution:\n```python\n{SOLUTION}```\n"
        f"Usage:\n```python\nprint({ENTRY}([1.0, 2.0], 0.5))\n```\n"
        "Output:\n```\nFalse\n```\n"
    )
    code = sanitize(raw, entry_point=ENTRY)
    assert code == SOLUTION  # exactly the solution block: no install line, usage or output
    solves(code, capsys)


def test_helper_in_an_earlier_block_is_joined_to_the_entry_block(capsys: pytest.CaptureFixture[str]) -> None:
    raw = """First a helper:
```python
import math

def close(a, b, threshold):
    return math.fabs(a - b) < threshold
```
Then the main function:
```python
def has_close_elements(numbers, threshold):
    return any(close(a, b, threshold) for i, a in enumerate(numbers) for b in numbers[i + 1:])
```
"""
    code = sanitize(raw, entry_point=ENTRY)
    solves(code, capsys)
    assert code.index("def close") < code.index("def has_close_elements")


def test_several_blocks_define_the_entry_point_the_last_complete_one_wins() -> None:
    first = "def has_close_elements(numbers, threshold):\n    return True  # first draft\n"
    raw = f"Draft:\n```python\n{first}```\nFixed version:\n```python\n{SOLUTION}```\n"
    code = sanitize(raw, entry_point=ENTRY)
    solves(code)
    assert "first draft" not in code
    # A final attempt cut off by the token limit loses to an earlier complete one.
    truncated = "def has_close_elements(numbers, threshold):\n    pairs = [(a, b) for a in numbers for b in"
    code = sanitize(f"```python\n{SOLUTION}```\nShorter:\n```python\n{truncated}", entry_point=ENTRY)
    solves(code)
    assert "pairs" not in code


def test_no_block_defines_the_entry_point_parsable_blocks_are_concatenated() -> None:
    raw = "```python\nimport math\n\ndef area(r):\n    return math.pi * r * r\n```\n```python\nSCALE = 2\n\ndef scaled(r):\n    return SCALE * area(r)\nprint(scaled(1))\n```\n"
    code = sanitize(raw, entry_point="volume")
    namespace = run(code)
    assert namespace["scaled"](1) == pytest.approx(2 * 3.141592653589793)
    assert "print" not in code


# --------------------------------------------------------------------------- raw text


def test_raw_code_without_fences_between_prose(capsys: pytest.CaptureFixture[str]) -> None:
    raw = f"""Here is the solution:

import itertools

{SOLUTION}
This works because it compares every pair of numbers.
The time complexity is O(n^2).
Example: has_close_elements([1.0, 2.0], 0.5) returns False.
"""
    code = sanitize(raw, entry_point=ENTRY)
    solves(code, capsys)
    assert "import itertools" in code
    assert "This works" not in code and "Example" not in code


def test_markdown_indented_code_after_prose(capsys: pytest.CaptureFixture[str]) -> None:
    indented = "".join("    " + line + "\n" if line else "\n" for line in SOLUTION.splitlines())
    raw = f"Here is the code:\n\n{indented}\nHope this helps!\n"
    solves(sanitize(raw, entry_point=ENTRY), capsys)


def test_reasoning_before_think_end_is_ignored() -> None:
    raw = f"<think>\nmaybe\n```python\ndef has_close_elements(n, t):\n    return None\n```\n</think>\n```python\n{SOLUTION}```"
    solves(sanitize(raw, entry_point=ENTRY))


# --------------------------------------------------------------------------- truncation


def test_answer_cut_off_in_a_trailing_test_keeps_everything_before(
    capsys: pytest.CaptureFixture[str],
) -> None:
    raw = f"{SOLUTION}\n\ndef check(candidate):\n    assert candidate([1.0, 2.0], 0.5) == Fal"
    code = sanitize(raw, entry_point=ENTRY)
    solves(code, capsys)
    assert "check" not in code


def test_entry_point_cut_off_keeps_its_complete_prefix() -> None:
    raw = (
        "```python\nimport math\n\ndef has_close_elements(numbers, threshold):\n"
        "    ordered = sorted(numbers)\n    best = math.inf\n    for a, b in zip(ordered, ordered[1:]):\n"
        "        if b - a <"
    )
    code = sanitize(raw, entry_point=ENTRY)
    namespace = run(code)
    assert ENTRY in namespace
    assert "best = math.inf" in code and "for a, b" not in code


def test_entry_point_cut_off_in_its_signature_is_dropped() -> None:
    raw = "import math\n\nLIMIT = 3\n\ndef has_close_elements(numbers, thr"
    code = sanitize(raw, entry_point=ENTRY)
    assert ENTRY not in code
    assert run(code)["LIMIT"] == 3  # fallback: imports, definitions and constants


def test_truncated_multiline_string_and_open_bracket_are_dropped() -> None:
    for tail in ('\nNOTE = """unfinished\nstill going', "\nTABLE = [\n    (1, 2),\n    (3,"):
        code = sanitize(SOLUTION + tail, entry_point=ENTRY)
        solves(code)
        assert "NOTE" not in code and "TABLE" not in code


def test_column_zero_continuation_lines_stay_with_their_statement() -> None:
    raw = (
        'PAIRS = [\n(1, 2),\n(3, 4),\n]\nTOTAL = 1 + \\\n2\nDOC = """\ndef fake():\n"""\n'
        "def f():\n    return sum(a + b for a, b in PAIRS) + TOTAL + len(DOC)\n"
    )
    assert run(sanitize(raw, entry_point="f"))["f"]() == 10 + 3 + len("\ndef fake():\n")


# --------------------------------------------------------------------------- prompt


HUMANEVAL_BODY = """    for idx, elem in enumerate(numbers):
        for idx2, elem2 in enumerate(numbers):
            if idx != idx2:
                distance = abs(elem - elem2)
                if distance < threshold:
                    return True

    return False
"""


def test_body_only_completion_is_appended_to_the_prompt(capsys: pytest.CaptureFixture[str]) -> None:
    code = sanitize(HUMANEVAL_BODY, entry_point=ENTRY, prompt=PROMPT)
    solves(code, capsys)
    assert code.startswith("from typing import List")
    assert "Check if in given list" in code


@pytest.mark.parametrize(
    "raw",
    [
        "Here is the completed function body:\n" + HUMANEVAL_BODY + "\nIt compares every pair.\n",
        f"```python\n{HUMANEVAL_BODY}```\n",
        HUMANEVAL_BODY.lstrip(),  # the API stripped the leading indentation of the first line
        "\n".join(line[4:] for line in HUMANEVAL_BODY.splitlines()),  # the whole body at column 0
        HUMANEVAL_BODY
        + "\n\ndef check(candidate):\n    assert candidate([1.0], 0.5) is False\n\ncheck(has_close_elements)\n",
    ],
    ids=["prose-then-body", "fenced-body", "first-line-unindented", "body-at-column-0", "body-then-tests"],
)
def test_body_variants(raw: str, capsys: pytest.CaptureFixture[str]) -> None:
    code = sanitize(raw, entry_point=ENTRY, prompt=PROMPT)
    solves(code, capsys)
    assert "check" not in code.replace("Check", "")


def test_answer_repeating_the_prompt_then_continuing(capsys: pytest.CaptureFixture[str]) -> None:
    raw = PROMPT + HUMANEVAL_BODY + "\n\nprint(has_close_elements([1.0, 2.0], 0.5))\n"
    code = sanitize(raw, entry_point=ENTRY, prompt=PROMPT)
    solves(code, capsys)
    assert code.count("def has_close_elements") == 1 and "print" not in code


def test_import_the_answer_left_out_is_taken_from_the_prompt() -> None:
    answer = (
        "```python\ndef has_close_elements(numbers: List[float], threshold: float) -> bool:\n"
        + SOLUTION.split(":\n", 1)[1]
        + "```"
    )
    without_prompt = sanitize(answer, entry_point=ENTRY)
    with pytest.raises(NameError):
        run(without_prompt)  # the annotation needs List
    solves(sanitize(answer, entry_point=ENTRY, prompt=PROMPT))


def test_helper_defined_in_the_prompt_is_added_when_used() -> None:
    prompt = '''def encode_cyclic(s: str):
    """returns encoded string by cycling groups of three characters."""
    groups = [s[(3 * i):min((3 * i + 3), len(s))] for i in range((len(s) + 2) // 3)]
    groups = [(group[1:] + group[0]) if len(group) == 3 else group for group in groups]
    return "".join(groups)


def decode_cyclic(s: str):
    """takes as input string encoded with encode_cyclic function. Returns decoded string."""
'''
    answer = "```python\ndef decode_cyclic(s: str):\n    return encode_cyclic(encode_cyclic(s))\n```"
    namespace = run(sanitize(answer, entry_point="decode_cyclic", prompt=prompt))
    assert namespace["decode_cyclic"](namespace["encode_cyclic"]("abcdefgh")) == "abcdefgh"


# --------------------------------------------------------------------------- method


def test_method_kind_keeps_solution_class_and_what_it_uses(capsys: pytest.CaptureFixture[str]) -> None:
    raw = """Use a hash map.

```python
from typing import List, Optional

MOD = 10**9 + 7


class ListNode:
    def __init__(self, val=0, next=None):
        self.val, self.next = val, next


class Unused:
    pass


class Solution:
    def twoSum(self, nums: List[int], target: int) -> List[int]:
        seen = {}
        for i, x in enumerate(nums):
            if target - x in seen:
                return [seen[target - x] % MOD, i]
            seen[x] = i
        return []

    def head(self, nums: List[int]) -> Optional[ListNode]:
        return ListNode(nums[0]) if nums else None


sol = Solution()
print(sol.twoSum([2, 7, 11, 15], 9))
```
"""
    code = sanitize(raw, entry_point="twoSum", kind="method")
    namespace = run(code, capsys)
    assert namespace["Solution"]().twoSum([2, 7, 11, 15], 9) == [0, 1]
    assert top_level_names(code) == ["ListNode", "Solution"]
    assert "MOD = 10**9 + 7" in code and "sol = " not in code


def test_method_body_completes_the_leetcode_starter() -> None:
    prompt = "class Solution:\n    def addDigits(self, num: int) -> int:\n        "
    body = "        while num >= 10:\n            num = sum(int(d) for d in str(num))\n        return num\n"
    code = sanitize(body, entry_point="addDigits", kind="method", prompt=prompt)
    assert run(code)["Solution"]().addDigits(38) == 2


def test_method_kind_prefers_the_class_that_has_the_method() -> None:
    raw = (
        "class Solution:\n    def other(self):\n        return 0\n\n"
        "class Solution:\n    def climb(self, n: int) -> int:\n        a, b = 1, 1\n"
        "        for _ in range(n):\n            a, b = b, a + b\n        return a\n\n"
        "class Solution:\n    pass\n"
    )
    assert run(sanitize(raw, entry_point="climb", kind="method"))["Solution"]().climb(5) == 8


# --------------------------------------------------------------------------- stdin


def run_program(
    code: str, stdin: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> str:
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    exec(compile(code, "<program>", "exec", dont_inherit=True), {"__name__": "__main__"})
    return capsys.readouterr().out


def test_stdin_keeps_the_whole_program_and_drops_prose_and_sample_io(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    raw = """To solve this we read n and the numbers, then print their sum.

```python
import sys

def solve(values):
    return sum(values)

def main():
    n = int(input())
    values = list(map(int, input().split()))
    print(solve(values[:n]))

if __name__ == "__main__":
    main()
```

Sample input:
```
3
1 2 3
```
Sample output:
```
6
```
Time complexity: O(n).
"""
    code = sanitize(raw, kind="stdin")
    assert 'if __name__ == "__main__":' in code and "main()" in code
    assert "Sample" not in code and "complexity" not in code
    assert run_program(code, "3\n1 2 3\n", monkeypatch, capsys) == "6\n"


def test_stdin_unfenced_program_with_top_level_calls_and_truncated_tail(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    raw = """Here's my solution.
n = int(input())
total = 0
for _ in range(n):
    total += int(input())
print(total)
This program reads n numbers and prints
Time complexity: O(n) since we loop once over the inp"""
    code = sanitize(raw, kind="stdin")
    assert "print(total)" in code and "Here's" not in code and "complexity" not in code
    assert run_program(code, "2\n5\n7\n", monkeypatch, capsys) == "12\n"


def test_stdin_chooses_the_block_that_reads_input(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    raw = (
        "Brute force idea:\n```python\ndef brute(a):\n    return max(a)\n```\n"
        "Final program:\n```python\na = list(map(int, input().split()))\nprint(max(a) - min(a))\n```\n"
        "Check it:\n```python\nassert max([1, 5]) - min([1, 5]) == 4\n```\n"
    )
    code = sanitize(raw, kind="stdin")
    assert "brute" not in code and "assert" not in code
    assert run_program(code, "4 9 1\n", monkeypatch, capsys) == "8\n"


# --------------------------------------------------------------------------- dependencies


def test_dependencies_follow_names_transitively_and_skip_look_alike_locals(
    capsys: pytest.CaptureFixture[str],
) -> None:
    raw = """import sys
from functools import lru_cache

try:
    from math import comb
except ImportError:  # very old Python
    def comb(n, k):
        raise RuntimeError

sys.setrecursionlimit(10_000)
PRIMES = []
for candidate in range(2, 30):
    if all(candidate % p for p in PRIMES):
        PRIMES.append(candidate)
UNUSED_TABLE = {i: i * i for i in range(10)}


@lru_cache(maxsize=None)
def prime_count(limit):
    return sum(1 for p in PRIMES if p <= limit)


def choose(n):
    return comb(n, 2)


def solve(n):
    result = prime_count(n) + choose(n)
    return result


def debug_dump():
    print(PRIMES, UNUSED_TABLE)


result = solve(10)
n = 5
print(result, solve(n))
assert solve(2) == 2
"""
    code = sanitize(raw, entry_point="solve")
    namespace = run(code, capsys)
    assert namespace["solve"](10) == 4 + 45
    assert "@lru_cache(maxsize=None)" in code  # decorators stay with their definitions
    assert "except ImportError" in code and "setrecursionlimit" in code
    assert "PRIMES.append(candidate)" in code  # the loop that fills a needed constant
    for dropped in ("UNUSED_TABLE", "debug_dump", "result = solve", "n = 5", "print(", "assert "):
        assert dropped not in code


def test_global_statement_and_helper_defined_after_the_entry_point() -> None:
    raw = "def f():\n    global calls\n    calls += 1\n    return g(calls)\n\ncalls = 0\n\ndef g(x):\n    return x * 10\n\nprint(f())\n"
    code = sanitize(raw, entry_point="f")
    assert run(code)["f"]() == 10 and "print" not in code


def test_entry_point_bound_by_assignment() -> None:
    code = sanitize("double = lambda x: x * 2\nprint(double(2))\n", entry_point="double")
    assert run(code)["double"](4) == 8 and "print" not in code


def test_missing_entry_point_keeps_definitions_and_drops_tests(capsys: pytest.CaptureFixture[str]) -> None:
    raw = """```python
import os
LIMIT = 3

def helper(x):
    return min(x, LIMIT)

def test_helper():
    assert helper(5) == 3

print(helper(9))
assert helper(1) == 1
if __name__ == "__main__":
    test_helper()
```"""
    for entry in ("not_there", ""):
        code = sanitize(raw, entry_point=entry)
        namespace = run(code, capsys)
        assert namespace["helper"](9) == 3 and "os" in namespace
        assert "test_helper" not in code and "print" not in code and "__main__" not in code


def test_statements_sharing_a_line_are_split() -> None:
    code = sanitize("import os; print('hi')\ndef f(): return os.sep\n", entry_point="f")
    assert "print" not in code and run(code)["f"]() == __import__("os").sep


def test_from_future_import_stays_first_even_with_prompt_imports() -> None:
    raw = "from __future__ import annotations\n\ndef f(x: List[int]) -> int:\n    return len(x)\n"
    code = sanitize(
        raw, entry_point="f", prompt="from typing import List\n\ndef f(x: List[int]) -> int:\n    pass\n"
    )
    assert code.startswith("from __future__ import annotations\n")
    assert run(code)["f"]([1, 2]) == 2


# --------------------------------------------------------------------------- robustness


JUNK = {
    "empty": "",
    "blank": "   \n\n",
    "control-bytes": "\x00\x01\x02\xff",
    "nul-in-code": "def f(\x00): pass",
    "lone-surrogate": "\ud800 surrogate",
    "deep-parens": "(" * 5000,
    "deep-brackets": "[" * 100_000,
    "repeated-broken-def": "def f(:\n" * 2000,
    "bare-fence": "```",
    "empty-fence": "```python\n```",
    "unclosed-empty-fence": "```python",
    "one-huge-name": "x" * 200_000,
    "huge-indent": "    " * 150 + "x",
    "too-many-indent-levels": "def f():\n"
    + "".join("    " * i + "if x:\n" for i in range(1, 120))
    + "    " * 120
    + "pass\n",
    "deep-unary": "x = " + "-" * 100_000 + "1",
    "prose-unbalanced": "\n".join(f"line {i} of prose, (unbalanced" for i in range(3000)),
    "many-tilde-fences": "~~~\n" * 1000,
    "many-triple-quotes": "'''" * 999,
    "many-docstring-lines": '"""\n' * 777,
    "only-decorators": "@decorator\n" * 500,
    "only-backslashes": "\\\n" * 500,
}


@pytest.mark.parametrize("raw", list(JUNK.values()), ids=list(JUNK))
@pytest.mark.parametrize("kind", KINDS)
def test_never_raises(raw: str, kind: str) -> None:
    code = sanitize(raw, entry_point="f", kind=kind, prompt="def f():\n    pass\n")
    assert isinstance(code, str)
    if code:
        compile(code, "<sanitized>", "exec", dont_inherit=True)


def test_parser_warnings_do_not_drop_code_even_when_warnings_are_errors() -> None:
    raw = 'import re\n\ndef f(s):\n    return re.findall("\\d+", s)\n'  # "\d": invalid escape warning
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        code = sanitize(raw, entry_point="f")
    assert "def f" in code
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert run(code)["f"]("a1b22") == ["1", "22"]


def test_non_string_input_gives_empty_or_decoded() -> None:
    assert sanitize(None, entry_point="f") == ""  # type: ignore[arg-type]
    assert sanitize(b"def f():\n    return 1\n", entry_point="f") == "def f():\n    return 1\n"  # type: ignore[arg-type]


def test_unknown_kind_is_a_caller_error() -> None:
    with pytest.raises(ValueError, match="kind"):
        sanitize("def f(): pass", entry_point="f", kind="module")


def test_nothing_usable_gives_empty_string() -> None:
    assert sanitize("I'm sorry, I can't help with that.", entry_point=ENTRY) == ""
    assert sanitize("I'm sorry, I can't help with that.", kind="stdin") == ""
    assert sanitize("```text\nno code here at all\n```", entry_point=ENTRY) == ""


# --------------------------------------------------------------------------- speed


def _bench_module() -> Any:
    spec = importlib.util.spec_from_file_location("sanitize_speed_bench", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _median_ms(func: Callable[[], Any], repeat: int = 20) -> float:
    func()
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        func()
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


def test_400_line_answers_are_sanitized_correctly_and_fast(capsys: pytest.CaptureFixture[str]) -> None:
    bench = _bench_module()
    answers = bench.build_answers(400)
    assert set(answers) == {"fenced", "unfenced-truncated", "truncated-in-entry"}
    for name, raw in answers.items():
        assert raw.count("\n") + 1 >= 390, name
        code = sanitize(raw, entry_point=ENTRY)
        namespace = run(code, capsys)
        assert ENTRY in namespace, name
        assert "_debug_dump" not in code and "assert " not in code and "print(" not in code, name
        if name != "truncated-in-entry":
            solves(code)
        # About 5 ms on an idle 2-core machine.  On a loaded box everything slows down, so the
        # bound is also relative to the floor: one bare ast.parse of the code we kept.
        median = _median_ms(lambda raw=raw: sanitize(raw, entry_point=ENTRY))
        floor = _median_ms(lambda code=code: ast.parse(code))
        assert median < max(15.0, 4 * floor), f"{name}: median {median:.2f} ms, bare parse {floor:.2f} ms"


def test_time_grows_linearly_with_answer_length() -> None:
    bench = _bench_module()
    small, large = bench.build_answers(400)["fenced"], bench.build_answers(3200)["fenced"]
    ratio = _median_ms(lambda: sanitize(large, entry_point=ENTRY), 7) / _median_ms(
        lambda: sanitize(small, entry_point=ENTRY), 7
    )
    assert ratio < 20, f"8x longer answer took {ratio:.1f}x the time (quadratic would be ~64x)"


def test_many_broken_chunks_stay_linear() -> None:
    # Every line a separate failing statement: each costs a bounded number of parses.
    broken = "\n".join(f"value_{i} = (" if i % 2 else f"print('x'{i}" for i in range(2000))
    for kind in KINDS:
        started = time.perf_counter()
        sanitize(broken, entry_point="f", kind=kind)
        assert time.perf_counter() - started < 3.0, kind


def test_no_cyclic_garbage_is_left_for_the_caller_to_collect() -> None:
    # The ASTs are freed inside the call; a later gc pass would otherwise pay for them.
    bench = _bench_module()
    inputs = [
        (bench.build_answers(200)["fenced"], {"entry_point": ENTRY}),
        (HUMANEVAL_BODY, {"entry_point": ENTRY, "prompt": PROMPT}),
        ("Sure! The program:\n    n = int(input())\n    print(n)\n", {"kind": "stdin"}),
        ("no code at all, (really", {"entry_point": ENTRY}),
    ]
    was_enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        for raw, kwargs in inputs:
            sanitize(raw, **kwargs)
            assert gc.collect() == 0, kwargs
        assert not gc.isenabled()  # sanitize leaves a disabled collector disabled...
        gc.enable()
        sanitize(inputs[0][0], entry_point=ENTRY)
        assert gc.isenabled()  # ...and an enabled one enabled
    finally:
        if not was_enabled:
            gc.disable()


def test_bench_measure_is_importable_by_path() -> None:
    numbers = _bench_module().measure(lines=60, repeat=2, peer_repeat=1, peer_timeout=5)
    assert numbers["lines"] == 60 and set(numbers["answers"]) == {
        "fenced",
        "unfenced-truncated",
        "truncated-in-entry",
    }
    for row in numbers["answers"].values():
        assert row["ours_median_ms"] > 0
