"""Where benchmorph keeps downloads and caches."""

from __future__ import annotations

import os
from pathlib import Path


def cache_dir() -> Path:
    """``$BENCHMORPH_CACHE``, else ``~/.cache/benchmorph``; created private (0700).

    Private because it holds expected outputs: in the weaker rlimits-only mode
    model code runs as another uid and must not be able to read them.
    """
    root = Path(os.environ.get("BENCHMORPH_CACHE") or Path.home() / ".cache" / "benchmorph")
    root.mkdir(parents=True, exist_ok=True)
    try:
        root.chmod(0o700)
    except OSError:
        pass
    return root
