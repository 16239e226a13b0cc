"""Verdicts saved as they are made, so an interrupted evaluation resumes instead of starting over.

Keyed by :meth:`Engine.verdict_key` (a content hash of problem, tests,
code and limits), never by position or file name: a changed sample, test or
limit simply misses, so nothing stale is reused.  A write that fails on a
full disk is rolled back by SQLite and raised as DiskFull; the verdicts
saved before it stay, and a re-run resumes from them.
"""

from __future__ import annotations

import threading
from pathlib import Path

from benchmorph.data.models import Verdict
from benchmorph.data.storage import open_sqlite, space_for

SCHEMA = "CREATE TABLE IF NOT EXISTS verdicts (key TEXT PRIMARY KEY, verdict TEXT NOT NULL);"


class VerdictStore:
    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        # A corrupt checkpoint is moved aside and rebuilt: its verdicts are judged again.
        self._db = open_sqlite(self.path, SCHEMA)

    def get(self, key: str) -> Verdict | None:
        with self._lock:
            row = self._db.execute("SELECT verdict FROM verdicts WHERE key = ?", (key,)).fetchone()
        return Verdict.model_validate_json(row[0]) if row else None

    def put(self, key: str, verdict: Verdict) -> None:
        with self._lock, space_for(self.path):
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
