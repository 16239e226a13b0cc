"""Extract runnable solution code from a raw LLM answer.

A chat model wraps its solution in prose, Markdown fences, usage examples, tests and
``print`` demos, and is sometimes cut off mid-statement.  A completion model may return
only a function body, or echo the prompt and keep going.  :func:`sanitize` turns any of
these into a program that defines what the benchmark calls, without the extras that would
run (and possibly fail or print) when the harness imports it.

Design, and why:

* The answer is cut into *chunks*: a line starting at column 0 that is not a continuation
  (closing bracket, ``else``/``except``..., a decorated ``def``, text inside a triple-quoted
  string, a backslash continuation) starts a new one, so a chunk is almost always one
  top-level statement.  Each chunk is parsed on its own, which costs the same as parsing the
  whole text once but confines a syntax error (prose, a truncated tail) to its chunk.  A
  failed ``ast.parse`` is expensive (CPython parses twice to word its message), so there is
  no "parse everything first" attempt that a truncated answer would always fail.
* For ``function``/``method`` answers chunks are parsed *lazily*: the first code line tells
  what a chunk defines (``def name``, ``class name``, ``NAME = ...``), so only the entry
  point and what it references are parsed; tests, ``print`` demos and unrelated helpers
  never are.  Cost is linear in the answer and mostly proportional to the code kept.
* References are found with one regex scan for identifiers per kept statement (C speed)
  instead of walking the AST (about a microsecond per node in Python).  Over-matching a
  function or class name is harmless (a definition has no side effect); for module-level
  *data* (``NAME = ...``) a scope check decides (parameters and plain assignments first,
  a walk of that one definition only if they do not settle it), so a demo line
  ``result = f(...)`` is not kept just because ``f`` has a local ``result``.
* ``gc`` is paused during the call (AST building otherwise triggers many collections) and
  the internal reference cycles are broken before returning, so no garbage is left for a
  later collection to pay for.
* A chunk that does not parse is retried a bounded number of times: merged with the next
  chunks when the error says a bracket or string is still open, or cut back before the line
  the ``SyntaxError`` names (a truncated tail).  Nothing loops without a bound.
* The output is the original source lines of the kept statements (not ``ast.unparse``), in
  their original order, so comments and formatting inside them survive.
"""

from __future__ import annotations

import ast
import gc
import keyword
import re
import textwrap
import warnings

__all__ = ["KINDS", "looks_like_raw_answer", "sanitize"]

KINDS = ("function", "method", "stdin")

# A fence line: ``` or ~~~ (3 or more) with an optional info string, or CodeLlama's [PYTHON] tags.
_FENCE_RE = re.compile(r"^([ \t]*)(?:(`{3,}|~{3,})[ \t]*([^\n]*?)[ \t]*|\[(/?)PYTHON\][ \t]*)$", re.M)
_IDENT_RE = re.compile(r"[^\W\d]\w*")
_DEF_RE = re.compile(r"(?:async[ \t]+def|def|class)[ \t]+([^\W\d]\w*)")
_IMPORT_RE = re.compile(r"(?:import|from)[ \t]")
_MAIN_RE = re.compile(r"if[ \t(]+__name__[ \t]*==|if[ \t(]+['\"]__main__['\"][ \t]*==")
_COND_RE = re.compile(r"(?:try|if|with|async[ \t]+with)\b")
_CONT_RE = re.compile(r"(?:else|elif|except|finally)\b")
# Left-hand side of an assignment on the head line: everything before the first lone "=".
_ASSIGN_RE = re.compile(r"([^\W\d(\[*][^=]*?|[(\[*][^=]*?)(?<![<>!=])=(?!=)")
_SETUP_RE = re.compile(
    r"(?:sys\.setrecursionlimit|sys\.set_int_max_str_digits|threading\.stack_size)[ \t]*\("
)
_RETURN_RE = re.compile(r"return\b")
_CONTINUES = frozenset("([{,\\=+-*/%|&^<>.")  # a line ending so goes on on the next
_GLOBAL_RE = re.compile(r"^[ \t]*(?:global|nonlocal)[ \t]", re.M)
_DEF_LINE_RE = re.compile(r"([ \t]*)(?:async[ \t]+)?def[ \t]")
_STDIN_HINT_RE = re.compile(r"\binput\s*\(|\bstdin\b|open\(\s*0")
# Messages of parser warnings (not errors) that a "-W error" filter would raise as SyntaxError.
_WARNING_MESSAGES = ("invalid escape sequence", "invalid octal escape sequence", "invalid decimal literal")
_INCOMPLETE = ("was never closed", "unterminated triple-quoted", "unexpected EOF", "unexpected eof")
_STR_PREFIXES = frozenset({"r", "u", "b", "f", "br", "rb", "fr", "rf"})
_OPERATOR_WORDS = frozenset({"is", "in", "and", "or", "not", "if", "else"})
_SOFT_KEYWORDS = frozenset({"match", "case", "type", "_", "print", "exec"})
_PYTHON_TAGS = frozenset({"", "python", "py", "python3", "py3", "python2", "ipython", "sage", "cython"})

_COMPOUND = (ast.If, ast.Try, ast.With, ast.AsyncWith, ast.For, ast.AsyncFor, ast.While, ast.Match)
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
if hasattr(ast, "TryStar"):  # Python 3.11+
    _COMPOUND = (*_COMPOUND, ast.TryStar)

_MAX_MERGES = 3  # extra chunks a statement with an open bracket/string may swallow
_MAX_CUTS = 4  # cut-backs of a chunk that still does not parse
_MAX_DEPTH = 2  # nesting of Markdown-indented code blocks inside prose


def sanitize(raw: str, *, entry_point: str = "", kind: str = "function", prompt: str | None = None) -> str:
    """Return the solution code contained in ``raw``, or ``""`` when there is none.

    ``kind`` says what the harness will do with the code, which decides what is kept:

    * ``"function"``: it calls the top-level ``entry_point``.  Kept: every import, the last
      definition of ``entry_point`` and, transitively, the top-level functions, classes and
      constants it names.  Dropped: tests, asserts, ``print`` demos, ``__main__`` blocks.
    * ``"method"``: it calls ``Solution().entry_point``; the ``Solution`` class is the root.
    * ``"stdin"``: it runs the program; every statement is kept (``__main__`` blocks and
      top-level calls included), only prose, fences and a truncated tail are removed.

    ``prompt`` (function/method only) is the code the model was asked to complete, e.g. a
    HumanEval signature plus docstring.  When the answer is only a body it is appended to
    the prompt; when the answer omits an import or helper the prompt has, that is added.

    Never raises for any ``raw`` text (junk gives ``""``); an unknown ``kind`` is a caller
    bug and raises ``ValueError``.
    """
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, not {kind!r}")
    gc_was_enabled = gc.isenabled()
    gc.disable()  # building ASTs triggers many young-generation collections: ~40% of the time
    sanitizer = None
    try:
        sanitizer = _Sanitizer(raw, entry_point or "", kind, prompt)
        return sanitizer.run()
    except Exception:  # best effort by contract: RecursionError, MemoryError and bugs alike
        return ""
    finally:
        if sanitizer is not None:
            sanitizer.release()  # free the ASTs now, not in a later collection paid by the caller
        if gc_was_enabled:
            gc.enable()


def looks_like_raw_answer(text: str) -> bool:
    """Whether ``text`` reads like an LLM's answer as written rather than a program.

    A Markdown fence, CodeLlama's ``[PYTHON]`` tags, a reasoning model's
    ``</think>``, or prose on a column-0 line.  For telling a user that a file of
    samples that does not parse wants the sanitizer; never raises.
    """
    if not isinstance(text, str):
        return False
    if _FENCE_RE.search(text) or "</think>" in text:
        return True
    for line in text.split("\n"):
        if line.strip() and line[0] not in " \t#":
            try:
                if _looks_like_prose(line.strip()):
                    return True
            except IndexError:
                continue
    return False


# --------------------------------------------------------------------------- text helpers


def _normalize(raw: object) -> str:
    """Text with one kind of newline and no NUL (``ast.parse`` rejects it) or BOM."""
    if isinstance(raw, bytes | bytearray):
        raw = bytes(raw).decode("utf-8", "replace")
    if not isinstance(raw, str):
        return ""
    text = raw.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "").replace("\ufeff", "")
    # Reasoning models: the answer follows the last </think>; drafts inside would compete.
    cut = text.rfind("</think>")
    if cut >= 0 and text[cut + 8 :].strip():
        text = text[cut + 8 :]
    return text


def _is_blank_or_comment(line: str) -> bool:
    stripped = line.strip()
    return not stripped or stripped[0] == "#"


def _char_offset(line: str, byte_offset: int) -> int:
    """AST column offsets count UTF-8 bytes; slicing needs characters."""
    if line.isascii():
        return byte_offset
    return len(line.encode("utf-8")[:byte_offset].decode("utf-8", "ignore"))


def _looks_like_prose(head: str) -> bool:
    """True when a column-0 line cannot be the start of a Python statement.

    Cheap word-shape tests (two plain words in a row, Markdown bullets, ``Note:``,
    contractions) that let prose be skipped without paying for a failed parse.
    """
    words = head.split(None, 3)
    first = words[0]
    if len(words) == 1:
        stem = first[:-1]
        return first.endswith(":") and stem.isidentifier() and not keyword.iskeyword(stem)
    if first in ("-", "*", "+", ">", "|") or (first[:-1].isdigit() and first[-1] in ".)"):
        return True
    if first[-1] in "!,." and first[:-1].isalpha():  # "Sure!", "Certainly,", "Done."
        return "=" not in head  # but "begin, end = -1., 1." is a tuple assignment
    if keyword.iskeyword(first) or first in _SOFT_KEYWORDS:
        return False
    if first.endswith(":") and first[:-1].isidentifier():
        return "=" not in head
    if "'" in first:
        stem = first.split("'", 1)[0]
        return bool(stem) and stem.isidentifier() and stem.lower() not in _STR_PREFIXES
    if not first.isidentifier():
        return False
    second = words[1].rstrip(",.:;!?")
    if not second.isidentifier() or keyword.iskeyword(second) and second not in _OPERATOR_WORDS:
        return False
    if second not in _OPERATOR_WORDS:
        return True
    # "Here is the solution": an operator word followed by two more plain words.
    if len(words) < 4:
        return False
    third, fourth = words[2].rstrip(",.:;!?"), words[3].split(None, 1)[0].rstrip(",.:;!?")
    return (
        third.isidentifier()
        and not keyword.iskeyword(third)
        and fourth.isidentifier()
        and not keyword.iskeyword(fourth)
    )


def _is_main_guard(node: ast.stmt) -> bool:
    if type(node) is not ast.If or type(node.test) is not ast.Compare:
        return False
    parts = [node.test.left, *node.test.comparators]
    has_name = any(type(p) is ast.Name and p.id == "__name__" for p in parts)
    has_main = any(type(p) is ast.Constant and p.value == "__main__" for p in parts)
    return has_name and has_main


def _import_names(node: ast.Import | ast.ImportFrom) -> set[str]:
    return {alias.asname or alias.name.split(".")[0] for alias in node.names}


def _target_names(targets: list[ast.expr]) -> set[str]:
    names: set[str] = set()
    for target in targets:
        for sub in ast.walk(target):
            if type(sub) is ast.Name:
                names.add(sub.id)
    return names


def _free_names(node: ast.AST) -> set[str]:
    """Names a definition reads from module scope: loads minus anything bound inside it.

    One scope for the whole definition (nested functions included): a local in a nested
    function shadowing a global read elsewhere is rare, and the cost of being wrong is a
    missing constant, which a test would show.
    """
    loads: set[str] = set()
    bound: set[str] = set()
    declared: set[str] = set()
    for sub in ast.walk(node):
        kind = type(sub)
        if kind is ast.Name:
            (loads if type(sub.ctx) is ast.Load else bound).add(sub.id)
        elif kind is ast.arg:
            bound.add(sub.arg)
        elif kind in _DEFS:
            if sub is not node:
                bound.add(sub.name)
        elif kind is ast.Import or kind is ast.ImportFrom:
            bound.update(_import_names(sub))
        elif kind is ast.Global:
            declared.update(sub.names)
        elif kind is ast.ExceptHandler or kind is ast.MatchAs or kind is ast.MatchStar:
            if sub.name:
                bound.add(sub.name)
    return (loads - bound) | declared


def _conditional_bindings(node: ast.stmt) -> set[str]:
    """Imports, functions and classes defined inside a top-level ``try``/``if``/``with``...

    Only statement lists are visited (not expressions), which keeps this cheap for the long
    test loops that are the usual top-level compound statements.
    """
    binds: set[str] = set()
    pending = [node]
    while pending:
        stmt = pending.pop()
        kind = type(stmt)
        if kind is ast.Import or kind is ast.ImportFrom:
            binds.update(_import_names(stmt))
        elif kind in _DEFS:
            binds.add(stmt.name)
        elif isinstance(stmt, _COMPOUND):
            for field in ("body", "orelse", "finalbody"):
                pending.extend(getattr(stmt, field, ()))
            for part in getattr(stmt, "handlers", ()) or getattr(stmt, "cases", ()):
                pending.extend(part.body)
    return binds


def _outside_strings(lines: list[str], heads: list[int], quoted: list[int]) -> list[int]:
    """Drop the column-0 lines that lie inside a triple-quoted string.

    Counts the opening quote kind on the lines that have triple quotes: an odd count opens
    or closes a string (quotes inside comments or other strings can fool it; then a chunk is
    cut wrongly and its parse error merges it back, see ``_parse_chunk``).
    """
    spans: list[tuple[int, int]] = []
    open_quote: str | None = None
    opened = 0
    for i in quoted:
        line = lines[i]
        if open_quote is None:
            a, b = line.find('"""'), line.find("'''")
            quote = '"""' if b < 0 or 0 <= a < b else "'''"
            if line.count(quote) % 2 == 1:
                open_quote, opened = quote, i
        elif line.count(open_quote) % 2 == 1:
            spans.append((opened, i))
            open_quote = None
    if open_quote is not None:
        spans.append((opened, len(lines)))
    if not spans:
        return heads
    kept = []
    span = 0
    for i in heads:
        while span < len(spans) and spans[span][1] < i:
            span += 1
        if span < len(spans) and spans[span][0] < i <= spans[span][1]:
            continue
        kept.append(i)
    return kept


def _docstring_spans(node: ast.stmt) -> list[tuple[int, int]]:
    """0-based line spans (relative to the parsed text) of a definition's docstrings."""
    kind = type(node)
    if kind not in _DEFS:
        return []
    owners = [node]
    if kind is ast.ClassDef:
        owners += [item for item in node.body if type(item) in (ast.FunctionDef, ast.AsyncFunctionDef)]
    spans = []
    for owner in owners:
        body = owner.body
        first = body[0] if body else None
        if (
            type(first) is ast.Expr
            and type(first.value) is ast.Constant
            and isinstance(first.value.value, str)
        ):
            if len(body) == 1 or body[1].lineno > (first.end_lineno or 0):
                spans.append((first.lineno - 1, (first.end_lineno or first.lineno) - 1))
    return spans


def _parameters(node: ast.stmt) -> set[str]:
    """Parameter names of a function, or of all the methods of a class (no walk needed)."""
    kind = type(node)
    if kind is ast.ClassDef:
        owners = [item for item in node.body if type(item) in (ast.FunctionDef, ast.AsyncFunctionDef)]
    elif kind is ast.FunctionDef or kind is ast.AsyncFunctionDef:
        owners = [node]
    else:
        return set()
    names: set[str] = set()
    for owner in owners:
        args = owner.args
        names.update(a.arg for a in args.posonlyargs)
        names.update(a.arg for a in args.args)
        names.update(a.arg for a in args.kwonlyargs)
        names.update(a.arg for a in (args.vararg, args.kwarg) if a is not None)
    return names


_LOCAL_PATTERNS: dict[str, re.Pattern[str]] = {}


def _assigns_at_line_start(lines: list[str], name: str) -> bool:
    """Whether a definition surely binds ``name`` itself, found without walking its AST.

    True for a statement that starts an indented line and assigns it (``name = ...``,
    ``a, name = ...``, ``name += ...``) or loops over it (``for name in``).  A line after
    one ending in ``(``, ``,``... is a continuation (``key=value`` of a call) and does not
    count.  A ``global``/``nonlocal`` declaration gives up: the walk decides.
    """
    source = "\n".join(lines)
    if name not in source or ("global" in source or "nonlocal" in source) and _GLOBAL_RE.search(source):
        return False
    pattern = _LOCAL_PATTERNS.get(name)
    if pattern is None:
        if len(_LOCAL_PATTERNS) > 512:
            _LOCAL_PATTERNS.clear()
        word = re.escape(name)
        other = r"[^\W\d]\w*"
        pattern = _LOCAL_PATTERNS[name] = re.compile(
            rf"^[ \t]+(?:for[ \t][^\n]*?\b{word}\b[^\n]*?[ \t]in\b"
            rf"|(?:{other}[ \t]*,[ \t]*)*{word}(?:[ \t]*,[ \t]*{other})*[ \t]*(?::[^=\n]+)?"
            r"(?:[-+*/%@&|^]|//|\*\*|<<|>>)?=(?!=))",
            re.M,
        )
    for match in pattern.finditer(source):
        end = match.start() - 1  # last character of the previous non-blank line
        while end >= 0 and source[end] in " \t\n":
            end -= 1
        if end < 0 or source[end] not in _CONTINUES:
            return True
    return False


def _mutates(node: ast.AST, name: str) -> bool:
    """Whether a top-level statement fills in ``name`` (``NAME.append(...)``, ``NAME[k] = v``).

    Statements that also assert or print are test code, never set-up, so they do not count.
    """
    found = False
    for sub in ast.walk(node):
        kind = type(sub)
        if kind is ast.Assert:
            return False
        if kind is ast.Call:
            func = sub.func
            if type(func) is ast.Name and func.id == "print":
                return False
            if type(func) is ast.Attribute and type(func.value) is ast.Name and func.value.id == name:
                found = True
        elif kind is ast.Name:
            if sub.id == name and type(sub.ctx) is not ast.Load:
                found = True
        elif (kind is ast.Subscript or kind is ast.Attribute) and type(sub.ctx) is not ast.Load:
            if type(sub.value) is ast.Name and sub.value.id == name:
                found = True
    return found


# --------------------------------------------------------------------------- data model


class _Stmt:
    """One top-level statement: its AST node and where its text is in its region."""

    __slots__ = (
        "node",
        "region",
        "first",
        "last",
        "col_first",
        "col_last",
        "cat",
        "binds",
        "truncated",
        "_ids",
        "_free",
        "_locals",
        "offset",
    )

    def __init__(
        self, node: ast.stmt, region: _Region, offset: int, first: int, last: int, truncated: bool
    ) -> None:
        self.node = node
        self.offset = offset  # index in region.lines of the parsed text's first line
        self.region = region
        self.first = first  # index in region.lines of its first line (decorators included)
        self.last = last  # index of its last line
        self.col_first: int | None = None  # set when it shares its first/last line with another
        self.col_last: int | None = None
        self.truncated = truncated
        self._ids: set[str] | None = None
        self._free: set[str] | None = None
        self._locals: set[str] | None = None
        self.cat, self.binds = self._classify(node)

    @staticmethod
    def _classify(node: ast.stmt) -> tuple[str, set[str]]:
        kind = type(node)
        if kind is ast.Import or kind is ast.ImportFrom:
            return "import", _import_names(node)
        if kind in _DEFS:
            return "def", {node.name}
        if kind is ast.Assign:
            return "data", _target_names(node.targets)
        if kind is ast.AugAssign or kind is ast.AnnAssign:
            return "data", _target_names([node.target])
        if kind is ast.Expr:
            return "expr", set()
        if kind is ast.Assert:
            return "assert", set()
        if isinstance(node, _COMPOUND):
            if _is_main_guard(node):
                return "main", set()
            binds = _conditional_bindings(node)
            return ("cond", binds) if binds else ("compound", set())
        return "other", set()

    @property
    def order(self) -> tuple[int, int]:
        return self.region.block, self.region.base + self.first

    def source_lines(self) -> list[str]:
        lines = self.region.lines[self.first : self.last + 1]
        if self.col_last is not None:
            lines[-1] = lines[-1][: _char_offset(lines[-1], self.col_last)]
        if self.col_first is not None:
            lines[0] = lines[0][_char_offset(lines[0], self.col_first) :]
        return lines

    def ids(self) -> set[str]:
        """Identifier-shaped words of the code: names and attributes, not docstrings or comments.

        A docstring saying "check the input" must not pull in a ``def check`` test helper.
        Other strings stay (an f-string holds code; a stray word in a message at worst keeps
        an extra definition, which is harmless).
        """
        if self._ids is None:
            lines = self.source_lines()
            for start, end in _docstring_spans(self.node):
                start, end = start + self.offset - self.first, end + self.offset - self.first
                if 0 < start and end < len(lines) and lines[start].lstrip()[:1] in ("'", '"'):
                    lines[start : end + 1] = [""] * (end + 1 - start)
            code = "\n".join(lines)
            if "#" in code:
                for i, line in enumerate(lines):
                    if "#" in line:
                        cut = line.index("#")
                        if "'" not in line[:cut] and '"' not in line[:cut]:
                            lines[i] = line[:cut]
                code = "\n".join(lines)
            self._ids = set(_IDENT_RE.findall(code))
        return self._ids

    def reads_global(self, name: str) -> bool:
        """Whether this statement reads the module-level ``name`` rather than a local of its own.

        Parameters and plain ``name = ...`` / ``for name in`` statements settle it cheaply
        (Python makes a name assigned anywhere in a function local to all of it); only the
        rest pays for a walk of the whole definition.
        """
        if self.cat not in ("def", "cond", "compound"):
            return True  # module-level code: every name it reads is global
        if self._locals is None:
            self._locals = _parameters(self.node)
        if name in self._locals:
            return False
        if _assigns_at_line_start(self.source_lines(), name):
            return False
        if self._free is None:
            self._free = _free_names(self.node)
        return name in self._free


class _Chunk:
    """Lines [start, end) of a region that start at column 0: usually one statement."""

    __slots__ = ("region", "index", "start", "end", "kind", "names", "stmts", "_ids")

    def __init__(self, region: _Region, index: int, start: int, end: int) -> None:
        self.region = region
        self.index = index  # position in region.own_chunks, for merging with the next ones
        self.start = start
        self.end = end
        self.kind = "blank"
        self.names: set[str] = set()  # what its head line says it defines (checked after parsing)
        self.stmts: list[_Stmt] | None = None  # parsed lazily
        self._ids: set[str] | None = None

    def ids(self) -> set[str]:
        if self._ids is None:
            self._ids = set(_IDENT_RE.findall("\n".join(self.region.lines[self.start : self.end])))
        return self._ids


class _Region:
    """A run of candidate code lines: a fenced block, the whole answer, prompt + body..."""

    __slots__ = ("lines", "block", "base", "tag", "depth", "own_chunks", "_chunks")

    def __init__(self, lines: list[str], block: int, base: int = 0, tag: str = "") -> None:
        self.lines = lines
        self.block = block  # which fenced block (sort key and "same block" preference)
        self.base = base  # line offset within the block, for ordering nested regions
        self.tag = tag
        self.depth = 0
        self.own_chunks: list[_Chunk] = []
        self._chunks: list[_Chunk] | None = None

    def chunks(self) -> list[_Chunk]:
        """All chunks in order, those of Markdown-indented code inside prose included."""
        if self._chunks is None:
            self._chunks = []
            self._split()
        return self._chunks

    def _split(self) -> None:
        """Cut the lines into chunks at column-0 lines that start a statement.

        List comprehensions find the few interesting lines (column-0 code, triple quotes,
        trailing backslashes) so Python-level work is per chunk, not per line.
        """
        assert self._chunks is not None
        lines = self.lines
        heads = [i for i, line in enumerate(lines) if line and line[0] not in " \t#"]
        if not heads:
            if any(not _is_blank_or_comment(line) for line in lines):
                self._add_chunk(0, len(lines))  # all indented: Markdown code or a bare body
            return
        quoted = [i for i, line in enumerate(lines) if '"""' in line or "'''" in line]
        if quoted:
            heads = _outside_strings(lines, heads, quoted)
        escaped = {i for i, line in enumerate(lines) if "\\" in line and line.rstrip().endswith("\\")}
        start = 0
        first = heads[0]
        if any(not _is_blank_or_comment(line) for line in lines[:first]):
            self._add_chunk(0, first)  # indented code before the first column-0 line
            start = first
        decorators_only = lines[first][0] == "@"
        for i in heads[1:]:
            line = lines[i]
            char = line[0]
            if (
                decorators_only
                or char in ")]}"
                or (i - 1) in escaped
                or (char == "e" or char == "f")
                and _CONT_RE.match(line) is not None
            ):
                decorators_only = decorators_only and char == "@"
                continue
            self._add_chunk(start, i)
            start = i
            decorators_only = char == "@"
        self._add_chunk(start, len(lines))

    def _add_chunk(self, start: int, end: int) -> None:
        assert self._chunks is not None
        chunk = _Chunk(self, len(self.own_chunks), start, end)
        self.own_chunks.append(chunk)
        self._chunks.append(chunk)
        self._classify(chunk)

    def _classify(self, chunk: _Chunk) -> None:
        """Guess from the head line what the chunk defines, without parsing it."""
        assert self._chunks is not None
        lines = self.lines
        head = ""
        for i in range(chunk.start, chunk.end):
            line = lines[i]
            if _is_blank_or_comment(line) or line[0] == "@":
                continue
            head = line
            break
        if not head:
            chunk.kind = "other"  # only decorators (or comments)
            return
        if head[0] in " \t":
            chunk.kind = "indented"  # first chunk of a region that starts indented
            self._chunks.extend(self.nested(chunk, chunk.start))
            return
        match = _DEF_RE.match(head)
        if match:
            chunk.kind, chunk.names = "def", {match.group(1)}
        elif _IMPORT_RE.match(head):
            chunk.kind = "import"
        elif _MAIN_RE.match(head):
            chunk.kind = "main"
        elif _COND_RE.match(head) and any(
            "import " in lines[i] or "def " in lines[i] or "class " in lines[i]
            for i in range(chunk.start, chunk.end)
        ):
            chunk.kind = "cond"
        elif _SETUP_RE.match(head):
            chunk.kind = "setup"
        elif head[0].isalpha() or head[0] in "_([*":
            match = _ASSIGN_RE.match(head)
            if match and not keyword.iskeyword(head.split(None, 1)[0].rstrip(":")):
                chunk.kind, chunk.names = "data", set(_IDENT_RE.findall(match.group(1)))
            elif _looks_like_prose(head):
                chunk.kind = "prose"
                self._chunks.extend(self.nested(chunk, chunk.start + 1))
            else:
                chunk.kind = "other"
        else:
            chunk.kind = "other"

    def nested(self, chunk: _Chunk, start: int) -> list[_Chunk]:
        """Chunks of Markdown-indented code (after a prose line, or a whole answer indented)."""
        if self.depth >= _MAX_DEPTH or start >= chunk.end:
            return []
        if all(_is_blank_or_comment(line) for line in self.lines[start : chunk.end]):
            return []
        body = textwrap.dedent("\n".join(self.lines[start : chunk.end])).split("\n")
        sub = _Region(body, self.block, self.base + start, self.tag)
        sub.depth = self.depth + 1
        return sub.chunks()


# --------------------------------------------------------------------------- parsing


def _try_parse(lines: list[str], start: int, end: int) -> tuple[ast.Module | None, SyntaxError | None]:
    source = "\n".join(lines[start:end])
    try:
        return ast.parse(source), None
    except SyntaxError as err:  # IndentationError included
        if not str(err.msg).startswith(_WARNING_MESSAGES):
            return None, err
    except (ValueError, RecursionError, MemoryError, OverflowError):  # e.g. "too complex"
        return None, None
    # A parser warning about the model's code ("\d" is an invalid escape) that the caller's
    # filters (-W error) turned into an error: valid code, parse it with warnings ignored.
    # Only here, as catch_warnings swaps process-wide state.
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse(source), None
    except SyntaxError as err:
        return None, err
    except (ValueError, RecursionError, MemoryError, OverflowError):
        return None, None


def _parse_chunk(chunk: _Chunk) -> list[_Stmt]:
    """Parse a chunk (once), merging or cutting it back a bounded number of times."""
    if chunk.stmts is not None:
        return chunk.stmts
    region, lines = chunk.region, chunk.region.lines
    start, end = chunk.start, chunk.end
    tree, err = _try_parse(lines, start, end)
    # An open bracket or string may continue in the next chunks (a column-0 line inside it).
    if tree is None and err is not None and any(m in str(err.msg) for m in _INCOMPLETE):
        siblings = region.own_chunks
        last = chunk.index
        while tree is None and last + 1 < len(siblings) and last - chunk.index < _MAX_MERGES:
            last += 1
            if siblings[last].stmts is not None:  # already used on its own
                break
            merged, merged_err = _try_parse(lines, start, siblings[last].end)
            if merged is not None:
                tree, end = merged, siblings[last].end
                for absorbed in siblings[chunk.index + 1 : last + 1]:
                    absorbed.stmts, absorbed.kind = [], "merged"
            elif merged_err is None or not any(m in str(merged_err.msg) for m in _INCOMPLETE):
                break
    truncated = False
    cuts = 0
    while tree is None and err is not None and cuts < _MAX_CUTS:
        # Keep what comes before the line the error names; a dangling block header goes too.
        lineno = err.lineno or 0
        new_end = start + lineno - 1 if lineno >= 1 else end - 1
        if new_end >= end:
            new_end = end - 1
        while new_end > start and (
            _is_blank_or_comment(lines[new_end - 1]) or lines[new_end - 1].rstrip().endswith(":")
        ):
            new_end -= 1
        if new_end <= start:
            break
        end, truncated, cuts = new_end, True, cuts + 1
        tree, err = _try_parse(lines, start, end)
    chunk.stmts = [] if tree is None else _make_stmts(tree, region, start, truncated)
    return chunk.stmts


def _make_stmts(tree: ast.Module, region: _Region, offset: int, truncated: bool) -> list[_Stmt]:
    body = tree.body
    stmts = []
    for i, node in enumerate(body):
        first = node.lineno
        decorators = getattr(node, "decorator_list", None)
        if decorators:
            first = min(first, *(d.lineno for d in decorators))
        last = node.end_lineno or node.lineno
        stmt = _Stmt(
            node, region, offset, offset + first - 1, offset + last - 1, truncated and i == len(body) - 1
        )
        if i and (body[i - 1].end_lineno or 0) == first:
            stmt.col_first = node.col_offset
        if i + 1 < len(body) and body[i + 1].lineno == last:
            stmt.col_last = node.end_col_offset
        stmts.append(stmt)
    return stmts


# --------------------------------------------------------------------------- the sanitizer


class _Sanitizer:
    """One call of :func:`sanitize`: finds the candidate regions, then applies the kind's policy."""

    def __init__(self, raw: object, entry_point: str, kind: str, prompt: str | None) -> None:
        self.text = _normalize(raw)
        self.entry = entry_point
        self.kind = kind
        self.prompt_text = _normalize(prompt) if prompt and kind != "stdin" else ""
        self.blocks: list[_Region] = []  # fenced blocks worth reading, in order
        self.remainder: _Region | None = None  # the text outside fences, when there are fences
        # The region the answer ends in, when it may have been cut off there: the whole answer,
        # or a final fence left open.  None when every fence was closed (nothing was cut).
        self._end_region: _Region | None = None
        # prompt + body regions, by id, with the answer region their body came from.
        self._body_source: dict[int, _Region] = {}
        self._prompt_region: _Region | None = None
        self._extra: list[_Region] = []  # prompt + body attempts

    # ---- regions

    def _find_regions(self) -> None:
        text = self.text
        lines = text.split("\n")
        if "```" not in text and "~~~" not in text and "[PYTHON]" not in text:
            self.blocks = [_Region(lines, 0)]
            self._end_region = self.blocks[0]
            return
        blocks: list[_Region] = []
        outside: list[str] = []
        line_of = 0
        pos = 0
        open_at = -1  # line index of the opening fence
        open_marker = ""
        open_indent = 0
        open_tag = ""
        taken = 0  # lines before this index are assigned to a block or the outside
        for match in _FENCE_RE.finditer(text):
            line_of += text.count("\n", pos, match.start())
            pos = match.start()
            indent, marker, info, slash = match.group(1), match.group(2), match.group(3), match.group(4)
            if open_at < 0:
                if marker is None:
                    if slash:
                        continue  # stray [/PYTHON]
                    marker, info = "[PYTHON]", ""
                elif marker[0] == "`" and "`" in info:
                    continue  # inline code such as ```x``` is not a fence
                outside.extend(lines[taken:line_of])
                open_at, open_marker, open_indent, open_tag = line_of, marker, len(indent), info
                taken = line_of + 1
                continue
            if marker is None:
                closes = bool(slash) and open_marker == "[PYTHON]"
            else:
                # A fence indented deeper than 3 spaces past the opening one is content (a
                # Markdown example inside a docstring, say), as in CommonMark.
                closes = (
                    not info
                    and marker[0] == open_marker[0]
                    and len(marker) >= len(open_marker)
                    and len(indent) <= open_indent + 3
                )
            if closes:
                blocks.append(self._block(lines[open_at + 1 : line_of], open_indent, open_tag, len(blocks)))
                open_at = -1
                taken = line_of + 1
        if open_at >= 0:  # unclosed final fence: a truncated answer, take the rest
            blocks.append(self._block(lines[open_at + 1 :], open_indent, open_tag, len(blocks)))
            self._end_region = blocks[-1]
        else:
            outside.extend(lines[taken:])
        blocks = [b for b in blocks if any(line.strip() for line in b.lines)]
        python = [b for b in blocks if b.tag in _PYTHON_TAGS or b.tag.startswith("py")]
        self.blocks = python or blocks
        if any(line.strip() for line in outside):
            self.remainder = _Region(outside, 1 << 20)
        if not self.blocks and self.remainder is not None:
            self.blocks, self.remainder = [self.remainder], None

    @staticmethod
    def _block(lines: list[str], indent: int, info: str, index: int) -> _Region:
        if indent:  # a fence indented in a list item: its content carries the same indentation
            pad = " " * indent
            lines = [line[indent:] if line.startswith(pad) else line.lstrip(" ") for line in lines]
        tag = info.strip().strip("{}.").split(None, 1)[0].lower() if info.strip() else ""
        return _Region(lines, index, 0, tag)

    def _prompt(self) -> _Region | None:
        if self._prompt_region is None and self.prompt_text.strip():
            self._prompt_region = _Region(self.prompt_text.split("\n"), -1)
        return self._prompt_region

    # ---- entry

    def release(self) -> None:
        """Break the region <-> chunk reference cycles so reference counting frees everything."""
        for region in (*self.blocks, self.remainder, self._prompt_region, *self._extra):
            if region is None:
                continue
            for chunk in region._chunks or ():
                chunk.stmts = None
                chunk.region.own_chunks = []
                chunk.region._chunks = None
            region.own_chunks = []
            region._chunks = None

    def run(self) -> str:
        if not self.text.strip():
            return ""
        self._find_regions()
        if self.kind == "stdin":
            return self._run_stdin()
        return self._run_definitions()

    # ---- function / method

    def _run_definitions(self) -> str:
        regions = list(self.blocks)
        root = self._find_root(regions) if self.entry or self.kind == "method" else None
        if root is None and self.remainder is not None and (self.entry or self.kind == "method"):
            root = self._find_root([self.remainder])
            if root is not None:
                regions = [self.remainder, *regions]
        if (
            self._prompt() is not None
            and self.entry
            and (root is None or root.truncated or self._continues_prompt())
        ):
            # The answer is (or starts with) a body for the prompt's signature: prompt + body is its
            # first definition, which a later copy of the function replaces only if that copy is
            # complete (``_last_definition``).
            found = self._body_with_prompt()
            if found is not None and (root is None or not found[0].truncated):
                root, combined, source = found
                regions = [combined, *(r for r in regions if r is not source)]
        if root is None:
            return self._fallback()
        kept = self._select(root, regions)
        return _render(kept)

    def _root_in(self, chunk: _Chunk, method: bool) -> _Stmt | None:
        for stmt in reversed(_parse_chunk(chunk)):
            node = stmt.node
            if not method:
                if self.entry in stmt.binds and stmt.cat in ("def", "data", "cond"):
                    return stmt
            elif type(node) is ast.ClassDef and node.name == "Solution":
                if not self.entry or any(
                    type(item) in (ast.FunctionDef, ast.AsyncFunctionDef) and item.name == self.entry
                    for item in node.body
                ):
                    return stmt
        return None

    def _continues_prompt(self) -> bool:
        """Whether the answer opens with indented code: it goes on with the prompt's function body."""
        if self.remainder is not None or len(self.blocks) != 1:
            return False
        first = next((line for line in self.blocks[0].lines if line.strip()), "")
        return first[:1] in (" ", "\t") and not first.lstrip().startswith("#")

    def _find_root(self, regions: list[_Region]) -> _Stmt | None:
        """The last complete definition of the entry point; a truncated one if that is all.

        A later definition wins, as it would at run time (a corrected second attempt), unless
        it was cut off by the token limit and an earlier complete one exists.  A copy is cut
        off when it does not parse as written (a truncated tail is cut back), or when it ends
        the answer (no closed fence, nothing after it) and its lines are a strict prefix of an
        earlier copy's (the model repeating itself, cut at a line end that happens to parse).
        A copy that differs from the earlier one in a complete line is a revision, and wins.
        """
        root = self._last_definition(regions, self.kind == "method")
        if root is None and self.kind == "method" and self.entry:
            # No Solution class with the method: a top-level function of that name will do.
            root = self._last_definition(regions, False)
        return root

    def _last_definition(self, regions: list[_Region], method: bool) -> _Stmt | None:
        name = "Solution" if method else self.entry
        kinds = ("def",) if method else ("def", "data")
        candidates = [
            chunk
            for region in regions
            for chunk in region.chunks()
            if chunk.kind in kinds and name in chunk.names or chunk.kind == "cond" and not method
        ]
        found = [stmt for chunk in candidates if (stmt := self._root_in(chunk, method)) is not None]
        truncated: _Stmt | None = None
        for position in range(len(found) - 1, -1, -1):
            stmt = found[position]
            if not stmt.truncated and not self._repeats_cut_short(stmt, found[:position]):
                return stmt
            truncated = truncated or stmt
        return truncated

    def _repeats_cut_short(self, stmt: _Stmt, earlier: list[_Stmt]) -> bool:
        """Whether ``stmt`` ends the answer and is an earlier complete copy cut short (``_find_root``)."""
        if not earlier or not self._ends_answer(stmt):
            return False
        mine = _code_lines(stmt)
        if not mine:
            return False
        for other in earlier:
            if other.truncated or type(other.node) is not type(stmt.node):
                continue
            theirs = _code_lines(other)
            if len(mine) > len(theirs) or mine[:-1] != theirs[: len(mine) - 1]:
                continue
            last, counterpart = mine[-1], theirs[len(mine) - 1]
            if counterpart.startswith(last) and (len(mine) < len(theirs) or last != counterpart):
                return True
        return False

    def _ends_answer(self, stmt: _Stmt) -> bool:
        """Whether nothing but blank lines follows ``stmt`` to the end of an answer that may be cut off."""
        region = self._body_source.get(id(stmt.region), stmt.region)
        if region is not self._end_region:
            return False
        return not any(line.strip() for line in stmt.region.lines[stmt.last + 1 :])

    def _body_with_prompt(self) -> tuple[_Stmt, _Region, _Region] | None:
        """The answer is a body for the prompt's signature: try prompt + body (bounded tries)."""
        prompt_lines = self.prompt_text.split("\n")
        while prompt_lines and not prompt_lines[-1].strip():
            prompt_lines.pop()
        indent = "    "
        for line in reversed(prompt_lines):
            match = _DEF_LINE_RE.match(line)
            if match:
                indent = match.group(1) + "    "
                break
        sources = [*self.blocks, *([self.remainder] if self.remainder is not None else [])]
        truncated = None
        for source in sources:
            for body in _body_variants(source.lines, indent):
                combined = _Region(prompt_lines + body, source.block, source.base - len(prompt_lines))
                self._extra.append(combined)
                self._body_source[id(combined)] = source
                root = self._find_root([combined])
                # A reading that leaves a ``return`` at column 0 after the function (only its first
                # line re-indented, say) did not take the whole body in: a later reading may.
                stray = root is not None and any(
                    _RETURN_RE.match(line) for line in combined.lines[root.last + 1 :]
                )
                if root is not None and not root.truncated and not stray:
                    return root, combined, source
                truncated = truncated or (root and (root, combined, source))
        return truncated

    def _select(self, root: _Stmt, regions: list[_Region]) -> list[_Stmt]:
        """Root, every import of its block, and what they need, transitively by name."""
        root_block = root.region.block
        prompt = self._prompt()
        tiers: list[list[_Region]] = [
            [r for r in regions if r.block == root_block],
            [r for r in regions if r.block != root_block],
            [prompt] if prompt is not None else [],
        ]
        defs: list[dict[str, list[_Chunk]]] = []
        data: list[dict[str, list[_Chunk]]] = []
        binders: list[dict[str, list[_Stmt]]] = []  # imports and conditional definitions
        for tier in tiers:
            tier_defs: dict[str, list[_Chunk]] = {}
            tier_data: dict[str, list[_Chunk]] = {}
            tier_binders: dict[str, list[_Stmt]] = {}
            for region in tier:
                for chunk in region.chunks():
                    if chunk.kind == "def":
                        for name in chunk.names:
                            tier_defs.setdefault(name, []).append(chunk)
                    elif chunk.kind == "data":
                        for name in chunk.names:
                            tier_data.setdefault(name, []).append(chunk)
                    elif chunk.kind in ("import", "cond"):
                        for stmt in _parse_chunk(chunk):
                            for name in stmt.binds:
                                tier_binders.setdefault(name, []).append(stmt)
            defs.append(tier_defs)
            data.append(tier_data)
            binders.append(tier_binders)

        data_names = set().union(*data)
        known = data_names.union(*defs, *binders)
        kept: dict[int, _Stmt] = {}
        queue: list[_Stmt] = []
        resolved: set[str] = set(root.binds)

        def keep(stmt: _Stmt) -> None:
            if id(stmt) not in kept:
                kept[id(stmt)] = stmt
                queue.append(stmt)

        keep(root)
        for region in tiers[0]:
            for chunk in region.chunks():
                if chunk.kind in ("import", "cond", "setup"):
                    for stmt in _parse_chunk(chunk):
                        if stmt.cat in ("import", "cond") or chunk.kind == "setup" and stmt.cat == "expr":
                            keep(stmt)
                            resolved.update(stmt.binds)

        others_ids: dict[int, list[_Chunk]] = {}

        def mutators(tier: int, name: str) -> list[_Stmt]:
            found = []
            for region in tiers[tier]:
                chunks = others_ids.setdefault(
                    id(region), [c for c in region.chunks() if c.kind in ("other", "data")]
                )
                for chunk in chunks:
                    if name in chunk.ids():
                        found.extend(
                            s
                            for s in _parse_chunk(chunk)
                            if s.cat in ("expr", "compound") and _mutates(s.node, name)
                        )
            return found

        def resolve(name: str, needs_data: bool) -> None:
            for tier in range(3):
                found: list[_Stmt] = []
                for stmt in binders[tier].get(name, ()):
                    found.append(stmt)
                for chunk in reversed(defs[tier].get(name, ())):
                    stmt = next((s for s in reversed(_parse_chunk(chunk)) if name in s.binds), None)
                    if stmt is not None:
                        found.append(stmt)
                        break
                if needs_data:
                    for chunk in data[tier].get(name, ()):
                        found.extend(s for s in _parse_chunk(chunk) if name in s.binds)
                if found:
                    if needs_data and any(s.cat == "data" for s in found):
                        found.extend(mutators(tier, name))
                    for stmt in found:
                        keep(stmt)
                    resolved.add(name)
                    return

        while queue:
            stmt = queue.pop()
            names = stmt.ids() - resolved
            if not names:
                continue
            for name in names & known:
                if name in resolved:
                    continue
                is_data = name in data_names
                if is_data and not stmt.reads_global(name):
                    continue  # a local of this definition that a module-level demo also uses
                resolve(name, is_data)

        # Imports the prompt relies on (``from typing import List``) that the answer left out.
        if prompt is not None:
            bound = set().union(*(s.binds for s in kept.values()))
            for chunk in prompt.chunks():
                if chunk.kind == "import":
                    for stmt in _parse_chunk(chunk):
                        if stmt.cat == "import" and not stmt.binds <= bound:
                            kept[id(stmt)] = stmt
                            bound |= stmt.binds
        return list(kept.values())

    def _fallback(self) -> str:
        """No entry point: every import, definition and assignment; no tests or demos."""
        for regions in (self.blocks, [self.remainder] if self.remainder is not None else []):
            kept: list[_Stmt] = []
            for region in regions:
                for chunk in region.chunks():
                    if chunk.kind not in ("def", "data", "import", "cond", "setup"):
                        continue
                    for stmt in _parse_chunk(chunk):
                        node = stmt.node
                        if stmt.cat == "def" and (
                            node.name.startswith("test_")
                            or type(node) is ast.ClassDef
                            and node.name.startswith("Test")
                        ):
                            continue
                        if (
                            stmt.cat in ("import", "def", "data", "cond")
                            or chunk.kind == "setup"
                            and stmt.cat == "expr"
                        ):
                            kept.append(stmt)
            if kept:
                prompt = self._prompt()
                if prompt is not None:
                    bound = set().union(*(s.binds for s in kept))
                    for chunk in prompt.chunks():
                        if chunk.kind == "import":
                            kept.extend(
                                s for s in _parse_chunk(chunk) if s.cat == "import" and not s.binds <= bound
                            )
                return _render(kept)
        return ""

    # ---- stdin

    def _run_stdin(self) -> str:
        """The whole program of the best block: reads input, then most code lines, then last."""
        candidates = list(self.blocks)
        if len(candidates) > 1:

            def score(pair: tuple[int, _Region]) -> tuple[bool, bool, int, int]:
                index, region = pair
                text = "\n".join(region.lines)
                defines = (
                    bool(self.entry) and re.search(rf"\bdef\s+{re.escape(self.entry)}\b", text) is not None
                )
                code = sum(1 for line in region.lines if line.strip() and not line.lstrip().startswith("#"))
                return defines, _STDIN_HINT_RE.search(text) is not None, code, index

            candidates = [r for _, r in sorted(enumerate(candidates), key=score, reverse=True)]
        if self.remainder is not None:
            candidates.append(self.remainder)
        for region in candidates:
            kept: list[_Stmt] = []
            pending = list(reversed(region.chunks()))
            while pending:
                chunk = pending.pop()
                if chunk.kind in ("prose", "indented", "merged", "blank"):
                    continue  # their code, if any, is in the nested chunks that follow them
                stmts = _parse_chunk(chunk)
                if not stmts and chunk.end - chunk.start > 1:
                    nested = chunk.region.nested(chunk, chunk.start + 1)
                    if nested:
                        self._extra.append(nested[0].region)  # for release()
                        pending.extend(reversed(nested))
                kept.extend(s for s in stmts if _runnable(s))
            if kept:
                return _render(kept)
        return ""


def _code_lines(stmt: _Stmt) -> list[str]:
    """A definition's code lines, stripped, without blank lines, comments or its docstrings.

    What two copies of a function are compared by (``_repeats_cut_short``): a repeat may
    re-indent or drop the docstring and still be the same code.
    """
    lines = stmt.source_lines()
    for start, end in _docstring_spans(stmt.node):
        start, end = start + stmt.offset - stmt.first, end + stmt.offset - stmt.first
        if 0 <= start <= end < len(lines):
            lines[start : end + 1] = [""] * (end + 1 - start)
    return [line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]


def _is_code_head(line: str) -> bool:
    """A column-0 line that starts a definition or import: the answer is more than a body."""
    return bool(_DEF_RE.match(line) or _IMPORT_RE.match(line) or line.startswith("@"))


def _body_variants(lines: list[str], indent: str) -> list[list[str]]:
    """Ways to read an answer as the body of the prompt's function, most literal first."""
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is None:
        return []
    if lines[first][0] in " \t":
        return [lines[first:]]
    variants = []
    # Prose, then an indented body ("Here is the body:\n    for ...").
    for i in range(first, len(lines)):
        line = lines[i]
        if not line.strip():
            continue
        if line[0] in " \t":
            variants.append(lines[i:])
            break
        if line[0] != "#" and not _looks_like_prose(line):
            break
    # Only the first line lost its indentation (some APIs strip leading whitespace).
    after = next((i for i in range(first + 1, len(lines)) if lines[i].strip()), None)
    head = lines[first]
    if (
        after is not None
        and lines[after][0] in " \t"
        and not _is_code_head(head)
        and not _looks_like_prose(head)
    ):
        variants.append([indent + head, *lines[first + 1 :]])
    # The whole body written at column 0: a ``return`` (at column 0, or inside a block that starts
    # at column 0, as in ``if not xs:\n    return None``) with no function around it gives it away.
    returns = any(_RETURN_RE.match(line.lstrip()) for line in lines)
    top_def = any(_DEF_RE.match(line) for line in lines)
    if returns and not top_def:
        start = next(
            (i for i in range(first, len(lines)) if lines[i].strip() and not _looks_like_prose(lines[i])),
            first,
        )
        variants.append([indent + line if line.strip() else line for line in lines[start:]])
    return variants[:3]


def _runnable(stmt: _Stmt) -> bool:
    """Drop what only prose parses as (``Note``, ``Time complexity: O(n)``) or cannot compile."""
    node = stmt.node
    kind = type(node)
    if kind is ast.Expr:
        value = node.value
        if type(value) is ast.Name or type(value) is ast.Constant and not isinstance(value.value, str):
            return False
        return type(value) not in (ast.Yield, ast.YieldFrom, ast.Await)
    if kind is ast.AnnAssign and node.value is None:
        return type(node.annotation) in (ast.Name, ast.Attribute, ast.Subscript)
    return kind not in (ast.Return, ast.Break, ast.Continue)


def _render(stmts: list[_Stmt]) -> str:
    """Original lines of the statements in source order; ``from __future__`` imports first."""
    if not stmts:
        return ""
    stmts = sorted(stmts, key=lambda s: s.order)
    future = [s for s in stmts if type(s.node) is ast.ImportFrom and s.node.module == "__future__"]
    if future:
        stmts = future + [s for s in stmts if s not in future]
    out: list[str] = []
    prev: _Stmt | None = None
    for stmt in stmts:
        if prev is not None:
            gap = prev.region.lines[prev.last + 1 : stmt.first] if prev.region is stmt.region else None
            if gap is not None and stmt.first > prev.last and all(_is_blank_or_comment(line) for line in gap):
                out.extend(gap)  # comments and spacing between neighbours survive
            elif prev.cat == "def" or stmt.cat == "def":
                out.extend(("", ""))
        out.extend(stmt.source_lines())
        prev = stmt
    while out and not out[-1].strip():
        out.pop()
    return "\n".join(out) + "\n" if out else ""
