"""A run's summary as a typed value: what summary.json holds, read by attribute instead of by key.

The summary is read in many places (the CLI's tables, the study, the demo,
the report) and written to summary.json, whose keys (``pass@1``,
``dypass@5``, ``timeout_reruns``, ...) are a published format.  Code reads
the attributes, so a misspelt key is a type error, not a silent ``None``;
``to_json()`` writes exactly the keys and order summary.json has always had;
``summary["pass@1"]`` still reads the JSON view, for scripts written
against the file.

>>> summary = RunSummary(benchmark="humaneval", n_problems=2, n_samples=2, pass_at={1: 0.5},
...                      statuses={"fail": 1, "pass": 1}, solved_problems=1, isolation="bwrap")
>>> summary.pass_at_1, summary["pass@1"], summary.to_json()["statuses"]
(0.5, 0.5, {'fail': 1, 'pass': 1})
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from benchmorph import __version__


@dataclass(frozen=True)
class RerunSummary:
    """What re-running the timed-out samples at the end of an evaluation changed (the flake rate)."""

    rerun: int = 0
    changed: int = 0
    changed_samples: tuple[str, ...] = ()

    @property
    def flake_rate(self) -> float:
        return self.changed / self.rerun if self.rerun else 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "rerun": self.rerun,
            "changed": self.changed,
            "flake_rate": self.flake_rate,
            "changed_samples": list(self.changed_samples),
        }


@dataclass(frozen=True, eq=False)
class RunSummary(Mapping[str, Any]):
    """Scores and circumstances of one evaluated run.

    ``pass_at`` maps k to pass@k for every k up to the smallest sample count;
    ``dypass_at`` (and ``dypass_seeds_at``, the seeds with at least k
    variants) is there when variants share seeds.  ``memory_limit`` is the
    per-sample cap and its mode (``rlimits``: per process only, the weaker
    one).  ``sanitizer`` is what ``--sanitize`` changed (None: not applied);
    ``extra`` holds keys written beside these (an EvoEval run's per-type
    pass@1 and composition ratio), kept in summary.json after the rest.
    """

    benchmark: str
    n_problems: int
    n_samples: int
    pass_at: dict[int, float]
    statuses: dict[str, int]
    solved_problems: int
    isolation: str
    dypass_at: dict[int, float] = field(default_factory=dict)
    dypass_seeds_at: dict[int, int] = field(default_factory=dict)
    dypass_seeds: int | None = None
    dypass_n: int | None = None
    memory_limit: dict[str, Any] | None = None
    benchmorph_version: str = __version__
    reused_verdicts: int | None = None
    timeout_reruns: RerunSummary | None = None
    sanitizer: dict[str, Any] | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def pass_at_1(self) -> float:
        return self.pass_at.get(1, 0.0)

    def with_extra(self, **values: Any) -> RunSummary:
        """The same summary with more keys written after its own (later values win)."""
        return replace(self, extra={**self.extra, **values})

    def to_json(self) -> dict[str, Any]:
        """summary.json's keys, in its order."""
        data: dict[str, Any] = {
            "benchmark": self.benchmark,
            "n_problems": self.n_problems,
            "n_samples": self.n_samples,
            "pass@1": self.pass_at_1,
        }
        data.update({f"pass@{k}": value for k, value in self.pass_at.items()})
        data.update({f"dypass@{k}": value for k, value in self.dypass_at.items()})
        data.update({f"dypass_seeds@{k}": value for k, value in self.dypass_seeds_at.items()})
        if self.dypass_seeds is not None:
            data["dypass_seeds"] = self.dypass_seeds
        if self.dypass_n is not None:
            data["dypass_n"] = self.dypass_n
        data["statuses"] = dict(self.statuses)
        data["solved_problems"] = self.solved_problems
        data["isolation"] = self.isolation
        if self.memory_limit is not None:
            data["memory_limit"] = dict(self.memory_limit)
        data["benchmorph_version"] = self.benchmorph_version
        if self.reused_verdicts is not None:
            data["reused_verdicts"] = self.reused_verdicts
        if self.timeout_reruns is not None:
            data["timeout_reruns"] = self.timeout_reruns.to_json()
        if self.sanitizer is not None:
            data["sanitizer"] = dict(self.sanitizer)
        data.update(self.extra)
        return data

    # The JSON view, for scripts that read a summary as summary.json's dict.
    def __getitem__(self, key: str) -> Any:
        return self.to_json()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.to_json())

    def __len__(self) -> int:
        return len(self.to_json())

    def __eq__(self, other: object) -> bool:
        """Equal to another summary or to summary.json's dict when they write the same JSON."""
        if isinstance(other, RunSummary):
            return self.to_json() == other.to_json()
        if isinstance(other, Mapping):
            return self.to_json() == dict(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # a summary holds dicts: mutable views, no hash
