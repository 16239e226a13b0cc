"""A model that writes the function twice: the sanitizer keeps the right copy (issue 23, finding 2).

CodeLlama-7b on HumanEval/142 and starcoder2-7b on HumanEval/92 completed the prompt's function,
then started it over and were cut off by the token limit inside the second copy: the sanitizer kept
that broken last copy, where EvalPlus keeps the first complete one.  How the two shapes are told
apart (``models/sanitize.py``, ``_find_root``):

* a later copy that is **cut off** (it does not parse as written, or it ends the answer and its lines
  are a strict prefix of an earlier copy's) loses to the first complete one;
* a later copy that **revises** the answer in full (a complete line differs) wins, as it would at
  run time.
"""

from __future__ import annotations

import ast

from benchmorph.models.sanitize import sanitize

PROMPT = '''def sum_squares(lst):
    """Square the entries at indices that are multiples of 3, cube those at multiples of 4 but not 3.

    >>> sum_squares([1, 2, 3])
    6
    """
'''
BODY = """    result = []
    for i in range(len(lst)):
        if i % 3 == 0:
            result.append(lst[i] ** 2)
        elif i % 4 == 0 and i % 3 != 0:
            result.append(lst[i] ** 3)
        else:
            result.append(lst[i])
    return sum(result)
"""
# The whole function again, as the model writes it a second time.
AGAIN = "\n\n" + PROMPT + BODY


def behaves(code: str) -> list[int]:
    namespace: dict = {}
    exec(compile(code, "<sanitized>", "exec", dont_inherit=True), namespace)  # noqa: S102 - our fixtures
    return [namespace["sum_squares"](case) for case in ([1, 2, 3], [], [-1, -5, 2, -1, -5], list(range(13)))]


EXPECTED = behaves(PROMPT + BODY)


def test_a_completion_cut_off_inside_its_second_copy_keeps_the_first() -> None:
    completion = BODY + AGAIN[: AGAIN.index("result.append(lst[i] ** 3)") + len("result.append(lst[")]
    code = sanitize(completion, entry_point="sum_squares", prompt=PROMPT)
    assert behaves(code) == EXPECTED
    assert code.count("def sum_squares") == 1


def test_a_second_copy_cut_at_a_line_end_that_parses_still_loses() -> None:
    # Cut after a complete line: the copy parses, but it is the first copy's opening lines only.
    completion = BODY + AGAIN[: AGAIN.index("        elif")]
    ast.parse(completion.split("\n\n\n", 1)[1])  # the cut copy is valid Python on its own
    code = sanitize(completion, entry_point="sum_squares", prompt=PROMPT)
    assert behaves(code) == EXPECTED


def test_a_repeat_without_its_docstring_is_still_recognised() -> None:
    again = "\n\ndef sum_squares(lst):\n" + BODY[: BODY.index("        elif")]
    code = sanitize(BODY + again, entry_point="sum_squares", prompt=PROMPT)
    assert behaves(code) == EXPECTED


def test_a_full_revision_in_a_completion_wins() -> None:
    wrong = "    return sum(x ** 2 for x in lst)\n"
    revised = (
        "\n\ndef sum_squares(lst):\n    total = 0\n    for i, x in enumerate(lst):\n"
        "        if i % 3 == 0:\n            total += x ** 2\n        elif i % 4 == 0:\n"
        "            total += x ** 3\n        else:\n            total += x\n    return total\n"
    )
    code = sanitize(wrong + revised, entry_point="sum_squares", prompt=PROMPT)
    assert behaves(code) == EXPECTED
    assert "total" in code and "x ** 2 for x" not in code


def test_a_revision_that_changes_only_the_last_line_wins_even_at_the_end() -> None:
    # Same opening lines, a different (complete) last line: a revision, not a repeat cut short.
    first = "def add(a, b):\n    total = a\n    return total - b\n"
    second = "\n\ndef add(a, b):\n    total = a\n    return total + b"
    code = sanitize(first + second, entry_point="add")
    assert "total + b" in code and "total - b" not in code


def test_chat_answer_revised_in_full_keeps_the_last_block() -> None:
    answer = (
        "Here is a solution:\n\n```python\ndef add(a, b):\n    return a - b\n```\n\n"
        "Oops, that subtracts. The corrected version:\n\n```python\ndef add(a, b):\n    return a + b\n```\n"
    )
    assert sanitize(answer, entry_point="add").strip() == "def add(a, b):\n    return a + b"


def test_chat_answer_whose_last_fence_is_cut_off_keeps_the_complete_block() -> None:
    for tail in ("    total = a + b\n", "    total = a +"):
        answer = (
            "```python\ndef add(a, b):\n    total = a + b\n    return total\n```\n\n"
            "The same, with a comment:\n\n```python\ndef add(a, b):\n" + tail
        )
        code = sanitize(answer, entry_point="add")
        assert "return total" in code, tail


def test_a_shorter_copy_in_a_closed_fence_is_a_choice_not_a_cut() -> None:
    # The fence was closed: the model ended that copy itself, so the last complete one wins.
    answer = (
        "```python\ndef f(x):\n    y = x + 1\n    return y\n```\n\nShorter:\n\n"
        "```python\ndef f(x):\n    y = x + 1\n```\n"
    )
    assert sanitize(answer, entry_point="f").strip() == "def f(x):\n    y = x + 1"
