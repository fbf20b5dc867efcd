"""Row arrays with room to grow, so that folding a run's batches into its total one
by one costs time linear in the rows, not quadratic (a copy of the whole total per
batch: 290 MB copied ~700 times in a 200 s weighted-sampler run).

A merged result's columns are views of the first rows of a :class:`GrowingColumns`.
Rows past the fill are written only by a merge of the result whose columns end at
the fill, so no result ever sees its rows change; merging an older result (or one
whose arrays were replaced) copies into a new store, unless the very result being merged
was appended right after it already (a live total folded it in first: its rows are
reused).
"""
from __future__ import annotations

import threading
import weakref

import numpy as np

#: a new store has room for this many times the rows it starts with (amortised appends)
GROWTH = 1.5


class GrowingColumns:
    """Named arrays with the same number of rows and spare room after them."""

    def __init__(self, like: dict[str, np.ndarray], capacity: int):
        self.columns = {k: np.empty((capacity,) + v.shape[1:], dtype=v.dtype) for k, v in like.items()}
        self.fill = 0
        self.lock = threading.Lock()
        self.appended: dict[int, weakref.ref] = {}   # start row -> the result appended there

    @property
    def capacity(self) -> int:
        return next(iter(self.columns.values())).shape[0]

    def starts_with(self, cols: dict[str, np.ndarray]) -> bool:
        """Are ``cols`` this store's first rows (same names, the same memory, within the fill)?"""
        if cols.keys() != self.columns.keys():
            return False
        for k, v in cols.items():
            mine = self.columns[k]
            if (v.shape[0] > self.fill or v.shape[1:] != mine.shape[1:] or v.dtype != mine.dtype
                    or v.__array_interface__["data"][0] != mine.__array_interface__["data"][0]):
                return False
        return True

    def append(self, cols: dict[str, np.ndarray], source=None) -> None:
        """Write ``cols`` after the fill; ``source``: the result they come from (remembered)."""
        n = next(iter(cols.values())).shape[0]
        if source is not None:
            self.appended[self.fill] = weakref.ref(source)
        for k, v in cols.items():
            self.columns[k][self.fill:self.fill + n] = v
        self.fill += n

    def appended_at(self, row: int):
        """The result appended at ``row`` (None: none, or it is gone)."""
        ref = self.appended.get(row)
        return None if ref is None else ref()

    def views(self, rows: int | None = None) -> dict[str, np.ndarray]:
        """The first ``rows`` rows (default: the fill) of every column."""
        rows = self.fill if rows is None else rows
        return {k: v[:rows] for k, v in self.columns.items()}


def appended_columns(store: GrowingColumns | None, a: dict[str, np.ndarray], b: dict[str, np.ndarray],
                     b_source=None) -> tuple[dict[str, np.ndarray], GrowingColumns]:
    """``a``'s rows then ``b``'s, column by column (both with the same names), and the
    store the result's views live in.  ``store``: the one ``a`` came from, if any; ``b``
    is appended there in place when ``a`` ends at its fill and it has room (or reused
    when ``b_source``, the result ``b`` comes from, was appended right after ``a``
    already), else ``a`` and ``b`` are copied into a new store.  Neither ``a`` nor ``b``
    changes."""
    n_a = next(iter(a.values())).shape[0]
    need = n_a + next(iter(b.values())).shape[0]
    if store is not None:
        with store.lock:
            if (store.capacity >= need and store.starts_with(a) and b.keys() == a.keys()
                    and all(v.dtype == store.columns[k].dtype for k, v in b.items())):
                if store.fill == n_a:
                    store.append(b, b_source)
                    return store.views(), store
                if b_source is not None and store.appended_at(n_a) is b_source and store.fill >= need:
                    return store.views(need), store
    store = GrowingColumns({k: np.concatenate([a[k][:0], b[k][:0]]) for k in a}, max(need, int(GROWTH * need)))
    store.append(a)
    store.append(b, b_source)
    return store.views(), store
