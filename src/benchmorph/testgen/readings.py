"""Reading mutants: the reference as another careful reader of its description might have written it.

A description leaves constructs open that its reference settles one way: is
``y`` a vowel, does ``-12`` have the digit sum 3 or 1, which of two equally
long words is "the longest", does "positions" count from 0 or 1, is the
bound included, do halves round up or to even, does "unique" mean distinct
or occurring once, what does the empty input give.  Each reading operator
here makes the one small change to the reference that the other reading
would (add ``y`` to a vowel set, ``n = abs(n)`` before a digit loop, the
last of the tied items instead of the first, ...), so that running it on the
tests shows whether they decide the question.  Whether the description has
the words that decide it is for ``validation.audit.readings`` to say: this
module only knows code.

Like the classic mutants (``testgen.mutants``) a reading is made at one site
of the entry point (nested helpers included), and adding an operator is one
entry in :data:`OPERATORS` and a branch of :func:`_apply`; the readings the
audit probes grow with this list.
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Iterator
from dataclasses import dataclass

from benchmorph.testgen.mutants import Mutant

# Operator -> what the changed code does, in words (for a finding's evidence).
OPERATORS: dict[str, str] = {
    "letters-add-y": "y counts as a vowel",
    "letters-drop-y": "y is not a vowel",
    "letters-add-upper": "upper-case vowels count too",
    "digits-abs": "a negative number's digits are those of its absolute value",
    "tie-last": "the last of several equally good items is the answer",
    "tie-first-find": "the first occurrence is the answer",
    "tie-last-index": "the last occurrence is the answer",
    "tie-later": "the later of equally good candidates wins",
    "tie-earlier": "the earlier of equally good candidates wins",
    "sort-ties-reversed": "items that sort equal come in reverse of their original order",
    "sort-ties-stable": "items that sort equal keep their original order",
    "index-from-1": "positions count from 1 (the first item is at position 1)",
    "index-from-0": "positions count from 0 (the first item is at position 0)",
    "bound-include": "the bound is included",
    "bound-exclude": "the bound is excluded",
    "round-half-up": "halves round up (2.5 to 3), not to the even neighbour",
    "distinct-once": "only items occurring exactly once count, not every distinct item",
    "once-distinct": "every distinct item counts, not only those occurring once",
    "empty-general": "the empty input follows the general rule (no special case)",
    "number-floats": "floats count as numbers too",
    "number-no-bools": "booleans are not numbers",
}

_VOWELS = frozenset("aeiou")
_TIE_CALLS = ("max", "min")


@dataclass(frozen=True)
class Site:
    """One place a reading operator applies: the operator, the node (by walk order) and what it needs."""

    operator: str
    index: int  # position of the node in ``ast.walk`` order of the module
    argument: object = None  # what _apply needs (a parameter name, a position)
    detail: str = ""  # what the audit needs to find the construct in the words (a name, a constant, "vowel")


def _entry(tree: ast.Module, entry_point: str) -> ast.FunctionDef | None:
    found = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == entry_point]
    return found[-1] if found else None


def _letters(node: ast.AST) -> str | None:
    """The letters of a small constant letter set (``"aeiou"``, ``['a', 'e', ...]``) that is a vowel set."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        letters = node.value
    elif isinstance(node, ast.List | ast.Set | ast.Tuple) and all(
        isinstance(e, ast.Constant) and isinstance(e.value, str) and len(e.value) == 1 for e in node.elts
    ):
        letters = "".join(e.value for e in node.elts)  # type: ignore[attr-defined]
    else:
        return None
    if not 5 <= len(letters) <= 12 or not letters.isalpha():
        return None
    lower = set(letters.lower())
    return letters if _VOWELS <= lower <= _VOWELS | {"y"} else None


def _name(node: ast.AST | None) -> str | None:
    return node.id if isinstance(node, ast.Name) else None


def _keyword(call: ast.Call, name: str) -> ast.keyword | None:
    return next((k for k in call.keywords if k.arg == name), None)


def _digit_params(function: ast.FunctionDef) -> list[int]:
    """Parameters of ``function`` it takes digits of (``str(n)``, ``n % 10``, ``n // 10``, ``divmod(n, 10)``)."""
    names = [arg.arg for arg in function.args.args]
    used: set[str] = set()
    for node in ast.walk(function):
        if isinstance(node, ast.Call) and _name(node.func) in ("str", "divmod") and node.args:
            if _name(node.func) == "str" or (
                len(node.args) == 2 and isinstance(node.args[1], ast.Constant) and node.args[1].value == 10
            ):
                if (name := _name(node.args[0])) is not None:
                    used.add(name)
        elif (
            isinstance(node, ast.BinOp)
            and isinstance(node.op, ast.Mod | ast.FloorDiv)
            and isinstance(node.right, ast.Constant)
            and node.right.value == 10
            and (name := _name(node.left)) is not None
        ):
            used.add(name)
    return [position for position, name in enumerate(names) if name in used]


def _index_names(function: ast.FunctionDef) -> set[str]:
    """Loop variables that hold positions: ``for i in range(len(x))``, ``for i, _ in enumerate(x)``."""
    found: set[str] = set()
    for node in ast.walk(function):
        if not isinstance(node, ast.For | ast.comprehension) or not isinstance(node.iter, ast.Call):
            continue
        func = _name(node.iter.func)
        if func == "enumerate" and isinstance(node.target, ast.Tuple) and node.target.elts:
            if (name := _name(node.target.elts[0])) is not None:
                found.add(name)
        elif func == "range" and (name := _name(node.target)) is not None:
            args = node.iter.args
            if args and isinstance(args[-1 if len(args) < 3 else 1], ast.Call):
                inner = args[-1 if len(args) < 3 else 1]
                if _name(inner.func) == "len":  # type: ignore[attr-defined]
                    found.add(name)
    return found


def _parity_test(node: ast.Compare, indices: set[str]) -> bool:
    """``i % 2 == 0`` (or ``!= 1`` ...) on a position variable."""
    left = node.left
    return (
        len(node.ops) == 1
        and isinstance(node.ops[0], ast.Eq | ast.NotEq)
        and isinstance(left, ast.BinOp)
        and isinstance(left.op, ast.Mod)
        and _name(left.left) in indices
        and isinstance(left.right, ast.Constant)
        and left.right.value == 2
        and isinstance(node.comparators[0], ast.Constant)
        and node.comparators[0].value in (0, 1)
    )


def _parameter_bound(node: ast.AST, params: set[str]) -> str | None:
    """The parameter a range stop or comparison side is (``n``, ``n + 1``, ``n - 1``)."""
    if (name := _name(node)) in params:
        return name
    if (
        isinstance(node, ast.BinOp)
        and isinstance(node.op, ast.Add | ast.Sub)
        and _name(node.left) in params
        and isinstance(node.right, ast.Constant)
        and node.right.value == 1
    ):
        return _name(node.left)
    return None


def _empty_guard(statement: ast.stmt, params: set[str]) -> str | None:
    """The parameter of ``if not p: return ...`` / ``if len(p) == 0: return ...`` (no else)."""
    if not isinstance(statement, ast.If) or statement.orelse or len(statement.body) != 1:
        return None
    if not isinstance(statement.body[0], ast.Return):
        return None
    test = statement.test
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) and _name(test.operand) in params:
        return _name(test.operand)
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        left, right, op = test.left, test.comparators[0], test.ops[0]
        if (
            isinstance(left, ast.Call)
            and _name(left.func) == "len"
            and left.args
            and _name(left.args[0]) in params
            and isinstance(right, ast.Constant)
            and (
                (right.value == 0 and isinstance(op, ast.Eq)) or (right.value == 1 and isinstance(op, ast.Lt))
            )
        ):
            return _name(left.args[0])
        if (
            isinstance(op, ast.Eq)
            and _name(left) in params
            and (
                (isinstance(right, ast.List | ast.Tuple) and not right.elts)
                or (isinstance(right, ast.Constant) and right.value == "")
            )
        ):
            return _name(left)
    return None


def _is_docstring(statement: ast.stmt) -> bool:
    return (
        isinstance(statement, ast.Expr)
        and isinstance(statement.value, ast.Constant)
        and isinstance(statement.value.value, str)
    )


def sites(tree: ast.Module, entry_point: str) -> Iterator[Site]:
    """Every place a reading operator applies inside the entry point, in walk order."""
    function = _entry(tree, entry_point)
    if function is None:
        return
    params = {arg.arg for arg in function.args.args}
    indices = _index_names(function)
    inside = {id(node) for node in ast.walk(function)}
    parents = {id(child): node for node in ast.walk(function) for child in ast.iter_child_nodes(node)}
    for index, node in enumerate(ast.walk(tree)):
        if id(node) not in inside:
            continue
        letters = _letters(node)
        if letters is not None:
            yield Site("letters-drop-y" if "y" in letters.lower() else "letters-add-y", index, None, "vowel")
            if letters == letters.lower():
                yield Site("letters-add-upper", index, None, "vowel")
        if isinstance(node, ast.FunctionDef):
            for position in _digit_params(node):
                yield Site("digits-abs", index, position, "digit")
            if node is function:
                for position, statement in enumerate(node.body):
                    guarded = _empty_guard(statement, params)
                    if guarded is not None and len(node.body) > 1:
                        yield Site("empty-general", index, position, guarded)
        elif isinstance(node, ast.Call):
            func = _name(node.func)
            positional = [arg for arg in node.args if not isinstance(arg, ast.Starred)]
            if func in _TIE_CALLS and len(node.args) == 1 and len(positional) == 1 and _keyword(node, "key"):
                yield Site("tie-last", index, None, func or "")
            if isinstance(node.func, ast.Attribute) and len(node.args) == 1 and not node.keywords:
                if node.func.attr == "index":
                    yield Site("tie-last-index", index, None, "index")
                elif node.func.attr == "find":
                    yield Site("tie-last-index", index, None, "find")
                elif node.func.attr == "rfind":
                    yield Site("tie-first-find", index, None, "rfind")
            reverse = _keyword(node, "reverse")
            if (
                func == "sorted"
                and _keyword(node, "key")
                and reverse is not None
                and isinstance(reverse.value, ast.Constant)
                and reverse.value.value is True
            ):
                yield Site("sort-ties-reversed", index, None, "sort")
            if func == "enumerate" and len(node.args) in (1, 2) and not node.keywords:
                yield Site("index-from-1" if len(node.args) == 1 else "index-from-0", index, None, "position")
            if func == "range" and 1 <= len(node.args) <= 3:
                stop = node.args[0] if len(node.args) == 1 else node.args[1]
                step = node.args[2] if len(node.args) == 3 else None
                if step is None or (isinstance(step, ast.Constant) and step.value == 1):
                    bound = _parameter_bound(stop, params)
                    if bound is not None:
                        included = isinstance(stop, ast.BinOp) and isinstance(stop.op, ast.Add)
                        yield Site("bound-exclude" if included else "bound-include", index, "range", bound)
                if (
                    len(node.args) == 3
                    and isinstance(step, ast.Constant)
                    and step.value == 2
                    and isinstance(node.args[0], ast.Constant)
                    and node.args[0].value in (0, 1)
                ):
                    yield Site("index-from-1", index, None, "position")
            if func == "round" and len(node.args) == 1 and not node.keywords:
                yield Site("round-half-up", index, None, "round")
            if func == "set" and len(node.args) == 1 and not node.keywords and _consumed_whole(node, parents):
                yield Site("distinct-once", index, None, "distinct")
            if func == "isinstance" and len(node.args) == 2 and _name(node.args[1]) == "int":
                yield Site("number-floats", index, None, "number")
                yield Site("number-no-bools", index, None, "number")
        elif isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice):
            piece = node.slice
            if (
                isinstance(piece.step, ast.Constant)
                and piece.step.value == 2
                and piece.upper is None
                and (
                    piece.lower is None
                    or (isinstance(piece.lower, ast.Constant) and piece.lower.value in (0, 1))
                )
            ):
                yield Site("index-from-1", index, None, "position")
            if (
                isinstance(piece.step, ast.UnaryOp)
                and isinstance(piece.step.op, ast.USub)
                and isinstance(piece.step.operand, ast.Constant)
                and piece.step.operand.value == 1
                and piece.lower is None
                and piece.upper is None
                and isinstance(node.value, ast.Call)
                and _name(node.value.func) == "sorted"
                and _keyword(node.value, "key")
                and not _keyword(node.value, "reverse")
            ):
                yield Site("sort-ties-stable", index, None, "sort")
        elif isinstance(node, ast.Compare) and len(node.ops) == 1:
            op = node.ops[0]
            if _parity_test(node, indices):
                yield Site("index-from-1", index, None, "position")
            elif isinstance(op, ast.Eq) and _count_call(node.left) and _is_const(node.comparators[0], 1):
                yield Site("once-distinct", index, None, "distinct")
            elif isinstance(op, ast.Lt | ast.LtE | ast.Gt | ast.GtE):
                sides = (node.left, node.comparators[0])
                bound = next((b for side in sides if (b := _parameter_bound(side, params))), None)
                constant = next(
                    (s.value for s in sides if isinstance(s, ast.Constant) and type(s.value) is int), None
                )
                strict = isinstance(op, ast.Lt | ast.Gt)
                operator = "bound-include" if strict else "bound-exclude"
                if bound is not None:
                    yield Site(operator, index, "compare", bound)
                elif (
                    constant is not None
                    and constant not in (0, 1)
                    and not all(isinstance(s, ast.Constant) for s in sides)
                ):
                    yield Site(operator, index, "compare", str(constant))
        elif isinstance(node, ast.If) and _argbest(node):
            test = node.test
            assert isinstance(test, ast.Compare)
            strict = isinstance(test.ops[0], ast.Lt | ast.Gt)
            yield Site("tie-later" if strict else "tie-earlier", index, None, "best")


_WHOLE = ("len", "sum", "sorted", "list", "tuple", "max", "min")


def _consumed_whole(node: ast.AST, parents: dict[int, ast.AST]) -> bool:
    """``set(x)`` counted, summed, listed or returned as it is: "unique" then says which items of ``x``
    count.  A set that meets another (``set(a) & set(b)``, ``.intersection``) only drops repeats from a
    result: "sorted unique common elements" (HumanEval/58) has one reading."""
    parent = parents.get(id(node))
    if isinstance(parent, ast.Call) and _name(parent.func) in _WHOLE:
        return True
    return isinstance(parent, ast.Return | ast.comprehension | ast.For)


def _count_call(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "count"
        and len(node.args) == 1
    )


def _is_const(node: ast.AST, value: object) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) is type(value) and node.value == value


def _argbest(node: ast.If) -> bool:
    """``if candidate > best: best = candidate`` (assignments only, the compared name reassigned): a running best."""
    test = node.test
    if node.orelse or not isinstance(test, ast.Compare) or len(test.ops) != 1:
        return False
    if not isinstance(test.ops[0], ast.Lt | ast.LtE | ast.Gt | ast.GtE):
        return False
    if not node.body or not all(isinstance(s, ast.Assign) for s in node.body):
        return False
    assigned = {
        target.id
        for s in node.body
        if isinstance(s, ast.Assign)
        for target in s.targets
        if isinstance(target, ast.Name)
    }
    compared = {n.id for n in ast.walk(test) if isinstance(n, ast.Name)}
    # Two assignments: the best value and something that goes with it (its index, its item).
    return bool(assigned & compared) and len(node.body) >= 2


def _parse_expr(text: str, **holes: ast.expr) -> ast.expr:
    """An expression from ``text`` with each ``__NAME__`` replaced by ``holes[NAME]``."""
    tree = ast.parse(text, mode="eval").body

    class Fill(ast.NodeTransformer):
        def visit_Name(self, node: ast.Name) -> ast.AST:
            if node.id.startswith("__") and node.id.endswith("__") and node.id[2:-2] in holes:
                return copy.deepcopy(holes[node.id[2:-2]])
            return node

    return Fill().visit(tree)  # type: ignore[no-any-return]


def _apply(node: ast.AST, site: Site) -> None:
    """Make ``site``'s change to ``node`` in place (the node keeps its type, so its parent needs no edit)."""
    operator = site.operator
    if operator.startswith("letters-"):
        letters = _letters(node) or ""
        if operator == "letters-add-y":
            new = letters + ("yY" if letters != letters.lower() else "y")
        elif operator == "letters-drop-y":
            new = letters.replace("y", "").replace("Y", "")
        else:
            new = letters + letters.upper()
        if isinstance(node, ast.Constant):
            node.value = new
        else:
            node.elts = [ast.Constant(ch) for ch in new]  # type: ignore[attr-defined]
    elif operator == "digits-abs":
        assert isinstance(node, ast.FunctionDef) and isinstance(site.argument, int)
        name = node.args.args[site.argument].arg
        statement = ast.parse(f"{name} = abs({name})").body[0]
        at = 1 if node.body and _is_docstring(node.body[0]) else 0
        node.body.insert(at, statement)
    elif operator == "empty-general":
        assert isinstance(node, ast.FunctionDef) and isinstance(site.argument, int)
        del node.body[site.argument]
    elif operator == "tie-last":
        assert isinstance(node, ast.Call)
        node.args[0] = _parse_expr("list(__X__)[::-1]", X=node.args[0])
    elif operator == "tie-last-index":
        assert isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
        if node.func.attr == "find":
            node.func.attr = "rfind"
        else:
            owner, value = node.func.value, node.args[0]
            node.func = _parse_expr("lambda _s, _v: len(_s) - 1 - list(_s)[::-1].index(_v)")
            node.args = [owner, value]
    elif operator == "tie-first-find":
        assert isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
        node.func.attr = "find"
    elif operator in ("tie-later", "tie-earlier"):
        assert isinstance(node, ast.If) and isinstance(node.test, ast.Compare)
        flips: dict[type, type] = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt}
        node.test.ops[0] = flips[type(node.test.ops[0])]()
    elif operator == "sort-ties-reversed":
        assert isinstance(node, ast.Call)
        inner = ast.Call(
            func=node.func, args=node.args, keywords=[k for k in node.keywords if k.arg != "reverse"]
        )
        node.func, node.args, node.keywords = (
            ast.Name("list", ast.Load()),
            [ast.Call(ast.Name("reversed", ast.Load()), [inner], [])],
            [],
        )
    elif operator == "sort-ties-stable":
        assert isinstance(node, ast.Subscript) and isinstance(node.value, ast.Call)
        node.value.keywords.append(ast.keyword("reverse", ast.Constant(True)))
        node.slice = ast.Slice(None, None, None)
    elif operator in ("index-from-1", "index-from-0"):
        _shift_base(node)
    elif operator in ("bound-include", "bound-exclude"):
        _move_bound(node, site)
    elif operator == "round-half-up":
        assert isinstance(node, ast.Call)
        node.func = _parse_expr("__import__('math').floor")
        node.args = [ast.BinOp(node.args[0], ast.Add(), ast.Constant(0.5))]
    elif operator == "distinct-once":
        assert isinstance(node, ast.Call)
        node.args = [
            _parse_expr("(lambda _s: [_e for _e in _s if _s.count(_e) == 1])(list(__X__))", X=node.args[0])
        ]
    elif operator == "once-distinct":
        assert isinstance(node, ast.Compare)
        node.ops[0] = ast.GtE()
    elif operator == "number-floats":
        assert isinstance(node, ast.Call)
        node.args[1] = _parse_expr("(int, float)")
    elif operator == "number-no-bools":
        assert isinstance(node, ast.Call)
        node.func = _parse_expr("lambda _v, _t: isinstance(_v, _t) and not isinstance(_v, bool)")


def _shift_base(node: ast.AST) -> None:
    """0-based positions become 1-based and the other way round, at one site."""
    if isinstance(node, ast.Call) and _name(node.func) == "enumerate":
        if len(node.args) == 1:
            node.args.append(ast.Constant(1))
        else:
            node.args = node.args[:1]
    elif isinstance(node, ast.Call):  # range(0|1, stop, 2)
        first = node.args[0]
        assert isinstance(first, ast.Constant) and isinstance(first.value, int)
        node.args[0] = ast.Constant(1 - first.value)
    elif isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice):
        lower = node.slice.lower
        starts_at_one = isinstance(lower, ast.Constant) and lower.value == 1
        node.slice.lower = None if starts_at_one else ast.Constant(1)
    elif isinstance(node, ast.Compare):
        constant = node.comparators[0]
        assert isinstance(constant, ast.Constant) and isinstance(constant.value, int)
        node.comparators[0] = ast.Constant(1 - constant.value)


def _move_bound(node: ast.AST, site: Site) -> None:
    """Include a bound the reference excludes, or the other way round: ``range(n)`` / ``range(n + 1)``, ``<`` / ``<=``."""
    if site.argument == "range":
        assert isinstance(node, ast.Call)
        position = 0 if len(node.args) == 1 else 1
        stop = node.args[position]
        if isinstance(stop, ast.BinOp) and isinstance(stop.right, ast.Constant) and stop.right.value == 1:
            node.args[position] = (
                stop.left
                if isinstance(stop.op, ast.Add)
                else ast.BinOp(stop.left, ast.Add(), ast.Constant(0))
            )
        else:
            node.args[position] = ast.BinOp(stop, ast.Add(), ast.Constant(1))
        return
    assert isinstance(node, ast.Compare)
    flips: dict[type, type] = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt}
    node.ops[0] = flips[type(node.ops[0])]()


def reading_mutants(code: str, entry_point: str) -> list[Mutant]:
    """Every distinct reading mutant of ``code``: one operator at one site each, in site order.

    ``Mutant.operator`` names the reading (a key of :data:`OPERATORS`),
    ``Mutant.site`` the node, and ``Mutant.detail`` what the words must
    mention for the reading to be about them (a parameter, a constant, or a
    construct: ``vowel``, ``digit``, ``max``, ``position``, ``round`` ...).
    """
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return []
    original = ast.unparse(tree)
    seen = {original}
    found: list[Mutant] = []
    for site in list(sites(tree, entry_point)):
        clone = copy.deepcopy(tree)
        node = next(n for i, n in enumerate(ast.walk(clone)) if i == site.index)
        _apply(node, site)
        try:
            text = ast.unparse(ast.fix_missing_locations(clone))
            compile(text, "<reading>", "exec")
        except (SyntaxError, ValueError, TypeError):
            continue
        if text in seen:
            continue
        seen.add(text)
        found.append(Mutant(code=text, operator=site.operator, site=site.index, detail=site.detail))
    return found
