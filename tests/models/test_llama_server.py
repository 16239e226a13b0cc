"""End to end against a real OpenAI-compatible server: llama_cpp.server with the embedded GGUF on 127.0.0.1.

The server is started and stopped by this module; requests are counted
from its own access log, so "zero requests on a re-run" is what the server
saw, not what our client believes it sent.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("llama_cpp.server", reason="llama-cpp-python[server] is part of the test install")

from benchmorph.models import LLMCache, embed  # noqa: E402
from benchmorph.models.embed import cosine_distance  # noqa: E402
from cli_runner import run_cli  # noqa: E402
from llama_server import LlamaServer  # noqa: E402


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaServer]:
    running = LlamaServer(tmp_path_factory.mktemp("llama") / "server.log")
    yield running
    running.stop()


def cli(*args: str, cache: Path, cwd: Path):  # type: ignore[no-untyped-def]
    return run_cli(*args, cache=cache, cwd=cwd)


def rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@pytest.mark.llm
@pytest.mark.server
def test_run_against_llama_server_then_rerun_sends_zero_requests(server: LlamaServer, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    spec = f"openai:gemma-3-270m@{server.base_url}?mode=completion"
    args = [
        "run",
        "humaneval",
        "--model",
        spec,
        "--limit",
        "5",
        "--max-tokens",
        "160",
        "--out",
        str(tmp_path / "a"),
    ]
    before = server.posts()
    first = cli(*args, cache=cache, cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    assert server.posts() - before == 5
    samples = rows(tmp_path / "a" / "samples.jsonl")
    assert [s["task_id"] for s in samples] == [f"HumanEval/{i}" for i in range(5)]
    assert all("error" not in s and s["raw"] for s in samples)
    # Completion mode: the solution is the prompt plus the sanitized continuation.
    assert all(f"def {name}(" in s["solution"] for s, name in zip(samples, ENTRY_POINTS, strict=True))
    verdicts = rows(tmp_path / "a" / "results.jsonl")
    assert len(verdicts) == 5 and all(v["status"] in {"pass", "fail", "error", "timeout"} for v in verdicts)
    summary = json.loads((tmp_path / "a" / "summary.json").read_text())
    manifest = json.loads((tmp_path / "a" / "manifest.json").read_text())
    assert summary["n_samples"] == 5 and manifest["model"] == spec and manifest["generation"]["requests"] == 5

    posts = server.posts()
    second = cli(*args[:-1], str(tmp_path / "b"), cache=cache, cwd=tmp_path)
    assert second.returncode == 0, second.stderr
    assert server.posts() == posts, "a re-run reached the server"
    assert "0 new answers, 5 from the cache" in second.stderr
    assert rows(tmp_path / "b" / "samples.jsonl") == samples


ENTRY_POINTS = [
    "has_close_elements",
    "separate_paren_groups",
    "truncate_number",
    "below_zero",
    "mean_absolute_deviation",
]


@pytest.mark.llm
def test_local_embeddings_are_mean_pooled_and_cached(tmp_path: Path) -> None:
    texts = [
        "def add(a, b):\n    return a + b\n",
        "def add(x, y):\n    return x + y\n",
        "The quick brown fox jumps over the lazy dog.",
    ]
    with LLMCache(tmp_path / "c.sqlite") as cache:
        vectors = embed(texts, "local", cache)
        assert vectors.shape == (3, 640) and np.isfinite(vectors).all()
        # Two spellings of the same function are closer than code and prose.
        assert cosine_distance(vectors[0], vectors[1]) < cosine_distance(vectors[0], vectors[2])
        assert cache.stats().embeddings and sum(cache.stats().embeddings.values()) == 3
        again = embed(texts, "local", cache)
    assert np.array_equal(vectors, again)


@pytest.mark.llm
@pytest.mark.server
def test_openai_embeddings_from_a_real_server(tmp_path: Path) -> None:
    server = LlamaServer(tmp_path / "embed.log", embedding=True)
    try:
        with LLMCache(tmp_path / "c.sqlite") as cache:
            vectors = embed(["def f(): return 1", "print('hello')"], f"openai:gemma@{server.base_url}", cache)
            assert vectors.shape[0] == 2 and vectors.shape[1] > 0
            posts = server.posts()
            embed(["def f(): return 1"], f"openai:gemma@{server.base_url}", cache)
            assert server.posts() == posts
    finally:
        server.stop()
