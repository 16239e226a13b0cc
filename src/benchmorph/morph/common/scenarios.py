"""The scenario pool of the metamorphic generator: built-in domains, grown by an LLM, de-duplicated, saved.

DyCodeEval retells each problem in an application domain sampled from a
pool.  The pool starts from :data:`BUILTIN_SCENARIOS` and an LLM grows it in
rounds, each round shown a few examples drawn from the pool so far, until it
holds the target number.  A proposal joins only if it is not a near-duplicate
of a scenario already in (three steps, cheapest first: the same normalised
name or text; a rapidfuzz ratio at or above ``fuzz_threshold``; an embedding
cosine at or above ``cosine_threshold`` when an embedder is given and works;
the pool's metadata says whether the embedding step ran).

A pool depends only on the generator, its sampling parameters, the seed pool,
the target size and the de-duplication settings, never on a run's ``--seed``:
its rounds use their own fixed seeds, so two runs with different seeds share
one pool and differ only in which scenarios they sample from it.  It is saved
under ``$BENCHMORPH_CACHE/scenarios/<key>.json`` (the key is a hash of those
inputs) and reused; every LLM answer also goes through the LLM cache.
"""

from __future__ import annotations

import json
import math
import random
import re
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from rapidfuzz import fuzz

from benchmorph.core.progress import Advance, ProgressFactory, no_progress
from benchmorph.data.errors import InputError
from benchmorph.data.paths import cache_dir
from benchmorph.models import GenerationError, GenerationParams, LLMCache, ModelSpec, RetryPolicy, embed
from benchmorph.models.ask import ask
from benchmorph.models.cache import hash_key
from benchmorph.morph.common.scenario_prompts import parse_scenarios, scenario_request

POOL_FORMAT = 1


@dataclass(frozen=True)
class Scenario:
    """An application domain: a short name and one line on the data it deals with."""

    name: str
    description: str
    origin: str = "builtin"  # builtin, or the round that proposed it ("round-3")

    @property
    def text(self) -> str:
        return f"{self.name}: {self.description}" if self.description else self.name

    def to_json(self) -> dict[str, str]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Scenario:
        return cls(str(data["name"]), str(data.get("description", "")), str(data.get("origin", "builtin")))


BUILTIN_SCENARIOS: tuple[Scenario, ...] = (
    Scenario("Banking", "accounts, deposits, withdrawals and transfers at a retail bank"),
    Scenario("Healthcare", "patients, vital signs, appointments and prescriptions in a clinic"),
    Scenario("Education", "students, grades, courses and exam timetables at a school"),
    Scenario("Logistics", "parcels, warehouses, delivery routes and truck loads"),
    Scenario("Online retail", "products, shopping carts, orders and customer reviews"),
    Scenario("Weather monitoring", "temperature, rainfall and wind readings from weather stations"),
    Scenario("Sports analytics", "players, match scores, league tables and training statistics"),
    Scenario("Social media", "posts, likes, followers and comment threads"),
    Scenario("Agriculture", "fields, crop yields, irrigation and harvest records on a farm"),
    Scenario("Public transport", "bus timetables, passenger counts and ticket sales in a city"),
    Scenario("Library management", "books, loans, returns and reservations"),
    Scenario("Energy grid", "power plants, meter readings and hourly electricity demand"),
)


@dataclass(frozen=True)
class DedupSettings:
    """How near two scenarios may be: fuzz ratio (0-100) and embedding cosine, with the embedder to use."""

    fuzz_threshold: float = 85.0
    cosine_threshold: float = 0.92
    embedder: str | None = None  # a model spec that can embed; None skips the embedding step

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class ScenarioPool:
    """The pool and how it came to be: what was asked, what was dropped and why."""

    key: str
    scenarios: list[Scenario]
    target: int
    generator: str | None  # the generator's identity; None for the built-in pool
    params: dict[str, Any] = field(default_factory=dict)
    dedup: DedupSettings = field(default_factory=DedupSettings)
    metadata: dict[str, Any] = field(default_factory=dict)

    @property
    def complete(self) -> bool:
        return len(self.scenarios) >= self.target

    def sample(self, count: int, rng: random.Random) -> list[Scenario]:
        """``count`` scenarios, distinct while the pool lasts (then it is sampled again)."""
        picked: list[Scenario] = []
        while len(picked) < count and self.scenarios:
            picked += rng.sample(self.scenarios, min(len(self.scenarios), count - len(picked)))
        return picked

    def to_json(self) -> dict[str, Any]:
        return {
            "format": POOL_FORMAT,
            "key": self.key,
            "target": self.target,
            "generator": self.generator,
            "params": self.params,
            "dedup": self.dedup.to_json(),
            "metadata": self.metadata,
            "scenarios": [scenario.to_json() for scenario in self.scenarios],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any], where: str = "scenario pool") -> ScenarioPool:
        try:
            return cls(
                key=str(data["key"]),
                scenarios=[Scenario.from_json(item) for item in data["scenarios"]],
                target=int(data["target"]),
                generator=data.get("generator"),
                params=dict(data.get("params") or {}),
                dedup=DedupSettings(**(data.get("dedup") or {})),
                metadata=dict(data.get("metadata") or {}),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise InputError(f"{where}: not a scenario pool ({type(exc).__name__}: {exc})") from None


# ------------------------------------------------------------------ de-duplication


def normalise(text: str) -> str:
    """Lower case, punctuation gone, single spaces: the text two spellings of one scenario share."""
    return " ".join(re.sub(r"[^\w\s]", " ", text.lower()).split())


class Deduper:
    """Decides whether a proposed scenario is a near-duplicate of one already in the pool.

    The embedding step runs only when an embedder is configured and answers;
    if it fails, the step is switched off and :attr:`embedding` says why.
    """

    def __init__(self, settings: DedupSettings, cache: LLMCache | None = None) -> None:
        self.settings = settings
        self.cache = cache
        self.names: list[str] = []
        self.texts: list[str] = []
        self.vectors: list[np.ndarray] = []
        self.embedding: dict[str, Any] = (
            {"used": True, "embedder": settings.embedder}
            if settings.embedder
            else {"used": False, "embedder": None, "reason": "no embedder given (--embedder enables it)"}
        )

    def _embed(self, texts: list[str]) -> list[np.ndarray] | None:
        if not self.embedding["used"] or not texts:
            return None
        try:
            rows = embed(texts, self.settings.embedder or "", self.cache)
        except (GenerationError, InputError) as exc:
            self.embedding = {
                "used": False,
                "embedder": self.settings.embedder,
                "reason": f"the embedder failed, step skipped: {str(exc).splitlines()[0][:200]}",
            }
            self.vectors = []
            return None
        return [np.asarray(row, dtype=np.float64) for row in rows]

    def add(self, scenarios: Sequence[Scenario]) -> None:
        """Take scenarios into the pool without checking them (the seed pool)."""
        self.names += [normalise(s.name) for s in scenarios]
        self.texts += [normalise(s.text) for s in scenarios]
        vectors = self._embed([s.text for s in scenarios])
        if vectors is not None:
            self.vectors += vectors

    def duplicate(self, scenario: Scenario) -> str | None:
        """Why ``scenario`` is a near-duplicate of one already taken (None when it is new)."""
        name, text = normalise(scenario.name), normalise(scenario.text)
        if not name:
            return "normalised: empty name"
        for index, (known_name, known_text) in enumerate(zip(self.names, self.texts, strict=True)):
            if name == known_name or text == known_text:
                return f"normalised: same as #{index + 1} '{known_text}'"
        for index, known_text in enumerate(self.texts):
            ratio = fuzz.ratio(text, known_text)
            if ratio >= self.settings.fuzz_threshold:
                return f"fuzz: ratio {ratio:.0f} >= {self.settings.fuzz_threshold:g} with #{index + 1} '{known_text}'"
        if self.embedding["used"] and self.vectors:
            vectors = self._embed([scenario.text])
            if vectors is not None:
                vector = vectors[0]
                norms = np.array([np.linalg.norm(v) for v in self.vectors]) * (np.linalg.norm(vector) or 1.0)
                cosines = np.array([float(np.dot(v, vector)) for v in self.vectors]) / np.where(
                    norms, norms, 1.0
                )
                best = int(np.argmax(cosines))
                if cosines[best] >= self.settings.cosine_threshold:
                    return (
                        f"embedding: cosine {cosines[best]:.4f} >= {self.settings.cosine_threshold:g} "
                        f"with #{best + 1} '{self.texts[best]}'"
                    )
        return None

    def accept(self, scenario: Scenario) -> None:
        """Take a scenario that :meth:`duplicate` found new."""
        self.names.append(normalise(scenario.name))
        self.texts.append(normalise(scenario.text))
        if self.embedding["used"] and self.vectors:
            vectors = self._embed([scenario.text])  # cached: it was embedded by duplicate()
            if vectors is not None:
                self.vectors.append(vectors[0])


# ------------------------------------------------------------------ growing and keeping pools


def pools_dir() -> Path:
    """``$BENCHMORPH_CACHE/scenarios``: where pools are kept."""
    return cache_dir() / "scenarios"


def pool_key(
    generator: ModelSpec | None,
    params: GenerationParams,
    seeds: Sequence[Scenario],
    target: int,
    dedup: DedupSettings,
    per_round: int,
) -> str:
    """The content key of a pool: everything that decides what it holds, and nothing else (no run seed)."""
    payload = {
        "format": POOL_FORMAT,
        "generator": generator.identity() if generator is not None else None,
        "params": _pool_params(params),
        "seeds": [s.text for s in seeds],
        "target": target,
        "dedup": dedup.to_json(),
        "per_round": per_round,
    }
    return hash_key(payload)[:20]


def _pool_params(params: GenerationParams) -> dict[str, Any]:
    return {"temperature": params.temperature, "top_p": params.top_p, "max_tokens": params.max_tokens}


def builtin_pool(target: int | None = None) -> ScenarioPool:
    """The seed pool as a pool of its own (what `scenarios show builtin` prints)."""
    seeds = list(BUILTIN_SCENARIOS)
    return ScenarioPool(
        key="builtin",
        scenarios=seeds,
        target=target or len(seeds),
        generator=None,
        metadata={"rounds": 0, "embedding": {"used": False, "reason": "built-in pool: nothing to compare"}},
    )


def grow_pool(
    generator: ModelSpec,
    target: int,
    cache: LLMCache,
    params: GenerationParams,
    *,
    seeds: Sequence[Scenario] = BUILTIN_SCENARIOS,
    dedup: DedupSettings | None = None,
    per_round: int = 8,
    shots: int = 6,
    max_rounds: int | None = None,
    policy: RetryPolicy | None = None,
    progress: ProgressFactory = no_progress,
) -> ScenarioPool:
    """Grow ``seeds`` to ``target`` scenarios with ``generator``, round by round, dropping near-duplicates.

    Round ``r`` shows ``shots`` examples drawn from the pool with
    ``random.Random(r)`` and asks for ``per_round`` new scenarios with seed
    ``r``; neither depends on a run's seed.  Growth stops at the target, after
    ``max_rounds`` (default: three times the rounds the target needs, at
    least 5) or after three rounds in a row that added nothing; the metadata
    says which, and lists every dropped proposal with its reason.
    """
    dedup = dedup or DedupSettings()
    key = pool_key(generator, params, seeds, target, dedup, per_round)
    pool = list(seeds)[: max(target, 0)]
    deduper = Deduper(dedup, cache)
    deduper.add(pool)
    rejected: list[dict[str, str]] = []
    errors: list[str] = []
    missing = max(0, target - len(pool))
    max_rounds = max_rounds if max_rounds is not None else max(5, 3 * math.ceil(missing / per_round))
    rounds = idle = 0
    stopped = "reached the target" if missing == 0 else ""
    with progress(f"scenario pool: grow to {target}", missing or None) as advance:
        while len(pool) < target:
            if rounds >= max_rounds:
                stopped = f"stopped after {rounds} rounds (the most allowed)"
                break
            if idle >= 3:
                stopped = f"stopped after {idle} rounds in a row that added no new scenario"
                break
            rounds += 1
            added = _one_round(
                rounds, pool, generator, cache, params, deduper, per_round, shots, target, policy,
                rejected, errors, advance,
            )  # fmt: skip
            idle = 0 if added else idle + 1
        else:
            stopped = "reached the target"
    metadata = {
        "rounds": rounds,
        "stopped": stopped,
        "embedding": deduper.embedding,
        "rejected": rejected,
        "errors": errors,
        "seeds": len(seeds),
    }
    return ScenarioPool(key, pool, target, generator.identity(), _pool_params(params), dedup, metadata)


def _one_round(
    number: int,
    pool: list[Scenario],
    generator: ModelSpec,
    cache: LLMCache,
    params: GenerationParams,
    deduper: Deduper,
    per_round: int,
    shots: int,
    target: int,
    policy: RetryPolicy | None,
    rejected: list[dict[str, str]],
    errors: list[str],
    advance: Advance,
) -> int:
    """Ask once, keep the new proposals; returns how many joined the pool."""
    examples = random.Random(number).sample(pool, min(shots, len(pool)))
    request = scenario_request([(s.name, s.description) for s in examples], per_round, generator.mode)
    report = ask(
        [request], generator, params.model_copy(update={"n": 1, "seed": number}), cache, policy=policy
    )
    answer = report.answers[0][0]
    if answer.text is None:
        errors.append(f"round {number}: {answer.error or 'no answer'}")
        return 0
    proposals = parse_scenarios(request, answer.text)
    if not proposals:
        errors.append(f"round {number}: no scenario could be read from the answer")
    added = 0
    for name, description in proposals:
        if len(pool) >= target:
            break
        scenario = Scenario(name, description, f"round-{number}")
        reason = deduper.duplicate(scenario)
        if reason is not None:
            rejected.append({"scenario": scenario.text, "round": str(number), "reason": reason})
            continue
        deduper.accept(scenario)
        pool.append(scenario)
        added += 1
        advance(1)
    return added


def pool_path(key: str, root: Path | None = None) -> Path:
    return (root or pools_dir()) / f"{key}.json"


def save_pool(pool: ScenarioPool, root: Path | None = None) -> Path:
    """Write the pool as ``<key>.json`` (atomically: a reader never sees half a pool)."""
    path = pool_path(pool.key, root)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".partial")
    partial.write_text(json.dumps(pool.to_json(), indent=1, ensure_ascii=False) + "\n")
    partial.replace(path)
    return path


def read_pool(path: Path) -> ScenarioPool:
    """A saved pool; a file that is not one is an InputError naming it."""
    try:
        data = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise InputError(f"{path}: cannot read a scenario pool ({exc})") from None
    if not isinstance(data, dict):
        raise InputError(f"{path}: not a scenario pool (a JSON object is expected)")
    return ScenarioPool.from_json(data, where=str(path))


def list_pools(root: Path | None = None) -> list[tuple[Path, ScenarioPool]]:
    """Every saved pool, newest first."""
    folder = root or pools_dir()
    if not folder.is_dir():
        return []
    paths = sorted(folder.glob("*.json"), key=lambda p: p.stat().st_mtime, reverse=True)
    return [(path, read_pool(path)) for path in paths]


def find_pool(name: str, root: Path | None = None) -> tuple[Path | None, ScenarioPool]:
    """A pool by file path, key or unique key prefix; ``builtin`` is the seed pool."""
    if name == "builtin":
        return None, builtin_pool()
    path = Path(name)
    if path.suffix == ".json" and path.is_file():
        return path, read_pool(path)
    matches = [(p, pool) for p, pool in list_pools(root) if pool.key.startswith(name)]
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise InputError(f"no scenario pool '{name}' (see `benchmorph scenarios show`)")
    raise InputError(f"scenario pool '{name}' is ambiguous: {', '.join(pool.key for _, pool in matches)}")


def load_or_grow_pool(
    generator: ModelSpec,
    target: int,
    cache: LLMCache,
    params: GenerationParams,
    *,
    seeds: Sequence[Scenario] = BUILTIN_SCENARIOS,
    dedup: DedupSettings | None = None,
    per_round: int = 8,
    root: Path | None = None,
    policy: RetryPolicy | None = None,
    progress: ProgressFactory = no_progress,
    on_saved: Callable[[Path, bool], None] | None = None,
) -> ScenarioPool:
    """The saved pool for these inputs if there is one, else a freshly grown (and saved) one.

    A pool that stopped short of its target is saved and reused too: it is
    what these inputs produce (asking again would replay the same cached
    answers).  ``on_saved(path, reused)`` is told where the pool lives.
    """
    dedup = dedup or DedupSettings()
    key = pool_key(generator, params, seeds, target, dedup, per_round)
    path = pool_path(key, root)
    if path.is_file():
        pool = read_pool(path)
        if on_saved:
            on_saved(path, True)
        return pool
    pool = grow_pool(
        generator, target, cache, params, seeds=seeds, dedup=dedup, per_round=per_round, policy=policy,
        progress=progress,
    )  # fmt: skip
    saved = save_pool(pool, root)
    if on_saved:
        on_saved(saved, False)
    return pool
