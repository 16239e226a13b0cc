"""What every generation backend offers, and the one error type a failed request becomes."""

from __future__ import annotations

import abc
from dataclasses import dataclass, field
from typing import Any

from benchmorph.models.params import GenerationParams
from benchmorph.models.prompts import Request


class GenerationError(Exception):
    """A request that produced no answer (retry budget spent, malformed response, prompt too long).

    Recorded on the sample, never raised out of a run: one bad request must
    not cost the answers already paid for.
    """


@dataclass
class Completion:
    text: str
    finish_reason: str | None = None
    usage: dict[str, Any] = field(default_factory=dict)
    attempts: int = 1


class Backend(abc.ABC):
    """An LLM that answers requests; created from a ModelSpec by :func:`make_backend`."""

    #: Requests in flight at once when the user does not say.
    default_concurrency: int = 1

    @abc.abstractmethod
    async def complete(self, request: Request, params: GenerationParams, index: int) -> Completion:
        """Answer one request for sample ``index``; raise GenerationError when there is no answer."""

    async def embed(self, texts: list[str]) -> list[list[float]]:
        raise GenerationError(f"{type(self).__name__} cannot embed text")

    async def aclose(self) -> None:  # noqa: B027 - most backends hold nothing to release
        """Release connections or the loaded model."""
