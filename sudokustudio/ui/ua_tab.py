"""Unavoidable sets tab: harvest the UAs of a solution grid, inspect them on
the grid, see disjoint groups (a clue lower bound), and search the grid for
minimal puzzles with few clues (seed 004).

A view over ``models.ua.UAModel``: the harvest and the search are runs on the
window's executor (Esc stops them), the search is prepared off the UI
thread, and the view redraws from the model on a timer."""
from __future__ import annotations

import numpy as np
from PySide6.QtCore import QModelIndex, Qt, QTimer
from PySide6.QtGui import QFont, QFontMetrics, QGuiApplication, QKeySequence, QShortcut
from PySide6.QtWidgets import (QAbstractItemView, QCheckBox, QFileDialog, QFormLayout, QGroupBox, QHBoxLayout,
                               QHeaderView, QLabel, QLineEdit, QListWidget, QProgressBar,
                               QPushButton, QSpinBox, QSplitter, QTableView, QVBoxLayout,
                               QWidget)

from sudokustudio.core import limits
from sudokustudio.jobs.qt import kernel_gate, window_executor
from sudokustudio.models.ua import UAModel
from sudokustudio.ui.background import BackgroundCalls, show_error
from sudokustudio.ui.kernels import when_kernels_ready
from sudokustudio.ui.widgets.table_model import ALIGN, DISPLAY, FONT, LEFT, RIGHT, HeadedTableModel
from sudokustudio.ui.widgets.ua_grid import UAGridView


def _mono(points: int = 9) -> QFont:
    f = QFont("Monospace")
    f.setStyleHint(QFont.TypeWriter)
    f.setPointSize(points)
    return f


class _UATableModel(HeadedTableModel):
    """The harvested UAs: number, size, 81-character mask; the disjoint group's rows bold.

    A model over arrays, not a table of items: filling ~260 rows of items (three each) held
    the window 20-36 ms, ~950 UAs 130-178 ms; Qt asks ``data`` only for the rows shown."""

    HEADERS = ["#", "size", "cells (81-character mask)"]

    def __init__(self, parent=None):
        super().__init__(parent)
        self.sizes = np.zeros(0, np.int64)
        self.masks: list[str] = []
        self.bold_rows: set[int] = set()
        self.bold = _mono(8)
        self.bold.setBold(True)

    def set_uas(self, sizes, masks, bold_rows) -> None:
        self.beginResetModel()
        self.sizes, self.masks, self.bold_rows = sizes, masks, set(bold_rows)
        self.endResetModel()

    def rowCount(self, parent=QModelIndex()) -> int:  # noqa: N802 (Qt name)
        return 0 if parent.isValid() else len(self.masks)

    def data(self, index, role=Qt.DisplayRole):
        role = int(role)
        if role == DISPLAY:
            row, col = index.row(), index.column()
            return str(row) if col == 0 else str(int(self.sizes[row])) if col == 1 else self.masks[row]
        if role == ALIGN:
            return RIGHT if index.column() < 2 else LEFT
        if role == FONT and index.row() in self.bold_rows:
            return self.bold
        return None

    def column_widths(self, metrics) -> list[int]:
        """Widths of the number and size columns for their widest text."""
        return self.widths_for(metrics, ("9" * len(str(max(len(self.masks) - 1, 0))), "99"))


class UATab(QWidget):
    title = "Unavoidable sets"
    #: kernel groups the window loads in the background once the tab has been shown a moment
    kernel_groups = ("ua",)
    file_filters = "Grids and puzzles (*.txt *.sdk *.sdm);;All files (*)"

    def __init__(self, settings=None, parent=None):
        super().__init__(parent)
        self.settings = settings
        self.model = UAModel(lambda: window_executor(self.settings), kernel_gate())
        self.calls = BackgroundCalls(self, "Unavoidable sets")
        self._shown_puzzles: list[str] = []
        self._harvesting = False
        self._build()
        self.timer = QTimer(self)
        self.timer.setInterval(100)  # 10 Hz redraw, never per batch
        self.timer.timeout.connect(self._tick)

    @property
    def grid(self):
        return self.model.grid

    @property
    def uas(self):
        return self.model.uas

    @property
    def groups(self):
        return self.model.groups

    # ---------------------------------------------------------------- layout
    def _build(self) -> None:
        outer = QHBoxLayout(self)
        split = QSplitter(Qt.Horizontal)
        outer.addWidget(split)
        split.addWidget(self._build_grid_side())
        rsplit = QSplitter(Qt.Vertical)
        split.addWidget(rsplit)
        rsplit.addWidget(self._build_ua_table())
        rsplit.addWidget(self._build_search())
        rsplit.setSizes([520, 280])
        rsplit.setCollapsible(1, False)
        split.setSizes([440, 840])
        QShortcut(QKeySequence("Ctrl+H"), self, activated=self.start_harvest)
        QShortcut(QKeySequence("Ctrl+R"), self, activated=self.start_search)
        QShortcut(QKeySequence("Esc"), self, activated=self.cancel)
        QShortcut(QKeySequence("Ctrl+Shift+V"), self, activated=self.paste_grid)

    def _build_grid_side(self) -> QWidget:
        """Grid input and the grid."""
        left = QWidget()
        lv = QVBoxLayout(left)
        self.grid_edit = QLineEdit()
        self.grid_edit.setFont(_mono())
        self.grid_edit.setPlaceholderText("81-digit solution grid, or a uniquely solvable puzzle (then its solution)")
        self.grid_edit.setToolTip("Type or paste a full grid (81 digits) or a puzzle with a unique solution; "
                                  "Enter sets it")
        self.grid_edit.returnPressed.connect(self.set_grid_from_text)
        lv.addWidget(self.grid_edit)
        row = QHBoxLayout()
        self.set_btn = QPushButton("Set grid")
        self.set_btn.setToolTip("Use the text above (a puzzle is replaced by its solution)")
        self.set_btn.clicked.connect(self.set_grid_from_text)
        self.paste_btn = QPushButton("Paste")
        self.paste_btn.setToolTip("Paste a grid or puzzle from the clipboard (Ctrl+Shift+V)")
        self.paste_btn.clicked.connect(self.paste_grid)
        self.random_btn = QPushButton("Random grid")
        self.random_btn.setToolTip("A random solution grid (randomized solver; not uniform)")
        self.random_btn.clicked.connect(lambda: when_kernels_ready(("solver",), self.random_grid, self, "Random grid"))
        for b in (self.set_btn, self.paste_btn, self.random_btn):
            row.addWidget(b)
        lv.addLayout(row)
        self.view = UAGridView()
        lv.addWidget(self.view, 1)
        self.grid_info = QLabel("No grid yet: type, paste, open a file or take a random grid.")
        self.grid_info.setWordWrap(True)
        lv.addWidget(self.grid_info)
        return left

    def _build_ua_table(self) -> QWidget:
        """The harvest controls and the table of UAs."""
        mid = QWidget()
        mv = QVBoxLayout(mid)
        hb = QHBoxLayout()
        hb.addWidget(QLabel("Max size"))
        self.size_spin = QSpinBox()
        self.size_spin.setRange(limits.UA_MIN_SIZE, 20)
        self.size_spin.setValue(12)
        self.size_spin.setToolTip("Largest UA size harvested (McGuire et al. use 12)")
        hb.addWidget(self.size_spin)
        self.harvest_btn = QPushButton("Harvest UAs")
        self.harvest_btn.setToolTip("Find the minimal UAs of the grid (Ctrl+H)")
        self.harvest_btn.clicked.connect(lambda: when_kernels_ready(("ua",), self.start_harvest, self, "Harvest"))
        self.harvest_btn.setEnabled(False)
        hb.addWidget(self.harvest_btn)
        self.groups_check = QCheckBox("Show disjoint group")
        self.groups_check.setChecked(True)
        self.groups_check.setToolTip("Colour a largest set of pairwise disjoint UAs on the grid")
        self.groups_check.toggled.connect(self._show_groups)
        hb.addWidget(self.groups_check)
        hb.addStretch(1)
        mv.addLayout(hb)
        self.bound_label = QLabel("")
        self.bound_label.setWordWrap(True)
        mv.addWidget(self.bound_label)
        self.table = QTableView()
        self.ua_rows = _UATableModel(self.table)
        self.table.setModel(self.ua_rows)
        self.table.verticalHeader().setVisible(False)
        self.table.setSelectionBehavior(QAbstractItemView.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.table.horizontalHeader().setSectionResizeMode(2, QHeaderView.Stretch)
        self.table.setFont(_mono(8))
        self.table.verticalHeader().setDefaultSectionSize(20)
        self.table.setToolTip("Minimal UAs sorted by size; select one to see it and its other filling "
                              "(bold rows: the disjoint group)")
        self.table.selectionModel().selectionChanged.connect(self._ua_selected)
        mv.addWidget(self.table, 1)
        return mid

    def _build_search(self) -> QWidget:
        """The few-clue search: its controls and the puzzles found."""
        right = QGroupBox("Few-clue search")
        rh = QHBoxLayout(right)
        controls = QWidget()
        rv = QVBoxLayout(controls)
        rv.setContentsMargins(0, 0, 0, 0)
        rh.addWidget(controls)
        lw = QWidget()
        lwv = QVBoxLayout(lw)
        lwv.setContentsMargins(0, 0, 0, 0)
        rh.addWidget(lw, 1)
        form = QFormLayout()
        self.k_spin = QSpinBox()
        self.k_spin.setRange(1, limits.UA_MAX_CLUES)
        self.k_spin.setValue(17)
        self.k_spin.setToolTip("Find every minimal puzzle with at most this many clues")
        form.addRow("Clues at most", self.k_spin)
        self.force_edit = QLineEdit()
        self.force_edit.setFont(_mono())
        self.force_edit.setPlaceholderText("optional 81-char mask of forced clues")
        self.force_edit.setToolTip("Cells that must be clues ('1' or a digit = forced, '.' = free)")
        form.addRow("Forced cells", self.force_edit)
        self.forward_check = QCheckBox("forward view (disjoint groups)")
        self.forward_check.setChecked(True)
        self.forward_check.setToolTip("Prune with disjoint UA groups (seed 004, Properties 1-3)")
        form.addRow("", self.forward_check)
        rv.addLayout(form)
        bb = QHBoxLayout()
        self.start_btn = QPushButton("Start")
        self.start_btn.setToolTip("Start the search (Ctrl+R); needs harvested UAs")
        self.start_btn.clicked.connect(lambda: when_kernels_ready(("ua",), self.start_search, self, "Search"))
        self.start_btn.setEnabled(False)
        self.cancel_btn = QPushButton("Stop")
        self.cancel_btn.setMinimumWidth(self.cancel_btn.fontMetrics().horizontalAdvance("Stopping…") + 24)
        self.cancel_btn.setToolTip("Stop the harvest or the search (Esc); what was found stays")
        self.cancel_btn.clicked.connect(self.cancel)
        self.cancel_btn.setEnabled(False)
        bb.addWidget(self.start_btn)
        bb.addWidget(self.cancel_btn)
        rv.addLayout(bb)
        self.progress = QProgressBar()
        self.progress.setFormat("%v / %m batches")
        rv.addWidget(self.progress)
        self.rate_label = QLabel("")
        self.rate_label.setWordWrap(True)
        # its four wrapped lines counted in the box's minimum: at 1024 x 720 they had squeezed the
        # form above them (the spin box 4 px high) instead of the UA table giving up room
        self.rate_label.setMinimumHeight(4 * self.rate_label.fontMetrics().lineSpacing())
        self.rate_label.setAlignment(Qt.AlignLeft | Qt.AlignTop)
        rv.addWidget(self.rate_label)
        rv.addStretch(1)
        found_label = QLabel("Puzzles found (click one to show it on the grid):")
        found_label.setWordWrap(True)
        lwv.addWidget(found_label)
        self.found = QListWidget()
        self.found.setFont(_mono(8))
        self.found.itemSelectionChanged.connect(self._puzzle_selected)
        lwv.addWidget(self.found, 1)
        self.export_btn = QPushButton("Export list…")
        self.export_btn.setToolTip("Save the puzzles found, one per line (Ctrl+E)")
        self.export_btn.clicked.connect(self.export_file)
        self.export_btn.setEnabled(False)
        rv.addWidget(self.export_btn)
        controls.setMaximumWidth(300)  # the list takes the rest; the tab still fits 800 px
        return right

    # ---------------------------------------------------------------- grid
    def _error(self, what: str, exc: Exception | str) -> None:
        show_error(self, "Unavoidable sets", f"{what}:\n{exc}" if isinstance(exc, str) else exc)

    def set_grid(self, grid) -> None:
        self.model.set_grid(grid)
        self.grid_edit.setText("".join(map(str, self.grid)))
        self.grid_edit.setCursorPosition(0)   # show the grid's first rows, not its last digits
        self.ua_rows.set_uas(np.zeros(0, np.int64), [], ())
        self.found.clear()
        self._shown_puzzles = []
        self.bound_label.setText("")
        self.rate_label.setText("")
        self.view.set_grid(self.grid)
        self.harvest_btn.setEnabled(True)
        self.start_btn.setEnabled(False)
        self.grid_info.setText("Grid set.  Harvest its UAs (Ctrl+H).")

    def set_grid_from_text(self) -> None:
        text = self.grid_edit.text().strip()
        if not text:
            return self._error("No grid", "type or paste 81 digits (or a puzzle with a unique solution)")
        try:
            self.set_grid(self.model.read_grid(text))
        except ValueError as exc:
            self._error("This is not a usable grid", str(exc))

    def paste_grid(self) -> None:
        text = QGuiApplication.clipboard().text().strip()
        text = "".join(text.split()) if len("".join(text.split())) == 81 else text
        self.grid_edit.setText(text)
        self.set_grid_from_text()

    def random_grid(self) -> None:
        from sudokustudio.sudoku.grids import random_grid

        self.calls.submit("grid", random_grid, on_done=self.set_grid)

    def open_file(self, path) -> None:
        try:
            self.set_grid(self.model.read_grid(path))
        except (ValueError, OSError) as exc:
            self._error(f"Cannot read a grid from {path}", str(exc))

    # ---------------------------------------------------------------- harvest
    def start_harvest(self) -> None:
        if self.grid is None or self.model.busy:
            return
        self.model.start_harvest(self.size_spin.value())
        self._harvesting = True
        self.harvest_btn.setEnabled(False)
        self.cancel_btn.setEnabled(True)
        self.grid_info.setText("Harvesting UAs… (a few seconds)")
        self.timer.start()

    @property
    def harvest_runner(self):
        return self.model.harvest_run

    @property
    def search_runner(self):
        return self.model.search_run

    def _harvest_done(self) -> None:
        run = self.model.harvest_run
        self.harvest_btn.setEnabled(self.grid is not None)
        if run.errors:
            self._error("Harvest failed", run.errors[-1])
        if not self.model.take_harvest():
            self.grid_info.setText("Harvest stopped.")
            return
        self.show_uas()

    def show_uas(self) -> None:
        uas = self.uas
        self.ua_rows.set_uas(uas.sizes(), uas.masks(), self.groups)
        for col, width in enumerate(self.ua_rows.column_widths(QFontMetrics(self.ua_rows.bold))):
            self.table.setColumnWidth(col, width)
        info, bound = self.model.summary(self.size_spin.value())
        self.grid_info.setText(info)
        self.bound_label.setText(bound)
        self._show_groups()
        self.start_btn.setEnabled(True)

    def _show_groups(self) -> None:
        if self.uas is None or not self.groups_check.isChecked():
            self.view.set_groups([])
            return
        self.view.set_groups(self.model.group_cells())

    def _ua_selected(self) -> None:
        rows = self.table.selectionModel().selectedRows()
        if not rows or self.uas is None:
            self.view.set_ua([])
            return
        cells, other = self.model.ua_cells(rows[0].row())
        self.view.set_clues(None)
        self.view.set_ua(cells, other)

    # ---------------------------------------------------------------- search
    def start_search(self) -> None:
        if self.uas is None or self.grid is None or self.model.busy or self.calls.busy("prepare"):
            return
        args = (self.k_spin.value(), self.force_edit.text().strip(), self.size_spin.value(),
                self.forward_check.isChecked())
        self.start_btn.setEnabled(False)
        self.rate_label.setText("Preparing the search (its first levels)…")
        self.calls.submit("prepare", lambda: self.model.prepare_search(*args), on_done=self._search_prepared,
                          on_error=self._prepare_failed)

    def _prepare_failed(self, exc: BaseException) -> None:
        self.start_btn.setEnabled(self.uas is not None)
        self.rate_label.setText("")
        self._error("Cannot start the search", str(exc) if isinstance(exc, ValueError) else exc)

    def _search_prepared(self, job) -> None:
        run = self.model.start_search(job)
        self.found.clear()
        self._shown_puzzles = []
        self.progress.setRange(0, max(1, run.snapshot(history=False).n_batches or 1))
        self.progress.setValue(0)
        self.cancel_btn.setEnabled(True)
        self.timer.start()

    def _tick(self) -> None:
        harvest = self.model.harvest_run
        if self._harvesting and harvest is not None and harvest.finished:
            self._harvesting = False
            self._harvest_done()
        state = self.model.search_state()
        if state is not None:
            self.progress.setRange(0, max(1, state.n_batches))
            self.progress.setValue(state.batches)
            self.rate_label.setText(state.text)
            if state.puzzles != self._shown_puzzles:
                current = self.found.currentRow()
                self.found.clear()
                for p in state.puzzles:
                    self.found.addItem(f"{81 - p.count('.'):2d}  {p}")
                self._shown_puzzles = state.puzzles
                if 0 <= current < self.found.count():
                    self.found.setCurrentRow(current)
                self.export_btn.setEnabled(bool(state.puzzles))
        busy = self.model.busy
        stopping = busy and any(r is not None and r.status.value == "stopping"
                                for r in (self.model.harvest_run, self.model.search_run))
        self.cancel_btn.setEnabled(busy and not stopping)
        self.cancel_btn.setText("Stopping…" if stopping else "Stop")
        if not busy:
            self.start_btn.setEnabled(self.uas is not None)
            self.timer.stop()

    def _puzzle_selected(self) -> None:
        item = self.found.currentItem()
        if item is None or self.grid is None:
            return
        text = item.text().split()[-1]
        self.table.clearSelection()
        self.view.set_ua([])
        self.view.set_clues([i for i, ch in enumerate(text) if ch != "."])

    def cancel(self) -> None:
        self.model.stop()
        self._tick()

    def puzzles(self) -> list[str]:
        return self.model.puzzles()

    def export_file(self) -> None:
        if not self.puzzles():
            return self._error("Nothing to export", "the search has not found puzzles yet")
        path, _ = QFileDialog.getSaveFileName(self, "Export puzzles", "ua_puzzles.txt", "Text (*.txt)")
        if path:
            self.save_puzzles(path)

    def save_puzzles(self, path) -> None:
        try:
            self.model.save_puzzles(path)
        except OSError as exc:
            self._error(f"Cannot write {path}", str(exc))

    def shutdown(self, deadline: float = 1.5) -> None:
        self.calls.drop()
        self.model.shutdown(deadline)
        self.timer.stop()
