"""Seed inputs proposed by an LLM: the request, and a literal-only reading of the answer.

Mutation stays close to the inputs it starts from; an LLM that reads the
description proposes inputs mutation would not reach (an empty list where the
task allows one, a string of one repeated letter, a prime where only composites
were tested).  The request shows the signature with the inferred types, the
description and a few existing inputs, and asks for one input per line.

The answer is model output and is read as data, never run: every value goes
through ``json.loads`` or ``ast.literal_eval`` (which accept literals only:
numbers, strings, bytes, ``True``/``False``/``None``, lists, tuples, dicts,
sets), and a call ``f(1, 2)`` is read by parsing it with ``ast`` and
literal-evaluating each argument node.  ``__import__('os').system(...)`` is
therefore text that fails to parse as a literal, and is dropped.

What is accepted, per line or per fenced block (prose around is ignored):

- the argument list as a JSON array or a Python literal, ``[[1, 2], 3]``;
- for a one-parameter function, the bare argument, ``[1, 2]`` or ``"abc"``;
- a call of the entry point, ``f([1, 2], 3)`` (also inside ``assert f(...) == ...``,
  ``print(f(...))`` or ``Solution().f(...)``), keywords mapped to parameter names;
- an object naming the parameters, ``{"nums": [1, 2], "k": 3}``;
- a single JSON array holding several argument lists.

An argument list is kept only when its arity fits and each argument is
admitted by the inferred type of its position after the conversions a JSON
answer needs (a list where a tuple or set is expected, an ``int`` where a
``float`` is, a digit string as an ``int`` dict key).  Anything else (a wider
type, an item where only empty lists were ever seen) is dropped: the inferred
types are the only evidence of what the reference accepts, and the mutation
engine relies on every seed being admitted by them.

``stdin`` problems ask for each input as a JSON string on one line; a text is
kept when each of its lines that an observed line position covers has a type
that position admits (ints accepted where floats were seen).
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Sequence
from typing import Any

from benchmorph.data.models import Problem
from benchmorph.testgen.mutation import input_key
from benchmorph.testgen.types import (
    FLOAT,
    DictT,
    FixedTupleT,
    FrozenSetT,
    ListT,
    SetT,
    Signature,
    TypeExpr,
    UnionT,
    VarTupleT,
    admits,
    line_value,
)

__all__ = ["MAX_ANSWER_CHARS", "MAX_LINE_CHARS", "parse_seed_inputs", "seed_input_prompt"]

MAX_LINE_CHARS = 20_000  # a longer line is not read (ast on deep nesting costs memory and stack)
MAX_ANSWER_CHARS = 400_000  # an answer is read up to here
SHOWN_INPUTS = 5  # existing inputs shown in the request
SHOWN_CHARS = 300  # an existing input longer than this (as a literal) is not shown

_FUNCTION_REQUEST = """You write test inputs for a programming problem.

Problem:
```python
{prompt}
```

The function under test, with parameter types inferred from its current tests:
    {signature}

Some inputs it is already tested on, one argument list per line:
{existing}

Write {n} NEW inputs that are valid for this problem and different from those above. Cover corner \
cases and variety: the smallest and empty inputs where the description allows them, single elements, \
duplicates, negative numbers and zero where allowed, boundary values, long and unusual values. Every \
input must satisfy what the description requires of its arguments.

Reply with one input per line, each the list of the {arity} argument(s) as a Python literal, like the \
lines above. Use only literals (numbers, strings, True, False, None, lists, tuples, dicts, sets); no \
variables, calls or comments."""

_STDIN_REQUEST = """You write test inputs for a programming problem that reads standard input.

Problem:
~~~~
{prompt}
~~~~

Input lines seen in its current tests, with the types of their tokens:
{signature}

Some inputs it is already tested on, one per line, each the whole standard input as a JSON string:
{existing}

Write {n} NEW inputs that are valid for this problem and different from those above. Cover corner \
cases and variety: the smallest inputs the statement allows, boundary values, repeated values, long \
inputs. Every input must follow the input format of the statement exactly.

Reply with one input per line, each the whole standard input as a JSON string (newlines written as \\n), \
like the lines above; nothing else."""


def _shown(existing: Sequence[Any], render: Any) -> str:
    lines = []
    for value in existing:
        try:
            text = render(value)
        except (TypeError, ValueError, RecursionError):
            continue
        if len(text) <= SHOWN_CHARS:
            lines.append(text)
        if len(lines) == SHOWN_INPUTS:
            break
    return "\n".join(lines) if lines else "(none)"


def seed_input_prompt(problem: Problem, sig: Signature, existing: Sequence[Any], n: int) -> str:
    """The request for ``n`` new inputs of ``problem``: description, typed signature, existing inputs.

    ``existing`` holds test inputs as ``TestCase.input`` does (argument lists,
    or texts for ``stdin``); the first few short ones are shown.
    """
    if sig.kind == "stdin":
        return _STDIN_REQUEST.format(
            prompt=problem.prompt.strip("\n"),
            signature=sig.render() or "(no lines)",
            existing=_shown(existing, lambda value: json.dumps(value, ensure_ascii=False)),
            n=n,
        )
    return _FUNCTION_REQUEST.format(
        prompt=problem.prompt.strip("\n"),
        signature=sig.render(),
        existing=_shown(existing, lambda value: repr(list(value))),
        n=n,
        arity=sig.arity,
    )


# --------------------------------------------------------------------------- reading the answer

_FENCE = re.compile(r"^\s*(```|~~~)")
# A list marker, a prompt or a label before the input ("- ", "3. ", ">>> ", "Input 2: "); a marker needs
# the space after it, so "-5" and "1.5" stay numbers.
_BULLET = re.compile(r"^\s*(?:(?:[-*•]|\d{1,3}[.)])\s+|>>>\s*|(?:input|args?)\s*\d*\s*:\s*)", re.IGNORECASE)


class _Reject(Exception):
    """A value that no conversion makes admitted."""


def parse_seed_inputs(text: str, sig: Signature) -> list[Any]:
    """The inputs in an LLM answer that fit ``sig``, in answer order, without duplicates.

    Returns test inputs as ``TestCase.input`` holds them: argument lists for
    ``function`` and ``method`` problems, input texts for ``stdin`` ones.
    Nothing in ``text`` is executed (see the module docstring).
    """
    found: list[Any] = []
    seen: set[str] = set()
    for segment in _segments(text[:MAX_ANSWER_CHARS]):
        values = _read_segment(segment, sig)
        for value in values:
            key = input_key(value)
            if key not in seen:
                seen.add(key)
                found.append(value)
    return found


def _segments(text: str) -> list[str]:
    """Fenced blocks and the text between them, in order."""
    segments: list[str] = []
    current: list[str] = []
    for line in text.splitlines():
        if _FENCE.match(line):
            segments.append("\n".join(current))
            current = []
        else:
            current.append(line)
    segments.append("\n".join(current))
    return [segment for segment in segments if segment.strip()]


def _read_segment(segment: str, sig: Signature) -> list[Any]:
    """A whole segment that is one literal (a multi-line JSON array), else line by line."""
    if "\n" in segment.strip():
        whole = _literal(segment.strip())
        if whole is not _NOTHING:
            inputs = _interpret(whole, sig)
            if inputs:
                return inputs
    found: list[Any] = []
    for line in segment.splitlines():
        found.extend(_read_line(line, sig))
    return found


_NOTHING = object()


def _literal(text: str) -> Any:
    """``text`` as a JSON value or a Python literal, or ``_NOTHING``."""
    if not text or len(text) > MAX_ANSWER_CHARS:
        return _NOTHING
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        pass
    try:
        return ast.literal_eval(text)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return _NOTHING


def _read_line(line: str, sig: Signature) -> list[Any]:
    stripped = _BULLET.sub("", line.strip(), count=1).strip().rstrip(",;").strip()
    if not stripped or len(stripped) > MAX_LINE_CHARS:
        return []
    value = _literal(stripped)
    if value is not _NOTHING:
        return _interpret(value, sig)
    if sig.kind != "stdin" and sig.entry_point and sig.entry_point in stripped:
        args = _call_arguments(stripped, sig)
        if args is not None:
            converted = _fit_args(args, sig)
            return [converted] if converted is not None else []
    return []


def _call_arguments(line: str, sig: Signature) -> list[Any] | None:
    """The literal arguments of the first call of the entry point in ``line``, or None.

    The line is parsed, not run; each argument must be a literal, keywords are
    placed by parameter name, and ``*``/``**`` unpacking is refused.
    """
    try:
        tree = ast.parse(line)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    names = sig.names
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = (
            func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
        )
        if name != sig.entry_point:
            continue
        if any(isinstance(arg, ast.Starred) for arg in node.args):
            return None
        try:
            args = [ast.literal_eval(arg) for arg in node.args]
            by_name = {keyword.arg: ast.literal_eval(keyword.value) for keyword in node.keywords}
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            return None
        if None in by_name or not set(by_name) <= set(names[len(args) :]):
            return None  # **kwargs, an unknown name, or a position given twice
        count = len(args) + len(by_name)
        if any(names[index] not in by_name for index in range(len(args), count)):
            return None  # a keyword past a missing positional argument
        return args + [by_name[names[index]] for index in range(len(args), count)]
    return None


def _interpret(value: Any, sig: Signature) -> list[Any]:
    """What a parsed value holds: one input, several, or none that fit."""
    if sig.kind == "stdin":
        texts = [value] if isinstance(value, str) else value if isinstance(value, list) else []
        return [text for item in texts if (text := _fit_stdin(item, sig)) is not None]
    single = _single_args(value, sig)
    if single is not None:
        return [single]
    if isinstance(value, list | tuple):
        return [args for item in value if (args := _single_args(item, sig)) is not None]
    return []


def _single_args(value: Any, sig: Signature) -> list[Any] | None:
    """``value`` read as one argument list: the list itself, a named object, or the lone argument."""
    if isinstance(value, list | tuple):
        fitted = _fit_args(list(value), sig)
        if fitted is not None:
            return fitted
    if isinstance(value, dict) and value and all(isinstance(key, str) for key in value):
        names = sig.names
        if set(value) <= set(names):
            count = max(names.index(key) for key in value) + 1
            if all(names[index] in value for index in range(count)):
                fitted = _fit_args([value[names[index]] for index in range(count)], sig)
                if fitted is not None:
                    return fitted
    if sig.arity == 1 or (sig.required <= 1 <= sig.arity):
        return _fit_args([value], sig)
    return None


def _fit_args(args: list[Any], sig: Signature) -> list[Any] | None:
    if not sig.required <= len(args) <= sig.arity:
        return None
    try:
        return [_convert(value, t) for value, (_, t) in zip(args, sig.params, strict=False)]
    except (_Reject, TypeError, RecursionError):
        return None


_DIGITS = re.compile(r"[+-]?\d{1,30}")


def _convert(value: Any, t: TypeExpr) -> Any:
    """``value`` made admitted by ``t`` with the conversions a JSON answer needs, or ``_Reject``."""
    if admits(t, value):
        return value
    if isinstance(t, UnionT):
        for option in t.options:
            try:
                return _convert(value, option)
            except (_Reject, TypeError):
                continue
        raise _Reject
    if t == FLOAT and type(value) is int:
        return float(value)
    if isinstance(t, ListT) and type(value) in (list, tuple):
        return [_convert(item, t.item) for item in value]
    if isinstance(t, VarTupleT) and type(value) in (list, tuple):
        return tuple(_convert(item, t.item) for item in value)
    if isinstance(t, FixedTupleT) and type(value) in (list, tuple) and len(value) == len(t.items):
        return tuple(_convert(item, item_type) for item, item_type in zip(value, t.items, strict=True))
    if isinstance(t, SetT | FrozenSetT) and type(value) in (list, tuple, set, frozenset):
        items = {_convert(item, t.item) for item in value}
        return frozenset(items) if isinstance(t, FrozenSetT) else items
    if isinstance(t, DictT) and type(value) is dict:
        return {_convert_key(key, t.key): _convert(item, t.value) for key, item in value.items()}
    raise _Reject


def _convert_key(key: Any, t: TypeExpr) -> Any:
    """A dict key; JSON object keys are strings, so ``"3"`` becomes ``3`` where only int keys fit."""
    if type(key) is str and not admits(t, key) and _DIGITS.fullmatch(key) and admits(t, int(key)):
        return int(key)
    return _convert(key, t)


def _fit_stdin(value: Any, sig: Signature) -> str | None:
    if not isinstance(value, str):
        return None
    text = value if not value or value.endswith("\n") else value + "\n"
    if not text and sig.line_counts[0] > 0:
        return None
    for index, line in enumerate(text.splitlines()[: len(sig.lines)]):
        if not admits(sig.lines[index], line_value(line), numeric_widening=True):
            return None
    return text
