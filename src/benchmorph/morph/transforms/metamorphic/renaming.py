"""Renaming parameters and functions safely: through the AST in code, by whole words in prose.

A retelling renames the function and its parameters.  In code every binding
and use goes through the AST (``Name``/``arg`` nodes, the function's own
definition and the keywords of calls to functions the module defines);
what cannot be renamed safely (a name inside an f-string, a ``global``, a
module that reflects on its names) is refused.  In a docstring the same
names follow by whole word, never inside a web address, and never where the
prose glues the name to other tokens ("2n", "nth", "x1"), which a rename by
word could not follow.  Quoted strings in worked examples are data.
"""

from __future__ import annotations

import ast
import re
import warnings

from benchmorph.data.prompt import parse_prompt_stub
from benchmorph.validation.examples.scan import scan_examples


def parse_module(source: str) -> ast.Module | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", (SyntaxWarning, DeprecationWarning))
            return ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def identifiers(tree: ast.AST) -> set[str]:
    """Every name a module binds or reads: names, arguments, defs, classes, imports, attributes."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            found.add(node.id)
        elif isinstance(node, ast.arg):
            found.add(node.arg)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            found.add(node.name)
        elif isinstance(node, ast.alias):
            found.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, ast.Attribute):
            found.add(node.attr)
        elif isinstance(node, ast.keyword) and node.arg:
            found.add(node.arg)
        elif isinstance(node, ast.Global | ast.Nonlocal):
            found.update(node.names)
    return found


_REFLECTION = {"locals", "globals", "vars", "eval", "exec", "getattr", "setattr", "__dict__"}


def _offsets(source: str) -> list[int]:
    starts = [0]
    for line in source.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    return starts


def _char(source_lines: list[str], starts: list[int], lineno: int, col_bytes: int) -> int:
    line = source_lines[lineno - 1]
    return starts[lineno - 1] + len(line.encode("utf-8")[:col_bytes].decode("utf-8", "ignore"))


def rename_code(source: str, renames: dict[str, str]) -> str | None:
    """``source`` with every binding and use of the names in ``renames`` renamed, or None if unsafe.

    Renamed: ``Name`` and ``arg`` nodes, function definitions (for an entry
    point rename) and the keywords of calls to functions the module defines.
    Unsafe, so refused: a name inside an f-string (3.11 gives no reliable
    position there), in a ``global``/``nonlocal``, or a module that reflects
    on its names (``locals()``, ``eval``, ``getattr``).
    """
    if not renames:
        return source
    tree = parse_module(source) if not source.rstrip().endswith(":") else parse_prompt_stub(source)
    if tree is None:
        return None
    defined = {
        node.name for node in ast.walk(tree) if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    }
    spans: list[tuple[int, int, str]] = []
    lines = source.splitlines(keepends=True) or [""]
    starts = _offsets(source)

    def at(lineno: int, col: int, old: str, new: str, skip_to: str | None = None) -> bool:
        start = _char(lines, starts, lineno, col)
        if skip_to is not None:  # a def's name follows the keyword: find it on its line
            found = re.compile(rf"\b{re.escape(old)}\b").search(source, start)
            if found is None:
                return False
            start = found.start()
        if source[start : start + len(old)] != old:
            return False
        spans.append((start, start + len(old), new))
        return True

    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            inner = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
            if inner & set(renames):
                return None
        elif isinstance(node, ast.Global | ast.Nonlocal) and set(node.names) & set(renames):
            return None
        elif isinstance(node, ast.Name) and node.id in _REFLECTION:
            return None
    for node in ast.walk(tree):
        ok = True
        if isinstance(node, ast.Name) and node.id in renames:
            ok = at(node.lineno, node.col_offset, node.id, renames[node.id])
        elif isinstance(node, ast.arg) and node.arg in renames:
            ok = at(node.lineno, node.col_offset, node.arg, renames[node.arg])
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name in renames:
            ok = at(node.lineno, node.col_offset, node.name, renames[node.name], skip_to="def")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in defined:
            for kw in node.keywords:
                if kw.arg in renames:
                    ok = ok and at(kw.lineno, kw.col_offset, kw.arg, renames[kw.arg])
        if not ok:
            return None
    spans.sort()
    out, last = [], 0
    for start, end, new in spans:
        if start < last:
            return None
        out.append(source[last:start])
        out.append(new)
        last = end
    out.append(source[last:])
    return "".join(out)


_CONTRACT_HEAD = "if True:\n"


def rename_contract(contract: str | None, renames: dict[str, str]) -> str | None:
    """An EvalPlus contract (indented asserts inserted at the top of the function) with the parameters
    renamed; None where it cannot be parsed to rename safely."""
    if not contract or not renames:
        return contract
    body = contract if contract.startswith("\n") else "\n" + contract
    renamed = rename_code(_CONTRACT_HEAD.rstrip("\n") + body, renames)
    if renamed is None:
        return None
    renamed = renamed[len(_CONTRACT_HEAD.rstrip("\n")) :]
    return renamed if contract.startswith("\n") else renamed[1:]


def word_pattern(name: str) -> re.Pattern[str]:
    """``name`` as a whole word of prose: not part of a longer name or an attribute (``x.n``), and not
    the letter after an apostrophe ("it's" holds no ``s``); quotes around it are allowed ('delimeter')."""
    return re.compile(rf"(?<![\w.])(?<!\w['’]){re.escape(name)}(?!\w)")


_STRING_LITERAL = re.compile(r"'(?:[^'\\\n]|\\.)*'|\"(?:[^\"\\\n]|\\.)*\"")
# A web address in the prose (Mbpp/739's "https://www.geeksforgeeks.org/...-n-digits/", Mbpp/765's bare
# "geeksforgeeks.org/n-th-polite-number/"): a rename must never reach into it.
URL = re.compile(
    r"(?:https?://|www\.)[^\s'\"<>)\]]+"
    r"|\b[\w-]+(?:\.[\w-]+)*\.(?:com|org|net|io|edu|gov)\b(?:/[^\s'\"<>)\]]*)?",
    re.IGNORECASE,
)


def without_urls(text: str) -> str:
    """``text`` with every web address blanked (same length), for searches that must not look inside one."""
    return URL.sub(lambda match: " " * len(match.group(0)), text)


def glued_use(name: str, text: str) -> str | None:
    """A use of ``name`` in the prose that a whole-word rename cannot follow, or None.

    The prose writes a parameter as a symbol glued to other tokens: "length 2n"
    (Mbpp/300), "the nth number", "x_1", "n2".  A rename by word boundary
    would change ``n`` and leave ``2n``: a description about two different
    things.  A web address is never rewritten, so a name it holds as a word
    ("...-with-n-digits/", Mbpp/739) is such a use too: the prose's ``n``
    renamed would no longer be the address's.  Such a parameter keeps its name.
    """
    escaped = re.escape(name)
    # An ordinal ending glues only to a letter that counts ("nth", "kth"); "a" + "nd" is the word "and".
    ordinal = r"|(?:th|st|nd|rd)\b" if name in ("n", "k", "i", "j", "m", "N", "K", "x") else ""
    glued = re.compile(
        rf"(?<![A-Za-z_])\d+{escaped}(?![A-Za-z])"  # 2n, 10x
        rf"|(?<![\w.])(?<!\w['’]){escaped}(?:\d|_\w{ordinal})"  # n2, x_1, nth, kth (not "and" for a)
    )
    found = glued.search(without_urls(text))
    if found is not None:
        return found.group(0)
    for url in URL.finditer(text):
        if re.search(rf"(?<![A-Za-z0-9]){escaped}(?![A-Za-z0-9])", url.group(0)):
            return url.group(0)
    return None


# Around a name used as a word of a sentence: a blank or the line's edge before it, a blank, the edge or
# sentence punctuation after it, and no code (=, brackets, operators) next to it either side.
_PROSE_BEFORE = re.compile(r"(?:^|[\s])$")
_PROSE_AFTER = re.compile(r"^(?:$|\s|[,.;:?!](?:\s|$))")
_CODE_NEIGHBOUR = re.compile(r"[=<>()\[\]{}+*/%`'\"|&^~@-]")


def _in_sentence(part: str, start: int, end: int) -> bool:
    """Whether ``part[start:end]`` stands as a word of a sentence ("an array arr of integers", "empty
    arr.") rather than in code ("len(arr)", "arr = [1, 2]", "'arr'")."""
    before, after = part[:start], part[end:]
    if not (_PROSE_BEFORE.search(before) and _PROSE_AFTER.match(after)):
        return False
    previous, following = before.rstrip()[-1:], after.lstrip()[:1]
    return not (_CODE_NEIGHBOUR.match(previous or " ") or _CODE_NEIGHBOUR.match(following or " "))


def rename_text(
    text: str,
    renames: dict[str, str],
    code_lines: set[int] | frozenset[int] = frozenset(),
    marked: frozenset[str] = frozenset(),
) -> str:
    """Whole-word renames in docstring text, simultaneously.

    Lines in ``code_lines`` (0-based, of ``text``) are worked examples: there a
    quoted string is data (``f('n')`` must keep its ``'n'``), so only what is
    outside string literals is renamed; in prose a quoted name is the name.
    A name in ``marked`` (an old name) is written in backticks where the prose
    uses it as a word of a sentence: its new name is an English noun
    ("amounts"), and "an array amounts of integers" reads as nonsense where
    "an array `amounts` of integers" reads as the parameter (HumanEval/128).
    """
    if not renames:
        return text
    pattern = re.compile(
        "|".join(word_pattern(old).pattern for old in sorted(renames, key=len, reverse=True))
    )

    def swap_words(part: str, prose: bool) -> str:
        def one(match: re.Match[str]) -> str:
            new = renames[match.group(0)]
            if prose and match.group(0) in marked and _in_sentence(part, match.start(), match.end()):
                return f"`{new}`"
            return new

        return pattern.sub(one, part)

    def swap(part: str, prose: bool = True) -> str:  # web addresses are kept as they are
        pieces, last = [], 0
        for url in URL.finditer(part):
            pieces.append(swap_words(part[last : url.start()], prose))
            pieces.append(url.group(0))
            last = url.end()
        pieces.append(swap_words(part[last:], prose))
        return "".join(pieces)

    lines = text.splitlines(keepends=True)
    out = []
    for number, line in enumerate(lines):
        if number not in code_lines:
            out.append(swap(line))
            continue
        pieces, last = [], 0
        for literal in _STRING_LITERAL.finditer(line):
            pieces.append(swap(line[last : literal.start()], prose=False))
            pieces.append(literal.group(0))
            last = literal.end()
        pieces.append(swap(line[last:], prose=False))
        out.append("".join(pieces))
    return "".join(out)


def example_lines(prompt: str, entry_point: str, start: int) -> set[int]:
    """Lines (0-based, counted from offset ``start`` of ``prompt``) that hold worked examples: what the
    example scanner reads or cannot read, doctest lines and their output lines, ``assert`` lines."""
    scan = scan_examples(prompt, entry_point)
    lines = prompt.splitlines()
    found = set(scan.blank_lines)
    in_doctest = False
    for number, line in enumerate(lines):
        stripped = line.strip()
        if stripped.startswith(">>>"):
            in_doctest = True
        elif not stripped:
            in_doctest = False
        if in_doctest or stripped.startswith("assert "):
            found.add(number)
    offset = prompt[:start].count("\n")
    return {number - offset for number in found if number >= offset}
