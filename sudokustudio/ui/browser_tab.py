"""Collections tab: browse the stored and imported puzzle collections.

A view over ``models.browser.BrowserModel``: check collections at the top left
to open them as one list; filter by clues, a metric's range and isomorph
duplicates; sort by a column header; select a puzzle to see it on the grid
with its W path, stepped through with Ctrl+Left / Ctrl+Right.  Opening,
large selections, isomorph classes and the path are computed off the UI
thread; the list is a virtual model over the model's arrays, so a million
rows cost nothing until painted.

The file is just over 500 lines: three panels (collections, list, grid with
its path) that talk through the tab's selection state.
"""
from __future__ import annotations

import threading

import numpy as np
from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt, QTimer, Signal
from PySide6.QtGui import QFont, QGuiApplication, QKeySequence, QShortcut
from PySide6.QtWidgets import (QAbstractItemView, QComboBox, QDoubleSpinBox, QFileDialog, QHBoxLayout, QHeaderView,
                               QLabel, QListWidget, QListWidgetItem, QMessageBox, QProgressBar, QPushButton,
                               QSpinBox, QSplitter, QTableView, QVBoxLayout, QWidget)

from sudokustudio.jobs.collections import CollectionError, CollectionStore, puzzle_bytes
from sudokustudio.models.browser import BrowserFilter, BrowserModel, BrowserTable, format_metric
from sudokustudio.ui.background import BackgroundCalls, show_error
from sudokustudio.ui.kernels import when_kernels_ready
from sudokustudio.ui.widgets.sudoku_grid import SudokuGridView

#: above this many rows a selection (filter + sort) runs off the UI thread
ASYNC_ROWS = 100_000
#: kernels of the W path, and of a paste or an import (their puzzles are rated as they are stored)
RATE_KERNELS = ("solver", "rating")
#: the W-rating's codes for what is not a whip length (``rating.kernels``: cap 12 -> 13; -1)
W_CODES = {13.0: "> 12", -1.0: "invalid"}
#: "any" for a metric bound: the spin boxes' special value
ANY = -1.0


class BrowserTableModel(QAbstractTableModel):
    """Rows ``order`` of a ``BrowserTable``; texts come from the model's page cache."""

    sortRequested = Signal(str, bool)

    def __init__(self, model: BrowserModel, parent=None):
        super().__init__(parent)
        self.model = model
        self.table: BrowserTable | None = None
        self.order = np.zeros(0, dtype=np.int64)
        self.headers: list[str] = []

    def set_rows(self, table: BrowserTable | None, order: np.ndarray) -> None:
        self.beginResetModel()
        self.table, self.order = table, order
        self.headers = [] if table is None else ["collection", "clues", *table.metrics, "class", "isomorph", "puzzle"]
        self.endResetModel()

    def rowCount(self, parent=QModelIndex()) -> int:  # noqa: N802 (Qt name)
        return 0 if parent.isValid() else int(self.order.shape[0])

    def columnCount(self, parent=QModelIndex()) -> int:  # noqa: N802 (Qt name)
        return 0 if parent.isValid() else len(self.headers)

    def headerData(self, section, orientation, role=Qt.DisplayRole):  # noqa: N802 (Qt name)
        if role == Qt.DisplayRole and orientation == Qt.Horizontal:
            return self.headers[section]
        return None

    def data(self, index, role=Qt.DisplayRole):
        if not index.isValid() or self.table is None or role not in (Qt.DisplayRole, Qt.ToolTipRole):
            return None
        t, i = self.table, int(self.order[index.row()])
        name = self.headers[index.column()]
        if role == Qt.ToolTipRole:
            return t.names.get(int(t.collection[i]), "") if name == "collection" else None
        if name == "collection":
            return t.names.get(int(t.collection[i]), str(int(t.collection[i])))
        if name == "clues":
            return str(int(t.clues[i]))
        if name == "class":
            return str(int(t.class_no[i])) if t.class_no[i] else ""
        if name == "isomorph":
            return "duplicate" if t.duplicate[i] else ""
        if name == "puzzle":
            return self.model.texts.text(t, self.order, index.row())
        value = float(t.metrics[name][i])
        if name == "W" and value in W_CODES:
            return W_CODES[value]
        return format_metric(value)

    def sort(self, column: int, order=Qt.AscendingOrder) -> None:
        if 0 <= column < len(self.headers) and self.headers[column] not in ("collection", "puzzle", "isomorph"):
            self.sortRequested.emit(self.headers[column], order == Qt.DescendingOrder)


class BrowserTab(QWidget):
    title = "Collections"
    file_filters = "Puzzle collections (*.txt *.sdm *.csv);;All files (*)"

    def __init__(self, settings=None, parent=None, store: CollectionStore | None = None):
        super().__init__(parent)
        self.settings = settings
        self.problem = ""
        try:
            store = store or CollectionStore()
        except CollectionError as e:
            self.problem = str(e)
        self.model = BrowserModel(store) if store is not None else None
        self.calls = BackgroundCalls(self, "Collections")
        self.table: BrowserTable | None = None
        self.order = np.zeros(0, dtype=np.int64)
        self.sort_key: tuple[str | None, bool] = (None, False)
        self.frames: list = []
        self.frame_index = 0
        self._classes_progress = (0, 0)
        self._cancel = threading.Event()
        self._puzzle_shown = False
        self._build()
        self._update_actions()
        self.refilter = QTimer(self, singleShot=True, interval=150)   # debounce typing in the filters
        self.refilter.timeout.connect(self.apply_filter)
        self.reopen = QTimer(self, singleShot=True, interval=150)
        self.reopen.timeout.connect(self.open_checked)
        self.ticker = QTimer(self, interval=100)
        self.ticker.timeout.connect(self._tick)
        self.refresh()

    # ---------------------------------------------------------------- layout
    def _build(self) -> None:
        outer = QHBoxLayout(self)
        split = QSplitter(Qt.Horizontal)
        outer.addWidget(split)
        left = QSplitter(Qt.Vertical)      # collections above their list: the tab fits a small screen
        left.addWidget(self._build_collections())
        left.addWidget(self._build_list())
        left.setSizes([170, 530])
        split.addWidget(left)
        split.addWidget(self._build_grid())
        split.setSizes([760, 480])
        QShortcut(QKeySequence("Ctrl+Right"), self, activated=lambda: self.step(+1))
        QShortcut(QKeySequence("Ctrl+Left"), self, activated=lambda: self.step(-1))
        QShortcut(QKeySequence("Ctrl+Home"), self, activated=lambda: self.step(-len(self.frames)))
        QShortcut(QKeySequence.Copy, self, activated=self.copy_puzzle)
        QShortcut(QKeySequence.Paste, self, activated=self.paste_puzzles)
        QShortcut(QKeySequence("Esc"), self, activated=self.cancel)

    def _build_collections(self) -> QWidget:
        w = QWidget()
        v = QVBoxLayout(w)
        v.addWidget(QLabel("<b>Collections</b>"))
        self.coll_list = QListWidget()
        self.coll_list.setToolTip("Stored collections (generator runs, imports, pastes): check them to list "
                                  "their puzzles together")
        self.coll_list.itemChanged.connect(lambda *_: self.reopen.start())
        v.addWidget(self.coll_list, 1)
        row = QHBoxLayout()
        self.refresh_btn = QPushButton("Refresh")
        self.refresh_btn.setToolTip("Read the list of stored collections again")
        self.refresh_btn.clicked.connect(self.refresh)
        self.paste_btn = QPushButton("Paste")
        self.paste_btn.setToolTip("Store the puzzles on the clipboard (one per line) as a new collection (Ctrl+V)")
        self.paste_btn.clicked.connect(self.paste_puzzles)
        row.addWidget(self.refresh_btn)
        row.addWidget(self.paste_btn)
        v.addLayout(row)
        self.classes_btn = QPushButton("Find isomorphs")
        self.classes_btn.setToolTip("Canonical (minlex) form of every listed puzzle: fills the class column and "
                                    "flags isomorphic duplicates (stored; ~35 s per million puzzles on 2 cores)")
        self.classes_btn.clicked.connect(self.find_classes)
        v.addWidget(self.classes_btn)
        self.progress = QProgressBar()
        self.progress.setVisible(False)
        v.addWidget(self.progress)
        self.cancel_btn = QPushButton("Cancel")
        self.cancel_btn.setToolTip("Stop finding isomorphs (what is done is kept) (Esc)")
        self.cancel_btn.setVisible(False)
        self.cancel_btn.clicked.connect(self.cancel)
        v.addWidget(self.cancel_btn)
        return w

    def _build_list(self) -> QWidget:
        w = QWidget()
        v = QVBoxLayout(w)
        bar = QHBoxLayout()     # two rows, so the tab stays narrow enough for a small screen
        bar2 = QHBoxLayout()
        bar.addWidget(QLabel("Clues"))
        self.clues_lo, self.clues_hi = QSpinBox(), QSpinBox()
        for s, val in ((self.clues_lo, 0), (self.clues_hi, 81)):
            s.setRange(0, 81)
            s.setValue(val)
            s.valueChanged.connect(lambda *_: self.refilter.start())
            bar.addWidget(s)
        self.clues_lo.setToolTip("Fewest clues listed")
        self.clues_hi.setToolTip("Most clues listed")
        self.dup_combo = QComboBox()
        self.dup_combo.addItems(["all", "one per class", "duplicates"])
        self.dup_combo.setToolTip("Isomorphs (after Find isomorphs): list all, the first of each class, "
                                  "or only the duplicates")
        self.dup_combo.currentIndexChanged.connect(lambda *_: self.refilter.start())
        bar.addStretch(1)
        self.metric_combo = QComboBox()
        self.metric_combo.setSizeAdjustPolicy(QComboBox.AdjustToMinimumContentsLengthWithIcon)
        self.metric_combo.setMinimumContentsLength(7)
        self.metric_combo.setToolTip("Metric whose range filters the list")
        self.metric_combo.currentIndexChanged.connect(lambda *_: self.refilter.start())
        bar2.addWidget(QLabel("Metric"))
        bar2.addWidget(self.metric_combo)
        self.metric_lo, self.metric_hi = QDoubleSpinBox(), QDoubleSpinBox()
        for s in (self.metric_lo, self.metric_hi):
            s.setRange(ANY, 99999)
            s.setDecimals(0)
            s.setSpecialValueText("any")
            s.setValue(ANY)
            s.valueChanged.connect(lambda *_: self.refilter.start())
            bar2.addWidget(s)
        self.metric_lo.setToolTip("Lowest value of the metric listed ('any': no bound; unrated puzzles "
                                  "leave the list when a bound is set)")
        self.metric_hi.setToolTip("Highest value of the metric listed ('any': no bound)")
        bar2.addStretch(1)
        bar.addWidget(QLabel("Isomorphs"))
        bar.addWidget(self.dup_combo)
        v.addLayout(bar)
        v.addLayout(bar2)
        self.table_model = BrowserTableModel(self.model) if self.model else None
        self.view = QTableView()
        self.view.setSelectionBehavior(QAbstractItemView.SelectRows)
        self.view.setSelectionMode(QAbstractItemView.ExtendedSelection)
        self.view.setSortingEnabled(True)
        self.view.verticalHeader().setSectionResizeMode(QHeaderView.Fixed)
        self.view.verticalHeader().setDefaultSectionSize(22)
        # hidden: to size itself, the row-number header asks every row's label after each
        # reset (430,000 calls, 2.4 s, for 60,000 rows)
        self.view.verticalHeader().setVisible(False)
        self.view.horizontalHeader().setStretchLastSection(True)
        mono = QFont("Monospace")
        mono.setStyleHint(QFont.TypeWriter)
        self.view.setFont(mono)
        if self.table_model is not None:
            self.view.setModel(self.table_model)
            self.table_model.sortRequested.connect(self.sort_by)
            self.view.selectionModel().currentRowChanged.connect(lambda cur, _: self.select_row(cur.row()))
            self.view.selectionModel().selectionChanged.connect(self._update_actions)
        v.addWidget(self.view, 1)
        foot = QHBoxLayout()
        self.count_label = QLabel("")
        self.count_label.setWordWrap(True)
        foot.addWidget(self.count_label, 1)
        self.export_btn = QPushButton("Export…")
        self.export_btn.setToolTip("Write the listed puzzles (or the selected rows) to .txt/.sdm/.csv (Ctrl+E)")
        self.export_btn.clicked.connect(self.export_file)
        foot.addWidget(self.export_btn)
        v.addLayout(foot)
        return w

    def _build_grid(self) -> QWidget:
        w = QWidget()
        v = QVBoxLayout(w)
        self.grid = SudokuGridView()
        v.addWidget(self.grid, 1)
        self.rating_label = QLabel("Select a puzzle to see it and its W path.")
        self.rating_label.setWordWrap(True)
        v.addWidget(self.rating_label)
        row = QHBoxLayout()
        self.prev_btn = QPushButton("◀ Back")
        self.prev_btn.setToolTip("The step before (Ctrl+Left; Ctrl+Home: the start)")
        self.prev_btn.clicked.connect(lambda: self.step(-1))
        self.next_btn = QPushButton("Next ▶")
        self.next_btn.setToolTip("The next elimination of the W path (Ctrl+Right)")
        self.next_btn.clicked.connect(lambda: self.step(+1))
        row.addWidget(self.prev_btn)
        row.addWidget(self.next_btn)
        v.addLayout(row)
        self.step_label = QLabel("")
        self.step_label.setWordWrap(True)
        self.step_label.setTextInteractionFlags(Qt.TextSelectableByMouse)
        v.addWidget(self.step_label)
        row = QHBoxLayout()
        self.copy_btn = QPushButton("Copy")
        self.copy_btn.setToolTip("Copy the selected puzzle(s) as 81-character lines (Ctrl+C)")
        self.copy_btn.clicked.connect(self.copy_puzzle)
        self.save_btn = QPushButton("Image…")
        self.save_btn.setToolTip("Save the grid as it is shown (with the path step) as PNG or SVG")
        self.save_btn.clicked.connect(self.save_image)
        self.print_btn = QPushButton("Print…")
        self.print_btn.setToolTip("Print the grid as it is shown")
        self.print_btn.clicked.connect(self.print_grid)
        for b in (self.copy_btn, self.save_btn, self.print_btn):
            row.addWidget(b)
        v.addLayout(row)
        self._update_step_buttons()
        return w

    # ---------------------------------------------------------------- collections
    def refresh(self) -> None:
        if self.model is None:
            self.count_label.setText(self.problem)
            return
        checked = self.checked_ids()
        self.coll_list.blockSignals(True)
        self.coll_list.clear()
        for c in self.model.collections():
            item = QListWidgetItem(f"{c['name']} — {c['generator']} ({c['count']:,})")
            item.setData(Qt.UserRole, c["id"])
            item.setToolTip(f"collection {c['id']}: {c['count']:,} puzzles"
                            + (f", from {c['source']}" if c["source"] else "")
                            + (f", seed {c['seed']}" if c["seed"] else ""))
            item.setFlags(item.flags() | Qt.ItemIsUserCheckable)
            item.setCheckState(Qt.Checked if c["id"] in checked else Qt.Unchecked)
            self.coll_list.addItem(item)
        self.coll_list.blockSignals(False)
        if not self.coll_list.count():
            self.count_label.setText("No stored collection yet: run a generator, import a file (Ctrl+O) "
                                     "or paste puzzles (Ctrl+V).")

    def checked_ids(self) -> list[int]:
        return [self.coll_list.item(i).data(Qt.UserRole) for i in range(self.coll_list.count())
                if self.coll_list.item(i).checkState() == Qt.Checked]

    def show_collections(self, ids: list[int]) -> None:
        """Check exactly ``ids`` and open them."""
        self.refresh()
        self.coll_list.blockSignals(True)
        for i in range(self.coll_list.count()):
            item = self.coll_list.item(i)
            item.setCheckState(Qt.Checked if item.data(Qt.UserRole) in ids else Qt.Unchecked)
        self.coll_list.blockSignals(False)
        self.open_checked()

    def open_checked(self) -> None:
        if self.model is None:
            return
        ids = self.checked_ids()
        self.count_label.setText(f"Opening {len(ids)} collection{'s' * (len(ids) != 1)}…" if ids else "")
        self.calls.drop("open")
        self.calls.submit("open", lambda: self.model.open(ids), on_done=self._opened)

    def _opened(self, table: BrowserTable) -> None:
        self.table = table
        self.model.texts.clear()
        current = self.metric_combo.currentText()
        self.metric_combo.blockSignals(True)
        self.metric_combo.clear()
        self.metric_combo.addItems(list(table.metrics))
        if current in table.metrics:
            self.metric_combo.setCurrentText(current)
        self.metric_combo.blockSignals(False)
        self.apply_filter()

    # ---------------------------------------------------------------- selection
    def current_filter(self) -> BrowserFilter:
        ranges = {}
        metric = self.metric_combo.currentText()
        if metric:
            lo, hi = self.metric_lo.value(), self.metric_hi.value()
            ranges[metric] = (None if lo == ANY else lo, None if hi == ANY else hi)
        dup = ("all", "hide", "only")[self.dup_combo.currentIndex()]
        return BrowserFilter((self.clues_lo.value(), self.clues_hi.value()), ranges, None, dup)

    def apply_filter(self) -> None:
        if self.table is None:
            return
        table, flt, (key, desc) = self.table, self.current_filter(), self.sort_key
        if len(table) <= ASYNC_ROWS:
            self._selected((table, table.select(flt, key, desc)))
            return
        self.count_label.setText(f"Selecting from {len(table):,} puzzles…")
        self.calls.drop("select")
        self.calls.submit("select", lambda: (table, table.select(flt, key, desc)), on_done=self._selected)

    def sort_by(self, name: str, descending: bool) -> None:
        self.sort_key = (name, descending)
        self.apply_filter()

    def _selected(self, answer) -> None:
        table, order = answer
        if table is not self.table:
            return
        self.order = order
        self.table_model.set_rows(table, order)
        if self.sort_key[0] is None:   # table order: no column's arrow (Qt would mark the first)
            self.view.horizontalHeader().setSortIndicator(-1, Qt.AscendingOrder)
        classes = f"; {table.class_count():,} classes among {table.classes_known:,} classified" \
            if table.classes_known else ""
        self.count_label.setText(f"{len(order):,} of {len(table):,} puzzles listed{classes}")
        if len(order) <= 2000:      # measuring more rows than that would stall the window
            self.view.resizeColumnsToContents()
        self._update_actions()

    def selected_rows(self) -> np.ndarray:
        """Table rows of the selected list rows (in list order), or the current one."""
        rows = sorted({ix.row() for ix in self.view.selectionModel().selectedRows()}) if self.table_model else []
        return self.order[rows] if rows else np.zeros(0, dtype=np.int64)

    def select_row(self, row: int) -> None:
        if self.table is None or not 0 <= row < len(self.order):
            return
        text = self.model.texts.text(self.table, self.order, row)
        puzzle = puzzle_bytes([text], "the selected puzzle")[0]
        self.grid.show_puzzle(puzzle)
        self._puzzle_shown = True
        self._update_actions()
        self.frames, self.frame_index = [], 0
        self.step_label.setText("")
        self._update_step_buttons()
        self.rating_label.setText(f"{int(np.count_nonzero(puzzle))} clues — finding its W path…")
        self.calls.drop("path")
        when_kernels_ready(RATE_KERNELS, lambda: self.calls.submit(
            "path", lambda: BrowserModel.path_frames(puzzle), on_done=self._path_ready,
            on_error=self._path_failed), self, "W path")

    def _path_ready(self, answer) -> None:
        path, frames = answer
        self.frames, self.frame_index = frames, 0
        from sudokustudio.sudoku.rating.kernels import DEFAULT_CAP
        from sudokustudio.sudoku.rating.paths import rating_label

        end = "solved" if frames[-1].solved else f"not solved by whips of length ≤ {DEFAULT_CAP}"
        self.rating_label.setText(f"{rating_label(path.rating, DEFAULT_CAP)}: {len(path.steps)} whip "
                                  f"elimination{'s' * (len(path.steps) != 1)}, BRT between them; {end}.")
        self._show_frame()

    def _path_failed(self, exc: BaseException) -> None:
        self.rating_label.setText(f"No W path: {exc}")

    # ---------------------------------------------------------------- path steps
    def step(self, delta: int) -> None:
        if not self.frames:
            return
        self.frame_index = max(0, min(len(self.frames) - 1, self.frame_index + delta))
        self._show_frame()

    def _show_frame(self) -> None:
        frame = self.frames[self.frame_index]
        self.grid.show_frame(frame)
        n = len(self.frames) - 1
        if frame.step is None:
            self.step_label.setText(f"End of the path ({n} steps): "
                                    + ("the grid is solved." if frame.solved else "whips up to the cap are "
                                       "exhausted."))
        else:
            self.step_label.setText(f"Step {self.frame_index + 1} of {n}: {frame.step}")
        self._update_step_buttons()

    def _update_actions(self, *_) -> None:
        """Grey the buttons that would do nothing: no puzzle listed, selected or shown."""
        listed = self.table is not None and len(self.order) > 0
        self.export_btn.setEnabled(listed)
        self.classes_btn.setEnabled(listed and not self.calls.busy("classes"))
        self.copy_btn.setEnabled(self.selected_rows().size > 0)
        self.save_btn.setEnabled(self._puzzle_shown)
        self.print_btn.setEnabled(self._puzzle_shown)

    def _update_step_buttons(self) -> None:
        self.prev_btn.setEnabled(bool(self.frames) and self.frame_index > 0)
        self.next_btn.setEnabled(bool(self.frames) and self.frame_index < len(self.frames) - 1)

    # ---------------------------------------------------------------- clipboard, files
    def copy_puzzle(self) -> None:
        rows = self.selected_rows()
        if self.table is None or rows.size == 0:
            return
        if rows.size > 100_000:
            QMessageBox.information(self, "Copy", f"{rows.size:,} rows selected: use Export for that many.")
            return
        table, store = self.table, self.model.store

        def texts() -> str:
            found = store.puzzle_texts(table.rowid[rows])
            return "\n".join(found[int(r)] for r in table.rowid[rows]) + "\n"
        if rows.size <= 2000:      # a few queries: at once
            QGuiApplication.clipboard().setText(texts())
        else:                      # up to ~0.3 s of reading: off the UI thread
            self.calls.submit("copy", texts, on_done=QGuiApplication.clipboard().setText)

    def paste_puzzles(self) -> None:
        if self.model is None:
            return
        text = QGuiApplication.clipboard().text()
        when_kernels_ready(RATE_KERNELS, lambda: self.calls.submit(
            "paste", lambda: self.model.add_puzzles(text), on_done=self._pasted), self, "Paste puzzles")

    def _pasted(self, answer) -> None:
        cid, n, problems = answer
        self.show_collections([cid, *self.checked_ids()])
        if problems:
            more = f" (and {len(problems) - 5} more)" if len(problems) > 5 else ""
            QMessageBox.warning(self, "Paste", f"{n} puzzle{'s' * (n != 1)} stored; lines skipped:\n"
                                + "\n".join(problems[:5]) + more)

    def open_file(self, path: str) -> None:
        """Import a collection file into the store and list it."""
        if self.model is None:
            return
        self.count_label.setText(f"Importing {path}…")

        when_kernels_ready(RATE_KERNELS, lambda: self.calls.submit(
            "import", lambda: self.model.import_file(path),
            on_done=lambda cid: self.show_collections([cid, *self.checked_ids()])), self, "Import collection")

    def export_file(self) -> None:
        if self.table is None or not len(self.order):
            QMessageBox.information(self, "Export", "Nothing listed to export: check a collection first.")
            return
        rows = self.selected_rows()
        rows = rows if rows.size > 1 else self.order
        path, _ = QFileDialog.getSaveFileName(self, "Export puzzles", "selection.csv",
                                              "CSV with metrics (*.csv);;One per line (*.txt *.sdm)")
        if not path:
            return
        table = self.table
        self.calls.submit("export", lambda: self.model.export(table, rows, path),
                          on_done=lambda n: self.count_label.setText(f"{n:,} puzzles written to {path}"))

    def save_image(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Save grid", "grid.png", "PNG image (*.png);;SVG image (*.svg)")
        if path:
            try:
                self.grid.save_image(path)
            except OSError as e:
                show_error(self, "Save image", e)

    def print_grid(self) -> None:
        from PySide6.QtPrintSupport import QPrintDialog, QPrinter

        printer = QPrinter()
        if QPrintDialog(printer, self).exec():
            self.grid.print_grid(printer)

    # ---------------------------------------------------------------- isomorphs
    def find_classes(self) -> None:
        if self.table is None or self.calls.busy("classes"):
            return
        table = self.table
        self._cancel.clear()
        self._classes_progress = (0, int(np.count_nonzero(table.canon == 0)))

        def progress(done, total):
            self._classes_progress = (done, total)   # read by the UI timer, never a widget here

        def work():
            return self.model.compute_classes(table, progress=progress, cancelled=self._cancel.is_set)
        when_kernels_ready(("generators",), lambda: self._start_classes(work), self, "Find isomorphs")

    def _start_classes(self, work) -> None:
        self.progress.setVisible(True)
        self.cancel_btn.setVisible(True)
        self.classes_btn.setEnabled(False)
        self.ticker.start()
        self.calls.submit("classes", work, on_done=self._classes_done, on_error=self._classes_failed)

    def _tick(self) -> None:
        done, total = self._classes_progress
        self.progress.setRange(0, max(1, total))
        self.progress.setValue(done)
        self.progress.setFormat(f"isomorphs: {done:,} of {total:,}")

    def _classes_done(self, _n: int) -> None:
        self._classes_failed(None)
        self.apply_filter()

    def _classes_failed(self, exc) -> None:
        self.ticker.stop()
        self.progress.setVisible(False)
        self.cancel_btn.setVisible(False)
        self._update_actions()
        if exc is not None:
            show_error(self, "Find isomorphs", exc)

    def cancel(self) -> None:
        self._cancel.set()

    def shutdown(self, timeout: float = 2.0) -> None:
        """Cancel; wait at most ``timeout`` s (capped at 0.5 s) for calls in flight, then abandon
        them (a long W path cannot be interrupted; its answer is dropped)."""
        self._cancel.set()
        self.calls.drop()
        self.calls.wait_idle(int(1000 * min(0.5, timeout)))
        if self.model is not None:
            self.model.store.close()
