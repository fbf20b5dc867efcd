"""Run store: an SQLite (WAL) file in the user data folder.

Runs (kind, spec, seed, status) and every finished batch are committed as
they arrive, so a crash loses only batches in flight and a run resumes where
it stopped.  A damaged file or a damaged run gives a StoreError that names
what is wrong; other runs stay readable.
"""
from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sudokustudio.core.batch import BatchJob, job_from_spec

SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    kind TEXT NOT NULL,
    name TEXT NOT NULL DEFAULT '',
    spec TEXT NOT NULL,
    seed TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'running',
    target_batches INTEGER,
    created REAL NOT NULL,
    updated REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS batches (
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    batch_index INTEGER NOT NULL,
    result BLOB NOT NULL,
    seconds REAL NOT NULL DEFAULT 0,
    finished REAL NOT NULL,
    PRIMARY KEY (run_id, batch_index)
);
"""


class StoreError(RuntimeError):
    """The run store (or one run in it) cannot be read; the message says which."""


def default_store_path() -> Path:
    base = os.environ.get("SUDOKUSTUDIO_DATA") or os.environ.get("XDG_DATA_HOME")
    root = Path(base) if base else Path.home() / ".local" / "share"
    if not os.environ.get("SUDOKUSTUDIO_DATA"):
        root = root / "sudokustudio"
    root.mkdir(parents=True, exist_ok=True)
    return root / "runs.sqlite3"


@dataclass
class RunInfo:
    id: int
    kind: str
    name: str
    spec: dict
    seed: int
    status: str
    target_batches: int | None
    created: float
    updated: float
    batches: int = 0


class RunStore:
    """Thread-safe access to the run store (one connection, a lock)."""

    def __init__(self, path: str | os.PathLike | None = None):
        self.path = Path(path) if path is not None else default_store_path()
        self._lock = threading.RLock()
        try:
            self._db = sqlite3.connect(str(self.path), check_same_thread=False, timeout=30)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA foreign_keys=ON")
            self._db.executescript(SCHEMA)
            self._db.execute("SELECT count(*) FROM runs").fetchone()
        except sqlite3.DatabaseError as e:
            raise StoreError(f"run store {self.path} is damaged or not a run store ({e}); "
                             f"move it aside to start a new one") from e

    def close(self) -> None:
        with self._lock:
            self._db.close()

    # ---------------------------------------------------------------- runs
    def create_run(self, job: BatchJob, seed: int, name: str = "", target_batches: int | None = None) -> int:
        now = time.time()
        with self._lock, self._db:
            cur = self._db.execute(
                "INSERT INTO runs(kind, name, spec, seed, status, target_batches, created, updated)"
                " VALUES (?,?,?,?,?,?,?,?)",
                (job.kind, name, json.dumps(job.spec, sort_keys=True), str(int(seed)), "running",
                 target_batches, now, now))
            return int(cur.lastrowid)

    def set_status(self, run_id: int, status: str) -> None:
        with self._lock, self._db:
            self._db.execute("UPDATE runs SET status=?, updated=? WHERE id=?", (status, time.time(), run_id))

    def delete_run(self, run_id: int) -> None:
        with self._lock, self._db:
            self._db.execute("DELETE FROM batches WHERE run_id=?", (run_id,))
            self._db.execute("DELETE FROM runs WHERE id=?", (run_id,))

    def _row_to_info(self, row) -> RunInfo:
        rid, kind, name, spec, seed, status, target, created, updated, nb = row
        try:
            spec_d = json.loads(spec)
        except ValueError as e:
            raise StoreError(f"run {rid}: its spec is damaged ({e})") from e
        return RunInfo(rid, kind, name, spec_d, int(seed), status, target, created, updated, nb)

    def runs(self, kind: str | None = None) -> list[RunInfo]:
        """All runs (newest first); a run whose record is damaged is skipped, not fatal."""
        q = ("SELECT r.id, r.kind, r.name, r.spec, r.seed, r.status, r.target_batches, r.created, r.updated,"
             " (SELECT count(*) FROM batches b WHERE b.run_id = r.id) FROM runs r")
        args: tuple = ()
        if kind:
            q += " WHERE r.kind = ?"
            args = (kind,)
        q += " ORDER BY r.id DESC"
        with self._lock:
            try:
                rows = self._db.execute(q, args).fetchall()
            except sqlite3.DatabaseError as e:
                raise StoreError(f"run store {self.path}: cannot list runs ({e})") from e
        out = []
        for row in rows:
            try:
                out.append(self._row_to_info(row))
            except (StoreError, ValueError, TypeError):
                continue
        return out

    def run(self, run_id: int) -> RunInfo:
        for info in self.runs():
            if info.id == run_id:
                return info
        raise StoreError(f"no run {run_id} in {self.path}")

    def job_of(self, run_id: int) -> BatchJob:
        info = self.run(run_id)
        try:
            return job_from_spec(info.kind, info.spec)
        except (KeyError, TypeError) as e:
            raise StoreError(f"run {run_id}: cannot rebuild its {info.kind!r} job ({e})") from e

    # ---------------------------------------------------------------- batches
    def add_batch(self, run_id: int, batch_index: int, blob: bytes, seconds: float = 0.0) -> None:
        now = time.time()
        with self._lock, self._db:
            self._db.execute(
                "INSERT OR IGNORE INTO batches(run_id, batch_index, result, seconds, finished) VALUES (?,?,?,?,?)",
                (run_id, batch_index, sqlite3.Binary(blob), seconds, now))
            self._db.execute("UPDATE runs SET updated=? WHERE id=?", (now, run_id))

    def done_indices(self, run_id: int) -> set[int]:
        with self._lock:
            return {r[0] for r in self._db.execute(
                "SELECT batch_index FROM batches WHERE run_id=?", (run_id,))}

    def iter_results(self, run_id: int, job: BatchJob):
        """Yield (batch index, result, seconds, finished time) in index order (for replaying a run's history)."""
        with self._lock:
            try:
                rows = self._db.execute(
                    "SELECT batch_index, result, seconds, finished FROM batches WHERE run_id=? ORDER BY batch_index",
                    (run_id,)).fetchall()
            except sqlite3.DatabaseError as e:
                raise StoreError(f"run {run_id}: its batches cannot be read ({e})") from e
        for idx, blob, secs, fin in rows:
            try:
                res = job.decode(bytes(blob))
            except Exception as e:
                raise StoreError(f"run {run_id}: batch {idx} is damaged ({type(e).__name__}: {e})") from e
            yield idx, res, secs, fin

    def rename_run(self, run_id: int, name: str) -> None:
        with self._lock, self._db:
            self._db.execute("UPDATE runs SET name=?, updated=? WHERE id=?", (name, time.time(), run_id))

    def load_results(self, run_id: int, job: BatchJob) -> tuple[Any, set[int], list[tuple[int, float]]]:
        """(merged result in index order, indices done, [(index, finished time)])."""
        with self._lock:
            try:
                rows = self._db.execute(
                    "SELECT batch_index, result, finished FROM batches WHERE run_id=? ORDER BY batch_index",
                    (run_id,)).fetchall()
            except sqlite3.DatabaseError as e:
                raise StoreError(f"run {run_id}: its batches cannot be read ({e})") from e
        total = job.empty()
        done = set()
        times = []
        for idx, blob, fin in rows:
            try:
                res = job.decode(bytes(blob))
            except Exception as e:
                raise StoreError(f"run {run_id}: batch {idx} is damaged ({type(e).__name__}: {e})") from e
            total = job.merge(total, res)
            done.add(idx)
            times.append((idx, fin))
        return total, done, times
