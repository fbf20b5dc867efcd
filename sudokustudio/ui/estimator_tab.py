"""Live estimator tab: count Sudoku grids and minimal puzzles by Monte Carlo.

Pick an estimator and its parameters, Start / Pause / Stop; the running
estimate with a +-2 sigma band, the relative error against compute time
(log-log, 1/sqrt(t) guide), and for minimal puzzles a per-c table and a
log-scale bar plot beside the published values.  Every finished batch is
committed to the run store, so a paused, quit or killed run reopens and
resumes with nothing lost; past runs can be ticked to share the plots.
"""
from __future__ import annotations

import csv
import json
import math
import random
import time
from dataclasses import dataclass, field
from pathlib import Path

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QColor, QFont, QKeySequence, QShortcut
from PySide6.QtWidgets import (QComboBox, QDoubleSpinBox, QFileDialog, QFormLayout, QGroupBox, QHBoxLayout,
                               QHeaderView, QLabel, QListWidget, QListWidgetItem, QMessageBox, QProgressBar,
                               QPushButton, QSizePolicy, QSpinBox, QSplitter, QStackedWidget, QTableWidget,
                               QTableWidgetItem, QVBoxLayout, QWidget)

from sudokustudio.jobs.qt import make_runner
from sudokustudio.jobs.store import RunStore, StoreError
from sudokustudio.sudoku import estimators as E
from sudokustudio.ui.kernels import when_kernels_ready
from sudokustudio.ui.style import SERIES
from sudokustudio.ui.widgets.est_plots import ConvergencePlot, MinimalsBarPlot, RelErrPlot

MAX_POINTS = 600  # history points kept per run (thinned by halves)


def _fmt_time(s: float) -> str:
    if not math.isfinite(s):
        return "–"
    if s < 60:
        return f"{s:.1f} s"
    if s < 3600:
        return f"{int(s // 60)} min {int(s % 60):02d} s"
    if s < 86400 * 3:
        return f"{int(s // 3600)} h {int(s % 3600 // 60):02d} min"
    return f"{s / 86400:.3g} days"


@dataclass
class RunView:
    """A run on screen: its job, its history and (when live) its runner."""

    run_id: int | None
    job: object
    seed: int
    name: str
    colour: str
    total: object = None
    history: list = field(default_factory=list)   # (cpu seconds, samples, summary)
    runner: object = None
    shown: bool = True
    wall0: float = 0.0

    @property
    def is_grids(self) -> bool:
        return isinstance(self.job, E.GridCountJob)

    def label(self) -> str:
        j = self.job
        rid = f"#{self.run_id} " if self.run_id is not None else ""
        if self.is_grids:
            return f"{rid}{j.box} {j.method}"
        extra = f" s={j.s}" if j.method in ("subsets", "supersets") else ""
        bias = " (biased)" if j.biased else ""
        return f"{rid}{j.method}{extra}{bias}"

    def summary(self, total=None):
        total = self.total if total is None else total
        if self.is_grids:
            return self.job.describe(total)
        return self.job.per_c(total)

    def record(self, total) -> None:
        self.total = total
        if total is None or total.n == 0:
            return
        self.history.append((total.cpu, total.n, self.summary(total)))
        if len(self.history) > MAX_POINTS:
            self.history = self.history[::2]


class EstimatorTab(QWidget):
    title = "Estimator"
    file_filters = "CSV (*.csv);;JSON (*.json)"

    def __init__(self, settings=None, parent=None):
        super().__init__(parent)
        self.settings = settings
        self.store: RunStore | None = None
        self.store_error = ""
        try:
            self.store = RunStore()
        except StoreError as exc:
            self.store_error = str(exc)
        self.live: RunView | None = None
        self.views: dict[int, RunView] = {}
        self._colour_i = 0
        self._last_drawn = -1
        self._build()
        self.timer = QTimer(self)
        self.timer.setInterval(100)   # <= 10 Hz redraws, never per batch
        self.timer.timeout.connect(self._tick)
        self.timer.start()
        self._refresh_run_list()
        if self.store_error:
            QTimer.singleShot(0, lambda: QMessageBox.warning(
                self, "Run store", f"{self.store_error}\n\nRuns will not be saved in this session."))

    # ================================================================ layout
    def _build(self) -> None:
        outer = QHBoxLayout(self)
        split = QSplitter(Qt.Horizontal)
        outer.addWidget(split)
        left = QWidget()
        left.setMaximumWidth(380)
        lv = QVBoxLayout(left)

        est = QGroupBox("Estimator")
        form = QFormLayout(est)
        self.what = QComboBox()
        self.what.addItems(["Number of grids", "Minimal puzzles per grid"])
        self.what.setToolTip("What to count (seed 003: grids; seed 000/002: minimal puzzles)")
        self.what.currentIndexChanged.connect(self._mode_changed)
        form.addRow("Count", self.what)
        self.params = QStackedWidget()
        # grids
        gp = QWidget()
        gf = QFormLayout(gp)
        gf.setContentsMargins(0, 0, 0, 0)
        self.box = QComboBox()
        for b in E.BOX_SHAPES:
            n = E.parse_box(b)[0] * E.parse_box(b)[1]
            self.box.addItem(f"{b} boxes ({n}×{n})", b)
        self.box.setCurrentIndex(E.BOX_SHAPES.index("3x3"))
        self.box.setToolTip("Box shape; the grid is (r·c)×(r·c)")
        gf.addRow("Boxes", self.box)
        self.gmethod = QComboBox()
        for m in E.GRID_METHODS:
            self.gmethod.addItem(E.GRID_METHOD_LABELS[m], m)
        self.gmethod.setCurrentIndex(E.GRID_METHODS.index("rows"))
        self.gmethod.setToolTip("crude: permutation-row grids (fails beyond 4×4); Ridder: seed 003's "
                                "importance sampling; rows/fc: our sequential samplers (unbiased, lower variance)")
        gf.addRow("Method", self.gmethod)
        self.params.addWidget(gp)
        # minimals
        mp = QWidget()
        mf = QFormLayout(mp)
        mf.setContentsMargins(0, 0, 0, 0)
        self.mmethod = QComboBox()
        for m in E.MINIMAL_METHODS:
            self.mmethod.addItem(m, m)
        self.mmethod.setCurrentIndex(1)
        self.mmethod.setToolTip("singletons: random c-clue subsets; subsets: all minimals inside a random "
                                "s-clue subset; supersets: all minimals containing one; path: random "
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
        self.source = QComboBox()
        self.source.addItem("sequential sampler, weighted (unbiased)", "weighted")
        self.source.addItem("randomized solver (BIASED)", "random")
        self.source.setToolTip("Where the solution grids come from.  The randomized solver is not uniform "
                               "over grids: its estimates are biased (seed 002 saw ~20%)")
        mf.addRow("Grids", self.source)
        self.params.addWidget(mp)
        form.addRow(self.params)
        self.seed = QSpinBox()
        self.seed.setRange(0, 2**31 - 1)
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
        lv.addWidget(est)

        row = QHBoxLayout()
        self.start_btn = QPushButton("Start")
        self.start_btn.setToolTip("Start a new run with these settings (Ctrl+R)")
        self.start_btn.clicked.connect(lambda: when_kernels_ready(("estimators",), self.start_run, self, "Start"))
        self.pause_btn = QPushButton("Pause")
        self.pause_btn.setToolTip("Pause / resume the live run; batches in flight finish and are saved (Ctrl+P)")
        self.pause_btn.clicked.connect(self.toggle_pause)
        self.stop_btn = QPushButton("Stop")
        self.stop_btn.setToolTip("Stop the live run (it stays in the list and can be resumed later) (Ctrl+.)")
        self.stop_btn.clicked.connect(self.stop_run)
        for b in (self.start_btn, self.pause_btn, self.stop_btn):
            row.addWidget(b)
        lv.addLayout(row)
        QShortcut(QKeySequence("Ctrl+R"), self, self.start_run)
        QShortcut(QKeySequence("Ctrl+P"), self, self.toggle_pause)
        QShortcut(QKeySequence("Ctrl+."), self, self.stop_run)

        self.progress = QProgressBar()
        self.progress.setRange(0, 1000)
        self.progress.setFormat("RE target: %p%")
        self.progress.setToolTip("Progress towards the target relative error (in log scale of samples)")
        lv.addWidget(self.progress)
        self.estimate_label = QLabel("–")
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

        runs = QGroupBox("Runs (tick to compare on the plots)")
        rv = QVBoxLayout(runs)
        self.run_list = QListWidget()
        self.run_list.setToolTip("Stored runs, newest first.  Tick a run to draw it; double-click to resume it")
        self.run_list.itemChanged.connect(self._run_ticked)
        self.run_list.itemDoubleClicked.connect(lambda it: self.resume_selected())
        rv.addWidget(self.run_list)
        rrow = QHBoxLayout()
        self.resume_btn = QPushButton("Resume")
        self.resume_btn.setToolTip("Continue the selected run where it stopped")
        self.resume_btn.clicked.connect(lambda: when_kernels_ready(("estimators",), self.resume_selected, self,
                                                                   "Resume"))
        self.export_btn = QPushButton("Export…")
        self.export_btn.setToolTip("Save the selected run as CSV or JSON (Ctrl+E)")
        self.export_btn.clicked.connect(self.export_file)
        self.delete_btn = QPushButton("Delete")
        self.delete_btn.setToolTip("Delete the selected run from the store")
        self.delete_btn.clicked.connect(self.delete_selected)
        for b in (self.resume_btn, self.export_btn, self.delete_btn):
            rrow.addWidget(b)
        rv.addLayout(rrow)
        lv.addWidget(runs, 1)
        split.addWidget(left)

        # right: plots
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
        mpage = QSplitter(Qt.Vertical)
        top = QSplitter(Qt.Horizontal)
        self.table = QTableWidget(0, 6)
        self.table.setHorizontalHeaderLabels(["c", "found", "per grid", "RE", "Afmob 2015", "ratio"])
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeToContents)
        self.table.setToolTip("Live run (or the first ticked run): seed-000-style table; ratio = estimate "
                              "÷ Afmob 2015 (REFERENCES.md)")
        top.addWidget(self.table)
        self.bar_plot = MinimalsBarPlot()
        top.addWidget(self.bar_plot)
        top.setSizes([420, 560])
        mpage.addWidget(top)
        self.mre_plot = RelErrPlot()
        self.mre_plot.setLabel("left", "relative error at c (%)")
        mpage.addWidget(self.mre_plot)
        mpage.setSizes([480, 300])
        self.pages.addWidget(mpage)
        rlay.addWidget(self.pages)
        split.addWidget(right)
        split.setSizes([370, 910])
        self._mode_changed()

    # ================================================================ settings
    def _mode_changed(self) -> None:
        i = self.what.currentIndex()
        self.params.setCurrentIndex(i)
        for k in range(self.params.count()):  # the stack takes the height of the shown page only
            pol = QSizePolicy.Preferred if k == i else QSizePolicy.Ignored
            self.params.widget(k).setSizePolicy(pol, pol)
        self.params.adjustSize()
        self.pages.setCurrentIndex(i)
        self._refresh_run_list()
        self._redraw(force=True)

    def _mmethod_changed(self) -> None:
        m = self.mmethod.currentData()
        self.s_spin.setEnabled(m in ("subsets", "supersets"))
        self.c_spin.setEnabled(m in ("singletons", "supersets"))
        if m == "supersets":
            self.s_spin.setValue(24)
            self.c_spin.setValue(28)
        elif m == "subsets":
            self.s_spin.setValue(30)
        elif m == "singletons":
            self.c_spin.setValue(25)

    def _job_from_controls(self):
        if self.what.currentIndex() == 0:
            return E.GridCountJob(self.box.currentData(), self.gmethod.currentData())
        m = self.mmethod.currentData()
        kw = dict(method=m, grid_source=self.source.currentData())
        if m in ("subsets", "supersets"):
            kw["s"] = self.s_spin.value()
        if m == "singletons":
            kw.update(c_lo=self.c_spin.value(), c_hi=self.c_spin.value())
        if m == "supersets":
            kw["c_hi"] = self.c_spin.value()
        return E.MinimalsJob(**kw)

    def _next_colour(self) -> str:
        c = SERIES[self._colour_i % len(SERIES)]
        self._colour_i += 1
        return c

    # ================================================================ control
    def start_run(self) -> None:
        if self.live is not None and self.live.runner is not None and self.live.runner.running:
            QMessageBox.information(self, "Estimator", "A run is going: pause or stop it first.")
            return
        try:
            job = self._job_from_controls()
        except ValueError as exc:
            QMessageBox.warning(self, "Estimator", f"Bad parameters: {exc}")
            return
        seed = self.seed.value()
        rid = None
        if self.store is not None:
            try:
                rid = self.store.create_run(job, seed, name="")
            except Exception as exc:  # a store problem must not stop the estimate
                QMessageBox.warning(self, "Run store", f"Cannot save this run: {exc}")
        view = RunView(rid, job, seed, "", self._next_colour(), total=job.empty())
        self._launch(view)
        self.seed.setValue(random.randrange(1, 100000))

    def _launch(self, view: RunView, done=None, initial=None) -> None:
        kw = {}
        if done:
            kw.update(done=done, initial=initial)
        view.runner = make_runner(view.job, view.seed, None, settings=self.settings, parent=self,
                                  store=self.store if view.run_id is not None else None, run_id=view.run_id, **kw)
        view.runner.failed.connect(lambda msg: QMessageBox.warning(self, "Estimator", msg))
        view.runner.finished.connect(lambda cancelled, v=view: self._runner_finished(v))
        view.wall0 = time.perf_counter()
        self.live = view
        if view.run_id is not None:
            self.views[view.run_id] = view
            self.store.set_status(view.run_id, "running")
        view.runner.start()
        self.pause_btn.setText("Pause")
        self._refresh_run_list()

    def toggle_pause(self) -> None:
        v = self.live
        if v is None or v.runner is None:
            return
        if v.runner.running:
            v.runner.cancel()
            self.pause_btn.setText("Resume")
            if v.run_id is not None and self.store is not None:
                self.store.set_status(v.run_id, "paused")
        else:
            v.runner.start()
            self.pause_btn.setText("Pause")
            if v.run_id is not None and self.store is not None:
                self.store.set_status(v.run_id, "running")

    def stop_run(self) -> None:
        v = self.live
        if v is None:
            return
        if v.runner is not None:
            v.runner.cancel()
        if v.run_id is not None and self.store is not None:
            self.store.set_status(v.run_id, "stopped")
        self.pause_btn.setText("Pause")
        self._refresh_run_list()

    def _runner_finished(self, view: RunView) -> None:
        view.record(view.runner.total())
        self._refresh_run_list()
        self._redraw(force=True)

    def _selected_run_id(self) -> int | None:
        it = self.run_list.currentItem()
        return None if it is None else it.data(Qt.UserRole)

    def _load_view(self, rid: int) -> RunView | None:
        if rid in self.views:
            return self.views[rid]
        try:
            info = self.store.run(rid)
            job = self.store.job_of(rid)
            view = RunView(rid, job, info.seed, info.name, self._next_colour(), total=job.empty())
            total = job.empty()
            for k, (_, res, _, _) in enumerate(self.store.iter_results(rid, job)):
                total = job.merge(total, res)
                view.record(total)
            view.total = total
        except StoreError as exc:
            QMessageBox.warning(self, "Run store", str(exc))
            return None
        self.views[rid] = view
        return view

    def resume_selected(self) -> None:
        rid = self._selected_run_id()
        if rid is None or self.store is None:
            return
        if self.live is not None and self.live.runner is not None and self.live.runner.running:
            if self.live.run_id == rid:
                return
            QMessageBox.information(self, "Estimator", "A run is going: pause or stop it first.")
            return
        view = self._load_view(rid)
        if view is None:
            return
        try:
            total, done, _ = self.store.load_results(rid, view.job)
        except StoreError as exc:
            QMessageBox.warning(self, "Run store", str(exc))
            return
        view.shown = True
        if view.runner is not None and self.live is view:
            self.toggle_pause()
            return
        self._launch(view, done=done, initial=total)

    def delete_selected(self) -> None:
        rid = self._selected_run_id()
        if rid is None or self.store is None:
            return
        if self.live is not None and self.live.run_id == rid and self.live.runner is not None \
                and self.live.runner.running:
            QMessageBox.information(self, "Estimator", "Stop the run before deleting it.")
            return
        if QMessageBox.question(self, "Delete run", f"Delete run #{rid} and its batches?") != QMessageBox.Yes:
            return
        self.store.delete_run(rid)
        self.views.pop(rid, None)
        if self.live is not None and self.live.run_id == rid:
            self.live = None
        self._refresh_run_list()
        self._redraw(force=True)

    # ================================================================ run list
    def _refresh_run_list(self) -> None:
        if self.store is None:
            return
        want_grids = self.what.currentIndex() == 0
        kind = E.GridCountJob.kind if want_grids else E.MinimalsJob.kind
        try:
            infos = self.store.runs(kind)
        except StoreError as exc:
            self.status_label.setText(str(exc))
            return
        current = self._selected_run_id()
        self.run_list.blockSignals(True)
        self.run_list.clear()
        for info in infos:
            sp = info.spec
            if want_grids:
                text = f"#{info.id}  {sp.get('box')} {sp.get('method')}"
            else:
                text = f"#{info.id}  {sp.get('method')}" + (f" s={sp.get('s')}" if sp.get("method") in
                                                             ("subsets", "supersets") else "")
                if sp.get("grid_source") == "random":
                    text += " BIASED"
            live = self.live is not None and self.live.run_id == info.id and self.live.runner is not None \
                and self.live.runner.running
            text += f"  {info.batches} batches, {'running' if live else info.status}"
            tip = f"run {info.id}: seed {info.seed}, spec {json.dumps(info.spec)}"
            it = QListWidgetItem(text)
            it.setData(Qt.UserRole, info.id)
            it.setToolTip(tip)
            it.setFlags(it.flags() | Qt.ItemIsUserCheckable)
            v = self.views.get(info.id)
            it.setCheckState(Qt.Checked if v is not None and v.shown else Qt.Unchecked)
            if v is not None:
                it.setForeground(QColor(v.colour))
            self.run_list.addItem(it)
            if info.id == current:
                self.run_list.setCurrentItem(it)
        self.run_list.blockSignals(False)

    def _run_ticked(self, item: QListWidgetItem) -> None:
        rid = item.data(Qt.UserRole)
        on = item.checkState() == Qt.Checked
        view = self.views.get(rid) if not on else self._load_view(rid)
        if view is not None:
            view.shown = on
            self.run_list.blockSignals(True)
            item.setForeground(QColor(view.colour))
            self.run_list.blockSignals(False)
        self._redraw(force=True)

    # ================================================================ live
    def _tick(self) -> None:
        v = self.live
        if v is None or v.runner is None:
            return
        done = v.runner.batches_done
        if done != self._last_drawn and (v.runner.running or done != len(v.history)):
            self._last_drawn = done
            v.record(v.runner.total())
            self._redraw()

    def _shown_views(self, grids: bool):
        out = [v for v in self.views.values() if v.shown and v.is_grids == grids]
        if self.live is not None and self.live.is_grids == grids and self.live not in out:
            out.append(self.live)
        return sorted(out, key=lambda v: (v is self.live, v.run_id or 0))

    def _redraw(self, force: bool = False) -> None:
        grids = self.what.currentIndex() == 0
        views = self._shown_views(grids)
        if grids:
            self._draw_grids(views)
        else:
            self._draw_minimals(views)
        self._update_status()

    def _draw_grids(self, views) -> None:
        boxes = {v.job.box for v in views}
        box = self.live.job.box if self.live is not None and self.live.is_grids else \
            (views[-1].job.box if views else self.box.currentData())
        ref = float(E.GRID_COUNTS[box])
        kind = "exact" if E.GRID_COUNT_EXACT[box] else "published estimate"
        self.conv_plot.set_title_text(f"{box} boxes: running estimate ÷ {kind} {ref:.5g}  (band ±2σ)")
        conv, rel = [], []
        for v in views:
            if v.job.box != box:
                continue
            t = [h[0] for h in v.history]
            est = [h[2]["estimate"] / ref for h in v.history]
            se = [h[2]["se"] / ref for h in v.history]
            conv.append((v.label(), v.colour, t, est, se))
            rel.append((v.label(), v.colour, t, [h[2]["rel_err"] for h in v.history]))
        self.conv_plot.show_runs(conv)
        guide = None
        anchor = self.live if (self.live is not None and self.live.is_grids and self.live.history) else \
            (views[-1] if views and views[-1].history else None)
        if anchor is not None:
            h = anchor.history[-1]
            guide = (h[0], h[2]["rel_err"])
        self.re_plot.show_runs(rel, guide)
        if len(boxes) > 1:
            self.conv_plot.set_title_text(f"{box} boxes (other box shapes ticked are not drawn)")

    def _draw_minimals(self, views) -> None:
        bars, rel = [], []
        c_focus = self._focus_c(views)
        for v in views:
            if not v.history:
                continue
            per_c = v.history[-1][2]
            bars.append((v.label(), v.colour, {c: (d["estimate"], d["se"]) for c, d in per_c.items()}))
            t = [h[0] for h in v.history if c_focus in h[2]]
            re = [h[2][c_focus]["rel_err"] for h in v.history if c_focus in h[2]]
            rel.append((v.label(), v.colour, t, re))
        ref = {c: val for c, (val, _) in E.PUBLISHED_MINIMALS["afmob"].items()}
        self.bar_plot.show_estimates(bars, ref, "Afmob 2015")
        self.bar_plot.setTitle("minimal c-clue puzzles per grid (bars ±2 SE)", color="k", size="10pt")
        anchor = self.live if self.live is not None and not self.live.is_grids else (views[-1] if views else None)
        guide = None
        if anchor is not None and anchor.history and c_focus in anchor.history[-1][2]:
            h = anchor.history[-1]
            guide = (h[0], h[2][c_focus]["rel_err"])
        self.mre_plot.show_runs(rel, guide)
        self.mre_plot.setTitle(f"relative error at c = {c_focus} against compute time", color="k", size="10pt")
        # table of the live run (else the newest shown)
        self.table.setRowCount(0)
        if anchor is None or not anchor.history:
            return
        per_c = anchor.history[-1][2]
        self.table.setRowCount(len(per_c))
        for row, c in enumerate(sorted(per_c)):
            d = per_c[c]
            pub = E.PUBLISHED_MINIMALS["afmob"].get(c)
            cells = [str(c), f"{d['found']:,}", f"{d['estimate']:.4e}", f"{100 * d['rel_err']:.2f}%",
                     f"{pub[0]:.4g}" if pub else "–", f"{d['estimate'] / pub[0]:.3f}" if pub else "–"]
            for col, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setTextAlignment(Qt.AlignRight | Qt.AlignVCenter)
                self.table.setItem(row, col, item)

    @staticmethod
    def _focus_c(views) -> int:
        """The clue count whose RE is plotted: the one with most minimals found in the newest run."""
        for v in reversed(views):
            if v.history and v.history[-1][2]:
                per_c = v.history[-1][2]
                return max(per_c, key=lambda c: per_c[c]["found"])
        return 24

    def _update_status(self) -> None:
        v = self.live
        if v is None or not v.history:
            return
        cpu, n, summ = v.history[-1]
        r = v.runner
        elapsed = r.elapsed if r is not None else 0.0
        rate = n / elapsed if elapsed > 0 and r is not None and r.batches_done else float("nan")
        target = self.target.value() / 100.0
        state = "running" if (r is not None and r.running) else "paused/stopped"
        if v.is_grids:
            re = summ["rel_err"]
            ref = float(E.GRID_COUNTS[v.job.box])
            lo, hi = summ["ci95"]
            self.estimate_label.setText(f"{summ['estimate']:.6g}  ± {100 * re:.3g}%")
            extra = (f"95% CI [{lo:.5g}, {hi:.5g}]<br>estimate ÷ reference {summ['estimate'] / ref:.5f}<br>"
                     f"RAT {summ['rat']:.4f} · EFF {summ['eff']:.3g} · {summ['hits']:,} non-zero")
        else:
            if not summ:
                self.estimate_label.setText("no minimal puzzle found yet")
                re = float("nan")
                extra = ""
            else:
                c = self._focus_c([v])
                re = summ[c]["rel_err"]
                self.estimate_label.setText(f"c={c}: {summ[c]['estimate']:.4e} per grid ± {100 * re:.3g}%")
                extra = ("<b>grid source BIASED</b> (randomized solver)" if v.job.biased else
                         "grids: weighted sequential sampler (unbiased)")
        if re > 0 and math.isfinite(re) and math.isfinite(rate) and rate > 0:
            need = n * (re / target) ** 2
            eta = max(0.0, (need - n) / rate)
            frac = 1.0 if re <= target else max(0.0, math.log(n) / math.log(need)) if need > 1 else 0.0
            self.progress.setValue(int(1000 * min(1.0, frac)))
            eta_text = "reached" if re <= target else _fmt_time(eta)
        else:
            eta_text = "–"
            self.progress.setValue(0)
        self.status_label.setText(
            f"<b>{v.label()}</b> — {state}<br>{n:,} samples · {rate:,.0f}/s · elapsed {_fmt_time(elapsed)}"
            f"<br>ETA to RE {100 * target:.3g}%: {eta_text}<br>{extra}")

    # ================================================================ export
    def export_file(self) -> None:
        rid = self._selected_run_id()
        view = self._load_view(rid) if rid is not None else self.live
        if view is None:
            QMessageBox.information(self, "Export", "Select a run in the list first.")
            return
        path, flt = QFileDialog.getSaveFileName(self, "Export run", f"run_{view.run_id or 'live'}.csv",
                                                self.file_filters)
        if not path:
            return
        try:
            self.export_run(view, path)
        except OSError as exc:
            QMessageBox.warning(self, "Export", f"Cannot write {path}: {exc}")

    def export_run(self, view: RunView, path: str) -> None:
        """CSV (history for grids, per-c table for minimals) or JSON (spec, seed, summary, history)."""
        p = Path(path)
        total = view.total if view.total is not None else view.job.empty()
        if p.suffix.lower() == ".json":
            doc = {"run_id": view.run_id, "kind": view.job.kind, "spec": view.job.spec, "seed": view.seed,
                   "summary": view.job.describe(total),
                   "history": [{"cpu_seconds": h[0], "samples": h[1],
                                **({"estimate": h[2]["estimate"], "se": h[2]["se"], "rel_err": h[2]["rel_err"]}
                                   if view.is_grids else {"per_c": {str(c): d for c, d in h[2].items()}})}
                               for h in view.history]}
            p.write_text(json.dumps(doc, indent=1, default=float))
            return
        with p.open("w", newline="") as fh:
            w = csv.writer(fh)
            if view.is_grids:
                w.writerow(["cpu_seconds", "samples", "estimate", "se", "rel_err"])
                for cpu, n, s in view.history:
                    w.writerow([f"{cpu:.4f}", n, repr(s["estimate"]), repr(s["se"]), repr(s["rel_err"])])
            else:
                w.writerow(["c", "found", "estimate_per_grid", "se", "rel_err"])
                per_c = view.job.per_c(total)
                for c in sorted(per_c):
                    d = per_c[c]
                    w.writerow([c, d["found"], repr(d["estimate"]), repr(d["se"]), repr(d["rel_err"])])

    # ================================================================ shutdown
    def shutdown(self) -> None:
        self.timer.stop()
        v = self.live
        if v is not None and v.runner is not None:
            was_running = v.runner.running
            v.runner.cancel()
            v.runner.wait()  # in-flight batches finish and are stored
            if was_running and v.run_id is not None and self.store is not None:
                self.store.set_status(v.run_id, "paused")
