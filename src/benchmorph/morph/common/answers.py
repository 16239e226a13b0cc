"""Reading what an LLM answered: JSON however it is wrapped, a rewritten description or code instead.

Chat models asked for JSON wrap it in fences and prose, quote with single
quotes, leave trailing commas or answer with a Python literal; the readers
here take all of that, and return the value or the reason it could not be
read, never raise.  Every family that asks an LLM for a structured answer
(scenarios, contexts, rewrites, verdicts) reads it through this module.
"""

from __future__ import annotations

import ast
import json
import re
from typing import Any

from benchmorph.models.prompts import Request

_FENCE = re.compile(r"```[\w+-]*\s*\n?(.*?)```", re.S)
_TRAILING_COMMA = re.compile(r",(\s*[}\]])")
_OPENERS = {"{": "}", "[": "]"}


def _balanced(text: str, start: int) -> str | None:
    """The bracketed span opening at ``start`` (strings respected), or None if it never closes."""
    stack: list[str] = []
    quote: str | None = None
    escaped = False
    for index in range(start, len(text)):
        char = text[index]
        if quote is not None:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == quote:
                quote = None
            continue
        if char in "\"'":
            quote = char
        elif char in _OPENERS:
            stack.append(_OPENERS[char])
        elif char in "}]":
            if not stack or stack.pop() != char:
                return None
            if not stack:
                return text[start : index + 1]
    return None


def _loads(span: str) -> Any:
    """JSON, then JSON without trailing commas, then a Python literal (single quotes, True/None)."""
    for attempt in (span, _TRAILING_COMMA.sub(r"\1", span)):
        try:
            return json.loads(attempt)
        except json.JSONDecodeError:
            pass
    literal = _TRAILING_COMMA.sub(r"\1", span)
    literal = re.sub(r"\btrue\b", "True", re.sub(r"\bfalse\b", "False", re.sub(r"\bnull\b", "None", literal)))
    try:
        return ast.literal_eval(literal)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None


def read_json(text: str, want: type = dict) -> Any:
    """The first JSON value of type ``want`` (``dict`` or ``list``) in a model's answer, or None.

    Looks inside code fences first, then anywhere in the text; each candidate
    span is read as JSON, as JSON with trailing commas removed, and as a
    Python literal (single quotes, ``True``), so the usual slips of chat
    models do not lose an otherwise clear answer.
    """
    opener = "{" if want is dict else "["
    sources = [match.group(1) for match in _FENCE.finditer(text)] + [text]
    for source in sources:
        for match in re.finditer(re.escape(opener), source):
            span = _balanced(source, match.start())
            if span is None:
                continue
            value = _loads(span)
            if isinstance(value, want):
                return value
    return None


def clean_text(text: str | int | float) -> str:
    """One line, without the quotes, backticks and asterisks models put around a value."""
    return " ".join(str(text).strip().strip("\"'`*").split())


_CODE_BLOCK = re.compile(r"```(?:python|py)?\s*\n(.*?)```", re.S)


def parse_rewrite(request: Request, text: str) -> tuple[str | None, str | None, str | None]:
    """(description, code, reason): the new description, or the code the model answered with instead.

    A chat model asked for JSON may answer with the whole function; that code
    is returned as is, so the caller can check its signature and take its
    docstring.  ``reason`` says why neither could be read.
    """
    if request.mode == "completion":
        return (text.strip() or None), None, (None if text.strip() else "empty answer")
    value = read_json(text, dict)
    if value is not None:
        for key in ("description", "new_description", "prompt", "text"):
            if isinstance(value.get(key), str) and value[key].strip():
                return value[key].strip(), None, None
    block = _CODE_BLOCK.search(text)
    if block and "def " in block.group(1):
        return None, block.group(1), None
    if value is not None:
        return None, None, "the JSON answer has no description"
    return None, None, "no JSON object with a description, and no code block"
