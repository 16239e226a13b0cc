"""The CTF-Code LLM pipeline end to end through the CLI, a loopback OpenAI-compatible server and the sandbox.

The server is scripted (this tests plumbing and every branch: CTF, Robust,
Bad, unparseable, identical, too far, needs_new_tests); the solutions it
returns are still executed for real, and D_S uses the real embedded model.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from benchmorph.data.formats.native import read_native
from benchmorph.data.registry import load_benchmark
from benchmorph.execution.engine import Engine
from benchmorph.morph.transforms.ctf.ctf import regenerate_tests
from cli_runner import run_cli
from loopback_openai import ScriptedServer, request_text

HUMANEVAL = load_benchmark("humaneval").by_id()
LONGEST = HUMANEVAL["HumanEval/12"]
TRUNCATE = HUMANEVAL["HumanEval/2"]


def proposal(prompt: str) -> str:
    return "Here is my counterfactual:\n" + json.dumps({"description": prompt})


def generator_answer(text: str, seed: int) -> str:
    if "def longest(" in text:
        return [
            proposal(
                LONGEST.prompt.replace("return the longest one", "return the longest one in upper case")
            ),
            "Sorry, I cannot help with that.",
            proposal(LONGEST.prompt.replace("Return the first one in case", "Return the last one in case")),
            proposal(
                LONGEST.prompt.replace(
                    "return the longest one", "return the first character of the longest one"
                )
            ),
        ][seed]
    return [
        proposal(TRUNCATE.prompt.replace("Return the decimal part", "Return the fractional part")),
        proposal(TRUNCATE.prompt),
        proposal(
            'def truncate_number(number: float) -> float:\n    """Return the number rounded up to a multiple of seven."""\n'
        ),
        '{"answer": "no description key here"}',
    ][seed]


SOLVER = {
    "in upper case": ["    return max(strings, key=len).upper() if strings else None\n"] * 3,
    "last one in case": [  # three different answers: no agreement
        "    return strings[-1] if strings else None\n",
        "    return max(strings, key=len) if strings else 'x'\n",
        "    return ''\n",
    ],
    "first character": ["    return max(strings, key=len)[0]\n"] * 3,  # raises on [] -> needs new tests
    "fractional part": ["    return number % 1.0\n"] * 3,  # same outputs as the original -> robust
}


def solver_answer(text: str, seed: int) -> str:
    for marker, bodies in SOLVER.items():
        if marker in text:
            problem = LONGEST if "longest(" in text else TRUNCATE
            return f"```python\n{problem.prompt}{bodies[seed % 3]}```"
    return "no idea"


def answer(body: dict[str, Any]) -> str:
    text = request_text(body)
    seed = int(body.get("seed") or 0)
    if "counterfactual versions of programming problems" in text:
        return generator_answer(text, seed)
    return solver_answer(text, seed)


@pytest.mark.server
def test_ctf_pipeline_covers_every_branch(tmp_path: Path) -> None:
    with ScriptedServer(lambda text: "", answer_with_body=answer) as server:
        args = ["morph", "ctf", "humaneval", "--tasks", "HumanEval/12,HumanEval/2"]
        args += ["--generator", f"openai:gen@{server.base_url}", "--solver", f"openai:sol@{server.base_url}"]
        args += ["--candidates", "4", "--solutions", "3", "--out", str(tmp_path / "ctf.jsonl")]
        result = run_cli(*args, cache=tmp_path / "cache")
        assert result.returncode == 0, result.stderr
        assert "HumanEval/2" in result.stderr and "no CTF candidate" in result.stderr

        candidates = {v.id: v for v in read_native(tmp_path / "ctf.candidates.jsonl")}
        outcome = {vid: (v.provenance["label"], v.provenance["stage"]) for vid, v in candidates.items()}
        assert outcome == {
            "HumanEval/12/ctf-0": ("ctf", "labelled"),
            "HumanEval/12/ctf-1": ("unparseable", "unparseable"),
            "HumanEval/12/ctf-2": ("bad", "labelled"),
            "HumanEval/12/ctf-3": ("ctf", "labelled"),
            "HumanEval/2/ctf-0": ("robust", "labelled"),
            "HumanEval/2/ctf-1": ("identical", "identical"),
            "HumanEval/2/ctf-2": ("too-far", "too-far"),
            "HumanEval/2/ctf-3": ("unparseable", "unparseable"),
        }
        bad = candidates["HumanEval/12/ctf-2"].provenance
        assert bad["agreement"]["agreeing"] == 1 and "no two solutions agree" in bad["reason"]
        assert candidates["HumanEval/2/ctf-2"].provenance["d_q"] > 0.13
        # Its solution cannot run on the inherited [] (the new problem rules it out): flagged, and rejected
        # because the description's own example `longest([])` cannot run either.
        needs = candidates["HumanEval/12/ctf-3"].provenance
        assert needs["needs_new_tests"] and "[]" in needs["needs_new_tests"][0]
        assert needs["check"] == "examples"
        # What an accepted one gets (finalize_ctf calls it for every accepted flagged variant): new valid
        # inputs from the test-generation engine, outputs from its own solution, and the flag goes.
        with Engine(workers=2) as engine:
            regenerated = regenerate_tests(candidates["HumanEval/12/ctf-3"], engine)
        again = regenerated.provenance
        assert "needs_new_tests" not in again, again["tests_regenerated"]
        assert (
            again["tests_regenerated"]["added"] > 0
            and "[]" in again["tests_regenerated"]["replaced_inputs"][0]
        )
        assert len(regenerated.tests) > 3 and all(t.has_expected for t in regenerated.tests)
        assert [] not in [t.input[0] for t in regenerated.tests]
        assert {t.origin for t in regenerated.tests} >= {"mutation"}
        for vid in ("HumanEval/12/ctf-0", "HumanEval/12/ctf-3"):
            prov = candidates[vid].provenance
            assert 0 < prov["d_q"] <= 0.13 and prov["d_s"] > 0 and 0 < prov["behavior_change"] <= 1
            assert prov["generator"].startswith("openai:gen@") and prov["solver"].startswith("openai:sol@")
            assert len(prov["prompt_hash"]) == 64 and prov["review_status"] == "unreviewed"

        variants = read_native(tmp_path / "ctf.jsonl")
        assert len(variants) == 1 and variants[0].parent_id == "HumanEval/12"
        chosen = variants[0]
        assert chosen.provenance["selected"] and chosen.label == "ctf"
        score = {
            vid: candidates[vid].provenance["d_s"] - 1.2 * candidates[vid].provenance["d_q"]
            for vid in ("HumanEval/12/ctf-0", "HumanEval/12/ctf-3")
        }
        assert chosen.id == max(score, key=score.get)
        assert all(t.has_expected for t in chosen.tests)

        # A second run asks the server nothing: every answer is cached.
        before = len(server.requests)
        again = run_cli(*args, cache=tmp_path / "cache")
        assert again.returncode == 0, again.stderr
        assert len(server.requests) == before


@pytest.mark.llm
@pytest.mark.server
def test_ctf_pipeline_with_the_real_local_model_is_honest_about_bad_candidates(tmp_path: Path) -> None:
    from llama_server import LlamaServer

    server = LlamaServer(tmp_path / "server.log")
    try:
        spec = f"openai:gemma-3-270m@{server.base_url}?mode=completion"
        args = ["morph", "ctf", "humaneval", "--limit", "3", "--generator", spec, "--solver", spec]
        args += [
            "--candidates",
            "2",
            "--solutions",
            "2",
            "--max-tokens",
            "160",
            "--out",
            str(tmp_path / "ctf.jsonl"),
        ]
        result = run_cli(*args, cache=tmp_path / "cache")
    finally:
        server.stop()
    assert result.returncode == 0, result.stderr
    candidates = read_native(tmp_path / "ctf.candidates.jsonl")
    assert len(candidates) == 6
    labels = {v.provenance["label"] for v in candidates}
    assert labels <= {"ctf", "robust", "bad", "unparseable", "identical", "too-far"}
    for candidate in candidates:
        assert candidate.provenance["raw"] is not None  # every answer is kept for review
        if candidate.provenance["label"] in {"ctf", "robust", "bad"}:
            assert candidate.provenance["agreement"]["solutions"] == 2
    variants = read_native(tmp_path / "ctf.jsonl") if (tmp_path / "ctf.jsonl").stat().st_size else []
    assert len(variants) == sum(1 for v in candidates if v.provenance["selected"])
    # The yield table names every status a candidate ended in, then the summary line counts the variants.
    assert all(str(v.provenance["status"]) in result.stdout for v in candidates)
    with_variant = len({v.parent_id for v in variants})
    assert f"{len(variants)} variants of {with_variant} of 3 problems" in result.stdout
    without = 3 - with_variant
    if without:
        assert "got no CTF candidate" in result.stderr


def test_label_can_demand_more_agreement_than_two() -> None:
    from benchmorph.execution.engine import Engine
    from benchmorph.morph.transforms.ctf.ctf import CtfCandidate, label

    shortest = LONGEST.prompt.replace("return the longest one", "return the shortest one")
    shortest_body = "    return min(strings, key=len) if strings else None\n"
    codes = [LONGEST.prompt + shortest_body] * 2 + [LONGEST.reference]
    with Engine(workers=1) as engine:
        parent = engine.prepare([LONGEST]).problems[0]
        relaxed = CtfCandidate(parent, "x/0", "g", "h", "raw", prompt=shortest, solutions=codes)
        strict = CtfCandidate(parent, "x/1", "g", "h", "raw", prompt=shortest, solutions=codes)
        label([relaxed], engine)
        label([strict], engine, min_agreement=3)
    assert relaxed.label == "ctf" and relaxed.agreement["agreeing"] == 2 and relaxed.agreement["groups"] == 2
    assert strict.label == "bad" and "only 2 solutions agree (at least 3 required)" in (strict.reason or "")
