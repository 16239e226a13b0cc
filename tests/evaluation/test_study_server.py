"""`benchmorph study` through a real OpenAI-compatible server: a loopback llama_cpp.server with the embedded
GGUF is the studied model and, with --generator, the generator of the LLM halves (ctf, the metamorphic agents,
an LLM evolve type).  Requests are counted from the server's own access log: the study reaches it, and a
second run of the same study does not.

The embedded model is a 270M base model: its LLM-made variants are expected to be rejected by the checks
(an LLM set may be empty, and says so), which is the plumbing this test is about, not their quality.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("llama_cpp.server", reason="llama-cpp-python[server] is part of the test install")

from cli_runner import run_cli  # noqa: E402
from llama_server import LlamaServer  # noqa: E402

pytestmark = [pytest.mark.llm, pytest.mark.server, pytest.mark.slow]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaServer]:
    running = LlamaServer(tmp_path_factory.mktemp("llama") / "server.log")
    yield running
    running.stop()


def test_a_study_through_llama_server_with_the_llm_halves(server: LlamaServer, tmp_path: Path) -> None:
    spec = f"openai:gemma-3-270m@{server.base_url}?mode=completion"
    # HumanEval/9 has a mined counterfactual and /30 an offline retelling at its first attempt under
    # today's gates (42 had none once the retelling gates of issue 24 landed, 31 none once the
    # turned-round rule of review24c did, so no offline metamorphic set was run).
    args = [
        "study", "humaneval", "--model", spec, "--generator", spec, "--tasks", "HumanEval/9,HumanEval/30",
        "--variants", "1", "--min-problems", "1", "--max-tokens", "48", "--evolve-types", "combine,tool_use,verbose",
        "--family-option", "ctf.candidates=1", "--family-option", "ctf.solutions=2", "--family-option", "ctf.max_tokens=64",
        "--family-option", "metamorphic.scenarios=13", "--family-option", "metamorphic.retries=0",
        "--family-option", "evolve.rounds=0", "--family-option", "evolve.solutions=2",
        "--family-option", "evolve.tests=0", "--family-option", "evolve.max_tokens=64",
        "--concurrency", "2", "--out", str(tmp_path / "study"),
    ]  # fmt: skip
    before = server.posts()
    first = run_cli(*args, cache=tmp_path / "cache", cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    asked = server.posts() - before
    data = json.loads((tmp_path / "study" / "study.json").read_text())
    sets = {s["name"]: s for s in data["sets"]}
    assert {name: s["uses_llm"] for name, s in sets.items()} == {
        "ctf": True, "evolve": False, "evolve-llm": True, "metamorphic": False, "metamorphic-llm": True, "mine": False,
    }  # fmt: skip
    assert (
        sets["evolve-llm"]["options"]["type"] == "verbose"
        and sets["evolve-llm"]["options"]["generator"] == spec
    )
    # Every LLM set's candidates went through the generator: each was decided by a check or accepted.
    for name in ("ctf", "metamorphic-llm", "evolve-llm"):
        assert sum(count for _, _, count in sets[name]["yield"]) >= 1, name
    session = json.loads((tmp_path / "study" / "session.json").read_text())
    generator_answers = sum(
        counts.get("llm", 0)
        for stage, counts in session["by_stage"].items()
        if not stage.startswith("generate ")
    )
    assert generator_answers >= 3  # the LLM halves asked the generator
    # Every answer stored was a request the server saw (a failed one is seen and not stored).
    assert session["llm_requests"] >= generator_answers and asked >= session["llm_requests"]
    runs = {(run["set"], run["model"]) for run in data["runs"]}
    for name in ("originals", "mine", "metamorphic", "evolve"):
        assert (name, spec) in runs and (name, "reference") in runs, name
    findings = data["findings"]
    assert findings["originals"][spec]["n"] == 2
    assert {row["model"] for row in findings["sensitivity"]} == {
        spec,
        "reference",
        "original",
        "memorizer?originals=humaneval",
    }
    assert (tmp_path / "study" / "report.html").read_text().count('id="findings"') == 1

    posts = server.posts()
    again = run_cli(*args, cache=tmp_path / "cache", cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert server.posts() == posts, "a second run of the study reached the server"
    assert json.loads((tmp_path / "study" / "study.json").read_text()) == data
