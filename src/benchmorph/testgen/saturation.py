"""When a problem's input search has stopped finding: what its tests achieve, and for how long nothing new.

A search that runs until a clock says stop spends most of its time on
problems whose first few dozen valid inputs already executed every line and
arc of the reference and killed every mutant any input will kill.  A
:class:`Novelty` holds what the tests so far achieve (the reference's lines
and arcs, the mutants of the reference they kill) and, per test, the items it
achieves, which is what the reduction needs afterwards.  A new valid input is
*novel* when it executes a line or arc none before it did, or is the first
(in input order) to kill a mutant; the search is *saturated* once ``window``
valid inputs in a row were not novel.

The window was chosen from data (``bench/saturation.py``): the recorded
coverage and kill matrix of a clock-bound search over HumanEval+ (164
problems, 1,848 mutants, up to 1,000 valid inputs each), replayed for each
window.  The whole search killed 1,739; a window of 200 kept 1,725, 300
kept 1,727 and 500 kept 1,738 (the first to reach what the search before
issue 28 killed, 1,737), measuring 74,938 valid inputs instead of 141,831.
The kills a shorter window loses are rare finds late in a few problems
(HumanEval/124 and /157: five or six mutants each, found 100 to 600 inputs
after the previous novel one), so no rule scaled by when the last novel
input came did better for its cost.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence

__all__ = ["SATURATION_WINDOW", "Novelty"]

# Valid inputs in a row that add no line, arc or mutant kill before a problem's search stops.
SATURATION_WINDOW = 500


class Novelty:
    """What a problem's tests achieve so far, per test and together, and the run of tests that added nothing.

    Mutants are known by their number in the problem's mutant list;
    ``alive`` are those no test has killed yet (the only ones worth running
    on new inputs).
    """

    def __init__(self, mutants: int, window: int | None) -> None:
        self.window = window
        self.covered: set[Hashable] = set()
        self.killed: set[int] = set()
        self.alive: list[int] = list(range(mutants))
        self.items: list[frozenset[Hashable]] = []  # per test, in order: lines, arcs, ("mutant", n)
        self.base = 0  # tests that set the baseline (the problem's own), first in ``items``
        self.since = 0  # valid new inputs in a row that were not novel
        self.last_novel: int | None = None  # how many new inputs had been added when the last novel one came

    @property
    def tests(self) -> int:
        return len(self.items)

    @property
    def saturated(self) -> bool:
        return self.window is not None and self.since >= self.window

    def add(
        self,
        coverage: Sequence[frozenset[Hashable]],
        kills: Mapping[int, Iterable[int]],
        *,
        base: bool = False,
    ) -> None:
        """Add a batch of tests in order: ``coverage[i]`` is test i's lines and arcs, ``kills`` maps a
        mutant number to the batch positions of the tests that kill it.

        ``base`` tests (the problem's own) set the baseline and do not count
        toward saturation; every other test is novel or lengthens the run.
        """
        extra: list[set[Hashable]] = [set() for _ in coverage]
        first: dict[int, list[int]] = {}
        for mutant, positions in kills.items():
            where = sorted(set(positions))
            for position in where:
                extra[position].add(("mutant", mutant))
            if where and mutant not in self.killed:
                first.setdefault(where[0], []).append(mutant)
        for position, items in enumerate(coverage):
            novel = not items <= self.covered or position in first
            self.covered |= items
            self.killed.update(first.get(position, ()))
            self.items.append(frozenset(items | extra[position]))
            if base:
                continue
            if novel:
                self.since = 0
                self.last_novel = self.tests - self.base
            else:
                self.since += 1
        if base:
            self.base = self.tests
        self.alive = [mutant for mutant in self.alive if mutant not in self.killed]
