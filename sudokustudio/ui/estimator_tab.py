"""Live estimator tab: count Sudoku grids and minimal puzzles by Monte Carlo.

A view over ``models.estimator.EstimatorModel``: it collects the parameters,
asks the model to start, stop, resume, open or export runs, and draws what
the model gives on a timer (5 Hz): the running estimate with a ±2σ band,
the relative error against compute time (log–log, 1/√t guide), and for
minimal puzzles a per-c table and a log-scale bar plot beside the published
values.  The left panel follows the selected run (else the live one).
Opening a stored run replays its batches off the UI thread.
"""
from __future__ import annotations

import random

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QColor, QFont, QKeySequence, QShortcut
from PySide6.QtWidgets import (QComboBox, QDoubleSpinBox, QFileDialog, QFormLayout, QGroupBox, QHBoxLayout,
                               QHeaderView, QLabel, QListWidget, QListWidgetItem, QMessageBox, QProgressBar,
                               QPushButton, QScrollArea, QSizePolicy, QSpinBox, QSplitter, QStackedWidget,
                               QTableWidget, QVBoxLayout, QWidget)

from sudokustudio.core import limits
from sudokustudio.jobs.qt import window_executor
from sudokustudio.jobs.store import RunStore, StoreError
from sudokustudio.models.estimator import BEST, GRIDS, MINIMALS, TOTAL, EstimatorModel, EstimatorParams, RunView
from sudokustudio.sudoku import estimate as E
from sudokustudio.ui.background import BackgroundCalls, show_error
from sudokustudio.ui.widgets.est_plots import ConvergencePlot, MinimalsBarPlot, RelErrPlot
from sudokustudio.ui.widgets.steady_plot import StagedUpdates, set_axis_label, set_title
from sudokustudio.ui.widgets.table_fill import fill_table


class EstimatorTab(QWidget):
    title = "Estimator"
    #: kernel groups the window loads in the background once the tab has been shown a moment
    kernel_groups = ("grid-estimators", "estimators")
    file_filters = "CSV (*.csv);;JSON (*.json);;Record table, Markdown (*.md)"

    def __init__(self, settings=None, parent=None):
        super().__init__(parent)
        self.settings = settings
        store, self.store_error = None, ""
        try:
            store = RunStore()
        except StoreError as exc:
            self.store_error = str(exc)
        self.model = EstimatorModel(store, lambda: window_executor(self.settings), gate=_kernel_gate())
        self.calls = BackgroundCalls(self, "Estimator")
        self._drawn = None
        self._stages = StagedUpdates(self)
        self._reported: set[str] = set()
        self._resume_when_open: set[int] = set()
        self._build()
        self.timer = QTimer(self, interval=200, timeout=self._tick)   # redraws at 5 Hz, never per batch
        self.timer.start()
        self._refresh_run_list()
        if self.store_error:
            QTimer.singleShot(0, lambda: QMessageBox.warning(
                self, "Run store", f"{self.store_error}\n\nRuns will not be saved in this session."))

    @property
    def store(self):
        return self.model.store

    # ================================================================ layout
    def _build(self) -> None:
        outer = QHBoxLayout(self)
        split = QSplitter(Qt.Horizontal)
        outer.addWidget(split)
        left = QWidget()
        lv = QVBoxLayout(left)
        params = self._parameters()
        # the form keeps its height; in a short window the column scrolls (at 1024 x 720 the run's
        # wrapped status lines had squeezed the form's rows on top of each other)
        params.setSizePolicy(QSizePolicy.Preferred, QSizePolicy.Fixed)
        lv.addWidget(params)
        lv.addLayout(self._buttons())
        self.progress = QProgressBar()
        self.progress.setRange(0, 1000)
        self.progress.setFormat("RE target: no run")
        self.progress.setToolTip("The share of the samples the target relative error needs that are done: "
                                 "the RE falls as 1/√samples, so halving it takes 4× the samples")
        lv.addWidget(self.progress)
        self.estimate_label = QLabel("no estimate yet")
        f = QFont()
        f.setPointSize(f.pointSize() + 3)
        f.setBold(True)
        self.estimate_label.setFont(f)
        self.estimate_label.setWordWrap(True)
        self.estimate_label.setTextInteractionFlags(Qt.TextSelectableByMouse)
        lv.addWidget(self.estimate_label)
        self.status_label = QLabel("No run yet.  Choose an estimator and press Start.")
        self.status_label.setWordWrap(True)
        self.status_label.setTextInteractionFlags(Qt.TextSelectableByMouse)
        lv.addWidget(self.status_label)
        self.warning_label = QLabel("")
        self.warning_label.setWordWrap(True)
        self.warning_label.setStyleSheet("color: #a61b1b;")
        self.warning_label.setVisible(False)
        lv.addWidget(self.warning_label)
        lv.addWidget(self._runs_box(), 1)
        column = QScrollArea()
        column.setWidget(left)
        column.setWidgetResizable(True)
        column.setFrameShape(QScrollArea.NoFrame)
        column.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        column.setMaximumWidth(380)
        split.addWidget(column)
        split.addWidget(self._plots())
        split.setSizes([370, 910])
        self._mode_changed()

    def _parameters(self) -> QGroupBox:
        est = QGroupBox("Estimator")
        form = QFormLayout(est)
        self.what = _combo()
        self.what.addItems(["Number of grids", "Minimal puzzles per grid"])
        self.what.setToolTip("What to count (seed 003: grids; seed 000/002: minimal puzzles)")
        self.what.currentIndexChanged.connect(self._mode_changed)
        form.addRow("Count", self.what)
        self.params = QStackedWidget()
        gp = QWidget()
        gf = QFormLayout(gp)
        gf.setContentsMargins(0, 0, 0, 0)
        self.box = _combo()
        for b in E.BOX_SHAPES:
            n = E.parse_box(b)[0] * E.parse_box(b)[1]
            self.box.addItem(f"{b} boxes ({n}×{n})", b)
        self.box.setCurrentIndex(E.BOX_SHAPES.index("3x3"))
        self.box.setToolTip("Box shape; the grid is (r·c)×(r·c)")
        gf.addRow("Boxes", self.box)
        self.gmethod = _combo()
        for m in E.GRID_METHODS:
            self.gmethod.addItem(E.GRID_METHOD_LABELS[m], m)
        self.gmethod.setCurrentIndex(E.GRID_METHODS.index("rows"))
        self.gmethod.setToolTip("crude: permutation-row grids (fails beyond 4×4); Ridder: seed 003's "
                                "importance sampling; rows/fc: our sequential samplers (unbiased, lower variance)")
        gf.addRow("Method", self.gmethod)
        self.params.addWidget(gp)
        mp = QWidget()
        mf = QFormLayout(mp)
        mf.setContentsMargins(0, 0, 0, 0)
        self.mmethod = _combo()
        self.mmethod.addItem("best combination", BEST)
        for m in E.MINIMAL_METHODS:
            self.mmethod.addItem(m, m)
        self.mmethod.setToolTip("best combination: probes made for each range of c (30-clue subsets for "
                                "c ≤ 27, 31 searched to 28 for c = 28, supersets of a 25-clue base for "
                                "c = 29..31), the best total; "
                                "singletons: random c-clue subsets; subsets: all minimals inside a random "
                                "s-clue subset; supersets: all minimals of at most c clues containing a random "
                                "s-clue base (the best design for c = 29..31: s = 25, c = 31); path: random "
                                "deletion paths (controlled bias)")
        self.mmethod.currentIndexChanged.connect(self._mmethod_changed)
        mf.addRow("Method", self.mmethod)
        self.s_spin = QSpinBox()
        self.s_spin.setRange(17, 60)
        self.s_spin.setValue(30)
        self.s_spin.setToolTip("subsets: size of the random clue set; supersets: size of the base set")
        mf.addRow("s", self.s_spin)
        self.c_spin = QSpinBox()
        self.c_spin.setRange(17, 81)
        self.c_spin.setValue(25)
        self.c_spin.setToolTip("singletons: the clue count; supersets: the largest clue count enumerated")
        mf.addRow("c", self.c_spin)
        self.source = _combo()
        self.source.addItem("sequential sampler, weighted (unbiased)", "weighted")
        self.source.addItem("randomized solver (BIASED)", "random")
        self.source.setToolTip("Where the solution grids come from.  The randomized solver is not uniform "
                               "over grids: its estimates are biased (seed 002 saw ~20%)")
        mf.addRow("Grids", self.source)
        self._mmethod_changed()
        self.params.addWidget(mp)
        form.addRow(self.params)
        self.seed = QSpinBox()
        self.seed.setRange(0, limits.SPIN_SEED_MAX)   # within the CLI's seeds (core.limits)
        self.seed.setValue(random.randrange(1, 100000))
        self.seed.setToolTip("Run seed: the same seed gives the same estimate")
        form.addRow("Seed", self.seed)
        self.target = QDoubleSpinBox()
        self.target.setRange(0.001, 50.0)
        self.target.setDecimals(3)
        self.target.setValue(0.1)
        self.target.setSuffix(" %")
        self.target.setToolTip("Target relative error: the ETA assumes RE falls like 1/√t")
        form.addRow("Target RE", self.target)
        return est

    def _buttons(self) -> QHBoxLayout:
        row = QHBoxLayout()
        self.start_btn = QPushButton("Start")
        self.start_btn.setToolTip("Start a new run with these settings (Ctrl+R)")
        self.start_btn.clicked.connect(self.start_run)
        self.stop_btn = QPushButton("Stop")
        self.stop_btn.setToolTip("Stop the live run; finished batches are saved and it can be resumed (Ctrl+.)")
        self.stop_btn.clicked.connect(self.stop_run)
        self.resume_btn = QPushButton("Resume")
        self.resume_btn.setToolTip("Continue the selected run where it stopped (Ctrl+P, or double-click it)")
        self.resume_btn.clicked.connect(self.resume_selected)
        for b in (self.start_btn, self.stop_btn, self.resume_btn):
            row.addWidget(b)
        QShortcut(QKeySequence("Ctrl+R"), self, self.start_run)
        QShortcut(QKeySequence("Ctrl+P"), self, self.resume_selected)
        QShortcut(QKeySequence("Ctrl+."), self, self.stop_run)
        return row

    def _runs_box(self) -> QGroupBox:
        runs = QGroupBox("Runs (tick to compare on the plots)")
        rv = QVBoxLayout(runs)
        self.run_list = QListWidget()
        self.run_list.setToolTip("Stored runs, newest first.  Select one to see it on the left, tick it to "
                                 "draw it, double-click to resume it")
        self.run_list.itemChanged.connect(self._run_ticked)
        self.run_list.currentItemChanged.connect(lambda *_: self._selection_changed())
        self.run_list.itemDoubleClicked.connect(lambda it: self.resume_selected())
        # the list takes the room left, from 4 lines up: its preferred height made the scrolling
        # column taller than a 1280 x 820 window
        self.run_list.setSizePolicy(QSizePolicy.Expanding, QSizePolicy.Ignored)
        self.run_list.setMinimumHeight(4 * self.run_list.fontMetrics().lineSpacing() + 8)
        rv.addWidget(self.run_list)
        rrow = QHBoxLayout()
        self.export_btn = QPushButton("Export…")
        self.export_btn.setToolTip("Save the selected run as CSV or JSON (Ctrl+E)")
        self.export_btn.clicked.connect(self.export_file)
        self.delete_btn = QPushButton("Delete")
        self.delete_btn.setToolTip("Delete the selected run from the store")
        self.delete_btn.clicked.connect(self.delete_selected)
        rrow.addStretch(1)
        for b in (self.export_btn, self.delete_btn):
            rrow.addWidget(b)
        rv.addLayout(rrow)
        return runs

    def _plots(self) -> QWidget:
        right = QWidget()
        rlay = QVBoxLayout(right)
        rlay.setContentsMargins(0, 0, 0, 0)
        self.pages = QStackedWidget()
        gpage = QSplitter(Qt.Vertical)
        self.conv_plot = ConvergencePlot()
        self.re_plot = RelErrPlot()
        gpage.addWidget(self.conv_plot)
        gpage.addWidget(self.re_plot)
        self.pages.addWidget(gpage)
        # the table over the full width (the run beside three published tables), the plots below it
        mpage = QSplitter(Qt.Vertical)
        self.table = QTableWidget(0, len(EstimatorModel.TABLE_HEADER))
        self.table.setHorizontalHeaderLabels(EstimatorModel.TABLE_HEADER)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeToContents)
        self.table.setToolTip("The run shown on the left beside Afmob 2015, Berthier 2009 (REFERENCES.md) and "
                              "seed 000's ten-minute run (subsets, s = 30: where the records started); "
                              "the last row is the total over c (its RE summed per grid); tail CHECK: the RE "
                              "cannot be trusted yet (ESS < 100 or one grid > 5% of the sum)")
        mpage.addWidget(self.table)
        plots = QSplitter(Qt.Horizontal)
        self.bar_plot = MinimalsBarPlot()
        plots.addWidget(self.bar_plot)
        self.mre_plot = RelErrPlot()
        set_axis_label(self.mre_plot, "left", "relative error at c (%)")
        plots.addWidget(self.mre_plot)
        plots.setSizes([500, 500])
        mpage.addWidget(plots)
        mpage.setSizes([400, 380])
        self.pages.addWidget(mpage)
        rlay.addWidget(self.pages)
        return right

    # ================================================================ parameters
    @property
    def mode(self) -> str:
        return GRIDS if self.what.currentIndex() == 0 else MINIMALS

    def _mode_changed(self) -> None:
        i = self.what.currentIndex()
        self.params.setCurrentIndex(i)
        for k in range(self.params.count()):  # the stack takes the height of the shown page only
            pol = QSizePolicy.Preferred if k == i else QSizePolicy.Ignored
            self.params.widget(k).setSizePolicy(pol, pol)
        self.params.adjustSize()
        self.pages.setCurrentIndex(i)
        self._refresh_run_list()
        self._redraw()

    def _mmethod_changed(self) -> None:
        m = self.mmethod.currentData()
        self.s_spin.setEnabled(m in ("subsets", "supersets"))
        self.c_spin.setEnabled(m in ("singletons", "supersets"))
        if m == "supersets":   # the record design for c = 29..31
            self.s_spin.setValue(E.TAIL_DESIGN["s"])
            self.c_spin.setValue(E.TAIL_DESIGN["c_hi"])
        elif m == "subsets":
            self.s_spin.setValue(30)
        elif m == "singletons":
            self.c_spin.setValue(25)

    def params_from_controls(self) -> EstimatorParams:
        return EstimatorParams(what=self.mode, box=self.box.currentData(), grid_method=self.gmethod.currentData(),
                               minimal_method=self.mmethod.currentData(), s=self.s_spin.value(),
                               c=self.c_spin.value(), grid_source=self.source.currentData(), seed=self.seed.value())

    # ================================================================ control
    def start_run(self) -> RunView | None:
        try:
            view = self.model.start(self.params_from_controls())
        except ValueError as exc:
            QMessageBox.warning(self, "Estimator", str(exc))
            return None
        self.seed.setValue(random.randrange(1, 100000))
        self._select(None)
        self._refresh_run_list()
        self._redraw()
        return view

    def stop_run(self) -> None:
        self.model.stop()
        self._update_buttons()

    def resume_selected(self) -> None:
        rid = self._selected_run_id()
        if rid is None:
            return
        view = self.model.view_of(rid)
        if view is None:  # not opened yet: replay it in the background, then resume
            self._open(rid, then_resume=True)
            return
        try:
            self.model.resume(view)
        except ValueError as exc:
            QMessageBox.information(self, "Estimator", str(exc))
        self._refresh_run_list()

    def _open(self, rid: int, then_resume: bool = False) -> None:
        """Replay a stored run in the background; resume it afterwards if asked (now or meanwhile)."""
        if then_resume:
            self._resume_when_open.add(rid)
        if self.calls.busy(f"open {rid}"):
            return
        self.status_label.setText(f"Opening run #{rid}…")

        def opened(run):
            view = self.model.add_opened(run)
            if rid in self._resume_when_open:
                self._resume_when_open.discard(rid)
                try:
                    self.model.resume(view)
                except ValueError as exc:
                    QMessageBox.information(self, "Estimator", str(exc))
            self._refresh_run_list()
            self._redraw()

        def failed(exc):
            self._resume_when_open.discard(rid)
            show_error(self, "Run store", exc)
            self._refresh_run_list()

        self.calls.submit(f"open {rid}", lambda: self.model.open_run(rid), on_done=opened, on_error=failed)

    def delete_selected(self) -> None:
        rid = self._selected_run_id()
        if rid is None or self.store is None:
            return
        if QMessageBox.question(self, "Delete run", f"Delete run #{rid} and its batches?") != QMessageBox.Yes:
            return
        view = self.model.view_of(rid)
        if view is not None and not view.run.finished:
            QMessageBox.information(self, "Estimator", "Stop the run before deleting it.")
            return

        def deleted(_):
            self.model.forget(rid)
            self._refresh_run_list()
            self._redraw()

        def failed(exc):
            QMessageBox.information(self, "Estimator", f"Run #{rid} is not deleted: {exc}")

        # a write may wait for another process's lock: never on the UI thread
        self.calls.submit(f"delete {rid}", lambda: self.store.delete_run(rid), on_done=deleted, on_error=failed)

    # ================================================================ run list
    def _selected_run_id(self) -> int | None:
        it = self.run_list.currentItem()
        return None if it is None else it.data(Qt.UserRole)

    def _select(self, rid: int | None) -> None:
        self.run_list.blockSignals(True)
        self.run_list.setCurrentRow(-1)
        self.run_list.blockSignals(False)
        del rid

    def _refresh_run_list(self) -> None:
        if self.store is None:
            return
        try:
            rows = self.model.run_rows(self.mode)
        except StoreError as exc:
            self.status_label.setText(str(exc))
            return
        current = self._selected_run_id()
        self.run_list.blockSignals(True)
        if [self.run_list.item(i).data(Qt.UserRole) for i in range(self.run_list.count())] != \
                [r.run_id for r in rows]:
            self.run_list.clear()
            for r in rows:
                it = QListWidgetItem(r.text)
                it.setData(Qt.UserRole, r.run_id)
                it.setFlags(it.flags() | Qt.ItemIsUserCheckable)
                self.run_list.addItem(it)
        for i, r in enumerate(rows):
            it = self.run_list.item(i)
            it.setText(r.text)
            it.setToolTip(r.tooltip)
            it.setCheckState(Qt.Checked if r.shown else Qt.Unchecked)
            it.setForeground(QColor(r.colour) if r.colour else QColor("black"))
            if r.run_id == current:
                self.run_list.setCurrentItem(it)
        self.run_list.blockSignals(False)

    def _run_ticked(self, item: QListWidgetItem) -> None:
        rid = item.data(Qt.UserRole)
        on = item.checkState() == Qt.Checked
        view = self.model.view_of(rid)
        if view is not None:
            view.shown = on
            self._redraw()
        elif on:
            self._open(rid)

    def _selection_changed(self) -> None:
        rid = self._selected_run_id()
        if rid is not None and self.model.view_of(rid) is None:
            self._open(rid)
        self._redraw()

    def panel_view(self) -> RunView | None:
        """The run the left panel shows: the selected one (of the kind shown), else the live one,
        else the newest of this kind this session."""
        view = self.model.view_of(self._selected_run_id())
        if view is not None and view.what == self.mode:
            return view
        live = self.model.live
        if live is not None and live.what == self.mode:
            return live
        return next((v for v in reversed(self.model.views) if v.what == self.mode), None)

    # ================================================================ drawing
    def _tick(self) -> None:
        live = self.model.live
        key = None
        if live is not None:
            snap = live.run.snapshot(history=False)
            key = (id(live), snap.batches, snap.status)
            for text in (*snap.errors, snap.store_problem):
                if text and text not in self._reported:
                    self._reported.add(text)
                    win = self.window()
                    if hasattr(win, "statusBar"):
                        win.statusBar().showMessage(text, 10000)
        if key != self._drawn:
            self._drawn = key
            self._refresh_run_list()
            self._redraw()
        elif live is not None and snap.waiting_for:
            self._update_panel()   # the share of its kernels compiled moves while the run waits

    def _redraw(self) -> None:
        """Redraw the plots (and the table) of the mode shown: each after the first is updated
        ``REDRAW_STAGGER_MS`` after the one before has painted, so one pass of the event loop
        repaints one of them (the bar plot and the table together stalled the window 30-50 ms on
        a slow machine; a Start, a mode switch or a selection drawn in one pass 35-80 ms)."""
        views = self.model.shown_views(self.mode)
        if self.mode == GRIDS:
            title, conv, rel, guide = self.model.grid_series(views)

            def convergence():
                set_title(self.conv_plot, title, color="k", size="10pt")
                self.conv_plot.show_runs([(s.label, s.colour, s.x, s.y, s.se) for s in conv])

            def rel_err():
                self.re_plot.show_runs([(s.label, s.colour, s.x, s.y) for s in rel], guide)

            stages = [convergence, rel_err]
        else:
            c_focus, bars, rel, guide = self.model.minimal_series(views)

            def bar_plot():
                ref = {c: val for c, (val, _) in E.PUBLISHED_MINIMALS["afmob"].items()}
                self.bar_plot.show_estimates(bars, ref, "Afmob 2015")
                set_title(self.bar_plot, "minimal c-clue puzzles per grid (bars ±2 SE)", color="k", size="10pt")

            def table():
                self._fill_table(self.model.minimal_table(self.panel_view()))

            def rel_err():
                self.mre_plot.show_runs([(s.label, s.colour, s.x, s.y) for s in rel], guide)
                of_total = c_focus == TOTAL
                focus = "of the total" if of_total else f"at c = {c_focus}"
                set_title(self.mre_plot, f"relative error {focus}", color="k", size="10pt")   # the axes say the rest
                set_axis_label(self.mre_plot, "left", f"relative error {'of the total' if of_total else 'at c'} (%)")

            stages = [bar_plot, table, rel_err]
        self._stages.run(stages)
        self._update_panel()
        self._update_buttons()

    def _fill_table(self, rows) -> None:
        fill_table(self.table, rows)

    def _update_panel(self) -> None:
        panel = self.model.panel(self.panel_view(), self.target.value() / 100.0)
        if panel is None:
            self.estimate_label.setText("no estimate yet")
            self.status_label.setText("No run of this kind selected.  Choose an estimator and press Start, "
                                      "or select a stored run.")
            self.progress.setValue(0)
            self._set_progress_format("RE target: no run")   # not "0%": there is nothing to measure
            self.warning_label.setVisible(False)
            return
        self.estimate_label.setText(panel.headline)
        self.status_label.setText("<br>".join([f"<b>{panel.lines[0]}</b>", *panel.lines[1:]]))
        self._set_progress_format(panel.progress_text)
        self.progress.setValue(int(1000 * panel.progress))
        self.warning_label.setText(panel.warning)
        self.warning_label.setVisible(bool(panel.warning))

    def _set_progress_format(self, text: str) -> None:
        if self.progress.format() != text:
            self.progress.setFormat(text)

    def _update_buttons(self) -> None:
        live = self.model.live
        going = live is not None and not live.run.finished
        stopping = going and live.run.status.value == "stopping"
        self.stop_btn.setEnabled(going and not stopping)
        self.stop_btn.setText("Stopping…" if stopping else "Stop")
        self.start_btn.setEnabled(not going)
        selected = self._selected_run_id() is not None      # greyed while they would do nothing
        self.resume_btn.setEnabled(selected and not going)
        self.export_btn.setEnabled(selected or live is not None)
        self.delete_btn.setEnabled(selected)

    # ================================================================ export
    def export_file(self) -> None:
        view = self.model.view_of(self._selected_run_id()) or self.model.live
        if view is None:
            QMessageBox.information(self, "Export", "Select a run in the list first.")
            return
        path, _ = QFileDialog.getSaveFileName(self, "Export run", f"run_{view.run_id or 'live'}.csv",
                                              self.file_filters)
        if path:
            try:
                self.model.export(view, path)
            except OSError as exc:
                QMessageBox.warning(self, "Export", f"Cannot write {path}: {exc}")

    def export_run(self, view: RunView, path: str) -> None:
        self.model.export(view, path)

    # ================================================================ shutdown
    def shutdown(self, deadline: float = 1.5) -> None:
        """Stop the live run (its finished batches are saved), waiting at most ``deadline`` seconds."""
        self.timer.stop()
        self.calls.drop()
        self.model.shutdown(deadline)


def _combo() -> QComboBox:
    """A combo box sized by the panel, not by its longest item (the particle filter's label
    squeezed the form's labels to "Metho"); the list that opens still shows whole items."""
    combo = QComboBox()
    combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
    combo.setMinimumContentsLength(12)
    return combo


def _kernel_gate():
    """Runs wait for their kernels (compiled in helper processes) before their first batch."""
    from sudokustudio.jobs.qt import kernel_gate

    return kernel_gate()
