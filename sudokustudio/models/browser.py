"""The collection browser's data (no Qt): stored collections as one sortable,
filterable table, isomorphism classes, pasted puzzles and the W path of the
selected puzzle, frame by frame.

A million puzzles stay fast because nothing here holds them as Python
objects: ``BrowserTable`` is a handful of numpy columns per collection (the
store keeps them, see ``CollectionStore.columns``), a selection is an index
array (``select``), and the puzzle texts a view shows are read from the store
a page at a time (``PuzzleTexts``).  Opening, selecting, classifying and
exporting run on worker threads; the view only swaps the arrays they return.

Isomorphism classes: the minlex form of every puzzle (``sudoku.canon``) is
hashed to 64 bits (BLAKE2b) and stored as the collection's ``canon`` column;
puzzles with equal hashes are one class (for a million classes the chance of
any collision is below 1e-7).  The first puzzle of a class in table order is
its representative; the others are flagged as duplicates.
"""
from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from sudokustudio.jobs.collections import (Collection, CollectionError, CollectionStore, add_missing_metrics,
                                           export_puzzles)

#: the metric columns the browser shows, in this order, when a collection has them
METRIC_ORDER = ("W", "guesses", "brt")
#: puzzles read from the store per page when a view asks for texts
PAGE = 256
#: collections up to this size get their W-rating when pasted or imported here
RATE_AT_IMPORT = 2000
#: classes are computed this many puzzles at a time (progress, cancel, and a store write per chunk)
CANON_CHUNK = 20_000


@dataclass
class BrowserFilter:
    """Which rows a selection keeps: inclusive ranges (None = open end)."""

    clues: tuple[int | None, int | None] = (None, None)
    ranges: dict[str, tuple[float | None, float | None]] = field(default_factory=dict)
    collections: frozenset[int] | None = None
    duplicates: str = "all"          # "all", "hide" (one per class) or "only"

    def __post_init__(self):
        if self.duplicates not in ("all", "hide", "only"):
            raise ValueError(f"duplicates must be 'all', 'hide' or 'only', not {self.duplicates!r}")


@dataclass
class BrowserTable:
    """The rows of the open collections, as columns (one entry per puzzle)."""

    rowid: np.ndarray                    # int64: the puzzle's row in the store
    collection: np.ndarray               # int32: its collection id
    clues: np.ndarray                    # int8
    metrics: dict[str, np.ndarray]       # name -> float64 (NaN: not rated)
    canon: np.ndarray                    # int64 hash of the minlex form, 0 = not computed
    names: dict[int, str] = field(default_factory=dict)    # collection id -> "name (generator)"
    class_no: np.ndarray | None = None   # 1-based class in order of first appearance, 0 unknown
    duplicate: np.ndarray | None = None  # bool: not the first of its class

    def __post_init__(self):
        self.update_classes()

    def __len__(self) -> int:
        return int(self.rowid.shape[0])

    def column(self, name: str) -> np.ndarray:
        """A sortable column: clues, class or a metric."""
        if name == "clues":
            return self.clues
        if name == "class":
            return self.class_no
        return self.metrics[name]

    def update_classes(self) -> None:
        n = len(self)
        self.class_no = np.zeros(n, dtype=np.int64)
        self.duplicate = np.zeros(n, dtype=np.bool_)
        known = np.flatnonzero(self.canon != 0)
        if known.size == 0:
            return
        _, first, inverse = np.unique(self.canon[known], return_index=True, return_inverse=True)
        rank = np.empty(first.size, dtype=np.int64)
        rank[np.argsort(first, kind="stable")] = np.arange(1, first.size + 1)
        self.class_no[known] = rank[inverse.reshape(-1)]
        self.duplicate[known] = True
        self.duplicate[known[first]] = False

    @property
    def classes_known(self) -> int:
        return int(np.count_nonzero(self.canon))

    def class_count(self) -> int:
        return int(self.class_no.max()) if len(self) else 0

    def select(self, flt: BrowserFilter | None = None, sort: str | None = None,
               descending: bool = False) -> np.ndarray:
        """Indices of the rows ``flt`` keeps, sorted by column ``sort`` (stable: ties keep
        table order; NaN last either way)."""
        flt = flt or BrowserFilter()
        keep = np.ones(len(self), dtype=np.bool_)
        lo, hi = flt.clues
        if lo is not None:
            keep &= self.clues >= lo
        if hi is not None:
            keep &= self.clues <= hi
        for name, (lo, hi) in flt.ranges.items():
            if name not in self.metrics:
                if lo is None and hi is None:
                    continue
                raise ValueError(f"no metric {name!r} in the open collections (they have {list(self.metrics)})")
            col = self.metrics[name]
            if lo is not None:
                keep &= col >= lo       # NaN fails both comparisons: unrated rows leave a bounded filter
            if hi is not None:
                keep &= col <= hi
        if flt.collections is not None:
            keep &= np.isin(self.collection, np.fromiter(flt.collections, dtype=np.int64))
        if flt.duplicates == "hide":
            keep &= ~self.duplicate
        elif flt.duplicates == "only":
            keep &= self.duplicate
        rows = np.flatnonzero(keep)
        if sort is None:
            return rows[::-1].copy() if descending else rows
        key = self.column(sort)[rows].astype(np.float64)
        if descending:
            key = -key
        key[np.isnan(key)] = np.inf
        return rows[np.argsort(key, kind="stable")]


def canon_hashes(puzzles: np.ndarray, threads: int = 1) -> np.ndarray:
    """64-bit hashes of the minlex forms of ``puzzles`` (never 0, which means unknown)."""
    from sudokustudio.sudoku.canon import minlex_many

    forms, _ = minlex_many(puzzles, threads=threads)
    out = np.empty(forms.shape[0], dtype=np.int64)
    for i in range(forms.shape[0]):
        h = int.from_bytes(hashlib.blake2b(forms[i].tobytes(), digest_size=8).digest(), "little", signed=True)
        out[i] = h or 1
    return out


class PuzzleTexts:
    """81-character texts of table rows, read from the store a page at a time
    (cached; a view asks for the ~40 rows it paints)."""

    def __init__(self, store: CollectionStore, max_pages: int = 64):
        self.store = store
        self.max_pages = max_pages
        self._pages: dict[int, dict[int, str]] = {}
        self._order: np.ndarray | None = None

    def text(self, table: BrowserTable, order: np.ndarray, row: int) -> str:
        """The puzzle shown at ``row`` of a selection ``order``."""
        if order is not self._order:      # another selection: its pages hold other rows
            self._pages.clear()
            self._order = order
        key = page = row // PAGE
        cached = self._pages.get(key)
        if cached is None:
            rowids = table.rowid[order[page * PAGE:(page + 1) * PAGE]]
            cached = self.store.puzzle_texts(rowids)
            if len(self._pages) >= self.max_pages:
                self._pages.pop(next(iter(self._pages)))
            self._pages[key] = cached
        return cached.get(int(table.rowid[order[row]]), "")

    def clear(self) -> None:
        self._pages.clear()
        self._order = None


class BrowserModel:
    """Stored collections opened as one ``BrowserTable`` (methods run on any thread)."""

    def __init__(self, store: CollectionStore):
        self.store = store
        self.texts = PuzzleTexts(store)

    def collections(self) -> list[dict]:
        return self.store.list()

    def open(self, ids: list[int], progress: Callable[[int, int], None] | None = None) -> BrowserTable:
        """The table of collections ``ids`` (in the order given)."""
        heads = {c["id"]: c for c in self.store.list()}
        parts = []
        for k, cid in enumerate(ids):
            if cid not in heads:
                raise CollectionError(f"no collection {cid} in {self.store.path}")
            parts.append(self.store.columns(cid))
            if progress:
                progress(k + 1, len(ids))
        metric_names = [m for m in METRIC_ORDER if any(f"m:{m}" in p for p in parts)]
        metric_names += sorted({k[2:] for p in parts for k in p if k.startswith("m:")} - set(metric_names))
        sizes = [p["rowid"].shape[0] for p in parts]

        def joined(name, dtype, fill):
            if not parts:
                return np.zeros(0, dtype=dtype)
            return np.concatenate([p[name].astype(dtype) if name in p else np.full(n, fill, dtype=dtype)
                                   for p, n in zip(parts, sizes)])

        return BrowserTable(
            rowid=joined("rowid", np.int64, 0),
            collection=np.repeat(np.asarray(ids, dtype=np.int32), sizes),
            clues=joined("clues", np.int8, 0),
            metrics={m: joined(f"m:{m}", np.float64, np.nan) for m in metric_names},
            canon=joined("canon", np.int64, 0),
            names={cid: f"{heads[cid]['name']} ({heads[cid]['generator']})" for cid in ids})

    def compute_classes(self, table: BrowserTable, threads: int = 2,
                        progress: Callable[[int, int], None] | None = None,
                        cancelled: Callable[[], bool] = lambda: False) -> int:
        """Minlex hashes of every puzzle of ``table`` not classified yet, stored per
        collection and set in ``table`` (whose classes are then updated).  Returns the
        number of puzzles classified now; stops early (keeping what is done) when
        ``cancelled()``."""
        done = 0
        todo = int(np.count_nonzero(table.canon == 0))
        for cid in np.unique(table.collection):
            rows = np.flatnonzero(table.collection == cid)
            if not np.any(table.canon[rows] == 0):
                continue
            puzzles = self.store.puzzle_array(int(cid))
            if puzzles.shape[0] != rows.size:
                raise CollectionError(f"collection {int(cid)} changed while open ({rows.size} puzzles shown, "
                                      f"{puzzles.shape[0]} stored); open it again")
            hashes = table.canon[rows].copy()
            for start in range(0, rows.size, CANON_CHUNK):
                if cancelled():
                    break
                part = slice(start, min(rows.size, start + CANON_CHUNK))
                missing = np.flatnonzero(hashes[part] == 0) + start
                if missing.size:
                    hashes[missing] = canon_hashes(puzzles[missing], threads=threads)
                    done += missing.size
                if progress:
                    progress(done, todo)
            if np.all(hashes != 0):
                self.store.save_column(int(cid), "canon", hashes)
            table.canon[rows] = hashes
            if cancelled():
                break
        table.update_classes()
        return done

    def add_puzzles(self, text: str, name: str = "pasted") -> tuple[int, int, list[str]]:
        """Store the puzzles of a pasted text (one per line) as a new collection, with their
        difficulty; returns (collection id, puzzles, problems with unreadable lines)."""
        from sudokustudio.sudoku.grid import parse_collection

        coll = parse_collection(text, source="clipboard", check_units=True)
        problems = [str(i) for i in coll.issues]
        if len(coll) == 0:
            raise CollectionError("the clipboard holds no puzzle (81 characters, digits and '.' or '0')"
                                  + (f": {problems[0]}" if problems else ""))
        c = Collection(name, "pasted", coll.puzzles, np.ones(len(coll)), {}, source="clipboard")
        return self.add_collection(c), len(coll), problems

    def import_file(self, path) -> int:
        """Import a .txt/.sdm/.csv collection into the store (see ``add_collection``)."""
        from sudokustudio.jobs.collections import import_collection

        return self.add_collection(import_collection(path))

    def add_collection(self, coll: Collection) -> int:
        """Store a collection with the fast difficulty metrics it lacks, and the W-rating
        too when it is small enough to rate at once (~10 ms a puzzle)."""
        from sudokustudio.sudoku.difficulty import FAST_METRICS

        add_missing_metrics(coll, FAST_METRICS + ("W",) if len(coll) <= RATE_AT_IMPORT else FAST_METRICS)
        return self.store.add_collection(coll)

    @staticmethod
    def path_frames(puzzle) -> tuple:
        """The W-rating path of a puzzle and the candidate state before each of its steps
        (~10 ms for most puzzles, seconds for the hardest: call it off the UI thread)."""
        # imported here: the window builds this model while kernels load on another thread,
        # and numba's registries must not be changed by an import meanwhile
        from sudokustudio.sudoku.rating.kernels import W_INVALID
        from sudokustudio.sudoku.rating.paths import replay_path, w_rating_path

        path = w_rating_path(puzzle)
        if path.rating == W_INVALID:
            raise ValueError("the puzzle has no solution or several: the W-rating is defined for "
                             "puzzles with one solution")
        return path, replay_path(puzzle, path)

    def puzzles(self, table: BrowserTable, rows: np.ndarray) -> np.ndarray:
        """uint8[len(rows), 81] of the given table rows."""
        from sudokustudio.jobs.collections import puzzle_bytes

        texts = self.store.puzzle_texts(table.rowid[rows])
        return puzzle_bytes([texts[int(r)] for r in table.rowid[rows]], "the open collections")

    def export(self, table: BrowserTable, rows: np.ndarray, path, one_per_class: bool = False) -> int:
        """Write the selected rows (in their order) to .txt/.sdm/.csv with their metrics."""
        from sudokustudio.jobs.collections import check_export_path

        check_export_path(path)
        generators = {table.names.get(int(c), "") for c in np.unique(table.collection[rows])}
        result = Collection("selection", generators.pop() if len(generators) == 1 else "mixed",
                            self.puzzles(table, rows), np.ones(len(rows)),
                            {m: v[rows] for m, v in table.metrics.items()})
        return export_puzzles(path, result, one_per_class=one_per_class)


def format_metric(value: float) -> str:
    """A metric cell: integers without a decimal point, '' when not rated."""
    if not math.isfinite(value):
        return ""
    return str(int(value)) if value == int(value) else f"{value:.3g}"
