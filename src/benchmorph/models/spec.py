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

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal
from urllib.parse import parse_qsl

from benchmorph.core.registry import Registry
from benchmorph.data.errors import InputError

# What runs a spec: "openai", "llamacpp", "baseline", "sentence-transformers", or a plug-in's name.
Backend = str
Mode = Literal["chat", "completion"]
MODES = ("chat", "completion")


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


SchemeParser = Callable[[str, str, dict[str, str]], ModelSpec]


@dataclass(frozen=True)
class Scheme:
    """One way of naming a model: ``NAME:REST`` (``openai:``, ``llamacpp:``, ``st:``) or a bare word
    (``local``, the baselines).  ``parse(text, rest, options)`` builds the spec or raises an InputError;
    ``options`` are the ``?key=`` options it takes besides ``mode`` and ``api_key_env``."""

    name: str
    parse: SchemeParser
    bare: bool = False
    options: frozenset[str] = frozenset()
    example: str = ""


# Every way of naming a model.  A plug-in registers a Scheme (an entry point in the group
# ``benchmorph.model_specs`` naming a module that calls ``SCHEMES.add``), and a backend for its
# ``ModelSpec.backend`` in ``models.backends.GENERATORS`` (and ``models.embed.EMBEDDERS`` if it embeds).
SCHEMES: Registry[Scheme] = Registry("model spec", group="benchmorph.model_specs", unknown=InputError)
UNIVERSAL_OPTIONS = frozenset({"mode", "api_key_env"})


def _scheme_of(body: str) -> tuple[Scheme, str] | None:
    """The scheme ``body`` is written in, and what follows its ``NAME:``."""
    scheme_name, sep, rest = body.partition(":")
    if sep and scheme_name in SCHEMES and not SCHEMES.get(scheme_name).bare:
        return SCHEMES.get(scheme_name), rest
    if not sep and body in SCHEMES and SCHEMES.get(body).bare:
        return SCHEMES.get(body), ""
    baselines = _baselines()
    if not sep and body in baselines:
        return _baseline_scheme(body, baselines.meta(body).get("options", ())), ""
    return None


def _baselines() -> Registry[Any]:
    from benchmorph.models.baselines import BASELINES

    return BASELINES


def _baseline_scheme(name: str, options: Any) -> Scheme:
    def parse(text: str, rest: str, given: dict[str, str]) -> ModelSpec:
        return ModelSpec(text, "baseline", name, options=given)

    return Scheme(name, parse, bare=True, options=frozenset(options), example=name)


def _examples() -> str:
    shown = [SCHEMES.get(name).example for name in SCHEMES.names()]
    return ", ".join([example for example in shown if example] + list(_baselines().names()))


def _option_owners(option: str) -> list[str]:
    owners = [name for name in SCHEMES.names() if option in SCHEMES.get(name).options]
    baselines = _baselines()
    return owners + [name for name in baselines.names() if option in baselines.meta(name).get("options", ())]


def _split_options(text: str) -> tuple[str, dict[str, str]]:
    body, _, query = text.partition("?")
    options = dict(parse_qsl(query, keep_blank_values=True)) if query else {}
    mode = options.get("mode")
    if mode is not None and mode not in MODES:
        raise InputError(f"model spec '{text}': mode must be chat or completion, not '{mode}'")
    return body, options


def _check_options(text: str, scheme: Scheme, options: dict[str, str]) -> None:
    for option in sorted(set(options) - UNIVERSAL_OPTIONS - scheme.options):
        owners = _option_owners(option)
        if not owners:
            known = sorted(
                UNIVERSAL_OPTIONS | {o for name in SCHEMES.names() for o in SCHEMES.get(name).options}
            )
            raise InputError(f"model spec '{text}': unknown option '{option}' (known: {known})")
        raise InputError(
            f"model spec '{text}': the option '{option}' belongs to {' and '.join(owners)} specs only"
        )


def parse_spec(text: str) -> ModelSpec:
    """Parse a model spec, raising InputError with the accepted forms when it is malformed.

    >>> parse_spec("openai:qwen2.5-coder@http://127.0.0.1:8000/v1").mode
    'chat'
    >>> parse_spec("local").mode
    'completion'
    """
    text = text.strip()
    body, options = _split_options(text)
    found = _scheme_of(body)
    if found is None:
        raise InputError(f"unknown model spec '{text}' (use one of: {_examples()})")
    scheme, rest = found
    _check_options(text, scheme, options)
    return scheme.parse(text, rest, options)


# ------------------------------------------------------------------ the built-in schemes


def _threads(text: str, options: dict[str, str]) -> None:
    threads = options.get("threads")
    if threads is not None and (not threads.isdigit() or int(threads) < 1):
        raise InputError(
            f"model spec '{text}': threads must be a whole number of at least 1, not '{threads}'"
        )


def _parse_openai(text: str, rest: str, options: dict[str, str]) -> ModelSpec:
    model, at, urls = rest.rpartition("@")
    if not at or not model or not urls:
        raise InputError(f"model spec '{text}': expected openai:MODEL@BASE_URL (e.g. {OPENAI_EXAMPLE})")
    url_list = tuple(url.strip().rstrip("/") for url in urls.split(",") if url.strip())
    bad = [url for url in url_list if not url.startswith(("http://", "https://"))]
    if bad or not url_list:
        raise InputError(
            f"model spec '{text}': base URL '{(bad or [urls])[0]}' must start with http:// or https://"
        )
    return ModelSpec(text, "openai", model, url_list, _mode(options, "chat"), options)


def _parse_local(text: str, rest: str, options: dict[str, str]) -> ModelSpec:
    _threads(text, options)
    return ModelSpec(text, "llamacpp", "local", mode=_mode(options, "completion"), options=options)


def _parse_llamacpp(text: str, rest: str, options: dict[str, str]) -> ModelSpec:
    _threads(text, options)
    path = Path(rest).expanduser()
    if not path.is_file():
        raise InputError(f"model spec '{text}': no GGUF file at {path}")
    return ModelSpec(
        text, "llamacpp", str(path.resolve()), mode=_mode(options, "completion"), options=options
    )


def _parse_st(text: str, rest: str, options: dict[str, str]) -> ModelSpec:
    if not rest:
        raise InputError(f"model spec '{text}': expected st:MODEL_NAME")
    return ModelSpec(text, "sentence-transformers", rest, options=options)


def _mode(options: dict[str, str], default: Mode) -> Mode:
    mode = options.get("mode", default)
    return "chat" if mode == "chat" else "completion"


OPENAI_EXAMPLE = "openai:MODEL@http://127.0.0.1:8000/v1"
SCHEMES.add("openai", Scheme("openai", _parse_openai, example=OPENAI_EXAMPLE))
SCHEMES.add(
    "local", Scheme("local", _parse_local, bare=True, options=frozenset({"threads"}), example="local")
)
SCHEMES.add(
    "llamacpp",
    Scheme("llamacpp", _parse_llamacpp, options=frozenset({"threads"}), example="llamacpp:PATH.gguf"),
)
SCHEMES.add("st", Scheme("st", _parse_st, example="st:NAME"))
