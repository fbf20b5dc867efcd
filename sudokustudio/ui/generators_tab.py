"""Generators tab: the seed 002 minimal-puzzle generators side by side.

Each generator runs as batches on ONE shared QThreadPool of 2 threads (the
runners submit one batch per task, so they interleave); the tab merges the
results in the GUI thread and redraws on a timer (5 Hz).  Every finished
batch is stored in the collection store (SQLite) as it arrives.  Imported
collections (.txt/.sdm/.csv) join the same histogram and table.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QThreadPool, QTimer, Qt
from PySide6.QtGui import QColor, QKeySequence, QShortcut
from PySide6.QtWidgets import (QAbstractItemView, QCheckBox, QComboBox, QFileDialog, QGridLayout, QGroupBox,
                               QHBoxLayout, QHeaderView, QInputDialog, QLabel, QMessageBox, QProgressBar,
                               QPushButton, QSpinBox, QSplitter, QTableWidget, QTableWidgetItem, QVBoxLayout,
                               QWidget)

from sudokustudio.jobs.collections import (CollectionError, CollectionStore, export_puzzles,
                                           import_collection)
from sudokustudio.jobs.qt import cluster_address, make_runner
from sudokustudio.sudoku.generators import CF, PUBLISHED, PUBLISHED_CB_HIST, GenResult
from sudokustudio.ui.kernels import when_kernels_ready
from sudokustudio.ui.style import SERIES

METHOD_INFO = {
    "top-down": ("Top-down (suexg)", "Delete the clues of a random grid in random order, keeping each "
                 "deletion that leaves the solution unique (seed 002 §1.1). Biased towards few clues."),
    "bottom-up": ("Bottom-up (Metcalf)", "Add random clues until unique, then remove redundant clues "
                  "(seed 002 §1.1). The most biased towards few clues."),
    "controlled-bias": ("Controlled-bias", "Delete random clues; abandon the grid at the first multi-solution "
                        "puzzle (seed 002 §2.1). Its bias is known and corrected by cf(n). ~257,000 grids "
                        "per puzzle."),
    "weighted-subsets": ("Weighted subsets", "All minimal puzzles inside random 32-clue subsets, each weighted "
                         "by 1/Pr (seed 000): weighted statistics are unbiased over all minimal puzzles. "
                         "Heavy-tailed: 29- and 30-clue puzzles are rare in a 32-subset, so short runs "
                         "read low (26.60 ± 0.07 after 40,000 draws; real 26.58)."),
}
GRID_SOURCE_TIPS = {
    "solver": "fresh grids from the randomized solver — biased (not uniform over grids)",
    "pairswap": "fresh grids from Barker's pairswap Monte Carlo — slow; not known to be uniform",
    "pool": "random isomorphs of a pool of 256 solver grids — cheap; biased (finite pool)",
    "sequential": "the estimator's sequential grid sampler, each grid weighted by 1/q(grid) — unbiased",
}
DEFAULT_TARGET = {"top-down": 20000, "bottom-up": 10000, "controlled-bias": 100, "weighted-subsets": 20000}
METRIC_TITLES = {"guesses": "solver guesses", "brt": "BRT (singles solve)", "W": "W-rating"}


@dataclass
class Series:
    """One column of the comparison: a live generator run or an imported collection."""

    name: str
    method: str                     # generator name, or 'imported'
    color: str
    result: GenResult = field(default_factory=GenResult)
    runner: object = None
    collection_id: int | None = None
    target: int = 0
    started: float = 0.0
    seconds: float = 0.0
    imported: bool = False
    stats: dict | None = None
    dirty: bool = True
    weighted_extra: dict | None = None


class GeneratorsTab(QWidget):
    title = "Generators"
    file_filters = "Puzzle collections (*.txt *.sdm *.csv);;All files (*)"

    def __init__(self, settings=None, parent=None):
        super().__init__(parent)
        self.settings = settings
        self.pool = QThreadPool(self)
        self.pool.setMaxThreadCount(2)     # two workers share the machine
        self._store: CollectionStore | None = None
        self.series: dict[str, Series] = {}
        self.rows: dict[str, dict] = {}
        self.correct = True
        self.seed_value = 1
        self._build()
        self.timer = QTimer(self, interval=200, timeout=self.refresh)
        self.timer.start()

    # ------------------------------------------------------------ layout
    def _build(self) -> None:
        outer = QVBoxLayout(self)
        box = QGroupBox("Generators")
        grid = QGridLayout(box)
        heads = ["", "grid source", "target", "", "progress", "puzzles", "rate"]
        for j, h in enumerate(heads):
            lab = QLabel(f"<b>{h}</b>")
            grid.addWidget(lab, 0, j)
        for i, method in enumerate(METHOD_INFO):
            title, tip = METHOD_INFO[method]
            color = SERIES[i]
            name = QLabel(f"<span style='color:{color}; font-size:14pt'>■</span> {title}")
            name.setToolTip(tip)
            src = QComboBox()
            if method in ("top-down", "controlled-bias"):
                for key in ("solver", "pool", "pairswap"):
                    src.addItem(key)
                    src.setItemData(src.count() - 1, GRID_SOURCE_TIPS[key], Qt.ToolTipRole)
                src.setCurrentText("pool" if method == "controlled-bias" else "solver")
                src.setToolTip("Source of complete grids. All are biased in some way; seed 002 §2.4 finds "
                               "controlled-bias insensitive to it.")
            elif method == "weighted-subsets":
                for key in ("pool", "sequential"):
                    src.addItem(key)
                    src.setItemData(src.count() - 1, GRID_SOURCE_TIPS[key], Qt.ToolTipRole)
                src.setToolTip("pool: cheap, biased; sequential: weighted grids, unbiased over all grids")
            else:
                src.addItem("(no grid)")
                src.setEnabled(False)
                src.setToolTip("bottom-up builds puzzles from the empty grid")
            target = QSpinBox()
            target.setRange(1, 10_000_000)
            target.setValue(DEFAULT_TARGET[method])
            target.setToolTip("puzzles to generate" if method != "weighted-subsets" else "subset samples to draw")
            btn = QPushButton("Start")
            btn.setToolTip(f"Start or stop {title}")
            btn.clicked.connect(lambda _=False, m=method: when_kernels_ready(("generators",), lambda: self.toggle(m),
                                                                             self, f"Start {m}"))
            prog = QProgressBar()
            prog.setRange(0, 1000)
            prog.setTextVisible(True)
            count = QLabel("0")
            rate = QLabel("–")
            for j, w in enumerate((name, src, target, btn, prog, count, rate)):
                grid.addWidget(w, i + 1, j)
            self.rows[method] = dict(name=name, source=src, target=target, button=btn, progress=prog,
                                     count=count, rate=rate, color=color)
        grid.setColumnStretch(4, 1)
        outer.addWidget(box)

        bar = QHBoxLayout()
        self.start_all_btn = QPushButton("Start all")
        self.start_all_btn.setToolTip("Start every generator (Ctrl+R); they share two worker threads")
        self.start_all_btn.clicked.connect(lambda: when_kernels_ready(("generators",), self.start_all, self,
                                                                      "Start all"))
        self.stop_all_btn = QPushButton("Stop all")
        self.stop_all_btn.setToolTip("Stop every generator (Esc); finished batches are kept")
        self.stop_all_btn.clicked.connect(self.stop_all)
        self.seed_spin = QSpinBox()
        self.seed_spin.setRange(0, 2_000_000_000)
        self.seed_spin.setValue(1)
        self.seed_spin.setToolTip("Run seed: the same seed gives the same collection")
        self.correct_box = QCheckBox("cf(n) correction")
        self.correct_box.setChecked(True)
        self.correct_box.setToolTip("Weight each n-clue controlled-bias puzzle by cf(n), "
                                    "cf(n+1)/cf(n) = (81-n)/(n+1), cf(26) = 1 (seed 002 §2.2-2.3)")
        self.correct_box.toggled.connect(self._set_correct)
        self.metric_combo = QComboBox()
        self.metric_combo.setToolTip("Difficulty metric shown per clue count")
        self.metric_combo.currentTextChanged.connect(lambda _: self._mark_dirty())
        self.import_btn = QPushButton("Import…")
        self.import_btn.setToolTip("Import a collection (.txt/.sdm/.csv) to compare it (Ctrl+O)")
        self.import_btn.clicked.connect(lambda: when_kernels_ready(("generators",), self.import_dialog, self,
                                                                   "Import"))
        self.export_btn = QPushButton("Export…")
        self.export_btn.setToolTip("Export a collection to .txt/.sdm/.csv (Ctrl+E)")
        self.export_btn.clicked.connect(self.export_file)
        self.clear_btn = QPushButton("Clear")
        self.clear_btn.setToolTip("Forget the runs and imports shown (stored collections stay in the store)")
        self.clear_btn.clicked.connect(self.clear)
        for w in (self.start_all_btn, self.stop_all_btn, QLabel("seed"), self.seed_spin, self.correct_box):
            bar.addWidget(w)
        bar.addStretch(1)
        for w in (QLabel("difficulty:"), self.metric_combo):
            bar.addWidget(w)
        outer.addLayout(bar)

        split = QSplitter(Qt.Horizontal)
        plots = QSplitter(Qt.Vertical)
        self.hist_plot = pg.PlotWidget(background="w")
        self.hist_plot.setTitle("Clue-count distribution", color="k")
        self.hist_plot.setLabel("bottom", "clues")
        self.hist_plot.setLabel("left", "fraction of puzzles")
        self.hist_plot.showGrid(x=True, y=True, alpha=0.2)
        self.hist_plot.addLegend(offset=(-5, 5), colCount=2, labelTextColor="k", brush=pg.mkBrush(255, 255, 255, 210),
                                 pen=pg.mkPen("#cccccc"))
        self.hist_plot.getAxis("left").enableAutoSIPrefix(False)
        self.metric_plot = pg.PlotWidget(background="w")
        self.metric_plot.setLabel("bottom", "clues")
        self.metric_plot.showGrid(x=True, y=True, alpha=0.2)
        plots.addWidget(self.hist_plot)
        plots.addWidget(self.metric_plot)
        plots.setSizes([500, 250])
        self.table = QTableWidget()
        self.table.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.table.setAlternatingRowColors(True)
        font = self.table.font()
        font.setPointSizeF(font.pointSizeF() * 0.9)
        self.table.setFont(font)
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeToContents)
        self.table.setToolTip("Statistics of the clue count and difficulty; the grey columns are the "
                              "published figures of seed 002")
        split.addWidget(plots)
        split.addWidget(self.table)
        split.setSizes([480, 800])
        outer.addWidget(split, 1)
        self.status = QLabel("")
        self.status.setWordWrap(True)
        # collection actions under the table, so the tab fits an 800-pixel screen
        bottom = QHBoxLayout()
        bottom.addWidget(self.status, 1)
        for w in (self.import_btn, self.export_btn, self.clear_btn):
            bottom.addWidget(w)
        outer.addLayout(bottom)

        QShortcut(QKeySequence("Ctrl+R"), self, activated=self.start_all)
        QShortcut(QKeySequence(Qt.Key_Escape), self, activated=self.stop_all)
        self.metric_combo.addItems(["guesses", "brt"])

    # ------------------------------------------------------------ store
    @property
    def store(self) -> CollectionStore | None:
        if self._store is None:
            try:
                self._store = CollectionStore()
            except CollectionError as e:
                self.status.setText(f"Collections are not stored: {e}")
                return None
        return self._store

    # ------------------------------------------------------------ runs
    def _job(self, method: str):
        from sudokustudio.commands.generate import build_job

        row = self.rows[method]
        target = row["target"].value()
        src = row["source"].currentText() if method != "bottom-up" else None
        # W costs ~10 ms a puzzle: too slow for the thousands a weighted draw can yield
        difficulty = ["guesses", "brt"] if method == "weighted-subsets" else None
        return build_job(method, target, grid_source=src, difficulty=difficulty)

    def is_running(self, method: str) -> bool:
        s = self.series.get(method)
        return bool(s and s.runner is not None and s.runner.running)

    def toggle(self, method: str) -> None:
        if self.is_running(method):
            self.stop(method)
        else:
            self.start(method)

    def start(self, method: str) -> None:
        if self.is_running(method):
            return
        try:
            job, n_batches = self._job(method)
        except ValueError as e:
            QMessageBox.warning(self, "Cannot start", f"{METHOD_INFO[method][0]}: {e}")
            return
        seed = self.seed_spin.value()
        row = self.rows[method]
        s = Series(METHOD_INFO[method][0], method, row["color"], target=row["target"].value())
        if job.kind == "generate-weighted":
            s.result = job.empty()
        store = self.store
        if store is not None:
            s.collection_id = store.create(f"{method} seed {seed}", method, job.spec, seed)
        kw = {}
        if cluster_address(self.settings) is None:
            kw["pool"] = self.pool
        runner = make_runner(job, seed, n_batches, settings=self.settings, parent=self, workers=2, **kw)
        runner.batchFinished.connect(lambda idx, res, m=method: self._on_batch(m, idx, res))
        runner.failed.connect(lambda msg, m=method: self._on_failed(m, msg))
        runner.finished.connect(lambda cancelled, m=method: self._on_finished(m, cancelled))
        s.runner = runner
        s.started = time.perf_counter()
        self.series[method] = s
        row["button"].setText("Stop")
        runner.start()

    def stop(self, method: str) -> None:
        s = self.series.get(method)
        if s and s.runner is not None:
            s.runner.cancel()

    def start_all(self) -> None:
        for m in METHOD_INFO:
            self.start(m)

    def stop_all(self) -> None:
        for m in METHOD_INFO:
            self.stop(m)

    def _on_batch(self, method: str, idx: int, res) -> None:
        s = self.series.get(method)
        if s is None:
            return
        if s.collection_id is not None and self._store is not None and res.count:
            self._store.add_batch(s.collection_id, idx, res.puzzles, res.weights, res.metrics)
        s.dirty = True
        if method == "controlled-bias" and s.runner.total().count >= s.target:
            s.runner.cancel()

    def _on_failed(self, method: str, msg: str) -> None:
        QMessageBox.critical(self, "Generator failed", f"{METHOD_INFO[method][0]}: {msg}")

    def _on_finished(self, method: str, cancelled: bool) -> None:
        s = self.series.get(method)
        if s is not None:
            s.result = s.runner.total()
            s.seconds = s.runner.elapsed
            s.dirty = True
        self.rows[method]["button"].setText("Start")
        self.refresh()

    # ------------------------------------------------------------ collections
    def import_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Import collection", "", self.file_filters)
        if path:
            self.open_file(path)

    def open_file(self, path: str, generator: str | None = None) -> None:
        if generator is None:
            guess = "controlled-bias" if "controlled" in path.replace("_", "-") else "unknown"
            items = ["unknown", "top-down", "bottom-up", "controlled-bias", "weighted-subsets"]
            generator, ok = QInputDialog.getItem(
                self, "Import collection", "Which generator made it?\n(controlled-bias collections can be "
                "corrected; weighted ones need a weight column)", items, items.index(guess), False)
            if not ok:
                return
        try:
            coll = import_collection(path, generator=generator)
        except CollectionError as e:
            self.status.setText(f"Cannot import: {e}")
            QMessageBox.warning(self, "Cannot import", str(e))
            return
        self.add_collection(coll)

    def add_collection(self, coll) -> Series:
        from sudokustudio.sudoku.difficulty import FAST_METRICS, puzzle_difficulty

        metrics = dict(coll.metrics)
        missing = [m for m in FAST_METRICS if m not in metrics]
        metrics.update(puzzle_difficulty(coll.puzzles, missing) if missing else {})
        res = GenResult(coll.puzzles, coll.weights, metrics)
        color = SERIES[(4 + sum(s.imported for s in self.series.values())) % len(SERIES)]
        key = f"import:{coll.source or coll.name}:{len(self.series)}"
        s = Series(f"{coll.name} (imported)", coll.generator, color, res, imported=True)
        self.series[key] = s
        if self.store is not None:
            s.collection_id = self.store.add_collection(coll)
        self.status.setText(f"Imported {len(coll)} puzzles from {coll.source}")
        self.refresh()
        return s

    def export_file(self) -> None:
        names = [k for k, s in self.series.items() if s.result.count]
        if not names:
            QMessageBox.information(self, "Export", "Nothing to export yet: run a generator or import a collection.")
            return
        labels = [self.series[k].name for k in names]
        label, ok = QInputDialog.getItem(self, "Export collection", "Collection:", labels, 0, False)
        if not ok:
            return
        key = names[labels.index(label)]
        path, _ = QFileDialog.getSaveFileName(self, "Export collection", f"{key.split(':')[0]}.csv",
                                              "CSV with clues, weight, difficulty (*.csv);;"
                                              "One puzzle per line (*.txt *.sdm)")
        if path:
            self.export_series(key, path)

    def export_series(self, key: str, path: str) -> int:
        s = self.series[key]
        res = s.runner.total() if s.runner is not None else s.result
        try:
            n = export_puzzles(path, res, generator=s.method, seed=self.seed_spin.value() if not s.imported else "")
        except (CollectionError, OSError) as e:
            QMessageBox.warning(self, "Cannot export", str(e))
            return 0
        self.status.setText(f"Exported {n} puzzles to {path}")
        return n

    def clear(self) -> None:
        self.stop_all()
        for s in self.series.values():
            if s.runner is not None:
                s.runner.wait(5000)
        self.series.clear()
        self._draw()
        self.refresh()

    # ------------------------------------------------------------ statistics
    def _set_correct(self, on: bool) -> None:
        self.correct = on
        self._mark_dirty()

    def _mark_dirty(self) -> None:
        for s in self.series.values():
            s.dirty = True
        self.refresh()

    def _series_stats(self, s: Series) -> dict:
        from sudokustudio.sudoku.generators import describe_result

        res = s.result
        method = s.method if s.method in METHOD_INFO else "imported"
        d = describe_result(method if method != "imported" else "top-down", res)
        if s.method == "weighted-subsets" and getattr(res, "extra", None):
            from sudokustudio.sudoku.weighted import weighted_stats

            d.update(weighted_stats(res))
            d["corrected_mean"], d["corrected_sd"] = d["weighted_mean"], d["weighted_sd"]
        elif s.method == "weighted-subsets":  # imported with weights
            from sudokustudio.core.stats import Moments

            m = Moments.of(res.clues, res.weights)
            d["corrected_mean"], d["corrected_sd"] = m.mean, m.sd
        return d

    def refresh(self) -> None:
        changed = False
        for key, s in self.series.items():
            if s.runner is not None and s.runner.running:
                s.result = s.runner.total()
                s.seconds = s.runner.elapsed
                s.dirty = True
            if s.dirty:
                s.stats = self._series_stats(s) if s.result.count or s.method == "weighted-subsets" else None
                s.dirty = False
                changed = True
        self._update_rows()
        if changed or not self.series:
            self._update_metric_names()
            self._draw()
            self._fill_table()

    def _update_rows(self) -> None:
        for method, row in self.rows.items():
            s = self.series.get(method)
            if s is None:
                row["progress"].setValue(0)
                row["count"].setText("0")
                row["rate"].setText("–")
                continue
            n = s.result.count
            done = s.result.tries if method == "weighted-subsets" else n
            row["progress"].setValue(int(1000 * min(1.0, done / max(1, s.target))))
            row["progress"].setFormat(f"{done:,} / {s.target:,}")
            row["count"].setText(f"{n:,}")
            rate = n / s.seconds if s.seconds > 0 else float("nan")
            row["rate"].setText("–" if rate != rate else (f"{rate:,.1f}/s" if rate < 100 else f"{rate:,.0f}/s"))

    def _update_metric_names(self) -> None:
        names = []
        for s in self.series.values():
            for k in s.result.metrics:
                if k not in names:
                    names.append(k)
        have = [self.metric_combo.itemText(i) for i in range(self.metric_combo.count())]
        for k in names:
            if k not in have:
                self.metric_combo.addItem(k)

    def _hist_fraction(self, s: Series) -> tuple[np.ndarray, np.ndarray]:
        if s.method == "weighted-subsets" and getattr(s.result, "extra", None):
            h = s.result.extra["whist"]
        elif s.method == "weighted-subsets":
            h = s.result.whist()
        else:
            h = s.result.hist().astype(float)
            if s.method == "controlled-bias" and self.correct:
                h = h * CF
        tot = h.sum()
        x = np.arange(82)
        if tot <= 0:
            return x[:0], h[:0]
        nz = np.nonzero(h)[0]
        lo, hi = max(0, nz.min() - 1), min(81, nz.max() + 1)
        return x[lo:hi + 1], (h / tot)[lo:hi + 1]

    def _curve(self, plot, key: str, name: str | None):
        """A persistent curve per (plot, series): updated with setData, never re-created
        (clearing and re-adding items at 5 Hz is slow and has crashed pyqtgraph offscreen)."""
        item = self._curves.get((id(plot), key))
        if item is None:
            item = plot.plot([], [], name=name)
            self._curves[(id(plot), key)] = item
        return item

    def _draw(self) -> None:
        if not hasattr(self, "_curves"):
            self._curves = {}
        # the published controlled-bias sample (seed 002 §3.1.2), raw or corrected, as a reference
        ref = np.zeros(82)
        for n, k in PUBLISHED_CB_HIST.items():
            ref[n] = k
        if self.correct:
            ref = ref * CF
        ref /= ref.sum()
        xs = np.arange(19, 34)
        ref_item = self._curve(self.hist_plot, "ref", "seed 002")
        ref_item.setData(xs, ref[19:34])
        ref_item.setPen(pg.mkPen("#888888", width=2, style=Qt.DashLine))
        self.hist_plot.setTitle("Clue counts" + (" (controlled-bias corrected by cf(n))" if self.correct else ""),
                                color="k")
        metric = self.metric_combo.currentText()
        self.metric_plot.setTitle(f"Mean {METRIC_TITLES.get(metric, metric)} per clue count", color="k")
        shown = {"ref"}
        for key, s in self.series.items():
            if not s.result.count and not (s.method == "weighted-subsets" and getattr(s.result, "extra", None)):
                continue
            x, y = self._hist_fraction(s)
            style = Qt.DotLine if s.imported else Qt.SolidLine
            item = self._curve(self.hist_plot, key, _short(s).replace("\n", " ").replace("controlled- bias", "c-bias"))
            item.setData(x, y, pen=pg.mkPen(s.color, width=2.5, style=style), symbol="o", symbolSize=6,
                         symbolBrush=s.color, symbolPen=s.color)
            shown.add(key)
            vals = s.result.metrics.get(metric)
            m_item = self._curve(self.metric_plot, key, None)
            if vals is not None and len(vals) == s.result.count and s.result.count:
                clues = s.result.clues
                ns = np.unique(clues)
                counts = np.array([(clues == n).sum() for n in ns])
                means = np.array([np.nanmean(vals[clues == n]) for n in ns], dtype=float)
                keep = counts >= 5     # per-clue means of tiny groups are noise
                m_item.setData(ns[keep], means[keep], pen=pg.mkPen(s.color, width=2, style=style),
                               symbol="o", symbolSize=5, symbolBrush=s.color, symbolPen=s.color)
            else:
                m_item.setData([], [])
        ymax = max([float(np.max(it.yData)) for it in self._curves.values()
                    if it.yData is not None and len(it.yData) and it in self.hist_plot.listDataItems()] or [0.4])
        self.hist_plot.setYRange(0, ymax * 1.45, padding=0)   # room for the legend above the curves
        for (pid, key), item in list(self._curves.items()):
            if key not in shown and key not in self.series:
                plot = self.hist_plot if pid == id(self.hist_plot) else self.metric_plot
                plot.removeItem(item)
                legend = plot.plotItem.legend
                if legend is not None:
                    legend.removeItem(item)
                del self._curves[(pid, key)]

    # ------------------------------------------------------------ table
    def _fill_table(self) -> None:
        live = [s for s in self.series.values() if s.stats is not None]
        pub_cols = [("seed 002 top-down", PUBLISHED["top-down"]), ("seed 002 bottom-up", PUBLISHED["bottom-up"]),
                    ("seed 002 c-bias", PUBLISHED["controlled-bias"]),
                    ("seed 002 real", PUBLISHED["real"])]
        metric_names = []
        for s in live:
            for k in s.result.metrics:
                if k not in metric_names:
                    metric_names.append(k)
        rows = ["puzzles", "rate (/s)", "mean clues", "  standard error", "sd", "skewness", "excess kurtosis",
                "corrected/weighted mean", "  standard error ", "corrected/weighted sd", "grids per puzzle"]
        rows += [f"mean {METRIC_TITLES.get(k, k)}" for k in metric_names]
        self.table.clear()
        self.table.setRowCount(len(rows))
        self.table.setColumnCount(len(live) + len(pub_cols))
        self.table.setVerticalHeaderLabels(rows)
        headers = [_short(s) for s in live] + [n.replace("seed 002 ", "seed 002\n") for n, _ in pub_cols]
        self.table.setHorizontalHeaderLabels(headers)
        for j, s in enumerate(live):
            d = s.stats
            rate = s.result.count / s.seconds if s.seconds > 0 else float("nan")
            corr = s.method in ("controlled-bias", "weighted-subsets")
            use_corr = corr and (self.correct or s.method == "weighted-subsets")
            cse = d.get("corrected_mean_se", d.get("weighted_mean_se"))
            vals = [f"{s.result.count:,}", _f(rate, 1) if not s.imported else "",
                    _f(d["mean"], 3), "±" + _f(d.get("mean_se"), 3), _f(d["sd"], 3), _f(d["skew"], 3),
                    _f(d["kurt"], 3),
                    _f(d.get("corrected_mean"), 3) if corr else "",
                    ("±" + _f(cse, 3)) if corr and cse is not None else "",
                    _f(d.get("corrected_sd"), 3) if corr else "",
                    f"{d['tries_per_puzzle']:,.0f}" if s.method == "controlled-bias" and d.get("tries_per_puzzle") else ""]
            for k in metric_names:
                m = d.get("difficulty", {}).get(k)
                if m is None:
                    vals.append("")
                else:
                    v = m.get("corrected_mean", m["mean"]) if use_corr else m["mean"]
                    vals.append(_f(v, 3))
            for i, v in enumerate(vals):
                item = QTableWidgetItem(v)
                item.setTextAlignment(Qt.AlignRight | Qt.AlignVCenter)
                self.table.setItem(i, j, item)
            hi = self.table.horizontalHeaderItem(j)
            if hi is not None:
                hi.setForeground(QColor(s.color))
                hi.setToolTip(f"{s.name}: {s.method}" + (" — imported collection" if s.imported else ""))
        grey = QColor("#f0f0f0")
        for jj, (name, p) in enumerate(pub_cols):
            j = len(live) + jj
            vals = {"mean clues": _f(p["mean"], 3), "sd": _f(p["sd"], 3), "skewness": _f(p["skew"], 3),
                    "excess kurtosis": _f(p["kurt"], 3)}
            if "real" in name:
                vals = {"corrected/weighted mean": _f(p["mean"], 3), "corrected/weighted sd": _f(p["sd"], 3),
                        "skewness": "~0", "excess kurtosis": "~0"}
            if "c-bias" in name:
                vals["grids per puzzle"] = "~257,000"
                vals["puzzles"] = "5,926,343"
            for i, r in enumerate(rows):
                item = QTableWidgetItem(vals.get(r, ""))
                item.setBackground(grey)
                item.setTextAlignment(Qt.AlignRight | Qt.AlignVCenter)
                item.setToolTip(f"{name}: {p['source']} (seed 002)")
                self.table.setItem(i, j, item)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeToContents)

    # ------------------------------------------------------------ closing
    def shutdown(self) -> None:
        self.timer.stop()
        for s in self.series.values():
            if s.runner is not None:
                s.runner.cancel()
        for s in self.series.values():
            if s.runner is not None:
                s.runner.wait()
        self.pool.waitForDone()
        if self._store is not None:
            self._store.close()
            self._store = None


def _short(s: Series) -> str:
    if s.imported:
        return f"{s.name.replace(' (imported)', '')}\n(imported)"
    return {"top-down": "top-down", "bottom-up": "bottom-up", "controlled-bias": "controlled-\nbias",
            "weighted-subsets": "weighted\nsubsets"}.get(s.method, s.name)


def _f(v, digits: int) -> str:
    if v is None:
        return ""
    try:
        v = float(v)
    except (TypeError, ValueError):
        return str(v)
    if math.isnan(v):
        return "–"
    return f"{v:.{digits}f}"
