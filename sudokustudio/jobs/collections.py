"""Puzzle collections: stored in SQLite as they are generated, imported, exported.

A collection is a named list of puzzles with, per puzzle, its clue count, a
weight (1, or 1/Pr for the weighted sampler) and difficulty metrics.  The
Generators tab stores each finished batch in one transaction
(``add_batch``), so a crash loses only batches in flight.  The store is its
own SQLite (WAL) file next to the run store (``collections.sqlite3``).

Files: ``.txt``/``.sdm`` one puzzle per line (import: trailing fields
ignored, except a numeric second field read as a weight when asked) and
``.csv`` with a header (``puzzle`` required; ``clues``, ``generator``,
``seed``, ``weight`` and metric columns optional).  Every error names the
file, the line and what is wrong (``CollectionError``).
"""
from __future__ import annotations

import csv
import io
import json
import math
import os
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from sudokustudio.jobs.sqlite import BUSY_TIMEOUT, SqliteFile, is_busy
from sudokustudio.sudoku.formats import read_collection
from sudokustudio.sudoku.grid import PuzzleFormatError, format_puzzles, parse_puzzle, parse_rows

EXPORT_SUFFIXES = (".txt", ".sdm", ".csv")

SCHEMA = """
CREATE TABLE IF NOT EXISTS collections (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL,
    generator TEXT NOT NULL,
    spec TEXT NOT NULL DEFAULT '{}',
    seed TEXT NOT NULL DEFAULT '',
    source TEXT NOT NULL DEFAULT '',
    created REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS puzzles (
    collection_id INTEGER NOT NULL REFERENCES collections(id) ON DELETE CASCADE,
    batch_index INTEGER NOT NULL,
    position INTEGER NOT NULL,
    puzzle TEXT NOT NULL,
    clues INTEGER NOT NULL,
    weight REAL NOT NULL DEFAULT 1,
    metrics TEXT NOT NULL DEFAULT '{}',
    PRIMARY KEY (collection_id, batch_index, position)
);
CREATE TABLE IF NOT EXISTS batch_columns (
    collection_id INTEGER NOT NULL REFERENCES collections(id) ON DELETE CASCADE,
    batch_index INTEGER NOT NULL,
    name TEXT NOT NULL,
    rows INTEGER NOT NULL,
    dtype TEXT NOT NULL,
    data BLOB NOT NULL,
    PRIMARY KEY (collection_id, batch_index, name)
);
CREATE TABLE IF NOT EXISTS columns (
    collection_id INTEGER NOT NULL REFERENCES collections(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    rows INTEGER NOT NULL,
    dtype TEXT NOT NULL,
    data BLOB NOT NULL,
    PRIMARY KEY (collection_id, name)
);
"""

#: dtypes a stored column may have (anything else is a damaged store, never unpickled or guessed)
COLUMN_DTYPES = ("int8", "int16", "int32", "int64", "float64")


class CollectionError(ValueError):
    """A collection file or store that cannot be read; the message says where and why."""


@dataclass
class Collection:
    """Puzzles with weights and metrics, in memory."""

    name: str
    generator: str
    puzzles: np.ndarray                       # uint8[N, 81]
    weights: np.ndarray                       # float[N]
    metrics: dict = field(default_factory=dict)   # name -> float[N]
    seed: str = ""
    source: str = ""
    classes: int | None = None                # isomorphism classes, when counted (import)

    def __len__(self) -> int:
        return int(self.puzzles.shape[0])

    @property
    def clues(self) -> np.ndarray:
        return np.count_nonzero(self.puzzles, axis=1)


def default_collections_path() -> Path:
    from sudokustudio.core.paths import user_data_dir

    return user_data_dir() / "collections.sqlite3"


class CollectionStore(SqliteFile):
    """Thread-safe SQLite store of collections (one connection per thread)."""

    def __init__(self, path: str | os.PathLike | None = None, busy_timeout: float = BUSY_TIMEOUT):
        super().__init__(path if path is not None else default_collections_path(), busy_timeout)
        try:
            db = self._db()
            db.executescript(SCHEMA)
            db.execute("SELECT count(*) FROM collections").fetchone()
        except sqlite3.DatabaseError as e:
            self.close()
            raise CollectionError(f"collection store {self.path} is damaged or not a collection store ({e}); "
                                  f"move it aside to start a new one") from e

    def _write(self, sql: str, rows: list[tuple], *more: tuple[str, list[tuple]]) -> sqlite3.Cursor:
        """Run ``sql`` for each row, then each further (sql, rows), in one transaction; returns
        the first statement's cursor.  CollectionError names a busy or broken file."""
        db = self._db()
        try:
            with db:
                cur = db.execute(sql, rows[0]) if len(rows) == 1 else db.executemany(sql, rows)
                for sql2, rows2 in more:
                    if rows2:
                        db.executemany(sql2, rows2)
                return cur
        except sqlite3.Error as e:
            what = "is busy (another process is writing)" if is_busy(e) else "cannot be written"
            raise CollectionError(f"collection store {self.path} {what}: {e}") from e

    def create(self, name: str, generator: str, spec: dict | None = None, seed="", source: str = "") -> int:
        cur = self._write(
            "INSERT INTO collections(name, generator, spec, seed, source, created) VALUES (?,?,?,?,?,?)",
            [(name, generator, json.dumps(spec or {}, sort_keys=True), str(seed), source, time.time())])
        return int(cur.lastrowid)

    def add_batch(self, collection_id: int, batch_index: int, puzzles, weights=None, metrics=None) -> None:
        """Store one batch of puzzles in one transaction (idempotent per batch)."""
        p = np.asarray(puzzles, dtype=np.uint8).reshape(-1, 81)
        w = np.ones(p.shape[0]) if weights is None else np.asarray(weights, dtype=np.float64)
        metrics = metrics or {}
        # whole columns converted at once: a run's thread writes every batch while the window
        # draws, and per-cell str() and per-value .item() held the GIL ~40 ms a generators batch
        clues = np.count_nonzero(p, axis=1)
        names = list(metrics)
        values = [_plain_values(metrics[k]) for k in names]
        rows = [(collection_id, int(batch_index), i, text, c, x, m)
                for i, (text, c, x, m) in enumerate(zip(format_puzzles(p), clues.tolist(), w.tolist(),
                                                        _metrics_json(names, values, p.shape[0])))]
        # the batch's numeric columns too, so the browser never reads a million JSON rows
        cols = {"clues": clues.astype(np.int8), "weight": w.astype(np.float64)}
        for k, vals in zip(names, values):
            cols[f"m:{k}"] = np.array([np.nan if x is None else float(x) for x in vals], dtype=np.float64)
        batch_cols = [(collection_id, int(batch_index), name, int(a.shape[0]), a.dtype.name, a.tobytes())
                      for name, a in cols.items()]
        self._write("INSERT OR IGNORE INTO puzzles VALUES (?,?,?,?,?,?,?)", rows,
                    ("INSERT OR IGNORE INTO batch_columns VALUES (?,?,?,?,?,?)", batch_cols))

    def add_collection(self, coll: Collection, spec: dict | None = None) -> int:
        cid = self.create(coll.name, coll.generator, spec, coll.seed, coll.source)
        self.add_batch(cid, 0, coll.puzzles, coll.weights, coll.metrics)
        return cid

    def list(self) -> list[dict]:
        rows = self._db().execute(
            "SELECT c.id, c.name, c.generator, c.seed, c.source, c.created,"
            " (SELECT count(*) FROM puzzles p WHERE p.collection_id = c.id) FROM collections c"
            " ORDER BY c.id DESC").fetchall()
        return [dict(id=r[0], name=r[1], generator=r[2], seed=r[3], source=r[4], created=r[5], count=r[6])
                for r in rows]

    def delete(self, collection_id: int) -> None:
        self._write("DELETE FROM puzzles WHERE collection_id=?", [(collection_id,)])
        self._write("DELETE FROM collections WHERE id=?", [(collection_id,)])

    def load(self, collection_id: int) -> Collection:
        head = self._db().execute("SELECT name, generator, seed, source FROM collections WHERE id=?",
                                (collection_id,)).fetchone()
        if head is None:
            raise CollectionError(f"no collection {collection_id} in {self.path}")
        rows = self._db().execute(
            "SELECT puzzle, weight, metrics FROM puzzles WHERE collection_id=? ORDER BY batch_index, position",
            (collection_id,)).fetchall()
        puzzles = np.zeros((len(rows), 81), dtype=np.uint8)
        weights = np.ones(len(rows))
        metric_rows = []
        for i, (text, w, m) in enumerate(rows):
            try:
                puzzles[i] = parse_puzzle(text, source=f"collection {collection_id}", line=i + 1)
                metric_rows.append(json.loads(m))
            except (PuzzleFormatError, ValueError) as e:
                raise CollectionError(f"collection {collection_id}, puzzle {i + 1} is damaged: {e}") from e
            weights[i] = w
        return Collection(head[0], head[1], puzzles, weights, _metric_columns(metric_rows), head[2], head[3])

    # ------------------------------------------------------------ columns
    # The browser sorts and filters a million puzzles by clues and metrics; reading them
    # row by row (metrics are JSON) takes ~1.7 s per million, so each collection keeps its
    # numeric columns as arrays (plain bytes with a dtype, checked on load), rebuilt when
    # the collection has grown since.

    def count(self, collection_id: int) -> int:
        return int(self._db().execute("SELECT count(*) FROM puzzles WHERE collection_id=?",
                                      (collection_id,)).fetchone()[0])

    def save_column(self, collection_id: int, name: str, values: np.ndarray) -> None:
        a = np.ascontiguousarray(values)
        if a.dtype.name not in COLUMN_DTYPES:
            raise ValueError(f"column {name!r}: dtype {a.dtype} is not one of {COLUMN_DTYPES}")
        self._write("INSERT OR REPLACE INTO columns VALUES (?,?,?,?,?)",
                    [(collection_id, name, int(a.shape[0]), a.dtype.name, a.tobytes())])

    def stored_columns(self, collection_id: int) -> dict[str, np.ndarray]:
        """The columns stored for a collection and still current (as many rows as it has)."""
        n = self.count(collection_id)
        out = {}
        for name, rows, dtype, data in self._db().execute(
                "SELECT name, rows, dtype, data FROM columns WHERE collection_id=?", (collection_id,)):
            a = _column_array(f"collection {collection_id}: stored column {name!r}", rows, dtype, data)
            if rows == n:
                out[name] = a
        return out

    def _columns_from_batches(self, collection_id: int, n: int) -> dict[str, np.ndarray] | None:
        """The columns joined from those ``add_batch`` stored, when they cover all ``n`` rows
        (None for collections stored before batches kept columns)."""
        db = self._db()
        parts: dict[int, dict[str, np.ndarray]] = {}
        for b, name, rows, dtype, data in db.execute(
                "SELECT batch_index, name, rows, dtype, data FROM batch_columns WHERE collection_id=?",
                (collection_id,)):
            parts.setdefault(b, {})[name] = _column_array(
                f"collection {collection_id}, batch {b}: stored column {name!r}", rows, dtype, data)
        sizes = {b: p["clues"].shape[0] for b, p in parts.items() if "clues" in p}
        if len(sizes) != len(parts) or sum(sizes.values()) != n:
            return None
        order = sorted(parts)
        rowid = np.array([r for (r,) in db.execute(
            "SELECT rowid FROM puzzles WHERE collection_id=? ORDER BY batch_index, position", (collection_id,))],
            dtype=np.int64)
        names = sorted({k for p in parts.values() for k in p})
        cols = {"rowid": rowid}
        for name in names:
            fill = 0 if name == "clues" else np.nan
            cols[name] = np.concatenate([parts[b][name] if name in parts[b]
                                         else np.full(sizes[b], fill) for b in order])
        cols["clues"] = cols["clues"].astype(np.int8)
        return cols

    def build_columns(self, collection_id: int) -> dict[str, np.ndarray]:
        """Read rowid, clues, weight and every metric of a collection into arrays and store
        them (metric columns as ``m:NAME``, NaN where a puzzle has none)."""
        db = self._db()
        keys = [r[0] for r in db.execute(
            "SELECT DISTINCT j.key FROM (SELECT metrics FROM puzzles WHERE collection_id=? LIMIT 4096) p,"
            " json_each(p.metrics) j ORDER BY j.key", (collection_id,))]
        extract = "".join(", json_extract(metrics, ?)" for _ in keys)
        rows = db.execute(f"SELECT rowid, clues, weight{extract} FROM puzzles WHERE collection_id=?"
                          " ORDER BY batch_index, position", [f"$.{k}" for k in keys] + [collection_id]).fetchall()
        table = np.array(rows, dtype=np.float64).reshape(len(rows), 3 + len(keys))
        cols = {"rowid": table[:, 0].astype(np.int64), "clues": table[:, 1].astype(np.int8),
                "weight": table[:, 2].copy()}
        for k, key in enumerate(keys):
            cols[f"m:{key}"] = table[:, 3 + k].copy()       # None -> NaN
        for name, values in cols.items():
            self.save_column(collection_id, name, values)
        return cols

    def columns(self, collection_id: int) -> dict[str, np.ndarray]:
        """The collection's columns: the stored ones while current, else joined from the
        batches' columns (``add_batch``), else read from the rows (``build_columns``)."""
        cols = self.stored_columns(collection_id)
        if "rowid" in cols and "clues" in cols:
            return cols
        canon = cols.get("canon")
        cols = self._columns_from_batches(collection_id, self.count(collection_id))
        if cols is None:
            cols = self.build_columns(collection_id)
        else:
            for name, values in cols.items():
                self.save_column(collection_id, name, values)
        if canon is not None:
            cols["canon"] = canon
        return cols

    def puzzle_texts(self, rowids) -> dict[int, str]:
        """rowid -> 81-character puzzle, for the rows asked (in chunks the driver accepts)."""
        ids = [int(r) for r in rowids]
        out = {}
        db = self._db()
        for k in range(0, len(ids), 900):
            chunk = ids[k:k + 900]
            out.update(db.execute(f"SELECT rowid, puzzle FROM puzzles WHERE rowid IN ({','.join('?' * len(chunk))})",
                                  chunk).fetchall())
        return out

    def puzzle_array(self, collection_id: int) -> np.ndarray:
        """All puzzles of a collection as uint8[N, 81], in the order of its columns."""
        rows = self._db().execute("SELECT puzzle FROM puzzles WHERE collection_id=? ORDER BY batch_index, position",
                                  (collection_id,)).fetchall()
        return puzzle_bytes([r[0] for r in rows], f"collection {collection_id}")


def _column_array(what: str, rows, dtype, data) -> np.ndarray:
    """A stored column as an array, after checking it (never unpickled or guessed)."""
    if dtype not in COLUMN_DTYPES or not isinstance(data, bytes) or not isinstance(rows, int) \
            or len(data) != rows * np.dtype(dtype).itemsize:
        raise CollectionError(f"{what} is damaged ({rows} rows of {dtype!r}, "
                              f"{len(data) if isinstance(data, bytes) else 0} bytes); "
                              f"delete the collection's columns to rebuild them")
    return np.frombuffer(data, dtype=dtype)


def puzzle_bytes(texts: list[str], where: str) -> np.ndarray:
    """Stored 81-character puzzles ('.' or '0' empty) as uint8[N, 81], at numpy speed."""
    cells, ok = parse_rows(texts, check_units=False)
    if not ok.all():
        bad = int(np.flatnonzero(~ok)[0])
        raise CollectionError(f"{where}, puzzle {bad + 1} is damaged: {texts[bad][:90]!r}")
    return cells


def _metrics_json(names: list[str], values: list[list], n: int) -> list[str]:
    """Each row's metrics as a JSON object ({name: value}, null for None): one template
    filled per row, not json.dumps per row, the same text (20,000 rows, two metrics: 42 -> 15 ms
    of the run thread holding the GIL while the window draws)."""
    if not names:
        return ["{}"] * n
    template = "{" + ", ".join(f"{json.dumps(k)}: %s" for k in names) + "}"
    # a number's repr is its JSON text (non-finite ones are None already); anything else,
    # e.g. a boolean column, goes through json
    texts = [["null" if x is None else repr(x) for x in column]
             if all(type(x) in (int, float) or x is None for x in column) else [json.dumps(x) for x in column]
             for column in values]
    return [template % row for row in zip(*texts)]


def _plain_values(column) -> list:
    """Every value of a metric column as a plain Python number (None for a missing or
    non-finite one), converted by numpy at once."""
    values = np.asarray(column).tolist()
    return [None if isinstance(x, float) and not math.isfinite(x) else x for x in values]


def _metric_columns(rows: list[dict]) -> dict:
    names = []
    for r in rows:
        for k in r:
            if k not in names:
                names.append(k)
    return {k: np.array([np.nan if r.get(k) is None else float(r[k]) for r in rows]) for k in names}



def add_missing_metrics(coll: Collection, names, progress=None, step: int = 2000) -> None:
    """Compute the difficulty metrics ``names`` (``sudoku.difficulty``) that ``coll`` lacks,
    ``step`` puzzles at a time; ``progress(done, total)`` after each chunk."""
    from sudokustudio.sudoku.difficulty import puzzle_difficulty

    missing = [m for m in names if m not in coll.metrics]
    if not missing:
        return
    n = len(coll)
    parts: dict[str, list] = {m: [] for m in missing}
    for a in range(0, n, step):
        chunk = puzzle_difficulty(coll.puzzles[a:a + step], missing)
        for m in missing:
            parts[m].append(chunk[m])
        if progress is not None:
            progress(min(n, a + step), n)
    for m in missing:
        coll.metrics[m] = np.concatenate(parts[m]) if parts[m] else np.zeros(0)

# ---------------------------------------------------------------- files
def check_export_path(path: str | os.PathLike) -> None:
    suffix = Path(path).suffix.lower()
    if suffix not in EXPORT_SUFFIXES:
        raise CollectionError(f"{path}: cannot export to {suffix or 'a file without suffix'!r}; "
                              f"use {', '.join(EXPORT_SUFFIXES)}")


def export_puzzles(path, result, generator: str = "", seed="", name: str = "",
                   one_per_class: bool = False) -> int:
    """Write a collection or a generator result to .txt/.sdm (one puzzle per
    line) or .csv (puzzle, clues, generator, seed, weight and metric columns).
    ``one_per_class``: only the first puzzle of each isomorphism class
    (``sudoku.canon``).  Returns the number of puzzles written."""
    check_export_path(path)
    p = Path(path)
    puzzles = np.asarray(result.puzzles, dtype=np.uint8).reshape(-1, 81)
    weights = np.asarray(result.weights, dtype=np.float64) if len(result.weights) == len(puzzles) \
        else np.ones(len(puzzles))
    metrics = dict(result.metrics)
    if one_per_class and len(puzzles):
        from sudokustudio.sudoku.canon import dedup

        keep = dedup(puzzles, threads=2)
        puzzles, weights = puzzles[keep], weights[keep]
        metrics = {k: np.asarray(v)[keep] for k, v in metrics.items()}
    gen = getattr(result, "generator", "") or generator
    seed = getattr(result, "seed", "") or seed
    if p.suffix.lower() == ".csv":
        with p.open("w", encoding="utf-8", newline="") as f:
            w = csv.writer(f)
            w.writerow(["puzzle", "clues", "generator", "seed", "weight", *metrics])
            texts, clues = format_puzzles(puzzles), np.count_nonzero(puzzles, axis=1).tolist()
            for i in range(len(puzzles)):
                w.writerow([texts[i], clues[i], gen, seed,
                            repr(float(weights[i])), *[_fmt_metric(metrics[k][i]) for k in metrics]])
                if i % 1024 == 1023:
                    time.sleep(0)   # hands the GIL to the window's thread (which otherwise waited up to 90 ms)
    else:
        with p.open("w", encoding="utf-8", newline="\n") as f:
            f.writelines(text + "\n" for text in format_puzzles(puzzles))
    return len(puzzles)


def _fmt_metric(v) -> str:
    v = float(v)
    if not math.isfinite(v):
        return ""
    return str(int(v)) if v == int(v) else repr(v)


def import_collection(path, *, generator: str | None = None, weight_field: bool = False) -> Collection:
    """Read a .txt/.sdm/.csv collection.  Raises CollectionError naming the
    file and line on anything unreadable (bad puzzles are not skipped: a
    collection for statistics must be read completely or not at all)."""
    p = Path(path)
    if not p.exists():
        raise CollectionError(f"{p}: no such file")
    name = p.stem
    gen = generator or ("imported")
    if p.suffix.lower() == ".csv":
        return _import_csv(p, gen)
    try:
        coll = read_collection(p, pencil_marks=False)   # statistics need givens: pencil marks are refused
    except PuzzleFormatError as e:
        raise CollectionError(str(e)) from e
    if coll.issues:
        first = coll.issues[0]
        raise CollectionError(f"{p}, line {first.line}: {first.message} "
                              f"({len(coll.issues)} unreadable line{'s' if len(coll.issues) > 1 else ''})")
    if len(coll) == 0:
        raise CollectionError(f"{p}: no puzzle in the file")
    weights = np.ones(len(coll))
    if weight_field:
        for i, extra in enumerate(coll.extras):
            try:
                weights[i] = float(extra.split()[0])
            except (ValueError, IndexError):
                raise CollectionError(f"{p}, line {coll.lines[i]}: second field {extra!r} is not a weight") from None
    return Collection(name, gen, coll.puzzles, weights, {}, "", str(p))


def _import_csv(p: Path, gen: str) -> Collection:
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise CollectionError(f"{p}: cannot read ({e})") from e
    reader = csv.reader(io.StringIO(text))
    try:
        header = [h.strip() for h in next(reader)]
    except StopIteration:
        raise CollectionError(f"{p}: empty file, expected a header line with a 'puzzle' column") from None
    if "puzzle" not in header:
        raise CollectionError(f"{p}, line 1: no 'puzzle' column in the header {header}")
    ip = header.index("puzzle")
    iw = header.index("weight") if "weight" in header else None
    ig = header.index("generator") if "generator" in header else None
    iseed = header.index("seed") if "seed" in header else None
    metric_cols = [i for i, h in enumerate(header) if h not in ("puzzle", "clues", "generator", "seed", "weight")]
    puzzles, weights, mets = [], [], {header[i]: [] for i in metric_cols}
    gens, seed = set(), ""
    for lineno, row in enumerate(reader, start=2):
        if not row or not any(x.strip() for x in row):
            continue
        if len(row) != len(header):
            raise CollectionError(f"{p}, line {lineno}: {len(row)} fields, the header has {len(header)}")
        try:
            puzzles.append(parse_puzzle(row[ip], source=str(p), line=lineno))
        except PuzzleFormatError as e:
            raise CollectionError(str(e)) from e
        if iw is not None:
            try:
                w = float(row[iw])
            except ValueError:
                raise CollectionError(f"{p}, line {lineno}: weight {row[iw]!r} is not a number") from None
            if not (w >= 0 and math.isfinite(w)):
                raise CollectionError(f"{p}, line {lineno}: weight {row[iw]!r} must be finite and >= 0")
            weights.append(w)
        else:
            weights.append(1.0)
        for i in metric_cols:
            v = row[i].strip()
            try:
                mets[header[i]].append(float(v) if v else np.nan)
            except ValueError:
                raise CollectionError(f"{p}, line {lineno}: {header[i]} value {v!r} is not a number") from None
        if ig is not None:
            gens.add(row[ig])
        if iseed is not None and not seed:
            seed = row[iseed]
    if not puzzles:
        raise CollectionError(f"{p}: no puzzle in the file")
    if len(gens) == 1 and gen == "imported":
        gen = gens.pop() or gen
    return Collection(p.stem, gen, np.array(puzzles, dtype=np.uint8), np.array(weights),
                      {k: np.array(v) for k, v in mets.items()}, seed, str(p))
