"""The Atlas view's puzzle list: a table model read straight from an AtlasResult's arrays,
sorted by numpy (at once, or off the UI thread for a big atlas)."""
from __future__ import annotations

import time

import numpy as np
from PySide6.QtCore import QModelIndex, Qt, QTimer

from sudokustudio.models.survo_atlas import puzzle_order, sorts_slowly
from sudokustudio.survo import atlas as A
from sudokustudio.ui.widgets.table_model import ALIGN, DISPLAY, RIGHT, TIP, HeadedTableModel


class AtlasModel(HeadedTableModel):
    """The puzzles of an AtlasResult, read straight from its arrays.

    Sorting is done here with numpy (a permutation of the records), not by a
    QSortFilterProxyModel: a proxy asks data() from Python for every
    comparison, ~100,000 calls for the 4×4 atlas on every live refresh, which
    held the GIL long enough to slow the run itself sevenfold.  A big atlas
    (2×10: 843k puzzles) is sorted off the UI thread (``sorter``): a few
    tenths of a second by its column sums.
    """

    HEADERS = ["#", "row sums", "column sums", "W", "min swaps", "chi-square"]

    #: a growing total (a live run) is sorted again off the UI thread at most this often (seconds)
    RESORT_EVERY = 2.0

    def __init__(self, parent=None):
        super().__init__(parent)
        self.result: A.AtlasResult | None = None
        self.order = np.zeros(0, dtype=np.int64)   # view row -> record index
        self.sort_column = 0
        self.sort_order = Qt.AscendingOrder
        # sorter(fn, on_done, on_error): runs fn() off the UI thread (the view's BackgroundCalls); None: here
        self.sorter = None
        self._sorting = False        # a sort is off the UI thread
        self._sort_wanted = False    # and another is wanted (newer rows or another column)
        self._last_key = None        # (column, descending) of the last sort that landed
        self._next_at = 0.0          # monotonic time before which the same key waits
        self._resort_timer = QTimer(self, singleShot=True, timeout=self._maybe_resort)

    def set_result(self, result: A.AtlasResult | None) -> None:
        if result is self.result and result is not None:
            return   # the same (immutable) total: its order stands
        self.beginResetModel()
        self.result = result
        self.order = self._order_now()
        self.endResetModel()

    def sort(self, column: int, order=Qt.AscendingOrder) -> None:
        self.layoutAboutToBeChanged.emit()
        self.sort_column, self.sort_order = column, order
        self.order = self._order_now()
        self.layoutChanged.emit()

    def _key(self) -> tuple[int, bool]:
        return self.sort_column, self.sort_order == Qt.DescendingOrder

    def _order_now(self) -> np.ndarray:
        """The order to show at once: sorted here when quick; else the rows as they were shown
        (new ones after them) until the sort off the UI thread lands (``_sorted``)."""
        res = self.result
        if res is None or res.count == 0:
            return np.zeros(0, dtype=np.int64)
        if self.sorter is None or not sorts_slowly(res.count, self.sort_column):
            self._sort_wanted = False
            self._resort_timer.stop()
            return puzzle_order(res, *self._key())
        self._sort_wanted = True
        self._maybe_resort()
        old = self.order if len(self.order) <= res.count else np.zeros(0, dtype=np.int64)
        return np.concatenate([old, np.arange(len(old), res.count, dtype=np.int64)])

    def _maybe_resort(self) -> None:
        """Sort off the UI thread if wanted and none is out; a newer total by the same key waits
        until ``RESORT_EVERY`` seconds after the last (a live run's total grows every batch)."""
        if not self._sort_wanted or self._sorting or self.result is None:
            return
        wait = self._next_at - time.monotonic()
        if self._key() == self._last_key and wait > 0:
            self._resort_timer.start(int(1000 * wait) + 1)
            return
        self._resort_timer.stop()
        res, (col, descending) = self.result, self._key()
        self._sorting, self._sort_wanted = True, False
        self.sorter(lambda: puzzle_order(res, col, descending),
                    lambda order: self._sorted(res, col, descending, order), self._sort_failed)

    def _sort_failed(self, exc: BaseException) -> None:   # logged by the sorter; the list stays as shown
        self._sorting = self._sort_wanted = False

    def _sorted(self, res, col: int, descending: bool, order: np.ndarray) -> None:
        self._sorting = False
        self._last_key, self._next_at = (col, descending), time.monotonic() + self.RESORT_EVERY
        if res is self.result and (col, descending) == self._key():
            self.layoutAboutToBeChanged.emit()
            self.order = order
            self.layoutChanged.emit()
        elif self.result is not None and sorts_slowly(self.result.count, self.sort_column):
            self._sort_wanted = True
        self._maybe_resort()

    def record_index(self, row: int) -> int:
        """The record (atlas line) shown in view row ``row``."""
        return int(self.order[row])

    def rowCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() or self.result is None else self.result.count

    def data(self, index, role=Qt.DisplayRole):
        role = int(role)   # Qt asks every role of every cell it paints or measures: int compares
        if self.result is None or role not in (DISPLAY, ALIGN, TIP) or not index.isValid():
            return None
        col = index.column()
        if role == ALIGN:
            return RIGHT if col in (0, 3, 4, 5) else None
        if role == TIP:
            return "Double-click (or Enter) to play this puzzle on the board"
        k, res = int(self.order[index.row()]), self.result
        if col == 0:
            return k + 1
        if col == 1:
            return " ".join(map(str, res.row_sums()[k]))
        if col == 2:
            return " ".join(map(str, res.col_sums()[k]))
        if col == 3:
            return int(res.w()[k])
        if col == 4:
            return int(res.swaps()[k])
        return f"{res.chi2[k]:.3f}"
