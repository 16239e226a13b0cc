"""The LLM evolve generator against a real llama_cpp.server with the embedded Gemma 3 270M base model.

The model is far too weak to write verified problems; what this shows is that every type's requests
reach a real server, every answer is read, judged or dropped with a reason, and the run reports per-type
acceptance that matches its candidate records (nothing accepted that was not verified).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

pytest.importorskip("llama_cpp.server", reason="llama-cpp-python[server] is part of the test install")

from benchmorph.data.registry import load_benchmark  # noqa: E402
from benchmorph.execution.engine import Engine  # noqa: E402
from benchmorph.models import LLMCache  # noqa: E402
from benchmorph.morph.transform import ACCEPTED, MorphContext, run_transform  # noqa: E402
from benchmorph.morph.transforms.evolve import TYPES  # noqa: E402
from llama_server import LlamaServer  # noqa: E402

# Two problems that compose with each other (sort_third, sort_even), so combine has a pair.
TASKS = ("HumanEval/33", "HumanEval/37")


@pytest.mark.slow
@pytest.mark.llm
@pytest.mark.server
def test_local_model_all_types_finish_and_report_honestly(tmp_path: Path) -> None:
    humaneval = load_benchmark("humaneval").by_id()
    problems = [humaneval[task] for task in TASKS]
    server = LlamaServer(tmp_path / "server.log")
    try:
        spec = f"openai:gemma-3-270m@{server.base_url}?mode=completion"
        options = {"type": ",".join(TYPES), "generator": spec, "solver": spec, "rounds": 0, "max_tokens": 160,
                   "solutions": 2, "tests": 5}  # fmt: skip
        with Engine(workers=2) as engine, LLMCache(tmp_path / "cache.sqlite") as cache:
            report = run_transform(
                "evolve", problems, MorphContext(engine=engine, cache=cache, seed=0), options
            )
        posts = server.posts()
    finally:
        server.stop()
    assert posts >= len(TYPES) * len(TASKS) - 2  # every slot asked the generator (combine needs a pair)
    lines = {line.split(":")[0]: line for line in report.notes if "seeds gave an accepted variant" in line}
    assert set(lines) == set(TYPES)
    for kind in TYPES:
        mine = [c for c in report.candidates if c.label == kind]
        assert mine and all(c.provenance.get("status") and c.provenance.get("reason") or
                            c.provenance.get("status") == ACCEPTED for c in mine)  # fmt: skip
        accepted = {c.parent_id for c in mine if c.provenance["status"] == ACCEPTED}
        assert lines[kind].startswith(f"{kind}: {len(accepted)} of {len(TASKS)} seeds")
        reasons = Counter(str(c.provenance["check"]) for c in mine if c.provenance["status"] != ACCEPTED)
        for check, count in reasons.items():
            assert f"{check} {count}" in lines[kind]
    # Whatever was accepted was verified: agreeing solutions for new problems, the judge for rewordings.
    for variant in report.variants:
        if variant.label in ("verbose", "concise"):
            assert variant.provenance["judge_verdict"]["preserved"] is True
        elif variant.provenance.get("role") != "main":
            assert variant.provenance["agreeing_solutions"] >= 2
