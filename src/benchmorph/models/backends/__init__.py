"""Generation backends, registered by spec backend name so a new one is one new file."""

from __future__ import annotations

from collections.abc import Callable

from benchmorph.models.backends.base import Backend, Completion, GenerationError
from benchmorph.models.params import RetryPolicy
from benchmorph.models.spec import ModelSpec

BackendFactory = Callable[[ModelSpec, RetryPolicy, str | None], Backend]
_FACTORIES: dict[str, BackendFactory] = {}


def register_backend(name: str, factory: BackendFactory) -> None:
    _FACTORIES[name] = factory


def make_backend(
    spec: ModelSpec, policy: RetryPolicy | None = None, api_key_env: str | None = None
) -> Backend:
    """The backend for a spec (imports heavy libraries such as llama_cpp only when used)."""
    factory = _FACTORIES.get(spec.backend)
    if factory is None:
        raise GenerationError(f"model spec '{spec.text}' cannot generate text")
    return factory(spec, policy or RetryPolicy(), api_key_env)


def _register_builtin() -> None:
    def openai_factory(spec: ModelSpec, policy: RetryPolicy, api_key_env: str | None) -> Backend:
        from benchmorph.models.backends.openai_compat import OpenAIBackend

        return OpenAIBackend(spec, policy, api_key_env)

    def llamacpp_factory(spec: ModelSpec, policy: RetryPolicy, api_key_env: str | None) -> Backend:
        from benchmorph.models.backends.llamacpp import LlamaCppBackend

        return LlamaCppBackend(spec)

    register_backend("openai", openai_factory)
    register_backend("llamacpp", llamacpp_factory)


_register_builtin()

__all__ = ["Backend", "Completion", "GenerationError", "make_backend", "register_backend"]
