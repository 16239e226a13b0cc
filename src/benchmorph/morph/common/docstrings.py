"""Text surgery on a function problem's prompt: swap the description, keep everything else byte for byte.

A metamorphic variant shows models the original prompt with only the
description retold: the imports, helper functions, the ``def`` line with its
name, parameters and annotations, and the worked examples stay exactly as
they were.  :func:`split_prompt` cuts the prompt at the description (the
entry point's docstring for HumanEval-style stubs; the module docstring for
MBPP-style text prompts) and at its first worked example (found by
:mod:`benchmorph.validation.examples.scan`); :func:`assemble` puts a new
description in; :func:`check_assembled` is the structural half of validation
(b): the result parses, the signature is identical and every original
example is still there, unchanged.
"""

from __future__ import annotations

import ast
import inspect
import re
import textwrap
import warnings
from collections import Counter
from dataclasses import dataclass

from benchmorph.data.models import Problem
from benchmorph.models.prompts import parse_prompt_stub
from benchmorph.validation.examples.recompute import reference_parameters
from benchmorph.validation.examples.scan import ExampleScan, scan_examples

WRAP_WIDTH = 92


@dataclass(frozen=True)
class PromptParts:
    """``before + head + description + (examples | tail) + after`` is the original prompt."""

    before: str  # everything up to and including the docstring's opening quotes
    head: str  # whitespace between the opening quotes and the description
    description: str  # the description as written (indented source)
    examples: str  # from the first example line to the closing quotes ("" when there are none)
    tail: str  # whitespace before the closing quotes when there are no examples
    after: str  # the closing quotes and everything after them
    indent: str  # indentation of the docstring's continuation lines
    quote: str  # the docstring's quotes
    raw: bool  # an r-string: backslashes are literal

    @property
    def text(self) -> str:
        """The description as a reader sees it: dedented, outer blank lines gone."""
        return inspect.cleandoc(self.description) if self.description.strip() else ""

    @property
    def gap(self) -> str:
        """The line breaks between the description and the examples, as the original has them."""
        trailing = self.description[len(self.description.rstrip()) :]
        return "\n" * max(1, trailing.count("\n"))


def _parse(prompt: str) -> ast.Module | None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", (SyntaxWarning, DeprecationWarning))
        return parse_prompt_stub(prompt)


def _entry_def(tree: ast.Module, entry_point: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    defs = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == entry_point
    ]
    return defs[-1] if defs else None


def _string_statement(body: list[ast.stmt]) -> ast.Expr | None:
    """The first string statement of a body, after any imports (HumanEval/115 imports before its docstring)."""
    for statement in body:
        if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
            return statement if isinstance(statement.value.value, str) else None
        if not isinstance(statement, ast.Import | ast.ImportFrom):
            return None
    return None


def signature_of(prompt: str, entry_point: str) -> str | None:
    """The entry point's ``def`` without its body (name, parameters, annotations, decorators), as an AST dump."""
    tree = _parse(prompt)
    node = _entry_def(tree, entry_point) if tree is not None else None
    if node is None:
        return None
    return ast.dump(
        ast.FunctionDef(
            name=node.name,
            args=node.args,
            body=[],
            decorator_list=node.decorator_list,
            returns=node.returns,
            type_params=[],
        ),
        include_attributes=False,
    )


def def_line(prompt: str, entry_point: str) -> str | None:
    """The source of the entry point's ``def`` line(s), up to the colon, as the prompt spells it."""
    tree = _parse(prompt)
    node = _entry_def(tree, entry_point) if tree is not None else None
    if node is None or not node.body:
        return None
    lines = prompt.splitlines()
    return "\n".join(lines[node.lineno - 1 : node.body[0].lineno - 1]).rstrip() or None


def _offset(lines: list[str], lineno: int, col_bytes: int) -> int:
    before = sum(len(line) for line in lines[: lineno - 1])
    return before + len(lines[lineno - 1].encode("utf-8")[:col_bytes].decode("utf-8", "ignore"))


def scan(problem: Problem, prompt: str | None = None) -> ExampleScan:
    """The worked examples of ``prompt`` (default: the problem's own)."""
    return scan_examples(
        problem.prompt if prompt is None else prompt, problem.entry_point, reference_parameters(problem)
    )


def split_prompt(problem: Problem) -> PromptParts | str:
    """The prompt cut around its description, or why it cannot be (a one-line reason)."""
    if problem.kind != "function":
        return f"only function problems are retold, not {problem.kind}"
    prompt = problem.prompt
    tree = _parse(prompt)
    if tree is None:
        return "the prompt does not parse as Python"
    owner = _entry_def(tree, problem.entry_point)
    statement = _string_statement(owner.body) if owner is not None else None
    in_function = statement is not None
    if statement is None:
        statement = _string_statement(tree.body)
    if statement is None or statement.end_lineno is None:
        return "the prompt has no docstring to retell"
    lines = prompt.splitlines(keepends=True)
    start = _offset(lines, statement.lineno, statement.col_offset)
    end = _offset(lines, statement.end_lineno, statement.end_col_offset or 0)
    literal = prompt[start:end]
    opening = re.match(r"([rRuU]?)(\"\"\"|'''|\"|')", literal)
    if opening is None or not literal.endswith(opening.group(2)):
        return "the docstring is not a plain string literal"
    quote = opening.group(2)
    content_start, content_end = start + opening.end(), end - len(quote)
    content = prompt[content_start:content_end]
    head = content[: len(content) - len(content.lstrip())]
    found = scan(problem)
    first_line_of_doc = statement.lineno - 1
    example_lines = [
        line
        for line in [*found.blank_lines, *found.headers]
        if first_line_of_doc <= line <= statement.end_lineno - 1
    ]
    line_starts = [0]
    for line in lines:
        line_starts.append(line_starts[-1] + len(line))
    if example_lines:
        examples_start = max(line_starts[min(example_lines)], content_start + len(head))
        if examples_start >= content_end:
            examples_start = content_end
        description = prompt[content_start + len(head) : examples_start]
        examples, tail = prompt[examples_start:content_end], ""
    else:
        body = content[len(head) :]
        description = body.rstrip()
        examples, tail = "", body[len(description) :]
    if not description.strip():
        return "the docstring holds examples but no description"
    indent = " " * statement.col_offset if in_function else ""
    return PromptParts(
        before=prompt[:content_start],
        head=head,
        description=description,
        examples=examples,
        tail=tail,
        after=prompt[content_end:],
        indent=indent,
        quote=quote,
        raw=opening.group(1).lower() == "r",
    )


def _units(text: str) -> list[str | None]:
    """Paragraph lines joined; list items kept on their own lines; None marks a blank line."""
    units: list[str | None] = []
    for line in text.strip().splitlines():
        stripped = line.strip()
        if not stripped:
            if units and units[-1] is not None:
                units.append(None)
        elif re.match(r"([-*•]|\d+[.)])\s", stripped) or not units or units[-1] is None:
            units.append(stripped)
        else:
            units[-1] = f"{units[-1]} {stripped}"
    return units


def assemble(parts: PromptParts, description: str) -> str:
    """The original prompt with ``description`` in place of its own, wrapped and indented like a docstring."""
    text = description.replace(parts.quote, "'''" if parts.quote == '"""' else '"""')
    if not parts.raw:
        text = text.replace("\\", "\\\\")
    if text.rstrip().endswith(parts.quote[0]):
        text = text.rstrip() + " "  # a closing quote must not touch the text's own last quote
    out: list[str] = []
    for unit in _units(text):
        if unit is None:
            out.append("")
            continue
        prefix = "" if not out else parts.indent
        out.append(
            textwrap.fill(unit, width=WRAP_WIDTH, initial_indent=prefix, subsequent_indent=parts.indent,
                          break_long_words=False, break_on_hyphens=False)
        )  # fmt: skip
    body = "\n".join(out)
    if parts.examples:
        return parts.before + parts.head + body + parts.gap + parts.examples + parts.after
    return parts.before + parts.head + body + parts.tail + parts.after


def _example_keys(found: ExampleScan) -> Counter[str]:
    return Counter(f"{example.args!r} -> {example.expected_text.strip()}" for example in found.examples)


def check_assembled(problem: Problem, prompt: str) -> tuple[str, str] | None:
    """(check, reason) when ``prompt`` does not keep the problem's interface and examples; None when it does."""
    if _parse(prompt) is None:
        return "prompt-parses", "the new prompt does not parse as Python"
    original = signature_of(problem.prompt, problem.entry_point)
    if original is not None and signature_of(prompt, problem.entry_point) != original:
        return "signature", f"the new prompt changes the signature of {problem.entry_point}()"
    before, after = _example_keys(scan(problem)), _example_keys(scan(problem, prompt))
    lost = before - after
    if lost:
        return "examples-kept", f"{sum(lost.values())} of the original examples are missing or changed"
    return None


def description_from_code(problem: Problem, code: str) -> tuple[str | None, tuple[str, str] | None]:
    """A rewriter that answered with the whole function: its docstring's description, if its signature is kept.

    Returns (description, None) or (None, (check, reason)): a changed
    signature is the ``signature`` check of validation (b).
    """
    original = signature_of(problem.prompt, problem.entry_point)
    answered = signature_of(code, problem.entry_point)
    if answered is None:
        return None, ("rewrite-readable", f"the answer's code does not define {problem.entry_point}()")
    if original is not None and answered != original:
        shown = def_line(code, problem.entry_point) or "?"
        return None, (
            "signature",
            f"the rewrite changes the signature of {problem.entry_point}(): {shown.strip()}",
        )
    tree = _parse(code)
    node = _entry_def(tree, problem.entry_point) if tree is not None else None
    docstring = ast.get_docstring(node) if node is not None else None
    if not docstring:
        return None, ("rewrite-readable", "the answer's function has no docstring")
    return strip_examples(docstring), None


_EXAMPLE_START = re.compile(
    r"^\s*(>>>|assert\b|(for\s+)?examples?\b\s*[:.,]?|e\.g\.\s*[:,]|input\s*:|output\s*:)", re.I
)


def strip_examples(text: str, entry_point: str | None = None) -> str:
    """The text up to its first example-looking line: examples are re-attached from the original, not taken."""
    kept: list[str] = []
    for line in text.splitlines():
        if _EXAMPLE_START.match(line):
            break
        if entry_point and re.search(rf"\b{re.escape(entry_point)}\s*\(.*\)\s*(==|->|➞|=>|returns?\b)", line):
            break
        kept.append(line)
    return "\n".join(kept).strip()
