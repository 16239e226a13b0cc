"""The request asking for a counterfactual instruction and its solution, and how answers are read.

Our own wording of the CTF-Instruct idea: change the instruction minimally, the code a lot, the
difficulty not at all.  Chat models answer in one turn (JSON, or headed sections with a code block);
base models are asked in two completions, first the new instruction and then its solution, since a base
model continues a document rather than following a reply format.  Answers are read tolerantly; what
cannot be read is reported as ``unparseable``, never fatal.
"""

from __future__ import annotations

import ast
import json
import re

from benchmorph.models.prompts import Request
from benchmorph.models.spec import Mode

CHAT_PROMPT = """You write training data that teaches code models to read instructions carefully.

Original instruction:
~~~~
{prompt}
~~~~

Original solution:
```python
{code}
```

Write a counterfactual version of this task:
- change as few words of the instruction as possible (one detail: a condition, a comparison, a \
quantity, an order, what is returned), keeping its style and any function name;
- the change must make the correct solution substantially different: the original solution must no \
longer be correct, and the new code must differ in its logic, not only in a constant;
- keep the same difficulty;
- the new instruction must be unambiguous and solvable on its own.

Reply with JSON only, in this form: {{"instruction": "<the complete new instruction>", "solution": \
"<the complete new Python solution>"}}"""

DOC_HEAD = (
    "Below: a programming task and its solution, then a counterfactual version of the task: its "
    "instruction changes in one detail, so that the solution must change.\n\n"
)
INSTRUCTION_HEAD = "### Counterfactual instruction (one detail changed)\n"
SOLUTION_HEAD = "### Counterfactual solution\n```python\n"
COMPLETION_STOPS = ("\n###", "\n```", "</s>")


def pair_request(prompt: str, code: str, mode: Mode) -> Request:
    """The first (for chat models, the only) request for one sample."""
    if mode == "chat":
        return Request(
            "chat", messages=(("user", CHAT_PROMPT.format(prompt=prompt.strip(), code=code.rstrip())),)
        )
    text = (
        f"{DOC_HEAD}### Instruction\n{prompt.strip()}\n\n### Solution\n```python\n{code.rstrip()}\n```\n\n"
        f"{INSTRUCTION_HEAD}"
    )
    return Request("completion", prompt=text, stop=COMPLETION_STOPS)


def solution_request(first: Request, instruction: str) -> Request:
    """A base model's second request: the solution of the instruction it wrote."""
    text = f"{first.prompt}{instruction.strip()}\n\n{SOLUTION_HEAD}"
    return Request("completion", prompt=text, stop=("\n```", "\n###", "</s>"))


_INSTRUCTION_KEYS = ("instruction", "new_instruction", "counterfactual_instruction", "problem", "task")
_SOLUTION_KEYS = ("solution", "new_solution", "code", "counterfactual_solution", "output", "answer")
_FENCE = re.compile(r"(```|~~~+)[ \t]*([\w+-]*)[ \t]*\n(.*?)(?:\n\1|\Z)", re.S)
_HEADING = re.compile(
    r"^\s*(?:#+\s*|\*\*)?([A-Za-z ]*instruction[A-Za-z ()]*)(?:\*\*)?\s*:?\s*(?:\*\*)?\s*$", re.I | re.M
)


def _json_pair(text: str) -> tuple[str, str] | None:
    decoder = json.JSONDecoder()
    for match in re.finditer(r"\{", text):
        try:
            value, _ = decoder.raw_decode(text[match.start() :])
        except (json.JSONDecodeError, RecursionError):
            continue
        if not isinstance(value, dict):
            continue
        instruction = next((value[k] for k in _INSTRUCTION_KEYS if isinstance(value.get(k), str)), None)
        solution = next((value[k] for k in _SOLUTION_KEYS if isinstance(value.get(k), str)), None)
        if instruction and instruction.strip() and solution and solution.strip():
            return instruction.strip(), solution
    return None


def _sections(text: str) -> tuple[str, str] | None:
    """An ``Instruction:`` heading, its text, and the first code block after it."""
    heading = _HEADING.search(text)
    if heading is None:
        return None
    rest = text[heading.end() :]
    fence = _FENCE.search(rest)
    if fence is None:
        return None
    instruction = rest[: fence.start()]
    instruction = re.split(
        r"^\s*(?:#+\s*|\*\*)?\s*(?:new |counterfactual )?solution\b.*$", instruction, flags=re.I | re.M
    )[0]
    instruction = instruction.strip()
    if not instruction:
        return None
    return instruction, rest[fence.start() :]


def parse_pair(text: str) -> tuple[str, str] | None:
    """(new instruction, solution text) from a chat answer, or None when neither form is there."""
    return _json_pair(text) or _sections(text)


def code_block(solution: str) -> tuple[str, str | None]:
    """The code of a solution text and why it does not parse (None when it does).

    A fenced block is taken as written; a solution without fences is taken whole.  Parsing the text as
    written (rather than what the sanitizer salvages from it) is the point: a truncated or broken
    solution is not training data.
    """
    blocks = [
        m.group(3) for m in _FENCE.finditer(solution) if m.group(2).lower() in {"", "python", "py", "python3"}
    ]
    code = max(blocks, key=len) if blocks else solution
    try:
        ast.parse(code)
    except SyntaxError as exc:
        return code, f"line {exc.lineno}: {exc.msg}"
    except (ValueError, RecursionError, MemoryError) as exc:
        return code, str(exc)[:120]
    return code, None
