"""The scenario pool: grown by an LLM through the real OpenAI SDK against a scripted loopback server,
de-duplicated in three steps, saved content-keyed under $BENCHMORPH_CACHE/scenarios and reused.

The server stands in for the model only; the requests, the cache, the reader and the de-duplication
are the real ones.  Its /v1/embeddings answers [len(text), text.count("a"), 1.0], so two texts with
the same length and number of a's have cosine 1: that is how the embedding step is exercised.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from benchmorph.data.errors import InputError
from benchmorph.models import GenerationParams, LLMCache, parse_spec
from benchmorph.morph.common.answers import read_json
from benchmorph.morph.common.scenario_prompts import parse_scenarios, scenario_request
from benchmorph.morph.common.scenarios import (
    BUILTIN_SCENARIOS,
    DedupSettings,
    ScenarioPool,
    find_pool,
    list_pools,
    load_or_grow_pool,
    pool_key,
)
from cli_runner import run_cli
from loopback_openai import ScriptedServer, request_text

LOGISTICS = next(s for s in BUILTIN_SCENARIOS if s.name == "Logistics")
# Same length and number of a's as the Logistics text, so the scripted embedding is identical; the words
# share nothing, so the normalised and fuzz steps let it through.
SAME_VECTOR = "Zoo keeping: animal feeding times, keepers and a vet visits log"

ROUND_ONE = [
    {"name": "banking", "description": "loans and savings"},  # same normalised name as a seed
    {
        "name": "Health care",
        "description": "patients, vital signs, appointments and prescriptions in clinics",
    },
    {"name": "Space exploration", "description": "satellites, orbits, fuel budgets and launch windows"},
    {"name": "Zoo keeping", "description": SAME_VECTOR.split(": ", 1)[1]},
    {"name": "Music streaming", "description": "songs, playlists, play counts and listener ratings"},
    {"name": "Space  Exploration!", "description": "satellites, orbits, fuel budgets and launch windows"},
]
# Round two answers in a fence, with single quotes and a trailing comma, after some prose.
ROUND_TWO = """Sure! Here are new domains:
```json
[{'name': 'Astronomy', 'description': 'stars, telescopes, brightness readings and observation nights'},
 {'name': 'Fisheries', 'description': 'boats, catches, quotas and harbour landings'},
 {'name': 'Museum curation', 'description': 'artworks, exhibitions, visitor counts and loans'},]
```"""
ROUND_THREE = """1. Parking management: parking spaces, tickets, hourly fees and occupancy
2. Hotel bookings: rooms, guests, check-in dates and nightly rates
3. Beekeeping: hives, honey harvests and colony health checks"""


def proposer(body: dict[str, Any]) -> str:
    text = request_text(body)
    assert "Propose 8 new domains" in text
    number = int(body.get("seed") or 0)
    if number == 1:
        return "Here you go:\n" + json.dumps(ROUND_ONE)
    if number == 2:
        return ROUND_TWO
    if number == 3:
        return ROUND_THREE
    return "I have no more ideas."


def test_scenario_answers_are_read_in_every_usual_shape() -> None:
    chat = scenario_request([(s.name, s.description) for s in BUILTIN_SCENARIOS[:3]], 4, "chat")
    assert "- Banking: accounts" in chat.messages[0][1] and "Propose 4 new domains" in chat.messages[0][1]
    assert parse_scenarios(chat, json.dumps(ROUND_ONE[:2])) == [
        ("banking", "loans and savings"),
        ("Health care", "patients, vital signs, appointments and prescriptions in clinics"),
    ]
    assert [name for name, _ in parse_scenarios(chat, ROUND_TWO)] == [
        "Astronomy",
        "Fisheries",
        "Museum curation",
    ]
    assert parse_scenarios(chat, ROUND_THREE)[1] == (
        "Hotel bookings",
        "rooms, guests, check-in dates and nightly rates",
    )
    assert parse_scenarios(chat, '{"domains": [{"name": "Ferries", "description": "crossings"}]}') == [
        ("Ferries", "crossings")
    ]
    assert parse_scenarios(chat, "I cannot help with that.") == []
    # A base model continues the numbered list: the reader puts the line's number back.
    completion = scenario_request([(s.name, s.description) for s in BUILTIN_SCENARIOS[:2]], 4, "completion")
    assert completion.prompt.endswith("\n3.") and completion.stop == ("\n\n",)
    assert parse_scenarios(completion, " Ferries: crossings and tickets\n4. Bakeries: loaves and ovens") == [
        ("Ferries", "crossings and tickets"),
        ("Bakeries", "loaves and ovens"),
    ]
    assert read_json("text {'a': [1, 2,],} more") == {"a": [1, 2]}
    assert read_json('{"a": true, "b": null}') == {"a": True, "b": None}
    assert read_json("no json here") is None


@pytest.mark.server
def test_the_pool_grows_deduplicates_is_saved_and_reused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BENCHMORPH_CACHE", str(tmp_path / "home"))
    with ScriptedServer(lambda text: "", answer_with_body=proposer) as server:
        generator = parse_spec(f"openai:gen@{server.base_url}")
        dedup = DedupSettings(cosine_threshold=0.9999999, embedder=f"openai:emb@{server.base_url}")
        params = GenerationParams(temperature=0.8, max_tokens=512)
        target = len(BUILTIN_SCENARIOS) + 8
        with LLMCache(tmp_path / "llm.sqlite") as cache:
            pool = load_or_grow_pool(generator, target, cache, params, dedup=dedup)
            asked = len(server.requests)
            again = load_or_grow_pool(generator, target, cache, params, dedup=dedup)
            assert len(server.requests) == asked  # reused from the file: no request, not even to the cache

        names = [s.name for s in pool.scenarios]
        assert names[: len(BUILTIN_SCENARIOS)] == [s.name for s in BUILTIN_SCENARIOS]
        assert names[len(BUILTIN_SCENARIOS) :] == [
            "Space exploration", "Music streaming", "Astronomy", "Fisheries", "Museum curation",
            "Parking management", "Hotel bookings", "Beekeeping",
        ]  # fmt: skip
        assert pool.complete and len(pool.scenarios) == target
        assert [s.origin for s in pool.scenarios[-3:]] == ["round-3"] * 3
        reasons = {item["scenario"]: item["reason"] for item in pool.metadata["rejected"]}
        assert reasons["banking: loans and savings"].startswith("normalised: same as #1")
        assert reasons[
            "Health care: patients, vital signs, appointments and prescriptions in clinics"
        ].startswith("fuzz: ratio")
        assert (
            reasons[SAME_VECTOR].startswith("embedding: cosine 1.0000")
            and "logistics" in reasons[SAME_VECTOR]
        )
        assert reasons["Space Exploration!: satellites, orbits, fuel budgets and launch windows"].startswith(
            "normalised: same as #13"
        )
        assert len(reasons) == 4
        assert pool.metadata["embedding"]["used"] is True and pool.metadata["rounds"] == 3
        assert pool.metadata["stopped"] == "reached the target"

        # Saved under $BENCHMORPH_CACHE/scenarios/<key>.json, the key a hash of what decides the pool.
        path = tmp_path / "home" / "scenarios" / f"{pool.key}.json"
        assert path.is_file() and again.to_json() == pool.to_json()
        assert pool.key == pool_key(generator, params, BUILTIN_SCENARIOS, target, dedup, 8)
        assert pool.key != pool_key(generator, params, BUILTIN_SCENARIOS, target + 1, dedup, 8)
        assert pool.key != pool_key(generator, params.model_copy(update={"temperature": 0.2}),
                                    BUILTIN_SCENARIOS, target, dedup, 8)  # fmt: skip
        # A run's seed is not part of the key: runs with different seeds share the pool.
        assert pool.key == pool_key(generator, params.model_copy(update={"seed": 7}), BUILTIN_SCENARIOS, target,
                                    dedup, 8)  # fmt: skip
        assert [found.key for _, found in list_pools()] == [pool.key]
        assert find_pool(pool.key[:6])[1].to_json() == pool.to_json()
        with pytest.raises(InputError, match="no scenario pool"):
            find_pool("zzzz")


@pytest.mark.server
def test_growth_stops_honestly_and_the_embedding_step_is_optional(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BENCHMORPH_CACHE", str(tmp_path / "home"))
    with ScriptedServer(lambda text: "", answer_with_body=proposer) as server:
        generator = parse_spec(f"openai:gen@{server.base_url}")
        params = GenerationParams(temperature=0.8, max_tokens=512)
        with LLMCache(tmp_path / "llm.sqlite") as cache:
            # No embedder: the step is off and the metadata says why.  Rounds 1-3 add 9 (the look-alike of
            # Logistics passes without embeddings); then three rounds add nothing and growth stops.
            short = load_or_grow_pool(generator, 40, cache, params)
            assert short.metadata["embedding"] == {
                "used": False, "embedder": None, "reason": "no embedder given (--embedder enables it)",
            }  # fmt: skip
            assert len(short.scenarios) == len(BUILTIN_SCENARIOS) + 9 and not short.complete
            assert "Zoo keeping" in [s.name for s in short.scenarios]
            assert short.metadata["stopped"] == "stopped after 3 rounds in a row that added no new scenario"
            assert short.metadata["errors"][-1] == "round 6: no scenario could be read from the answer"
            # An embedder that cannot embed switches the step off with its reason instead of failing.
            broken = load_or_grow_pool(
                generator, 14, cache, params, dedup=DedupSettings(embedder="reference")
            )
            assert broken.metadata["embedding"]["used"] is False
            assert "cannot embed text" in broken.metadata["embedding"]["reason"]
            # A target under the seed pool needs no LLM at all.
            before = len(server.requests)
            small = load_or_grow_pool(generator, 5, cache, params)
            assert len(server.requests) == before and len(small.scenarios) == 5
    assert ScenarioPool.from_json(
        json.loads((tmp_path / "home" / "scenarios" / f"{short.key}.json").read_text())
    )


@pytest.mark.server
def test_scenarios_cli_grows_and_shows(tmp_path: Path) -> None:
    cache = tmp_path / "home"
    with ScriptedServer(lambda text: "", answer_with_body=proposer) as server:
        spec = f"openai:gen@{server.base_url}"
        grown = run_cli("scenarios", "grow", "--generator", spec, "--scenarios", "15", cache=cache)
        assert grown.returncode == 0, grown.stderr
        assert "(grown): 15 of 15 scenarios" in grown.stdout and "embedding step off" in grown.stdout
        key = grown.stdout.split("pool ", 1)[1].split(" ", 1)[0]
        again = run_cli("scenarios", "grow", "--generator", spec, "--scenarios", "15", cache=cache)
        assert f"pool {key} (reused)" in again.stdout
    listed = run_cli("scenarios", "show", cache=cache)
    assert listed.returncode == 0 and key in listed.stdout and "15 of 15" in listed.stdout
    shown = run_cli("scenarios", "show", key[:8], cache=cache)
    assert shown.returncode == 0 and "Space exploration" in shown.stdout and "round-1" in shown.stdout
    assert "near-duplicates dropped: 2" in shown.stdout
    builtin = run_cli("scenarios", "show", "builtin", cache=cache)
    assert "Banking" in builtin.stdout and "12 of 12" in builtin.stdout
    missing = run_cli("scenarios", "show", "nosuchpool", cache=cache)
    assert missing.returncode == 2 and "no scenario pool 'nosuchpool'" in missing.stderr
    assert "Traceback" not in missing.stderr
