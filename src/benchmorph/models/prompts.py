"""How a problem becomes a request, and how an answer becomes code.

Base models (and ``local``) get a completion prompt the code can grow from,
with stop sequences that end the answer where a new top-level statement
would begin; instruct models get one chat message asking for a
self-contained solution in a code block.  Both answers go through the same
sanitizer, so a chatty model is not punished for its prose.
"""

from __future__ import annotations

import ast
import hashlib
import json
from dataclasses import dataclass
from typing import Any, Literal

from benchmorph.data.models import Problem
from benchmorph.data.prompt import parse_prompt_stub
from benchmorph.models.sanitize import sanitize
from benchmorph.models.spec import Mode

# Column-0 starts of something that is not part of the function being written.
FUNCTION_STOPS = ("\ndef ", "\nclass ", "\nif __name__", "\nprint(", "\nassert", "\n#", "\n```")
# A text prompt may need helpers before the entry point, so new defs must not stop it.
TEXT_FUNCTION_STOPS = ("\nif __name__", "\nprint(", "\nassert", '\n"""', "\n```")
STDIN_STOPS = ('\n"""', "\n```", "\n# Example", "\n# Test")
METHOD_STOPS = ("\nclass ", "\nif __name__", "\nprint(", "\nassert", "\n#", "\n```")

FENCE = "```"


# The speakers of a chat: every OpenAI-compatible server and llama.cpp's chat templates know these three.
Role = Literal["system", "user", "assistant"]


@dataclass(frozen=True)
class Request:
    """One question to a model: a completion prompt with stops, or chat messages."""

    mode: Mode
    prompt: str = ""
    messages: tuple[tuple[Role, str], ...] = ()
    stop: tuple[str, ...] = ()

    def chat_messages(self) -> list[dict[str, str]]:
        return [{"role": role, "content": content} for role, content in self.messages]

    def payload(self) -> dict[str, Any]:
        """Everything the model sees, as JSON: the part of the cache key that is the question."""
        if self.mode == "chat":
            return {"mode": "chat", "messages": self.chat_messages()}
        return {"mode": "completion", "prompt": self.prompt, "stop": list(self.stop)}

    def digest(self) -> str:
        blob = json.dumps(self.payload(), sort_keys=True, ensure_ascii=False).encode()
        return hashlib.sha256(blob).hexdigest()


def _defines_entry_point(problem: Problem) -> bool:
    """True when the prompt is code that already starts the entry point (HumanEval, method stubs)."""
    tree = parse_prompt_stub(problem.prompt)
    if tree is None:
        return False
    names = {node.name for node in ast.walk(tree) if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)}
    return problem.entry_point in names


def _as_docstring(text: str) -> str:
    return '"""\n' + text.strip("\n").replace('"""', "'''") + '\n"""\n'


def completion_request(problem: Problem) -> Request:
    if problem.kind == "stdin":
        prompt = (
            _as_docstring(problem.prompt)
            + "# A Python 3 program that reads standard input and prints the answer.\nimport sys\n"
        )
        return Request("completion", prompt=prompt, stop=STDIN_STOPS)
    if _defines_entry_point(problem):
        stops = METHOD_STOPS if problem.kind == "method" else FUNCTION_STOPS
        return Request("completion", prompt=problem.prompt, stop=stops)
    prompt = problem.prompt if problem.prompt.lstrip().startswith('"""') else _as_docstring(problem.prompt)
    return Request("completion", prompt=prompt.rstrip("\n") + "\n", stop=TEXT_FUNCTION_STOPS)


def chat_request(problem: Problem) -> Request:
    block = "Reply with one self-contained ```python code block (include the imports and helpers it needs)."
    if problem.kind == "stdin":
        text = (
            f"{problem.prompt.strip()}\n\nWrite a complete Python 3 program that reads the input from "
            f"standard input and prints the answer to standard output. {block}"
        )
    elif _defines_entry_point(problem):
        what = (
            "the method of class Solution"
            if problem.kind == "method"
            else f"the function `{problem.entry_point}`"
        )
        text = f"Complete {what} below.\n\n{FENCE}python\n{problem.prompt.rstrip()}\n{FENCE}\n\n{block}"
    else:
        text = f"{problem.prompt.strip()}\n\nWrite a Python function named `{problem.entry_point}`. {block}"
    return Request("chat", messages=(("user", text),))


def build_request(problem: Problem, mode: Mode) -> Request:
    """The request a model of this mode gets for this problem (same problem, same request, same cache key)."""
    return chat_request(problem) if mode == "chat" else completion_request(problem)


def answer_to_code(problem: Problem, request: Request, text: str) -> str:
    """The code a model's answer stands for: prompt plus completion, or the chat answer, sanitized."""
    raw = request.prompt + text if request.mode == "completion" else text
    return sanitize(raw, entry_point=problem.entry_point, kind=problem.kind, prompt=problem.prompt)
