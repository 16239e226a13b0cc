"""Hand-written raw answers in the shapes real models produce, built from HumanEval's own solutions.

Each shape wraps a solution the way a model would (issue 23 lists them): in a Markdown fence,
between prose, as a body without its ``def`` line, as a body that lost its indentation, written
twice with the second copy cut off by the token limit, revised in full after a wrong first try,
followed by tests and prints, in CodeLlama's ``[PYTHON]`` tags, after a reasoning model's
``</think>``.  Every answer here contains a correct solution, so the right reading of it passes
HumanEval's tests: a sanitizer that gets the shape wrong shows up as a failing verdict.

``answers()`` is deterministic (no randomness, no model): the corpus is rebuilt, not stored.
The embedded model's answers, which are stored, are in ``gemma3_270m.jsonl`` beside this file:
Gemma 3 270M base (the ``local`` spec, one thread), greedy, 300 tokens at most, on HumanEval/0-29,
made with ``benchmorph generate humaneval -m "local?threads=1" --limit 30 --max-tokens 300`` and the
``raw`` text of each sample kept as a ``completion``.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterator
from typing import Any

from benchmorph.data.humaneval import humaneval_problem_records

# Tasks whose solution is a body of four lines or more with no nested ``def`` (so that a copy cut
# short and a revision differ from the complete one in a complete line), the first 20 of them.
TASKS_WANTED = 20


def _cut_mid_line(body: str) -> str:
    """The body cut off in the middle of its last-but-one code line, as a token limit cuts."""
    lines = body.rstrip("\n").split("\n")
    code = [i for i, line in enumerate(lines) if line.strip()]
    at = code[-2]
    line = lines[at]
    indent = len(line) - len(line.lstrip())
    return "\n".join([*lines[:at], line[: indent + max(3, (len(line) - indent) // 2)]])


def _wrong_body(body: str) -> str:
    """A first try that is wrong: the solution's body returning a constant instead."""
    indent = next(
        (line[: len(line) - len(line.lstrip())] for line in body.splitlines() if line.strip()), "    "
    )
    return f"{indent}return None\n"


def tasks() -> list[dict[str, str]]:
    chosen = [
        record
        for record in humaneval_problem_records()
        if len([line for line in record["canonical_solution"].split("\n") if line.strip()]) >= 4
        and "def " not in record["canonical_solution"]
    ]
    return chosen[:TASKS_WANTED]


def answers() -> Iterator[dict[str, Any]]:
    for record in tasks():
        task = record["task_id"]
        prompt, body, entry = record["prompt"], record["canonical_solution"], record["entry_point"]
        program = prompt + body
        dedented = textwrap.dedent(body)

        def answer(shape: str, field: str, text: str, task: str = task) -> dict[str, Any]:
            return {"task_id": task, "shape": shape, "field": field, "origin": "hand", "text": text}

        yield answer("fenced", "solution", f"Here is the implementation:\n\n```python\n{program}```\n")
        yield answer(
            "prose-around",
            "solution",
            f"Sure! The function below does what the docstring asks.\n\n{program}\n"
            "It loops over the input once, so it runs in linear time.\nLet me know if you need more!\n",
        )
        yield answer(
            "fenced-with-tests",
            "solution",
            f"```python\n{program}\n\n# Tests\nprint({entry}.__name__)\nassert {entry} is not None\n"
            f"if __name__ == '__main__':\n    print('done')\n```\n",
        )
        yield answer("body-only", "completion", body)
        yield answer("unindented-body", "completion", dedented)
        yield answer("unindented-body-fenced", "solution", f"```python\n{dedented}```")
        yield answer("repeat-cut-off", "completion", body + "\n\n" + prompt + _cut_mid_line(body))
        yield answer(
            "repeat-cut-at-line-end", "completion", body + "\n\n" + prompt + body.split("\n")[0] + "\n"
        )
        yield answer(
            "revised-in-full",
            "completion",
            _wrong_body(body) + "\n\n# That was wrong; the right version:\n" + prompt + body,
        )
        yield answer(
            "chat-revised-in-full",
            "solution",
            f"```python\n{prompt}{_wrong_body(body)}```\n\nOops, that is not right. Corrected:\n\n"
            f"```python\n{program}```\n",
        )
        yield answer(
            "chat-repeat-unclosed-fence",
            "solution",
            f"```python\n{program}```\n\nThe same with comments:\n\n```python\n{prompt}{_cut_mid_line(body)}",
        )
        yield answer("python-tags", "solution", f"[PYTHON]\n{program}[/PYTHON]\n")
        yield answer(
            "reasoning",
            "solution",
            "<think>\nThe naive way would be\n```python\ndef draft(): pass\n```\nbut that is incomplete.\n"
            f"</think>\n\n```python\n{program}```\n",
        )
        yield answer("tilde-fence", "solution", f"~~~python\n{program}~~~\n")
