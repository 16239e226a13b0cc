"""Generation parameters and the retry policy: the knobs a user sets once per run."""

from __future__ import annotations

import random
from typing import Any

from pydantic import BaseModel, Field


class GenerationParams(BaseModel):
    """Sampling parameters; temperature 0 means greedy, so one answer serves every sample index."""

    n: int = Field(1, ge=1)
    temperature: float = Field(0.0, ge=0.0)
    top_p: float = Field(1.0, gt=0.0, le=1.0)
    max_tokens: int = Field(512, ge=1)
    seed: int | None = None

    @property
    def greedy(self) -> bool:
        return self.temperature == 0.0

    def request_fields(self, index: int) -> dict[str, Any]:
        """What goes into one request for sample ``index``.

        Each sample is its own request with its own seed (``seed + index``), so
        samples are reproducible one by one and a resumed run asks only for
        the missing indices.
        """
        fields: dict[str, Any] = {
            "temperature": self.temperature,
            "top_p": self.top_p,
            "max_tokens": self.max_tokens,
        }
        if self.seed is not None:
            fields["seed"] = self.seed + (0 if self.greedy else index)
        return fields

    def cache_index(self, index: int) -> int:
        """Greedy decoding gives the same answer for every index: ask once, not n times."""
        return 0 if self.greedy else index


class RetryPolicy(BaseModel):
    """Exponential backoff with jitter for transient failures (429, 5xx, connection errors, timeouts)."""

    retries: int = Field(5, ge=0)
    base_delay: float = Field(1.0, ge=0.0)
    max_delay: float = Field(30.0, ge=0.0)
    timeout: float = Field(300.0, gt=0.0)

    def delay(self, attempt: int, retry_after: float | None = None) -> float:
        """Seconds to wait before retry number ``attempt`` (0-based); honours a server's Retry-After."""
        backoff = min(self.max_delay, self.base_delay * (2**attempt) * random.uniform(0.5, 1.5))
        if retry_after is not None and retry_after > 0:
            return min(self.max_delay, max(backoff, retry_after))
        return backoff
