"""Offline ``tool_use``: the parent given as a helper, and a new problem whose natural solution calls it.

EvoEval's tool_use problems give helper functions in full and ask for a
problem those helpers make easier.  A reviewed offline set instead gave a
problem its parent had already posed (the parent's own helper handed over,
or a combined problem's first step given so that only the second parent's
problem was left, verbatim): a model that solved the parent passed by
construction.  Here the parent's reference is the helper, shown in full with
its own docstring (rewritten where it asks the reader to write it), and the
task extends it to a list of the parent's inputs:

- a yes/no parent becomes a **filter**: the items for which the helper
  says True, in their order;
- a parent returning a number becomes a **stable sort by it**: the items
  ordered by the helper's value, equal values keeping their order (and a
  test with such a tie where one can be made).

The helper does the part a model would otherwise have to write; what is
left is new.  The tests are lists of the parent's own inputs (each valid for
the helper by construction, never generated ones: ``_item_pool``), so no
two variants share them, and the
parent's reference, the items unchanged or in their natural order, and
(for filters) no items each fail at least two tests in three
(``validation.checks.baselines``).
"""

from __future__ import annotations

import ast
import copy
import json
import math
import random
from collections.abc import Callable, Sequence
from typing import Any

from benchmorph.data import values
from benchmorph.data.models import Problem, TestCase, Variant
from benchmorph.execution.engine import Engine
from benchmorph.morph.common.docstrings import assemble, split_prompt
from benchmorph.morph.finalize import Draft
from benchmorph.morph.transforms.evolve import rules
from benchmorph.morph.transforms.evolve.inputs import own_pool
from benchmorph.morph.transforms.evolve.wording import as_step
from benchmorph.testgen.types import FLOAT, INT, STR, ListT, Prim, TypeExpr, infer_signature, infer_type
from benchmorph.validation.checks.base import Steps, value_key
from benchmorph.validation.checks.steps import asks_to_write
from benchmorph.validation.examples.scan import render_value

TESTS = 12  # lists per variant
NEAR = 1e-9  # float helper values this close but not equal are a rounding error apart
MAX_ITEM_CHARS = 120  # an input longer than this as text makes no readable list item
VariantMaker = Callable[..., Variant]

FILTER_TEXT = (
    "Given a list `items` of {things}, each a valid argument of the helper function `{helper}` defined "
    "above, return a list of the items for which `{helper}` returns True, in the order they have in `items`."
)
SORT_TEXT = (
    "Given a list `items` of {things}, each a valid argument of the helper function `{helper}` defined "
    "above, return the items sorted by the value `{helper}` returns for each, from the smallest value to the "
    "largest.{ties}"
)
TIES_TEXT = " Items for which `{helper}` returns equal values keep the order they have in `items`."


def plural(t: TypeExpr) -> str | None:
    """An English plural for values of type ``t`` ("integers", "lists of strings"), or None."""
    if t == INT:
        return "integers"
    if t == FLOAT or str(t) in ("int | float",):
        return "numbers"
    if t == STR:
        return "strings"
    if isinstance(t, ListT):
        inner = plural(t.item)
        return f"lists of {inner}" if inner else None
    return None


def _size(value: Any) -> int:
    try:
        return len(json.dumps(values.encode(value)))
    except (TypeError, ValueError, RecursionError):
        return 10**9


def _helper_prompt(parent: Problem) -> tuple[str, str] | str:
    """(the parent's prompt as the helper's head, its description as the helper now states it), or why not.

    A description that asks the reader to write the function is rewritten to
    say what the function does ("Write a function that takes a string and
    returns ..." -> "Take a string and return ..."); one that cannot be is refused.
    """
    parts = split_prompt(parent)
    if isinstance(parts, str):
        return parts
    if asks_to_write(parts.text) is None:
        return parent.prompt, parts.text
    text = rules.description(parent)
    if text is None:
        return "the helper's docstring asks the reader to write it, and cannot be read whole to be rewritten"
    rewritten = as_step(text, parent.entry_point, step=False)
    if asks_to_write(rewritten) is not None:
        return f"the helper's docstring asks the reader to write it: '{asks_to_write(rewritten)}'"
    return assemble(parts, rewritten), rewritten


def _in_key_order(xs: list[Any], value_of: Callable[[Any], Any]) -> bool:
    return [value_of(x) for x in xs] == sorted(value_of(x) for x in xs)


def _naturally_sorted_is_key_sorted(xs: list[Any], value_of: Callable[[Any], Any]) -> bool:
    try:
        return sorted(xs) == sorted(xs, key=value_of)
    except TypeError:  # items that do not compare have no natural order
        return False


def _apart(items: list[Any], value_of: Callable[[Any], Any]) -> list[Any]:
    """``items`` without those whose helper value is a float a rounding error away from another's.

    ``124.456 % 1`` and ``123.456 % 1`` differ in the fourteenth digit: sorted
    by them, the order is decided by how the float was computed, not by the
    description, and "equal values keep their order" no longer says which.
    """
    kept: list[Any] = []
    for x in items:
        v = value_of(x)
        near = any(
            isinstance(v, float) and isinstance(value_of(k), float | int) and v != value_of(k)
            and math.isclose(v, value_of(k), rel_tol=NEAR, abs_tol=NEAR)
            for k in kept
        )  # fmt: skip
        if not near:
            kept.append(x)
    return kept


def _lists(pool: list[tuple[Any, Any]], mode: str, rng: random.Random) -> list[list[Any]] | str:
    """TESTS distinct lists of the pool's items that tell a solution from a program ignoring the helper.

    A filter gets an empty list, one all True, one all False, and mixed ones;
    a sort gets an empty list, a tie where two items share a value (later one
    first in natural order, so only a stable sort by the helper's value gets
    it right), and lists that are neither in the helper's order already nor in
    that order once naturally sorted.
    """
    value = {value_key(x): out for x, out in pool}

    def value_of(x: Any) -> Any:
        return value[value_key(x)]

    items = [x for x, _ in pool]
    lists: list[list[Any]] = [[]]
    if mode == "filter":
        yes = [x for x in items if value_of(x) is True]
        no = [x for x in items if value_of(x) is False]
        if len(yes) < 2 or len(no) < 2:
            return "the parent's inputs do not give both answers twice"
        lists += [rng.sample(yes, min(3, len(yes))), rng.sample(no, min(3, len(no)))]

        def telling(xs: list[Any]) -> bool:
            return len({value_of(x) for x in xs}) == 2
    else:
        items = _apart(items, value_of)
        by_value: dict[str, list[Any]] = {}
        for x in items:
            by_value.setdefault(repr(value_of(x)), []).append(x)
        tied = next((xs for xs in by_value.values() if len(xs) >= 2), None)
        if tied is not None:
            first, second = tied[0], tied[1]
            try:
                first, second = sorted([first, second], reverse=True)
            except TypeError:
                pass
            others = [x for x in items if value_of(x) != value_of(first)]
            lists.append([first, *rng.sample(others, min(2, len(others))), second])

        def telling(xs: list[Any]) -> bool:
            return not _in_key_order(xs, value_of) and not _naturally_sorted_is_key_sorted(xs, value_of)

    attempts = 0
    while len(lists) < TESTS and attempts < 400:
        attempts += 1
        candidate = rng.sample(items, rng.randint(2, min(6, len(items))))
        if telling(candidate) and all(value_key(candidate) != value_key(other) for other in lists):
            lists.append(candidate)
    if len(lists) < 6:
        return (
            f"only {len(lists)} lists of the parent's inputs tell a solution from one that ignores the helper"
        )
    return lists


def _item_pool(parent: Problem) -> list[tuple[Any, Any]]:
    """Distinct short inputs of the parent with its outputs: its own that honour the bounds it states.

    Only its own: a generated input honours what the description states and
    the tests show, but not what it leaves implicit, and the helper's value
    on it is one no test of the parent ever decided.  A reviewed set sorted
    HumanEval/94's lists by "the sum of the digits of the largest prime",
    with a generated ``[0, 81, 12, 0, 1, 21]`` that holds no prime (the
    reference counts 1 as one and returns 1): its docstring does not say what
    the helper gives there, so a solution that reads it instead of calling it
    is judged on an answer the text never asked for.
    """
    own = own_pool(parent, rules.shape(parent))
    found = {
        value_key(args[0]): (args[0], out)
        for args, out in zip(own.inputs, own.outputs, strict=True)
        if _size(args[0]) <= MAX_ITEM_CHARS
    }
    return list(found.values())


def _mutates(parent: Problem, inputs: list[Any], engine: Engine) -> bool:
    """Whether the parent's reference changes its argument on some input (then a list of them would not
    mean the same after a solution calls the helper once or twice)."""
    probe_code = (
        f"{parent.reference.rstrip()}\n\n\nimport copy as _bm_copy\n\n\ndef _bm_mutates(x):\n"
        f"    before = _bm_copy.deepcopy(x)\n    {parent.entry_point}(x)\n    return x != before\n"
    )
    probe = Problem(id=f"{parent.id}#mutates", prompt="", reference=probe_code, entry_point="_bm_mutates")
    runs = engine.run_inputs(probe, [[copy.deepcopy(x)] for x in inputs])
    return any(run.status != "ok" or run.output is not False for run in runs)


def propose_tool_use(parents: Sequence[Problem], engine: Engine, seed: int, make: VariantMaker) -> tuple[list[Draft], list[tuple[Problem, str, str]]]:  # fmt: skip
    drafts: list[Draft] = []
    dropped: list[tuple[Problem, str, str]] = []
    for parent in parents:
        found = lift(parent, engine, seed, make)
        if isinstance(found, tuple):
            dropped.append((parent, *found))
        else:
            drafts.append(found)
    return drafts, dropped


def lift(parent: Problem, engine: Engine, seed: int, make: VariantMaker) -> Draft | tuple[str, str]:
    """The parent as a helper, and its filter or stable sort over a list of its inputs."""
    if not rules.single_function(parent):
        return "single-function", "the prompt defines more than its entry point, or it is not a function"
    sig = infer_signature(parent)
    tests = [t for t in parent.tests if t.has_expected]
    if sig.arity != 1 or sig.required != 1 or not tests:
        return "arity", "the helper must take one argument"
    outputs = [t.expected for t in tests]
    kind = infer_type(outputs)
    if kind == Prim("bool"):
        mode = "filter"
    elif kind in (INT, FLOAT) or str(kind) == "int | float":
        mode = "sort"
    else:
        return "output-type", f"a helper returning {kind} gives no filter or sort"
    ((_, arg_type),) = sig.params
    things = plural(arg_type)
    if things is None:
        return "input-type", f"no plain words for a list of {arg_type}"
    if not parent.reference.startswith(parent.prompt):
        return (
            "helper-code",
            "the reference does not continue the prompt, so the helper cannot be shown whole",
        )
    head = _helper_prompt(parent)
    if isinstance(head, str):
        return "leftover-imperative", head
    helper_prompt, helper_text = head
    docstring = _docstring(helper_prompt, parent.entry_point)
    if asks_to_write(docstring) is not None:  # outside the description, where no rewrite reaches
        return (
            "leftover-imperative",
            f"the helper's docstring asks the reader to write it: '{asks_to_write(docstring)}'",
        )
    helper_code = helper_prompt + parent.reference[len(parent.prompt) :]
    pool = _item_pool(parent)
    if len(pool) < 4:
        return "thin-suite", f"only {len(pool)} distinct short inputs of the parent to make lists of"
    if _mutates(parent, [x for x, _ in pool], engine):
        return "helper-code", "the helper changes its argument"
    lists = _lists(pool, mode, random.Random(f"{seed}:{parent.id}"))
    if isinstance(lists, str):
        return "thin-suite", lists
    helper = parent.entry_point
    name = f"{mode}_by_{helper}"
    value_of = {value_key(x): out for x, out in pool}
    has_tie = mode == "sort" and any(
        len({value_key(x) for x in xs}) > len({repr(value_of[value_key(x)]) for x in xs}) for xs in lists
    )
    text = (FILTER_TEXT if mode == "filter" else SORT_TEXT).format(
        things=things, helper=helper, ties=TIES_TEXT.format(helper=helper) if has_tie else ""
    )
    annotation = _annotation(parent)
    params = f"items: List[{annotation}]" if annotation else "items"
    returns = f" -> List[{annotation}]" if annotation else ""
    body = (
        f"    return [item for item in items if {helper}(item)]\n"
        if mode == "filter"
        else f"    return sorted(items, key={helper})\n"
    )
    shown = [xs for xs in lists if len(xs) >= 2][:2]
    expected = [
        [x for x in xs if value_of[value_key(x)]] if mode == "filter" else sorted(xs, key=lambda x: value_of[value_key(x)])
        for xs in shown
    ]  # fmt: skip
    examples = [
        (f"{name}({render_value(xs)})", render_value(out)) for xs, out in zip(shown, expected, strict=True)
    ]
    imports = rules.imports_of(("from typing import List\n" if annotation else "") + parent.prompt)
    prompt = (
        "\n".join(imports) + ("\n\n\n" if imports else "")
        + rules.without_imports(helper_code).rstrip() + "\n\n\n"
        + f"def {name}({params}){returns}:\n" + rules.docstring_block(text, examples)
    )  # fmt: skip
    reference = prompt + body
    if rules.parse_code(reference) is None:
        return "compose", "the new prompt or reference does not parse"
    variant = make(parent, "tool_use", "", prompt, reference, name, [TestCase(input=[xs]) for xs in lists],
                   [parent.id], helpers=[helper], lift=mode, renamed_from=helper)  # fmt: skip
    baselines = {
        "the parent's reference (the helper itself)": f"{parent.reference.rstrip()}\n\n\n{name} = {helper}\n",
        "the items unchanged": f"def {name}(items):\n    return list(items)\n",
    }
    if mode == "filter":
        baselines["no item"] = f"def {name}(items):\n    return []\n"
    else:
        baselines["the items in their natural order"] = f"def {name}(items):\n    return sorted(items)\n"
    steps = Steps(quoted=(docstring or helper_text,), role="helper")
    return Draft(variant=variant, parent=parent, outputs="any", twin=False, suite="own", steps=steps,
                 baselines=baselines)  # fmt: skip


def _docstring(prompt: str, name: str) -> str:
    """The whole docstring of ``name`` in ``prompt`` ("" where there is none).

    The description a prompt's surgery reads can stop before the text that
    asks the reader to write something: HumanEval/46's is its first line,
    and "Please write a function to efficiently compute the n-th element"
    comes after the sequence's definition.  A helper is shown whole, so the
    whole docstring is what must not ask.
    """
    tree = rules.parse_code(prompt)
    node = next(
        (n for n in (tree.body if tree else []) if isinstance(n, ast.FunctionDef) and n.name == name), None
    )
    return (ast.get_docstring(node) or "") if node is not None else ""


def _annotation(parent: Problem) -> str | None:
    """The parent's parameter annotation as written (``str``, ``List[int]``), or None."""
    tree = rules.parse_code(parent.prompt)
    node = next(
        (n for n in (tree.body if tree else []) if isinstance(n, ast.FunctionDef) and n.name == parent.entry_point),
        None,
    )  # fmt: skip
    if node is None or not node.args.args or node.args.args[0].annotation is None:
        return None
    return ast.unparse(node.args.args[0].annotation)
