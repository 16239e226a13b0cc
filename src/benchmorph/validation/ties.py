"""Counting ties at an edited min/max or sort: how often several different values are equally extreme.

``max(words, key=len)`` on ``["ab", "cd"]`` returns ``"ab"`` because it comes
first, a fact the description may never state.  A parent that takes the
longest word may rarely meet such ties on its tests, while its counterfactual
that takes the shortest meets them on most.  This module builds a probe of a
reference: the same code with the edited call wrapped so that it counts the
calls where more than one *different* item ties for the result, and an entry
point that returns that count.  Running the probe on the tests (through the
engine, in the sandbox) gives the ties per test; the ``ties`` quality check
compares parent and variant.
"""

from __future__ import annotations

import ast
from typing import Any, cast

from benchmorph.data.models import Problem, TestCase
from benchmorph.validation.edits import node_offsets, node_span, parse

_HELPERS = """
_bm_ties = [0]


def _bm_tie_count(items, key):
    groups = {}
    for item in items:
        groups.setdefault(repr(key(item)), set()).add(repr(item))
    return groups


def _bm_extreme(function, *args, **kwargs):
    if len(args) == 1:
        try:
            items = list(args[0])
        except TypeError:
            return function(*args, **kwargs)
        result = function(items, **kwargs)
    else:
        items = list(args)
        result = function(*items, **kwargs)
    if items:
        key = kwargs.get("key") or (lambda item: item)
        best = repr(key(result))
        if len({repr(item) for item in items if repr(key(item)) == best}) > 1:
            _bm_ties[0] += 1
    return result


def _bm_sorted(function, iterable, *args, **kwargs):
    items = list(iterable)
    key = kwargs.get("key") or (lambda item: item)
    if any(len(group) > 1 for group in _bm_tie_count(items, key).values()):
        _bm_ties[0] += 1
    return function(items, *args, **kwargs)


def _bm_sort(target, *args, **kwargs):
    key = kwargs.get("key") or (lambda item: item)
    if any(len(group) > 1 for group in _bm_tie_count(list(target), key).values()):
        _bm_ties[0] += 1
    return target.sort(*args, **kwargs)
"""

_ENTRY = """

_bm_entry = {entry}
_bm_depth = [0]


def {entry}(*args, **kwargs):
    _bm_depth[0] += 1
    try:
        if _bm_depth[0] == 1:
            _bm_ties[0] = 0
        _bm_entry(*args, **kwargs)
        return _bm_ties[0]
    finally:
        _bm_depth[0] -= 1
"""


class _Wrap(ast.NodeTransformer):
    """Wrap the one call node (found by identity) so that it counts ties."""

    def __init__(self, target: ast.Call) -> None:
        self.target = target

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        if node is not self.target:
            return node
        func = node.func
        if isinstance(func, ast.Name) and func.id in ("min", "max"):
            helper, first = "_bm_extreme", [cast(ast.expr, ast.Name(func.id, ast.Load()))]
        elif isinstance(func, ast.Name) and func.id == "sorted":
            helper, first = "_bm_sorted", [cast(ast.expr, ast.Name("sorted", ast.Load()))]
        elif isinstance(func, ast.Attribute) and func.attr == "sort":
            helper, first = "_bm_sort", [func.value]
        else:
            return node
        return ast.copy_location(
            ast.Call(ast.Name(helper, ast.Load()), [*first, *node.args], node.keywords), node
        )


def tie_able(node: ast.AST) -> bool:
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    return (isinstance(func, ast.Name) and func.id in ("min", "max", "sorted")) or (
        isinstance(func, ast.Attribute) and func.attr == "sort"
    )


def _edited_call(reference: str, tree: ast.Module, span: tuple[int, int]) -> ast.Call | None:
    """The innermost min/max/sorted/.sort call around the edited span (the edit may be its key or argument)."""
    starts = node_offsets(reference)
    best: tuple[int, ast.Call] | None = None
    for node in ast.walk(tree):
        if not tie_able(node) or not isinstance(node, ast.Call):
            continue
        where = node_span(reference, node, starts)
        if where is None or not (where[0] <= span[0] and span[1] <= where[1]):
            continue
        if best is None or where[1] - where[0] < best[0]:
            best = (where[1] - where[0], node)
    return best[1] if best else None


def tie_probe(problem: Problem, span: tuple[int, int], probe_id: str) -> Problem | None:
    """A copy of ``problem`` whose entry point returns how many edited calls met a tie (None: not a tie-able call).

    ``span`` is where the edited code sits in ``problem.reference``.
    """
    if problem.kind != "function" or not problem.entry_point:
        return None
    tree = parse(problem.reference)
    if tree is None:
        return None
    call = _edited_call(problem.reference, tree, span)
    if call is None:
        return None
    wrapped = ast.fix_missing_locations(_Wrap(call).visit(tree))
    code = _HELPERS + ast.unparse(wrapped) + _ENTRY.format(entry=problem.entry_point)
    return problem.model_copy(
        update={
            "id": probe_id,
            "reference": code,
            "contract": None,
            "oracle": None,
            "tests": [TestCase(input=test.input, origin=test.origin) for test in problem.tests],
        }
    )


def tests_with_ties(prepared_probe: Problem) -> int:
    """How many tests of a prepared probe met a tie at the edited call."""
    return sum(
        1
        for test in prepared_probe.tests
        if test.has_expected and type(test.expected) is int and test.expected > 0
    )


def tied_inputs(prepared_probe: Problem) -> list[Any]:
    """The inputs of a prepared probe's tests that met a tie at the edited call."""
    return [
        test.input
        for test in prepared_probe.tests
        if test.has_expected and type(test.expected) is int and test.expected > 0
    ]
