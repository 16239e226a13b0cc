"""Worked examples inside a problem description, found and rewritten so they agree with a new solution.

A counterfactual that keeps its parent's examples contradicts itself, and a
model that trusts the examples would be punished for it.  Examples come in
many spellings (doctest ``>>> f(x)`` with the value on the next line,
``f(x) == y``, ``f(x) ➞ y``, ``f(x) => y``, ``assert f(x) == y``); each is
located precisely (line, the span of the expected value) so that only the
expected value is replaced.  A line that calls the entry point but cannot
be read as call-and-value is *unverifiable*: callers treat the problem as
unsafe to edit rather than leave a stale example behind.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Any

# What separates a call from its value in prose examples.
_SEPARATOR = re.compile(r"\s*(?:#\s*)?(==>|==|=>|➞|->|→|=|\bshould return\b|\breturns?\b)\s*")


@dataclass
class Example:
    """One call of the entry point with literal arguments and the value the text claims."""

    line: int  # 0-based line in the text
    args: tuple[Any, ...]
    expected_start: int  # offsets in the whole text of the expected value's spelling
    expected_end: int
    expected_text: str
    doctest: bool
    indent: str = ""  # of the doctest line, for a value line that has to be inserted


@dataclass
class ExampleScan:
    examples: list[Example]
    unverifiable: list[str]  # lines that call the entry point but could not be read


def _call_end(text: str, open_paren: int) -> int | None:
    """Index just past the parenthesis closing the one at ``open_paren`` (strings respected)."""
    depth = 0
    quote: str | None = None
    i = open_paren
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 2
                continue
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth == 0:
                return i + 1
        elif ch == "\n":
            return None
        i += 1
    return None


def _literal_args(call: str) -> tuple[Any, ...] | None:
    try:
        node = ast.parse(call.strip(), mode="eval").body
    except SyntaxError:
        return None
    if not isinstance(node, ast.Call) or node.keywords:
        return None
    try:
        return tuple(ast.literal_eval(arg) for arg in node.args)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None


def _longest_literal(text: str) -> int | None:
    """Length of the longest prefix of ``text`` that is a Python literal (stops before trailing prose)."""
    stripped = text.rstrip()
    candidates = [len(stripped)]
    candidates += [
        m.start() for m in re.finditer(r"\s[#(]|\s+(?:if|because|since|as|-|--)\s|[.,;]\s*$", stripped)
    ]
    for end in sorted(set(candidates), reverse=True):
        piece = stripped[:end].rstrip()
        if not piece:
            continue
        try:
            ast.literal_eval(piece)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            continue
        return len(piece)
    return None


def scan_examples(text: str, entry_point: str) -> ExampleScan:
    """Every example call of ``entry_point`` in ``text``, plus the lines that look like one but cannot be read."""
    lines = text.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    examples: list[Example] = []
    unverifiable: list[str] = []
    call_re = re.compile(rf"(?<![\w.]){re.escape(entry_point)}\s*\(")
    for number, line in enumerate(lines):
        match = call_re.search(line)
        if match is None or re.match(rf"\s*(?:async\s+)?def\s+{re.escape(entry_point)}\b", line):
            continue
        end = _call_end(line, match.end() - 1)
        args = _literal_args(line[match.start() : end]) if end else None
        head = line[: match.start()].strip()
        if args is None or end is None:
            unverifiable.append(line.strip())
            continue
        if head.endswith(">>>"):
            # Doctest: the value is the next line (a blank or missing one means None).
            following = lines[number + 1] if number + 1 < len(lines) else ""
            body = following.strip()
            if not body or body.startswith(">>>") or body.startswith('"""'):
                start = offsets[number + 1]
                indent = line[: len(line) - len(line.lstrip())]
                examples.append(Example(number, args, start, start, "", True, indent))
                continue
            if _longest_literal(body) != len(body):
                unverifiable.append(line.strip())
                continue
            indent = len(following) - len(following.lstrip())
            start = offsets[number + 1] + indent
            examples.append(Example(number, args, start, start + len(body), body, True))
            continue
        rest = line[end:]
        separator = _SEPARATOR.match(rest)
        if separator is None:
            unverifiable.append(line.strip())
            continue
        value_at = end + separator.end()
        length = _longest_literal(line[value_at:])
        if length is None:
            unverifiable.append(line.strip())
            continue
        start = offsets[number] + value_at
        examples.append(
            Example(number, args, start, start + length, line[value_at : value_at + length], False)
        )
    return ExampleScan(examples, unverifiable)


def render_value(value: Any) -> str:
    return repr(value)


def has_literal_spelling(value: Any) -> bool:
    """Whether ``repr(value)`` reads back as the same value (not so for inf, nan or arbitrary objects)."""
    try:
        return ast.literal_eval(render_value(value)) == value
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False


def rewrite_examples(text: str, examples: list[Example], values: list[Any]) -> str:
    """``text`` with each example's expected value replaced by the given one.

    A doctest that showed no value (None) stays blank when the value is
    still None; otherwise None is written out, since dropping the value line
    would let the next line be misread as the value.
    """
    pieces: list[str] = []
    cursor = 0
    for example, value in sorted(zip(examples, values, strict=True), key=lambda pair: pair[0].expected_start):
        pieces.append(text[cursor : example.expected_start])
        if example.doctest and value is None:
            pieces.append("")
        elif example.doctest and example.expected_text == "":
            # The text shows no value (None): a value line of its own goes before the next line.
            pieces.append(f"{example.indent}{render_value(value)}\n")
        else:
            pieces.append(render_value(value))
        cursor = example.expected_end
    pieces.append(text[cursor:])
    return "".join(pieces)


def claimed_values(scan: ExampleScan) -> list[Any]:
    """The values the text claims, read back as literals (None for a blank doctest line)."""
    claimed = []
    for example in scan.examples:
        claimed.append(ast.literal_eval(example.expected_text) if example.expected_text else None)
    return claimed
