"""Generation backends, registered by the ``ModelSpec.backend`` name they serve (a new one is one file).

The built-in ones are lazy ``module:attr`` entries, so naming a model never
imports llama_cpp or the OpenAI client; a plug-in adds its own with
``GENERATORS.add(name, factory)`` (or an entry point in the group
``benchmorph.generators``), beside its scheme in ``models.spec.SCHEMES``.
"""

from __future__ import annotations

from collections.abc import Callable

from benchmorph.core.registry import Registry
from benchmorph.data.errors import InputError
from benchmorph.models.backends.base import Backend, Completion, GenerationError
from benchmorph.models.params import RetryPolicy
from benchmorph.models.spec import ModelSpec

BackendFactory = Callable[[ModelSpec, RetryPolicy, "str | None"], Backend]
GENERATORS: Registry[BackendFactory] = Registry(
    "generation backend", group="benchmorph.generators", unknown=InputError
)
GENERATORS.add("openai", "benchmorph.models.backends.openai_compat:openai_backend")
GENERATORS.add("llamacpp", "benchmorph.models.backends.llamacpp:llamacpp_backend")


def register_backend(name: str, factory: BackendFactory) -> None:
    GENERATORS.add(name, factory)


def make_backend(
    spec: ModelSpec, policy: RetryPolicy | None = None, api_key_env: str | None = None
) -> Backend:
    """The backend for a spec (imports heavy libraries such as llama_cpp only when used)."""
    if spec.backend not in GENERATORS:
        raise GenerationError(f"model spec '{spec.text}' cannot generate text")
    return GENERATORS.get(spec.backend)(spec, policy or RetryPolicy(), api_key_env)


__all__ = ["GENERATORS", "Backend", "Completion", "GenerationError", "make_backend", "register_backend"]
