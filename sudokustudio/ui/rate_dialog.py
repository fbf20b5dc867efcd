"""Tools → Rate puzzles…: Berthier's W-rating of a file or a collection.

A view over ``models.rating.RatingModel``: the rating runs in batches
(progress, Stop), every puzzle's rating appears as it comes, and the W
distribution, raw and corrected with seed 002's cf(n) (meaningful for a
controlled-bias sample), is drawn beside seed 002 §3.3; CSV export.
Path… (or a double-click) shows the whips behind one rating.  Files are
read, and paths found, off the UI thread.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QModelIndex, Qt, QTimer
from PySide6.QtGui import QFontDatabase, QKeySequence
from PySide6.QtWidgets import (QAbstractItemView, QDialog, QDialogButtonBox, QFileDialog, QHBoxLayout,
                               QHeaderView, QLabel, QMessageBox, QPlainTextEdit, QProgressBar, QPushButton,
                               QSpinBox, QSplitter, QTableView, QTableWidget, QVBoxLayout,
                               QWidget)

from sudokustudio.jobs.qt import kernel_gate, window_executor
from sudokustudio.models.rating import RatingModel
from sudokustudio.sudoku.grid import format_puzzles
from sudokustudio.sudoku.rating import DEFAULT_CAP, MAX_CAP, W_INVALID, rating_label
from sudokustudio.ui.background import BackgroundCalls, show_error
from sudokustudio.ui.kernels import when_kernels_ready
from sudokustudio.ui.style import SERIES
from sudokustudio.ui.widgets.steady_plot import SteadyRange, cache_axes
from sudokustudio.ui.widgets.table_fill import fill_table
from sudokustudio.ui.widgets.table_model import ALIGN, DISPLAY, LEFT, RIGHT, HeadedTableModel


class _ResultsModel(HeadedTableModel):
    """line, clues, W, candidates after BRT, puzzle (rows appear as batches arrive).

    ``data`` is called for every visible cell and role at each repaint (Qt's default
    multiData asks each role in turn): it answers from plain lists, with int roles."""

    HEADERS = ["line", "clues", "W", "cands after BRT", "puzzle"]

    def __init__(self, parent=None):
        super().__init__(parent)
        self.lines: list[int] = []
        self.puzzles = np.zeros((0, 81), np.uint8)
        self.ratings = np.zeros(0, np.int16)
        self.cands = np.zeros(0, np.int16)
        self.cap = DEFAULT_CAP
        self._rows: list[tuple[str, str, str, str, str]] = []   # the texts of the rows shown

    def reset(self, lines, puzzles, cap):
        self.beginResetModel()
        self.lines, self.puzzles, self.cap = list(lines), puzzles, cap
        self.ratings = np.zeros(0, np.int16)
        self.cands = np.zeros(0, np.int16)
        self._rows = []
        self.endResetModel()

    def set_results(self, ratings, cands):
        old = len(self.ratings)
        if len(ratings) == old:
            return
        new = range(old, len(ratings))
        clues = np.count_nonzero(self.puzzles[old:len(ratings)], axis=1)
        puzzles = format_puzzles(self.puzzles[old:len(ratings)])
        texts = [(str(self.lines[r]), str(int(clues[r - old])), rating_label(ratings[r], self.cap),
                  str(int(cands[r])), puzzles[r - old]) for r in new]
        self.beginInsertRows(QModelIndex(), old, len(ratings) - 1)
        self.ratings, self.cands = ratings, cands
        self._rows.extend(texts)
        self.endInsertRows()

    def rowCount(self, parent=QModelIndex()):
        return 0 if parent.isValid() else len(self._rows)

    def data(self, index, role=Qt.DisplayRole):
        role = int(role)
        if role == DISPLAY:
            return self._rows[index.row()][index.column()]
        if role == ALIGN:
            return LEFT if index.column() == 4 else RIGHT
        return None

    def column_widths(self, metrics) -> list[int]:
        """Widths that fit each column's widest possible text (the font is fixed-width), so
        the header never measures rows as they arrive."""
        longest_line = max((len(str(x)) for x in self.lines[-1:] + self.lines[:1]), default=1)
        samples = ["9" * max(4, longest_line), "99", "W0 (BRT)", "999", "9" * 81]
        return self.widths_for(metrics, samples)


#: the W distribution (table, bars, summary) is redrawn every this many refreshes while a run
#: goes (a plot repaint costs ~10 ms of the UI thread), and once more when it ends
DISTRIBUTION_EVERY = 5


class RateDialog(QDialog):
    """Rate a puzzle file (Open…) or a collection handed over with ``set_puzzles``."""

    def __init__(self, settings=None, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Rate puzzles — Berthier's W-rating (whips)")
        self.settings = settings
        self.rating = RatingModel(lambda: window_executor(self.settings), kernel_gate())
        self.calls = BackgroundCalls(self, "Rate puzzles")
        self.path_dialog: QDialog | None = None
        self._build_controls()
        self._build_results()
        self.timer = QTimer(self)
        self.timer.setInterval(100)  # 10 Hz redraw of the table, never per batch
        self._ticks = 0
        self.timer.timeout.connect(self.refresh)
        self.resize(1280, 800)
        self._update_buttons()
        self._draw_distribution()

    # ------------------------------------------------------------ layout
    def _build_controls(self) -> None:
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
        self.start_button.clicked.connect(self.start)
        self.cancel_button = QPushButton("&Stop")
        self.cancel_button.setShortcut(QKeySequence("Esc"))
        self.cancel_button.setMinimumWidth(self.cancel_button.fontMetrics().horizontalAdvance("Stopping…") + 24)
        self.cancel_button.setToolTip("Stop after the batches in flight; the ratings so far stay (Esc)")
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
        self.progress = QProgressBar()
        self.progress.setFormat("%v / %m puzzles")
        self.status = QLabel("")

    def _build_results(self) -> None:
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
        # widths set from the font (_fit_columns), never measured from the rows: a header that
        # resizes to its contents measures rows again at every batch of results
        self.view.horizontalHeader().setSectionResizeMode(QHeaderView.Interactive)
        self.view.horizontalHeader().setStretchLastSection(True)
        self.view.setFont(QFontDatabase.systemFont(QFontDatabase.FixedFont))
        self.view.setToolTip("W0 = BRT (singles) alone; Wn = whips of length <= n needed. "
                             "Double-click a row for its resolution path.")
        self.view.doubleClicked.connect(lambda index: self.explain_row(index.row()))
        self.dist_table = QTableWidget(0, 6)
        self.dist_table.setHorizontalHeaderLabels(
            ["W", "count", "raw %", "real % (cf)", "seed 002\nraw %", "seed 002\nreal %"])
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
        self._x_range = None
        cache_axes(self.plot)
        # room above the bars for the legend; the axis moves only when the bars leave it
        self._y_range = SteadyRange(self.plot, x=False, y={"grow": 0.35, "margin": 0.0})
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
        split.setSizes([620, 660])
        lay = QVBoxLayout(self)
        lay.addLayout(top)
        lay.addLayout(prog)
        lay.addWidget(split, 1)

    # ------------------------------------------------------------ input
    @property
    def puzzles(self) -> np.ndarray:
        return self.rating.puzzles

    @property
    def lines(self) -> list[int]:
        return self.rating.lines

    @property
    def ratings(self) -> np.ndarray:
        return self.model.ratings

    def choose_file(self) -> None:
        folder = str(self.settings.value("folders/rate", str(Path.home()))) if self.settings else str(Path.home())
        path, _ = QFileDialog.getOpenFileName(self, "Puzzles to rate", folder,
                                              "Puzzle files (*.txt *.sdm *.sdk *.gz);;All files (*)")
        if path:
            self.open_file(path)

    def open_file(self, path: str) -> None:
        """Read a puzzle file in the background, then load it."""
        if self.settings is not None:
            self.settings.setValue("folders/rate", str(Path(path).parent))
        self.status.setText(f"Reading {Path(path).name}…")
        self.calls.submit("read", lambda: self.rating.read_file(path), on_done=lambda coll: self._read(path, coll),
                          on_error=lambda exc: (self.status.setText(""), show_error(self, "Cannot read puzzles",
                                                                                    exc)))

    def _read(self, path: str, coll) -> None:
        note = ""
        if coll.issues:
            first = coll.issues[0]
            note = f" ({len(coll.issues)} unreadable lines skipped; first: {first})"
            QMessageBox.information(self, "Some lines skipped",
                                    f"{path}: {len(coll.issues)} lines could not be read and are skipped."
                                    f"\nFirst: {first}")
        self.set_puzzles(coll.puzzles, Path(path).name + note, coll.lines)

    def choose_collection(self) -> None:
        from PySide6.QtWidgets import QInputDialog

        from sudokustudio.jobs.collections import CollectionError, CollectionStore

        try:
            store = CollectionStore()
            items = store.list()
        except (CollectionError, OSError, RuntimeError) as exc:
            show_error(self, "Cannot open the collections", exc)
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
        self.calls.submit("read", lambda: store.load(item["id"]),
                          on_done=lambda coll: self.set_puzzles(coll.puzzles, f"{coll.name} ({coll.generator})",
                                                                weights=coll.weights),
                          on_error=lambda exc: show_error(self, "Cannot load the collection", exc))

    def set_puzzles(self, puzzles, label: str = "collection", lines=None, weights=None) -> None:
        """Load puzzles (uint8[N, 81]) to rate; ``lines`` default to 1..N; ``weights`` (e.g. 1/Pr of
        the weighted sampler) for the "real" column, else seed 002's cf(n)."""
        self.rating.set_puzzles(puzzles, label, lines, weights)
        self.source_label.setText(f"{label}: {len(self.puzzles)} puzzles")
        self.model.reset(self.lines, self.puzzles, self.cap_spin.value())
        self._fit_columns()
        self.progress.setRange(0, max(1, len(self.puzzles)))
        self.progress.setValue(0)
        self.status.setText("")
        self._draw_distribution()
        self._update_buttons()

    # ------------------------------------------------------------ run
    @property
    def runner(self):
        """The rating run (None before the first Rate)."""
        return self.rating.run

    def start(self) -> None:
        try:
            self.rating.start(self.cap_spin.value())
        except ValueError as exc:
            QMessageBox.information(self, "Nothing to rate", str(exc))
            return
        self.model.reset(self.lines, self.puzzles, self.rating.cap)
        self._ticks = 0
        self.timer.start()
        self._update_buttons()

    def cancel(self) -> None:
        self.rating.stop()
        self._update_buttons()

    def _fit_columns(self) -> None:
        for col, width in enumerate(self.model.column_widths(self.view.fontMetrics())):
            self.view.setColumnWidth(col, width)

    def refresh(self) -> None:
        run = self.rating.run
        if run is None:
            return
        # read before the results: a run that ends between the two reads is drawn once more on
        # the next tick (read after them, the timer stopped with a batch's ratings missing)
        finished = run.finished
        ratings, cands = self.rating.results()
        self.model.set_results(ratings, cands)
        self.progress.setValue(len(ratings))
        self.status.setText(self.rating.progress_text())
        self._ticks += 1
        if finished or self._ticks % DISTRIBUTION_EVERY == 0:
            self._draw_distribution()
        for err in run.errors:
            if err not in getattr(self, "_shown_errors", ()):
                self._shown_errors = {*getattr(self, "_shown_errors", ()), err}
                show_error(self, "Rating failed", err)
        if finished:
            self.timer.stop()
        self._update_buttons()

    # ------------------------------------------------------------ display
    def _draw_distribution(self) -> None:
        d = self.rating.distribution()
        self.dist_table.horizontalHeaderItem(3).setText(d.real_label)
        fill_table(self.dist_table, d.rows)
        width = 0.2
        for k, (bar, ys) in enumerate(zip(self.bars, d.heights)):
            bar.setOpts(x=d.x + (k - 1.5) * width, height=ys, width=width)
        if self._x_range != len(d.x):   # a new range re-lays the axis out: only when it changes
            self._x_range = len(d.x)
            self.plot.setXRange(-0.6, len(d.x) - 0.4, padding=0)
        self._y_range.fit(y=(0.0, max(float(np.max(h)) for h in d.heights)))
        self.summary.setText(d.summary)

    def _update_buttons(self) -> None:
        running = self.rating.live
        stopping = running and self.rating.run.status.value == "stopping"
        self.start_button.setEnabled(not running and len(self.puzzles) > 0)
        self.cancel_button.setEnabled(running and not stopping)
        self.cancel_button.setText("Stopping…" if stopping else "&Stop")
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
            self.rating.export_csv(path)
        except OSError as exc:
            show_error(self, "Cannot export", exc)
            return False
        return True

    # ------------------------------------------------------------ resolution path
    def explain_selected(self) -> None:
        rows = self.view.selectionModel().selectedRows()
        self.explain_row(rows[0].row() if rows else 0)

    def explain_row(self, row: int) -> None:
        """Find the whips behind puzzle ``row``'s rating in the background, then show them."""
        if not 0 <= row < len(self.puzzles):
            return
        line, text, cap, find = self.rating.path_request(row, self.cap_spin.value())
        self.status.setText(f"Finding the whips of line {line}…")
        self.calls.drop("path")  # only the newest request is shown
        self.calls.submit("path", find, on_done=lambda path: self._show_path((line, text, cap), path),
                          on_error=lambda exc: show_error(self, "Cannot find the path", exc))

    def _show_path(self, request: tuple, path) -> None:
        line, text, cap = request
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

    # ------------------------------------------------------------ closing
    def shutdown(self, deadline: float = 1.5) -> None:
        self.rating.stop()
        if self.rating.run is not None:
            self.rating.run.wait(deadline)
        self.calls.drop()
        self.timer.stop()

    def closeEvent(self, event) -> None:
        self.shutdown()
        super().closeEvent(event)

    def reject(self) -> None:  # Esc stops a run first; a second Esc closes
        if self.rating.live:
            self.cancel()
            return
        self.shutdown()
        super().reject()


