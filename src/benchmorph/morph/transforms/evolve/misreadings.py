"""Misreadings of a rounding rule, as mutants: ``math.ceil(x)`` read as truncation, or left out.

The classic mutation operators (``testgen.mutants``) swap operators and
constants; none models a reader who truncates where the text says "round
up", which is how a reviewed combined problem was passed by a wrong solution
(HumanEval/133 + 39: "round each element to the upper int(Ceiling) first",
and no test reached a positive fraction).  Each call of a rounding function
on one argument in the entry point gives two mutants: the call as ``int``
(truncation) and the argument alone.
"""

from __future__ import annotations

import ast
import copy

from benchmorph.testgen.mutants import Mutant

ROUNDING = {"ceil", "floor", "round", "trunc", "int"}


def _name(call: ast.Call) -> str | None:
    func = call.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "math":
        return func.attr
    return None


def _calls(tree: ast.AST, entry_point: str) -> list[ast.Call]:
    entry = next(
        (n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == entry_point), None
    )
    if entry is None:
        return []
    return [
        node
        for node in ast.walk(entry)
        if isinstance(node, ast.Call)
        and _name(node) in ROUNDING
        and len(node.args) == 1
        and not node.keywords
    ]


class _Replace(ast.NodeTransformer):
    def __init__(self, site: int, entry_point: str, with_int: bool) -> None:
        self.site, self.entry_point, self.with_int = site, entry_point, with_int

    def rewrite(self, tree: ast.Module) -> ast.Module:
        target = _calls(tree, self.entry_point)[self.site]
        argument = target.args[0]
        replacement: ast.expr = (
            ast.Call(func=ast.Name(id="int", ctx=ast.Load()), args=[argument], keywords=[])
            if self.with_int
            else argument
        )
        for node in ast.walk(tree):
            for field, value in ast.iter_fields(node):
                if value is target:
                    setattr(node, field, replacement)
                elif isinstance(value, list):
                    for index, item in enumerate(value):
                        if item is target:
                            value[index] = replacement
        return tree


def misreadings(code: str, entry_point: str) -> list[Mutant]:
    """The rounding misreadings of ``code``'s entry point (none where it rounds nothing)."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return []
    found: list[Mutant] = []
    seen = {ast.unparse(tree)}
    for site, call in enumerate(_calls(tree, entry_point)):
        for with_int in (True, False):
            if with_int and _name(call) == "int":
                continue
            clone = _Replace(site, entry_point, with_int).rewrite(copy.deepcopy(tree))
            text = ast.unparse(ast.fix_missing_locations(clone))
            if text not in seen:
                seen.add(text)
                found.append(Mutant(text, "truncate-rounding" if with_int else "drop-rounding", site))
    return found
