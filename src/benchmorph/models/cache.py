"""The one cache for every LLM call in the project (generations and embeddings).

SQLite in WAL mode, so several processes (a `generate` and a `morph` at once)
share it safely, and every answer is committed the moment it arrives: a run
killed with SIGKILL loses at most the requests in flight.  Keys are content
hashes of (model identity, request, parameters, sample index), never file
names or positions, so a changed prompt or parameter simply misses.  A corrupt cache file is moved
aside and rebuilt; a full disk stops the command with one line (DiskFull).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
from array import array
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmorph.data.paths import cache_dir
from benchmorph.data.storage import open_sqlite, space_for

SCHEMA = """
CREATE TABLE IF NOT EXISTS generations (
    key TEXT PRIMARY KEY, model TEXT NOT NULL, created REAL NOT NULL,
    request TEXT NOT NULL, text TEXT NOT NULL, finish_reason TEXT, usage TEXT
);
CREATE TABLE IF NOT EXISTS embeddings (
    key TEXT PRIMARY KEY, model TEXT NOT NULL, created REAL NOT NULL, vector BLOB NOT NULL
);
"""


def default_cache_path() -> Path:
    return cache_dir() / "llm.sqlite"


def hash_key(payload: dict[str, Any]) -> str:
    blob = json.dumps(payload, sort_keys=True, ensure_ascii=False).encode()
    return hashlib.sha256(blob).hexdigest()


@dataclass
class CachedAnswer:
    text: str
    finish_reason: str | None
    usage: dict[str, Any]


@dataclass
class CacheStats:
    path: Path
    bytes: int
    generations: dict[str, int]
    embeddings: dict[str, int]


class LLMCache:
    """Answers by key; ``enabled=False`` (``--no-cache``) neither reads nor writes."""

    def __init__(self, path: str | Path | None = None, *, enabled: bool = True) -> None:
        self.path = Path(path) if path is not None else default_cache_path()
        self.enabled = enabled
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None
        if enabled:
            # A corrupt cache is moved aside and rebuilt (answers are asked again).
            self._db = open_sqlite(self.path, SCHEMA)

    # Generations -----------------------------------------------------------------
    def get(self, key: str) -> CachedAnswer | None:
        if self._db is None:
            return None
        with self._lock:
            row = self._db.execute(
                "SELECT text, finish_reason, usage FROM generations WHERE key = ?", (key,)
            ).fetchone()
        if row is None:
            return None
        return CachedAnswer(row[0], row[1], json.loads(row[2]) if row[2] else {})

    def put(self, key: str, model: str, request: dict[str, Any], answer: CachedAnswer) -> None:
        if self._db is None:
            return
        with self._lock, space_for(self.path):
            self._db.execute(
                "INSERT OR REPLACE INTO generations VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    key,
                    model,
                    time.time(),
                    json.dumps(request, ensure_ascii=False),
                    answer.text,
                    answer.finish_reason,
                    json.dumps(answer.usage),
                ),
            )

    # Embeddings ------------------------------------------------------------------
    def get_vectors(self, keys: list[str]) -> dict[str, list[float]]:
        if self._db is None or not keys:
            return {}
        found: dict[str, list[float]] = {}
        with self._lock:
            for start in range(0, len(keys), 500):
                chunk = keys[start : start + 500]
                marks = ",".join("?" * len(chunk))
                for key, blob in self._db.execute(
                    f"SELECT key, vector FROM embeddings WHERE key IN ({marks})", chunk
                ):
                    found[key] = array("f", blob).tolist()
        return found

    def put_vectors(self, model: str, vectors: dict[str, list[float]]) -> None:
        if self._db is None or not vectors:
            return
        now = time.time()
        rows = [(key, model, now, array("f", vector).tobytes()) for key, vector in vectors.items()]
        with self._lock, space_for(self.path):
            self._db.executemany("INSERT OR REPLACE INTO embeddings VALUES (?, ?, ?, ?)", rows)

    # Maintenance -----------------------------------------------------------------
    def stats(self) -> CacheStats:
        generations: dict[str, int] = {}
        embeddings: dict[str, int] = {}
        if self._db is not None:
            with self._lock:
                generations = dict(self._db.execute("SELECT model, COUNT(*) FROM generations GROUP BY model"))
                embeddings = dict(self._db.execute("SELECT model, COUNT(*) FROM embeddings GROUP BY model"))
        size = sum(
            Path(f"{self.path}{suffix}").stat().st_size
            for suffix in ("", "-wal")
            if Path(f"{self.path}{suffix}").exists()
        )
        return CacheStats(self.path, size, generations, embeddings)

    def clear(self, model: str | None = None) -> int:
        """Delete cached answers (all, or one model identity's); returns how many rows went."""
        if self._db is None:
            return 0
        with self._lock, space_for(self.path):
            removed = 0
            for table in ("generations", "embeddings"):
                if model is None:
                    removed += self._db.execute(f"DELETE FROM {table}").rowcount
                else:
                    removed += self._db.execute(f"DELETE FROM {table} WHERE model = ?", (model,)).rowcount
            self._db.execute("VACUUM")
        return removed

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None

    def __enter__(self) -> LLMCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
