"""The requests of the LLM ``evolve`` generator (EvoEval's types), in our own words, and their readers.

One request per type asks the generator for a new problem *and* its
solution as Python code (:func:`evolve_request`); a refinement request shows
it the disagreement found by self-consistency (:func:`refine_request`); a
rewording request asks for a longer or shorter description of the same task
(:func:`reword_request`, verbose and concise).  :func:`parse_program` turns a
code answer into the prompt a model sees and the reference that solved it;
:func:`parse_calls` reads the generator's test calls without running them.

Chat models get the instructions in one message and answer with code
blocks; base models (``local``) get a completion prompt that starts the code
they should write.  Readers return a value or the one-line reason they could
not, never raise.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from benchmorph.data.errors import InputError
from benchmorph.data.formats.evoeval import parse_arguments
from benchmorph.data.models import Problem
from benchmorph.models.prompts import Request
from benchmorph.models.sanitize import sanitize
from benchmorph.models.spec import Mode
from benchmorph.morph.transforms.evolve.rules import parse_code

# What each type asks for; the rest of the request is shared.
TYPE_ASKS = {
    "difficult": (
        "Make the problem more difficult: add a new constraint or requirement, or raise the complexity of "
        "what must be computed, so that a solution of the original no longer solves it."
    ),
    "creative": (
        "Write a new problem that needs the same programming skills (the same kind of data and the same "
        "kind of computation) but tells them as an unusual, imaginative story."
    ),
    "subtle": (
        "Change the meaning of the problem slightly: one small change to what is computed (a condition, a "
        "boundary, an order, an operation), so that the answers differ on some inputs while the rest of the "
        "task stays as it is."
    ),
    "combine": (
        "Merge the two problems into one new problem that needs both of them: the solution must do what the "
        "first asks and what the second asks, one feeding the other or side by side, in one function."
    ),
    "tool_use": (
        "Write a new, harder problem whose code gives one to three helper functions in full (body and "
        "docstring) before the main function; a solution of the main function is expected to call them."
    ),
    "decompose": (
        "Split the problem into two subproblems, each a function useful on its own, and a main function "
        "that solves the original problem by calling both."
    ),
}
REWORD_ASKS = {
    "verbose": "Rewrite the description in more words: longer, more detailed sentences",
    "concise": "Rewrite the description in as few words as possible",
}
CODE_RULES = (
    "Write the new problem as Python code: a function whose docstring states the task completely (inputs, "
    "output, every rule and edge case) and shows two or three examples in the form\n"
    "    >>> name(arguments)\n    result\n"
    "followed by its complete, correct solution. Use only the standard library."
)
CALLS_RULES = (
    "Then give 5 to 10 test calls of the main function in a second ```python block, one call per line "
    "with literal arguments, covering ordinary and edge cases (no expected results)."
)


def shown_code(problem: Problem) -> str:
    """A problem as code with its solution: the reference when it continues the prompt, else both."""
    if problem.reference.startswith(problem.prompt) or problem.prompt.strip() in problem.reference:
        return problem.reference.rstrip()
    return f"{problem.prompt.rstrip()}\n\n{problem.reference.rstrip()}"


def _block(code: str) -> str:
    return f"```python\n{code.rstrip()}\n```"


def evolve_request(kind: str, parent: Problem, mode: Mode, partner: Problem | None = None) -> Request:
    """Ask for a new problem of type ``kind`` evolved from ``parent`` (and ``partner`` for combine)."""
    if mode == "chat":
        originals = f"The original problem, with a correct solution:\n{_block(shown_code(parent))}\n"
        if partner is not None:
            originals = (
                f"The first problem, with a correct solution:\n{_block(shown_code(parent))}\n\n"
                f"The second problem, with a correct solution:\n{_block(shown_code(partner))}\n"
            )
        if kind == "decompose":
            form = (
                f"Reply with one ```python code block holding three functions, each with a docstring that "
                f"states its task and shows examples: the first subproblem, the second subproblem, then the "
                f"main function `{parent.entry_point}` with the original's parameters, which returns what the "
                "original returns by calling the two subproblems. Use only the standard library."
            )
        else:
            helpers = (
                " Put the helper functions, complete and documented, before the main function."
                if (kind == "tool_use")
                else ""
            )
            form = f"{CODE_RULES}{helpers}\n\nReply with the code in one ```python block. {CALLS_RULES}"
        text = (
            f"You evolve programming problems into new ones for a benchmark of code models.\n\n{originals}\n"
            f"Your task: {TYPE_ASKS[kind]}\n\n{form}"
        )
        return Request("chat", messages=(("user", text),))
    prompt = f"# Original problem:\n{shown_code(parent)}\n\n"
    if partner is not None:
        prompt += f"# Second problem:\n{shown_code(partner)}\n\n"
    prompt += f"# Evolved problem ({kind}). {TYPE_ASKS[kind]} Same format: docstring with examples, then the solution.\n"
    return Request(
        "completion", prompt=prompt, stop=("\n# Original", "\n# Evolved", "\nif __name__", "\n```")
    )


def refine_request(kind: str, previous: str, disagreement: str, mode: Mode) -> Request:
    """Show the generator what independent solutions did with its problem; ask it to clarify or fix."""
    if mode == "chat":
        text = (
            f"You wrote this problem ({kind}) and its solution:\n{_block(previous)}\n\n"
            "We gave the problem, without your solution, to independent programmers and ran their solutions "
            f"and yours on the same inputs. They disagree:\n{disagreement}\n\n"
            "Either the description can be read in more than one way (then state the task so that it has "
            "exactly one reading, and show it in the examples), or your solution does not do what the "
            "description says (then fix the solution). Keep the function's name and parameters.\n\n"
            f"Reply with the complete corrected code in one ```python block. {CALLS_RULES}"
        )
        return Request("chat", messages=(("user", text),))
    prompt = (
        f"# A problem and its solution:\n{previous}\n\n# Independent solutions disagree with it:\n"
        + "".join(f"# {line}\n" for line in disagreement.splitlines())
        + "# The corrected problem and solution (clearer description or fixed solution):\n"
    )
    return Request(
        "completion", prompt=prompt, stop=("\n# A problem", "\n# Independent", "\nif __name__", "\n```")
    )


def reword_request(
    kind: str, parent_prompt: str, description: str, mode: Mode, feedback: str | None = None
) -> Request:
    """Ask for ``description`` reworded (verbose: longer; concise: shorter) with the same meaning."""
    ask = REWORD_ASKS[kind]
    if mode == "chat":
        note = (
            f"\nAn earlier rewording was rejected: {feedback}. Do not repeat that mistake.\n"
            if feedback
            else ""
        )
        text = (
            f"{ask}, keeping exactly the same meaning: every requirement, condition, edge case and the form "
            "of the result stay as they are; add nothing, drop nothing. Write no examples: the original's "
            f"examples are kept unchanged.\n\nThe problem:\n{_block(parent_prompt)}\n\nThe description to "
            f"rewrite:\n<<<\n{description.strip()}\n>>>\n{note}\n"
            'Reply with JSON only: {"description": "<the new description, plain text>"}'
        )
        return Request("chat", messages=(("user", text),))
    length = "long, detailed" if kind == "verbose" else "very short"
    prompt = (
        f'Description:\n"""{description.strip()}"""\n\nThe same description, {length}, same meaning:\n"""'
    )
    return Request("completion", prompt=prompt, stop=('"""', "\n\n\n"))


# ------------------------------------------------------------------ readers

_CODE_BLOCK = re.compile(r"```(?:python|py|Python)?[ \t]*\n(.*?)(?:```|\Z)", re.S)


def code_blocks(request: Request, text: str) -> list[str]:
    """The answer's code: its fenced blocks, or (a base model's continuation, unfenced) the whole text."""
    if request.mode == "completion":
        return [text]
    found = [block for block in _CODE_BLOCK.findall(text) if block.strip()]
    return found or [text]


@dataclass
class Program:
    """A generator's code answer, cut into what a model is shown and what solved it."""

    code: str  # the whole answer: the reference
    entry_point: str
    prompt: str  # imports (+ helpers for tool_use) + the entry point's def line and docstring
    functions: list[str] = field(default_factory=list)  # top-level function names, in order
    calls: list[list[Any]] = field(default_factory=list)  # the generator's test inputs


def _segment(code: str, node: ast.stmt) -> str:
    lines = code.splitlines(keepends=True)
    start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])]) - 1
    return "".join(lines[start : node.end_lineno])


def _docstring_end(node: ast.FunctionDef) -> int | None:
    first = node.body[0] if node.body else None
    if (
        isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
    ):
        return first.end_lineno
    return None


def function_prompt(
    code: str, tree: ast.Module, entry: ast.FunctionDef, helpers: Sequence[str] = ()
) -> str | None:
    """Imports, the named helpers in full, and ``entry`` up to the end of its docstring; None without one."""
    end = _docstring_end(entry)
    if end is None:
        return None
    lines = code.splitlines(keepends=True)
    parts = [_segment(code, node) for node in tree.body if isinstance(node, ast.Import | ast.ImportFrom)]
    head = "".join(parts)
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name in helpers:
            head += ("\n\n" if head else "") + _segment(code, node).rstrip() + "\n"
    start = min([entry.lineno] + [d.lineno for d in entry.decorator_list]) - 1
    prompt = head + ("\n\n" if head else "") + "".join(lines[start:end])
    return prompt if prompt.endswith("\n") else prompt + "\n"


def called_names(node: ast.AST) -> set[str]:
    """The plain names ``node`` calls (``helper(x)``), the functions of the same module it relies on."""
    return {n.func.id for n in ast.walk(node) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}


def _calls_of(blocks: Sequence[str], entry_point: str) -> list[list[Any]]:
    """Literal argument lists of ``entry_point(...)`` calls anywhere in the blocks (never run)."""
    found: list[list[Any]] = []
    for block in blocks:
        for line in block.splitlines():
            match = re.match(rf"\s*(?:assert\s+|print\()?\s*{re.escape(entry_point)}\((.*)\)", line)
            if not match:
                continue
            tree = parse_code(f"{entry_point}({match.group(1)})") or parse_code(
                f"{entry_point}({match.group(1)}"
            )
            call = tree.body[0].value if tree and tree.body and isinstance(tree.body[0], ast.Expr) else None
            if not isinstance(call, ast.Call) or call.keywords:
                continue
            source = ", ".join(ast.unparse(arg) for arg in call.args)
            try:
                found.append(parse_arguments(source))
            except (InputError, ValueError, SyntaxError, TypeError, RecursionError, MemoryError):
                continue
    return found


def parse_program(request: Request, text: str, kind: str, entry_point: str | None = None) -> Program | str:
    """The answer as a :class:`Program`, or why it cannot be one.

    The entry point is ``entry_point`` when the code defines it, else the
    last top-level function with a docstring.  Only tool_use keeps the other
    functions in the prompt (they are the tools); elsewhere a helper the
    generator wrote is part of the solution, not of the task.
    """
    blocks = code_blocks(request, text)
    code = ""
    tree = None
    for block in blocks:
        parsed = parse_code(block)
        if parsed is not None and any(isinstance(n, ast.FunctionDef) for n in parsed.body):
            code, tree = block, parsed
            break
    if tree is None:
        return "the answer holds no Python function that parses"
    # Top-level test calls, prints and asserts in the answer are not part of the solution.
    functions = [n for n in tree.body if isinstance(n, ast.FunctionDef)]
    documented = [n for n in functions if _docstring_end(n) is not None]
    named = [n for n in functions if n.name == entry_point]
    entry = named[-1] if named else (documented[-1] if documented else None)
    if entry is None:
        return "no function in the answer has a docstring (the task statement)"
    code = sanitize(code, entry_point=entry.name)
    tree = parse_code(code)
    if tree is None:
        return "the answer's code does not parse once its test calls are removed"
    functions = [n for n in tree.body if isinstance(n, ast.FunctionDef)]
    entry = next((n for n in reversed(functions) if n.name == entry.name), None)
    if entry is None:
        return "the main function did not survive sanitizing"
    helpers = [n.name for n in functions if n is not entry] if kind == "tool_use" else []
    if kind == "tool_use":
        if not helpers:
            return "a tool_use problem must give at least one helper function"
        called = called_names(entry)
        if not called & set(helpers):
            return "the solution does not call any of the helper functions it gives"
    prompt = function_prompt(code, tree, entry, helpers)
    if prompt is None:
        return "the main function has no docstring"
    if parse_code(prompt + "    pass\n") is None:
        return "the prompt cut from the answer does not parse"
    calls = _calls_of(blocks, entry.name)
    return Program(code, entry.name, prompt, [n.name for n in functions], calls)
