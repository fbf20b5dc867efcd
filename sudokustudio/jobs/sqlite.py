"""What the run store and the collection store share: an SQLite (WAL) file with one
connection per thread, so a write that waits for another process's lock never blocks
a reader (such as the window), and a busy file is told apart from a broken one."""
from __future__ import annotations

import os
import sqlite3
import threading
from contextlib import contextmanager
from pathlib import Path

BUSY_TIMEOUT = 5.0          # seconds sqlite waits for another writer before "database is locked"


class SqliteFile:
    """Per-thread connections to one SQLite file in WAL mode (see the module docstring)."""

    def __init__(self, path: str | os.PathLike, busy_timeout: float = BUSY_TIMEOUT):
        self.path = Path(path)
        self.busy_timeout = float(busy_timeout)
        self._local = threading.local()
        self._conns: list[sqlite3.Connection] = []
        self._conns_lock = threading.Lock()

    def _db(self) -> sqlite3.Connection:
        db = getattr(self._local, "db", None)
        if db is None:
            db = sqlite3.connect(str(self.path), timeout=self.busy_timeout)
            db.execute("PRAGMA journal_mode=WAL")
            # WAL with NORMAL sync: a commit survives the process crashing (what a run store must
            # survive) without an fsync each time; a power cut may lose the last commits, whose
            # batches are then simply run again.  FULL cost ~0.4 ms a batch on the run's thread.
            db.execute("PRAGMA synchronous=NORMAL")
            db.execute("PRAGMA foreign_keys=ON")
            self._local.db = db
            with self._conns_lock:
                self._conns.append(db)
        return db

    @contextmanager
    def busy_wait(self, seconds: float | None):
        """Within the block, this thread's writes wait at most ``seconds`` for another
        writer's lock (None: the file's own busy timeout).  A run's loop writes with a short
        wait and tries again later, so a long-held lock never starves its workers."""
        if seconds is None:
            yield
            return
        db = self._db()
        db.execute(f"PRAGMA busy_timeout = {max(0, int(1000 * float(seconds)))}")
        try:
            yield
        finally:
            db.execute(f"PRAGMA busy_timeout = {int(1000 * self.busy_timeout)}")

    def close(self) -> None:
        with self._conns_lock:
            conns, self._conns = self._conns, []
        for db in conns:
            try:
                db.close()
            except sqlite3.Error:
                pass
        self._local = threading.local()


def is_busy(e: sqlite3.Error) -> bool:
    """True for "another process holds the lock" (worth trying again), not for damage."""
    text = str(e).lower()
    return isinstance(e, sqlite3.OperationalError) and ("locked" in text or "busy" in text)
