"""What a study costs, as measured: seconds per answer, per verdict, per problem built; variants per problem.

Every study records what it measured in ``$BENCHMORPH_CACHE/study/costs.json`` (this machine's
numbers), and a dry run estimates from them.  Where nothing was measured yet, a dry run measures
what it can cheaply (``probe``: the sandbox on the references it needs anyway, and two answers of each
model, stored in the LLM cache so that the study does not ask them again), and uses the priors below
for the rest, saying so beside each line of the estimate.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmorph.data.paths import cache_dir
from benchmorph.data.storage import write_text_atomic

# Priors, used only until a study on this machine measures them (bench/study.py and the README's
# figures: HumanEval on a shared 2-core machine).
PRIOR_BUILD_SECONDS = 4.0  # a transform's fixed cost: its engine work on the parents, finalize
PRIOR_BUILD_PER_PROBLEM = {"mine": 0.15, "metamorphic": 0.2, "evolve": 0.15}
PRIOR_BUILD_PER_PROBLEM_LLM = 30.0  # an LLM family: several generator and solver answers per problem
PRIOR_YIELD = {"mine": 0.11, "evolve": 0.5}  # variants per problem (HumanEval, rules)
PRIOR_METAMORPHIC_ACCEPT = 0.97  # of K variants per seed
PRIOR_AUGMENT_PER_PROBLEM = 3.0  # CPU seconds (of one worker) per problem (README: 445 s for 164 problems)
PRIOR_SECONDS_PER_VERDICT = 0.05
PRIOR_SECONDS_PER_ANSWER = 3.0
PRIOR_RUN_OVERHEAD = 0.4  # per run directory: prepare (cached), write the files, load them for the report
PRIOR_START = 3.0  # the process: imports, the sandbox workers


def costs_path() -> Path:
    return cache_dir() / "study" / "costs.json"


@dataclass
class Rate:
    """A measured rate: ``seconds`` over ``units`` (answers, verdicts, problems)."""

    seconds: float = 0.0
    units: int = 0

    @property
    def per_unit(self) -> float | None:
        return self.seconds / self.units if self.units else None

    def add(self, seconds: float, units: int) -> None:
        self.seconds += seconds
        self.units += units


@dataclass
class Costs:
    """This machine's measured rates, by what they measure."""

    answers: dict[str, Rate] = field(default_factory=dict)  # model identity|max_tokens -> seconds/answer
    loads: dict[str, float] = field(default_factory=dict)  # model identity -> seconds to load (in-process)
    verdicts: Rate = field(default_factory=Rate)  # sandbox seconds per verdict (wall)
    builds: dict[str, Rate] = field(
        default_factory=dict
    )  # transform|benchmark|offline/llm -> seconds/problem
    yields: dict[str, Rate] = field(default_factory=dict)  # same keys -> (variants, problems)
    # CPU seconds per problem (one worker's, like augment_budget_s; older files' wall seconds are not read)
    augment: Rate = field(default_factory=Rate)
    runs: Rate = field(default_factory=Rate)  # overhead per run directory
    start: Rate = field(default_factory=Rate)  # a study's fixed cost

    def to_json(self) -> dict[str, Any]:
        def rate(value: Rate) -> list[float]:
            return [value.seconds, value.units]

        return {
            "answers": {key: rate(value) for key, value in self.answers.items()},
            "loads": dict(self.loads),
            "verdicts": rate(self.verdicts),
            "builds": {key: rate(value) for key, value in self.builds.items()},
            "yields": {key: rate(value) for key, value in self.yields.items()},
            "augment_cpu": rate(self.augment),
            "runs": rate(self.runs),
            "start": rate(self.start),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Costs:
        def rate(value: Any) -> Rate:
            return (
                Rate(float(value[0]), int(value[1]))
                if isinstance(value, list) and len(value) == 2
                else Rate()
            )

        return cls(
            answers={key: rate(value) for key, value in (data.get("answers") or {}).items()},
            loads={key: float(value) for key, value in (data.get("loads") or {}).items()},
            verdicts=rate(data.get("verdicts")),
            builds={key: rate(value) for key, value in (data.get("builds") or {}).items()},
            yields={key: rate(value) for key, value in (data.get("yields") or {}).items()},
            augment=rate(data.get("augment_cpu")),
            runs=rate(data.get("runs")),
            start=rate(data.get("start")),
        )


def load_costs(path: Path | None = None) -> Costs:
    """The recorded costs; a missing or unreadable file is no measurement (nothing is lost by that)."""
    path = path or costs_path()
    try:
        return Costs.from_json(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, TypeError, AttributeError):
        return Costs()


def save_costs(costs: Costs, path: Path | None = None) -> None:
    """Keep the most recent measurements: each rate is capped so an old machine state fades out."""
    path = path or costs_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(path, json.dumps(costs.to_json(), indent=1, sort_keys=True) + "\n")


def merge(into: Rate, seconds: float, units: int, keep: int = 2000) -> None:
    """Add a measurement, keeping at most ``keep`` units of history (the rate is preserved when scaling)."""
    into.add(seconds, units)
    if into.units > keep:
        scale = keep / into.units
        into.seconds *= scale
        into.units = keep


def answer_key(identity: str, max_tokens: int) -> str:
    return f"{identity}|{max_tokens}"


def build_key(transform: str, benchmark: str, uses_llm: bool) -> str:
    return f"{transform}|{benchmark}|{'llm' if uses_llm else 'offline'}"


def cpu_count() -> int:
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1))
