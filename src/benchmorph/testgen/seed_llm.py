"""Asking an LLM for seed test inputs, through the one cached road to models (``benchmorph.models.ask``).

The prompt and the parser are :mod:`benchmorph.testgen.seeds`'s: the
prompt shows the signature, description and existing inputs and asks for valid,
diverse corner cases as JSON or Python literals; the answer is read with a
literal parser, never ``eval``'d.  What comes back is only a proposal: every
input still has to pass the problem's contract and run on the reference in the
sandbox before it becomes a test.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from benchmorph.data.models import Problem
from benchmorph.models.ask import ask
from benchmorph.models.cache import LLMCache
from benchmorph.models.params import GenerationParams, RetryPolicy
from benchmorph.models.prompts import Request
from benchmorph.models.spec import ModelSpec, parse_spec
from benchmorph.testgen.types import Signature


@dataclass
class SeedGenerator:
    """Which model proposes seed inputs, and how to reach it.

    ``inputs`` is how many inputs the prompt asks for; ``params.n`` answers
    are asked per problem (more answers, more seeds).
    """

    spec: ModelSpec | str
    cache: LLMCache
    params: GenerationParams = field(default_factory=lambda: GenerationParams(max_tokens=1024))
    inputs: int = 10
    concurrency: int | None = None
    policy: RetryPolicy | None = None
    api_key_env: str | None = None

    @property
    def model(self) -> ModelSpec:
        return parse_spec(self.spec) if isinstance(self.spec, str) else self.spec

    def identity(self) -> dict[str, Any]:
        """What decides the answers (for resume keys): the model, the sampling parameters, the count."""
        return {"model": self.model.identity(), "params": self.params.model_dump(), "inputs": self.inputs}


@dataclass
class SeedAnswers:
    """One problem's answers: the texts (None where the model gave none) and errors."""

    texts: list[str | None]
    errors: list[str]


def seed_request(problem: Problem, sig: Signature, generator: SeedGenerator) -> Request:
    """The request for one problem, in the model's mode (chat message or completion prompt)."""
    from benchmorph.testgen.seeds import seed_input_prompt

    existing = [test.input for test in problem.tests]
    text = seed_input_prompt(problem, sig, existing, generator.inputs)
    if generator.model.mode == "chat":
        return Request("chat", messages=(("user", text),))
    return Request("completion", prompt=text.rstrip() + "\n")


def ask_for_seeds(
    problems: Sequence[Problem],
    signatures: Sequence[Signature],
    generator: SeedGenerator,
    progress: Callable[[int], None] | None = None,
) -> list[SeedAnswers]:
    """Every problem's answers, asked in one batch (bounded concurrency, cached, resumable)."""
    if not problems:
        return []
    requests = [
        seed_request(problem, sig, generator) for problem, sig in zip(problems, signatures, strict=True)
    ]
    options: dict[str, Any] = {"concurrency": generator.concurrency, "progress": progress}
    if generator.policy is not None:
        options["policy"] = generator.policy
    if generator.api_key_env is not None:
        options["api_key_env"] = generator.api_key_env
    report = ask(requests, generator.model, generator.params, generator.cache, **options)
    return [
        SeedAnswers([answer.text for answer in answers], [answer.error for answer in answers if answer.error])
        for answers in report.answers
    ]
