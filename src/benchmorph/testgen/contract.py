"""A problem's input contract checked on the host, so inputs it rejects never cost a sandbox job.

EvalPlus contracts are a few ``assert`` lines over the parameters (types,
bounds, a loop over a string's characters).  Most mutated candidates that fail
one fail it in the first line, and sending them to the sandbox costs a round
trip each batch for nothing.  Running the contract's text on the host with
``exec`` would be running benchmark data outside the sandbox, which nothing
else here does; so only contracts written in a small, closed subset of Python
are compiled, and compiled so that they can do nothing but compute a verdict:

- statements: ``assert``, ``if``, ``for``, ``pass``, assignments to plain
  names, and helper functions (``def`` with plain parameters, ``return``);
  expressions: constants, names, comparisons, boolean and arithmetic
  operators, subscripts and slices, list/tuple/set/dict displays and
  comprehensions, conditional expressions, ``lambda``;
- names are the entry point's parameters, the contract's own locals, or a
  fixed list of pure builtins (``isinstance``, ``len``, ``all``, ``type`` with
  one argument, ``range`` ...); a name the reference binds itself (an import,
  a helper, a global) makes the contract ineligible, since in the sandbox that
  binding would be the one used;
- a method call is allowed only on a value whose type is exactly a builtin
  container or ``str`` and only for a listed pure method (``isdigit``,
  ``split``, ``keys`` ...); no other attribute is reachable;
- growth is bounded: every loop and comprehension step and every call of a
  helper or lambda is counted (:data:`MAX_STEPS` per check), and ``+``, ``*``, ``**``, ``<<`` and
  ``str.replace`` refuse results past :data:`MAX_ITEMS` items or digits
  before computing them; ``%`` on a string (a format) is refused.

Anything outside the subset (``try``, ``raise``, ``re``, ``hasattr``, an
attribute that is not a listed method) leaves the whole contract to the
sandbox.  A check answers ``False`` only when
one of the contract's own asserts fails; an exception of any other kind, or a
refused operation, answers ``None`` (undecided) and the sandbox decides, as
before.  So the host never rejects an input the sandbox would have accepted:
``tests/testgen/test_contract_precheck.py`` holds every HumanEval+ and MBPP+
contract to that.
"""

from __future__ import annotations

import ast
import textwrap
import warnings
from collections.abc import Callable
from typing import Any

from benchmorph.data.models import Problem

__all__ = ["MAX_ITEMS", "MAX_STEPS", "ContractCheck", "contract_check"]

MAX_STEPS = 100_000
MAX_ITEMS = 1_000_000


class _Reject(Exception):
    """One of the contract's asserts failed."""


class _Undecided(Exception):
    """The check went past a bound, or asked for something it may not do: the sandbox decides."""


def _type(value: Any) -> type:
    return type(value)  # one argument only: type(name, bases, dict) builds classes


def _range(*args: int) -> range:
    made = range(*args)
    if len(made) > MAX_ITEMS:
        raise _Undecided
    return made


SAFE_BUILTINS: dict[str, Any] = {
    "abs": abs, "all": all, "any": any, "bool": bool, "chr": chr, "complex": complex, "dict": dict,
    "enumerate": enumerate, "filter": filter, "float": float, "frozenset": frozenset, "int": int, "isinstance": isinstance,
    "len": len, "list": list, "map": map, "max": max, "min": min, "ord": ord, "range": _range, "reversed": reversed,
    "round": round, "set": set, "sorted": sorted, "str": str, "sum": sum, "tuple": tuple, "type": _type,
    "zip": zip,
}  # fmt: skip

_STR_METHODS = frozenset(
    "isdigit isalpha isalnum isspace islower isupper isnumeric isdecimal istitle isascii startswith "
    "endswith count find index lower upper strip lstrip rstrip split replace".split()
)
SAFE_METHODS: dict[type, frozenset[str]] = {
    str: _STR_METHODS,
    list: frozenset({"count", "index"}),
    tuple: frozenset({"count", "index"}),
    dict: frozenset({"keys", "values", "items", "get"}),
    set: frozenset({"issubset", "issuperset", "isdisjoint"}),
    frozenset: frozenset({"issubset", "issuperset", "isdisjoint"}),
}
_SEQUENCES = (str, bytes, list, tuple)


def _method(obj: Any, name: str, *args: Any, **kwargs: Any) -> Any:
    allowed = SAFE_METHODS.get(type(obj))
    if allowed is None or name not in allowed:
        raise _Undecided
    if name == "replace":
        old, new = (list(args) + [None, None])[:2]
        if not isinstance(old, str) or not isinstance(new, str) or not old or kwargs or len(args) != 2:
            raise _Undecided
        if len(obj) + obj.count(old) * max(0, len(new) - len(old)) > MAX_ITEMS:
            raise _Undecided
    return getattr(obj, name)(*args, **kwargs)


def _size(value: Any) -> int:
    """Items of a sequence, or bits of an int: what an operator's result grows with."""
    if isinstance(value, _SEQUENCES):
        return len(value)
    if isinstance(value, int):
        return abs(value).bit_length()
    return 0


def _binop(op: str, left: Any, right: Any) -> Any:
    if op == "add":
        if _size(left) + _size(right) > MAX_ITEMS:
            raise _Undecided
        return left + right
    if op == "mul":
        if isinstance(left, int) and isinstance(right, _SEQUENCES):
            left, right = right, left
        if isinstance(left, _SEQUENCES) and isinstance(right, int):
            if len(left) * max(right, 0) > MAX_ITEMS:
                raise _Undecided
        elif _size(left) + _size(right) > MAX_ITEMS:
            raise _Undecided
        return left * right
    if op == "pow":
        if isinstance(left, int) and isinstance(right, int) and right > 0:
            if max(_size(left), 1) * right > MAX_ITEMS:
                raise _Undecided
        return left**right
    if op == "lshift":
        if isinstance(right, int) and right > MAX_ITEMS:
            raise _Undecided
        return left << right
    if op == "mod":
        if isinstance(left, (str, bytes)):
            raise _Undecided  # a format string: '%999999999d' % 1
        return left % right
    raise _Undecided


_GUARDED_OPS: dict[type, str] = {
    ast.Add: "add",
    ast.Mult: "mul",
    ast.Pow: "pow",
    ast.LShift: "lshift",
    ast.Mod: "mod",
}
_PLAIN_OPS = (ast.Sub, ast.Div, ast.FloorDiv, ast.RShift, ast.BitOr, ast.BitAnd, ast.BitXor)
_ALLOWED = (
    ast.Module, ast.Assert, ast.If, ast.For, ast.Pass, ast.Assign, ast.AugAssign, ast.Expr,
    ast.Constant, ast.Name, ast.Load, ast.Store, ast.BoolOp, ast.And, ast.Or, ast.UnaryOp, ast.Not,
    ast.USub, ast.UAdd, ast.Invert, ast.BinOp, ast.Compare, ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt,
    ast.GtE, ast.In, ast.NotIn, ast.Is, ast.IsNot, ast.Call, ast.Attribute, ast.keyword, ast.Subscript,
    ast.Slice, ast.List, ast.Tuple, ast.Set, ast.Dict, ast.ListComp, ast.SetComp, ast.DictComp,
    ast.GeneratorExp, ast.comprehension, ast.IfExp, ast.Lambda, ast.FunctionDef, ast.Return,
    ast.arguments, ast.arg, *_PLAIN_OPS, *_GUARDED_OPS,
)  # fmt: skip
_KEYWORDS = frozenset({"key", "reverse", "default", "start"})


def _eligible(tree: ast.Module, params: set[str], taken: set[str]) -> bool:
    """Whether every node of the contract is in the subset, and every name it reads is known."""
    bound = set(params)
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            bound.add(node.id)
        elif isinstance(node, ast.FunctionDef):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
    for node in ast.walk(tree):
        if not isinstance(node, _ALLOWED):
            return False
        if isinstance(node, ast.arguments):
            if node.posonlyargs or node.vararg or node.kwonlyargs or node.kwarg or node.defaults:
                return False  # plain positional parameters only
        if isinstance(node, (ast.FunctionDef, ast.arg)):
            name = node.name if isinstance(node, ast.FunctionDef) else node.arg
            if name.startswith("_") or (isinstance(node, ast.FunctionDef) and node.decorator_list):
                return False
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.For, ast.comprehension)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                names = target.elts if isinstance(target, ast.Tuple) else [target]
                if not all(isinstance(name, ast.Name) for name in names):
                    return False  # x[0] = ..., obj.a = ...: the contract may only bind names
        if isinstance(node, (ast.For, ast.comprehension)) and getattr(node, "is_async", False):
            return False
        if isinstance(node, ast.For) and node.orelse:
            return False
        if isinstance(node, ast.Name):
            if node.id.startswith("_"):
                return False
            if node.id not in bound and (node.id not in SAFE_BUILTINS or node.id in taken):
                return False
        if isinstance(node, ast.Attribute):
            if node.attr.startswith("_") or not any(node.attr in names for names in SAFE_METHODS.values()):
                return False
        if isinstance(node, ast.Call):
            if not isinstance(node.func, (ast.Name, ast.Attribute)):
                return False
            if any(keyword.arg not in _KEYWORDS for keyword in node.keywords):
                return False
            if any(isinstance(arg, ast.Starred) for arg in node.args):
                return False
    # An attribute is only ever the function of a call (no `x.real`, no bound method kept).
    called = {id(node.func) for node in ast.walk(tree) if isinstance(node, ast.Call)}
    return all(id(node) in called for node in ast.walk(tree) if isinstance(node, ast.Attribute))


class _Guard(ast.NodeTransformer):
    """Route the operators and method calls that can grow or reach out through the helpers; count steps."""

    def visit_Assert(self, node: ast.Assert) -> ast.AST:
        test = self.visit(node.test)
        fail = ast.Raise(exc=ast.Call(ast.Name("_bm_reject", ast.Load()), [], []), cause=None)
        return ast.If(test=ast.UnaryOp(ast.Not(), test), body=[fail], orelse=[])

    def visit_BinOp(self, node: ast.BinOp) -> ast.AST:
        self.generic_visit(node)
        op = _GUARDED_OPS.get(type(node.op))
        if op is None:
            return node
        return ast.Call(ast.Name("_bm_binop", ast.Load()), [ast.Constant(op), node.left, node.right], [])

    def visit_AugAssign(self, node: ast.AugAssign) -> ast.AST:
        self.generic_visit(node)
        assert isinstance(node.target, ast.Name)
        read = ast.Name(node.target.id, ast.Load())
        value = self.visit_BinOp(ast.BinOp(read, node.op, node.value))
        assert isinstance(value, ast.expr)
        return ast.Assign(targets=[node.target], value=value)

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.func, ast.Attribute):
            args = [node.func.value, ast.Constant(node.func.attr), *node.args]
            return ast.Call(ast.Name("_bm_method", ast.Load()), args, node.keywords)
        return node

    def visit_For(self, node: ast.For) -> ast.AST:
        self.generic_visit(node)
        node.body.insert(0, ast.Expr(_tick()))
        return node

    def visit_comprehension(self, node: ast.comprehension) -> ast.AST:
        self.generic_visit(node)
        node.ifs.insert(0, _tick())
        return node

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        self.generic_visit(node)
        node.body.insert(0, ast.Expr(_tick()))  # recursion without a loop is counted too
        return node

    def visit_Lambda(self, node: ast.Lambda) -> ast.AST:
        self.generic_visit(node)
        node.body = ast.BoolOp(ast.And(), [_tick(), node.body])  # tick() is True: the body's value
        return node


def _tick() -> ast.Call:
    return ast.Call(ast.Name("_bm_tick", ast.Load()), [], [])


def _bound_names(tree: ast.Module) -> set[str]:
    """Every name the reference's module binds anywhere (imports, helpers, globals, locals)."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
    return names


class ContractCheck:
    """A compiled contract: ``check(args)`` is False (an assert fails), True (all hold) or None (undecided)."""

    def __init__(self, function: Callable[..., bool], arity: int) -> None:
        self._function = function
        self.arity = arity

    def __call__(self, args: Any) -> bool | None:
        if not isinstance(args, list) or len(args) != self.arity:
            return None
        steps = [0]

        def tick() -> bool:
            steps[0] += 1
            if steps[0] > MAX_STEPS:
                raise _Undecided
            return True

        try:
            self._function(tick, *args)  # a contract's `return` ends it: the input passed
            return True
        except _Reject:
            return False
        except Exception:  # noqa: BLE001 - anything but a failed assert is the sandbox's to judge
            return None


def contract_check(problem: Problem) -> ContractCheck | None:
    """The problem's contract compiled for the host, or None when it has none or is outside the subset."""
    if not problem.contract or not problem.contract.strip() or problem.kind != "function":
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter(
                "ignore"
            )  # benchmark code is full of "\d" in plain strings: not ours to warn
            tree = ast.parse(textwrap.dedent(problem.contract.strip("\r\n")))
            reference = ast.parse(problem.reference)
    except (SyntaxError, ValueError):
        return None
    function = next(
        (
            node
            for node in ast.walk(reference)
            if isinstance(node, ast.FunctionDef) and node.name == problem.entry_point
        ),
        None,
    )
    if function is None:
        return None
    spec = function.args
    if spec.posonlyargs or spec.vararg or spec.kwonlyargs or spec.kwarg or spec.defaults:
        return None  # defaults are code of the reference's; positional parameters only
    params = [arg.arg for arg in spec.args]
    if any(name.startswith("_") for name in params):
        return None
    if not tree.body or not _eligible(tree, set(params), _bound_names(reference) - set(params)):
        return None
    body = [_Guard().visit(statement) for statement in tree.body]
    arguments = ast.arguments(
        posonlyargs=[],
        args=[ast.arg("_bm_tick"), *(ast.arg(name) for name in params)],
        vararg=None,
        kwonlyargs=[],
        kw_defaults=[],
        kwarg=None,
        defaults=[],
    )
    definition = ast.FunctionDef(
        name="_bm_contract",
        args=arguments,
        body=[*body, ast.Return(ast.Constant(True))],
        decorator_list=[],
        returns=None,
        type_comment=None,
    )
    module = ast.fix_missing_locations(ast.Module(body=[definition], type_ignores=[]))
    namespace: dict[str, Any] = {
        "__builtins__": {},
        **SAFE_BUILTINS,
        "_bm_reject": _Reject,
        "_bm_binop": _binop,
        "_bm_method": _method,
    }
    try:
        exec(compile(module, "<contract>", "exec"), namespace)  # noqa: S102 - the subset above only
    except Exception:  # noqa: BLE001 - a contract that does not compile stays the sandbox's
        return None
    return ContractCheck(namespace["_bm_contract"], len(params))
