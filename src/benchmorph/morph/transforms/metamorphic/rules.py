"""The offline metamorphic generator: meaning-preserving rewrites of a function problem without an LLM.

DyCodeEval's agents rewrite a problem into a scenario with an LLM.  Users
without an endpoint, and our tests, still need real variants, so this module
makes them with rules, deterministically from ``(seed, problem id, index)``:

1. **Renames** parameters (and, on request, the entry point) through the AST:
   every ``Name``/``arg`` node and the keywords of calls to functions the
   module defines, in the prompt's code and the reference; the same names in
   the docstring (prose and examples) follow.  A parameter the prose names
   as an English word ("Given a string, ...", "list of numbers") keeps its
   name: renaming the word would change the prose, and renaming the code
   alone would leave the prose pointing at nothing.  Single letters the
   prose uses as symbols ("the n-th number") become other letters; ``a`` and
   ``I`` are never touched (the article and the pronoun).  Web addresses are
   never rewritten, and a parameter the prose glues to other tokens ("2n",
   "nth", "x1") or names inside an address keeps its name.  A name renamed to
   a pool noun is written in backticks where a sentence uses it ("an array
   `amounts` of integers").  Test inputs are positional, so they are
   unaffected.
2. **Wraps** the description in a scenario sentence from :data:`TEMPLATES`
   (24 situations keyed by the inferred parameter types: text, numbers,
   collections, anything).  A template says *who uses* the function and
   what it receives, by coarse type ("a list of numbers"), never what the
   values mean: a template cannot know that a ``list[int]`` holds bank
   operations, and a scenario that said "sensor readings" would contradict
   the prose.  Giving values a meaning is the LLM rewriter's job.
3. **Rephrases** the first sentence where it uses one of the fixed phrasings
   HumanEval and MBPP share ("Write a python function to", "Given X, return
   Y", "Return", "Check if", "You are given", ...): a synonym or a clause
   reorder, never a changed word of substance.  A reorder is passed over
   where it would garble the sentence (an ellipsis, a relative clause, a
   second clause or a name the moved condition introduces).

:func:`meaning_kept` is the guard every variant passes: each number and each
word of :data:`PROPERTY_WORDS` in the original prose survives, the
scenario adds none.  The transform (``benchmorph.morph.transforms.metamorphic.metamorphic``) then
sends every variant through ``finalize_variants`` with outputs kept.
"""

from __future__ import annotations

import ast
import builtins
import hashlib
import keyword
import re
import textwrap
import warnings
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from benchmorph.data.models import Problem
from benchmorph.data.prompt import anatomy, parse_prompt_stub
from benchmorph.testgen.types import (
    BOOL,
    FLOAT,
    INT,
    STR,
    DictT,
    FixedTupleT,
    FrozenSetT,
    ListT,
    SetT,
    Signature,
    TypeExpr,
    VarTupleT,
    infer_signature,
)
from benchmorph.validation.distances import description_text
from benchmorph.validation.examples.scan import scan_examples

# ------------------------------------------------------------------ scenario templates


@dataclass(frozen=True)
class Template:
    """A scenario sentence: who uses the function; ``{inputs}`` names what it receives.

    ``key`` says which signatures it fits (see :func:`template_keys`);
    ``slug`` prefixes the entry point under ``--rename-entry-point``.
    """

    slug: str
    key: str  # any | text | numbers | collection
    text: str


TEMPLATES: tuple[Template, ...] = (
    # any signature
    Template("routing", "any", "A logistics company is adding this helper to its routing service; it receives {inputs}."),
    Template("bank", "any", "The back office of a regional bank needs this helper; it receives {inputs}."),
    Template("clinic", "any", "A hospital's scheduling system calls this helper with {inputs}."),
    Template("school", "any", "A school's grading portal relies on this helper, which receives {inputs}."),
    Template("library", "any", "In a city library's catalogue software, this helper is given {inputs}."),
    Template("travel", "any", "A travel agency's booking tool uses this helper; it is passed {inputs}."),
    Template("farm", "any", "A farm cooperative's inventory app calls this helper with {inputs}."),
    Template("airline", "any", "An airline's crew planning tool includes this helper, which takes {inputs}."),
    # a string somewhere in the inputs
    Template("newsroom", "text", "A newsroom's text pipeline calls this helper with {inputs}."),
    Template("support", "text", "The text tools of a customer-support chat system include this helper; it receives {inputs}."),
    Template("translation", "text", "A translation agency's text tooling includes this helper, which receives {inputs}."),
    Template("museum", "text", "A museum's label-printing software calls this helper with {inputs}."),
    Template("publisher", "text", "A publishing house's typesetting tool calls this helper with {inputs}."),
    Template("studio", "text", "A game studio's dialogue editor uses this helper; it receives {inputs}."),
    # numbers (scalars or lists of them) and no text
    Template("weather", "numbers", "A weather station's data dashboard calls this helper with {inputs}."),
    Template("energy", "numbers", "An energy company's metering software uses this helper; it receives {inputs}."),
    Template("sports", "numbers", "A sports club's statistics tool relies on this helper, which receives {inputs}."),
    Template("factory", "numbers", "A factory's quality-control system calls this helper with {inputs}."),
    Template("lab", "numbers", "A research lab's measurement pipeline passes {inputs} to this helper."),
    Template("retail", "numbers", "A retail chain's sales report generator uses this helper; it receives {inputs}."),
    # a collection (list, tuple, set, dictionary) somewhere in the inputs
    Template("warehouse", "collection", "A warehouse's stock-keeping system calls this helper with {inputs}."),
    Template("conference", "collection", "A conference organiser's registration tool uses this helper, which receives {inputs}."),
    Template("transit", "collection", "A city transport authority's timetable software passes {inputs} to this helper."),
    Template("streaming", "collection", "A streaming service's playlist manager calls this helper with {inputs}."),
)  # fmt: skip


# ------------------------------------------------------------------ words that carry the meaning

# Words whose loss or addition would change what a description asks for: negation and quantifiers,
# extremes, parity, order, comparisons, positions, signs, case, character classes, truth values.
# The guard checks every one in the original prose survives; the templates and rephrasings hold none.
PROPERTY_WORDS: frozenset[str] = frozenset(
    """
    not no none never nothing nor without except unless only all each every any both either neither
    some same different distinct unique duplicate duplicates repeated first last second third next
    previous before after left right start end begin begins ends starts beginning ending prefix suffix
    largest smallest maximum minimum max min biggest greatest highest lowest longest shortest most least
    more less fewer greater smaller larger bigger lower higher above below over under between exactly
    strictly inclusive exclusive at-least even odd positive negative zero nonnegative non-negative prime
    sorted sort ascending descending increasing decreasing reverse reversed order ordered sum product
    total average mean median count number length empty true false upper lower uppercase lowercase
    capital vowel vowels consonant consonants digit digits letter letters alphabetic numeric space spaces
    whitespace case-sensitive case-insensitive ignore ignoring must cannot can't don't doesn't
    otherwise else half double twice once times
    """.split()
)

_NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?![\w])")
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")


def _prose_counts(prompt: str, entry_point: str) -> tuple[Counter[str], Counter[str]]:
    text = description_text(prompt, entry_point)
    numbers = Counter(_NUMBER.findall(text))
    words = Counter(word.lower() for word in _WORD.findall(text) if word.lower() in PROPERTY_WORDS)
    return numbers, words


def meaning_kept(parent: Problem, prompt: str, entry_point: str) -> str | None:
    """Why the rewrite may have changed the meaning (a number or property word lost), or None.

    Counts, not sets: "the first and the first" losing one "first" is a change.
    """
    old_numbers, old_words = _prose_counts(parent.prompt, parent.entry_point)
    new_numbers, new_words = _prose_counts(prompt, entry_point)
    lost_numbers = old_numbers - new_numbers
    if lost_numbers:
        return f"the number {sorted(lost_numbers)[0]} of the description is gone"
    lost_words = old_words - new_words
    if lost_words:
        return f"the word {sorted(lost_words)[0]!r} of the description is gone"
    return None


# ------------------------------------------------------------------ rephrasing the fixed phrasings


@dataclass(frozen=True)
class Phrasing:
    """A fixed opening and meaning-preserving ways to say it; alternatives are format strings over the
    pattern's named groups (``{rest}`` etc.)."""

    name: str
    pattern: re.Pattern[str]
    alternatives: tuple[str, ...]


_S = r"\s+"
PHRASINGS: tuple[Phrasing, ...] = (
    Phrasing(
        "write-function",
        re.compile(rf"^Write{_S}an?{_S}(?P<py>(?:python|Python){_S})?function{_S}(?P<conj>to|that|which){_S}(?P<rest>.+)$", re.S),
        (
            "Implement a {py}function {conj} {rest}",
            "Create a {py}function {conj} {rest}",
            "Define a {py}function {conj} {rest}",
            "Provide a {py}function {conj} {rest}",
            "Code a {py}function {conj} {rest}",
        ),
    ),
    Phrasing(
        "create-function",
        re.compile(rf"^(?:Create|Implement){_S}an?{_S}function{_S}(?P<conj>that|which){_S}(?P<rest>.+)$", re.S),
        (
            "Build a function {conj} {rest}",
            "Define a function {conj} {rest}",
            "Provide a function {conj} {rest}",
            "Write a function {conj} {rest}",
        ),
    ),
    Phrasing(
        "given-return",
        re.compile(rf"^Given{_S}(?P<cond>[^.;:!?]+?),{_S}return{_S}(?P<rest>.+?)(?P<end>[.!]?)$", re.S),
        (
            "Return {rest}, given {cond}{end}",
            "Taking {cond} as input, return {rest}{end}",
            "With {cond} as input, return {rest}{end}",
        ),
    ),
    Phrasing(
        "given-verb",
        re.compile(
            rf"^Given{_S}(?P<cond>[^,.;:!?]+),{_S}(?P<verb>find|determine|check|compute|calculate|count|sort|write|create|implement|produce)\b(?P<rest>.+)$",
            re.S,
        ),
        ("Taking {cond} as input, {verb}{rest}", "With {cond} as input, {verb}{rest}"),
    ),
    Phrasing(
        "return",
        re.compile(rf"^Returns?{_S}(?P<rest>.+)$", re.S),
        (
            "The function should return {rest}",
            "Have the function return {rest}",
            "Your code should return {rest}",
            "Make the function return {rest}",
        ),
    ),
    Phrasing(
        "check",
        re.compile(rf"^(?:Check|Test){_S}(?:if|whether){_S}(?P<rest>.+)$", re.S),
        ("Determine whether {rest}", "Find out whether {rest}", "Decide whether {rest}"),
    ),
    Phrasing(
        "you-are-given",
        re.compile(rf"^You(?:{_S}are|'re){_S}given{_S}(?P<rest>.+)$", re.S),
        ("You receive {rest}", "You will be given {rest}", "Suppose you are given {rest}"),
    ),
    Phrasing(
        "your-task",
        re.compile(rf"^Your{_S}(?:task|goal){_S}is{_S}to{_S}(?P<rest>.+)$", re.S),
        ("The goal is to {rest}", "You need to {rest}", "The job is to {rest}"),
    ),
    Phrasing(
        "find",
        re.compile(rf"^Find{_S}(?P<rest>.+)$", re.S),
        ("Determine {rest}", "Work out {rest}", "Figure out {rest}"),
    ),
    Phrasing(
        "input-to",
        re.compile(rf"^Input{_S}to{_S}this{_S}function{_S}is{_S}(?P<rest>.+)$", re.S),
        ("The input of this function is {rest}", "This function takes as input {rest}"),
    ),
    Phrasing(
        "this-function",
        re.compile(rf"^This{_S}function{_S}(?P<rest>.+)$", re.S),
        ("The function {rest}", "This routine {rest}"),
    ),
)  # fmt: skip


# A pronoun in the moved clause points back at the condition ("Given a list, return whether they are
# sorted"): the condition must stay in front, so only alternatives that keep the order apply.
_BACK_REFERENCE = re.compile(r"\b(?:they|them|their|it|its|this|these|those|such)\b", re.IGNORECASE)


# A condition that holds a relative clause ("Given a list of strings, where each string consists of only
# digits, return ..." HumanEval/113) cannot be moved or wrapped: "Taking a list of strings, where each
# ... digits as input" reads as if "as input" belonged to the clause.
_RELATIVE_CLAUSE = re.compile(r",\s*(?:where|which|that|who|whom|whose|in\s+which)\b", re.IGNORECASE)
# An ellipsis ("ord('b') = 1, ... ord('z') = 25", HumanEval/125) is not a full stop, and a sentence
# holding one is a list in prose that a clause must not be moved into.
_ELLIPSIS = re.compile(r"\.\.|…")


def _moves_condition(template: str) -> bool:
    return template.index("{cond}") > template.index("{rest}")


def _may_move_condition(groups: dict[str, str], names: Sequence[str]) -> bool:
    """Whether the condition may go after the rest ("Return Y, given X").

    Not where the rest points back at it (a pronoun), holds more than one
    clause ("..., else return False, given a dictionary" reads as if the
    condition belonged to the last one: HumanEval/95), or uses a name the
    condition introduces ("the first k elements of arr, given an array arr":
    HumanEval/120, 122).
    """
    rest, cond = groups.get("rest", ""), groups.get("cond", "")
    if _BACK_REFERENCE.search(rest) or re.search(r"[,;:]", rest):
        return False
    return not any(_word(name).search(cond) and _word(name).search(rest) for name in names)


def rephrase(sentence: str, choice: int, names: Sequence[str] = ()) -> tuple[str, str] | None:
    """(new sentence, phrasing name) for the first phrasing that matches, alternative ``choice``.

    ``names`` are the parameters' names as the prose now writes them.  A
    phrasing that reorders a condition is passed over where the reorder would
    garble the sentence (an ellipsis, a relative clause, see
    :func:`_may_move_condition`); the next phrasing that matches is tried.
    """
    for phrasing in PHRASINGS:
        match = phrasing.pattern.match(sentence)
        if match is None:
            continue
        groups = {name: value or "" for name, value in match.groupdict().items()}
        alternatives = list(phrasing.alternatives)
        if "cond" in groups:
            if _ELLIPSIS.search(sentence) or _RELATIVE_CLAUSE.search(groups["cond"]):
                continue
            if "rest" in groups and not _may_move_condition(groups, names):
                alternatives = [a for a in alternatives if not _moves_condition(a)]
            if not alternatives:
                continue
        template = alternatives[choice % len(alternatives)]
        return template.format(**groups), phrasing.name
    return None


# ------------------------------------------------------------------ types in words and names


def _numeric(t: TypeExpr) -> bool:
    """int, float, or a union of them (with bool, an int to Python: MBPP+'s generated inputs mix them in)."""
    members = set(t.members())
    return bool(members & {INT, FLOAT}) and members <= {INT, FLOAT, BOOL}


def _items(t: TypeExpr) -> TypeExpr | None:
    if isinstance(t, ListT | SetT | FrozenSetT | VarTupleT):
        return t.item
    if isinstance(t, FixedTupleT):
        from benchmorph.testgen.types import join

        joined = None
        for item in t.items:
            joined = item if joined is None else join(joined, item)
        return joined
    return None


def plural(t: TypeExpr | None, depth: int = 0) -> str:
    """How a list of ``t`` is spoken of: "numbers", "strings", "lists of numbers"."""
    if t is None:
        return "values"
    if _numeric(t):
        return "numbers"
    if t == STR:
        return "strings"
    if t == BOOL:
        return "booleans"
    if isinstance(t, DictT):
        return "dictionaries"
    if isinstance(t, SetT | FrozenSetT):
        return "sets"
    if _items(t) is not None:
        noun = "sequences" if isinstance(t, FixedTupleT | VarTupleT) else "lists"
        return noun if depth >= 1 else f"{noun} of {plural(_items(t), depth + 1)}"
    return "values"


def type_phrase(t: TypeExpr) -> str:
    """A coarse, always-true English name of a type observed in the tests ("a list of numbers").

    Coarse on purpose: ``int`` and ``float`` are both "a number", and a tuple
    is "a sequence": MBPP's prose says "list" of what some tests pass as
    tuples and "tuple" of others, and the scenario must contradict neither.
    """
    if _numeric(t):
        return "a number"
    if t == STR:
        return "a string"
    if t == BOOL:
        return "a boolean"
    if isinstance(t, DictT):
        return "a dictionary"
    if isinstance(t, SetT | FrozenSetT):
        return f"a set of {plural(t.item)}"
    items = _items(t)
    if isinstance(t, FixedTupleT | VarTupleT):
        return f"a sequence of {plural(items)}"
    if items is not None or isinstance(t, ListT):
        return f"a list of {plural(items)}"
    return "a value"


def category(t: TypeExpr) -> str:
    """The name pool a parameter of type ``t`` draws from."""
    if _numeric(t):
        return "number"
    if t == STR:
        return "text"
    if t == BOOL:
        return "flag"
    if isinstance(t, DictT):
        return "mapping"
    items = _items(t)
    if items is not None:
        if _numeric(items):
            return "numbers"
        if items == STR:
            return "texts"
        return "items"
    return "value"


NAME_POOLS: dict[str, tuple[str, ...]] = {
    "number": ("amount", "quantity", "figure", "value", "measure"),
    "text": ("text", "message", "phrase", "label", "content"),
    "flag": ("flag", "switch", "option", "toggle", "marker"),
    "mapping": ("mapping", "table", "lookup", "registry", "directory"),
    "numbers": ("values", "readings", "series", "figures", "amounts"),
    "texts": ("entries", "labels", "texts", "phrases", "tokens"),
    "items": ("items", "records", "entries", "batch", "collection"),
    "value": ("data", "payload", "item", "subject", "target"),
}
LETTERS = ("m", "p", "q", "r", "t", "u", "v", "w", "z", "j", "g", "d")
# Parameter names that are words a description uses as words ("a side"), or that read as one.
NEVER_RENAMED = frozenset({"a", "A", "I", "i", "o", "O"})
# Short forms that are identifiers, not words: renamed in the prose like any identifier.
ABBREVIATIONS = frozenset(
    {"arr", "lst", "nums", "num", "txt", "strr", "tup", "dct", "arrs", "lsts", "tuplex", "dlist", "stdata"}
)


def template_keys(signature: Signature) -> set[str]:
    """Which template keys fit: every signature ``any``; strings ``text``; numbers without strings
    ``numbers``; a list, tuple, set or dictionary ``collection``."""
    keys = {"any"}
    types = signature.types
    categories = {category(t) for t in types}
    if categories & {"text", "texts"}:
        keys.add("text")
    elif types and categories <= {"number", "numbers"}:
        keys.add("numbers")
    if any(_items(t) is not None or isinstance(t, DictT | ListT) for t in types):
        keys.add("collection")
    return keys


def applicable_templates(signature: Signature) -> list[Template]:
    """The templates for this signature, most specific first (text, numbers, collection, any)."""
    keys = template_keys(signature)
    order = {"text": 0, "numbers": 1, "collection": 2, "any": 3}
    return sorted((t for t in TEMPLATES if t.key in keys), key=lambda t: order[t.key])


# ------------------------------------------------------------------ renaming through the AST


def _parse(source: str) -> ast.Module | None:
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
    tree = _parse(source) if not source.rstrip().endswith(":") else parse_prompt_stub(source)
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


def _word(name: str) -> re.Pattern[str]:
    """``name`` as a whole word of prose: not part of a longer name or an attribute (``x.n``), and not
    the letter after an apostrophe ("it's" holds no ``s``); quotes around it are allowed ('delimeter')."""
    return re.compile(rf"(?<![\w.])(?<!\w['’]){re.escape(name)}(?!\w)")


_STRING_LITERAL = re.compile(r"'(?:[^'\\\n]|\\.)*'|\"(?:[^\"\\\n]|\\.)*\"")
# A web address in the prose (Mbpp/739's "https://www.geeksforgeeks.org/...-n-digits/", Mbpp/765's bare
# "geeksforgeeks.org/n-th-polite-number/"): a rename must never reach into it.
_URL = re.compile(
    r"(?:https?://|www\.)[^\s'\"<>)\]]+"
    r"|\b[\w-]+(?:\.[\w-]+)*\.(?:com|org|net|io|edu|gov)\b(?:/[^\s'\"<>)\]]*)?",
    re.IGNORECASE,
)


def without_urls(text: str) -> str:
    """``text`` with every web address blanked (same length), for searches that must not look inside one."""
    return _URL.sub(lambda match: " " * len(match.group(0)), text)


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
    glued = re.compile(
        rf"(?<![A-Za-z_])\d+{escaped}(?![A-Za-z])"  # 2n, 10x
        rf"|(?<![\w.])(?<!\w['’]){escaped}(?:\d|_\w|(?:th|st|nd|rd)\b)"  # n2, x_1, nth, kth
    )
    found = glued.search(without_urls(text))
    if found is not None:
        return found.group(0)
    for url in _URL.finditer(text):
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
    pattern = re.compile("|".join(_word(old).pattern for old in sorted(renames, key=len, reverse=True)))

    def swap_words(part: str, prose: bool) -> str:
        def one(match: re.Match[str]) -> str:
            new = renames[match.group(0)]
            if prose and match.group(0) in marked and _in_sentence(part, match.start(), match.end()):
                return f"`{new}`"
            return new

        return pattern.sub(one, part)

    def swap(part: str, prose: bool = True) -> str:  # web addresses are kept as they are
        pieces, last = [], 0
        for url in _URL.finditer(part):
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


def _is_identifier_like(name: str) -> bool:
    return "_" in name or any(ch.isdigit() for ch in name) or name in ABBREVIATIONS


def plan_renames(
    problem: Problem,
    signature: Signature,
    index: int,
    offset: int,
    taken: set[str],
) -> dict[str, str]:
    """Old parameter name -> new one for variant ``index`` (see the module docstring for the policy)."""
    description = description_text(problem.prompt, problem.entry_point)
    prose_words = set(re.findall(r"[A-Za-z_][\w]*", description))
    params = [name for name in signature.names if name.isidentifier()]
    mentioned = {name for name in params if _word(name).search(without_urls(description))}
    glued = {name for name in params if glued_use(name, description) is not None}
    keep_letters = any(name in NEVER_RENAMED and name in mentioned for name in params)
    lowered_prose = {word.lower() for word in prose_words}
    used = set(taken) | set(params)
    renames: dict[str, str] = {}
    by_pool: dict[str, list[str]] = {}
    for name, t in signature.params:
        if name not in params or name in NEVER_RENAMED or name in glued:
            continue
        if name in mentioned:
            if len(name) == 1:
                if keep_letters:
                    continue
                pool = [c.upper() if name.isupper() else c for c in LETTERS]
                start = (offset + index) % len(pool)
                for step in range(len(pool)):
                    letter = pool[(start + step) % len(pool)]
                    if letter not in used and letter.lower() not in lowered_prose:
                        renames[name] = letter
                        used.add(letter)
                        break
                continue
            if not _is_identifier_like(name):
                continue  # an English word the prose uses as one: renaming it would change the prose
        by_pool.setdefault(category(t), []).append(name)
    for pool_name, names in by_pool.items():
        pool = NAME_POOLS[pool_name]
        start = (offset + index) % len(pool)
        for step in range(len(pool)):
            base = pool[(start + step) % len(pool)]
            chosen = [base] if len(names) == 1 else [f"{base}{n + 1}" for n in range(len(names))]
            if any(
                new in used
                or new.lower() in lowered_prose
                or keyword.iskeyword(new)
                or hasattr(builtins, new)
                for new in chosen
            ):
                continue
            for old, new in zip(names, chosen, strict=True):
                renames[old] = new
            used.update(chosen)
            break
    return {old: new for old, new in renames.items() if old != new}


# ------------------------------------------------------------------ the description


@dataclass(frozen=True)
class Docstring:
    """The description's triple-quoted literal (``data.prompt``'s anatomy) as the rewriter splices it."""

    start: int  # offset of the literal (prefix included)
    end: int
    opener: str  # prefix + quotes
    body: str

    @property
    def closer(self) -> str:
        return self.opener[-3:]


def find_docstring(prompt: str, entry_point: str) -> Docstring | None:
    """The entry point's docstring, or the module's (MBPP); only triple-quoted literals are rewritten."""
    doc = anatomy(prompt, entry_point).docstring
    if doc is None or len(doc.quote) != 3:
        return None
    return Docstring(
        doc.start, doc.end, prompt[doc.start : doc.content_start], prompt[doc.content_start : doc.content_end]
    )


_NOT_PROSE_LINE = re.compile(
    r"^\s*(?:>>>|assert\b|for\s+example|examples?\b|example\s*\d|input\s*:|output\s*:|note\b|[-*•]\s|\d+[.)]\s)",
    re.IGNORECASE,
)
# A dot of an ellipsis ("1, ... 25") does not end a sentence.
_SENTENCE_END = re.compile(r"(?<!\be\.g)(?<!\bi\.e)(?<!\betc)(?<!\.)(?:[!?]|\.(?!\.))(?=\s|$)")


# A line of the docstring that holds only quote characters (a typo such as ``""""``) is not prose.
_STRAY_QUOTES = re.compile(r"[\"']+[ \t]*\n\s*")


def first_sentence(body: str, entry_point: str) -> tuple[int, int] | None:
    """(start, end) in ``body`` of the description's first sentence; None if it opens with no prose."""
    lead = len(body) - len(body.lstrip())
    stray = _STRAY_QUOTES.match(body, lead)
    if stray is not None:  # HumanEval/142 opens with four quotes: the fourth stays where it is
        lead = stray.end()
    if lead >= len(body):
        return None
    rest = body[lead:]
    if _NOT_PROSE_LINE.match(rest) or re.match(rf"\s*{re.escape(entry_point)}\s*\(", rest):
        return None
    end = len(rest)
    found = _SENTENCE_END.search(rest)
    if found is not None:
        end = found.end()
    # A line that is not prose (an example, a list) or a blank line ends the sentence too.
    position = 0
    for line in rest.splitlines(keepends=True):
        if position and (
            not line.strip()
            or _NOT_PROSE_LINE.match(line)
            or re.match(rf"\s*{re.escape(entry_point)}\s*\(", line)
        ):
            end = min(end, position)
            break
        position += len(line)
    while end > 0 and rest[end - 1].isspace():
        end -= 1
    return lead, lead + end


def _indent(body: str, prompt: str, start: int) -> str:
    """The indentation of the docstring's text lines."""
    lead = body[: len(body) - len(body.lstrip())]
    if "\n" in lead:
        return lead.rsplit("\n", 1)[1]
    for line in body.splitlines()[1:]:
        if line.strip():
            return line[: len(line) - len(line.lstrip())]
    line_start = prompt.rfind("\n", 0, start) + 1
    return prompt[line_start:start] if not prompt[line_start:start].strip() else ""


_COUNTS = {2: "two", 3: "three", 4: "four", 5: "five"}


def _plural_phrase(phrase: str) -> str:
    """ "a list of numbers" -> "lists of numbers", "a dictionary" -> "dictionaries"."""
    head, _, rest = phrase.removeprefix("a ").partition(" ")
    head = head[:-1] + "ies" if head.endswith("y") else head + "s"
    return f"{head} {rest}".strip()


def scenario_sentence(template: Template, signature: Signature, shown: dict[str, str], named: bool) -> str:
    """The template with its inputs: "`values` (a list of numbers) and `limit` (a number)" where the prompt
    shows a signature (``named``), "a list of numbers and a number" where it does not (MBPP)."""
    parts: list[str] = []
    if named:
        parts = [f"`{shown.get(name, name)}` ({type_phrase(t)})" for name, t in signature.params]
    else:  # "two lists of numbers and a string": runs of one phrase are counted
        phrases = [type_phrase(t) for t in signature.types]
        run = 1
        for position, phrase in enumerate(phrases):
            if position + 1 < len(phrases) and phrases[position + 1] == phrase:
                run += 1
                continue
            parts.append(phrase if run == 1 else f"{_COUNTS.get(run, str(run))} {_plural_phrase(phrase)}")
            run = 1
    if not parts:
        inputs = "no arguments"
    elif len(parts) == 1:
        inputs = parts[0]
    else:
        inputs = ", ".join(parts[:-1]) + " and " + parts[-1]
    return template.text.format(inputs=inputs)


def rewrite_description(
    prompt: str, entry_point: str, scenario: str, choice: int, width: int = 96, names: Sequence[str] = ()
) -> tuple[str, str | None] | None:
    """``prompt`` with the scenario sentence before its description and the first sentence rephrased:
    (new prompt, the phrasing used or None); None where the prompt has no triple-quoted docstring.
    ``names`` are the parameters' names in the prompt (see :func:`rephrase`)."""
    doc = find_docstring(prompt, entry_point)
    if doc is None:
        return None
    body = doc.body
    indent = _indent(body, prompt, doc.start)
    span = first_sentence(body, entry_point)
    lead = len(body) - len(body.lstrip())
    start, end = span if span is not None else (lead, lead)
    rephrased = rephrase(body[start:end], choice, names) if span is not None else None
    sentence, used = rephrased if rephrased is not None else (body[start:end], None)
    wrapped = textwrap.fill(
        scenario, width=max(60, width - len(indent)), subsequent_indent=indent, break_on_hyphens=False
    )
    new_body = body[:start] + wrapped + "\n" + indent + sentence + body[end:]
    if start == len(body):  # an empty docstring: the scenario alone, then the closing quotes
        new_body = body + wrapped + "\n" + indent
    if doc.closer in new_body or new_body.endswith("\\"):
        return None
    new_prompt = prompt[: doc.start] + doc.opener + new_body + doc.closer + prompt[doc.end :]
    return new_prompt, used


# ------------------------------------------------------------------ one problem -> K variants


@dataclass
class RuleVariant:
    """One proposed rewrite of a problem (before the sandbox and the checks)."""

    index: int
    prompt: str
    reference: str
    entry_point: str
    renames: dict[str, str]
    template: str
    phrasing: str | None
    scenario: str
    contract: str | None = None


@dataclass
class Proposal:
    """What the generator made of one problem: its variants, or why it made none."""

    variants: list[RuleVariant] = field(default_factory=list)
    skipped: str | None = None
    rejected: list[tuple[RuleVariant, str, str]] = field(default_factory=list)  # (variant, check, reason)


def seed_offset(seed: int, problem_id: str) -> int:
    """A process-independent number from the run's seed and the problem: where each pool starts."""
    return int(hashlib.sha256(f"{seed}\0{problem_id}".encode()).hexdigest()[:12], 16)


def _split_reference(problem: Problem) -> tuple[str, str]:
    if problem.reference.startswith(problem.prompt):
        return problem.prompt, problem.reference[len(problem.prompt) :]
    return "", problem.reference


def _defines(source: str, name: str) -> bool:
    tree = parse_prompt_stub(source)
    return tree is not None and any(
        isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == name
        for node in ast.walk(tree)
    )


def _nouns(renames: dict[str, str]) -> frozenset[str]:
    """The old names whose new name is a word of the name pools (not a single letter): marked in prose."""
    return frozenset(old for old, new in renames.items() if len(new) > 1)


def propose_variants(
    problem: Problem, count: int, seed: int = 0, *, rename_entry_point: bool = False
) -> Proposal:
    """Up to ``count`` distinct rewrites of ``problem`` (a function problem with tests carrying inputs).

    Each index draws its template, names and phrasing from a different place
    in the pools, so variants of one seed differ; a rewrite equal to an
    earlier one is dropped.  A problem the generator cannot rewrite (not a
    function, no docstring, code it cannot rename safely) is ``skipped``
    with the reason.
    """
    if problem.kind != "function":
        return Proposal(skipped=f"a {problem.kind} problem (the rules generator rewrites function problems)")
    reference_tree = _parse(problem.reference)
    if reference_tree is None:
        return Proposal(skipped="the reference does not parse")
    if find_docstring(problem.prompt, problem.entry_point) is None:
        return Proposal(skipped="the prompt has no triple-quoted description to rewrite")
    signature = infer_signature(problem)
    prompt_tree = parse_prompt_stub(problem.prompt)
    taken = identifiers(reference_tree) | (identifiers(prompt_tree) if prompt_tree is not None else set())
    templates = applicable_templates(signature)
    offset = seed_offset(seed, problem.id)
    shared, _ = _split_reference(problem)
    named = _defines(problem.prompt, problem.entry_point)
    proposal = Proposal()
    seen = {" ".join(problem.prompt.split())}
    for index in range(count):
        template = templates[(offset + index) % len(templates)]
        renames = plan_renames(problem, signature, index, offset, taken)
        code_renames = dict(renames)
        entry_point = problem.entry_point
        if rename_entry_point:
            candidate = f"{template.slug}_{problem.entry_point}"
            if candidate not in taken and candidate.isidentifier():
                entry_point = candidate
                code_renames[problem.entry_point] = candidate
        text_renames = dict(code_renames)
        prompt_code = rename_code(problem.prompt, code_renames)
        full = rename_code(problem.reference, code_renames)
        contract = rename_contract(problem.contract, code_renames)
        if prompt_code is None or full is None or (problem.contract and contract is None):
            # Renaming is refused where unsafe: fall back to the description rewrite alone.
            renames, code_renames, text_renames, entry_point = {}, {}, {}, problem.entry_point
            prompt_code, full, contract = problem.prompt, problem.reference, problem.contract
        doc = find_docstring(prompt_code, entry_point)
        if doc is None:
            proposal.skipped = "the renamed prompt lost its description"
            return proposal
        # In worked examples a quoted string is data (Mbpp/301's {'d': {}} keeps its 'd' when d is renamed).
        examples = example_lines(prompt_code, entry_point, doc.start + len(doc.opener))
        renamed_prompt = (
            prompt_code[: doc.start]
            + doc.opener
            + rename_text(doc.body, text_renames, examples, marked=_nouns(renames))
            + doc.closer
        )
        renamed_prompt += prompt_code[doc.end :]
        scenario = scenario_sentence(template, signature, renames, named)
        names = [code_renames.get(name, name) for name in signature.names]
        rewritten = rewrite_description(renamed_prompt, entry_point, scenario, offset + index, names=names)
        if rewritten is None:
            proposal.skipped = "the description does not open with a sentence that can be rewritten"
            return proposal
        new_prompt, phrasing = rewritten
        if shared:
            if not full.startswith(prompt_code):
                proposal.skipped = "the reference does not continue the prompt after renaming"
                return proposal
            reference = new_prompt + full[len(prompt_code) :]
        else:
            reference = full
        variant = RuleVariant(
            index, new_prompt, reference, entry_point, renames, template.slug, phrasing, scenario, contract
        )
        key = " ".join(new_prompt.split())
        if key in seen:
            proposal.rejected.append(
                (variant, "distinct", "the same text as another variant of this problem")
            )
            continue
        seen.add(key)
        problem_check = meaning_kept(problem, new_prompt, entry_point)
        if problem_check is not None:
            proposal.rejected.append((variant, "meaning", problem_check))
            continue
        proposal.variants.append(variant)
    return proposal


def check_signature(parent: Problem, prompt: str, reference: str, entry_point: str) -> str | None:
    """Validation (b) before the sandbox: the prompt parses, the reference parses and defines the entry
    point with the parent's number of parameters.  Returns why not, or None."""
    if parse_prompt_stub(parent.prompt) is not None and parse_prompt_stub(prompt) is None:
        return "the rewritten prompt does not parse"
    parent_arity = _arity(parent.reference, parent.entry_point)
    arity = _arity(reference, entry_point)
    if arity is None:
        return f"the reference does not define {entry_point}"
    if parent_arity is not None and arity != parent_arity:
        return f"{entry_point} takes {arity} parameters, the original {parent_arity}"
    if _defines(parent.prompt, parent.entry_point) and not _defines(prompt, entry_point):
        return f"the prompt no longer shows the signature of {entry_point}"
    return None


def _arity(source: str, name: str) -> int | None:
    tree = _parse(source)
    if tree is None:
        return None
    defs = [
        node
        for node in tree.body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == name
    ]
    if not defs:
        return None
    args = defs[-1].args
    return len(args.posonlyargs) + len(args.args) + (1 if args.vararg else 0)


def template_text(slugs: Sequence[str]) -> list[str]:
    """The template sentences of the given slugs (for docs and reviews)."""
    by_slug = {template.slug: template.text for template in TEMPLATES}
    return [by_slug[slug] for slug in slugs]
