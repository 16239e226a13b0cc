"""Model spec strings: one string names a model in every command, cache key and report.

Grammar (an optional ``?key=value&...`` suffix sets options such as ``mode``)::

    openai:MODEL@URL[,URL...]   any OpenAI-compatible server; several URLs share the load
    local                       the embedded Gemma 3 270M base GGUF, run in-process
    llamacpp:PATH.gguf          any other GGUF, run in-process
    reference | original        baselines that need no LLM (original[?originals=BENCH]: the parent's
                                reference, found by id in BENCH when a variant does not carry it)
    memorizer[?originals=BENCH] the contamination baseline: the original's reference for a prompt it
                                has seen byte for byte, NotImplementedError otherwise
    st:NAME                     a sentence-transformers embedder (embeddings only)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal
from urllib.parse import parse_qsl

from benchmorph.data.errors import InputError

Backend = Literal["openai", "llamacpp", "baseline", "sentence-transformers"]
Mode = Literal["chat", "completion"]
MODES = ("chat", "completion")
BASELINES = ("reference", "original", "memorizer")
KNOWN_OPTIONS = {"mode", "api_key_env", "originals", "threads"}

EXAMPLES = "openai:MODEL@http://127.0.0.1:8000/v1, local, llamacpp:PATH.gguf, reference, original, memorizer"


@dataclass(frozen=True)
class ModelSpec:
    """A parsed spec; ``text`` is what the user wrote and what reports show."""

    text: str
    backend: Backend
    model: str
    urls: tuple[str, ...] = ()
    mode: Mode = "completion"
    options: dict[str, str] = field(default_factory=dict, compare=False, hash=False)

    @property
    def is_baseline(self) -> bool:
        return self.backend == "baseline"

    @property
    def is_local(self) -> bool:
        return self.backend == "llamacpp" and self.model == "local"

    def identity(self) -> str:
        """What the cache keys on: the model and where it is served, not the spelling of the spec.

        URLs are sorted so that listing the same endpoints in another order
        reuses the same answers; the mode is included because a chat and a
        completion request are different questions.
        """
        if self.backend == "openai":
            return f"openai:{self.model}@{','.join(sorted(self.urls))}?mode={self.mode}"
        if self.backend == "llamacpp":
            from benchmorph.models.gguf import gguf_identity

            return f"llamacpp:{gguf_identity(self.model)}?mode={self.mode}"
        return f"{self.backend}:{self.model}"


def _split_options(text: str) -> tuple[str, dict[str, str]]:
    body, _, query = text.partition("?")
    options = dict(parse_qsl(query, keep_blank_values=True)) if query else {}
    unknown = sorted(set(options) - KNOWN_OPTIONS)
    if unknown:
        raise InputError(
            f"model spec '{text}': unknown option '{unknown[0]}' (known: {sorted(KNOWN_OPTIONS)})"
        )
    mode = options.get("mode")
    if mode is not None and mode not in MODES:
        raise InputError(f"model spec '{text}': mode must be chat or completion, not '{mode}'")
    return body, options


def parse_spec(text: str) -> ModelSpec:
    """Parse a model spec, raising InputError with the accepted forms when it is malformed.

    >>> parse_spec("openai:qwen2.5-coder@http://127.0.0.1:8000/v1").mode
    'chat'
    >>> parse_spec("local").mode
    'completion'
    """
    text = text.strip()
    body, options = _split_options(text)
    mode = options.get("mode")
    if "originals" in options and body not in ("memorizer", "original"):
        raise InputError(
            f"model spec '{text}': the option 'originals' belongs to the memorizer and original baselines"
        )
    if "threads" in options:
        threads = options["threads"]
        if not threads.isdigit() or int(threads) < 1:
            raise InputError(
                f"model spec '{text}': threads must be a whole number of at least 1, not '{threads}'"
            )
        if not (body == "local" or body.startswith("llamacpp:")):
            raise InputError(
                f"model spec '{text}': the option 'threads' belongs to an in-process llama.cpp model"
            )
    if body in BASELINES:
        return ModelSpec(text, "baseline", body, options=options)
    if body == "local":
        return ModelSpec(text, "llamacpp", "local", mode=mode or "completion", options=options)  # type: ignore[arg-type]
    scheme, sep, rest = body.partition(":")
    if sep and scheme == "openai":
        model, at, urls = rest.rpartition("@")
        if not at or not model or not urls:
            raise InputError(
                f"model spec '{text}': expected openai:MODEL@BASE_URL (e.g. {EXAMPLES.split(',')[0]})"
            )
        url_list = tuple(url.strip().rstrip("/") for url in urls.split(",") if url.strip())
        bad = [url for url in url_list if not url.startswith(("http://", "https://"))]
        if bad or not url_list:
            raise InputError(
                f"model spec '{text}': base URL '{(bad or [urls])[0]}' must start with http:// or https://"
            )
        return ModelSpec(text, "openai", model, url_list, mode or "chat", options)  # type: ignore[arg-type]
    if sep and scheme == "llamacpp":
        path = Path(rest).expanduser()
        if not path.is_file():
            raise InputError(f"model spec '{text}': no GGUF file at {path}")
        return ModelSpec(text, "llamacpp", str(path.resolve()), mode=mode or "completion", options=options)  # type: ignore[arg-type]
    if sep and scheme == "st":
        if not rest:
            raise InputError(f"model spec '{text}': expected st:MODEL_NAME")
        return ModelSpec(text, "sentence-transformers", rest, options=options)
    raise InputError(f"unknown model spec '{text}' (use one of: {EXAMPLES})")
