"""Atlas view (inside the Survo tab): enumerate every uniquely solvable open m×n Survo puzzle,
see the distributions of the minimum swaps from the product setup and of the initial W, seed
001's 4×4 tables beside the computed ones and this size's tables (swaps, W against < k swaps,
solved at once, chi-square range, random start), the progress per partition, the predicted cost
before a run and how good it was after; export the tables as CSV and double-click a puzzle to
play it on the board.

A thin view over ``models.survo_atlas.AtlasRunModel``: the model owns the sizes, the prediction,
the run and the table rows; the view draws them on a timer (4 Hz), never per batch.  A long run
is kept in the app's run store: after a crash or a closed window, Resume carries it on.
(About 690 lines: the layout, the run's life — plan, start, resume, cancel — and the drawing
of three charts and five tables, the charts one per turn of the event loop so that no redraw
holds the UI thread long; the data work is the model's, the bars ``widgets.live_bars``.)"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QColor, QKeySequence, QShortcut
from PySide6.QtWidgets import (QAbstractItemView, QComboBox, QFileDialog, QGroupBox, QHBoxLayout, QHeaderView,
                               QLabel, QMessageBox, QProgressBar, QPushButton, QSplitter, QTableView,
                               QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget)

from sudokustudio.jobs.qt import QtRun, kernel_gate, window_executor
from sudokustudio.jobs.store import RunStore, StoreError
from sudokustudio.models.survo_atlas import SIZES, AtlasRunModel, size_label
from sudokustudio.survo import atlas as A
from sudokustudio.ui import style
from sudokustudio.ui.background import BackgroundCalls, show_error
from sudokustudio.ui.kernels import when_kernels_ready
from sudokustudio.ui.survo_atlas_list import AtlasModel
from sudokustudio.ui.widgets.chart_slot import ChartSlot
from sudokustudio.ui.widgets.live_bars import LiveBars

__all__ = ["SIZES", "AtlasModel", "AtlasView"]
SEED_COLOR = "#999999"
NO_COLOUR = QColor(0, 0, 0, 0)
#: rows (beyond those in view) read to fit the puzzle list's column widths
FIT_ROWS = 50
PENDING_COLOR = "#d8d8d8"


class AtlasView(QWidget):
    """Run the atlas of a size; histograms, seed-001 comparison, puzzle list.

    ``playRequested(SurvoPuzzle)`` is emitted on a double-click; the Survo
    tab connects it to its board.
    """

    title = "Atlas"
    file_filters = "Survo atlas (*.txt);;All files (*)"
    playRequested = Signal(object)
    runOver = Signal(str)   # a run has ended and its final state is shown (done / paused / failed)

    def __init__(self, settings=None, parent=None):
        super().__init__(parent)
        self.settings = settings
        self.runner = None
        try:
            store = RunStore()
        except StoreError:   # runs still go, unsaved (the Estimator tab says why)
            store = None
        self.atlas = AtlasRunModel(store)
        self.job: A.SurvoAtlasJob | None = None
        self.result: A.AtlasResult | None = None
        self._shown_batches = -1
        self._plan_cancelled = False   # Cancel pressed while the plan of a new run was built
        self._stale_charts: list = []  # charts a running refresh has still to draw (``_draw_stale_chart``)
        self.calls = BackgroundCalls(self, "Atlas")
        self._build()
        self._update_file_buttons()
        self.timer = QTimer(self)
        self.timer.setInterval(250)   # redraw at 4 Hz while running, never per batch (a redraw holds the GIL ~40 ms)
        self.timer.timeout.connect(self._refresh)
        self.chart_timer = QTimer(self)   # the charts of a finished run or an opened file, one a turn
        self.chart_timer.setInterval(20)
        self.chart_timer.timeout.connect(self._drain_charts)
        # the puzzle list's columns are fitted on the next turn of the event loop: the fit reads
        # ~70 rows through the model (~9 ms), the rest of a run's last refresh as much again
        self.fit_timer = QTimer(self, singleShot=True, interval=0, timeout=self._fit_columns)
        self._show_seed_tables()
        self._size_changed()

    # ---------------------------------------------------------------- layout
    def _build(self) -> None:
        outer = QVBoxLayout(self)
        outer.addLayout(self._bar())
        self.prediction = QLabel("")
        self.prediction.setWordWrap(True)
        self.prediction.setStyleSheet("color: #0b4a7a;")
        self.prediction.setToolTip("Knuth's random-probe estimate of the enumeration, before the run; "
                                   "after it, how far off it was")
        outer.addWidget(self.prediction)
        self.status = QLabel("Choose a size and press Run.")
        self.status.setWordWrap(True)
        status_row = QHBoxLayout()   # the progress bar beside the status: the button bar stays narrow
        status_row.addWidget(self.status, 1)
        status_row.addWidget(self.resume_btn)   # beside the status that says what a stored run holds
        status_row.addWidget(self.progress)
        outer.addLayout(status_row)

        split = QSplitter(Qt.Vertical)
        outer.addWidget(split, 1)
        top = QWidget()
        tl = QHBoxLayout(top)
        tl.setContentsMargins(0, 0, 0, 0)
        pg.setConfigOptions(antialias=True)
        self.swaps_plot = self._plot("Minimum swaps from the product setup", "swaps")
        self.w_plot = self._plot("Initial W of the product setup", "W")
        self.part_plot = self._plot("Puzzles per partition (grey: pending)", "partition (batch)")
        # each chart behind a line saying what it will show, until its first data is drawn
        self.chart_slots = {plot: ChartSlot(plot, f"{plot.getPlotItem().titleLabel.text}: "
                                                  f"drawn as a run goes or when an atlas is opened")
                            for plot in (self.swaps_plot, self.w_plot, self.part_plot)}
        for slot in self.chart_slots.values():
            tl.addWidget(slot, 1)
        self._add_bars()
        split.addWidget(top)

        bottom = QWidget()
        bl = QHBoxLayout(bottom)
        bl.setContentsMargins(0, 0, 0, 0)
        seed_box = QGroupBox("Seed 001 (open 4×4) beside this run")
        self.seed_box = seed_box   # 4×4 only (_show_seed_box)
        sl = QVBoxLayout(seed_box)
        self.swaps_table = QTableWidget(3, 10)
        self.swaps_table.setVerticalHeaderLabels(["swaps", "seed 001", "computed"])
        self.swaps_table.horizontalHeader().setVisible(False)
        self.swaps_table.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.swaps_table.horizontalHeader().setSectionResizeMode(QHeaderView.Stretch)
        self.swaps_table.verticalHeader().setDefaultSectionSize(22)
        self.swaps_table.setMaximumHeight(3 * 22 + 6)
        sl.addWidget(self.swaps_table)
        self.w_table = QTableWidget(len(A.SEED_W_BINS_4x4) + 1, 5)
        self.w_table.setHorizontalHeaderLabels(["W", "seed freq", "computed", "seed % <6", "computed % <6"])
        self.w_table.verticalHeader().setVisible(False)
        self.w_table.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.w_table.horizontalHeader().setSectionResizeMode(QHeaderView.Stretch)
        self.w_table.verticalHeader().setDefaultSectionSize(21)
        sl.addWidget(self.w_table, 1)
        self.seed_summary = QLabel("")
        self.seed_summary.setWordWrap(True)
        sl.addWidget(self.seed_summary)
        bl.addWidget(seed_box, 1)
        bl.addWidget(self._size_tables_box(), 1)

        list_box = QGroupBox("Puzzles (double-click to play)")
        ll = QVBoxLayout(list_box)
        self.model = AtlasModel(self)
        self.model.sorter = self._sort_off_thread
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(0, Qt.AscendingOrder)
        self.table.setSelectionBehavior(QAbstractItemView.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SingleSelection)
        self.table.selectionModel().selectionChanged.connect(self._update_file_buttons)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(21)
        # widths fitted once per finished run, not on every live refresh, from the rows in
        # view and a few more (Qt's default reads 1000 rows through data(): ~0.5 s of the UI
        # thread when a run ends)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.Interactive)
        self.table.horizontalHeader().setResizeContentsPrecision(FIT_ROWS)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.doubleClicked.connect(self._play_index)
        ll.addWidget(self.table)
        bl.addWidget(list_box, 1)
        split.addWidget(bottom)
        split.setSizes([330, 470])

        QShortcut(QKeySequence("Ctrl+R"), self, activated=self.start)
        QShortcut(QKeySequence(Qt.Key_Escape), self, activated=self.cancel)
        QShortcut(QKeySequence("Ctrl+S"), self, activated=self.export_file)
        QShortcut(QKeySequence(Qt.Key_Return), self.table, activated=self._play_selected)

    def _bar(self) -> QHBoxLayout:
        """Size, Run, Cancel, Save, Export CSV, Play, progress over the partitions."""
        bar = QHBoxLayout()
        bar.addWidget(QLabel("Size:"))
        self.size_box = QComboBox()
        for m, n in SIZES:
            self.size_box.addItem(size_label(m, n), (m, n))
        self.size_box.setCurrentIndex(SIZES.index((3, 4)))
        self.size_box.setToolTip("Rows × columns of the open puzzles to enumerate (S = published count); "
                                 "the predicted cost shows below before a run; 4×4 shows seed 001's tables beside")
        self.size_box.currentIndexChanged.connect(lambda _: self._size_changed())
        bar.addWidget(self.size_box)
        self.run_btn = QPushButton("Run")
        self.run_btn.setToolTip("Enumerate every uniquely solvable open puzzle of this size (Ctrl+R)")
        self.run_btn.clicked.connect(lambda: when_kernels_ready(("survo-atlas",), self.start, self, "Atlas"))
        self.resume_btn = QPushButton("Resume")
        self.resume_btn.setToolTip("Carry on this size's stored run where it stopped (a long run is kept in the "
                                   "run store as it goes, so a crash or a closed window loses only the batches "
                                   "in progress)")
        self.resume_btn.setEnabled(False)
        self.resume_btn.clicked.connect(lambda: when_kernels_ready(("survo-atlas",), self.resume, self, "Atlas"))
        self.cancel_btn = QPushButton("Cancel")
        self.cancel_btn.setToolTip("Stop after the batches in progress (Esc)")
        self.cancel_btn.setEnabled(False)
        self.cancel_btn.clicked.connect(self.cancel)
        self.open_btn = QPushButton("Open…")
        self.open_btn.setToolTip("Show an atlas file written by Save or by 'sudokustudio-cli survo atlas M N "
                                 "--out FILE' (read in the background; nothing is recomputed)")
        self.open_btn.clicked.connect(self.open_dialog)
        self.save_btn = QPushButton("Save…")
        self.save_btn.setToolTip("Write the puzzles, one per line, to a text file (Ctrl+S)")
        self.save_btn.clicked.connect(self.export_file)
        self.csv_btn = QPushButton("Export CSV…")
        self.csv_btn.setToolTip("Write this size's tables (swaps, W, summary) as three CSV files")
        self.csv_btn.clicked.connect(self.export_csv)
        self.play_btn = QPushButton("Play selected")
        self.play_btn.setToolTip("Open the selected puzzle on the board (or double-click it)")
        self.play_btn.clicked.connect(self._play_selected)
        for b in (self.run_btn, self.cancel_btn, self.open_btn, self.save_btn, self.csv_btn, self.play_btn):
            bar.addWidget(b)
        self.progress = QProgressBar()
        self.progress.setFormat("%v / %m partitions")
        self.progress.setToolTip("Batches done (of row-sum vectors; of column-sum prefixes for two rows)")
        self.progress.setFixedWidth(260)
        bar.addStretch(1)
        return bar

    def _size_tables_box(self) -> QGroupBox:
        box = QGroupBox("This size's tables")
        self.size_box_title = box
        v = QVBoxLayout(box)
        self.size_swaps_table = self._table(["swaps", "puzzles", "%", "random start %"])
        self.size_w_table = self._table(["W", "puzzles", "% < k swaps"])
        self.size_summary = self._table(["statistic", "value"])
        for t in (self.size_swaps_table, self.size_w_table, self.size_summary):
            v.addWidget(t, 1)
        return box

    @staticmethod
    def _table(headers: list[str]) -> QTableWidget:
        t = QTableWidget(0, len(headers))
        t.setHorizontalHeaderLabels(headers)
        t.verticalHeader().setVisible(False)
        t.verticalHeader().setDefaultSectionSize(20)
        t.setEditTriggers(QAbstractItemView.NoEditTriggers)
        t.horizontalHeader().setSectionResizeMode(QHeaderView.Stretch)
        return t

    def _plot(self, title: str, xlabel: str) -> pg.PlotWidget:
        w = pg.PlotWidget(background="w")
        w.setTitle(title, color="k", size="10pt")
        w.setLabel("bottom", xlabel)
        w.setLabel("left", "puzzles")
        # a fixed width: fitted to its tick labels, the axis widened after its first paint and as the
        # counts grew, and each widening laid out and painted the chart again (first show 92 -> 38 ms)
        w.getAxis("left").setWidth(66)
        w.showGrid(x=False, y=True, alpha=0.3)
        w.addLegend(offset=(-10, 10))
        w.setMouseEnabled(x=False, y=False)
        return w

    def _add_bars(self) -> None:
        """The charts' bar series, made once and updated in place by each refresh."""
        self.swaps_bars, self.w_bars = LiveBars(self.swaps_plot), LiveBars(self.w_plot)
        self._hist_bars = {}
        for bars, width in ((self.swaps_bars, 0.4), (self.w_bars, 0.8)):
            self._hist_bars[bars] = (bars.add(style.SERIES[0], width, "computed"),
                                     bars.add(SEED_COLOR, width, "seed 001"))
        self.part_bars = LiveBars(self.part_plot)
        self._pending_bars = self.part_bars.add(PENDING_COLOR, 0.9, pen=None)
        self._done_bars = self.part_bars.add(style.SERIES[2], 0.9, pen=None)

    # ---------------------------------------------------------------- runs
    def selected_size(self) -> tuple[int, int]:
        return self.size_box.currentData()

    def start(self) -> None:
        if self.runner is not None and self.runner.live:
            return
        m, n = self.selected_size()
        self.atlas.select(m, n)
        if not self.atlas.runnable:
            QMessageBox.information(self, "Atlas", self.atlas.prediction_text())
            return
        if self.atlas.needs_confirmation():
            ans = QMessageBox.question(self, "Long run", self.atlas.prediction_text() + "\n\nStart anyway?")
            if ans != QMessageBox.Yes:
                return
        stored = self.atlas.stored_run_info()
        if stored is not None and self.atlas.worth_storing():
            ans = QMessageBox.question(self, "Start over?", self.atlas.stored_run_text(stored)
                                       + "\n\nA new run replaces it. Start over?")
            if ans != QMessageBox.Yes:
                return
        if self.calls.busy("plan"):
            return
        # the batch plan takes ~40 ms for 3×6 (more for larger sizes): built off the UI thread, kept
        # by the model, and the run made from it on the UI thread when it is ready
        for b in (self.run_btn, self.resume_btn, self.size_box):
            b.setEnabled(False)
        self.cancel_btn.setEnabled(True)   # Cancel while planning: no run is started
        self._plan_cancelled = False
        self.status.setText(f"Planning the {m}×{n} partitions…")

        def back_to_choosing() -> None:
            self.size_box.setEnabled(True)
            self.cancel_btn.setEnabled(False)
            self._size_changed()

        def planned(_) -> None:
            if self._plan_cancelled:
                back_to_choosing()
                self.status.setText(f"Cancelled before the {m}×{n} run started.")
                self.runOver.emit("cancelled")
                return
            try:
                run = self.atlas.new_run()
            except ValueError as exc:
                QMessageBox.warning(self, "Atlas", str(exc))
                back_to_choosing()
                return
            self._launch(run, f"Enumerating {m}×{n}…")

        def failed(exc: BaseException) -> None:
            show_error(self, "Atlas: plan", exc)
            back_to_choosing()

        self.calls.submit("plan", lambda: self.atlas.build_plan(m, n), on_done=planned, on_error=failed)

    def resume(self) -> None:
        """Read this size's stored run in the background, then carry it on."""
        if (self.runner is not None and self.runner.live) or self.calls.busy("open run"):
            return
        info = self.atlas.stored_run_info()
        if not self.atlas.resumable(info):
            return
        self.run_btn.setEnabled(False)
        self.resume_btn.setEnabled(False)
        self.status.setText(f"Reading stored run #{info.id} ({info.batches:,} partitions)…")

        def failed(exc: BaseException) -> None:
            show_error(self, "Atlas: stored run", exc)
            self._size_changed()

        self.calls.submit("open run", lambda: self.atlas.open_stored(info.id),
                          on_done=lambda opened: self._launch(self.atlas.adopt(*opened),
                                                              f"Resuming {info.spec['m']}×{info.spec['n']}…"),
                          on_error=failed)

    def _launch(self, run, text: str) -> None:
        self.job = self.atlas.job
        self.runner = QtRun(run, self)
        self.runner.batchDone.connect(self.atlas.take_batch)
        self.runner.finished.connect(self._finished)
        self.runner.failed.connect(self._failed)
        self.progress.setRange(0, self.job.n_batches())
        self.progress.setValue(run.batches_done)
        self.result, self._shown_batches = None, -1
        self._update_file_buttons()
        for b in (self.run_btn, self.resume_btn, self.size_box, self.open_btn):
            b.setEnabled(False)
        self.cancel_btn.setEnabled(True)
        self.status.setText(text)
        self.runner.start(window_executor(self.settings), kernel_gate())
        self.timer.start()

    def cancel(self) -> None:
        if self.calls.busy("plan"):
            self._plan_cancelled = True
            self.cancel_btn.setEnabled(False)
            return
        if self.runner is not None and self.runner.live:
            self.runner.stop()
            self.cancel_btn.setEnabled(False)
            self.status.setText("Stopping: waiting for the batches in progress…")

    def shutdown(self, deadline: float = 1.5) -> None:
        if self.runner is not None:
            self.runner.stop()
            self.runner.run.wait(deadline)
        self.timer.stop()
        self.chart_timer.stop()
        self.calls.drop()
        self.calls.wait_idle(int(deadline * 1000))

    def _failed(self, message: str) -> None:
        show_error(self, "Atlas run failed", message)

    def _finished(self, status: str) -> None:
        self.timer.stop()
        self._refresh(final=True)
        self.run_btn.setEnabled(True)
        self.size_box.setEnabled(True)
        self.open_btn.setEnabled(True)
        self.cancel_btn.setEnabled(False)
        self._show_resumable()
        self.runOver.emit(status)

    def _refresh(self, final: bool = False) -> None:
        if self.runner is None:
            return
        snap = self.runner.snapshot(history=False)
        if snap.batches == self._shown_batches and not final:
            self._draw_stale_chart()
            return
        self._shown_batches = snap.batches
        self.progress.setValue(snap.batches)
        complete = snap.batches == self.job.n_batches()
        self.set_result(snap.total, running=not final, elapsed=snap.session_seconds, complete=complete,
                        left=snap.eta, charts=False)
        if final:
            self._draw_charts_in_turn()
        else:
            self._stale_charts = [self._draw_swaps, self._draw_w, self._draw_partitions]   # the next ticks
        if final and complete:
            check = self.atlas.prediction_check_text(snap.total)
            if check:
                self.prediction.setText(self.atlas.prediction_text() + "\n" + check)

    # ---------------------------------------------------------------- prediction
    def _size_changed(self) -> None:
        m, n = self.selected_size()
        self.atlas.select(m, n)
        self._show_seed_box()
        live = self.runner is not None and self.runner.live
        self.run_btn.setEnabled(self.atlas.runnable and not live)
        self.prediction.setText(self.atlas.prediction_text())
        if not live:
            self._show_resumable(status=True)
        # predicted when the view is seen (not for a hidden view: its probes would outlive it)
        if self.isVisible() and self.atlas.wants_prediction() and not self.calls.busy("predict"):
            when_kernels_ready(("survo-atlas",), self._predict, self, "Atlas prediction")

    def _show_resumable(self, status: bool = False) -> None:
        """Resume on for a stored run of the selected size (not while a run goes); with ``status``,
        say what the stored run holds in the status line."""
        info = self.atlas.stored_run_info()
        live = self.runner is not None and self.runner.live
        self.resume_btn.setEnabled(self.atlas.resumable(info) and not live and not self.calls.busy("open run"))
        if status and info is not None:
            self.status.setText(self.atlas.stored_run_text(info))

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self._size_changed()

    def _predict(self) -> None:
        m, n = self.atlas.m, self.atlas.n
        self.calls.submit("predict", lambda: self.atlas.predict(m, n), on_done=lambda _: self._predicted(),
                          on_error=lambda exc: self.prediction.setText(f"S({m},{n}): no prediction ({exc})"))

    def _predicted(self) -> None:
        self.prediction.setText(self.atlas.prediction_text())
        if self.atlas.prediction() is None:   # the size changed while predicting: predict the new one
            self._size_changed()

    def _draw_stale_chart(self) -> None:
        """While a run goes, one chart a tick, after the tick that filled the tables: a chart whose
        range moved draws its axes again (~9 ms; a first draw ~20 ms), and the tables and three
        charts in one tick held the UI thread 50-70 ms in a 3×6 run's first seconds, when every
        refresh moves every range."""
        if self._stale_charts:
            self._stale_charts.pop(0)()

    @property
    def charts_pending(self) -> bool:
        """Charts still to be drawn with the shown result (``_draw_stale_chart``)."""
        return bool(self._stale_charts)

    def _draw_charts_in_turn(self) -> None:
        """Every chart, one per turn of the event loop (a finished run, an opened file)."""
        self._stale_charts = [self._draw_swaps, self._draw_w, self._draw_partitions]
        self.chart_timer.start()

    def _drain_charts(self) -> None:
        self._draw_stale_chart()
        if not self._stale_charts:
            self.chart_timer.stop()

    def _draw_partitions(self) -> None:
        p = self.atlas.partition_progress()
        x = np.arange(len(p.done))
        pend = ~p.done
        top = max(1, int(p.puzzles.max())) if len(p.done) else 1
        LiveBars.set(self._pending_bars, x[pend], np.full(pend.sum(), 0.04 * top), 0.9)
        LiveBars.set(self._done_bars, x[p.done], p.puzzles[p.done], 0.9)
        self.part_bars.fit()
        self.chart_slots[self.part_plot].reveal()

    # ---------------------------------------------------------------- display
    def set_result(self, result: A.AtlasResult, running: bool = False, elapsed: float | None = None,
                   complete: bool = True, left: float | None = None, charts: bool = True) -> None:
        """Show a (partial or complete) atlas; ``left``: the run's time left, while it runs; ``charts``
        False leaves the histograms to the caller (``_refresh`` draws them in turn)."""
        self.result = result
        self.model.set_result(result)
        self._update_file_buttons()
        if not running:
            self.fit_timer.start()
        if charts:
            self._draw_swaps()
            self._draw_w()
        self._show_seed_tables(result if (result.m, result.n) == (4, 4) else None, complete)
        self._show_size_tables(result)
        progress = self.atlas.partition_progress() if running else None
        self.status.setText(self.atlas.status_text(result, running, complete, elapsed, progress, left))

    def _fit_columns(self) -> None:
        """Fit the puzzle list's columns to the rows in view and a few more (FIT_ROWS)."""
        if self.result is None:
            return
        self.table.resizeColumnsToContents()
        # the "#" column is fitted to the first rows only: make room for the largest number a sort brings up
        wide = self.table.fontMetrics().horizontalAdvance(f"{max(self.result.count, 1)}0")
        self.table.setColumnWidth(0, max(self.table.columnWidth(0), wide))

    def _show_size_tables(self, result: A.AtlasResult) -> None:
        t = self.atlas.tables(result)
        self.size_box_title.setTitle(f"{result.m}×{result.n}: swaps from the product setup, W against < {t.k} "
                                     f"swaps, summary")
        self.size_w_table.setHorizontalHeaderLabels(["W", "puzzles", f"% < {t.k} swaps"])
        for table, rows in ((self.size_swaps_table, self.atlas.swaps_rows(t)),
                            (self.size_w_table, self.atlas.w_rows(t)),
                            (self.size_summary, [list(r) for r in self.atlas.summary_rows(t)])):
            table.setRowCount(len(rows))
            for i, row in enumerate(rows):
                for j, text in enumerate(row):
                    self._cell(table, i, j, text)

    def _draw_swaps(self) -> None:
        self._draw_histogram(self.swaps_bars, self.result.swaps_hist(), SEED_SWAPS_XY)

    def _draw_w(self) -> None:
        self._draw_histogram(self.w_bars, self.result.w_hist(), SEED_W_XY)

    def _draw_histogram(self, bars: LiveBars, hist, seed_bins) -> None:
        """One of the result's histograms (carried by the merges: no pass over a growing total's
        records), beside seed 001's for 4×4."""
        result = self.result
        seed = (result.m, result.n) == (4, 4)
        counts = np.array(hist, np.int64)
        computed, seed_item = self._hist_bars[bars]
        width = computed.opts["width"]   # set once by _add_bars
        bars.legend(seed)   # legend rows only while the seed bars stand beside the computed ones
        shift = width / 2 if seed else 0.0
        if seed and bars is self.w_bars and counts.sum():
            # seed 001 lumps W = 0..4 in one bin: draw the computed ones the same way (at 2)
            counts = np.concatenate([[0, 0, counts[:5].sum(), 0, 0], counts[5:]])
        x = np.nonzero(counts)[0]
        LiveBars.set(computed, x - shift, counts[x], width)
        sx, sy = seed_bins
        LiveBars.set(seed_item, np.array(sx) + shift if seed else np.zeros(0), np.asarray(sy), width)
        bars.fit()
        self.chart_slots[bars.plot].reveal()

    def _show_seed_box(self) -> None:
        """Seed 001's tables only beside 4×4 (selected or shown): other sizes have none to compare."""
        shown = self.result is not None and (self.result.m, self.result.n) == (4, 4)
        self.seed_box.setVisible(shown or self.selected_size() == (4, 4))

    def _show_seed_tables(self, result: A.AtlasResult | None = None, complete: bool = True) -> None:
        seed = self.atlas.seed_comparison(result, complete)
        self._show_seed_box()
        for table, cells in ((self.swaps_table, seed.swaps_cells), (self.w_table, seed.w_cells)):
            for row, col, text, ok in cells:
                self._cell(table, row, col, text, ok)
        self.seed_summary.setText(seed.summary)

    @staticmethod
    def _cell(table: QTableWidget, row: int, col: int, text: str, ok: bool | None = None) -> None:
        """Show ``text`` (and its agreement colour) in a cell; an unchanged cell is not touched (a
        live refresh rewrites a few hundred cells, most of them as they were: each write is a
        model signal and a repaint of its cell)."""
        item = table.item(row, col)
        if item is None:
            item = QTableWidgetItem()
            item.setTextAlignment(Qt.AlignCenter)
            table.setItem(row, col, item)
        if item.text() != text:
            item.setText(text)
        colour = NO_COLOUR if ok is None else style.OK_GREEN if ok else style.POSITIVE
        if item.background().color() != colour:
            item.setBackground(colour)

    def _sort_off_thread(self, fn, on_done, on_error) -> None:
        self.calls.submit("sort", fn, on_done=on_done, on_error=on_error)

    # ---------------------------------------------------------------- play, files
    def puzzle_at(self, row: int):
        """The SurvoPuzzle of atlas record ``row`` (row and column sums as in the atlas)."""
        from sudokustudio.survo.puzzle import SurvoPuzzle

        r = self.result.row_sums()[row]
        c = self.result.col_sums()[row]
        return SurvoPuzzle(r, c, name=f"atlas {self.result.m}x{self.result.n} #{row + 1}")

    def _play_index(self, index) -> None:
        if not index.isValid() or self.result is None:
            return
        self.playRequested.emit(self.puzzle_at(self.model.record_index(index.row())))

    def _update_file_buttons(self, *_) -> None:
        """Save and Export CSV greyed until an atlas holds puzzles, Play until one is selected."""
        held = self.result is not None and self.result.count > 0
        self.save_btn.setEnabled(held)
        self.csv_btn.setEnabled(held)
        self.play_btn.setEnabled(held and bool(self.table.selectionModel().selectedRows()))

    def _play_selected(self) -> None:
        rows = self.table.selectionModel().selectedRows()
        if not rows:
            QMessageBox.information(self, "Atlas", "Select a puzzle in the list first.")
            return
        self._play_index(rows[0])

    def export_file(self, path: str | None = None) -> None:
        if self.result is None or self.result.count == 0:
            QMessageBox.information(self, "Atlas", "Nothing to save yet: run an atlas first.")
            return
        if not path:
            path, _ = QFileDialog.getSaveFileName(self, "Save atlas",
                                                  f"survo_atlas_{self.result.m}x{self.result.n}.txt",
                                                  self.file_filters)
            if not path:
                return
        res = self.result   # written off the UI thread: one formatted line per puzzle (843k for 2×10)
        self.calls.submit("save", lambda: A.write_atlas(path, res), on_done=lambda _: None,
                          on_error=lambda exc: QMessageBox.critical(self, "Save atlas", f"Cannot write {path}: {exc}"))

    def export_csv(self, prefix: str | None = None) -> list:
        """Write this size's tables as PREFIX_swaps.csv, PREFIX_w.csv and PREFIX_summary.csv."""
        if self.result is None or self.result.count == 0:
            QMessageBox.information(self, "Atlas", "No tables yet: run an atlas first.")
            return []
        if not prefix:
            path, _ = QFileDialog.getSaveFileName(
                self, "Export the tables as CSV (three files: _swaps, _w, _summary)",
                f"survo_atlas_{self.result.m}x{self.result.n}.csv", "CSV (*.csv)")
            if not path:
                return []
            prefix = path[:-4] if path.lower().endswith(".csv") else path
        try:
            return self.atlas.export_csv(prefix, self.result)
        except OSError as exc:
            QMessageBox.critical(self, "Export CSV", f"Cannot write {prefix}_*.csv: {exc}")
            return []

    def open_file(self, path: str) -> bool:
        """Show an atlas written by ``survo atlas --out`` or Save (no recomputation).  The file
        is read and checked off the UI thread (S(2,10) has 843,476 lines); a bad file is
        named with its first bad line and leaves the view as it was.  False when a run is live."""
        if self.runner is not None and self.runner.live:
            QMessageBox.information(self, "Open atlas", "Stop the running enumeration first.")
            return False
        shown = self.status.text()
        self.status.setText(f"Reading {Path(path).name}…")

        def read():
            res = A.read_atlas(path)
            return res, self.atlas.partitions_of(res)

        def failed(exc: BaseException) -> None:
            self.status.setText(shown)
            QMessageBox.critical(self, "Open atlas", str(exc))

        self.calls.drop("open")   # a file opened before and still being read is not shown
        self.calls.submit("open", read, on_done=self._opened, on_error=failed)
        return True

    def open_dialog(self) -> None:
        start = str(self.settings.value("folders/atlas", str(Path.home()))) if self.settings is not None else ""
        path, _ = QFileDialog.getOpenFileName(self, "Open atlas", start, self.file_filters)
        if path:
            if self.settings is not None:
                self.settings.setValue("folders/atlas", str(Path(path).parent))
            self.open_file(path)

    def _opened(self, loaded) -> None:
        res, partitions = loaded
        if self.runner is not None and self.runner.live:   # a run started while the file was read
            return
        if (res.m, res.n) in SIZES:
            self.size_box.setCurrentIndex(SIZES.index((res.m, res.n)))
        self.atlas.take_result(res, partitions)
        self.progress.setRange(0, len(partitions[0]))
        self.progress.setValue(len(partitions[0]))
        self.set_result(res, complete=True, charts=False)
        self._draw_charts_in_turn()


SEED_SWAPS_XY = (list(range(10)), A.SEED_SWAPS_4x4)
# seed 001 lumps W = 0, 2, 4 in one bin; drawn at W = 2
SEED_W_XY = ([2] + [int(lab) for lab, _, _ in A.SEED_W_BINS_4x4[1:]], [k for _, k, _ in A.SEED_W_BINS_4x4])
