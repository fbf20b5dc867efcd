"""Run store: an SQLite (WAL) file in the user data folder.

Runs (kind, spec, seed, stop rules, status) and every finished batch are
committed as they arrive, so a crash loses only batches in flight and a run
resumes where it stopped.  Batches are stored as plain data (core.plain),
never as pickles: loading a batch runs no code, and each one is checked
against its job before use.  A damaged file, run or batch gives a
StoreError that names it; other runs stay readable.

Each thread has its own connection, so a slow write (another process
holding the write lock) never blocks a reader such as the window.  A run
left "running" by a process that is gone (killed, crashed) is marked
"interrupted" when the store is opened; it can be resumed.

Schema 2 (this one) replaced schema 1's pickled batches; opening a schema-1
store converts its batches with an unpickler that can build nothing but
numpy arrays and the registered result types (see ``_LegacyUnpickler``).
"""
from __future__ import annotations

import io
import json
import os
import pickle
import socket
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from sudokustudio.core import plain
from sudokustudio.core.batch import BadResult, BatchJob, job_from_spec
from sudokustudio.core.paths import user_data_dir
from sudokustudio.jobs.sqlite import BUSY_TIMEOUT, SqliteFile, is_busy

SCHEMA_VERSION = 2
LIVE_STATES = ("queued", "running", "stopping")
FORMAT_PICKLE, FORMAT_PLAIN = 1, 2
STALE_AFTER = 120.0         # a live run's heartbeat older than this, from another host, is interrupted

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
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""
# columns added by schema 2 (ALTER TABLE keeps schema-1 files readable)
RUN_COLUMNS = {"owner": "TEXT NOT NULL DEFAULT ''", "heartbeat": "REAL NOT NULL DEFAULT 0",
               "rules": "TEXT NOT NULL DEFAULT '{}'", "elapsed": "REAL NOT NULL DEFAULT 0",
               "error": "TEXT NOT NULL DEFAULT ''"}
BATCH_COLUMNS = {"format": f"INTEGER NOT NULL DEFAULT {FORMAT_PICKLE}"}


class StoreError(RuntimeError):
    """The run store (or one run or batch in it) cannot be used; the message says which."""


class StoreBusy(StoreError):
    """Another process holds the store's write lock; the write can be tried again."""


def default_store_path() -> Path:
    return user_data_dir() / "runs.sqlite3"


def this_owner() -> str:
    """Who drives a run: host and process (a run is live while its owner is)."""
    return f"{socket.gethostname()}:{os.getpid()}"


def _owner_alive(owner: str, heartbeat: float, now: float) -> bool:
    host, _, pid = owner.rpartition(":")
    if not host or not pid.isdigit():
        return False
    if host != socket.gethostname():
        return now - heartbeat < STALE_AFTER
    if int(pid) == os.getpid():
        return True
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    return now - heartbeat < STALE_AFTER


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
    rules: dict | None = None
    elapsed: float = 0.0
    error: str = ""
    owner: str = ""


class RunStore(SqliteFile):
    """Thread-safe access to the run store (one connection per thread)."""

    def __init__(self, path: str | os.PathLike | None = None, busy_timeout: float = BUSY_TIMEOUT):
        super().__init__(path if path is not None else default_store_path(), busy_timeout)
        self.migrated = 0
        try:
            db = self._db()
            db.executescript(SCHEMA)
            self._upgrade(db)
            db.execute("SELECT count(*) FROM runs").fetchone()
        except sqlite3.DatabaseError as e:
            self.close()
            raise StoreError(f"run store {self.path} is damaged or not a run store ({e}); "
                             f"move it aside to start a new one") from e
        self.interrupted = self.mark_interrupted()

    # ---------------------------------------------------------------- writes
    def _write(self, sql: str, args: tuple = ()) -> sqlite3.Cursor:
        db = self._db()
        try:
            with db:
                return db.execute(sql, args)
        except sqlite3.Error as e:
            if is_busy(e):
                raise StoreBusy(f"run store {self.path} is busy (another process is writing): {e}") from e
            raise StoreError(f"run store {self.path}: {e}") from e

    # ---------------------------------------------------------------- schema
    def _upgrade(self, db: sqlite3.Connection) -> None:
        row = db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
        version = int(row[0]) if row else 1
        if version > SCHEMA_VERSION:
            raise StoreError(f"run store {self.path} was written by a newer Sudoku Studio (schema {version}); "
                             f"upgrade, or move the file aside")
        have = {r[1] for r in db.execute("PRAGMA table_info(runs)")}
        with db:
            for col, decl in RUN_COLUMNS.items():
                if col not in have:
                    db.execute(f"ALTER TABLE runs ADD COLUMN {col} {decl}")
            have_b = {r[1] for r in db.execute("PRAGMA table_info(batches)")}
            for col, decl in BATCH_COLUMNS.items():
                if col not in have_b:
                    db.execute(f"ALTER TABLE batches ADD COLUMN {col} {decl}")
            if version < 2:
                db.execute("UPDATE runs SET status='paused' WHERE status='stopped'")
            db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
        if version < 2:
            self.migrated = self._convert_pickled(db)

    def _convert_pickled(self, db: sqlite3.Connection) -> int:
        """Schema 1 -> 2: pickled batches become plain data; ones that are not safe stay and fail on load."""
        from sudokustudio.jobs.kinds import import_job_modules

        import_job_modules()  # registers the result types the old pickles name
        rows = db.execute("SELECT run_id, batch_index, result FROM batches WHERE format=?",
                          (FORMAT_PICKLE,)).fetchall()
        done = 0
        with db:
            for rid, idx, blob in rows:
                try:
                    value = _LegacyUnpickler(io.BytesIO(bytes(blob))).load()
                    new = plain.encode(value)
                except Exception:  # left as it is: loading it names run and batch
                    continue
                db.execute("UPDATE batches SET result=?, format=? WHERE run_id=? AND batch_index=?",
                           (sqlite3.Binary(new), FORMAT_PLAIN, rid, idx))
                done += 1
        return done

    def mark_interrupted(self) -> list[int]:
        """Runs left live by a process that is gone become "interrupted" (they can be resumed)."""
        now = time.time()
        rows = self._db().execute(
            f"SELECT id, owner, heartbeat FROM runs WHERE status IN ({','.join('?' * len(LIVE_STATES))})",
            LIVE_STATES).fetchall()
        dead = [rid for rid, owner, hb in rows if not _owner_alive(owner, hb, now)]
        for rid in dead:
            try:
                self._write("UPDATE runs SET status='interrupted', updated=? WHERE id=? AND status IN "
                            f"({','.join('?' * len(LIVE_STATES))})", (now, rid, *LIVE_STATES))
            except StoreError:
                break  # another process is writing: it is shown as interrupted next time
        return dead

    # ---------------------------------------------------------------- runs
    def create_run(self, job: BatchJob, seed: int, name: str = "", target_batches: int | None = None,
                   rules: dict | None = None, status: str = "queued") -> int:
        now = time.time()
        cur = self._write(
            "INSERT INTO runs(kind, name, spec, seed, status, target_batches, created, updated, owner, heartbeat,"
            " rules) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
            (job.kind, name, json.dumps(job.spec, sort_keys=True), str(int(seed)), status, target_batches,
             now, now, this_owner(), now, json.dumps(rules or {}, sort_keys=True)))
        return int(cur.lastrowid)

    def set_status(self, run_id: int, status: str, error: str | None = None, elapsed: float | None = None) -> None:
        """Record a run's status (this process becomes its owner while it is live)."""
        now = time.time()
        sets, args = ["status=?", "updated=?", "heartbeat=?", "owner=?"], [status, now, now, this_owner()]
        if error is not None:
            sets.append("error=?")
            args.append(error)
        if elapsed is not None:
            sets.append("elapsed=?")
            args.append(float(elapsed))
        self._write(f"UPDATE runs SET {', '.join(sets)} WHERE id=?", (*args, run_id))

    def heartbeat(self, run_id: int, elapsed: float | None = None) -> None:
        now = time.time()
        if elapsed is None:
            self._write("UPDATE runs SET heartbeat=?, updated=? WHERE id=?", (now, now, run_id))
        else:
            self._write("UPDATE runs SET heartbeat=?, updated=?, elapsed=? WHERE id=?", (now, now, elapsed, run_id))

    def set_rules(self, run_id: int, rules: dict) -> None:
        self._write("UPDATE runs SET rules=? WHERE id=?", (json.dumps(rules, sort_keys=True), run_id))

    def delete_run(self, run_id: int) -> None:
        self._write("DELETE FROM batches WHERE run_id=?", (run_id,))
        self._write("DELETE FROM runs WHERE id=?", (run_id,))

    def rename_run(self, run_id: int, name: str) -> None:
        self._write("UPDATE runs SET name=?, updated=? WHERE id=?", (name, time.time(), run_id))

    _RUN_QUERY = ("SELECT r.id, r.kind, r.name, r.spec, r.seed, r.status, r.target_batches, r.created, r.updated,"
                  " (SELECT count(*) FROM batches b WHERE b.run_id = r.id), r.rules, r.elapsed, r.error, r.owner"
                  " FROM runs r")

    def _row_to_info(self, row) -> RunInfo:
        rid, kind, name, spec, seed, status, target, created, updated, nb, rules, elapsed, error, owner = row
        try:
            spec_d = json.loads(spec)
            rules_d = json.loads(rules or "{}")
            if not isinstance(spec_d, dict) or not isinstance(rules_d, dict):
                raise ValueError("not a JSON object")
        except ValueError as e:
            raise StoreError(f"run {rid}: its record is damaged ({e})") from e
        return RunInfo(rid, kind, name, spec_d, int(seed), status, target, created, updated, nb, rules_d,
                       float(elapsed or 0.0), error or "", owner or "")

    def runs(self, kind: str | None = None) -> list[RunInfo]:
        """All runs (newest first); a run whose record is damaged is skipped, not fatal."""
        q, args = self._RUN_QUERY, ()
        if kind:
            q += " WHERE r.kind = ?"
            args = (kind,)
        q += " ORDER BY r.id DESC"
        try:
            rows = self._db().execute(q, args).fetchall()
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
        try:
            row = self._db().execute(self._RUN_QUERY + " WHERE r.id = ?", (run_id,)).fetchone()
        except sqlite3.DatabaseError as e:
            raise StoreError(f"run store {self.path}: cannot read run {run_id} ({e})") from e
        if row is None:
            raise StoreError(f"no run {run_id} in {self.path}")
        return self._row_to_info(row)

    def job_of(self, run_id: int) -> BatchJob:
        from sudokustudio.jobs.kinds import import_job_module

        info = self.run(run_id)
        try:
            import_job_module(info.kind)
            return job_from_spec(info.kind, info.spec)
        except (KeyError, TypeError, ValueError) as e:
            raise StoreError(f"run {run_id}: cannot rebuild its {info.kind!r} job ({e})") from e

    # ---------------------------------------------------------------- batches
    def add_batch(self, run_id: int, batch_index: int, blob: bytes, seconds: float = 0.0,
                  elapsed: float | None = None) -> None:
        """Commit one finished batch (idempotent); StoreBusy if another process holds the lock."""
        now = time.time()
        db = self._db()
        try:
            with db:
                db.execute("INSERT OR IGNORE INTO batches(run_id, batch_index, result, seconds, finished, format)"
                           " VALUES (?,?,?,?,?,?)",
                           (run_id, batch_index, sqlite3.Binary(blob), seconds, now, FORMAT_PLAIN))
                if elapsed is None:
                    db.execute("UPDATE runs SET updated=?, heartbeat=? WHERE id=?", (now, now, run_id))
                else:
                    db.execute("UPDATE runs SET updated=?, heartbeat=?, elapsed=? WHERE id=?",
                               (now, now, elapsed, run_id))
        except sqlite3.Error as e:
            if is_busy(e):
                raise StoreBusy(f"run {run_id}, batch {batch_index}: the store is busy ({e})") from e
            raise StoreError(f"run {run_id}, batch {batch_index}: cannot be stored ({e})") from e

    def done_indices(self, run_id: int) -> set[int]:
        return {r[0] for r in self._db().execute("SELECT batch_index FROM batches WHERE run_id=?", (run_id,))}

    def iter_results(self, run_id: int, job: BatchJob) -> Iterator[tuple[int, Any, float, float]]:
        """Yield (batch index, result, seconds, finished time) in index order, each checked against ``job``."""
        try:
            rows = self._db().execute(
                "SELECT batch_index, result, seconds, finished, format FROM batches WHERE run_id=?"
                " ORDER BY batch_index", (run_id,)).fetchall()
        except sqlite3.DatabaseError as e:
            raise StoreError(f"run {run_id}: its batches cannot be read ({e})") from e
        for idx, blob, secs, fin, fmt in rows:
            yield idx, self._decode(run_id, idx, job, blob, fmt), secs, fin

    def _decode(self, run_id: int, idx: int, job: BatchJob, blob, fmt: int):
        if fmt != FORMAT_PLAIN:
            raise StoreError(f"run {run_id}: batch {idx} was stored by an older version in a form that cannot "
                             f"be read safely; delete the run")
        try:
            return job.decode(bytes(blob))
        except (plain.PlainError, BadResult) as e:
            raise StoreError(f"run {run_id}: batch {idx} is damaged ({e})") from e

    def load_results(self, run_id: int, job: BatchJob) -> tuple[Any, set[int], list[tuple[int, float]]]:
        """(merged result in index order, indices done, [(index, finished time)])."""
        total = job.empty()
        done, times = set(), []
        for idx, res, _, fin in self.iter_results(run_id, job):
            total = job.merge(total, res)
            done.add(idx)
            times.append((idx, fin))
        return total, done, times


# ------------------------------------------------------------------ schema 1 batches
_NUMPY_GLOBALS = {
    ("numpy.core.multiarray", "_reconstruct"), ("numpy._core.multiarray", "_reconstruct"),
    ("numpy.core.multiarray", "scalar"), ("numpy._core.multiarray", "scalar"),
    ("numpy", "ndarray"), ("numpy", "dtype"),
    ("numpy.core.numeric", "_frombuffer"), ("numpy._core.numeric", "_frombuffer"),
}


class _LegacyUnpickler(pickle.Unpickler):
    """Unpickles schema-1 batches, building nothing but numpy arrays, numpy dtypes and
    scalars, and the registered plain result types (looked up by class name, so
    classes that moved since are found).  Anything else (os.system, ...) is refused."""

    def find_class(self, module: str, name: str):
        if (module, name) in _NUMPY_GLOBALS or (module == "numpy.dtypes" and name.endswith("DType")):
            return super().find_class(module, name)
        if module.startswith("sudokustudio."):
            cls = plain.registered_types().get(name)
            if cls is not None:
                return cls
        raise pickle.UnpicklingError(f"{module}.{name} is not allowed in a stored batch")
