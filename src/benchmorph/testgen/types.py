"""Sound type inference over observed test values: the types a problem's inputs actually have.

Test generation (mutation, LLM seed inputs) and the metamorphic and evolve
transforms need to know what a parameter holds.  The only trustworthy source is
the inputs themselves: a type hint in the prompt may be missing or wrong, and a
docstring is prose.  So a type here is the *join* of observed values and never
claims more than was seen:

- scalars are exact Python classes: ``bool`` is not ``int``, ``int`` is not
  ``float`` (a parameter that saw both is ``int | float``);
- ``list[T]``, ``set[T]``, ``frozenset[T]``, ``dict[K, V]`` join their items;
  a container only ever seen empty has the unknown item type ``Any``
  (``list[Any]``), which admits no item at all, since none was observed;
- tuples of one length join position by position (``tuple[int, str]``); tuples
  of different lengths become the variadic ``tuple[T, ...]`` with ``T`` the join
  of every item.  A union of one tuple type per length would be more precise,
  but MBPP's many ``test_tup`` parameters (one length per test) would turn into
  unions of a dozen shapes that help nobody;
- positions that disagree become unions (``int | str``); a union holds at most
  one member per constructor (two list types join into one ``list[A | B]``), so
  a value belongs to exactly one branch;
- a value of any other class (rare: a custom object) is named by its class and
  admitted only by that exact class.

A type prints as Python spells it (``dict[str, list[int]]``, ``int | None``) and
that string is also its JSON form (:meth:`TypeExpr.to_json`,
:func:`TypeExpr.from_json`), so it can be stored in provenance and read back.

:func:`infer_signature` (alias :func:`infer_types`) types a whole problem:
parameter names from the reference's AST, one type per argument position, or,
for ``stdin`` problems, one type per input line (see :class:`Signature`).
"""

from __future__ import annotations

import ast
import math
import re
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from benchmorph.data.models import Problem

__all__ = [
    "ANY",
    "BOOL",
    "BYTES",
    "COMPLEX",
    "FLOAT",
    "INT",
    "NONE",
    "STR",
    "DictT",
    "FixedTupleT",
    "FrozenSetT",
    "ListT",
    "Nothing",
    "Prim",
    "SetT",
    "Signature",
    "TypeExpr",
    "TypeParseError",
    "UnionT",
    "VarTupleT",
    "admits",
    "infer_signature",
    "infer_type",
    "infer_types",
    "join",
    "line_value",
    "parse_token",
    "stdin_line_values",
    "type_of",
]


class TypeParseError(ValueError):
    """A stored type string that is not one this module writes."""


class TypeExpr:
    """Base of every type; concrete types are frozen, hashable dataclasses."""

    def to_json(self) -> str:
        """The JSON form: the type's string, e.g. ``"dict[str, list[int]]"``."""
        return str(self)

    @staticmethod
    def from_json(data: str) -> TypeExpr:
        """Read back what :meth:`to_json` wrote."""
        return parse_type(data)

    def members(self) -> tuple[TypeExpr, ...]:
        """The branches of a union; a non-union type is its own only branch."""
        return (self,)


@dataclass(frozen=True)
class Nothing(TypeExpr):
    """The item type of containers only ever seen empty: nothing observed, nothing admitted."""

    def __str__(self) -> str:
        return "Any"


@dataclass(frozen=True)
class Prim(TypeExpr):
    """A scalar class by name: ``int``, ``float``, ``bool``, ``str``, ``None``, ``complex``,
    ``bytes``, or any other class name seen (admitted only by that exact class)."""

    name: str

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class ListT(TypeExpr):
    item: TypeExpr

    def __str__(self) -> str:
        return f"list[{self.item}]"


@dataclass(frozen=True)
class SetT(TypeExpr):
    item: TypeExpr

    def __str__(self) -> str:
        return f"set[{self.item}]"


@dataclass(frozen=True)
class FrozenSetT(TypeExpr):
    item: TypeExpr

    def __str__(self) -> str:
        return f"frozenset[{self.item}]"


@dataclass(frozen=True)
class FixedTupleT(TypeExpr):
    """Tuples of one length, typed per position; ``tuple[()]`` is the empty tuple."""

    items: tuple[TypeExpr, ...]

    def __str__(self) -> str:
        if not self.items:
            return "tuple[()]"
        return "tuple[" + ", ".join(str(item) for item in self.items) + "]"


@dataclass(frozen=True)
class VarTupleT(TypeExpr):
    """Tuples seen with several lengths: ``tuple[T, ...]``."""

    item: TypeExpr

    def __str__(self) -> str:
        return f"tuple[{self.item}, ...]"


@dataclass(frozen=True)
class DictT(TypeExpr):
    key: TypeExpr
    value: TypeExpr

    def __str__(self) -> str:
        return f"dict[{self.key}, {self.value}]"


@dataclass(frozen=True)
class UnionT(TypeExpr):
    """Two or more branches with different constructors, in a canonical order."""

    options: tuple[TypeExpr, ...]

    def __str__(self) -> str:
        return " | ".join(str(option) for option in self.options)

    def members(self) -> tuple[TypeExpr, ...]:
        return self.options


ANY = Nothing()
INT = Prim("int")
FLOAT = Prim("float")
BOOL = Prim("bool")
STR = Prim("str")
NONE = Prim("None")
COMPLEX = Prim("complex")
BYTES = Prim("bytes")

_PRIM_OF_CLASS: dict[type, Prim] = {
    int: INT,
    float: FLOAT,
    bool: BOOL,
    str: STR,
    type(None): NONE,
    complex: COMPLEX,
    bytes: BYTES,
}
_CLASS_OF_PRIM: dict[str, type] = {prim.name: cls for cls, prim in _PRIM_OF_CLASS.items()}
# Canonical order of union branches: scalars as people write them, None last among scalars.
_PRIM_RANK = {"bool": 0, "int": 1, "float": 2, "complex": 3, "str": 4, "bytes": 5}
_NONE_RANK = 50


def _constructor(t: TypeExpr) -> str:
    """The branch slot a type occupies in a union: one per constructor (tuples share one)."""
    if isinstance(t, Prim):
        return "prim:" + t.name
    if isinstance(t, FixedTupleT | VarTupleT):
        return "tuple"
    return type(t).__name__


def _rank(t: TypeExpr) -> tuple[int, str]:
    if isinstance(t, Prim):
        if t.name == "None":
            return (_NONE_RANK, "")
        return (_PRIM_RANK.get(t.name, 10), t.name)
    order = {ListT: 20, FixedTupleT: 21, VarTupleT: 21, DictT: 22, SetT: 23, FrozenSetT: 24}
    return (order.get(type(t), 30), "")


# --------------------------------------------------------------------------- join


def join(a: TypeExpr, b: TypeExpr) -> TypeExpr:
    """The least type (in this lattice) that admits everything ``a`` or ``b`` admits."""
    if a == b:
        return a
    if isinstance(a, Nothing):
        return b
    if isinstance(b, Nothing):
        return a
    if isinstance(a, UnionT) or isinstance(b, UnionT):
        return _union(list(a.members()) + list(b.members()))
    if _constructor(a) != _constructor(b):
        return _union([a, b])
    return _join_same(a, b)


def _join_same(a: TypeExpr, b: TypeExpr) -> TypeExpr:
    """Join two types of the same constructor (never two different scalars)."""
    if isinstance(a, ListT) and isinstance(b, ListT):
        return ListT(join(a.item, b.item))
    if isinstance(a, SetT) and isinstance(b, SetT):
        return SetT(join(a.item, b.item))
    if isinstance(a, FrozenSetT) and isinstance(b, FrozenSetT):
        return FrozenSetT(join(a.item, b.item))
    if isinstance(a, DictT) and isinstance(b, DictT):
        return DictT(join(a.key, b.key), join(a.value, b.value))
    if isinstance(a, FixedTupleT) and isinstance(b, FixedTupleT) and len(a.items) == len(b.items):
        return FixedTupleT(tuple(join(x, y) for x, y in zip(a.items, b.items, strict=True)))
    if isinstance(a, FixedTupleT | VarTupleT) and isinstance(b, FixedTupleT | VarTupleT):
        return VarTupleT(join(_tuple_items(a), _tuple_items(b)))
    raise AssertionError(f"cannot join {a} and {b}")  # same constructor covers every case above


def _tuple_items(t: FixedTupleT | VarTupleT) -> TypeExpr:
    if isinstance(t, VarTupleT):
        return t.item
    result: TypeExpr = ANY
    for item in t.items:
        result = join(result, item)
    return result


def _union(options: list[TypeExpr]) -> TypeExpr:
    slots: dict[str, TypeExpr] = {}
    for option in options:
        if isinstance(option, Nothing):
            continue
        slot = _constructor(option)
        slots[slot] = _join_same(slots[slot], option) if slot in slots and slots[slot] != option else option
    ordered = tuple(sorted(slots.values(), key=_rank))
    if not ordered:
        return ANY
    if len(ordered) == 1:
        return ordered[0]
    return UnionT(ordered)


# --------------------------------------------------------------------------- type of a value


def type_of(value: Any) -> TypeExpr:
    """The exact type of one value (containers join their items)."""
    cls = type(value)
    prim = _PRIM_OF_CLASS.get(cls)
    if prim is not None:
        return prim
    if cls is list:
        return ListT(_join_items(value))
    if cls is tuple:
        return FixedTupleT(tuple(type_of(item) for item in value))
    if cls is set:
        return SetT(_join_items(value))
    if cls is frozenset:
        return FrozenSetT(_join_items(value))
    if cls is dict:
        return DictT(_join_items(value.keys()), _join_items(value.values()))
    return Prim(cls.__name__)


def _join_items(items: Iterable[Any]) -> TypeExpr:
    result: TypeExpr = ANY
    last_class: type | None = None
    for item in items:
        cls = type(item)
        # Fast path for the common homogeneous scalar list: one join per class change.
        if cls is last_class and cls in _PRIM_OF_CLASS:
            continue
        last_class = cls
        result = join(result, type_of(item))
    return result


def infer_type(values: Iterable[Any]) -> TypeExpr:
    """The join of the types of ``values``: sound for every one of them (``Any`` when none)."""
    result: TypeExpr = ANY
    for value in values:
        result = join(result, type_of(value))
    return result


# --------------------------------------------------------------------------- admits


def admits(t: TypeExpr, value: Any, *, numeric_widening: bool = False) -> bool:
    """Whether ``value`` is of type ``t``.

    With ``numeric_widening`` an ``int`` (not a ``bool``) is also admitted where
    ``float`` is expected and an int or float where ``complex`` is, the
    widening Python itself performs; inference never relies on it.
    """
    if isinstance(t, UnionT):
        return any(admits(option, value, numeric_widening=numeric_widening) for option in t.options)
    if isinstance(t, Nothing):
        return False
    cls = type(value)
    if isinstance(t, Prim):
        expected = _CLASS_OF_PRIM.get(t.name)
        if expected is None:
            return cls.__name__ == t.name and cls not in _PRIM_OF_CLASS and cls not in _CONTAINERS
        if cls is expected:
            return True
        if numeric_widening:
            return (expected is float and cls is int) or (expected is complex and cls in (int, float))
        return False
    if isinstance(t, ListT):
        return cls is list and all(admits(t.item, item, numeric_widening=numeric_widening) for item in value)
    if isinstance(t, SetT):
        return cls is set and all(admits(t.item, item, numeric_widening=numeric_widening) for item in value)
    if isinstance(t, FrozenSetT):
        return cls is frozenset and all(
            admits(t.item, item, numeric_widening=numeric_widening) for item in value
        )
    if isinstance(t, FixedTupleT):
        return (
            cls is tuple
            and len(value) == len(t.items)
            and all(
                admits(item_type, item, numeric_widening=numeric_widening)
                for item_type, item in zip(t.items, value, strict=True)
            )
        )
    if isinstance(t, VarTupleT):
        return cls is tuple and all(admits(t.item, item, numeric_widening=numeric_widening) for item in value)
    if isinstance(t, DictT):
        return cls is dict and all(
            admits(t.key, key, numeric_widening=numeric_widening)
            and admits(t.value, item, numeric_widening=numeric_widening)
            for key, item in value.items()
        )
    return False


_CONTAINERS = (list, tuple, set, frozenset, dict)


def branch_of(t: TypeExpr, value: Any) -> TypeExpr | None:
    """The union branch of ``t`` that admits ``value`` (``t`` itself for a non-union), or None."""
    for option in t.members():
        if admits(option, value):
            return option
    return None


# --------------------------------------------------------------------------- the string form

_TOKEN = re.compile(r"\s*(\.\.\.|\(\)|[A-Za-z_][A-Za-z0-9_.]*|[\[\],|])")


def parse_type(text: str) -> TypeExpr:
    """Parse a type string written by ``str(TypeExpr)``; raises :class:`TypeParseError`."""
    tokens: list[str] = []
    position = 0
    stripped = text.rstrip()
    while position < len(stripped):
        match = _TOKEN.match(stripped, position)
        if match is None:
            raise TypeParseError(f"bad type {text!r}: unexpected text at {position}")
        tokens.append(match.group(1))
        position = match.end()
    parser = _Parser(tokens, text)
    result = parser.union()
    if parser.index != len(tokens):
        raise TypeParseError(f"bad type {text!r}: trailing {' '.join(tokens[parser.index :])!r}")
    return result


@dataclass
class _Parser:
    tokens: list[str]
    text: str
    index: int = 0
    _GENERIC: ClassVar[dict[str, int]] = {"list": 1, "set": 1, "frozenset": 1, "dict": 2}

    def peek(self) -> str | None:
        return self.tokens[self.index] if self.index < len(self.tokens) else None

    def take(self, expected: str | None = None) -> str:
        token = self.peek()
        if token is None or (expected is not None and token != expected):
            raise TypeParseError(f"bad type {self.text!r}: expected {expected or 'a type'}, got {token!r}")
        self.index += 1
        return token

    def union(self) -> TypeExpr:
        options = [self.atom()]
        while self.peek() == "|":
            self.take("|")
            options.append(self.atom())
        if len(options) == 1:
            return options[0]
        result: TypeExpr = ANY
        for option in options:
            result = join(result, option)
        return result

    def atom(self) -> TypeExpr:
        name = self.take()
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.]*", name):
            raise TypeParseError(f"bad type {self.text!r}: unexpected {name!r}")
        if name == "Any":
            return ANY
        if name == "tuple":
            return self.tuple_args()
        if name in self._GENERIC:
            self.take("[")
            args = [self.union()]
            while self.peek() == ",":
                self.take(",")
                args.append(self.union())
            self.take("]")
            if len(args) != self._GENERIC[name]:
                raise TypeParseError(
                    f"bad type {self.text!r}: {name} takes {self._GENERIC[name]} argument(s)"
                )
            if name == "list":
                return ListT(args[0])
            if name == "set":
                return SetT(args[0])
            if name == "frozenset":
                return FrozenSetT(args[0])
            return DictT(args[0], args[1])
        return Prim(name)

    def tuple_args(self) -> TypeExpr:
        self.take("[")
        if self.peek() == "()":
            self.take("()")
            self.take("]")
            return FixedTupleT(())
        items = [self.union()]
        while self.peek() == ",":
            self.take(",")
            if self.peek() == "...":
                self.take("...")
                self.take("]")
                if len(items) != 1:
                    raise TypeParseError(f"bad type {self.text!r}: tuple[T, ...] takes one item type")
                return VarTupleT(items[0])
            items.append(self.union())
        self.take("]")
        return FixedTupleT(tuple(items))


# --------------------------------------------------------------------------- stdin lines

_INT_TOKEN = re.compile(r"[+-]?\d+")


def parse_token(token: str) -> int | float | str:
    """A whitespace-free stdin token as the value a solution would read: int, finite float or str."""
    if _INT_TOKEN.fullmatch(token) and len(token) <= 4000:
        return int(token)
    try:
        number = float(token)
    except ValueError:
        return token
    # "nan", "inf" and "infinity" are words far more often than numbers in stdin tasks.
    return number if math.isfinite(number) else token


def line_value(line: str) -> Any:
    """A stdin line as a value: its one token parsed, or the list of its tokens when it has 0 or 2+."""
    tokens = [parse_token(token) for token in line.split()]
    return tokens[0] if len(tokens) == 1 else tokens


def stdin_line_values(text: str) -> list[Any]:
    """Every line of a stdin input as a value (see :func:`line_value`)."""
    return [line_value(line) for line in text.splitlines()]


# --------------------------------------------------------------------------- signatures


@dataclass(frozen=True)
class Signature:
    """What a problem's inputs look like.

    ``function`` and ``method`` problems: ``params`` holds one ``(name, type)``
    per argument position, names from the reference's ``def`` (``self``
    skipped for methods; ``arg{i}`` where the reference has no usable def, or
    for arguments past its named parameters), types joined over every test;
    ``required`` is the fewest arguments any test passes (positions past it
    were left to defaults by some tests, their types joined over the tests
    that pass them).

    ``stdin`` problems: ``lines[i]`` is the join over the tests of line ``i``
    of the input, each line read as :func:`line_value` does (one token: the
    token as int, finite float or str; none or several: a list of them, so
    ``"1 2 3"`` is ``list[int]`` and ``"7"`` is ``int``); ``line_counts``
    the fewest and most lines seen.  ``params`` is empty.
    """

    kind: str
    entry_point: str
    params: list[tuple[str, TypeExpr]] = field(default_factory=list)
    required: int = 0
    lines: list[TypeExpr] = field(default_factory=list)
    line_counts: tuple[int, int] = (0, 0)

    @property
    def arity(self) -> int:
        return len(self.params)

    @property
    def names(self) -> list[str]:
        return [name for name, _ in self.params]

    @property
    def types(self) -> list[TypeExpr]:
        return [t for _, t in self.params]

    def admits_args(self, args: Sequence[Any], *, numeric_widening: bool = False) -> bool:
        """Whether an argument list fits: arity between ``required`` and ``arity``, every argument
        admitted by its position's type."""
        if not self.required <= len(args) <= self.arity:
            return False
        return all(
            admits(t, value, numeric_widening=numeric_widening)
            for (_, t), value in zip(self.params, args, strict=False)
        )

    def render(self) -> str:
        """``def name(a: list[int], b: int)``, or for stdin one line per observed input line."""
        if self.kind == "stdin":
            return "\n".join(f"line {i + 1}: {t}" for i, t in enumerate(self.lines))
        params = ", ".join(f"{name}: {t}" for name, t in self.params)
        return f"def {self.entry_point or 'f'}({params})"

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "entry_point": self.entry_point,
            "params": [[name, t.to_json()] for name, t in self.params],
            "required": self.required,
            "lines": [t.to_json() for t in self.lines],
            "line_counts": list(self.line_counts),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Signature:
        return cls(
            kind=data["kind"],
            entry_point=data.get("entry_point", ""),
            params=[(name, parse_type(t)) for name, t in data.get("params", [])],
            required=int(data.get("required", 0)),
            lines=[parse_type(t) for t in data.get("lines", [])],
            line_counts=tuple(data.get("line_counts", (0, 0))),  # type: ignore[arg-type]
        )


def param_names(problem: Problem) -> list[str] | None:
    """Positional parameter names of the entry point in the reference, or None if not found.

    ``function``: the last top-level ``def`` named ``entry_point`` (a later one
    wins at import, as it does here); ``method``: that method of ``class Solution``
    without its first parameter (``self``).  A ``*args`` parameter is named
    ``args`` for the positions it takes; the caller numbers them.
    """
    try:
        with warnings.catch_warnings():
            # MBPP references hold "\w" in plain strings; that is theirs to fix, not ours to report.
            warnings.simplefilter("ignore", SyntaxWarning)
            warnings.simplefilter("ignore", DeprecationWarning)
            tree = ast.parse(problem.reference)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    body: list[ast.stmt] = tree.body
    if problem.kind == "method":
        classes = [node for node in body if isinstance(node, ast.ClassDef) and node.name == "Solution"]
        if not classes:
            return None
        body = classes[-1].body
    defs = [
        node
        for node in body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == problem.entry_point
    ]
    if not defs:
        return None
    arguments = defs[-1].args
    names = [arg.arg for arg in arguments.posonlyargs + arguments.args]
    if problem.kind == "method" and names:
        decorators = {getattr(d, "id", None) for d in defs[-1].decorator_list}
        if "staticmethod" not in decorators:
            names = names[1:]
    if arguments.vararg is not None:
        names.append("*" + arguments.vararg.arg)
    return names


def infer_signature(problem: Problem) -> Signature:
    """Type a problem's inputs from its tests (see :class:`Signature`); sound for every test."""
    if problem.kind == "stdin":
        lines: list[TypeExpr] = []
        counts: list[int] = []
        for test in problem.tests:
            text = test.input if isinstance(test.input, str) else str(test.input)
            values = stdin_line_values(text)
            counts.append(len(values))
            for index, value in enumerate(values):
                observed = type_of(value)
                if index < len(lines):
                    lines[index] = join(lines[index], observed)
                else:
                    lines.append(observed)
        return Signature(
            kind="stdin",
            entry_point=problem.entry_point,
            lines=lines,
            line_counts=(min(counts, default=0), max(counts, default=0)),
        )
    arg_lists = [
        list(test.input) if isinstance(test.input, list | tuple) else [test.input] for test in problem.tests
    ]
    arity = max((len(args) for args in arg_lists), default=0)
    types: list[TypeExpr] = [ANY] * arity
    for args in arg_lists:
        for index, value in enumerate(args):
            types[index] = join(types[index], type_of(value))
    names = _names_for(param_names(problem) or [], arity)
    return Signature(
        kind=problem.kind,
        entry_point=problem.entry_point,
        params=list(zip(names, types, strict=True)),
        required=min((len(args) for args in arg_lists), default=0),
    )


def _names_for(declared: list[str], arity: int) -> list[str]:
    names: list[str] = []
    star = next((name[1:] for name in declared if name.startswith("*")), None)
    plain = [name for name in declared if not name.startswith("*")]
    for index in range(arity):
        if index < len(plain):
            names.append(plain[index])
        elif star is not None:
            names.append(f"{star}{index - len(plain)}")
        else:
            names.append(f"arg{index}")
    seen: set[str] = set()
    unique = []
    for index, name in enumerate(names):
        unique.append(name if name not in seen else f"arg{index}")
        seen.add(unique[-1])
    return unique


infer_types = infer_signature
