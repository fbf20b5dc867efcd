"""Tools → Rate puzzles…: Berthier's W-rating of a file or a collection.

Runs ``sudoku.rating.RatingJob`` in batches (progress, Cancel), shows every
puzzle's rating and the W distribution, raw and corrected with seed 002's
cf(n) (meaningful for a controlled-bias sample), beside seed 002 §3.3, and
exports a CSV.  Path… (or a double-click) shows the whips behind one rating.
"""
from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QModelIndex, Qt, QThreadPool, QTimer, Slot
from PySide6.QtGui import QFontDatabase, QKeySequence
from PySide6.QtWidgets import (QAbstractItemView, QDialog, QDialogButtonBox, QFileDialog, QHBoxLayout,
                               QHeaderView, QLabel, QMessageBox, QPlainTextEdit, QProgressBar, QPushButton,
                               QSpinBox, QSplitter, QTableView, QTableWidget, QTableWidgetItem, QVBoxLayout,
                               QWidget)

from sudokustudio.jobs.qt import CallRelay, CallTask, make_runner
from sudokustudio.sudoku.grid import PuzzleFormatError, format_puzzle, read_puzzles
from sudokustudio.sudoku.rating import (DEFAULT_CAP, MAX_CAP, SEED002_RAW_PERCENT, SEED002_REAL_PERCENT,
                                        W_INVALID, RatingJob, correction_factor, rating_label, w_distribution,
                                        w_rating_path)
from sudokustudio.ui.kernels import when_kernels_ready
from sudokustudio.ui.style import SERIES
from sudokustudio.ui.widgets.table_model import HeadedTableModel


class _ResultsModel(HeadedTableModel):
    """line, clues, W, candidates after BRT, puzzle (rows appear as batches arrive)."""

    HEADERS = ["line", "clues", "W", "cands after BRT", "puzzle"]

    def __init__(self, parent=None):
        super().__init__(parent)
        self.lines: list[int] = []
        self.puzzles = np.zeros((0, 81), np.uint8)
        self.ratings = np.zeros(0, np.int16)
        self.cands = np.zeros(0, np.int16)
        self.cap = DEFAULT_CAP

    def reset(self, lines, puzzles, cap):
        self.beginResetModel()
        self.lines, self.puzzles, self.cap = list(lines), puzzles, cap
        self.ratings = np.zeros(0, np.int16)
        self.cands = np.zeros(0, np.int16)
        self.endResetModel()

    def set_results(self, ratings, cands):
        old = len(self.ratings)
        if len(ratings) == old:
            return
        self.beginInsertRows(QModelIndex(), old, len(ratings) - 1)
        self.ratings, self.cands = ratings, cands
        self.endInsertRows()

    def rowCount(self, parent=QModelIndex()):
        return 0 if parent.isValid() else len(self.ratings)

    def data(self, index, role=Qt.DisplayRole):
        if role not in (Qt.DisplayRole, Qt.TextAlignmentRole):
            return None
        r, c = index.row(), index.column()
        if role == Qt.TextAlignmentRole:
            return int(Qt.AlignLeft | Qt.AlignVCenter) if c == 4 else int(Qt.AlignRight | Qt.AlignVCenter)
        if c == 0:
            return str(self.lines[r])
        if c == 1:
            return str(int(np.count_nonzero(self.puzzles[r])))
        if c == 2:
            return rating_label(self.ratings[r], self.cap)
        if c == 3:
            return str(int(self.cands[r]))
        return format_puzzle(self.puzzles[r])


class RateDialog(QDialog):
    """Rate a puzzle file (Open…) or a collection handed over with ``set_puzzles``."""

    def __init__(self, settings=None, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Rate puzzles — Berthier's W-rating (whips)")
        self.settings = settings
        self.runner = None
        self.job: RatingJob | None = None
        self.puzzles = np.zeros((0, 81), np.uint8)
        self.lines: list[int] = []
        self.source = ""
        self.ratings = np.zeros(0, np.int16)
        self.cands = np.zeros(0, np.int16)
        self.weights: np.ndarray | None = None  # sampling weights (weighted sampler); None: cf(n)

        self.open_button = QPushButton("&Open file…")
        self.open_button.setShortcut(QKeySequence.Open)
        self.open_button.setToolTip("Choose a puzzle file (.txt/.sdm one puzzle per line, or .sdk)")
        self.open_button.clicked.connect(self.choose_file)
        self.collection_button = QPushButton("Co&llection…")
        self.collection_button.setToolTip("Rate a stored collection (made in the Generators tab or imported)")
        self.collection_button.clicked.connect(self.choose_collection)
        self.source_label = QLabel("No puzzles loaded")
        self.cap_spin = QSpinBox()
        self.cap_spin.setRange(1, MAX_CAP)
        self.cap_spin.setValue(DEFAULT_CAP)
        self.cap_spin.setPrefix("cap ")
        self.cap_spin.setToolTip("Longest whip tried; puzzles needing longer whips are rated '> cap'")
        self.start_button = QPushButton("&Rate")
        self.start_button.setShortcut(QKeySequence("Ctrl+R"))
        self.start_button.setToolTip("Rate every puzzle (Ctrl+R)")
        self.start_button.clicked.connect(lambda: when_kernels_ready(("rating",), self.start, self, "Rate"))
        self.cancel_button = QPushButton("&Cancel")
        self.cancel_button.setShortcut(QKeySequence("Esc"))
        self.cancel_button.setToolTip("Stop after the batches in flight (Esc)")
        self.cancel_button.clicked.connect(self.cancel)
        self.export_button = QPushButton("&Export CSV…")
        self.export_button.setShortcut(QKeySequence("Ctrl+E"))
        self.export_button.setToolTip("line, puzzle, clues, W, candidates after BRT (Ctrl+E)")
        self.export_button.clicked.connect(self.export_csv)
        self.path_button = QPushButton("&Path…")
        self.path_button.setShortcut(QKeySequence("Ctrl+P"))
        self.path_button.setToolTip("The whip of every elimination behind the selected puzzle's rating, "
                                    "in Berthier's notation (Ctrl+P, or double-click a row)")
        self.path_button.clicked.connect(lambda: when_kernels_ready(("rating",), self.explain_selected, self,
                                                                    "Path"))
        self.path_dialog: QDialog | None = None
        self._path_ticket = 0
        self._path_request = ("", "", DEFAULT_CAP)   # (line, puzzle, cap) of the newest request
        self._path_pool = QThreadPool(self)
        self._path_pool.setMaxThreadCount(1)
        self._path_relay = CallRelay(self)
        self._path_relay.done.connect(self._show_path)
        self._path_relay.failed.connect(self._path_failed)
        self.progress = QProgressBar()
        self.progress.setFormat("%v / %m puzzles")
        self.status = QLabel("")

        top = QHBoxLayout()
        for w in (self.open_button, self.collection_button, self.source_label):
            top.addWidget(w)
        top.addStretch(1)
        for w in (self.cap_spin, self.start_button, self.cancel_button, self.path_button, self.export_button):
            top.addWidget(w)
        prog = QHBoxLayout()
        prog.addWidget(self.progress, 1)
        prog.addWidget(self.status)

        self.model = _ResultsModel(self)
        self.view = QTableView()
        self.view.setModel(self.model)
        self.view.setSelectionBehavior(QAbstractItemView.SelectRows)
        self.view.verticalHeader().setVisible(False)
        self.view.verticalHeader().setDefaultSectionSize(20)
        self.view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeToContents)
        self.view.horizontalHeader().setStretchLastSection(True)
        self.view.setFont(QFontDatabase.systemFont(QFontDatabase.FixedFont))
        self.view.setToolTip("W0 = BRT (singles) alone; Wn = whips of length <= n needed. "
                             "Double-click a row for its resolution path.")
        self.view.doubleClicked.connect(lambda index: self.explain_row(index.row()))

        self.dist_table = QTableWidget(0, 7)
        self.dist_table.setHorizontalHeaderLabels(
            ["W", "count", "raw %", "real % (cf)", "seed 002\nraw %", "seed 002\nreal %", ""])
        self.dist_table.setColumnHidden(6, True)
        self.dist_table.verticalHeader().setVisible(False)
        self.dist_table.verticalHeader().setDefaultSectionSize(20)
        self.dist_table.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.dist_table.horizontalHeader().setSectionResizeMode(QHeaderView.Stretch)
        self.dist_table.setToolTip(
            "raw: this file's W distribution. real: weighted by cf(n) (seed 002 §2.2-2.3, "
            "cf(26)=1), the uniform distribution of minimal puzzles when the file is a "
            "controlled-bias sample. Seed 002 §3.3: 5,926,343 controlled-bias puzzles "
            "(L1_0 = W0).")
        self.plot = pg.PlotWidget(background="w")
        self.plot.setLabel("bottom", "W-rating")
        self.plot.setLabel("left", "% of puzzles")
        self.plot.addLegend(offset=(-10, 10))
        self.plot.showGrid(y=True, alpha=0.3)
        self.plot.setMouseEnabled(x=False, y=False)
        self.bars = []
        for name, colour in (("raw (this file)", SERIES[0]), ("real (cf)", SERIES[1]),
                             ("seed 002 raw", SERIES[5]), ("seed 002 real", SERIES[4])):
            bar = pg.BarGraphItem(x=[0], height=[0], width=0.2, brush=colour, pen=colour)
            self.plot.addItem(bar)
            self.plot.plotItem.legend.addItem(bar, name)
            self.bars.append(bar)
        self.summary = QLabel("")
        self.summary.setWordWrap(True)

        right = QWidget()
        rl = QVBoxLayout(right)
        rl.setContentsMargins(0, 0, 0, 0)
        rl.addWidget(QLabel("<b>W distribution</b> beside seed 002 §3.3"))
        rl.addWidget(self.dist_table, 3)
        rl.addWidget(self.plot, 3)
        rl.addWidget(self.summary)
        split = QSplitter(Qt.Horizontal)
        split.addWidget(self.view)
        split.addWidget(right)
        split.setStretchFactor(0, 1)
        split.setStretchFactor(1, 1)
        split.setSizes([620, 660])

        lay = QVBoxLayout(self)
        lay.addLayout(top)
        lay.addLayout(prog)
        lay.addWidget(split, 1)

        self.timer = QTimer(self)
        self.timer.setInterval(100)  # 10 Hz redraw, never per batch
        self.timer.timeout.connect(self.refresh)
        self.resize(1280, 800)
        self._update_buttons()
        self._draw_distribution()

    # ------------------------------------------------------------ input
    def choose_file(self) -> None:
        folder = str(self.settings.value("folders/rate", str(Path.home()))) if self.settings else str(Path.home())
        path, _ = QFileDialog.getOpenFileName(self, "Puzzles to rate", folder,
                                              "Puzzle files (*.txt *.sdm *.sdk);;All files (*)")
        if path:
            self.open_file(path)

    def open_file(self, path: str) -> bool:
        try:
            coll = read_puzzles(path, check_units=False)
        except (PuzzleFormatError, OSError) as exc:
            QMessageBox.warning(self, "Cannot read puzzles", str(exc))
            return False
        if self.settings is not None:
            self.settings.setValue("folders/rate", str(Path(path).parent))
        note = ""
        if coll.issues:
            first = coll.issues[0]
            note = f" ({len(coll.issues)} unreadable lines skipped; first: {first})"
            QMessageBox.information(self, "Some lines skipped",
                                    f"{path}: {len(coll.issues)} lines could not be read and are skipped."
                                    f"\nFirst: {first}")
        self.set_puzzles(coll.puzzles, Path(path).name + note, coll.lines)
        return True

    def choose_collection(self) -> None:
        from PySide6.QtWidgets import QInputDialog

        from sudokustudio.jobs.collections import CollectionError, CollectionStore

        try:
            store = CollectionStore()
            items = store.list()
        except (CollectionError, OSError, RuntimeError) as exc:
            QMessageBox.warning(self, "Cannot open the collections", str(exc))
            return
        if not items:
            QMessageBox.information(self, "No collection", "No stored collection yet: generate or import one "
                                                           "in the Generators tab, or open a file.")
            return
        names = [f"{c['name']} — {c['generator']}, {c['count']} puzzles (#{c['id']})" for c in items]
        choice, ok = QInputDialog.getItem(self, "Rate a collection", "Collection:", names, 0, False)
        if not ok:
            return
        item = items[names.index(choice)]
        try:
            coll = store.load(item["id"])
        except CollectionError as exc:
            QMessageBox.warning(self, "Cannot load the collection", str(exc))
            return
        self.set_puzzles(coll.puzzles, f"{coll.name} ({coll.generator})", weights=coll.weights)

    def set_puzzles(self, puzzles, label: str = "collection", lines=None, weights=None) -> None:
        """Load a collection (uint8[N, 81]) to rate; ``lines`` default to 1..N.

        ``weights``: the sampler's weights (e.g. 1/Pr of the weighted sampler)
        for the "real" column; without them (or all equal) the "real" column
        uses seed 002's cf(n), which is right for a controlled-bias sample.
        """
        self.cancel()
        w = None if weights is None else np.asarray(weights, dtype=np.float64)
        self.weights = None if w is None or np.all(w == w[:1]) else w
        self.puzzles = np.ascontiguousarray(puzzles, dtype=np.uint8).reshape(-1, 81)
        self.lines = list(lines) if lines is not None else list(range(1, len(self.puzzles) + 1))
        self.source = label
        self.source_label.setText(f"{label}: {len(self.puzzles)} puzzles")
        self.ratings = np.zeros(0, np.int16)
        self.cands = np.zeros(0, np.int16)
        self.model.reset(self.lines, self.puzzles, self.cap_spin.value())
        self.progress.setRange(0, max(1, len(self.puzzles)))
        self.progress.setValue(0)
        self.status.setText("")
        self._draw_distribution()
        self._update_buttons()

    # ------------------------------------------------------------ run
    def start(self) -> None:
        if len(self.puzzles) == 0:
            QMessageBox.information(self, "Nothing to rate", "Open a puzzle file first.")
            return
        if self.runner is not None and self.runner.running:
            return
        cap = self.cap_spin.value()
        self.job = RatingJob(puzzles=[format_puzzle(p) for p in self.puzzles], cap=cap,
                             chunk=max(8, min(24, len(self.puzzles) // 8 or 8)))
        self.model.reset(self.lines, self.puzzles, cap)
        self.ratings = np.zeros(0, np.int16)
        self.cands = np.zeros(0, np.int16)
        self.runner = make_runner(self.job, 0, self.job.n_batches(), settings=self.settings, parent=self)
        self.runner.failed.connect(self._on_failed)
        self.runner.finished.connect(self._on_finished)
        self.runner.start()
        self.timer.start()
        self._update_buttons()

    def cancel(self) -> None:
        if self.runner is not None and self.runner.running:
            self.runner.cancel()
            self.status.setText("cancelling…")

    def _on_failed(self, message: str) -> None:
        QMessageBox.warning(self, "Rating failed", message)

    def _on_finished(self, cancelled: bool) -> None:
        self.timer.stop()
        self.refresh()
        done = len(self.ratings)
        self.status.setText(("cancelled: " if cancelled else "done: ") + self.status.text())
        if cancelled and done < len(self.puzzles):
            self.summary.setText(self.summary.text() + f"<br>Cancelled after {done} puzzles.")
        self._update_buttons()

    def refresh(self) -> None:
        if self.runner is None or self.job is None:
            return
        ratings, cands = self.job.arrays(self.runner.total())
        self.ratings, self.cands = ratings, cands
        self.model.set_results(ratings, cands)
        self.progress.setValue(len(ratings))
        secs = max(self.runner.elapsed, 1e-9)
        self.status.setText(f"{len(ratings)} rated, {len(ratings) / secs:.0f} puzzles/s, {secs:.1f} s")
        self._draw_distribution()

    # ------------------------------------------------------------ display
    def _draw_distribution(self) -> None:
        cap = self.model.cap
        ratings = self.ratings.astype(np.int64)
        clues = np.count_nonzero(self.puzzles[:len(ratings)], axis=1)
        weights = None if self.weights is None else self.weights[:len(ratings)]
        dist = w_distribution(ratings, clues, cap, weights) if len(ratings) else None
        self.dist_table.horizontalHeaderItem(3).setText("real % (cf)" if weights is None else "real % (weights)")
        top = int(ratings[ratings >= 0].max()) if len(ratings) and (ratings >= 0).any() else -1
        n_rows = max(top + 1, 11)
        n_rows = min(n_rows, cap + 2)
        seed_rows = max(n_rows, 0)
        self.dist_table.setRowCount(seed_rows)
        for w in range(seed_rows):
            label = ("W0 (L1_0)" if w == 0 else f"W{w}") if w <= cap else f"> {cap}"
            cells = [label, "", "", "",
                     _pct(SEED002_RAW_PERCENT[w]) if w < len(SEED002_RAW_PERCENT) and w <= cap else "",
                     _pct(SEED002_REAL_PERCENT[w]) if w < len(SEED002_REAL_PERCENT) and w <= cap else ""]
            if dist is not None:
                cells[1] = str(int(dist["counts"][w]))
                cells[2] = _pct(dist["raw"][w])
                cells[3] = _pct(dist["real"][w])
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setTextAlignment(Qt.AlignRight | Qt.AlignVCenter)
                self.dist_table.setItem(w, c, item)
        xs = np.arange(n_rows)
        seed_real = np.array([SEED002_REAL_PERCENT[w] if w < len(SEED002_REAL_PERCENT) else 0 for w in xs])
        seed_raw = np.array([SEED002_RAW_PERCENT[w] if w < len(SEED002_RAW_PERCENT) else 0 for w in xs])
        zero = np.zeros(n_rows)
        heights = [zero if dist is None else dist["raw"][:n_rows],
                   zero if dist is None else dist["real"][:n_rows], seed_raw, seed_real]
        width = 0.2
        for k, (bar, ys) in enumerate(zip(self.bars, heights)):
            bar.setOpts(x=xs + (k - 1.5) * width, height=ys, width=width)
        self.plot.setXRange(-0.6, n_rows - 0.4, padding=0)
        if dist is None:
            self.summary.setText("Seed 002 §3.3 distributions shown; open a file and press Rate.")
            return
        valid = ratings[(ratings >= 0) & (ratings <= cap)]
        ok = (ratings >= 0) & (ratings <= cap)
        w_cf = correction_factor(clues[ok]) if weights is None else weights[ok]
        mean = valid.mean() if len(valid) else float("nan")
        real = (valid * w_cf).sum() / w_cf.sum() if len(valid) else float("nan")
        n_inv = int((ratings < 0).sum())
        n_above = int((ratings > cap).sum())
        self.summary.setText(
            f"{len(ratings)} puzzles rated: mean W {mean:.3f} raw, {real:.3f} real "
            f"({'cf-weighted' if weights is None else 'sampler weights'})"
            + (f"; {n_above} above the cap" if n_above else "")
            + (f"; {n_inv} invalid (no or several solutions)" if n_inv else "")
            + (". The 'real' columns assume a controlled-bias sample." if weights is None else
               ". 'real' uses the collection's sampling weights."))

    def _update_buttons(self) -> None:
        running = self.runner is not None and self.runner.running
        self.start_button.setEnabled(not running and len(self.puzzles) > 0)
        self.cancel_button.setEnabled(running)
        self.open_button.setEnabled(not running)
        self.collection_button.setEnabled(not running)
        self.cap_spin.setEnabled(not running)
        self.export_button.setEnabled(len(self.ratings) > 0)
        self.path_button.setEnabled(len(self.ratings) > 0)

    # ------------------------------------------------------------ export
    def export_csv(self, path: str | None = None) -> bool:
        if len(self.ratings) == 0:
            return False
        if not path:
            folder = str(self.settings.value("folders/rate", str(Path.home()))) if self.settings else str(Path.home())
            path, _ = QFileDialog.getSaveFileName(self, "Export ratings", str(Path(folder) / "ratings.csv"),
                                                  "CSV (*.csv)")
            if not path:
                return False
        try:
            with open(path, "w", newline="", encoding="utf-8") as f:
                w = csv.writer(f)
                w.writerow(["line", "puzzle", "clues", "W", "cands_after_BRT"])
                for i in range(len(self.ratings)):
                    w.writerow([self.lines[i], format_puzzle(self.puzzles[i]),
                                int(np.count_nonzero(self.puzzles[i])), int(self.ratings[i]), int(self.cands[i])])
        except OSError as exc:
            QMessageBox.warning(self, "Cannot export", f"{path}: {exc.strerror or exc}")
            return False
        return True

    # ------------------------------------------------------------ resolution path
    def explain_selected(self) -> None:
        rows = self.view.selectionModel().selectedRows()
        self.explain_row(rows[0].row() if rows else 0)

    def explain_row(self, row: int) -> None:
        """Find the whips behind puzzle ``row``'s rating on a pool thread, then show them."""
        if not 0 <= row < len(self.puzzles):
            return
        puzzle, cap = self.puzzles[row].copy(), self.cap_spin.value()
        self._path_ticket += 1
        # kept with the request: the puzzle list may change before the answer comes
        self._path_request = (str(self.lines[row]), format_puzzle(puzzle), cap)
        self.status.setText(f"Finding the whips of line {self.lines[row]}…")
        self._path_pool.start(CallTask(self._path_ticket, lambda: w_rating_path(puzzle, cap), self._path_relay))

    @Slot(int, object)
    def _show_path(self, ticket: int, path) -> None:
        if ticket != self._path_ticket:
            return  # an older request
        line, text, cap = self._path_request
        lines = [f"line {line}: {text}",
                 f"W-rating {rating_label(path.rating, cap)}; {len(path.steps)} whip eliminations, "
                 "shortest whips first, BRT (singles) after each", ""]
        lines += [f"{k:4d}. {step}" for k, step in enumerate(path.steps, 1)]
        if path.rating == W_INVALID:
            lines.append("No unique solution: the W-rating is not defined.")
        elif path.rating > cap:
            lines.append(f"Not solved with whips of length <= {cap}.")
        if self.path_dialog is None:
            self.path_dialog = QDialog(self)
            self.path_dialog.resize(860, 560)
            self.path_text = QPlainTextEdit()
            self.path_text.setReadOnly(True)
            self.path_text.setFont(QFontDatabase.systemFont(QFontDatabase.FixedFont))
            self.path_text.setLineWrapMode(QPlainTextEdit.NoWrap)
            buttons = QDialogButtonBox(QDialogButtonBox.Close)
            buttons.rejected.connect(self.path_dialog.close)
            lay = QVBoxLayout(self.path_dialog)
            lay.addWidget(self.path_text)
            lay.addWidget(buttons)
        self.path_dialog.setWindowTitle(f"Resolution path — line {line} "
                                        f"({rating_label(path.rating, cap)})")
        self.path_text.setPlainText("\n".join(lines))
        self.path_dialog.show()
        self.path_dialog.raise_()
        self.status.setText("")

    @Slot(int, str)
    def _path_failed(self, ticket: int, message: str) -> None:
        if ticket == self._path_ticket:
            QMessageBox.warning(self, "Cannot find the path", message)

    # ------------------------------------------------------------ closing
    def shutdown(self) -> None:
        if self.runner is not None:
            self.runner.cancel()
            self.runner.wait()
        self._path_pool.waitForDone()
        self.timer.stop()

    def closeEvent(self, event) -> None:
        self.shutdown()
        super().closeEvent(event)

    def reject(self) -> None:  # Esc cancels a run first; a second Esc closes
        if self.runner is not None and self.runner.running:
            self.cancel()
            return
        self.shutdown()
        super().reject()


def _pct(x: float) -> str:
    x = float(x)
    if x == 0:
        return "0"
    return f"{x:.2f}" if x >= 0.1 else f"{x:.2g}"
