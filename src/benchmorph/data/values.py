"""Lossless JSON encoding of Python test values (inputs and outputs).

Test inputs and expected outputs hold tuples, sets, NaN, bytes and dicts with
non-string keys, none of which survive plain JSON.  This codec tags them so a
value written to our JSONL, sent to a sandbox worker or read back from one is
the same Python value.

It must stay standard-library only: the sandbox worker loads this very file
(by path) to encode what model code returns, and nothing else of benchmorph is
visible inside the sandbox.

Encoding never calls methods the value's own class may have overridden: model
code can return an ``int`` subclass whose ``__eq__`` always answers True, and
such a value must reach the comparison as a plain ``int``.
"""

from __future__ import annotations

import base64
import math
from typing import Any

TAGS = (
    "__tuple__",
    "__set__",
    "__frozenset__",
    "__dict__",
    "__float__",
    "__bytes__",
    "__complex__",
    "__opaque__",
)


class Opaque:
    """A value the codec could not represent (a custom object, a generator).

    It equals nothing but another Opaque with the same description, so a
    solution that returns an arbitrary object never passes by accident.
    """

    __slots__ = ("description",)

    def __init__(self, description: str) -> None:
        self.description = description

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Opaque) and other.description == self.description

    def __hash__(self) -> int:
        return hash(("Opaque", self.description))

    def __repr__(self) -> str:
        return f"<opaque {self.description}>"


def _float(value: float) -> Any:
    if math.isfinite(value):
        return value
    if math.isnan(value):
        return {"__float__": "nan"}
    return {"__float__": "inf" if value > 0 else "-inf"}


def _sort_key(item: Any) -> str:
    return repr(item)


def encode(value: Any, _depth: int = 0) -> Any:
    """Turn a Python value into JSON-serialisable data, tagging non-JSON types."""
    if _depth > 400:
        raise ValueError("value nested too deeply to encode")
    depth = _depth + 1
    kind = type(value)
    if value is None or kind is bool or kind is str:
        return value
    if kind is int:
        return value
    if kind is float:
        return _float(value)
    if kind is list:
        return [encode(item, depth) for item in value]
    if kind is tuple:
        return {"__tuple__": [encode(item, depth) for item in value]}
    if kind is dict:
        if all(type(key) is str for key in value) and not (len(value) == 1 and next(iter(value)) in TAGS):
            return {key: encode(item, depth) for key, item in value.items()}
        return {"__dict__": [[encode(k, depth), encode(v, depth)] for k, v in value.items()]}
    if kind is set or kind is frozenset:
        tag = "__set__" if kind is set else "__frozenset__"
        items = [encode(item, depth) for item in value]
        try:
            items.sort(key=_sort_key)
        except Exception:  # noqa: BLE001 - ordering is cosmetic
            pass
        return {tag: items}
    if kind is bytes:
        return {"__bytes__": base64.b64encode(value).decode("ascii")}
    if kind is complex:
        return {"__complex__": [_float(value.real), _float(value.imag)]}
    if kind is Opaque:
        # Round-trips: a decoded answer written back (a variant's expected) stays the same value.
        return {"__opaque__": value.description}
    return _encode_unusual(value, depth)


def _encode_unusual(value: Any, depth: int) -> Any:
    """Subclasses of builtins and numpy scalars/arrays, reduced to plain builtins."""
    if isinstance(value, int):
        return int.__index__(value)
    if isinstance(value, float):
        return _float(float.__float__(value))
    if isinstance(value, str):
        return str.__str__(value)
    if isinstance(value, bytes):
        return encode(bytes(memoryview(value)), depth)
    if isinstance(value, list):
        return [encode(item, depth) for item in list.__iter__(value)]
    if isinstance(value, tuple):
        return {"__tuple__": [encode(item, depth) for item in tuple.__iter__(value)]}
    if isinstance(value, dict):
        return encode(dict(dict.items(value)), depth)
    if isinstance(value, (set, frozenset)):
        return encode(
            set(set.__iter__(value)) if isinstance(value, set) else frozenset(frozenset.__iter__(value)),
            depth,
        )
    module = getattr(type(value), "__module__", "") or ""
    if module.startswith("numpy") and hasattr(value, "tolist"):
        try:
            return encode(value.tolist(), depth)
        except Exception:  # noqa: BLE001 - fall through to opaque
            pass
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 - hostile __repr__
        text = "?"
    return {"__opaque__": f"{type(value).__name__}: {text[:200]}"}


def decode(data: Any) -> Any:
    """Inverse of :func:`encode`."""
    kind = type(data)
    if kind is list:
        return [decode(item) for item in data]
    if kind is not dict:
        return data
    if len(data) == 1:
        tag, payload = next(iter(data.items()))
        if tag == "__tuple__":
            return tuple(decode(item) for item in payload)
        if tag == "__set__":
            return {decode(item) for item in payload}
        if tag == "__frozenset__":
            return frozenset(decode(item) for item in payload)
        if tag == "__dict__":
            return {decode(k): decode(v) for k, v in payload}
        if tag == "__float__":
            return float(payload)
        if tag == "__bytes__":
            return base64.b64decode(payload)
        if tag == "__complex__":
            return complex(decode(payload[0]), decode(payload[1]))
        if tag == "__opaque__":
            return Opaque(payload)
    return {key: decode(item) for key, item in data.items()}
