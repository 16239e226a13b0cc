"""Reading a rule edit in context: the sentence it sits in, the words of its family, the code constructs.

The quality checks for rule-made variants ask questions a reviewer asks on
reading one: does the new word clash with the rest of its sentence ("both
last and last digits"), does it still read as English ("start with a given
suffix"), did the code edit hit the one construct the sentence talks about
(not one of two sorts), and did anything that still states the old property
stay behind (a comment, a clamp).  This module answers them; the checks in
``benchmorph.validation.checks.base`` turn the answers into findings.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from typing import cast

from benchmorph.validation.distances import prose
from benchmorph.validation.examples.scan import scan_examples

# The two sides of each rule family: an edit moves a word from one side to the other.
FAMILY_SIDES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "extreme": (
        ("smallest", "minimum", "shortest", "lowest", "least", "fewest", "min", "minimal"),
        ("largest", "maximum", "longest", "highest", "greatest", "biggest", "most", "max", "maximal"),
    ),
    "order": (("ascending", "increasing"), ("descending", "decreasing")),
    "parity": (("even",), ("odd",)),
    "position": (("first",), ("last",)),
    "affix": (
        ("prefix", "prefixes", "starts", "start", "begins", "begin"),
        ("suffix", "suffixes", "ends", "end"),
    ),
    "case": (("uppercase", "upper case", "upper"), ("lowercase", "lower case", "lower")),
    "sign": (("positive",), ("negative",)),
    "aggregate": (("sum",), ("product",)),
    "count": (("vowels", "vowel"), ("consonants", "consonant")),
    "power": (("squares", "squared", "square of", "square"), ("cubes", "cubed", "cube of", "cube")),
    "compare": (
        ("greater than", "larger than", "bigger than", "more than"),
        ("smaller than", "less than", "fewer than"),
    ),
    "charclass": (("digits", "digit", "numeric"), ("letters", "letter", "alphabetic", "alphabets")),
    "side": (("left",), ("right",)),
    "quantifier": (("all", "every", "each"), ("any", "some")),
}

# Uses of a family word that are not the property: "at least", "even if", "in the end".
_NOT_THE_PROPERTY = re.compile(
    r"\bat\s+(?:least|most|last|first)\b|\beven\s+(?:if|though|when|after|before|more|less|so|with)\b"
    r"|\b(?:not|or)\s+even\b|\bthe\s+end\s+of\b|\bin\s+the\s+end\b|\bmost\s+(?:of|likely)\b",
    re.IGNORECASE,
)

_ORDINALS = re.compile(r"(?<![\w-])(?:second|third|fourth|2nd|3rd|latter|former)(?![\w-])", re.IGNORECASE)
_PARAMETER_NOUNS = re.compile(r"\s+(?:argument|parameter|input|operand|arg)s?\b", re.IGNORECASE)


def description(prompt: str, entry_point: str) -> str:
    """The prose of ``prompt`` (examples and code blanked to spaces, offsets kept)."""
    return prose(prompt, scan_examples(prompt, entry_point), entry_point)


def sentence_bounds(text: str, start: int, end: int) -> tuple[int, int]:
    """The sentence of ``text`` holding ``text[start:end]``: up to ., !, ? or a blank line, either side."""
    stops = [m.end() for m in re.finditer(r"[.!?](?=\s)|:\s*\n|\n[ \t]*\n", text[:start])]
    left = stops[-1] if stops else 0
    after = re.search(r"[.!?](?=\s|$)|:\s*\n|\n[ \t]*\n", text[end:])
    right = end + after.start() + 1 if after else len(text)
    return left, right


def _word_pattern(word: str) -> re.Pattern[str]:
    spelled = r"\s+".join(re.escape(part) for part in word.split())
    return re.compile(rf"(?<![\w-]){spelled}(?![\w-])", re.IGNORECASE)


def word_spans(text: str, words: tuple[str, ...]) -> list[tuple[int, int, str]]:
    """Where any of ``words`` occurs in ``text`` as a word meaning the property (not "at least", "even if")."""
    masked = [(m.start(), m.end()) for m in _NOT_THE_PROPERTY.finditer(text)]
    found: list[tuple[int, int, str]] = []
    for word in words:
        for match in _word_pattern(word).finditer(text):
            if any(s <= match.start() < e for s, e in masked):
                continue
            if any(s <= match.start() < e or match.start() <= s < match.end() for s, e, _ in found):
                continue
            found.append((match.start(), match.end(), match.group(0)))
    return sorted(found)


def sides(family: str, old_text: str, new_text: str) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """(the old side's words, the new side's words) of an edit's family; None where it has no sides."""
    pair = FAMILY_SIDES.get(family)
    if pair is None:
        return None
    first, second = pair
    new = new_text.lower()
    if any(_word_pattern(word).fullmatch(new) for word in second):
        return first, second
    if any(_word_pattern(word).fullmatch(new) for word in first):
        return second, first
    return None


# --- the code ---------------------------------------------------------------------------------------

_SOLUTION_NAMES = {"min", "max"}


def parse(code: str) -> ast.Module | None:
    try:
        return ast.parse(code)
    except SyntaxError:
        return None


def _is_int(node: ast.AST, *values: int) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return _is_int(node.operand, *(-v for v in values))
    return isinstance(node, ast.Constant) and type(node.value) is int and (not values or node.value in values)


def _called(node: ast.AST) -> str | None:
    """The name a call calls: ``min`` for ``min(x)``, ``sort`` for ``xs.sort()``."""
    if not isinstance(node, ast.Call):
        return None
    if isinstance(node.func, ast.Name):
        return node.func.id
    if isinstance(node.func, ast.Attribute):
        return node.func.attr
    return None


_ORDER_OPS = (ast.Lt, ast.Gt, ast.LtE, ast.GtE)


def _accumulates(node: ast.AST) -> str | None:
    """``if a > best: best = a``: the name of the running extreme such an ``if`` keeps, else None."""
    if not isinstance(node, ast.If) or not isinstance(node.test, ast.Compare):
        return None
    test = node.test
    if len(test.ops) != 1 or not isinstance(test.ops[0], _ORDER_OPS):
        return None
    sides = {ast.dump(test.left), ast.dump(test.comparators[0])}
    for statement in node.body:
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
            target = statement.targets[0]
            if ast.dump(target).replace("Store()", "Load()") in sides and ast.dump(statement.value) in sides:
                return ast.unparse(target)
    return None


def _vowel_set(node: ast.AST) -> bool:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return bool(node.value) and set(node.value.lower()) <= set("aeiouy")
    if isinstance(node, ast.List | ast.Set | ast.Tuple):
        return bool(node.elts) and all(_vowel_set(item) for item in node.elts)
    return isinstance(node, ast.Name) and "vowel" in node.id.lower()


def constructs(tree: ast.Module, family: str, old_text: str = "") -> list[ast.AST]:
    """The code constructs of ``family`` in ``tree``: what a second one of would make the edit ambiguous."""
    found: list[ast.AST] = []
    for node in ast.walk(tree):
        name = _called(node)
        if family == "extreme":
            if isinstance(node, ast.Name) and node.id in _SOLUTION_NAMES:
                found.append(node)
            elif name in ("nlargest", "nsmallest") or _accumulates(node):
                found.append(node)
        elif family == "order":
            if name in ("sorted", "sort", "reverse", "reversed", "nlargest", "nsmallest"):
                found.append(node)
            elif isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice):
                if node.slice.step is not None and _is_int(node.slice.step, -1):
                    found.append(node)
        elif family == "parity":
            if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod) and _is_int(node.right, 2):
                found.append(node)
            elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitAnd) and _is_int(node.right, 1):
                found.append(node)
            elif name == "range" and isinstance(node, ast.Call) and len(node.args) == 3:
                if _is_int(node.args[2], 2, -2):
                    found.append(node)
            elif isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice):
                if node.slice.step is not None and _is_int(node.slice.step, 2, -2):
                    found.append(node)
        elif family == "position":
            if isinstance(node, ast.Subscript):
                index = node.slice
                if _is_int(index, 0, -1):
                    found.append(node)
                elif isinstance(index, ast.Slice) and index.step is None:
                    lower, upper = index.lower, index.upper
                    if (lower is not None and _is_int(lower, 1, -1)) or (
                        upper is not None and _is_int(upper, 1, -1)
                    ):
                        found.append(node)
                    elif lower is None and upper is not None and not _is_int(upper):
                        found.append(node)  # xs[:k]: the first k
                    elif upper is None and isinstance(lower, ast.UnaryOp) and isinstance(lower.op, ast.USub):
                        found.append(node)  # xs[-k:]: the last k
                    elif upper is None and lower is not None and not _is_int(lower):
                        found.append(node)  # xs[k:]: what follows the first k
        elif family == "affix":
            if name in ("startswith", "endswith", "removeprefix", "removesuffix"):
                found.append(node)
        elif family == "case":
            if name in (
                "upper",
                "lower",
                "isupper",
                "islower",
                "capitalize",
                "title",
                "swapcase",
                "casefold",
            ):
                found.append(node)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                text = node.value
                if "a-z" in text or "A-Z" in text or (text and text.lower() == "aeiou"):
                    found.append(node)
        elif family == "sign":
            if isinstance(node, ast.Compare) and any(
                _is_int(side, 0) for side in [node.left, *node.comparators]
            ):
                found.append(node)
        elif family == "aggregate":
            if isinstance(node, ast.Name) and node.id in ("sum", "prod", "fsum"):
                found.append(node)
            elif isinstance(node, ast.Attribute) and node.attr in ("prod", "fsum"):
                found.append(node)
            elif (
                old_text.lower() == "product"
                and isinstance(node, ast.BinOp)
                and isinstance(node.op, ast.Mult)
            ):
                found.append(node)
        elif family == "count":
            if isinstance(node, ast.Compare) and any(isinstance(op, ast.In | ast.NotIn) for op in node.ops):
                if any(_vowel_set(side) for side in node.comparators):
                    found.append(node)
        elif family == "power":
            if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow) or name == "pow":
                found.append(node)
            elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
                if ast.dump(node.left) == ast.dump(node.right):  # x * x: a square by hand
                    found.append(node)
        elif family == "compare":
            if isinstance(node, ast.Compare) and any(
                isinstance(op, ast.Lt | ast.LtE | ast.Gt | ast.GtE) for op in node.ops
            ):
                found.append(node)
        elif family == "side":
            if name in ("bisect_left", "bisect_right", "bisect", "insort_left", "insort_right", "insort"):
                found.append(node)
        elif family == "quantifier":
            if name in ("all", "any"):
                found.append(node)
        elif family == "charclass":
            if name in ("isdigit", "isnumeric", "isdecimal", "isalpha", "isalnum"):
                found.append(node)
    return found


def constant_start(tree: ast.Module, source: str, span: tuple[int, int]) -> str | None:
    """For an edited ``if a > best: best = a``: the constant ``best`` starts from (``0``, ``float('-inf')``).

    A running minimum that starts at 0 (or at minus infinity) is not the
    opposite of a running maximum that did: the start encodes the direction.
    """
    statement = innermost(source, tree, span, ast.If)
    name = _accumulates(statement) if statement is not None else None
    if name is None:
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(ast.unparse(target) == name for target in node.targets):
            value = node.value
            if isinstance(value, ast.Constant) or (
                isinstance(value, ast.UnaryOp) and isinstance(value.operand, ast.Constant)
            ):
                return ast.unparse(value)
            if _called(value) == "float" or (
                isinstance(value, ast.Attribute) and value.attr in ("inf", "maxsize")
            ):
                return ast.unparse(value)
            if isinstance(value, ast.UnaryOp) and isinstance(value.operand, ast.Attribute):
                return ast.unparse(value)
    return None


def returns_constant(tree: ast.Module, value: int) -> bool:
    """Whether some ``return`` gives the constant ``value`` (``return 0``: the empty sum)."""
    return any(
        isinstance(node, ast.Return) and node.value is not None and _is_int(node.value, value)
        for node in ast.walk(tree)
    )


def in_quantifier(tree: ast.Module, source: str, span: tuple[int, int]) -> str | None:
    """The any()/all() around the edited code, if there is one (its name)."""
    starts = node_offsets(source)
    for node in ast.walk(tree):
        if _called(node) in ("any", "all"):
            where = node_span(source, node, starts)
            if where is not None and where[0] <= span[0] and span[1] <= where[1]:
                return _called(node)
    return None


def tested_parameter(tree: ast.Module, source: str, span: tuple[int, int], entry_point: str) -> str | None:
    """The entry point's own parameter when the edited test is ``param % 2``, else None."""
    params = {
        arg.arg
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef) and node.name == entry_point
        for arg in node.args.args
    }
    test = innermost(source, tree, span, ast.Compare)
    left = test.left if isinstance(test, ast.Compare) else None
    if isinstance(left, ast.BinOp) and isinstance(left.op, ast.Mod) and isinstance(left.left, ast.Name):
        return left.left.id if left.left.id in params else None
    return None


def sorts(node: ast.AST) -> bool:
    """Whether ``node`` is a sorted(...) call (so indexing it takes an end of a sort order)."""
    return _called(node) in ("sorted", "nlargest", "nsmallest")


def clamps(tree: ast.Module) -> list[int]:
    """Integer constants the code clamps to with min/max (``max(2, min(a, b))``: 2)."""
    found = []
    for node in ast.walk(tree):
        if _called(node) in _SOLUTION_NAMES and isinstance(node, ast.Call):
            for arg in node.args:
                if _is_int(arg) and isinstance(arg, ast.Constant):
                    found.append(int(cast(int, arg.value)))
    return found


def degenerate_parts(tree: ast.Module) -> dict[str, str]:
    """Constructs whose two sides are the same code (``a if c else a``, ``x and x``, ``m(a) - m(a)``): dump -> source."""
    found: dict[str, str] = {}
    for node in ast.walk(tree):
        pairs: list[tuple[ast.AST | list[ast.stmt], ast.AST | list[ast.stmt]]] = []
        if isinstance(node, ast.IfExp):
            pairs.append((node.body, node.orelse))
        elif isinstance(node, ast.If) and node.orelse:
            pairs.append((node.body, node.orelse))
        elif isinstance(node, ast.BoolOp):
            pairs += [(a, b) for i, a in enumerate(node.values) for b in node.values[i + 1 :]]
        elif isinstance(node, ast.BinOp):
            pairs.append((node.left, node.right))
        elif isinstance(node, ast.Compare) and len(node.comparators) == 1:
            pairs.append((node.left, node.comparators[0]))
        for a, b in pairs:
            if _dump(a) == _dump(b):
                found[_dump(node)] = (
                    ast.unparse(node) if not isinstance(node, ast.If) else f"if {ast.unparse(node.test)}: ..."
                )
    return found


def _dump(node: ast.AST | list[ast.stmt]) -> str:
    if isinstance(node, list):
        return "\n".join(ast.dump(item) for item in node)
    return ast.dump(node)


def node_offsets(source: str) -> list[int]:
    """Where each line of ``source`` starts (for ``node_span``)."""
    starts = [0]
    for line in source.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    return starts


def node_span(source: str, node: ast.AST, starts: list[int] | None = None) -> tuple[int, int] | None:
    """Character offsets of ``node`` in ``source`` (ast counts UTF-8 bytes in a line)."""
    lineno, end_lineno = getattr(node, "lineno", None), getattr(node, "end_lineno", None)
    if lineno is None or end_lineno is None:
        return None
    starts = starts or node_offsets(source)
    lines = source.splitlines(keepends=True)

    def at(line: int, col: int) -> int:
        return starts[line - 1] + len(lines[line - 1].encode("utf-8")[:col].decode("utf-8", "ignore"))

    return at(lineno, getattr(node, "col_offset", 0)), at(end_lineno, getattr(node, "end_col_offset", 0) or 0)


def innermost(
    source: str, tree: ast.Module, span: tuple[int, int], kind: type | tuple[type, ...]
) -> ast.AST | None:
    """The smallest node of ``kind`` that covers ``span`` of ``source``."""
    starts = node_offsets(source)
    best: tuple[int, ast.AST] | None = None
    for node in ast.walk(tree):
        if not isinstance(node, kind):
            continue
        where = node_span(source, node, starts)
        if where is None or not (where[0] <= span[0] and span[1] <= where[1]):
            continue
        size = where[1] - where[0]
        if best is None or size < best[0]:
            best = (size, node)
    return best[1] if best else None


def in_recurrence(source: str, tree: ast.Module, span: tuple[int, int]) -> bool:
    """Whether the edited call feeds a table entry computed from the same table (``dp[i][j] = max(dp[..])``).

    Swapping min and max in a dynamic-programming recurrence does not compute
    the opposite quantity (the shortest palindromic subsequence is not a
    min-recurrence of the longest one), so such an edit is not a counterfactual.
    """
    statement = innermost(source, tree, span, (ast.Assign, ast.AugAssign))
    if not isinstance(statement, ast.Assign | ast.AugAssign):
        return False
    targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
    tables = {
        base.id
        for target in targets
        if isinstance(target, ast.Subscript)
        for base in [_subscript_base(target)]
        if isinstance(base, ast.Name)
    }
    value = statement.value
    return any(isinstance(node, ast.Name) and node.id in tables for node in ast.walk(value))


def _subscript_base(node: ast.AST) -> ast.AST:
    while isinstance(node, ast.Subscript):
        node = node.value
    return node


def comments(code: str) -> list[tuple[int, str]]:
    """(offset, text) of every ``#`` comment of ``code`` (none when it does not tokenize)."""
    starts = node_offsets(code)
    found = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(code).readline):
            if token.type == tokenize.COMMENT:
                found.append((starts[token.start[0] - 1] + token.start[1], token.string))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return []
    return found


def ordinal_in(text: str) -> str | None:
    """An ordinal ("second", "latter") in ``text``: "first"/"last" next to one enumerates, not positions."""
    match = _ORDINALS.search(text)
    return match.group(0) if match else None


def names_a_parameter(text: str, end: int) -> bool:
    """Whether the word ending at ``end`` is followed by "argument", "parameter", "input" or "operand"."""
    return _PARAMETER_NOUNS.match(text, end) is not None
