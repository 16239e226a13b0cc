"""A problem built from its parents' texts must read as one problem, and need every part it states.

A combined problem quotes two parents' descriptions as its steps; a tool_use
problem quotes a parent's docstring as its helper's.  What was right in the
parent can be wrong there: "Create a function encrypt that ..." asks for a
function the new problem does not have, "remove_vowels is a function that"
names one it does not define, a second step promised "(a) is less then 100"
receives 465 from the first, and a step whose rules no test reaches is a
step a wrong reading passes.
"""

from __future__ import annotations

import re

from benchmorph.validation.checks.base import CheckInput, Finding, quality_check, quote, short_repr
from benchmorph.validation.preconditions import stated_preconditions

# Text that asks the reader to write something, or speaks to them of their task: right in a problem
# statement, wrong inside one step of another problem or in a given helper's docstring.
ASKS_TO_WRITE = re.compile(
    r"\b(?:write|implement|create|complete|define)\b[^.]{0,40}?\bfunction\b"
    r"|\bplease (?:write|implement|create|complete)\b"
    r"|\byour (?:task|job)\b"
    r"|\byou (?:have|need|are asked|have been tasked|are tasked|will have)\s+to\b"
    r"|\byou (?:should|must)\b"
    r"|\byou will (?!be given\b|be provided\b)\w+"
    r"|^\W*task\b",
    re.I | re.M,
)
# "The function should return", "at that point function should return": a function the quoted text
# no longer belongs to.
_FUNCTION_REFERENCE = re.compile(r"\bfunction\s+(?:should|must|will|shall|returns?|outputs?|takes?)\b", re.I)


def asks_to_write(text: str) -> str | None:
    """The first phrase of ``text`` that asks the reader to write something, or None."""
    match = ASKS_TO_WRITE.search(text)
    return match.group(0) if match else None


def stale_reference(text: str) -> str | None:
    """A phrase of ``text`` that speaks of "the function" as if the text were still its own, or None."""
    match = _FUNCTION_REFERENCE.search(text)
    return match.group(0) if match else None


def _identifier_like(name: str) -> bool:
    return "_" in name or any(ch.isdigit() for ch in name) or (name[:1].islower() and name != name.lower())


def names_used(text: str, names: tuple[str, ...]) -> list[str]:
    """The names of ``names`` that ``text`` uses as names: an identifier (``remove_vowels``, ``fib4``,
    ``isPrime``) anywhere, a plain word (``median``) only when called (``median(l)``)."""
    used = []
    for name in names:
        if not name:
            continue
        pattern = (
            rf"(?<![\w.]){re.escape(name)}(?!\w)"
            if _identifier_like(name)
            else rf"(?<![\w.]){re.escape(name)}\s*\("
        )
        if re.search(pattern, text):
            used.append(name)
    return used


@quality_check("leftover-imperative", reads={"steps"})
def leftover_imperative(item: CheckInput) -> Finding | None:
    """A quoted parent text still asks the reader to write a function, or speaks of their task."""
    steps = item.steps
    for text in steps.quoted if steps is not None else ():
        phrase = asks_to_write(text)
        if phrase is not None:
            return Finding(
                "leftover-imperative",
                f"a quoted parent text still says '{quote(phrase, 40)}': '{quote(text)}'",
            )
    return None


@quality_check("stale-name", reads={"steps"})
def stale_name(item: CheckInput) -> Finding | None:
    """A quoted parent text names a parent's function, or "the function", that the new problem does not have."""
    steps = item.steps
    if steps is None:
        return None
    for text in steps.quoted:
        used = names_used(text, steps.names)
        if used:
            return Finding("stale-name", f"a quoted parent text names `{used[0]}`: '{quote(text)}'")
        reference = stale_reference(text) if steps.role == "step" else None
        if reference:
            return Finding("stale-name", f"a quoted parent text speaks of '{reference}': '{quote(text)}'")
    return None


@quality_check("step-domain", reads={"steps"})
def step_domain(item: CheckInput) -> Finding | None:
    """The second step states a precondition its inputs break, or one that cannot be read as a bound.

    "Knowing that (a) is less then 100" is a promise to whoever writes the
    second step; a first step that hands it 465 (HumanEval/60 + 75) breaks it,
    and the reference's answer there is one the description never asked for.
    """
    steps = item.steps
    if steps is None or not steps.receiver:
        return None
    stated = stated_preconditions(steps.receiver, [steps.receiver_param] if steps.receiver_param else [])
    if stated.unread:
        return Finding(
            "step-domain",
            f"the second step states a precondition no bound reads: '{quote(stated.unread[0])}'",
        )
    broken = [(args, value) for args, value in steps.handoffs if not stated.holds(value)]
    if broken:
        args, value = broken[0]
        failed = next(str(bound) for bound in stated.bounds if not bound.holds(value))
        return Finding(
            "step-domain",
            f"{len(broken)} of {len(steps.handoffs)} tests hand the second step a value its description "
            f"rules out: {short_repr(args)} gives {short_repr(value)}, where '{failed}' is stated",
        )
    return None


@quality_check("steps-exercised", reads={"steps"})
def steps_exercised(item: CheckInput) -> Finding | None:
    """A mutant of a parent that the parent's own tests kill passes every test of the new problem.

    The parent's tests show that the mutant breaks a stated rule; if the new
    tests let it through, the new problem states a rule that none of its tests
    decides (HumanEval/98 + 31: only counts 1 and 2 reach ``is_prime``, so
    ``count == 2`` passes).
    """
    steps = item.steps
    if steps is None or not steps.survivors:
        return None
    return Finding(
        "steps-exercised",
        f"{len(steps.survivors)} mutants of the parents that their own tests kill pass every test "
        f"(e.g. {steps.survivors[0]})",
    )
