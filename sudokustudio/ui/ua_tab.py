"""Unavoidable sets tab: harvest the UAs of a solution grid, inspect them on
the grid, see disjoint groups (a clue lower bound), and search the grid for
minimal puzzles with few clues (seed 004)."""
from __future__ import annotations

import time
from pathlib import Path

import numpy as np
from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QFont, QGuiApplication, QKeySequence, QShortcut
from PySide6.QtWidgets import (QAbstractItemView, QCheckBox, QFileDialog, QFormLayout, QGroupBox, QHBoxLayout,
                               QHeaderView, QLabel, QLineEdit, QListWidget, QMessageBox, QProgressBar,
                               QPushButton, QSpinBox, QSplitter, QTableWidget, QTableWidgetItem, QVBoxLayout,
                               QWidget)

from sudokustudio.jobs.qt import make_runner
from sudokustudio.sudoku import unavoidable as U
from sudokustudio.ui.kernels import when_kernels_ready
from sudokustudio.ui.widgets.ua_grid import UAGridView


def _mono(points: int = 9) -> QFont:
    f = QFont("Monospace")
    f.setStyleHint(QFont.TypeWriter)
    f.setPointSize(points)
    return f


class UATab(QWidget):
    title = "Unavoidable sets"
    file_filters = "Grids and puzzles (*.txt *.sdk *.sdm);;All files (*)"

    def __init__(self, settings=None, parent=None):
        super().__init__(parent)
        self.settings = settings
        self.grid: np.ndarray | None = None
        self.uas: U.UASet | None = None
        self.groups: list[int] = []
        self.harvest_runner = None
        self.search_runner = None
        self.search_job = None
        self._search_t0 = 0.0
        self._shown_puzzles = 0
        self._build()
        self.timer = QTimer(self)
        self.timer.setInterval(100)  # 10 Hz redraw, never per batch
        self.timer.timeout.connect(self._refresh_search)

    # ---------------------------------------------------------------- layout
    def _build(self) -> None:
        outer = QHBoxLayout(self)
        split = QSplitter(Qt.Horizontal)
        outer.addWidget(split)

        # left: grid input and the grid
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
        split.addWidget(left)

        # right: harvest and UA table above, search below
        rsplit = QSplitter(Qt.Vertical)
        split.addWidget(rsplit)
        mid = QWidget()
        mv = QVBoxLayout(mid)
        hb = QHBoxLayout()
        hb.addWidget(QLabel("Max size"))
        self.size_spin = QSpinBox()
        self.size_spin.setRange(4, 20)
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
        self.table = QTableWidget(0, 3)
        self.table.setHorizontalHeaderLabels(["#", "size", "cells (81-character mask)"])
        self.table.verticalHeader().setVisible(False)
        self.table.setSelectionBehavior(QAbstractItemView.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.table.horizontalHeader().setSectionResizeMode(2, QHeaderView.Stretch)
        self.table.setFont(_mono(8))
        self.table.verticalHeader().setDefaultSectionSize(20)
        self.table.setToolTip("Minimal UAs sorted by size; select one to see it and its other filling "
                              "(bold rows: the disjoint group)")
        self.table.itemSelectionChanged.connect(self._ua_selected)
        mv.addWidget(self.table, 1)
        rsplit.addWidget(mid)

        # right: search
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
        self.k_spin.setRange(1, 40)
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
        self.cancel_btn = QPushButton("Cancel")
        self.cancel_btn.setToolTip("Stop after the batches in flight (Esc)")
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
        rsplit.addWidget(right)
        rsplit.setSizes([520, 280])
        split.setSizes([440, 840])

        QShortcut(QKeySequence("Ctrl+H"), self, activated=self.start_harvest)
        QShortcut(QKeySequence("Ctrl+R"), self, activated=self.start_search)
        QShortcut(QKeySequence("Esc"), self, activated=self.cancel)
        QShortcut(QKeySequence("Ctrl+Shift+V"), self, activated=self.paste_grid)

    # ---------------------------------------------------------------- grid
    def _error(self, what: str, exc: Exception | str) -> None:
        QMessageBox.warning(self, "Unavoidable sets", f"{what}:\n{exc}")

    def set_grid(self, grid) -> None:
        self.cancel()
        self.grid = np.asarray(grid, dtype=np.uint8).copy()
        self.grid_edit.setText("".join(map(str, self.grid)))
        self.uas = None
        self.groups = []
        self.table.setRowCount(0)
        self.found.clear()
        self.bound_label.setText("")
        self.view.set_grid(self.grid)
        self.harvest_btn.setEnabled(True)
        self.start_btn.setEnabled(False)
        self.grid_info.setText("Grid set.  Harvest its UAs (Ctrl+H).")

    def set_grid_from_text(self) -> None:
        text = self.grid_edit.text().strip()
        if not text:
            return self._error("No grid", "type or paste 81 digits (or a puzzle with a unique solution)")
        try:
            self.set_grid(U.read_grid(text))
        except ValueError as exc:
            self._error("This is not a usable grid", exc)

    def paste_grid(self) -> None:
        text = QGuiApplication.clipboard().text().strip()
        text = "".join(text.split()) if len("".join(text.split())) == 81 else text
        self.grid_edit.setText(text)
        self.set_grid_from_text()

    def random_grid(self) -> None:
        from sudokustudio.sudoku.grids import random_grid

        self.set_grid(random_grid())

    def open_file(self, path) -> None:
        try:
            self.set_grid(U.read_grid(str(path)))
        except (ValueError, OSError) as exc:
            self._error(f"Cannot read a grid from {path}", exc)

    # ---------------------------------------------------------------- harvest
    def start_harvest(self) -> None:
        if self.grid is None or (self.harvest_runner is not None and self.harvest_runner.running):
            return
        self.cancel()
        job = U.UAHarvestJob("".join(map(str, self.grid)), self.size_spin.value())
        self.harvest_runner = make_runner(job, 1, 1, settings=self.settings, parent=self, workers=1)
        self.harvest_runner.finished.connect(self._harvest_done)
        self.harvest_runner.failed.connect(lambda msg: self._error("Harvest failed", msg))
        self.harvest_btn.setEnabled(False)
        self.grid_info.setText("Harvesting UAs… (a few seconds; the first time also compiles the kernels)")
        self.harvest_runner.start()

    def _harvest_done(self, cancelled: bool) -> None:
        self.harvest_btn.setEnabled(self.grid is not None)
        res = self.harvest_runner.total() if self.harvest_runner is not None else None
        if res is None:
            self.grid_info.setText("Harvest cancelled.")
            return
        self.show_uas(U.UASet(self.grid, res["lo"], res["hi"], res["seconds"]), res["groups"], res["exact"])

    def show_uas(self, uas: U.UASet, groups: list[int], exact: bool) -> None:
        self.uas = uas
        self.groups = list(groups)
        masks = uas.masks()
        sizes = uas.sizes()
        in_group = set(self.groups)
        self.table.setRowCount(len(uas))
        bold = _mono(8)
        bold.setBold(True)
        for i, (m, s) in enumerate(zip(masks, sizes)):
            items = [QTableWidgetItem(str(i)), QTableWidgetItem(str(int(s))), QTableWidgetItem(m)]
            for it in items:
                if i in in_group:
                    it.setFont(bold)
            items[0].setTextAlignment(Qt.AlignRight | Qt.AlignVCenter)
            items[1].setTextAlignment(Qt.AlignRight | Qt.AlignVCenter)
            for col, it in enumerate(items):
                self.table.setItem(i, col, it)
        self.table.resizeColumnToContents(0)
        self.table.resizeColumnToContents(1)
        by = ", ".join(f"{k}: {v}" for k, v in uas.by_size().items())
        self.grid_info.setText(f"{len(uas)} minimal UAs of at most {self.size_spin.value()} cells "
                               f"({by}) in {uas.seconds:.1f} s.")
        self.bound_label.setText(
            f"<b>Clue lower bound: {len(self.groups)}</b> — {len(self.groups)} pairwise disjoint UAs "
            f"({'maximum' if exact else 'largest found'}; each needs its own clue).")
        self._show_groups()
        self.start_btn.setEnabled(True)

    def _show_groups(self) -> None:
        if self.uas is None or not self.groups_check.isChecked():
            self.view.set_groups([])
            return
        self.view.set_groups([U.mask_to_cells(self.uas.lo[i], self.uas.hi[i]) for i in self.groups])

    def _ua_selected(self) -> None:
        rows = self.table.selectionModel().selectedRows()
        if not rows or self.uas is None:
            self.view.set_ua([])
            return
        i = rows[0].row()
        lo, hi = self.uas.lo[i], self.uas.hi[i]
        cells = U.mask_to_cells(lo, hi)
        sol = np.zeros(81, dtype=np.uint8)
        other = {}
        full_hi = np.uint64((1 << 17) - 1)
        if U.other_solution_kernel(self.grid, ~lo, ~hi & full_hi, sol):
            other = {int(c): int(sol[c]) for c in cells if sol[c] != self.grid[c]}
        self.view.set_clues(None)
        self.view.set_ua(cells, other)

    # ---------------------------------------------------------------- search
    def start_search(self) -> None:
        if self.uas is None or self.grid is None:
            return
        if self.search_runner is not None and self.search_runner.running:
            return
        force = self.force_edit.text().strip()
        try:
            job = U.UASearchJob("".join(map(str, self.grid)), self.k_spin.value(), force,
                                self.size_spin.value(), self.forward_check.isChecked(), 2, 1)
            job.prepare(self.uas)
        except ValueError as exc:
            return self._error("Cannot start the search", exc)
        self.search_job = job
        n = job.n_batches()
        self.search_runner = make_runner(job, 1, n, settings=self.settings, parent=self)
        self.search_runner.finished.connect(self._search_done)
        self.search_runner.failed.connect(lambda msg: self._error("Search failed", msg))
        self.found.clear()
        self._shown_puzzles = 0
        self.progress.setRange(0, n)
        self.progress.setValue(0)
        self.start_btn.setEnabled(False)
        self.cancel_btn.setEnabled(True)
        self._search_t0 = time.perf_counter()
        self.search_runner.start()
        self.timer.start()

    def _refresh_search(self) -> None:
        r = self.search_runner
        if r is None:
            return
        tot = r.total()
        desc = self.search_job.describe(tot)
        self.progress.setValue(r.batches_done)
        secs = max(r.elapsed, 1e-9)
        self.rate_label.setText(f"{desc['nodes']:,} nodes, {desc['nodes'] / secs:,.0f} nodes/s; "
                                f"{desc['leaves_checked']:,} hitting sets checked, "
                                f"{desc['uas_added']:,} UAs found on the way; {secs:.1f} s")
        puzzles = desc["puzzles"]
        if len(puzzles) != self._shown_puzzles:
            current = self.found.currentRow()
            self.found.clear()
            for p in puzzles:
                self.found.addItem(f"{81 - p.count('.'):2d}  {p}")
            self._shown_puzzles = len(puzzles)
            if 0 <= current < self.found.count():
                self.found.setCurrentRow(current)
            self.export_btn.setEnabled(bool(puzzles))

    def _search_done(self, cancelled: bool) -> None:
        self._refresh_search()
        self.timer.stop()
        self.start_btn.setEnabled(self.uas is not None)
        self.cancel_btn.setEnabled(False)
        n = self.found.count()
        status = "cancelled" if cancelled else "complete"
        self.rate_label.setText(self.rate_label.text() + f" — {status}: {n} puzzle{'s' * (n != 1)}")

    def _puzzle_selected(self) -> None:
        item = self.found.currentItem()
        if item is None or self.grid is None:
            return
        text = item.text().split()[-1]
        self.table.clearSelection()
        self.view.set_ua([])
        self.view.set_clues([i for i, ch in enumerate(text) if ch != "."])

    def cancel(self) -> None:
        for r in (self.harvest_runner, self.search_runner):
            if r is not None and r.running:
                r.cancel()

    def puzzles(self) -> list[str]:
        return [self.found.item(i).text().split()[-1] for i in range(self.found.count())]

    def export_file(self) -> None:
        if not self.puzzles():
            return self._error("Nothing to export", "the search has not found puzzles yet")
        path, _ = QFileDialog.getSaveFileName(self, "Export puzzles", "ua_puzzles.txt", "Text (*.txt)")
        if path:
            self.save_puzzles(path)

    def save_puzzles(self, path) -> None:
        try:
            Path(path).write_text("".join(p + "\n" for p in self.puzzles()), encoding="utf-8")
        except OSError as exc:
            self._error(f"Cannot write {path}", exc)

    def shutdown(self) -> None:
        self.cancel()
        for r in (self.harvest_runner, self.search_runner):
            if r is not None:
                r.wait()
        self.timer.stop()
