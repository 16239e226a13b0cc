"""The requests that ask a model for a counterfactual problem, and how its answers are read.

Our own wording: ask for the smallest edit of the description that changes
what a correct solution must compute, keeping the signature and input
format.  Chat models answer in JSON; base models continue a docstring.
Answers are read tolerantly and a failure to read one is reported, not fatal.

Competitive-programming problems are statements, not code: for ``stdin``
problems the whole statement is the description and the input format is
what must be kept; ``method`` (LeetCode) problems must also keep their
``class Solution`` starter code and the method's parameters.  Base models
continue a statement that ends at an explicit end marker.
"""

from __future__ import annotations

import ast
import json
import re

from benchmorph.data.models import Problem
from benchmorph.data.prompt import parse_prompt_stub
from benchmorph.models.prompts import Request
from benchmorph.models.spec import Mode
from benchmorph.validation.examples.statements import STATEMENT_KINDS, method_arguments

CHAT_INSTRUCTIONS = """You write counterfactual versions of programming problems for a benchmark that \
tests whether code models read problem statements carefully.

Original problem:
```python
{prompt}
```

Write a new version of this problem by changing as few words of its description as possible, so that:
- what a correct solution must compute changes for at least some inputs (a correct solution of the \
original problem must no longer be correct);
- the function name, its parameters and the input format stay exactly the same;
- the new problem is still unambiguous and solvable.
If the description contains examples, update them to match the new problem.

Reply with JSON only, in this form: {{"description": "<the complete new problem, in the same format as the \
original>"}}"""

STATEMENT_INSTRUCTIONS = """You write counterfactual versions of programming problems for a benchmark that \
tests whether code models read problem statements carefully.

Original problem statement:
~~~~
{prompt}
~~~~

Write a new version of this problem by changing as few words of its statement as possible, so that:
- what a correct solution must {verb} changes for at least some inputs (a correct solution of the \
original problem must no longer be correct);
- {keep};
- the new problem is still unambiguous and solvable.
If the statement shows examples, keep their inputs as they are and update their outputs to match the \
new problem.

Reply with JSON only, in this form: {{"description": "<the complete new statement, in the same format as \
the original>"}}"""

_KEEP = {
    "stdin": (
        "print",
        "the input format stays exactly the same: every valid input of the original problem is still a "
        "valid input",
    ),
    "method": (
        "return",
        "the input stays the same, and the starter code at the end (class Solution, the method's name and "
        "its parameters) stays exactly as it is",
    ),
}

STATEMENT_END = "[END OF STATEMENT]"
STATEMENT_MARKER = (
    "Below: the same problem with one detail of its statement changed, "
    "so that the correct answer is different.\n\n"
)

COMPLETION_MARKER = (
    "# Below: the same function with one detail of its description changed, "
    "so that the correct answer is different.\n"
)

_DOCSTRING_OPEN = re.compile(r'("""|\'\'\')')


def _docstring_head(prompt: str) -> str | None:
    """The prompt up to and including the opening quotes of its (last) docstring, for base models to continue."""
    opens = [match.end() for match in _DOCSTRING_OPEN.finditer(prompt)]
    if len(opens) < 2:
        return None
    return prompt[: opens[-2]]


def _statement_request(parent: Problem, mode: Mode) -> Request:
    statement = parent.prompt.strip("\n")
    if mode == "chat":
        verb, keep = _KEEP[parent.kind]
        text = STATEMENT_INSTRUCTIONS.format(prompt=statement, verb=verb, keep=keep)
        return Request("chat", messages=(("user", text),))
    prompt = f"{statement}\n{STATEMENT_END}\n\n{STATEMENT_MARKER}"
    return Request("completion", prompt=prompt, stop=(STATEMENT_END,))


def proposal_request(parent: Problem, mode: Mode) -> Request:
    """The request asking for one counterfactual of ``parent``."""
    if parent.kind in STATEMENT_KINDS:
        return _statement_request(parent, mode)
    if mode == "chat":
        return Request("chat", messages=(("user", CHAT_INSTRUCTIONS.format(prompt=parent.prompt.rstrip())),))
    head = _docstring_head(parent.prompt) or '"""\n'
    body = parent.prompt.rstrip() + (
        "\n    pass\n" if parent.prompt.rstrip().endswith('"""') and "def " in parent.prompt else "\n"
    )
    return Request("completion", prompt=f"{body}\n\n{COMPLETION_MARKER}{head}", stop=('"""', "'''", "\n```"))


def _json_description(text: str) -> str | None:
    """The "description" of the first JSON object in ``text`` that has one (prose and fences around it allowed)."""
    decoder = json.JSONDecoder()
    for match in re.finditer(r"\{", text):
        try:
            value, _ = decoder.raw_decode(text[match.start() :])
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict):
            for key in ("description", "problem", "new_problem", "prompt"):
                if isinstance(value.get(key), str) and value[key].strip():
                    return value[key]
    return None


def parse_proposal(parent: Problem, request: Request, text: str) -> tuple[str | None, str | None]:
    """(the new prompt, None) or (None, why it could not be read)."""
    candidate: str | None
    if request.mode == "completion" and parent.kind in STATEMENT_KINDS:
        candidate = text.split(STATEMENT_END, 1)[0].strip("\n")
        if not candidate.strip():
            return None, "empty answer"
    elif request.mode == "completion":
        if not text.strip():
            return None, "empty answer"
        head = request.prompt[request.prompt.rindex(COMPLETION_MARKER) + len(COMPLETION_MARKER) :]
        quote = '"""' if head.rstrip().endswith('"""') else "'''"
        candidate = head + text.rstrip() + "\n" + _indent_of(head) + quote + "\n"
    else:
        candidate = _json_description(text)
        if candidate is None:
            fenced = re.search(r"(```|~~~+)[\w+-]*\n(.*?)(?:\1|$)", text, re.S)
            candidate = fenced.group(2) if fenced else None
        if candidate is None:
            return None, "no JSON object with a description, and no code block"
    if not candidate.endswith("\n"):
        candidate += "\n"
    problem = check_signature(parent, candidate)
    return (candidate, None) if problem is None else (None, problem)


def _indent_of(head: str) -> str:
    last = head.rsplit("\n", 1)[-1]
    return last[: len(last) - len(last.lstrip())]


def _signature(prompt: str, entry_point: str) -> str | None:
    tree = parse_prompt_stub(prompt)
    if tree is None:
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == entry_point:
            return ast.dump(node.args, include_attributes=False)
    return None


def _method_signature(prompt: str, entry_point: str) -> str | None:
    arguments = method_arguments(prompt, entry_point)
    return None if arguments is None else ast.dump(arguments, include_attributes=False)


def check_signature(parent: Problem, candidate: str) -> str | None:
    """Why ``candidate`` changes the interface of ``parent`` (None when it keeps it).

    A ``stdin`` statement has no signature (its input format is the
    solver's to honour; labelling shows whether it was kept); a ``method``
    statement must keep its ``class Solution`` stub and the method's parameters.
    """
    if parent.kind == "stdin":
        return None
    if parent.kind == "method":
        kept = _method_signature(parent.prompt, parent.entry_point)
        if kept is None:
            return None
        new = _method_signature(candidate, parent.entry_point)
        if new is None:
            return f"the new problem does not keep the class Solution stub with {parent.entry_point}()"
        if new != kept:
            return f"the new problem changes the parameters of {parent.entry_point}()"
        return None
    original = _signature(parent.prompt, parent.entry_point)
    if original is None:  # a text prompt (MBPP style): nothing to keep but the words
        return None
    new = _signature(candidate, parent.entry_point)
    if new is None:
        return f"the new problem does not define {parent.entry_point}() as valid Python"
    if new != original:
        return f"the new problem changes the parameters of {parent.entry_point}()"
    return None
