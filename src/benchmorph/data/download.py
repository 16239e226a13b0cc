"""Download-once cache for official benchmark releases.

Loaders prefer a local file the user names; only when there is none do they
fetch the official release, once, into a per-user cache.  A partial download
must never look like a finished one, so bytes stream into a temporary file
that is renamed into place only when complete.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import httpx

from benchmorph.data.errors import InputError

CACHE_ENV = "BENCHMORPH_CACHE"
_GZIP_MAGIC = b"\x1f\x8b"


def cache_dir() -> Path:
    """The user's benchmorph cache: ``$BENCHMORPH_CACHE`` or ``~/.cache/benchmorph``."""
    configured = os.environ.get(CACHE_ENV)
    return Path(configured).expanduser() if configured else Path.home() / ".cache" / "benchmorph"


def cached_download(url: str, relative: str | Path, *, what: str, timeout: float = 60.0) -> Path:
    """Return the cached copy of ``url`` (at ``cache_dir()/relative``), downloading it first if absent.

    Any failure (offline, HTTP error, a gzip name that received an HTML page)
    becomes an InputError telling the user how to proceed without a network.
    """
    target = cache_dir() / relative
    if target.is_file() and target.stat().st_size > 0:
        return target
    hint = f"cannot download {what} from {url}"
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(prefix=target.name + ".", suffix=".part", dir=target.parent)
    except OSError as exc:
        raise InputError(f"{hint}: cannot write the cache ({exc}); pass --data PATH", path=target) from None
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as handle:
            with httpx.stream("GET", url, follow_redirects=True, timeout=timeout) as response:
                response.raise_for_status()
                for chunk in response.iter_bytes():
                    handle.write(chunk)
        if target.suffix == ".gz":
            with tmp.open("rb") as check:
                if check.read(2) != _GZIP_MAGIC:
                    raise InputError(f"{hint}: the server did not send a gzip file; pass --data PATH")
        if tmp.stat().st_size == 0:
            raise InputError(f"{hint}: the server sent an empty file; pass --data PATH")
        os.replace(tmp, target)
    except httpx.HTTPStatusError as exc:
        raise InputError(f"{hint} (HTTP {exc.response.status_code}); pass --data PATH") from None
    except httpx.HTTPError as exc:
        reason = " ".join(str(exc).split()) or type(exc).__name__
        raise InputError(f"{hint} ({reason}); pass --data PATH") from None
    except OSError as exc:
        raise InputError(f"{hint}: cannot write the cache ({exc}); pass --data PATH", path=target) from None
    finally:
        tmp.unlink(missing_ok=True)
    return target
