"""A retelling keeps every requirement: each condition of the parent has its counterpart, no atom is lost or added.

Execution proves the reference still solves the variant; it cannot prove
the variant's text still *asks* for it.  A rewrite that drops "Assume n > 1"
or "return None for an empty list" keeps every test green and loses a
requirement a solver needs.  Two checks read the parent's and the variant's
prose (worked examples excluded; renames mapped back) as atoms
(``validation.concepts``: concept classes such as *largest/biggest/maximum*,
numbers, quoted literals, comparison symbols, parameter names):

- ``constraints-kept``: every statement of the parent that states a
  constraint, precondition or edge case (``concepts.conditions``) must have a
  counterpart in the variant: one sentence, or two adjacent ones, holding all
  of its atoms (a question and the statements answering it, "If so ...;
  otherwise ...", count as one sentence).  The figures ``conditions`` and ``conditions_kept`` are
  recorded;
- ``meaning-atoms``: across the whole description, no concept or number of the
  parent is said fewer times, and the variant adds none of the concepts that
  state a requirement on their own (an extreme, a parity, a sign, an order,
  a position) nor a number.
"""

from __future__ import annotations

import re
from collections import Counter

from benchmorph.data.models import Problem
from benchmorph.validation.checks.base import CheckInput, Finding, quality_check, quote

# Concepts that make a requirement by themselves: a retelling that adds one asks for something new.
REQUIREMENT_CONCEPTS = frozenset(
    """max min longest shortest fewest most first last second third even odd positive negative non-negative
    non-empty prime sort ascending descending non-decreasing non-increasing reverse unique distinct duplicate
    upper lower vowel consonant digit letter inclusive exclusive strictly exactly at-least at-most
    prefix suffix left right before after only never""".split()
)


def _prose(problem: Problem, names_back: dict[str, str] | None = None) -> str:
    from benchmorph.validation.distances import prose
    from benchmorph.validation.examples.scan import scan_examples
    from benchmorph.validation.residual import map_back

    text = prose(problem.prompt, scan_examples(problem.prompt, problem.entry_point), problem.entry_point)
    text = text.replace('"""', "   ").replace("'''", "   ")
    # "Example 2:" numbers an example, it states nothing.
    text = _EXAMPLE_HEADER.sub("", text)
    return map_back(text, names_back) if names_back else text


_EXAMPLE_HEADER = re.compile(r"(?im)^[ \t]*(?:for\s+)?examples?\s*\d*\s*[:.]?[ \t]*$")


def _names(parent: Problem) -> list[str]:
    """The names whose mentions are atoms: the parameters, less those that are also words of prose
    ("a", "I").  The function's own name is not one: a retelling need not say it in its prose."""
    from benchmorph.validation.examples.recompute import reference_parameters

    names = list(reference_parameters(parent) or [])
    return [
        name
        for name in names
        if name not in ("a", "A", "I") and (len(name) == 1 or not name.isalpha() or not name.islower())
    ]


@quality_check("constraints-kept", reads={"rewording"})
def constraints_kept(item: CheckInput) -> Finding | None:
    """A condition of the parent (constraint, precondition, edge case) with no counterpart in the variant."""
    from benchmorph.validation.concepts import answered, conditions, counterpart, statements
    from benchmorph.validation.residual import Rewording

    back = Rewording.of(item.variant, item.parent).names_back
    wanted = conditions(_prose(item.parent))
    # A question and its answers ("Is it prime? If so, True; otherwise False") are one statement.
    have = answered(statements(_prose(item.variant, back)))
    names = _names(item.parent)
    lost = [match for match in (counterpart(s, have, names) for s in wanted) if not match.found]
    item.figures.update({"conditions": float(len(wanted)), "conditions_kept": float(len(wanted) - len(lost))})
    if lost:
        first = lost[0]
        missing = ", ".join(atom.split(":", 1)[1] for atom in first.missing[:4])
        return Finding(
            "constraints-kept",
            f"{len(lost)} of the parent's {len(wanted)} conditions have no counterpart; first: "
            f"'{quote(first.statement, 80)}' (missing: {missing})",
        )
    return None


@quality_check("meaning-atoms", reads={"rewording"})
def meaning_atoms(item: CheckInput) -> Finding | None:
    """A concept or number of the parent's prose said fewer times, or a requirement concept or number added."""
    from benchmorph.validation.concepts import concepts, numbers
    from benchmorph.validation.residual import Rewording

    back = Rewording.of(item.variant, item.parent).names_back
    old_text, new_text = _prose(item.parent), _prose(item.variant, back)
    old = Counter({f"the word for '{k}'": v for k, v in concepts(old_text).items()})
    old.update({f"the number {k}": v for k, v in numbers(old_text).items()})
    new = Counter({f"the word for '{k}'": v for k, v in concepts(new_text).items()})
    new.update({f"the number {k}": v for k, v in numbers(new_text).items()})
    lost = old - new
    if lost:
        what = sorted(lost)[0]
        return Finding(
            "meaning-atoms", f"{what} is said {old[what]} times in the parent, {new[what]} in the variant"
        )
    added = sorted(
        key
        for key in set(new) - set(old)
        if key.startswith("the number") or key.split("'")[1] in REQUIREMENT_CONCEPTS
    )
    if added:
        return Finding("meaning-atoms", f"the variant adds {added[0]}, which the parent does not say")
    return None
