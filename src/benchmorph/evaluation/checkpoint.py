"""Verdicts saved as they are made, so an interrupted evaluation resumes instead of starting over.

Keyed by :meth:`Engine.verdict_key` (a content hash of problem, tests,
code and limits), never by position or file name: a changed sample, test or
limit simply misses, so nothing stale is reused.
"""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

from benchmorph.data.models import Verdict


class VerdictStore:
    def __init__(self, path: str | Path) -> None:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute("CREATE TABLE IF NOT EXISTS verdicts (key TEXT PRIMARY KEY, verdict TEXT NOT NULL)")

    def get(self, key: str) -> Verdict | None:
        with self._lock:
            row = self._db.execute("SELECT verdict FROM verdicts WHERE key = ?", (key,)).fetchone()
        return Verdict.model_validate_json(row[0]) if row else None

    def put(self, key: str, verdict: Verdict) -> None:
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO verdicts (key, verdict) VALUES (?, ?)",
                (key, verdict.model_dump_json()),
            )

    def __len__(self) -> int:
        with self._lock:
            return self._db.execute("SELECT COUNT(*) FROM verdicts").fetchone()[0]

    def close(self) -> None:
        with self._lock:
            self._db.close()
