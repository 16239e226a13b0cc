"""Model specs, generation parameters, cache keys, prompts and baselines (no LLM needed)."""

from __future__ import annotations

import asyncio
import multiprocessing
from pathlib import Path

import pytest

from benchmorph.data.errors import InputError
from benchmorph.data.models import Problem, Variant
from benchmorph.data.registry import load_benchmark
from benchmorph.models import GenerationParams, LLMCache, build_request, generate, parse_spec
from benchmorph.models.ask import generation_key
from benchmorph.models.backends import Backend, Completion, GenerationError
from benchmorph.models.cache import CachedAnswer
from benchmorph.models.generate import agenerate
from benchmorph.models.params import RetryPolicy
from benchmorph.models.prompts import Request, answer_to_code

HUMANEVAL = load_benchmark("humaneval").problems


@pytest.mark.parametrize(
    ("text", "backend", "model", "urls", "mode"),
    [
        ("openai:qwen@http://127.0.0.1:8000/v1", "openai", "qwen", ("http://127.0.0.1:8000/v1",), "chat"),
        (
            "openai:org/m-7b@http://a:1/v1/,https://b/v1?mode=completion",
            "openai",
            "org/m-7b",
            ("http://a:1/v1", "https://b/v1"),
            "completion",
        ),
        ("local", "llamacpp", "local", (), "completion"),
        ("local?mode=chat", "llamacpp", "local", (), "chat"),
        ("reference", "baseline", "reference", (), "completion"),
        ("original", "baseline", "original", (), "completion"),
        ("st:all-MiniLM-L6-v2", "sentence-transformers", "all-MiniLM-L6-v2", (), "completion"),
    ],
)
def test_specs_parse(text: str, backend: str, model: str, urls: tuple, mode: str) -> None:
    spec = parse_spec(text)
    assert (spec.backend, spec.model, spec.urls, spec.mode) == (backend, model, urls, mode)
    assert spec.text == text


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("gpt4", "unknown model spec 'gpt4'"),
        ("openai:model", "expected openai:MODEL@BASE_URL"),
        ("openai:m@ftp://x", "must start with http"),
        ("local?mode=poetry", "mode must be chat or completion"),
        ("local?temperature=1", "unknown option 'temperature'"),
        ("llamacpp:/nonexistent/model.gguf", "no GGUF file"),
        ("local?threads=0", "threads must be a whole number of at least 1"),
        ("local?threads=two", "threads must be a whole number"),
        ("openai:m@http://127.0.0.1:1/v1?threads=2", "belongs to local and llamacpp specs only"),
    ],
)
def test_bad_specs_say_what_is_accepted(text: str, message: str) -> None:
    with pytest.raises(InputError, match=message):
        parse_spec(text)


def test_identity_ignores_url_order_but_not_mode_or_model() -> None:
    a = parse_spec("openai:m@http://a/v1,http://b/v1").identity()
    assert a == parse_spec("openai:m@http://b/v1,http://a/v1").identity()
    assert a != parse_spec("openai:m@http://a/v1,http://b/v1?mode=completion").identity()
    assert a != parse_spec("openai:n@http://a/v1,http://b/v1").identity()


def test_llamacpp_identity_follows_content_not_path(tmp_path: Path) -> None:
    first = tmp_path / "a.gguf"
    first.write_bytes(b"GGUF" + bytes(range(256)) * 100)
    copy = tmp_path / "b.gguf"
    copy.write_bytes(first.read_bytes())
    other = tmp_path / "c.gguf"
    other.write_bytes(b"GGUF" + bytes(range(255, -1, -1)) * 100)
    assert parse_spec(f"llamacpp:{first}").identity() == parse_spec(f"llamacpp:{copy}").identity()
    assert parse_spec(f"llamacpp:{first}").identity() != parse_spec(f"llamacpp:{other}").identity()


def test_greedy_shares_one_key_across_indices_sampling_does_not() -> None:
    spec = parse_spec("openai:m@http://a/v1")
    request = build_request(HUMANEVAL[0], spec.mode)
    greedy = GenerationParams(n=3)
    assert len({generation_key(spec, request, greedy, i) for i in range(3)}) == 1
    sampled = GenerationParams(n=3, temperature=0.8, seed=5)
    assert len({generation_key(spec, request, sampled, i) for i in range(3)}) == 3
    assert [sampled.request_fields(i)["seed"] for i in range(3)] == [5, 6, 7]
    assert generation_key(spec, request, GenerationParams(max_tokens=100), 0) != generation_key(
        spec, request, greedy, 0
    )


def test_retry_delay_grows_with_jitter_and_honours_retry_after() -> None:
    policy = RetryPolicy(base_delay=1.0, max_delay=30.0)
    delays = [policy.delay(attempt) for attempt in range(5)]
    for attempt, delay in enumerate(delays):
        assert 0.5 * 2**attempt <= delay <= 1.5 * 2**attempt
    assert policy.delay(0, retry_after=7.0) >= 7.0
    assert policy.delay(10) <= 30.0


def test_completion_prompts_keep_code_prompts_and_wrap_text_ones() -> None:
    code_request = build_request(HUMANEVAL[0], "completion")
    assert code_request.prompt == HUMANEVAL[0].prompt and "\ndef " in code_request.stop
    text = Problem(id="t/1", prompt="Write a function to add two numbers.", entry_point="add", reference="")
    text_request = build_request(text, "completion")
    assert text_request.prompt.startswith('"""') and "\ndef " not in text_request.stop
    stdin = Problem(id="s/1", kind="stdin", prompt="Read n and print n+1.", reference="")
    assert "import sys" in build_request(stdin, "completion").prompt
    chat = build_request(HUMANEVAL[0], "chat")
    assert (
        chat.mode == "chat"
        and "```python" in chat.messages[0][1]
        and "has_close_elements" in chat.messages[0][1]
    )


def test_completion_answer_becomes_prompt_plus_body() -> None:
    problem = HUMANEVAL[2]  # truncate_number
    request = build_request(problem, "completion")
    code = answer_to_code(problem, request, "    return number % 1.0\n")
    namespace: dict = {}
    exec(compile(code, "<sample>", "exec"), namespace)
    assert namespace["truncate_number"](3.5) == 0.5


def test_baselines_answer_with_references_and_need_the_parent() -> None:
    problem = HUMANEVAL[0]
    variant = Variant(
        **problem.model_dump(exclude={"reference"}),
        reference="def has_close_elements(numbers, threshold):\n    return False\n",
        parent_id=problem.id,
        transform="ctf",
        provenance={"parent_reference": problem.reference},
    )
    reference = generate([variant], "reference", cache=LLMCache(enabled=False)).samples[0]
    original = generate([variant], "original", cache=LLMCache(enabled=False)).samples[0]
    assert reference.code == variant.reference and original.code == problem.reference
    assert generate([problem], "original", cache=LLMCache(enabled=False)).samples[0].code == problem.reference
    orphan = variant.model_copy(update={"provenance": {}})
    with pytest.raises(InputError, match="parent_reference"):
        generate([orphan], "original", cache=LLMCache(enabled=False))


class CountingBackend(Backend):
    """A scripted backend for plumbing only: answers 'pass', fails problems named in `fail`."""

    default_concurrency = 4

    def __init__(self, fail: set[str] = frozenset()) -> None:  # type: ignore[assignment]
        self.calls: list[Request] = []
        self.fail = fail

    async def complete(self, request: Request, params: GenerationParams, index: int) -> Completion:
        self.calls.append(request)
        await asyncio.sleep(0)
        if any(name in request.prompt for name in self.fail):
            raise GenerationError("scripted failure")
        return Completion("    pass\n", "stop")


def test_cache_answers_once_and_failures_are_not_cached(tmp_path: Path) -> None:
    spec = parse_spec("openai:m@http://127.0.0.1:9/v1?mode=completion")
    problems = HUMANEVAL[:4]
    params = GenerationParams(n=2, temperature=0.7, seed=1)
    backend = CountingBackend(fail={"def below_zero("})
    with LLMCache(tmp_path / "c.sqlite") as cache:
        report = asyncio.run(agenerate(problems, spec, params, cache, backend=backend))
        assert (report.requests, report.cached, report.errors) == (6, 0, 2)
        assert [(s.task_id, s.index) for s in report.samples] == [
            (p.id, i) for p in problems for i in range(2)
        ]
        again = asyncio.run(agenerate(problems, spec, params, cache, backend=backend))
        assert (again.requests, again.cached, again.errors) == (0, 6, 2)
        assert len(backend.calls) == 8 + 2  # second run: only the two failures are asked again
        assert cache.stats().generations == {spec.identity(): 6}
    with LLMCache(tmp_path / "c.sqlite", enabled=False) as disabled:
        fresh = asyncio.run(agenerate(problems, spec, params, disabled, backend=backend))
        assert fresh.requests == 6


def test_greedy_n_samples_cost_one_request(tmp_path: Path) -> None:
    spec = parse_spec("openai:m@http://127.0.0.1:9/v1?mode=completion")
    backend = CountingBackend()
    with LLMCache(tmp_path / "c.sqlite") as cache:
        report = asyncio.run(agenerate(HUMANEVAL[:2], spec, GenerationParams(n=5), cache, backend=backend))
    assert len(report.samples) == 10 and len(backend.calls) == 2


def _write_many(path: str, start: int) -> None:
    with LLMCache(path) as cache:
        for i in range(start, start + 200):
            cache.put(f"k{i}", "m", {"i": i}, CachedAnswer(f"text {i}", "stop", {}))


def test_cache_is_shared_safely_between_processes(tmp_path: Path) -> None:
    path = str(tmp_path / "shared.sqlite")
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=_write_many, args=(path, start)) for start in (0, 200, 400)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
        assert worker.exitcode == 0
    with LLMCache(path) as cache:
        assert cache.stats().generations == {"m": 600}
        assert cache.get("k399").text == "text 399"  # type: ignore[union-attr]
        assert cache.clear("m") == 600 and cache.get("k1") is None


@pytest.mark.llm
def test_local_threads_cap_reaches_llama_cpp() -> None:
    """``local?threads=1`` loads a model that computes on one thread (a machine shared with the sandbox)."""
    pytest.importorskip("llama_cpp")
    from benchmorph.models.backends.llamacpp import _threads, load_llama

    spec = parse_spec("local?threads=1")
    assert (
        _threads(spec) == 1 and spec.identity() == parse_spec("local").identity()
    )  # same answers, same cache
    llm = load_llama(spec.model, threads=_threads(spec))
    assert llm.context_params.n_threads == 1 and llm.context_params.n_threads_batch == 1
    problem = load_benchmark("humaneval").problems[0]
    report = generate([problem], spec, GenerationParams(max_tokens=4))
    assert len(report.samples) == 1 and report.samples[0].task_id == problem.id
