"""EvoEval benchmarks (difficult, creative, subtle, combine, tool_use, verbose, concise) from their JSONL.

The release stores each task's test inputs as Python source text, one string
per call, holding the comma-separated arguments (``"[1, 2], 3"``), because
JSON would lose tuples.  The data layer never runs untrusted code, so those
strings are read with a small literal evaluator instead of ``eval``: literals,
containers, arithmetic and a few constructors such as ``float('inf')``.
Verbose and concise tasks instead carry EvalPlus-style ``base_input`` and
``plus_input`` argument lists; both shapes are accepted.

A task of a released set is an evolved variant (``transform="evolve"``, its
type as label and ``provenance.evolve_type``), so a run on it gets the same
report families and metrics as the sets ``benchmorph morph run evolve``
makes.  The type comes from the row's ``type``, else the named set or the
file name (``EvoEval_<type>*.jsonl[.gz]``); a file whose type cannot be told
loads as plain problems.  The HumanEval seed (``parent_id``,
``provenance.parents``) is told in this order:

- the row's ``parent`` field (EvoEval documents it as the HumanEval problem a
  task evolved from): every ``HumanEval/N`` it names;
- verbose and concise keep HumanEval's task ids and entry points
  (``HumanEval/N``; ``EvoEval/N`` is read the same way): the seed is
  ``HumanEval/N``;
- difficult and subtle number each task after its seed (``EvoEval/N`` from
  ``HumanEval/N``): in the published samples of these two sets every task
  we checked is a rewrite of the HumanEval problem of the same number, and
  EvoEval's own special-case oracles (difficult 10 and 32, subtle 32) are
  the palindrome and polynomial-root problems HumanEval/10 and /32 are;
- creative, combine and tool_use are numbered apart from their seeds
  (creative EvoEval/31 counts grid paths, HumanEval/31 tests primality), so
  without a ``parent`` field the seed is unknown: ``parent_id`` is empty,
  ``provenance.parents`` is ``[]`` and ``provenance.parent_from`` says
  ``unknown``; the metrics leave such a task out of every parent comparison
  rather than guess.
"""

from __future__ import annotations

import ast
import math
import operator
import re
from pathlib import Path
from typing import Any

from benchmorph.data.download import cached_download
from benchmorph.data.errors import InputError
from benchmorph.data.jsonl import check_unique_ids, first_record, read_jsonl, require
from benchmorph.data.models import Problem, TestCase, Variant
from benchmorph.data.registry import BenchmarkEntry, FormatEntry, register_benchmark, register_format

RELEASE_URL = "https://github.com/evo-eval/evoeval_release/releases/download"
RELEASE_VERSION = "v0.1.0"
# The released sets and their sizes (828 problems in all).
DATASETS = {
    "EvoEval_difficult": 100,
    "EvoEval_creative": 100,
    "EvoEval_subtle": 100,
    "EvoEval_combine": 100,
    "EvoEval_tool_use": 100,
    "EvoEval_verbose": 164,
    "EvoEval_concise": 164,
}
# The released types, as ``Variant.label`` and ``provenance.evolve_type`` name them.
EVOLVE_TYPES = tuple(name.split("_", 1)[1] for name in DATASETS)
# Sets whose task numbers are their HumanEval seeds' numbers (see the module docstring).
SEED_FROM_ID = frozenset({"difficult", "subtle", "verbose", "concise"})
HUMANEVAL_SIZE = 164
TRANSFORM = "evolve"
UNKNOWN_PARENT = ""  # parent_id of a task whose seed cannot be told
_FILE_TYPE = re.compile(
    r"^evoeval_(" + "|".join(sorted(EVOLVE_TYPES, key=len, reverse=True)) + r")(?![a-z])", re.IGNORECASE
)
_SEED = re.compile(r"HumanEval/(\d+)")
_NUMBERED = re.compile(r"^(?:EvoEval|HumanEval)/(\d+)$")
# EvoEval compares floats with this absolute tolerance (paper, evaluation details).
DEFAULT_ATOL = 1e-6
# Generous, but keeps a hostile data file from building a huge value via ``[0] * 10**12``.
MAX_ITEMS = 10_000_000
MAX_BITS = 1_000_000
_KNOWN_FIELDS = {
    "task_id",
    "prompt",
    "entry_point",
    "canonical_solution",
    "inputs",
    "base_input",
    "plus_input",
    "atol",
    "type",
}


class _NotLiteral(ValueError):
    """An input string uses something beyond literals and safe arithmetic."""


_BINOPS = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
_CONSTRUCTORS: dict[str, Any] = {
    "float": float,
    "int": int,
    "str": str,
    "bool": bool,
    "complex": complex,
    "tuple": tuple,
    "list": list,
    "set": set,
    "frozenset": frozenset,
    "dict": dict,
    "range": range,
}


def _size(value: Any) -> int:
    return len(value) if isinstance(value, (str, bytes, list, tuple)) else 0


def _binop(op: ast.operator, left: Any, right: Any) -> Any:
    if type(op) not in _BINOPS:
        raise _NotLiteral(f"operator {type(op).__name__} is not allowed")
    if isinstance(op, ast.Pow) and isinstance(left, int) and isinstance(right, int):
        if right > 0 and abs(left) > 1 and right * abs(left).bit_length() > MAX_BITS:
            raise _NotLiteral("power too large")
    if isinstance(op, ast.Mult):
        count = right if isinstance(right, int) else left if isinstance(left, int) else 1
        if isinstance(count, int) and max(_size(left), _size(right)) * abs(count) > MAX_ITEMS:
            raise _NotLiteral("sequence repetition too large")
    if isinstance(op, ast.Mod) and isinstance(left, str):
        raise _NotLiteral("string formatting is not allowed")
    return _BINOPS[type(op)](left, right)


def _literal(node: ast.AST) -> Any:
    """Evaluate a node that may only build values, never call arbitrary code."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.List):
        return [_literal(item) for item in node.elts]
    if isinstance(node, ast.Tuple):
        return tuple(_literal(item) for item in node.elts)
    if isinstance(node, ast.Set):
        return {_literal(item) for item in node.elts}
    if isinstance(node, ast.Dict):
        if any(key is None for key in node.keys):
            raise _NotLiteral("dict unpacking is not allowed")
        return {
            _literal(key): _literal(value)
            for key, value in zip(node.keys, node.values, strict=True)
            if key is not None
        }
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        operand = _literal(node.operand)
        return -operand if isinstance(node.op, ast.USub) else +operand
    if isinstance(node, ast.BinOp):
        return _binop(node.op, _literal(node.left), _literal(node.right))
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _CONSTRUCTORS:
        if node.keywords:
            raise _NotLiteral("keyword arguments are not allowed")
        args = [_literal(arg) for arg in node.args]
        if node.func.id == "range":
            span = range(*args)
            if len(span) > MAX_ITEMS:
                raise _NotLiteral("range too large")
            # A range reaches the solution as a list: the codec has no range type.
            return list(span)
        return _CONSTRUCTORS[node.func.id](*args)
    if isinstance(node, ast.Name) and node.id in {"inf", "nan"}:
        return math.inf if node.id == "inf" else math.nan
    raise _NotLiteral(f"{type(node).__name__} is not a literal")


def parse_arguments(text: str) -> list[Any]:
    """Turn EvoEval's ``"arg1, arg2"`` text into a list of argument values."""
    try:
        tree = ast.parse(f"[{text}\n]", mode="eval")
    except SyntaxError as exc:
        raise _NotLiteral(f"not valid Python: {exc.msg}") from None
    return _literal(tree.body)


def _function_defined(code: str, name: str) -> ast.Module | None:
    """The parsed code when it defines ``name`` at top level, else None."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return None
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
            return tree
    return None


def _without_stub(prompt: str, entry_point: str) -> str:
    """The prompt minus its entry-point stub, keeping imports and helper functions."""
    try:
        tree = ast.parse(prompt)
    except SyntaxError:
        return ""
    lines = prompt.splitlines(keepends=True)
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == entry_point:
            start = min([node.lineno] + [d.lineno for d in node.decorator_list]) - 1
            del lines[start : node.end_lineno]
            break
    return "".join(lines)


def build_reference(prompt: str, solution: str, entry_point: str) -> str:
    """A self-contained module: the prompt plus a body, or a full definition plus the prompt's helpers."""
    if _function_defined(solution, entry_point) is not None:
        prefix = _without_stub(prompt, entry_point).rstrip()
        return f"{prefix}\n\n\n{solution}" if prefix else solution
    joiner = "" if prompt.endswith("\n") else "\n"
    return prompt + joiner + solution


def _tests(row: dict[str, Any], *, path: Path, line: int) -> list[TestCase]:
    tests: list[TestCase] = []
    sources = [("inputs", "base")] if "inputs" in row else [("base_input", "base"), ("plus_input", "plus")]
    for field, origin in sources:
        if field not in row or row[field] is None:
            continue
        items = require(row, field, list, path=path, line=line)
        for number, item in enumerate(items):
            if isinstance(item, str):
                try:
                    args = parse_arguments(item)
                except (
                    _NotLiteral,
                    TypeError,
                    ValueError,
                    ZeroDivisionError,
                    OverflowError,
                    RecursionError,
                ) as exc:
                    raise InputError(
                        f"input {number} is not a literal argument list: {exc}",
                        path=path,
                        line=line,
                        field=field,
                    ) from None
            elif isinstance(item, list):
                args = item
            else:
                raise InputError(
                    f"input {number}: expected str or list, got {type(item).__name__}",
                    path=path,
                    line=line,
                    field=field,
                )
            tests.append(TestCase(input=args, origin=origin))
    return tests


def type_of_file(path: Path) -> str | None:
    """The EvoEval type a release file's name tells (``EvoEval_subtle-v0.1.0.jsonl.gz``: subtle), else None."""
    match = _FILE_TYPE.match(path.name)
    return match.group(1).lower() if match else None


def _row_type(row: dict[str, Any], *, path: Path, line: int) -> str | None:
    """The row's own ``type`` (``subtle`` or ``EvoEval_subtle``), None when it has none."""
    if row.get("type") is None:
        return None
    value = require(row, "type", str, path=path, line=line)
    name = value.strip().lower().removeprefix("evoeval_")
    if name not in EVOLVE_TYPES:
        raise InputError(
            f"unknown EvoEval type {value!r}; known: {', '.join(EVOLVE_TYPES)}",
            path=path,
            line=line,
            field="type",
        )
    return name


def _humaneval_id(number: str) -> str | None:
    return f"HumanEval/{int(number)}" if int(number) < HUMANEVAL_SIZE else None


def seed_parents(row: dict[str, Any], kind: str, *, path: Path, line: int) -> tuple[list[str], str]:
    """The HumanEval problem(s) a released task evolved from, and how they were told: row, task_id or unknown.

    The order and the evidence for each rule are in the module docstring.
    """
    named = row.get("parent")
    if named is not None:
        items = [named] if isinstance(named, str) else named
        if not isinstance(items, list) or not all(isinstance(item, str) for item in items):
            raise InputError(
                f"expected a HumanEval task id or a list of them, got {type(named).__name__}",
                path=path,
                line=line,
                field="parent",
            )
        seeds = [_humaneval_id(number) for item in items for number in _SEED.findall(item)]
        found = list(dict.fromkeys(seed for seed in seeds if seed is not None))
        return (found, "row") if found else ([], "unknown")
    match = _NUMBERED.match(str(row.get("task_id", "")))
    if kind in SEED_FROM_ID and match:
        seed = _humaneval_id(match.group(1))
        if seed is not None:
            return [seed], "task_id"
    return [], "unknown"


def as_variant(problem: Problem, kind: str, parents: list[str], parent_from: str) -> Variant:
    """A released task as an evolved variant of its seed(s), like the ones ``morph run evolve`` makes."""
    return Variant(
        **problem.model_dump(),
        parent_id=parents[0] if parents else UNKNOWN_PARENT,
        transform=TRANSFORM,
        label=kind,
        provenance={
            "evolve_type": kind,
            "generator": "evoeval",
            "parents": parents,
            "parent_from": parent_from,
        },
    )


def problem_from_row(row: dict[str, Any], *, path: Path, line: int, kind: str | None = None) -> Problem:
    """One released task: a plain problem, or an evolved variant when its type is known (the row's, else ``kind``)."""
    task_id = require(row, "task_id", str, path=path, line=line)
    prompt = require(row, "prompt", str, path=path, line=line)
    entry_point = require(row, "entry_point", str, path=path, line=line)
    solution = require(row, "canonical_solution", str, path=path, line=line)
    atol = row.get("atol", DEFAULT_ATOL)
    if isinstance(atol, bool) or not isinstance(atol, (int, float)):
        raise InputError(f"expected number, got {type(atol).__name__}", path=path, line=line, field="atol")
    reference = build_reference(prompt, solution, entry_point)
    try:
        ast.parse(reference)
    except SyntaxError as exc:
        raise InputError(
            f"prompt + solution is not valid Python: {exc.msg} (line {exc.lineno})",
            path=path,
            line=line,
            field="canonical_solution",
        ) from None
    extra = {key: value for key, value in row.items() if key not in _KNOWN_FIELDS}
    problem = Problem(
        id=task_id,
        kind="function",
        prompt=prompt,
        entry_point=entry_point,
        reference=reference,
        tests=_tests(row, path=path, line=line),
        atol=float(atol),
        source={"format": "evoeval", "file": path.name, **extra},
    )
    kind = _row_type(row, path=path, line=line) or kind
    if kind is None:
        return problem
    parents, parent_from = seed_parents(row, kind, path=path, line=line)
    return as_variant(problem, kind, parents, parent_from)


def read_evoeval(path: Path | None, kind: str | None = None) -> list[Problem]:
    """Load an EvoEval JSONL (or .jsonl.gz) file as released.

    ``kind``: the set's type when the caller knows it (a named set), else
    the file name tells it, else each row's ``type``, else plain problems.
    """
    if path is None:
        raise InputError(
            "EvoEval needs its data file: pass a release JSONL, or use a named set such as "
            "evoeval_difficult, which downloads it once"
        )
    path = Path(path)
    kind = kind or type_of_file(path)
    records = [
        (problem_from_row(row, path=path, line=line, kind=kind), line) for line, row in read_jsonl(path)
    ]
    check_unique_ids(((problem.id, line) for problem, line in records), path=path, field="task_id")
    problems = [problem for problem, _ in records]
    return problems


def is_evoeval(path: Path) -> bool:
    row = first_record(path)
    if row is None or "schema_version" in row:
        return False
    if not {"task_id", "prompt", "entry_point", "canonical_solution"} <= set(row):
        return False
    task_id = row.get("task_id")
    named = type_of_file(path) is not None  # EvoEval_verbose.jsonl: EvalPlus-shaped rows, EvoEval's set
    return named or "inputs" in row or (isinstance(task_id, str) and task_id.startswith("EvoEval/"))


def _release_loader(dataset: str):
    """Loader for one released EvoEval set: the user's file if given, else the cached official release."""

    kind = dataset.split("_", 1)[1]

    def load(data_path: Path | None) -> list[Problem]:
        if data_path is not None:
            return read_evoeval(data_path, kind)
        url = f"{RELEASE_URL}/{RELEASE_VERSION}/{dataset}.jsonl.gz"
        cached = cached_download(url, Path("evoeval") / f"{dataset}-{RELEASE_VERSION}.jsonl.gz", what=dataset)
        return read_evoeval(cached, kind)

    return load


register_format(FormatEntry(name="evoeval", detect=is_evoeval, loader=read_evoeval, priority=30))
register_benchmark(
    BenchmarkEntry(
        name="evoeval",
        loader=read_evoeval,
        description="EvoEval in any of its sets, from a local release JSONL given with --data",
        kinds=("function",),
        needs_data=True,
    )
)
for _dataset, _count in DATASETS.items():
    register_benchmark(
        BenchmarkEntry(
            name=_dataset.lower(),
            loader=_release_loader(_dataset),
            description=f"{_dataset}: HumanEval problems evolved by EvoEval ({_dataset.split('_', 1)[1]})",
            kinds=("function",),
            size=_count,
            needs_data=True,
        )
    )
