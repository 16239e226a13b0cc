"""Problems that are copies of another problem of the same benchmark: found, so they can be dropped.

Flipping one property word often lands on a problem the benchmark already
holds: MBPP+'s ``maximum`` of two numbers (Mbpp/404) turned to "minimum" is
Mbpp/309, word for word, and its cube_nums variant of Mbpp/447's
square_nums is Mbpp/8.  Such a variant tests nothing new: a model that has
seen the other problem solves it from memory.  Two signs mark a copy, each
measured against every other problem the transform was given:

* the description, normalized (prose only, links, case, punctuation and
  spacing removed), equals another problem's;
* the entry point has another problem's name (case aside) and that
  problem's reference gives the variant's output on at least
  ``NEAR_COPY`` of the variant's tests.  All of them is a copy; most of
  them is a near copy (Mbpp/409's ``max_product_tuple`` turned to
  ``min_product_tuple`` is Mbpp/120 but for an ``abs``): a model that
  recalls the other problem's solution under the name it is asked for
  passes nearly every test, so the variant measures recall, not reading.

The other references run on the variant's inputs in the real sandbox, all
pairs in one batch (``Engine.prepare``), so an input the other reference
cannot take counts as a disagreement.  The parent is not compared: the
variant changes its outputs by construction.

The miner drops variants that copy a problem (``morph.transforms.mine``);
the audit reports problems of a benchmark that copy each other
(``validation.audit.duplicates``), with the same two signs.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from benchmorph.data.models import Problem, TestCase, Variant
from benchmorph.execution.compare import values_match
from benchmorph.execution.engine import Engine
from benchmorph.testgen.mutation import input_key
from benchmorph.validation.distances import description_text
from benchmorph.validation.links import URL

# Share of the variant's tests on which a same-named problem's reference must agree to make a near copy.
NEAR_COPY = 0.8


def normalized_description(problem: Problem) -> str:
    """The description's words only: what two problems must share to read the same to a model."""
    text = URL.sub(" ", description_text(problem.prompt, problem.entry_point, problem.kind))
    return " ".join(re.sub(r"[^0-9a-z]+", " ", text.lower()).split())


def _agreement(variant: Problem, other: Problem | None) -> int:
    """How many of the variant's tests ``other`` (the other reference run on them) gives its output on."""
    theirs = {input_key(test.input): test.expected for test in other.tests} if other else {}
    return sum(
        1
        for test in variant.tests
        if input_key(test.input) in theirs
        and values_match(test.expected, theirs[input_key(test.input)], variant.atol)
    )


def _excluded(item: Problem) -> set[str]:
    """Ids an item is never a copy of: itself, and a variant's parent."""
    return {item.id, *([item.parent_id] if isinstance(item, Variant) else [])}


def find_copies(
    variants: Sequence[Problem], problems: Sequence[Problem], engine: Engine, *, near: float = NEAR_COPY
) -> dict[str, str]:
    """Item id -> why it copies another problem of ``problems`` (naming it), for each item that does.

    ``variants`` carry their tests with expected outputs (finalized
    variants, or prepared problems of the benchmark itself); ``problems``
    are the benchmark they were made from.  An item is never compared with
    itself or its parent.
    """
    by_description: dict[str, list[Problem]] = {}
    by_name: dict[str, list[Problem]] = {}
    for problem in problems:
        by_description.setdefault(normalized_description(problem), []).append(problem)
        by_name.setdefault(problem.entry_point.lower(), []).append(problem)
    found: dict[str, str] = {}
    probes: list[tuple[Problem, Problem, Problem]] = []  # item, other problem, its reference on our inputs
    for variant in variants:
        words = normalized_description(variant)  # an empty description (all code) matches nothing
        skip = _excluded(variant)
        same_text = [p for p in by_description.get(words, []) if p.id not in skip] if words else []
        if same_text:
            found[variant.id] = (
                f"its description is {same_text[0].id}'s ({same_text[0].entry_point}), word for word"
            )
            continue
        for other in by_name.get(variant.entry_point.lower(), []):
            if other.id in skip or other.kind != variant.kind or not other.reference.strip():
                continue
            tests = [TestCase(input=test.input) for test in variant.tests]
            probe = other.model_copy(update={"id": f"{variant.id}#copy-of-{other.id}", "tests": tests})
            probes.append((variant, other, probe))
    if probes:
        ready = {p.id: p for p in engine.prepare([probe for _, _, probe in probes]).problems}
        for variant, other, probe in probes:
            if variant.id in found:
                continue
            same, total = _agreement(variant, ready.get(probe.id)), len(variant.tests)
            if total and same >= near * total:
                what = "a copy of" if same == total else "a near copy of"
                found[variant.id] = (
                    f"{what} {other.id}: same function name {other.entry_point!r}, and its reference gives "
                    f"this variant's output on {same} of its {total} tests"
                )
    return found
