"""Siblings of seeds with few test inputs, and retries that really try other templates (issue 24, i24h).

HumanEval/29 has two test inputs besides its parent's examples: the empty-list edge case every sibling
keeps, and one other.  Every sibling used to show that other one too, so the shared examples alone put
sibling BLEU-4 over the gate.  A sibling now shows the parent's edge cases alone once every input with a
new answer was shown by an earlier sibling.  And attempt ``a`` of slot ``s`` was retelling ``s + a*K``:
where a sentence shape has K templates (five container-first forms at K = 5) every attempt of a slot got
the same one.
"""

from __future__ import annotations

from benchmorph.data.models import Problem, TestCase
from benchmorph.morph.transforms.metamorphic import worked
from benchmorph.morph.transforms.metamorphic.metamorphic import retelling_index
from benchmorph.validation.examples.scan import scan_examples

PROMPT = '''from typing import List


def filter_by_prefix(strings: List[str], prefix: str) -> List[str]:
    """ Filter an input list of strings only for ones that start with a given prefix.
    >>> filter_by_prefix([], 'a')
    []
    >>> filter_by_prefix(['abc', 'bcd', 'cde', 'array'], 'a')
    ['abc', 'array']
    """
'''
BODY = "    return [x for x in strings if x.startswith(prefix)]\n"
OTHER = [["xxx", "asd", "xxy", "john doe", "xxxAAA", "xxx"], "xxx"]


def _parent() -> Problem:
    tests = [
        TestCase(input=[[], "john"], expected=[], has_expected=True),
        TestCase(input=OTHER, expected=["xxx", "xxxAAA", "xxx"], has_expected=True),
    ]
    return Problem(
        id="HumanEval/29", prompt=PROMPT, entry_point="filter_by_prefix", reference=PROMPT + BODY, tests=tests
    )


def test_a_sibling_with_nothing_new_to_show_shows_the_parents_edge_case_alone() -> None:
    parent = _parent()
    scan = scan_examples(parent.prompt, parent.entry_point)
    first = worked.choose(parent, scan, 0, 2)
    assert first[0].edge and list(first[0].args) == [[], "a"] and list(first[1].args) == OTHER
    shown = frozenset(worked.key(list(s.args)) for s in first if not s.edge)
    later = worked.choose(parent, scan, 1, 2, shown_before=shown)
    # The edge case stays; the other input is not shown again, nor a second empty answer ([], 'john').
    assert [list(s.args) for s in later] == [[[], "a"]] and later[0].value == [] and later[0].edge
    # With nothing shown before, a sibling still shows an informative example beside the edge case.
    assert len(worked.choose(parent, scan, 1, 2)) == 2


def test_a_parent_without_an_edge_case_still_repeats_rather_than_show_nothing() -> None:
    parent = _parent()
    prompt = PROMPT.replace("    >>> filter_by_prefix([], 'a')\n    []\n", "")
    parent = parent.model_copy(update={"prompt": prompt, "reference": prompt + BODY})
    scan = scan_examples(parent.prompt, parent.entry_point)
    shown = frozenset({worked.key(OTHER)})
    later = worked.choose(parent, scan, 1, 2, shown_before=shown)
    assert later and not any(s.edge for s in later)


def test_attempts_of_a_slot_are_distinct_retellings_and_move_across_templates() -> None:
    for k in (1, 2, 5):
        indices = [retelling_index(slot, attempt, k) for slot in range(k) for attempt in range(16)]
        assert len(set(indices)) == len(indices)
        assert [retelling_index(slot, 0, k) for slot in range(k)] == list(range(k))  # first tries unchanged
        for templates in (2, 3, 4, 5, 6, 7):
            for slot in range(k):
                seen = {retelling_index(slot, attempt, k) % templates for attempt in range(4)}
                assert len(seen) >= 2, (k, templates, slot)  # was 1 wherever templates divides k
