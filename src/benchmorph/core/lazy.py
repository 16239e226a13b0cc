"""Public names of a package, imported only when first used.

A layer's ``__init__`` names its public surface, but importing it must not
load every module behind that surface: ``import benchmorph.testgen.mutants``
(stdlib only) would otherwise pay for the sandbox engine, and ``morph list``
for every LLM agent.  A package lists ``name -> module`` pairs and assigns
``__getattr__ = lazy_exports(__name__, {...})``; type checkers see the names
through an ``if TYPE_CHECKING:`` import block beside it.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(package: str, exports: Mapping[str, str]) -> Callable[[str], Any]:
    """A module-level ``__getattr__`` that imports ``exports[name]`` on first access and caches the value."""

    def __getattr__(name: str) -> Any:
        module_name = exports.get(name)
        if module_name is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module_name), name)
        setattr(importlib.import_module(package), name, value)
        return value

    return __getattr__
