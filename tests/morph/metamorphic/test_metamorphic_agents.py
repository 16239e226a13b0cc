"""The LLM metamorphic generator (DyCodeEval's agents) through the real OpenAI SDK, a scripted loopback
server and the real sandbox.

The server plays the model, one scripted behaviour per slot (which slot and attempt a context or rewrite
request belongs to is read from its seed, as the generator derives it); everything else is real: the
requests, the LLM cache, the readers, the prompt surgery, the judge's reading, and finalize_variants
running the parent's reference on every inherited input of real HumanEval and MBPP+ problems.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from benchmorph.data.formats.native import read_native
from benchmorph.data.models import Problem
from benchmorph.data.registry import load_benchmark
from benchmorph.execution.engine import Engine
from benchmorph.models import GenerationParams, LLMCache, RetryPolicy
from benchmorph.morph.common.docstrings import signature_of, split_prompt
from benchmorph.morph.common.judge import judge_request, parse_verdict
from benchmorph.morph.finalize import finalize_variants
from benchmorph.morph.transform import MorphContext
from benchmorph.morph.transforms.metamorphic.agents import _seed, acceptance_by_seed, llm_metamorphic_drafts
from benchmorph.morph.transforms.metamorphic.prompts import context_request, parse_contexts
from cli_runner import run_cli
from loopback_openai import ScriptedServer, request_text
from paths import MBPP_PLUS as MBPP_FILE
from paths import require_shared

HUMANEVAL = load_benchmark("humaneval").by_id()
CLOSE = HUMANEVAL["HumanEval/0"]  # has_close_elements
LONGEST = HUMANEVAL["HumanEval/12"]


@cache
def shared() -> Problem:
    """Mbpp/2, similar_elements: a text prompt with an assert (loaded when a test first needs it)."""
    require_shared(MBPP_FILE)
    return load_benchmark("mbpp+", MBPP_FILE).by_id()["Mbpp/2"]


CONTEXT_MARKER = "Give every parameter a meaning in the setting"
REWRITE_MARKER = "Retell a programming exercise in a new setting"
JUDGE_MARKER = "You review a retold programming exercise"
SLOT_OF = {_seed(0, index, attempt): (index, attempt) for index in range(2) for attempt in range(1, 4)}


def function_of(text: str) -> str:
    return next(name for name in ("has_close_elements", "longest", "similar_elements") if name in text)


def contexts(names: list[str]) -> str:
    return json.dumps({name: f"the {name} of the story" for name in names})


PARAMS = {"has_close_elements": ["numbers", "threshold"], "longest": ["strings"], "similar_elements":
          ["test_tup1", "test_tup2"]}  # fmt: skip
DESCRIPTIONS = {
    "has_close_elements": "A teller checks the list numbers of balances: answer True when some two of them "
    "differ by less than threshold, otherwise False.",
    "longest": "Among the names in strings pick the one with the most characters; on a tie keep the one that "
    "comes first, and give None when strings is empty.",
    "similar_elements": "Two shipments are recorded as test_tup1 and test_tup2; return the items that appear "
    "in both of them.",
}


class Script:
    """What the scripted model answers, and what it was asked."""

    def __init__(self) -> None:
        self.feedback: list[str] = []

    def __call__(self, body: dict[str, Any]) -> str:
        text = request_text(body)
        if JUDGE_MARKER in text:
            retold = text.split("Retold:", 1)[1]
            tag = re.search(r"\[(\w+)-(\d)-(\d)\]", retold)
            assert tag, retold
            function, index = tag.group(1), int(tag.group(2))
            if function == "longest" and index == 1:  # this judge never agrees
                return json.dumps({"preserved": False, "issues": ["the tie rule is gone"]})
            if function == "has_close_elements" and index == 1 and tag.group(3) == "1":
                return 'Verdict: {"preserved": false, "issues": ["drops the threshold comparison"]}'
            return '```json\n{"preserved": true, "issues": []}\n```'
        function = function_of(text)
        index, attempt = SLOT_OF[int(body["seed"])]
        if CONTEXT_MARKER in text:
            if function == "has_close_elements" and index == 0 and attempt == 1:
                return "Sure! numbers are the balances and threshold is the smallest gap."  # no JSON
            if function == "has_close_elements" and index == 0:
                # Fenced, single quotes, trailing comma: read tolerantly.
                return "```json\n{'numbers': 'the balances', 'threshold': 'the smallest gap',}\n```"
            return contexts(PARAMS[function])
        assert REWRITE_MARKER in text
        if "An earlier retelling was rejected" in text:
            self.feedback.append(text.split("An earlier retelling was rejected: ", 1)[1].split("\n", 1)[0])
        tag = f"[{function}-{index}-{attempt}]"
        if function == "longest" and index == 0:  # the model renames the parameter: a new signature
            return (
                "```python\nfrom typing import List, Optional\n\n\ndef longest(words: List[str]) -> Optional[str]:\n"
                f'    """{DESCRIPTIONS[function]} {tag}"""\n```'
            )
        return json.dumps({"description": f"{DESCRIPTIONS[function]} {tag}"})


def run(tmp_path: Path, server: ScriptedServer, engine: Engine, seed: int = 0, variants: int = 2, **kw: Any):
    notes: list[str] = []
    with LLMCache(tmp_path / "llm.sqlite") as cache:
        ctx = MorphContext(engine=engine, cache=cache, seed=seed)
        drafts, records = llm_metamorphic_drafts(
            [CLOSE, LONGEST, shared()], ctx, variants=variants, scenarios=12, retries=1,
            generator=f"openai:gen@{server.base_url}", notes=notes, **kw,
        )  # fmt: skip
    return drafts, records, notes


@pytest.mark.server
def test_every_agent_branch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, engine: Engine) -> None:
    monkeypatch.setenv("BENCHMORPH_CACHE", str(tmp_path / "home"))
    script = Script()
    with ScriptedServer(lambda text: "", answer_with_body=script) as server:
        drafts, records, notes = run(tmp_path, server, engine)
        asked = len(server.requests)
        again, again_records, _ = run(tmp_path, server, engine)
        assert len(server.requests) == asked  # a second run is answered by the cache
    assert [d.variant.prompt for d in again] == [d.variant.prompt for d in drafts]
    assert [r.id for r in again_records] == [r.id for r in records]

    accepted = {draft.variant.id: draft.variant for draft in drafts}
    assert sorted(accepted) == [
        "HumanEval/0/meta-0", "HumanEval/0/meta-1", "Mbpp/2/meta-0", "Mbpp/2/meta-1",
    ]  # fmt: skip
    decided = {record.id: record.provenance for record in records}
    assert {rid: (p["status"], p["check"]) for rid, p in decided.items()} == {
        "HumanEval/0/meta-0/attempt-1": ("rejected", "context"),
        "HumanEval/0/meta-1/attempt-1": ("rejected", "judge"),
        "HumanEval/12/meta-0/attempt-1": ("rejected", "signature"),
        "HumanEval/12/meta-0": ("rejected", "signature"),
        "HumanEval/12/meta-1/attempt-1": ("rejected", "judge"),
        "HumanEval/12/meta-1": ("rejected", "judge"),
    }

    # Unparseable context JSON: the attempt is rejected with its reason, the contexts are asked again.
    first = decided["HumanEval/0/meta-0/attempt-1"]
    assert (
        first["reason"] == "the contexts cannot be read: no JSON object in the answer"
        and first["regenerated"]
    )
    recovered = accepted["HumanEval/0/meta-0"].provenance
    assert recovered["attempts"] == 2 and recovered["failed_attempts"][0]["check"] == "context"
    assert recovered["contexts"] == {
        "numbers": {"type": "list[float]", "meaning": "the balances"},
        "threshold": {"type": "float", "meaning": "the smallest gap"},
    }
    # A judge rejection: the rewrite is asked again, told why, and the new one is accepted.
    judged = decided["HumanEval/0/meta-1/attempt-1"]
    assert judged["reason"] == "the judge says the meaning changed: drops the threshold comparison"
    assert judged["judge_verdict"] == {"preserved": False, "issues": ["drops the threshold comparison"]}
    assert (
        script.feedback.count(
            "the judge says the meaning changed: drops the threshold comparison. Do not repeat that mistake."
        )
        == 1
    )
    assert not any("contexts" in line for line in script.feedback)
    second = accepted["HumanEval/0/meta-1"].provenance
    assert second["attempts"] == 2 and second["judge_verdict"] == {"preserved": True, "issues": []}
    assert "[has_close_elements-1-2]" in accepted["HumanEval/0/meta-1"].prompt
    # Retries run out: the slot is dropped with its reason.
    dropped = decided["HumanEval/12/meta-1"]
    assert (
        dropped["reason"]
        == "dropped after 2 attempts; last: the judge says the meaning changed: the tie rule is gone"
    )
    assert not dropped["regenerated"] and dropped["attempts"] == 2
    # A rewrite that changes the signature is rejected by check (b), and stays rejected.
    renamed = decided["HumanEval/12/meta-0"]
    assert renamed["reason"].startswith(
        "dropped after 2 attempts; last: the rewrite changes the signature of longest()"
    )
    assert "def longest(words: List[str])" in renamed["reason"]

    # Accepted variants: the original def line and examples, byte for byte, around the retold description.
    for variant in accepted.values():
        parent = CLOSE if variant.parent_id == "HumanEval/0" else shared()
        parts = split_prompt(parent)
        assert not isinstance(parts, str)
        assert variant.prompt.startswith(parts.before) and variant.prompt.endswith(
            parts.examples + parts.after
        )
        assert signature_of(variant.prompt, parent.entry_point) == signature_of(
            parent.prompt, parent.entry_point
        )
        assert parts.text not in variant.prompt
        assert variant.transform == "metamorphic" and variant.label == "metamorphic"
        assert variant.provenance["generator"].startswith("openai:gen@")
        assert variant.provenance["judge"] == variant.provenance["generator"]
        assert variant.provenance["scenario"]["origin"] == "builtin"
        assert variant.provenance["scenario_pool"]["size"] == 12
        assert variant.provenance["scenario_pool"]["embedding"]["used"] is False
    assert "assert similar_elements((3, 4, 5, 6),(5, 7, 4, 10)) == (4, 5)" in accepted["Mbpp/2/meta-0"].prompt
    # The two variants of a seed are set in two different scenarios.
    assert len({accepted[f"Mbpp/2/meta-{i}"].provenance["scenario"]["name"] for i in range(2)}) == 2

    # Acceptance per seed problem, in every draft's and record's provenance.
    assert acceptance_by_seed([d.variant for d in drafts] + records) == {
        "HumanEval/0": {"accepted": 2, "variants": 2, "attempts": 4, "rate": 1.0},
        "HumanEval/12": {"accepted": 0, "variants": 2, "attempts": 4, "rate": 0.0},
        "Mbpp/2": {"accepted": 2, "variants": 2, "attempts": 2, "rate": 1.0},
    }
    assert any("4 of 6 variants accepted (67%) in 10 attempts over 3 seed problems" in note for note in notes)
    assert any(note.startswith("scenario pool ") and "12 of 12 scenarios" in note for note in notes)

    # The drafts are ready for the caller's finalize_variants: the reference passes, every output kept.
    finalized = finalize_variants(drafts, engine)
    assert len(finalized.variants) == 4
    for variant in finalized.variants:
        parent = engine.prepare([CLOSE if variant.parent_id == "HumanEval/0" else shared()]).problems[0]
        assert [t.expected for t in variant.tests] == [t.expected for t in parent.tests]
        assert variant.provenance["behavior_change"] == 0.0


@pytest.mark.server
def test_a_different_seed_samples_other_scenarios_from_the_same_pool(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, engine: Engine
) -> None:
    monkeypatch.setenv("BENCHMORPH_CACHE", str(tmp_path / "home"))

    def agreeable(body: dict[str, Any]) -> str:
        text = request_text(body)
        if JUDGE_MARKER in text:
            return '{"preserved": true, "issues": []}'
        if CONTEXT_MARKER in text:
            return contexts(PARAMS["similar_elements"])
        scenario = text.split("Setting: ", 1)[1].split(":", 1)[0]
        return json.dumps({"description": f"In {scenario}, {DESCRIPTIONS['similar_elements']}"})

    chosen = {}
    with ScriptedServer(lambda text: "", answer_with_body=agreeable) as server:
        for seed in (0, 1):
            notes: list[str] = []
            with LLMCache(tmp_path / "llm.sqlite") as cache:
                ctx = MorphContext(engine=engine, cache=cache, seed=seed)
                drafts, records = llm_metamorphic_drafts(
                    [shared()], ctx, variants=3, scenarios=12, retries=0, generator=f"openai:gen@{server.base_url}",
                    notes=notes,
                )  # fmt: skip
            assert len(drafts) == 3 and records == []
            pools = {d.variant.provenance["scenario_pool"]["key"] for d in drafts}
            chosen[seed] = ([d.variant.provenance["scenario"]["name"] for d in drafts], pools)
    assert chosen[0][1] == chosen[1][1]  # one pool
    assert chosen[0][0] != chosen[1][0]  # different samples from it


def test_context_and_verdict_readers() -> None:
    request = context_request(
        "Banking: accounts", "def f(a: list[int], b: int)", ["a", "b"], "Sum a up to b.", "chat"
    )
    assert (
        '{"a": "<its meaning in the setting>", "b": "<its meaning in the setting>"}' in request.messages[0][1]
    )
    assert parse_contexts(request, 'Here: {"a": "balances", "b": "a limit"}', ["a", "b"]) == (
        {"a": "balances", "b": "a limit"}, None,
    )  # fmt: skip
    assert parse_contexts(request, '{"a": "balances"}', ["a", "b"]) == (None, "no meaning for parameter b")
    assert parse_contexts(request, "{'a': 'x', 'b': 'y',", ["a", "b"]) == (
        None,
        "no JSON object in the answer",
    )
    base = context_request(
        "Banking: accounts", "def f(a: list[int], b: int)", ["a", "b"], "Sum a.", "completion"
    )
    assert base.prompt.endswith('{"a": "')
    assert parse_contexts(base, 'balances", "b": "a limit"', ["a", "b"]) == (
        {"a": "balances", "b": "a limit"},
        None,
    )
    assert parse_contexts(base, "balances\n\nmore", ["a"]) == ({"a": "balances"}, None)
    judge = judge_request("def f(): ...", "def f(): ...", "completion")
    assert parse_verdict(judge, ' true, "issues": []') == (True, [], None)
    assert parse_verdict(judge, " maybe") == (None, [], "no JSON verdict in the answer")
    chat = judge_request("a", "b", "chat")
    assert parse_verdict(chat, "{'preserved': 'no', 'issues': 'drops x'}") == (False, ["drops x"], None)
    assert parse_verdict(chat, '{"issues": []}') == (None, [], "the verdict has no true/false 'preserved'")


def agreeable(body: dict[str, Any]) -> str:
    """A model that always retells the task in the scenario it is given, and a judge that agrees."""
    text = request_text(body)
    if JUDGE_MARKER in text:
        return '{"preserved": true, "issues": []}'
    function = function_of(text)
    if CONTEXT_MARKER in text:
        return contexts(PARAMS[function])
    scenario = text.split("Setting: ", 1)[1].split(":", 1)[0]
    return json.dumps({"description": f"In {scenario}: {DESCRIPTIONS[function]}"})


@pytest.mark.server
def test_morph_run_metamorphic_with_an_llm_generator_end_to_end(tmp_path: Path) -> None:
    pytest.importorskip(
        "benchmorph.morph.transforms.metamorphic.metamorphic",
        reason="the metamorphic transform is not built yet",
    )
    with ScriptedServer(lambda text: "", answer_with_body=agreeable) as server:
        args = ["morph", "run", "metamorphic", "humaneval", "--generator", f"openai:gen@{server.base_url}"]
        args += [
            "--tasks",
            "HumanEval/0",
            "--variants",
            "2",
            "--scenarios",
            "12",
            "--out",
            str(tmp_path / "v.jsonl"),
        ]
        result = run_cli(*args, cache=tmp_path / "home")
    assert result.returncode == 0, result.stderr
    variants = read_native(tmp_path / "v.jsonl")
    assert [v.id for v in variants] == ["HumanEval/0/meta-0", "HumanEval/0/meta-1"]
    for variant in variants:
        assert variant.prompt.startswith(CLOSE.prompt.split('"""')[0])
        assert "In " in variant.prompt and ">>> has_close_elements([1.0, 2.0, 3.0], 0.5)" in variant.prompt
        assert variant.provenance["seed_acceptance"]["rate"] == 1.0
        assert all(test.has_expected for test in variant.tests)
    assert "2 of 2 variants accepted" in result.stdout + result.stderr
    assert (tmp_path / "home" / "scenarios").is_dir()


@pytest.mark.slow
@pytest.mark.llm
@pytest.mark.server
def test_the_local_model_through_llama_cpp_server_reports_its_acceptance(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, engine: Engine
) -> None:
    """Gemma 3 270M (a base model, completion prompts) on three problems: it must finish and say how it did."""
    from llama_server import LlamaServer

    server = LlamaServer(tmp_path / "server.log")  # before the cache moves: the GGUF is assembled once
    monkeypatch.setenv("BENCHMORPH_CACHE", str(tmp_path / "home"))
    notes: list[str] = []
    try:
        with LLMCache(tmp_path / "llm.sqlite") as cache:
            ctx = MorphContext(engine=engine, cache=cache, seed=0)
            drafts, records = llm_metamorphic_drafts(
                [CLOSE, LONGEST, shared()], ctx, variants=1, scenarios=14, retries=1,
                generator=f"openai:gemma-3-270m@{server.base_url}?mode=completion",
                params=GenerationParams(temperature=0.8, max_tokens=160, seed=0), notes=notes,
                policy=RetryPolicy(retries=1, base_delay=0.5, timeout=120),
            )  # fmt: skip
        exit_code = server.process.poll()  # None: the server is still up; -11: llama.cpp crashed
    finally:
        server.stop()
    rates = acceptance_by_seed([draft.variant for draft in drafts] + records)
    assert set(rates) == {"HumanEval/0", "HumanEval/12", "Mbpp/2"}
    for parent_id, value in rates.items():
        accepted = sum(1 for draft in drafts if draft.variant.parent_id == parent_id)
        assert value["accepted"] == accepted and value["variants"] == 1 and 1 <= value["attempts"] <= 2
    # Every slot is either accepted or dropped with a check and a reason; nothing is lost.
    dropped = [record for record in records if "/attempt-" not in record.id]
    assert len(drafts) + len(dropped) == 3
    assert all(record.provenance["check"] and record.provenance["reason"] for record in records)
    summary = next(note for note in notes if note.startswith("LLM metamorphic generator:"))
    assert f"{len(drafts)} of 3 variants accepted" in summary
    print(
        summary, f"(llama_cpp.server exit status during the run: {exit_code})"
    )  # for the record (pytest -s)
    for record in records:
        print(record.id, record.provenance["check"], record.provenance["reason"][:160])
    print(next(note for note in notes if note.startswith("scenario pool ")))
