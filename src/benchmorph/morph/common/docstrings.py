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
from collections import Counter
from dataclasses import dataclass

from benchmorph.data.models import Problem
from benchmorph.data.prompt import PromptAnatomy, anatomy, entry_def, string_statement
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


def signature_of(prompt: str, entry_point: str) -> str | None:
    """The entry point's ``def`` without its body (name, parameters, annotations, decorators), as an AST dump."""
    tree = anatomy(prompt, entry_point).tree
    node = entry_def(tree, entry_point) if tree is not None else None
    if node is None:
        return None
    return ast.dump(
        ast.FunctionDef(  # type: ignore[call-arg]  # type_params: Python 3.12's field, absent in 3.11's stubs
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
    return anatomy(prompt, entry_point).def_line


def scan(problem: Problem, prompt: str | None = None) -> ExampleScan:
    """The worked examples of ``prompt`` (default: the problem's own)."""
    return scan_examples(
        problem.prompt if prompt is None else prompt, problem.entry_point, reference_parameters(problem)
    )


def _has_string_statement(parts: PromptAnatomy) -> bool:
    """A docstring statement exists but is not a plain literal (the anatomy found none it can cut)."""
    assert parts.tree is not None
    owner = entry_def(parts.tree, parts.entry_point)
    return (owner is not None and string_statement(owner.body) is not None) or string_statement(
        parts.tree.body
    ) is not None


def split_prompt(problem: Problem) -> PromptParts | str:
    """The prompt cut around its description, or why it cannot be (a one-line reason)."""
    if problem.kind != "function":
        return f"only function problems are retold, not {problem.kind}"
    prompt = problem.prompt
    parts = anatomy(prompt, problem.entry_point)
    if parts.tree is None:
        return "the prompt does not parse as Python"
    doc = parts.docstring
    if doc is None:
        if _has_string_statement(parts):
            return "the docstring is not a plain string literal"
        return "the prompt has no docstring to retell"
    content_start, content_end = doc.content_start, doc.content_end
    content = prompt[content_start:content_end]
    head = content[: len(content) - len(content.lstrip())]
    found = scan(problem)
    first_line_of_doc, last_line_of_doc = parts.line_of(doc.start), parts.line_of(doc.end - 1)
    example_lines = [
        line for line in [*found.blank_lines, *found.headers] if first_line_of_doc <= line <= last_line_of_doc
    ]
    line_starts = parts.line_starts
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
    indent = doc.indent
    return PromptParts(
        before=prompt[:content_start],
        head=head,
        description=description,
        examples=examples,
        tail=tail,
        after=prompt[content_end:],
        indent=indent,
        quote=doc.quote,
        raw=doc.raw,
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
    if anatomy(prompt, problem.entry_point).tree is None:
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
    tree = anatomy(code, problem.entry_point).tree
    node = entry_def(tree, problem.entry_point) if tree is not None else None
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
