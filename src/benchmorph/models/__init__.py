"""Models layer: one spec string per model, one cache for every LLM call, a fast sanitizer.

Public surface::

    parse_spec("openai:MODEL@http://127.0.0.1:8000/v1")   # or local, llamacpp:PATH, reference, original
    generate(problems, "local", GenerationParams(n=1))     # -> GenerationReport with Samples
    embed(["text", ...], "local")                          # -> numpy array, cached
    sanitize(raw_answer, entry_point="f")                  # -> code
"""

from benchmorph.models.ask import AskReport, aask, ask
from benchmorph.models.backends import Backend, Completion, GenerationError, make_backend, register_backend
from benchmorph.models.cache import LLMCache
from benchmorph.models.embed import cosine_distance, embed
from benchmorph.models.generate import GenerationReport, agenerate, generate
from benchmorph.models.params import GenerationParams, RetryPolicy
from benchmorph.models.prompts import Request, build_request
from benchmorph.models.sanitize import sanitize
from benchmorph.models.spec import ModelSpec, parse_spec

__all__ = [
    "AskReport",
    "aask",
    "ask",
    "Backend",
    "Completion",
    "GenerationError",
    "GenerationParams",
    "GenerationReport",
    "LLMCache",
    "ModelSpec",
    "Request",
    "RetryPolicy",
    "agenerate",
    "build_request",
    "cosine_distance",
    "embed",
    "generate",
    "make_backend",
    "parse_spec",
    "register_backend",
    "sanitize",
]
