"""Fix suggestions as spans of a prompt: made from a rewritten prompt, applied to a problem.

A check that knows the minimal change (rewrite an example's value, drop a
sentence, insert a clarification) makes it on the text and turns the
difference into a :class:`Fix`; applying a fix to a problem changes its
prompt and, where the reference embeds the prompt (HumanEval style), the
reference too, so the two never disagree.
"""

from __future__ import annotations

import re

from benchmorph.data.models import Problem
from benchmorph.validation.audit.findings import Fix


def fix_from_rewrite(old: str, new: str, says: str, mechanical: bool = True) -> Fix | None:
    """The one span that turns ``old`` into ``new`` (their common start and end kept); None if equal."""
    if old == new:
        return None
    start = 0
    while start < min(len(old), len(new)) and old[start] == new[start]:
        start += 1
    end_old, end_new = len(old), len(new)
    while end_old > start and end_new > start and old[end_old - 1] == new[end_new - 1]:
        end_old -= 1
        end_new -= 1
    return Fix(says, start, end_old, new[start:end_new], mechanical)


def insertion(prompt: str, at: int, text: str, says: str) -> Fix:
    return Fix(says, at, at, text, True)


def drop_sentence(prompt: str, start: int, end: int, says: str) -> Fix:
    """Delete ``prompt[start:end]`` and the spaces after it; a line left empty goes with it."""
    stop = end
    while stop < len(prompt) and prompt[stop] in " \t":
        stop += 1
    line_start = prompt.rfind("\n", 0, start) + 1
    line_end = prompt.find("\n", stop)
    line_end = len(prompt) if line_end < 0 else line_end
    if not prompt[line_start:start].strip() and not prompt[stop:line_end].strip():
        # The sentence was the line's only text: drop the whole line.
        return Fix(says, line_start, min(line_end + 1, len(prompt)), "", True)
    return Fix(says, start, stop, "", True)


def apply_fix(problem: Problem, fix: Fix) -> Problem:
    """``problem`` with ``fix`` applied to its prompt (and to the reference, where it embeds the prompt)."""
    prompt = fix.apply(problem.prompt)
    reference = problem.reference
    if problem.prompt and reference.count(problem.prompt) == 1:
        reference = reference.replace(problem.prompt, prompt)
    return problem.model_copy(update={"prompt": prompt, "reference": reference})


def clause_end(prose: str, start: int) -> int:
    """Where a parenthetical about the words at ``start`` goes: before the punctuation that ends their clause."""
    match = re.compile(r"[.,;:!?](?=\s|$)|\n[ \t]*\n|\n(?=[ \t]*(?:>>>|[A-Z][a-z]+:))").search(prose, start)
    end = match.start() if match else len(prose.rstrip())
    while end > start and prose[end - 1].isspace():
        end -= 1
    return end
