"""Worked examples inside a function problem's description, found and rewritten so they agree with a new solution.

A counterfactual that keeps its parent's examples contradicts itself, and a
model that trusts the examples would be punished for it.  HumanEval and MBPP
spell examples in many ways, and every one a reader would see is read here:

* doctest: ``>>> f(x)`` with the value on the next line(s), a blank line
  meaning None; ``>>> f(x) == y`` with the value on the same line; a
  whitelisted wrapper such as ``>>> round(f(x), 2)``;
* inline: ``f(x) ➞ y``, ``f(x) => y``, ``f(x) ==> y``, ``f(x) -> y``,
  ``f(x) == y``, ``f(x) = y``, ``f(x) should return y`` (the call and the
  value may be split over lines, and either may span several lines);
* MBPP asserts: ``assert f(x) == y``, ``assert set(f(x)) == set(y)``,
  ``assert math.isclose(f(x), y, rel_tol=...)``, ``assert f(x)`` and
  ``assert not f(x)``;
* prose: ``For lst = [1,2,3] the output should be 6``, ``For s = "ab", c =
  "b", the result should be ('a',False)``;
* blocks: ``Input: arr = [1, 2], k = 1`` / ``Output: [2]``, and
  assignments ``arr = [...]`` followed by ``return [...]`` or
  ``=> result = 9``.

Each example is located precisely (the span of its expected value), so that
only that value is replaced and every other character, the line count
included, stays.  A misnamed call (``list_sort(...) => ...`` in a problem
whose function is ``sorted_list_sum``) is read as the entry point when it
has the form of an example.  What cannot be recomputed is *unverifiable*:
an example whose value is explained (``# 1+2 is less than ...``,
``Explanation: ...``, ``== 1 + 9 + 0 + 0 = 10``), a worked derivation
between input and value, or an example-like line no reader here
understands.  Callers treat a problem with such lines as unsafe to edit
rather than leave a stale example behind.  Lines that *define* the function
symbolically (``fib4(n) -> fib4(n-1) + ...``) and mentions without
arguments (``next_smallest()``) are description, not examples.
"""

from __future__ import annotations

import ast
import bisect
import builtins
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from benchmorph.data.prompt import anatomy

Style = Literal["literal", "truthy"]

# Separators between a call and its value in inline examples, longest first.
_SEPARATOR = re.compile(
    r"[ \t]*(?:\n[ \t]*)?(?:#[ \t]*)?"
    r"(==>|=>|==|➞|->|→|=(?!=)|\bshould\s+return\b|\bshould\s+be\b|\breturns?\b|\bgives\b|\bis\b)"
    r"[ \t]*(?:\n[ \t]*)?"
)
# Phrases that introduce the value in prose and block examples.
_PROSE_VALUE = re.compile(
    r"(?:\b(?:the\s+)?(?:output|result|answer|return\s+value)\s+(?:should\s+be|will\s+be|would\s+be|is)\b"
    r"|\bshould\s+return\b|\breturns?\b)[ \t:]*",
    re.I,
)
_FOR_ASSIGN = re.compile(
    r"^[ \t]*(?:for\s+example,?\s+)?(?:for|if|when|given)\s+(?=[A-Za-z_]\w*\s*=[^=])", re.I
)
_INPUT = re.compile(r"^[ \t]*input[ \t]*:[ \t]*", re.I)
_OUTPUT = re.compile(r"^[ \t]*output[ \t]*:[ \t]*", re.I)
_EXPLANATION = re.compile(r"^[ \t]*(?:explanation\b|#|because\b|since\b)", re.I)
_RESULT_LINE = re.compile(r"^[ \t]*(?:=>[ \t]*)?(?:return|result|output)\b[ \t]*(?:=|:)?[ \t]*", re.I)
_ASSIGNMENT = re.compile(r"[ \t]*(?P<name>[A-Za-z_]\w*)[ \t]*(?:=(?!=)|:(?!:)|(?=[\[{(]))[ \t]*")
# Strong example separators: a line holding one of these that nothing reads is an unread example.
_ARROW = re.compile(r"➞|==>|=>|→")
_HEADER = re.compile(r"^[ \t]*(?:for\s+)?(?:examples?|\[input/output\]\s+samples?)\b", re.I)
_DERIVATION = re.compile(r"[ \t]*(?:[-+*/%<>=^]|\*\*|//)")
_EXAMPLE_SENTENCE = re.compile(r"\b(?:for\s+example|e\.g\.|for\s+instance)\b", re.I)
_NUMBER = re.compile(r"[-+]?[ \t]*(?:\d[\d_]*(?:\.\d+)?(?:[eE][-+]?\d+)?|\.\d+)j?(?!\w|\.\d)")
_WORD = re.compile(r"[A-Za-z_]\w*")

# Functions a doctest or assert may wrap the call in; evaluated on the host on the recomputed value.
_WRAPPERS: dict[str, Callable[..., Any]] = {
    name: getattr(builtins, name)
    for name in (
        "round abs len sorted set frozenset tuple list str int float bool sum min max chr ord repr".split()
    )
}
# Wrappers that may stand on both sides of an assert: ``set(f(x)) == set([1, 2])``.
_SYMMETRIC = {"set", "frozenset", "sorted", "tuple", "list", "sum", "len", "abs", "round", "str"}
_LOWER_BOOLS = {"true": True, "false": False}


@dataclass
class Example:
    """One call of the entry point with literal arguments and the value the text claims.

    ``expected_start``/``expected_end`` are offsets in the whole text of the
    value's spelling; rewriting replaces exactly that span.  ``wrapper`` is an
    expression in ``_`` applied to the function's output to get the value the
    text shows (``round(_, 2)``); ``style`` ``truthy`` is an ``assert f(x)``
    whose span is the optional ``not `` before the call.
    """

    line: int  # 0-based line of the call
    args: tuple[Any, ...]
    expected_start: int
    expected_end: int
    expected_text: str
    doctest: bool
    indent: str = ""  # of the doctest line, for a value line that has to be inserted
    lines: tuple[int, ...] = ()  # every line the example occupies
    kind: str = "inline"  # doctest, doctest==, inline, assert, prose, input-output, block
    style: Style = "literal"
    wrapper: str | None = None
    compare: str | None = None  # applied to both sides when comparing: ``set(f(x)) == set([1, 2])``
    rel_tol: float | None = None  # ``math.isclose(f(x), y, rel_tol=...)``

    def compared(self, value: Any) -> Any:
        """``value`` as the text compares it (through ``compare``)."""
        return apply_wrapper(self.compare, value) if self.compare is not None else value

    def value_of(self, output: Any) -> Any:
        """What the text should show for the function's ``output``."""
        if self.style == "truthy":
            return bool(output)
        if self.wrapper is not None:
            return apply_wrapper(self.wrapper, output)
        return output

    def claimed(self) -> Any:
        """The value the text shows now."""
        if self.style == "truthy":
            return not self.expected_text.strip()
        if not self.expected_text:
            return None
        value = _read_value(self.expected_text, 0, len(self.expected_text))
        if value is not None and value[0] == len(self.expected_text):
            return value[1]
        try:  # an assert's constant expression: chr(8), set([1, 2])
            return _evaluate(ast.parse(self.expected_text.strip(), mode="eval").body, None)
        except (ValueError, TypeError, SyntaxError, OverflowError) as exc:
            raise ValueError(f"cannot read the example value {self.expected_text!r}") from exc

    def render(self, value: Any) -> str:
        """``value`` spelled the way this example spells its values."""
        if self.style == "truthy":
            return "" if value else "not "
        old = self.expected_text
        if self.doctest and self.kind == "doctest" and not old:
            return "" if value is None else f"{self.indent}{render_value(value)}\n"
        if self.doctest and self.kind == "doctest" and value is None:
            return ""
        try:
            if same_value(self.compared(self.claimed()), self.compared(value), self.rel_tol or 1e-9):
                return old  # unchanged: keep the text's own spelling ([2,3], 6.00)
        except (ValueError, TypeError):
            pass
        quote = _preferred_quote(old)
        lower = old.strip() in _LOWER_BOOLS
        spelled = render_value(value, quote=quote, lower_bools=lower)
        decimals = re.fullmatch(r"-?\d+\.(\d+)", old.strip())
        if decimals and isinstance(value, float) and round(value, len(decimals.group(1))) == value:
            return f"{value:.{len(decimals.group(1))}f}"
        if self.rel_tol is not None and isinstance(value, float) and math.isfinite(value):
            # math.isclose(f(x), 0.538, rel_tol=0.001): as few decimals as stay well within the tolerance.
            for places in range(len(decimals.group(1)) if decimals else 1, 17):
                if math.isclose(round(value, places), value, rel_tol=self.rel_tol / 10):
                    return repr(round(value, places))
        if "," in old and ", " not in old and "\n" not in old:
            spelled = _compact(spelled)
        if "\n" in old and isinstance(value, list | tuple):
            laid_out = _multiline(old, value, quote, lower)
            if laid_out is not None:
                return laid_out
        return spelled


@dataclass
class ExampleScan:
    examples: list[Example]
    unverifiable: list[str]  # example-like text that could not be read (one entry per example)
    unverifiable_lines: set[int] = field(default_factory=set)
    headers: list[int] = field(default_factory=list)  # "Example:", "For example", ">>>" lines
    definitions: list[str] = field(default_factory=list)  # symbolic uses (``fib4(n) -> fib4(n-1) + ...``)

    @property
    def blank_lines(self) -> set[int]:
        """Lines that are examples (or unreadable ones), not description."""
        lines = set(self.unverifiable_lines)
        for example in self.examples:
            lines.update(example.lines or (example.line,))
        return lines

    @property
    def has_examples(self) -> bool:
        """Whether a reader would say the text shows worked examples."""
        return bool(self.examples or self.unverifiable or self.headers)


# ---------------------------------------------------------------- reading values


def _skip_string(text: str, i: int, stop: int) -> int | None:
    """Index past the string literal whose quote is at ``i`` (one line, escapes respected)."""
    quote = text[i]
    if text.startswith(quote * 3, i):
        end = text.find(quote * 3, i + 3, stop)
        return None if end < 0 else end + 3
    j = i + 1
    while j < stop:
        ch = text[j]
        if ch == "\\":
            j += 2
            continue
        if ch == quote:
            return j + 1
        if ch == "\n":
            return None
        j += 1
    return None


def _match_bracket(text: str, i: int, stop: int) -> int | None:
    """Index past the bracket closing the one at ``i``; brackets may span lines, strings are skipped."""
    depth = 0
    j = i
    while j < stop:
        ch = text[j]
        if ch in "'\"":
            end = _skip_string(text, j, stop)
            if end is None:
                return None
            j = end
            continue
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth == 0:
                return j + 1
            if depth < 0:
                return None
        elif ch == "\n" and text[j + 1 : stop].lstrip(" \t").startswith(("\n", ">>>")):
            return None  # a blank line or a new doctest ends any example
        j += 1
    return None


def _literal(spelling: str) -> Any:
    """``ast.literal_eval``, also accepting JavaScript-style ``true``/``false`` outside strings."""
    spelling = " ".join(spelling.split("\n")) if "\n" in spelling else spelling
    try:
        return ast.literal_eval(spelling)
    except (ValueError, SyntaxError):
        if not re.search(r"\b(?:true|false)\b", spelling):
            raise
    pieces = re.split(r"""('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")""", spelling)
    for index in range(0, len(pieces), 2):
        pieces[index] = re.sub(r"\btrue\b", "True", re.sub(r"\bfalse\b", "False", pieces[index]))
    return ast.literal_eval("".join(pieces))


def _read_value(text: str, i: int, stop: int) -> tuple[int, Any] | None:
    """(end, value) of the literal starting at ``i``: a bracketed literal may span lines."""
    if i >= stop:
        return None
    ch = text[i]
    end: int | None
    if ch in "([{":
        end = _match_bracket(text, i, stop)
    elif ch in "'\"" or (ch in "rRbBuU" and text[i + 1 : i + 2] in ("'", '"')):
        start = i + 1 if ch not in "'\"" else i
        if text.startswith('""', start) and not text.startswith('"""', start):
            # HumanEval/158 spells "aaaaaaa" as ""aaaaaaa": a doubled opening quote.
            repaired = _skip_string(text, start + 1, stop)
            if repaired is not None and repaired > start + 3:
                try:
                    return repaired, ast.literal_eval(text[start + 1 : repaired])
                except (ValueError, SyntaxError):
                    return None
        end = _skip_string(text, start, stop)
    elif text.startswith("set()", i):
        end = i + 5
    else:
        number = _NUMBER.match(text, i, stop)
        word = _WORD.match(text, i, stop)
        if number:
            end = number.end()
        elif word and word.group(0) in {"True", "False", "None", "true", "false"}:
            end = word.end()
        else:
            return None
    if end is None:
        return None
    spelling = text[i:end]
    if spelling == "set()":
        return end, set()
    try:
        return end, _literal(spelling)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None


def same_value(a: Any, b: Any, rel_tol: float = 1e-9) -> bool:
    """Whether a reader would say the text already shows ``b`` when it spells ``a``.

    Numbers compare by value (``240`` shows ``240.0``; ``math.isclose``
    examples within their ``rel_tol``), booleans and strings exactly, a
    list never shows a tuple, and dicts and sets ignore order.
    """
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b or math.isclose(a, b, rel_tol=rel_tol, abs_tol=0.0)
    if type(a) is not type(b):
        return False
    if isinstance(a, list | tuple):
        return len(a) == len(b) and all(same_value(x, y, rel_tol) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same_value(a[k], b[k], rel_tol) for k in a)
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 - exotic values are simply not "the same"
        return False


def _compact(spelled: str) -> str:
    """``[1, 2]`` as ``[1,2]``: the separators outside strings without their space."""
    pieces = re.split(r"""('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")""", spelled)
    for index in range(0, len(pieces), 2):
        pieces[index] = pieces[index].replace(", ", ",").replace(": ", ":")
    return "".join(pieces)


def _preferred_quote(spelling: str) -> str:
    for ch in spelling:
        if ch in "'\"":
            return ch
    return "'"


def render_value(value: Any, quote: str = "'", lower_bools: bool = False) -> str:
    """A Python literal for ``value``; strings in ``quote`` where that needs no escaping."""
    if isinstance(value, bool):
        return str(value).lower() if lower_bools else repr(value)
    if isinstance(value, str):
        if quote == '"' and '"' not in value and "\\" not in value and value.isprintable():
            return f'"{value}"'
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(render_value(v, quote, lower_bools) for v in value) + "]"
    if isinstance(value, tuple):
        inner = ", ".join(render_value(v, quote, lower_bools) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if isinstance(value, dict):
        items = ", ".join(
            f"{render_value(k, quote, lower_bools)}: {render_value(v, quote, lower_bools)}"
            for k, v in value.items()
        )
        return "{" + items + "}"
    return repr(value)


def _multiline(old: str, value: list[Any] | tuple[Any, ...], quote: str, lower: bool) -> str | None:
    """``value`` laid out one element per line like ``old`` was, if ``old`` had one element per line."""
    pieces = old.split("\n")
    try:
        before = _literal(old)
    except (ValueError, SyntaxError):
        return None
    if not isinstance(before, list | tuple) or len(before) != len(pieces) or len(value) != len(pieces):
        return None
    continuation = pieces[1][: len(pieces[1]) - len(pieces[1].lstrip())]
    opener, closer = ("[", "]") if isinstance(value, list) else ("(", ")")
    elements = [render_value(v, quote, lower) for v in value]
    body = (",\n" + continuation).join(elements)
    return opener + body + ("," if isinstance(value, tuple) and len(value) == 1 else "") + closer


def has_literal_spelling(value: Any) -> bool:
    """Whether ``repr(value)`` reads back as the same value (not so for inf, nan or arbitrary objects)."""
    try:
        return ast.literal_eval(render_value(value)) == value
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False


def apply_wrapper(wrapper: str, output: Any) -> Any:
    """Evaluate a whitelisted wrapper expression (``round(_, 2)``) with ``_`` bound to ``output``."""
    return _evaluate(ast.parse(wrapper, mode="eval").body, output)


def _evaluate(node: ast.AST, output: Any) -> Any:
    if isinstance(node, ast.Name) and node.id == "_":
        return output
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd | ast.Not):
        operand = _evaluate(node.operand, output)
        return (
            -operand
            if isinstance(node.op, ast.USub)
            else (+operand if isinstance(node.op, ast.UAdd) else not operand)
        )
    if isinstance(node, ast.List | ast.Tuple | ast.Set):
        items = [_evaluate(item, output) for item in node.elts]
        return {ast.List: list, ast.Tuple: tuple, ast.Set: set}[type(node)](items)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _WRAPPERS:
        args = [_evaluate(arg, output) for arg in node.args]
        kwargs = {kw.arg: _evaluate(kw.value, output) for kw in node.keywords if kw.arg}
        return _WRAPPERS[node.func.id](*args, **kwargs)
    raise ValueError(f"not a wrapper this reader evaluates: {ast.unparse(node)}")


def _is_wrapper_of(node: ast.AST, call: ast.Call) -> bool:
    """Whether ``node`` is ``call`` inside whitelisted wrappers only (constants as extra arguments)."""
    if node is call:
        return True
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _WRAPPERS:
        inner = [arg for arg in node.args if not isinstance(arg, ast.Constant)]
        return (
            len(inner) == 1
            and not any(kw.arg is None or not isinstance(kw.value, ast.Constant) for kw in node.keywords)
            and _is_wrapper_of(inner[0], call)
        )
    return False


def _swap(node: ast.AST, call: ast.Call) -> ast.AST:
    """A copy of ``node`` with ``call`` replaced by the name ``_``."""
    if node is call:
        return ast.Name("_", ast.Load())
    if isinstance(node, ast.Call):
        return ast.Call(
            node.func,
            [_swap(arg, call) for arg in node.args],  # type: ignore[misc]
            node.keywords,
        )
    return node


# ---------------------------------------------------------------- the scanner


def _signature(tree: ast.Module | None, entry_point: str) -> list[ast.arg] | None:
    if tree is None:
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == entry_point:
            return [*node.args.posonlyargs, *node.args.args]
    return None


class _Scanner:
    """Reads one text; every reader marks the lines it consumed so later readers skip them."""

    def __init__(self, text: str, entry_point: str, params: Sequence[str] | None) -> None:
        self.text = text
        self.entry_point = entry_point
        tree = anatomy(text, entry_point).tree
        signature = _signature(tree, entry_point)
        self.params: list[str] | None = list(params) if params is not None else None
        if self.params is None and signature is not None:
            self.params = [arg.arg for arg in signature]
        self.lines = text.splitlines(keepends=True)
        self.offsets = [0]
        for line in self.lines:
            self.offsets.append(self.offsets[-1] + len(line))
        self.regions = list(anatomy(text, entry_point).regions)
        self.doc_lines = [
            any(start < self.offsets[n + 1] and self.offsets[n] < end for start, end in self.regions)
            for n in range(len(self.lines))
        ]
        self.consumed: set[int] = set()
        self.scan = ExampleScan([], [])
        self.names = {entry_point} | self._aliases()
        self.call_re = re.compile(
            r"(?<![\w.])(" + "|".join(map(re.escape, sorted(self.names))) + r")[ \t]*\("
        )

    # -- helpers
    def line_of(self, offset: int) -> int:
        return bisect.bisect_right(self.offsets, offset) - 1

    def stop_of(self, offset: int) -> int:
        """End of the docstring region holding ``offset`` (values never run past it)."""
        for start, end in self.regions:
            if start <= offset < end:
                return end
        return len(self.text)

    def body(self, number: int) -> str:
        return self.lines[number].rstrip("\r\n")

    def lines_between(self, start: int, end: int) -> tuple[int, ...]:
        return tuple(range(self.line_of(start), self.line_of(max(start, end - 1)) + 1))

    def unverifiable(self, lines: Sequence[int]) -> None:
        lines = sorted(set(lines))
        if all(n in self.consumed for n in lines):
            return
        self.consumed.update(lines)
        self.scan.unverifiable_lines.update(lines)
        self.scan.unverifiable.append(" / ".join(self.body(n).strip() for n in lines if self.body(n).strip()))

    def add(self, example: Example) -> None:
        lines = example.lines or (example.line,)
        self.consumed.update(lines)
        self.scan.examples.append(example)

    def _aliases(self) -> set[str]:
        """Names used like the entry point in examples (``grade_equation(...) ==> [...]``), never defined."""
        defined = set(re.findall(r"\bdef\s+(\w+)", self.text)) | {"assert", "print", "def", "return", "if"}
        found = set()
        arity = len(self.params) if self.params is not None else None
        for start, end in self.regions:
            for match in re.finditer(r"(?<![\w.])([A-Za-z_]\w*)[ \t]*\(", self.text[start:end]):
                name = match.group(1)
                if name in defined or name == self.entry_point or hasattr(builtins, name) or name in found:
                    continue
                at = start + match.end() - 1
                close = _match_bracket(self.text, at, end)
                if close is None:
                    continue
                parsed = _call_arguments(self.text[start + match.start() : close], self.params)
                if not isinstance(parsed, tuple) or (arity is not None and len(parsed) != arity):
                    continue
                separator = _SEPARATOR.match(self.text, close, end)
                if separator is None or separator.group(1) not in ("==>", "=>", "==", "➞", "->", "→"):
                    continue
                if _read_value(self.text, separator.end(), end) is not None:
                    found.add(name)
        return found

    # -- readers
    def run(self) -> ExampleScan:
        for number in range(len(self.lines)):
            if self.doc_lines[number] and _HEADER.match(self.body(number)):
                self.scan.headers.append(number)
        self.read_doctests()
        self.read_asserts()
        self.read_input_output()
        self.read_prose()
        self.read_assignment_blocks()
        self.read_inline()
        self.read_leftovers()
        self.scan.examples.sort(key=lambda example: example.expected_start)
        return self.scan

    def read_doctests(self) -> None:
        for number, line in enumerate(self.lines):
            stripped = line.strip()
            if not self.doc_lines[number] or not stripped.startswith(">>>") or number in self.consumed:
                continue
            self.scan.headers.append(number)
            at = self.offsets[number] + line.index(">>>") + 3
            source_end = self.offsets[number] + len(self.body(number))
            comment = _comment_start(self.text, at, source_end)
            source = self.text[at : comment if comment is not None else source_end]
            if self._doctest_same_line(number, at, source, line):
                continue
            try:
                node = ast.parse(source.strip(), mode="eval").body
            except SyntaxError:
                self.unverifiable([number])
                continue
            lead = len(source) - len(source.lstrip())
            calls = _calls(node, self.names)
            if len(calls) != 1:
                if calls or self.entry_point in source:
                    self.unverifiable([number])
                continue
            (call,) = calls
            args = _node_arguments(call, self.params)
            if not isinstance(args, tuple):
                self.unverifiable([number])
                continue
            indent = line[: len(line) - len(line.lstrip())]
            if (
                isinstance(node, ast.Compare)
                and len(node.ops) == 1
                and isinstance(node.ops[0], ast.Eq)
                and _is_wrapper_of(node.left, call)
            ):
                value_node = node.comparators[0]
                start = at + lead + _col(source.strip(), value_node.col_offset)
                end = at + lead + _col(source.strip(), value_node.end_col_offset or 0)
                read = _read_value(self.text, start, end)
                if read is None or read[0] != end:
                    self.unverifiable([number])
                    continue
                lines: tuple[int, ...] = (number,)
                following = self.body(number + 1).strip() if number + 1 < len(self.lines) else ""
                if following in ("True", "False"):
                    lines = (number, number + 1)
                wrapper = _wrapper_text(node.left, call)
                self.add(
                    Example(
                        number,
                        args,
                        start,
                        end,
                        self.text[start:end],
                        True,
                        indent,
                        lines,
                        "doctest==",
                        wrapper=wrapper,
                    )
                )
                continue
            if not _is_wrapper_of(node, call):
                self.unverifiable([number])
                continue
            wrapper = _wrapper_text(node, call)
            following = self.lines[number + 1] if number + 1 < len(self.lines) else ""
            body = following.strip()
            if not body or body.startswith(">>>") or body.startswith(('"""', "'''")):
                start = self.offsets[number + 1]
                self.add(
                    Example(
                        number, args, start, start, "", True, indent, (number,), "doctest", wrapper=wrapper
                    )
                )
                continue
            start = self.offsets[number + 1] + len(following) - len(following.lstrip())
            read = _read_value(self.text, start, self.stop_of(start))
            if read is None:
                self.unverifiable([number, number + 1])
                continue
            end = read[0]
            last = self.line_of(end - 1)
            if self.text[end : self.offsets[last] + len(self.body(last))].strip():
                self.unverifiable(list(range(number, last + 1)))
                continue
            self.add(
                Example(
                    number,
                    args,
                    start,
                    end,
                    self.text[start:end],
                    True,
                    indent,
                    tuple(range(number, last + 1)),
                    "doctest",
                    wrapper=wrapper,
                )
            )

    def _doctest_same_line(self, number: int, at: int, source: str, line: str) -> bool:
        """``>>> f(x) [1, 2]``: the value on the call's own line with no separator (HumanEval/116)."""
        match = self.call_re.match(source.lstrip())
        if match is None:
            return False
        start = at + len(source) - len(source.lstrip())
        close = _match_bracket(self.text, start + match.end() - 1, at + len(source))
        if close is None:
            return False
        gap = re.match(r"[ \t]+", self.text[close : at + len(source)])
        if gap is None:
            return False
        args = _call_arguments(self.text[start:close], self.params)
        value_start = close + gap.end()
        read = _read_value(self.text, value_start, at + len(source))
        if not isinstance(args, tuple) or read is None or self.text[read[0] : at + len(source)].strip():
            return False
        indent = line[: len(line) - len(line.lstrip())]
        end = read[0]
        self.add(
            Example(
                number,
                args,
                value_start,
                end,
                self.text[value_start:end],
                True,
                indent,
                (number,),
                "doctest==",
            )
        )
        return True

    def read_asserts(self) -> None:
        for number, line in enumerate(self.lines):
            stripped = line.strip()
            if not self.doc_lines[number] or not stripped.startswith("assert") or number in self.consumed:
                continue
            at = self.offsets[number] + len(line) - len(line.lstrip())
            end = self.offsets[number] + len(self.body(number))
            source = self.text[at:end]
            try:
                statement = ast.parse(source).body[0]
            except SyntaxError:
                continue  # "assert f(x) => y" and other prose: the inline reader tries it
            if not isinstance(statement, ast.Assert):
                continue
            example = self._assert_example(number, at, source, statement.test)
            if example is None:
                self.unverifiable([number])
            else:
                self.add(example)

    def _assert_example(self, number: int, at: int, source: str, test: ast.expr) -> Example | None:
        def span(node: ast.AST) -> tuple[int, int]:
            return at + _col(source, node.col_offset), at + _col(source, node.end_col_offset or 0)  # type: ignore[attr-defined]

        calls = _calls(test, self.names)
        if len(calls) != 1:
            return None
        (call,) = calls
        args = _node_arguments(call, self.params)
        if not isinstance(args, tuple):
            return None
        if test is call or (
            isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) and test.operand is call
        ):
            start = span(test)[0]
            end = span(call)[0]
            return Example(
                number,
                args,
                start,
                end,
                self.text[start:end],
                False,
                lines=(number,),
                kind="assert",
                style="truthy",
            )
        wrapper: str | None = None
        compare: str | None = None
        rel_tol: float | None = None
        value: ast.AST | None = None
        if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq):
            sides = [test.left, test.comparators[0]]
            call_side = next((side for side in sides if _is_wrapper_of(side, call)), None)
            if call_side is None:
                return None
            value = sides[1] if call_side is sides[0] else sides[0]
            wrapper = _wrapper_text(call_side, call)
            if (
                isinstance(call_side, ast.Call)
                and call_side is not call
                and isinstance(value, ast.Call)
                and isinstance(value.func, ast.Name)
                and value.func.id == call_side.func.id  # type: ignore[attr-defined]
                and value.func.id in _SYMMETRIC
                and len(value.args) == 1
                and not value.keywords
            ):
                # set(f(x)) == set([1, 2]): the function's own output goes inside.
                inner = call_side.args[0] if len(call_side.args) == 1 else None
                if inner is not None and _is_wrapper_of(inner, call):
                    compare = f"{value.func.id}(_)"
                    wrapper = _wrapper_text(inner, call)
                    value = value.args[0]
        elif (
            isinstance(test, ast.Call)
            and isinstance(test.func, ast.Attribute)
            and test.func.attr == "isclose"
            and len(test.args) == 2
            and _is_wrapper_of(test.args[0], call)
        ):
            value = test.args[1]
            wrapper = _wrapper_text(test.args[0], call)
            tolerances = {kw.arg: kw.value for kw in test.keywords}
            given = tolerances.get("rel_tol")
            rel_tol = (
                given.value if isinstance(given, ast.Constant) and isinstance(given.value, float) else 1e-9
            )
            if "abs_tol" in tolerances:
                return None
        if value is None:
            return None
        start, end = span(value)
        read = _read_value(self.text, start, end)
        if read is None or read[0] != end:
            try:
                constant = _evaluate(value, None)
            except (ValueError, TypeError, OverflowError):
                return None
            if not has_literal_spelling(constant):
                return None
        return Example(
            number,
            args,
            start,
            end,
            self.text[start:end],
            False,
            lines=(number,),
            kind="assert",
            wrapper=wrapper,
            compare=compare,
            rel_tol=rel_tol,
        )

    def read_input_output(self) -> None:
        """``Input: arr = [1, 2], k = 1`` (or an indented block of ``name : value`` lines), then ``Output: v``."""
        number = 0
        while number < len(self.lines):
            match = _INPUT.match(self.body(number))
            if not self.doc_lines[number] or match is None or number in self.consumed:
                number += 1
                continue
            output_line = next(
                (
                    n
                    for n in range(number + 1, min(number + 12, len(self.lines)))
                    if _OUTPUT.match(self.body(n))
                ),
                None,
            )
            if output_line is None or any(not self.body(n).strip() for n in range(number + 1, output_line)):
                self.unverifiable([number])
                number += 1
                continue
            input_start = self.offsets[number] + match.end()
            input_end = self.offsets[output_line]
            args = self._assignments_or_literal(input_start, input_end)
            output_match = _OUTPUT.match(self.body(output_line))
            assert output_match is not None
            start = self.offsets[output_line] + output_match.end()
            read = _read_value(self.text, start, self.stop_of(start))
            block = list(range(number, output_line + 1))
            if args is None or read is None:
                self.unverifiable(block)
                number = output_line + 1
                continue
            end = read[0]
            last = self.line_of(end - 1)
            block = list(range(number, last + 1))
            explained = self._explanation(end, last)
            if explained:
                self.unverifiable(block + explained)
                number = max(block + explained) + 1
                continue
            self.add(
                Example(
                    number,
                    args,
                    start,
                    end,
                    self.text[start:end],
                    False,
                    lines=tuple(block),
                    kind="input-output",
                )
            )
            number = last + 1

    def _explanation(self, end: int, last: int) -> list[int]:
        """Lines explaining the value just read (its own line's rest, comments or ``Explanation:`` after it)."""
        rest = self.text[end : self.offsets[last] + len(self.body(last))].strip()
        explained: list[int] = []
        if rest and (rest.startswith("#") or _DERIVATION.match(rest) or re.search(r"\d", rest)):
            explained.append(last)
        following = last + 1
        while following < len(self.lines) and self.doc_lines[following]:
            body = self.body(following)
            if body.strip().startswith(('"""', "'''")):
                break
            if not body.strip() or not (
                _EXPLANATION.match(body)
                or (explained and following > last + 1 and _continues(self.body(following - 1), body))
            ):
                break
            explained.append(following)
            following += 1
        return explained

    def _assignments_or_literal(self, start: int, end: int) -> tuple[Any, ...] | None:
        """Arguments from ``a = 1, b = [2]`` (or ``name : value`` lines), or one bare literal."""
        text = self.text
        cursor = start
        named: list[tuple[str, Any]] = []
        while True:
            while cursor < end and text[cursor] in " \t\n\r,":
                cursor += 1
            if cursor >= end:
                break
            assignment = _ASSIGNMENT.match(text, cursor, end)
            if assignment is None:
                break
            read = _read_value(text, assignment.end(), end)
            if read is None:
                return None
            named.append((assignment.group("name"), read[1]))
            cursor = read[0]
            while cursor < end and text[cursor] in " \t":
                cursor += 1
            if text.startswith("and ", cursor):
                cursor += 4
        if named:
            if text[cursor:end].strip(" \t\r\n,"):
                return None
            return self._map(named)
        read = _read_value(text, cursor, end)
        if read is None or text[read[0] : end].strip():
            return None
        if self.params is not None and len(self.params) == 1:
            return (read[1],)
        if isinstance(read[1], tuple) and self.params is not None and len(read[1]) == len(self.params):
            return read[1]
        return None

    def _map(self, named: list[tuple[str, Any]]) -> tuple[Any, ...] | None:
        """Named values as positional arguments: by parameter name, else by position when the count fits."""
        if self.params is None:
            return None
        names = [name for name, _ in named]
        if set(names) == set(self.params) and len(names) == len(self.params):
            values = dict(named)
            return tuple(values[param] for param in self.params)
        if len(named) == len(self.params) and len(set(names) - set(self.params)) <= 1:
            # A name that differs from the signature (bucket_capacity for capacity): by position.
            return tuple(value for _, value in named)
        return None

    def read_prose(self) -> None:
        """``For lst = [1,2,3] the output should be 6`` and ``For s = "ab", c = "b", the result should be x``."""
        for number in range(len(self.lines)):
            body = self.body(number)
            match = _FOR_ASSIGN.match(body)
            if not self.doc_lines[number] or match is None or number in self.consumed:
                continue
            line_start = self.offsets[number]
            stop = self.stop_of(line_start)
            phrase = _PROSE_VALUE.search(
                self.text, line_start + match.end(), min(stop, self.offsets[min(number + 2, len(self.lines))])
            )
            if phrase is None:
                continue
            args_end = phrase.start()
            head = self.text[line_start + match.end() : args_end]
            # The assignments end where prose starts: "For N = 1000, the sum of digits will be 1 the output...".
            cut = _end_of_assignments(head)
            middle = head[cut:]
            args = self._assignments_or_literal(line_start + match.end(), line_start + match.end() + cut)
            read = _read_value(self.text, phrase.end(), stop)
            if read is None or args is None:
                self.unverifiable(self.lines_between(line_start, phrase.end()))
                continue
            end = read[0]
            last = self.line_of(end - 1)
            block = list(range(number, last + 1))
            if re.search(r"\d", middle) or self._explanation(end, last):
                self.unverifiable(block + self._explanation(end, last))
                continue
            self.add(
                Example(
                    number,
                    args,
                    phrase.end(),
                    end,
                    self.text[phrase.end() : end],
                    False,
                    lines=tuple(block),
                    kind="prose",
                )
            )

    def read_assignment_blocks(self) -> None:
        """``arr = [2, 1]`` lines, perhaps worked steps, then ``return [...]`` or ``=> result = 9``."""
        if self.params is None:
            return
        number = 0
        while number < len(self.lines):
            if not self.doc_lines[number] or number in self.consumed or not self._assignment_line(number):
                number += 1
                continue
            first = number
            named: list[tuple[str, Any]] = []
            while number < len(self.lines) and number not in self.consumed and self._assignment_line(number):
                named.append(self._assignment_line(number))  # type: ignore[arg-type]
                number += 1
            if not any(name in self.params for name, _ in named):
                continue
            steps: list[int] = []
            result: tuple[int, int, int] | None = None
            while number < len(self.lines) and self.doc_lines[number] and self.body(number).strip():
                match = _RESULT_LINE.match(self.body(number))
                if match:
                    start = self.offsets[number] + match.end()
                    read = _read_value(self.text, start, self.stop_of(start))
                    if (
                        read is not None
                        and not self.text[
                            read[0] : self.offsets[self.line_of(read[0] - 1)]
                            + len(self.body(self.line_of(read[0] - 1)))
                        ].strip()
                    ):
                        result = (number, start, read[0])
                        break
                steps.append(number)
                number += 1
            if result is None:
                self.unverifiable(list(range(first, number)))
                continue
            line, start, end = result
            last = self.line_of(end - 1)
            block = list(range(first, last + 1))
            args = self._map(named)
            if steps or args is None:
                self.unverifiable(block)
            else:
                self.add(
                    Example(
                        line, args, start, end, self.text[start:end], False, lines=tuple(block), kind="block"
                    )
                )
            number = last + 1

    def _assignment_line(self, number: int) -> tuple[str, Any] | None:
        body = self.body(number)
        match = _ASSIGNMENT.match(body)
        if match is None or match.group("name").lower() in (
            "input",
            "output",
            "return",
            "result",
            "example",
            "note",
        ):
            return None
        read = _read_value(body, match.end(), len(body))
        if read is None or body[read[0] :].strip():
            return None
        return match.group("name"), read[1]

    def read_inline(self) -> None:
        """``f(x) ➞ y`` and every other call-separator-value spelling, wherever the call is."""
        mine: set[int] = set()  # lines this reader consumed: a second example may share one
        last_end = 0
        for start, stop in self.regions:
            for match in self.call_re.finditer(self.text, start, stop):
                number = self.line_of(match.start())
                if (number in self.consumed and number not in mine) or match.start() < last_end:
                    continue
                close = _match_bracket(self.text, match.end() - 1, stop)
                if close is None:
                    self.unverifiable([number])
                    continue
                parsed = _call_arguments(self.text[match.start() : close], self.params)
                if parsed == "mention":
                    continue
                separator = _SEPARATOR.match(self.text, close, stop)
                read = _read_value(self.text, separator.end(), stop) if separator else None
                if parsed == "definition":
                    if self.body(number).strip() not in self.scan.definitions:
                        self.scan.definitions.append(self.body(number).strip())
                    continue
                if not isinstance(parsed, tuple) or separator is None or read is None:
                    self.unverifiable(self.lines_between(match.start(), close))
                    continue
                value_start, (end, _) = separator.end(), read
                last = self.line_of(end - 1)
                block = list(range(number, last + 1))
                explained = self._explanation(end, last)
                rest = self.text[end : self.offsets[last] + len(self.body(last))].strip()
                if explained and (
                    rest.startswith("#") or _DERIVATION.match(rest) or any(n != last for n in explained)
                ):
                    self.unverifiable(block + explained)
                    continue
                if rest and _DERIVATION.match(rest):
                    self.unverifiable(block)
                    continue
                self.add(
                    Example(
                        number,
                        parsed,
                        value_start,
                        end,
                        self.text[value_start:end],
                        False,
                        lines=tuple(block),
                        kind="inline",
                    )
                )
                mine.update(block)
                last_end = end

    def read_leftovers(self) -> None:
        """Example-like lines nobody read: arrows, ``Output:`` with a value, prose claims in an example sentence."""
        for number in range(len(self.lines)):
            if not self.doc_lines[number] or number in self.consumed:
                continue
            body = self.body(number)
            shown = _OUTPUT.match(body) or _RESULT_LINE.match(body)
            value = _read_value(body, shown.end(), len(body)) if shown else None
            # "Output: [2, 1]" or "return []" on a line of its own; "Return 0 if ..." is a rule, not an example.
            if _ARROW.search(body) or (
                value and (not body[value[0] :].strip() or body[value[0] :].lstrip()[0] == "#")
            ):
                self.unverifiable([number])
        for start, stop in self.regions:
            for claim in re.finditer(
                r"\bshould\s+return\s+|\bthe\s+(?:output|result)\s+(?:should|will)\s+be\s+",
                self.text[start:stop],
            ):
                at = start + claim.end()
                if _read_value(self.text, at, stop) is None:
                    continue
                sentence_start = max(
                    self.text.rfind(".", start, start + claim.start()),
                    self.text.rfind("\n\n", start, start + claim.start()),
                    start,
                )
                if _EXAMPLE_SENTENCE.search(self.text[sentence_start : start + claim.start()]):
                    while self.text[sentence_start] in ". \t\n":
                        sentence_start += 1
                    self.unverifiable(self.lines_between(sentence_start, at))


def _continues(previous: str, line: str) -> bool:
    """Whether ``line`` is more of the explanation begun on ``previous`` (deeper or equal indent, not a new item)."""
    indent = len(line) - len(line.lstrip())
    return (
        indent >= len(previous) - len(previous.lstrip())
        and not _INPUT.match(line)
        and not re.match(r"[ \t]*example", line, re.I)
    )


def _end_of_assignments(head: str) -> int:
    """Length of the ``a = 1, b = "x"`` prefix of ``head``."""
    cursor = 0
    while True:
        assignment = _ASSIGNMENT.match(head, cursor)
        if assignment is None:
            return cursor
        read = _read_value(head, assignment.end(), len(head))
        if read is None:
            return cursor
        cursor = read[0]
        separator = re.match(r"[ \t]*(?:,|and\b)?[ \t]*", head[cursor:])
        if separator is None:
            return cursor
        if not _ASSIGNMENT.match(head, cursor + separator.end()):
            return cursor
        cursor += separator.end()


def _comment_start(text: str, start: int, end: int) -> int | None:
    """Where a ``#`` comment starts on ``text[start:end]``, strings respected."""
    i = start
    while i < end:
        ch = text[i]
        if ch in "'\"":
            after = _skip_string(text, i, end)
            if after is None:
                return None
            i = after
            continue
        if ch == "#":
            return i
        i += 1
    return None


def _col(source: str, col_bytes: int) -> int:
    return len(source.encode("utf-8")[:col_bytes].decode("utf-8", "ignore"))


def _calls(node: ast.AST, names: set[str]) -> list[ast.Call]:
    return [
        inner
        for inner in ast.walk(node)
        if isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name) and inner.func.id in names
    ]


def _wrapper_text(node: ast.AST, call: ast.Call) -> str | None:
    return None if node is call else ast.unparse(_swap(node, call))


def _node_arguments(call: ast.Call, params: Sequence[str] | None) -> tuple[Any, ...] | str:
    """Positional argument values of a call, ``definition`` for symbolic arguments, ``mention`` for none."""
    if not call.args and not call.keywords:
        return "mention" if params else ()
    values: list[Any] = []
    symbolic = False
    for arg in call.args:
        try:
            values.append(ast.literal_eval(arg))
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            if isinstance(arg, ast.Name) and arg.id in ("true", "false"):
                values.append(arg.id == "true")
            elif isinstance(arg, ast.Name) and (params is None or arg.id not in params):
                values.append(arg.id)  # is_happy(abcd) => True: a bare word is a string
            else:
                symbolic = True
    if call.keywords:
        if params is None or any(kw.arg is None for kw in call.keywords):
            return "unreadable"
        named = dict(zip(params, values, strict=False))
        for kw in call.keywords:
            try:
                named[kw.arg] = ast.literal_eval(kw.value)  # type: ignore[index]
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                symbolic = True
        if not symbolic:
            if any(param not in named for param in params[: len(named)]):
                return "unreadable"
            values = [named[param] for param in params if param in named]
    if symbolic:
        return "definition"
    return tuple(values)


def _call_arguments(source: str, params: Sequence[str] | None) -> tuple[Any, ...] | str:
    try:
        node = ast.parse(source.strip(), mode="eval").body
    except SyntaxError:
        return "unreadable"
    if not isinstance(node, ast.Call):
        return "unreadable"
    return _node_arguments(node, params)


def example_aliases(text: str, entry_point: str, params: Sequence[str] | None = None) -> set[str]:
    """Names the worked examples call in place of the entry point (``list_sort`` for ``sorted_list_sum``)."""
    return _Scanner(text, entry_point, params)._aliases()


def scan_examples(text: str, entry_point: str, params: Sequence[str] | None = None) -> ExampleScan:
    """Every worked example of ``entry_point`` in ``text``, plus the example-like text that cannot be read.

    ``params`` names the entry point's parameters when ``text`` does not
    define it (MBPP); they map ``For a = 1, b = 2`` and keyword calls.
    """
    return _Scanner(text, entry_point, params).run()


def rewrite_examples(text: str, examples: list[Example], values: list[Any]) -> str:
    """``text`` with each example's expected value replaced, in place, by the given one.

    A doctest that showed no value (None) stays blank when the value is
    still None; otherwise the value gets a line of its own, since a doctest
    has nowhere else to show it.  Every other spelling keeps its lines.
    """
    pieces: list[str] = []
    cursor = 0
    for example, value in sorted(zip(examples, values, strict=True), key=lambda pair: pair[0].expected_start):
        pieces.append(text[cursor : example.expected_start])
        pieces.append(example.render(value))
        cursor = example.expected_end
    pieces.append(text[cursor:])
    return "".join(pieces)


def claimed_values(scan: ExampleScan) -> list[Any]:
    """The values the text claims (None for a blank doctest line, a bool for ``assert f(x)``)."""
    return [example.claimed() for example in scan.examples]
