"""One anatomy of a code prompt, shared by everything that reads one: where the description lives.

Many parts read a prompt's description: D_Q (the wording distance), BLEU
against the parent, the worked-example scan, the rewrites that retell it,
the text checks and the audit.  When each found "the description" its own
way, D_Q could measure text the example scan never looked at.  Every reader
now starts from :func:`anatomy`: the prompt parsed once (as the stub it is),
the entry point's ``def`` line, the docstring that holds the description
(the entry point's, else the module's) with its quotes, and the regions
where description text lives (every string statement of the module and of
the entry point, and the docstring of each class), all as offsets into the
prompt.  What counts as a worked example is the example scanner's business
(``validation.examples.scan``), which reads these regions too.

Anatomies are cached by the prompt's text and entry point.
"""

from __future__ import annotations

import ast
import bisect
import re
import warnings
from dataclasses import dataclass
from functools import lru_cache


def parse_prompt_stub(prompt: str) -> ast.Module | None:
    """A code prompt parsed as the stub it is (a signature, perhaps a docstring); None for text prompts.

    A prompt ending in ``def f(...):`` has no body yet, so one is supplied.
    The invalid escapes some docstrings hold (``\\w``) are not worth a warning.
    """
    body = "\n    pass\n" if prompt.rstrip().endswith(":") else ""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", (SyntaxWarning, DeprecationWarning))
        try:
            return ast.parse(prompt + body)
        except SyntaxError:
            return None


@dataclass(frozen=True)
class Docstring:
    """The string literal holding a prompt's description, as offsets into the prompt."""

    start: int  # the literal's first character (its prefix or opening quote)
    end: int  # just past its closing quote
    content_start: int  # just past the opening quotes
    content_end: int  # at the closing quotes
    quote: str  # the quotes: triple or single, double or single
    raw: bool  # an r-string: backslashes are literal
    in_function: bool  # the entry point's docstring (else the module's)
    indent: str  # indentation of the docstring's continuation lines


@dataclass(frozen=True)
class PromptAnatomy:
    """A prompt's parts, as offsets into ``prompt`` (see the module docstring)."""

    prompt: str
    entry_point: str
    tree: ast.Module | None
    line_starts: tuple[int, ...]  # offset of each line's first character, and the text's length last
    def_span: tuple[int, int] | None  # the entry point's def line(s), decorators excluded, up to its body
    docstring: Docstring | None
    regions: tuple[tuple[int, int], ...]  # where description text lives; the whole text if unparsed

    @property
    def parses(self) -> bool:
        return self.tree is not None

    @property
    def def_line(self) -> str | None:
        """The source of the entry point's ``def`` line(s), up to the colon, as the prompt spells it."""
        if self.def_span is None:
            return None
        return self.prompt[self.def_span[0] : self.def_span[1]].rstrip() or None

    @property
    def content(self) -> str:
        """The docstring's text between its quotes, as written ("" without a docstring)."""
        if self.docstring is None:
            return ""
        return self.prompt[self.docstring.content_start : self.docstring.content_end]

    def line_of(self, offset: int) -> int:
        """The 0-based line holding ``offset``."""
        return bisect.bisect_right(self.line_starts, offset) - 1

    def offset(self, lineno: int, col_bytes: int) -> int:
        """ast's (1-based line, UTF-8 byte column) as an offset into the prompt."""
        line_start = self.line_starts[lineno - 1]
        line_end = self.line_starts[lineno] if lineno < len(self.line_starts) else len(self.prompt)
        line = self.prompt[line_start:line_end]
        return line_start + len(line.encode("utf-8")[:col_bytes].decode("utf-8", "ignore"))

    def in_regions(self, start: int, end: int) -> bool:
        """Whether ``[start, end)`` overlaps a description region."""
        return any(left < end and start < right for left, right in self.regions)


def entry_def(tree: ast.Module, entry_point: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The entry point's definition; the last one where a prompt defines it twice."""
    defs = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == entry_point
    ]
    return defs[-1] if defs else None


def string_statement(body: list[ast.stmt]) -> ast.Expr | None:
    """The first string statement of a body, after any imports (HumanEval/115 imports before its docstring)."""
    for statement in body:
        if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
            return statement if isinstance(statement.value.value, str) else None
        if not isinstance(statement, ast.Import | ast.ImportFrom):
            return None
    return None


def _is_string(statement: ast.stmt) -> bool:
    return (
        isinstance(statement, ast.Expr)
        and isinstance(statement.value, ast.Constant)
        and isinstance(statement.value.value, str)
        and statement.end_lineno is not None
    )


_OPENING = re.compile(r"([rRuU]?)(\"\"\"|'''|\"|')")


@lru_cache(maxsize=8192)
def anatomy(prompt: str, entry_point: str) -> PromptAnatomy:
    """The anatomy of ``prompt`` whose function is ``entry_point`` (cached by both)."""
    starts = [0]
    for line in prompt.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    tree = parse_prompt_stub(prompt)
    bare = PromptAnatomy(prompt, entry_point, tree, tuple(starts), None, None, ((0, len(prompt)),))
    if tree is None:
        return bare

    def span(node: ast.stmt) -> tuple[int, int]:
        assert node.end_lineno is not None
        return bare.offset(node.lineno, node.col_offset), bare.offset(
            node.end_lineno, node.end_col_offset or 0
        )

    owner = entry_def(tree, entry_point)
    regions: list[tuple[int, int]] = []
    for body in [tree.body, owner.body if owner is not None else []]:
        regions += [span(statement) for statement in body if _is_string(statement)]
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.body and _is_string(node.body[0]):
            regions.append(span(node.body[0]))
    def_span = None
    if owner is not None and owner.body:
        first = owner.body[0].lineno
        def_span = (bare.offset(owner.lineno, 0), starts[min(first - 1, len(starts) - 1)])
    statement = string_statement(owner.body) if owner is not None else None
    in_function = statement is not None
    if statement is None:
        statement = string_statement(tree.body)
    docstring = None
    if statement is not None:
        start, end = span(statement)
        opening = _OPENING.match(prompt, start)
        if opening is not None and prompt[start:end].endswith(opening.group(2)):
            quote = opening.group(2)
            docstring = Docstring(
                start=start,
                end=end,
                content_start=opening.end(),
                content_end=end - len(quote),
                quote=quote,
                raw="r" in opening.group(1).lower(),
                in_function=in_function,
                indent=" " * statement.col_offset if in_function else "",
            )
    unique = tuple(sorted(set(regions))) or ((0, len(prompt)),)
    return PromptAnatomy(prompt, entry_point, tree, tuple(starts), def_span, docstring, unique)
