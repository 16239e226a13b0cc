"""Offline ``decompose``: a reference's helpers as subproblems of their own, tested on what the parent asks.

EvoEval's decomposition asks whether a model that solves (or fails) a
problem solves the parts it is made of.  Offline, the parts are the helpers a
reference defines inside its entry point (``is_prime`` in HumanEval/39,
``count_depth`` in HumanEval+/6), where one can be documented truly
(``helpers.document``: it agrees with an oracle of a known behaviour in the
sandbox).  Per parent:

1. every movable helper goes to module level and the parent's solution is
   run on the parent's inputs: it must still give the parent's outputs;
2. the arguments the solution passes each helper are traced
   (``trace.traced_inputs``); those inside the documented domain are the
   subproblem's tests, so each test is one the parent itself poses;
3. each documented helper becomes a subproblem: a descriptive name, our
   docstring with worked examples, the helper's body as reference.

The main problem of the decomposition is the parent itself (its id is each
subproblem's ``provenance.main``): a copy of it with the helpers handed over
would be solved by the parent's reference, so it is not published again.
The subproblems of one parent are published together or not at all
(``evolve.whole_decompositions``).
"""

from __future__ import annotations

import ast
import json
import textwrap
from collections.abc import Callable, Sequence
from typing import Any

from benchmorph.data import values
from benchmorph.data.models import Problem, TestCase, Variant
from benchmorph.execution.compare import outputs_match
from benchmorph.execution.engine import Engine
from benchmorph.morph.finalize import Draft
from benchmorph.morph.transforms.evolve import rules
from benchmorph.morph.transforms.evolve.helpers import Documented, document
from benchmorph.morph.transforms.evolve.trace import traced_inputs
from benchmorph.validation.checks.base import value_key
from benchmorph.validation.checks.suite import MAX_SHARE, MIN_TESTS, dominant_share
from benchmorph.validation.examples.scan import render_value

MAX_TESTS = 60  # traced arguments kept per subproblem
MAX_VALUE_CHARS = 400  # an argument longer than this as text is no readable test
TRACED = 2000  # calls traced per helper over all the parent's inputs

VariantMaker = Callable[..., Variant]


def without_helpers(problem: Problem, helpers: Sequence[rules.Helper]) -> str | None:
    """The reference with every helper's nested definition removed and the helpers defined before it."""
    lines = problem.reference.splitlines(keepends=True)
    for helper in sorted(helpers, key=lambda h: h.node.lineno, reverse=True):
        if helper.node.end_lineno is None:
            return None
        del lines[helper.node.lineno - 1 : helper.node.end_lineno]
    body = "".join(lines)
    code = "\n\n".join(helper.code.rstrip() for helper in helpers) + "\n\n\n" + body
    return code if rules.parse_code(code) is not None else None


def _readable(value: Any) -> bool:
    try:
        return len(json.dumps(values.encode(value))) <= MAX_VALUE_CHARS
    except (TypeError, ValueError, RecursionError):
        return False


def _subproblem_code(helper: rules.Helper, name: str, documented: Documented, examples: Sequence[Any]) -> tuple[str, str]:  # fmt: skip
    """(prompt, reference) of the subproblem: the helper renamed, our docstring and examples, its body."""
    source = rules.rename(helper.source, {helper.name: name}).splitlines()
    header = helper.node.body[0].lineno - helper.node.lineno  # lines of the def header
    body = source[header:]
    first = helper.node.body[0]
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
        body = source[(first.end_lineno or first.lineno) - helper.node.lineno + 1 :]  # its own docstring goes
    shown = [(f"{name}({render_value(x)})", render_value(documented.behaviour.oracle(x))) for x in examples]
    imports = "".join(f"{line}\n" for line in helper.imports) + ("\n\n" if helper.imports else "")
    indent = next((line[: len(line) - len(line.lstrip())] for line in body if line.strip()), "    ")
    docstring = textwrap.indent(textwrap.dedent(rules.docstring_block(documented.docstring, shown)), indent)
    prompt = imports + "\n".join(source[:header]) + "\n" + docstring
    reference = prompt + "\n".join(body) + "\n"
    return prompt, reference


def balanced(args: list[Any], answer: Callable[[Any], Any]) -> list[Any]:
    """``args`` without the last ones whose answer is the most common, until no answer covers more than
    two in three (``checks.suite.MAX_SHARE``): traced from Fibonacci numbers, ``is_prime`` is mostly False."""
    kept = list(args)
    while len(kept) > MIN_TESTS:
        share, common = dominant_share([answer(x) for x in kept])
        if share <= MAX_SHARE:
            break
        last = max(i for i, x in enumerate(kept) if value_key(answer(x)) == value_key(common))
        del kept[last]
    return kept


def _examples(args: Sequence[Any], documented: Documented) -> list[Any]:
    """Up to three arguments whose answers differ, the first ones that show each answer."""
    chosen, seen = [], set()
    for x in args:
        key = repr(documented.behaviour.oracle(x))
        if key not in seen:
            chosen.append(x)
            seen.add(key)
        if len(chosen) == 3:
            break
    return chosen


def propose_decompose(parents: Sequence[Problem], engine: Engine, make: VariantMaker) -> tuple[list[Draft], list[tuple[Problem, str, str]]]:  # fmt: skip
    """Subproblem drafts for every parent with documentable helpers; (parent, check, reason) for the rest."""
    drafts: list[Draft] = []
    dropped: list[tuple[Problem, str, str]] = []
    for parent in parents:
        found = decompose_one(parent, engine, make)
        if isinstance(found, tuple):
            dropped.append((parent, *found))
        else:
            drafts.extend(found)
    return drafts, dropped


def decompose_one(parent: Problem, engine: Engine, make: VariantMaker) -> list[Draft] | tuple[str, str]:
    helpers = rules.nested_helpers(parent)
    if not helpers:
        return "helpers", "the reference defines no helper that can be moved out of its entry point"
    moved = without_helpers(parent, helpers)
    if moved is None:
        return "helpers", "the helpers cannot be moved out of the entry point"
    tests = [t for t in parent.tests if t.has_expected]
    runs = engine.run_inputs(parent, [t.input for t in tests], code=moved)
    if not all(
        run.status == "ok" and outputs_match(parent.kind, t.expected, run.output, parent.atol, parent.strict_sequences)
        for t, run in zip(tests, runs, strict=True)
    ):  # fmt: skip
        return (
            "decompose-main",
            "the solution with its helpers moved out no longer gives the parent's outputs",
        )
    names = [h.name for h in helpers]
    traced = traced_inputs(moved, parent.entry_point, names, [t.input for t in tests], engine, limit=TRACED)
    pieces: list[tuple[rules.Helper, Documented, list[Any]]] = []
    why: list[str] = []
    for helper in helpers:
        calls = [args for args in traced[helper.name] if isinstance(args, list) and len(args) == 1]
        seen = list({repr(args[0]): args[0] for args in calls if _readable(args[0])}.values())
        if not seen:
            why.append(f"`{helper.name}` is never called on the parent's inputs")
            continue
        documented = document(helper.name, helper.code, helper.arg, seen, engine)
        if documented is None:
            why.append(f"no docstring we can state truly for `{helper.name}`")
            continue
        oracle = documented.behaviour.oracle
        pieces.append((helper, documented, balanced(list(documented.verified), oracle)[:MAX_TESTS]))
    if not pieces:
        return "helper-docstring", "; ".join(why)
    names_out = [documented.behaviour.name for _, documented, _ in pieces]
    if len(set(names_out)) != len(names_out):
        return "decompose", "two helpers do the same thing"
    drafts = []
    for number, (helper, documented, args) in enumerate(pieces, 1):
        name = documented.behaviour.name
        prompt, reference = _subproblem_code(helper, name, documented, _examples(args, documented))
        variant = make(parent, "decompose", f"-{number}", prompt, reference, name,
                       [TestCase(input=[x], origin="traced") for x in args], [parent.id],
                       role="subproblem", decomposition=parent.id, main=parent.id, subproblems=names_out,
                       helper=helper.name, renamed_from=parent.entry_point,
                       **({"helpers_left": why} if why else {}))  # fmt: skip
        alias = f"{parent.reference.rstrip()}\n\n\n{name} = {parent.entry_point}\n"
        drafts.append(
            Draft(
                variant=variant,
                parent=parent,
                outputs="any",
                twin=False,
                suite="own",
                baselines={"the parent's reference": alias},
            )  # fmt: skip
        )
    return drafts
