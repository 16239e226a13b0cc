"""One registry for every extension point: transforms, checks, formats, model schemes, backends, sections.

benchmorph grows by adding things of a few kinds, and each kind needs the
same four answers: how a new one announces itself, how the program finds it
without a list of modules kept by hand, what happens when two claim one
name, and what a user sees for a name nobody claimed.  ``Registry`` gives
them once:

- ``add(name, target)`` or the ``register(name)`` decorator; a target may be
  a ``"module:attr"`` string, imported only when first used, so listing names
  (``morph list``, ``--help``) never loads what it lists;
- ``discover()`` (run once, on first lookup) imports every module of the
  registry's packages (a new file there registers itself), every entry point
  of its group in installed distributions, and the modules named in its
  environment variable;
- a second, different target for a taken name is a ``RegistryError``
  (re-importing the same definition is not);
- ``get`` of an unknown name raises the registry's ``unknown`` error (an
  ``InputError`` for user-facing kinds) whose one line lists the known names.

Entries keep their registration order, and may carry metadata (``meta``)
readable without resolving the target.
"""

from __future__ import annotations

import importlib
import os
import pkgutil
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

T = TypeVar("T")

# Every registry made, so tools (and the architecture test) can list the program's extension points.
ALL_REGISTRIES: list[Registry[Any]] = []


class RegistryError(ValueError):
    """A registration that contradicts another (two targets for one name) or a target that cannot load."""


def _describe(target: object) -> str:
    if isinstance(target, str):
        return target
    module = getattr(target, "__module__", None)
    name = getattr(target, "__qualname__", None) or type(target).__qualname__
    return f"{module}:{name}" if module else str(name)


def _same(a: object, b: object) -> bool:
    """The same definition, possibly imported twice (a module run as a script and imported again)."""
    if a is b or (isinstance(a, str) and a == b):
        return True
    return (
        not isinstance(a, str)
        and not isinstance(b, str)
        and getattr(a, "__module__", None) == getattr(b, "__module__", 0)
        and getattr(a, "__qualname__", None) == getattr(b, "__qualname__", 0)
    )


def resolve_reference(reference: str) -> Any:
    """The object a ``"package.module:attr.sub"`` string names (``module`` alone: the module)."""
    module_name, _, attribute = reference.partition(":")
    value: Any = importlib.import_module(module_name)
    for part in filter(None, attribute.split(".")):
        value = getattr(value, part)
    return value


@dataclass
class _Entry(Generic[T]):
    target: T | str
    meta: dict[str, Any] = field(default_factory=dict)


class Registry(Generic[T]):
    """Named extension points of one kind (see the module docstring)."""

    def __init__(
        self,
        kind: str,
        *,
        packages: Sequence[str] = (),
        group: str | None = None,
        env: str | None = None,
        unknown: Callable[[str], Exception] = LookupError,
    ) -> None:
        self.kind = kind
        self.packages = tuple(packages)
        self.group = group
        self.env = env
        self.unknown = unknown
        self._entries: dict[str, _Entry[T]] = {}
        self._discovered = False
        self._discovering = False
        ALL_REGISTRIES.append(self)

    # ------------------------------------------------------------ registering

    def add(self, name: str, target: T | str, **meta: Any) -> None:
        """Register ``target`` (an object, or a lazy ``"module:attr"`` string) under ``name``."""
        if not isinstance(name, str) or not name:
            raise RegistryError(f"a {self.kind} needs a non-empty name, not {name!r}")
        existing = self._entries.get(name)
        if existing is not None:
            loaded = isinstance(existing.target, str) and self._resolves_to(existing.target, target)
            if not (loaded or _same(existing.target, target)):
                raise RegistryError(
                    f"{self.kind} {name!r} is registered twice: by {_describe(existing.target)} "
                    f"and by {_describe(target)}"
                )
            if not isinstance(target, str):  # the lazy entry's module registering the object itself
                existing.target = target
            existing.meta.update(meta)
            return
        self._entries[name] = _Entry(target, dict(meta))

    @staticmethod
    def _resolves_to(reference: str, target: object) -> bool:
        """Whether ``target`` is the object the lazy ``reference`` names (by module and qualified name)."""
        if isinstance(target, str):
            return False
        module_name, _, attribute = reference.partition(":")
        return (
            getattr(target, "__module__", None) == module_name
            and getattr(target, "__qualname__", getattr(target, "__name__", None)) == attribute
        )

    def register(self, name: str | None = None, **meta: Any) -> Callable[[T], T]:
        """Decorator form of :meth:`add`; ``name`` defaults to the target's ``name`` attribute."""

        def decorate(target: T) -> T:
            key = name if name is not None else getattr(target, "name", None)
            if not isinstance(key, str) or not key:
                raise RegistryError(f"{_describe(target)} needs a name to register as a {self.kind}")
            self.add(key, target, **meta)
            return target

        return decorate

    def remove(self, name: str) -> None:
        """Forget ``name`` (a test's temporary entry, a plug-in unloaded); unknown names are ignored."""
        self._entries.pop(name, None)

    # ------------------------------------------------------------ discovery

    def discover(self) -> None:
        """Import the registry's packages, entry points and ``$env`` modules, once."""
        if self._discovered or self._discovering:
            return
        self._discovering = True
        try:
            for package_name in self.packages:
                package = importlib.import_module(package_name)
                for module in sorted(pkgutil.iter_modules(package.__path__), key=lambda m: m.name):
                    if not module.name.startswith("_"):
                        importlib.import_module(f"{package_name}.{module.name}")
            if self.group:
                from importlib.metadata import entry_points  # 25 ms: only when looking

                for entry in entry_points(group=self.group):
                    try:
                        entry.load()
                    except Exception as exc:  # noqa: BLE001 - a broken plugin is named, never a traceback
                        dist = getattr(entry.dist, "name", "?")
                        raise self.unknown(
                            f"{self.kind} plugin {entry.name!r} ({entry.value}, from {dist}) cannot be "
                            f"loaded: {exc}"
                        ) from None
            if self.env:
                for module_name in filter(
                    None, (part.strip() for part in os.environ.get(self.env, "").split(","))
                ):
                    try:
                        importlib.import_module(module_name)
                    except ImportError as exc:
                        raise self.unknown(f"{self.env}: cannot import {module_name}: {exc}") from None
            self._discovered = True
        finally:
            self._discovering = False

    # ------------------------------------------------------------ lookup

    def names(self) -> list[str]:
        """Every registered name, in registration order; imports no lazy target."""
        self.discover()
        return list(self._entries)

    def __contains__(self, name: object) -> bool:
        self.discover()
        return name in self._entries

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def __len__(self) -> int:
        return len(self.names())

    def meta(self, name: str) -> Mapping[str, Any]:
        """The metadata ``name`` was registered with, without importing its target."""
        return self._entry(name).meta

    def get(self, name: str) -> T:
        """The target registered as ``name``, imported now if it was lazy."""
        entry = self._entry(name)
        if isinstance(entry.target, str):
            reference = entry.target
            try:
                value = resolve_reference(reference)
            except (ImportError, AttributeError) as exc:
                raise RegistryError(f"{self.kind} {name!r}: cannot load {reference}: {exc}") from None
            entry.target = value
        return entry.target  # type: ignore[return-value]

    def __getitem__(self, name: str) -> T:
        return self.get(name)

    def items(self) -> list[tuple[str, T]]:
        """(name, target) for every entry, resolving lazy ones."""
        return [(name, self.get(name)) for name in self.names()]

    def _entry(self, name: str) -> _Entry[T]:
        self.discover()
        entry = self._entries.get(name)
        if entry is None:
            known = ", ".join(self._entries) or "none"
            raise self.unknown(f"unknown {self.kind} {name!r}; known: {known}")
        return entry

    def check(self, name: str, where: str | None = None) -> None:
        """Raise the registry's ``unknown`` error for a name nobody registered (``where`` prefixes it)."""
        self.discover()
        if name not in self._entries:
            known = ", ".join(self._entries) or "none"
            prefix = f"{where}: " if where else ""
            raise self.unknown(f"{prefix}unknown {self.kind} {name!r}; known: {known}")
