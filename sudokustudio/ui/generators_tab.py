"""Generators tab: the seed 002 minimal-puzzle generators side by side.

A view over ``models.generators.GeneratorsModel``: each generator runs as
batches on the window's executor (two threads shared by every tab; runs
interleave), the model commits each batch to the collection store from the
run's own thread, and this tab redraws on a timer (5 Hz) from what the model
gives.  Imports read the file and compute its difficulty off the UI thread,
with a progress bar.
"""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QObject, QTimer, Qt, Signal
from PySide6.QtGui import QColor, QKeySequence, QShortcut
from PySide6.QtWidgets import (QAbstractItemView, QCheckBox, QComboBox, QFileDialog, QGridLayout, QGroupBox,
                               QHBoxLayout, QInputDialog, QLabel, QLineEdit, QMessageBox, QProgressBar,
                               QPushButton, QSpinBox, QSplitter, QTableWidget, QVBoxLayout, QWidget)

from sudokustudio.core import limits
from sudokustudio.jobs.collections import CollectionError, CollectionStore
from sudokustudio.jobs.qt import kernel_gate, window_executor
from sudokustudio.models.generators import (IMPORT_GENERATORS, METHODS, METRIC_TITLES, ROW_KEYS, SHARES_ROW, TAIL_ROW,
                                            GenDrawing, GeneratorsModel, GenSeries)
from sudokustudio.ui.background import BackgroundCalls, show_error
from sudokustudio.ui.kernels import when_kernels_ready
from sudokustudio.ui.style import SERIES, legend_ground
from sudokustudio.ui.widgets.steady_plot import StagedUpdates, SteadyRange, cache_axes, set_title
from sudokustudio.ui.widgets.table_fill import fill_table

#: a narrow window takes its width from the table (it scrolls), not from the plots (at 1024 px
#: they had 380, their title and legend cut off); a short one keeps the metric plot's ticks apart
PLOTS_MIN_WIDTH, METRIC_MIN_HEIGHT = 460, 130
#: what an export writes: everything, or the first puzzle of each isomorphism class (sudoku.canon)
EXPORT_CHOICES = ["All puzzles", "One per isomorphism class"]

METHOD_INFO = {
    "top-down": ("Top-down (suexg)", "Delete the clues of a random grid in random order, keeping each "
                 "deletion that leaves the solution unique (seed 002 §1.1). Biased towards few clues."),
    "bottom-up": ("Bottom-up (Metcalf)", "Add random clues until unique, then remove redundant clues "
                  "(seed 002 §1.1). The most biased towards few clues."),
    "controlled-bias": ("Controlled-bias", "Delete random clues; abandon the grid at the first multi-solution "
                        "puzzle (seed 002 §2.1). Its bias is known and corrected by cf(n). ~257,000 grids "
                        "per puzzle: the row counts the grids tried until the first puzzle comes."),
    "weighted-subsets": ("Weighted subsets", "All minimal puzzles inside random 32-clue subsets, each weighted "
                         "by 1/Pr (seed 000): weighted statistics are unbiased over all minimal puzzles. "
                         "The rare 30- to 33-clue puzzles come from 33-clue subsets searched only down "
                         "to 30 clues, two of them a grid down to 29 (their 29-clue finds pooled with the "
                         "32-subsets'). Still heavy-tailed: a 29-clue puzzle turns up in about one grid "
                         "sample in 750, so short runs read the mean's error low."),
    "pattern": ("Pattern / symmetry", "A chosen clue pattern (mask: 81 characters, x = clue, . = empty): random "
                "grids kept on the mask until one is unique; or minimal puzzles whose clue positions have a "
                "symmetry (whole orbits deleted top-down, kept when minimal). The row shows the grids tried "
                "per puzzle: a hopeless pattern shows itself early."),
}
SHAPES = ["mask", "central", "diagonal", "antidiagonal", "mirror", "dihedral"]
#: a 24-clue centrally symmetric pattern (thousands of grids per puzzle)
DEFAULT_MASK = "..x....xx...xx...x.....x.x.....x.x..x..x.x..x..x.x.....x.x.....x...xx...xx....x.."
RATING_TIP = ("Target difficulty: keep only puzzles with a rating in a band, e.g. W:3-5, guesses:0-2, brt:0 "
              "(several separated by spaces); empty: every puzzle")
GRID_SOURCE_TIPS = {
    "solver": "fresh grids from the randomized solver — biased (not uniform over grids)",
    "pairswap": "fresh grids from Barker's pairswap Monte Carlo — slow; not known to be uniform",
    "pool": "random isomorphs of a pool of 256 solver grids — cheap; biased (finite pool)",
    "sequential": "the estimator's sequential grid sampler, each grid weighted by 1/q(grid) — unbiased",
}
#: the grid sources of a generator's row, its default first
GRID_SOURCES = {"top-down": ("solver", "pool", "pairswap"), "controlled-bias": ("pool", "solver", "pairswap"),
                "weighted-subsets": ("sequential", "pool")}
DEFAULT_TARGET = {"top-down": 20000, "bottom-up": 10000, "controlled-bias": 100, "weighted-subsets": 20000,
                  "pattern": 20}


class GeneratorsTab(QWidget):
    #: stored collection ids to show in the Collections tab (the window connects it)
    browseRequested = Signal(list)
    title = "Generators"
    #: kernel groups the window loads in the background once the tab has been shown a moment
    kernel_groups = ("top-down", "generators", "generators-weighted")
    file_filters = "Puzzle collections (*.txt *.sdm *.csv);;All files (*)"

    def __init__(self, settings=None, parent=None):
        super().__init__(parent)
        self.settings = settings
        store, problem = None, ""
        try:
            store = CollectionStore()
        except CollectionError as e:
            problem = f"Collections are not stored: {e}"
        self.model = GeneratorsModel(store, lambda: window_executor(self.settings), kernel_gate(),
                                     colours=SERIES)
        self.calls = BackgroundCalls(self, "Collections")   # imports and exports
        self.calls.busyChanged.connect(lambda kinds: self._import_busy("import" in kinds))
        self.drawings = BackgroundCalls(self, "Generators")   # the statistics the plots and table show
        self.rows: dict[str, dict] = {}
        self._curves: dict = {}
        self._versions: dict = {}    # the data each curve shows (GenDrawing's SeriesCurves.version)
        self._stages = StagedUpdates(self)     # a drawing's plots and table, shown in turn (_show)
        self._drawn = None
        self._build()
        self.status.setText(problem)
        self.timer = QTimer(self, interval=200, timeout=self.refresh)
        self.timer.start()

    @property
    def series(self) -> dict[str, GenSeries]:
        return self.model.series

    # ------------------------------------------------------------ layout
    def _build(self) -> None:
        outer = QVBoxLayout(self)
        outer.addWidget(self._generator_rows())
        bar = QHBoxLayout()
        self.start_all_btn = QPushButton("Start all")
        self.start_all_btn.setToolTip("Start every generator (Ctrl+R); they share two worker threads")
        self.start_all_btn.clicked.connect(lambda: when_kernels_ready(("generators",), self.start_all, self,
                                                                      "Start all"))
        self.stop_all_btn = QPushButton("Stop all")
        self.stop_all_btn.setToolTip("Stop every generator (Esc); finished batches are kept")
        self.stop_all_btn.clicked.connect(self.stop_all)
        self.seed_spin = QSpinBox()
        self.seed_spin.setRange(0, limits.SPIN_SEED_MAX)   # within the CLI's seeds (core.limits)
        self.seed_spin.setValue(1)
        self.seed_spin.setToolTip("Run seed: the same seed gives the same collection")
        self.correct_box = QCheckBox("cf(n) correction")
        self.correct_box.setChecked(True)
        self.correct_box.setToolTip("Weight each n-clue controlled-bias puzzle by cf(n), "
                                    "cf(n+1)/cf(n) = (81-n)/(n+1), cf(26) = 1 (seed 002 §2.2-2.3)")
        self.correct_box.toggled.connect(self._set_correct)
        self.metric_combo = QComboBox()
        self.metric_combo.setToolTip("Difficulty metric shown per clue count")
        self.metric_combo.addItems(["guesses", "brt", "W"])
        self.metric_combo.currentTextChanged.connect(lambda _: self.refresh(force=True))
        for w in (self.start_all_btn, self.stop_all_btn, QLabel("seed"), self.seed_spin, self.correct_box):
            bar.addWidget(w)
        bar.addStretch(1)
        for w in (QLabel("difficulty:"), self.metric_combo):
            bar.addWidget(w)
        outer.addLayout(bar)
        split = QSplitter(Qt.Horizontal)
        split.addWidget(self._plots())
        split.setCollapsible(0, False)
        self.table = QTableWidget()
        self.table.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.table.setAlternatingRowColors(True)
        font = self.table.font()
        font.setPointSizeF(font.pointSizeF() * 0.9)
        self.table.setFont(font)
        self.table.setToolTip("Statistics of the clue count and difficulty; the grey columns are the "
                              "published figures of seed 002")
        split.addWidget(self.table)
        split.setSizes([480, 800])
        outer.addWidget(split, 1)
        outer.addLayout(self._collection_bar())
        QShortcut(QKeySequence("Ctrl+R"), self, activated=self.start_all)
        QShortcut(QKeySequence(Qt.Key_Escape), self, activated=self.stop_all)

    def _generator_rows(self) -> QGroupBox:
        box = QGroupBox("Generators")
        grid = QGridLayout(box)
        for j, h in enumerate(["", "grid source", "target", "rating", "", "progress", "puzzles", "rate"]):
            grid.addWidget(QLabel(f"<b>{h}</b>"), 0, j)
        for i, method in enumerate(ROW_KEYS):
            title, tip = METHOD_INFO[method]
            color = self.model.colour_of(method)
            name = QLabel(f"<span style='color:{color}; font-size:14pt'>■</span> {title}")
            name.setToolTip(tip)
            src = QComboBox()
            if method in GRID_SOURCES:
                for key in GRID_SOURCES[method]:
                    src.addItem(key)
                    src.setItemData(src.count() - 1, GRID_SOURCE_TIPS[key], Qt.ToolTipRole)
                src.setToolTip("Source of complete grids (hover an item for its bias); seed 002 §2.4 finds "
                               "controlled-bias insensitive to it")
            elif method == "pattern":
                src.addItems(SHAPES)
                src.setToolTip("mask: clues exactly on the mask below; a symmetry: minimal puzzles whose clue "
                               "positions have it")
            else:
                src.addItem("(no grid)")
                src.setEnabled(False)
                src.setToolTip("bottom-up builds puzzles from the empty grid")
            source_cell = src
            mask = None
            if method == "pattern":
                mask = QLineEdit(DEFAULT_MASK)
                mask.setToolTip("81 characters: x or 1 = clue, . or 0 = empty")
                src.currentTextChanged.connect(lambda t, e=mask: e.setEnabled(t == "mask"))
                source_cell = QWidget()
                lay = QHBoxLayout(source_cell)
                lay.setContentsMargins(0, 0, 0, 0)
                lay.addWidget(src)
                lay.addWidget(mask, 1)
            rating = QLineEdit()
            rating.setPlaceholderText("any")
            rating.setToolTip(RATING_TIP)
            rating.setMaximumWidth(rating.fontMetrics().horizontalAdvance("guesses:0-10 ") + 12)
            target = QSpinBox()
            target.setRange(1, 10_000_000)
            target.setValue(DEFAULT_TARGET[method])
            target.setToolTip("puzzles to generate" if method != "weighted-subsets" else "subset samples to draw")
            btn = QPushButton("Start")
            btn.setMinimumWidth(btn.fontMetrics().horizontalAdvance("Stopping…") + 24)  # no jump on relabel
            btn.setToolTip(f"Start or stop {title}")
            btn.clicked.connect(lambda _=False, m=method: self.toggle(m))
            prog = QProgressBar()
            prog.setRange(0, 1000)
            prog.setTextVisible(True)
            count, rate = QLabel("0"), QLabel("–")
            for j, w in enumerate((name, source_cell, target, rating, btn, prog, count, rate)):
                grid.addWidget(w, i + 1, j)
            self.rows[method] = dict(name=name, source=src, target=target, button=btn, progress=prog,
                                     count=count, rate=rate, rating=rating, mask=mask)
        grid.setColumnStretch(5, 1)
        return box

    def _plots(self) -> QSplitter:
        plots = QSplitter(Qt.Vertical)
        self.hist_plot = pg.PlotWidget(background="w")
        self.hist_plot.setTitle("Clue-count distribution", color="k")
        self.hist_plot.setLabel("bottom", "clues")
        self.hist_plot.setLabel("left", "fraction of puzzles")
        self.hist_plot.showGrid(x=True, y=True, alpha=0.2)
        self.hist_plot.addLegend(offset=(-5, 5), colCount=2, labelTextColor="k", **legend_ground())
        self.hist_plot.getAxis("left").enableAutoSIPrefix(False)
        self.metric_plot = pg.PlotWidget(background="w")
        self.metric_plot.setLabel("bottom", "clues")
        self.metric_plot.showGrid(x=True, y=True, alpha=0.2)
        self.metric_note = pg.TextItem("", color="#555555", anchor=(0.5, 0.5))
        self.metric_plot.addItem(self.metric_note, ignoreBounds=True)
        self.metric_plot.getViewBox().sigResized.connect(self._fit_metric_note)
        for plot in (self.hist_plot, self.metric_plot):
            cache_axes(plot)
        # shares settle as a run grows: a range framed on its first few puzzles (a share of 1)
        # is framed afresh once the data fill less than 60 % of it (the default 40 % kept
        # the y axis at 1.6 while the data reached 0.77)
        self._hist_range = SteadyRange(self.hist_plot, margin=0.02, grow=0.1, fill=0.6)
        self._metric_range = SteadyRange(self.metric_plot, margin=0.1, grow=0.1)
        plots.addWidget(self.hist_plot)
        plots.addWidget(self.metric_plot)
        plots.setSizes([500, 250])
        plots.setMinimumWidth(PLOTS_MIN_WIDTH)
        self.metric_plot.setMinimumHeight(METRIC_MIN_HEIGHT)
        return plots

    def _collection_bar(self) -> QHBoxLayout:
        self.status = QLabel("")
        self.status.setWordWrap(True)
        self.import_progress = QProgressBar()
        self.import_progress.setMaximumWidth(200)
        self.import_progress.setVisible(False)
        self.import_btn = QPushButton("Import…")
        self.import_btn.setToolTip("Import a collection (.txt/.sdm/.csv) to compare it (Ctrl+O)")
        # the fast difficulty metrics of an import use the generators' kernels
        self.import_btn.clicked.connect(lambda: when_kernels_ready(("generators",), self.import_dialog, self,
                                                                   "Import"))
        self.export_btn = QPushButton("Export…", toolTip="Export a collection to .txt/.sdm/.csv (Ctrl+E)",
                                      clicked=self.export_file)
        self.browse_btn = QPushButton("Browse…", clicked=self.browse, toolTip="Open a run's or import's puzzles "
                                      "in the Collections tab: the grid, the W path step by step, isomorphs (Ctrl+B)")
        QShortcut(QKeySequence("Ctrl+B"), self, activated=self.browse)
        self.clear_btn = QPushButton("Clear", clicked=self.clear,
                                     toolTip="Forget the runs and imports shown (stored collections stay in the store)")
        bottom = QHBoxLayout()
        bottom.addWidget(self.status, 1)
        for w in (self.import_progress, self.import_btn, self.export_btn, self.browse_btn, self.clear_btn):
            bottom.addWidget(w)
        return bottom

    # ------------------------------------------------------------ runs
    def is_running(self, method: str) -> bool:
        return self.model.running(method)

    def toggle(self, method: str) -> None:
        (self.stop if self.is_running(method) else self.start)(method)

    def start(self, method: str, refresh: bool = True) -> None:
        row = self.rows[method]
        src = row["source"].currentText() if method not in ("bottom-up", "pattern") else None
        kw = {"bands": row["rating"].text().split() or None}
        if method == "pattern":
            shape = row["source"].currentText()
            kw.update(mask=row["mask"].text().strip(), symmetry=None if shape == "mask" else shape)
        try:
            self.model.start(method, row["target"].value(), self.seed_spin.value(), grid_source=src, **kw)
        except ValueError as e:
            QMessageBox.warning(self, "Cannot start", f"{METHOD_INFO[method][0]}: {e}")
        if refresh:
            self.refresh()   # the rows at once; the plots from a worker (drawn here, a restart stalled 0.1-0.2 s)

    def stop(self, method: str) -> None:
        self.model.stop(method)
        self.refresh()   # the rows at once ("Stopping…"); the statistics off the UI thread (~0.1 s for big series)

    def start_all(self) -> None:
        for m in METHODS:
            self.start(m, refresh=False)
        self.refresh()

    def stop_all(self) -> None:
        self.model.stop_all()
        self.refresh()

    # ------------------------------------------------------------ collections
    def import_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Import collection", "", self.file_filters)
        if path:
            self.open_file(path)

    def open_file(self, path: str, generator: str | None = None) -> None:
        """Import a collection: read and rated off the UI thread, then joined to the comparison."""
        if self.calls.busy("import"):
            QMessageBox.information(self, "Import", "An import is under way; wait for it to finish.")
            return
        if generator is None:
            guess = self.model.guess_generator(path)
            generator, ok = QInputDialog.getItem(
                self, "Import collection", "Which generator made it?\n(controlled-bias collections can be "
                "corrected; weighted ones need a weight column)", IMPORT_GENERATORS,
                IMPORT_GENERATORS.index(guess), False)
            if not ok:
                return
        self.status.setText(f"Importing {path}…")
        self.import_progress.setRange(0, 0)
        progress = _ProgressRelay(self.import_progress)
        self.calls.submit("import", lambda: self.model.read_collection(path, generator, progress.report),
                          on_done=self.add_collection,
                          on_error=lambda e: self._failed(f"Cannot import {path}", "Cannot import", e))

    def _failed(self, status: str, title: str, exc: BaseException) -> None:
        self.status.setText(status)
        show_error(self, title, exc)

    def _import_busy(self, busy: bool) -> None:
        self.import_progress.setVisible(busy)
        self.import_btn.setEnabled(not busy)

    def add_collection(self, coll) -> GenSeries:
        s = self.model.add_collection(coll)
        self.status.setText(f"Imported {len(coll):,} puzzles from {coll.source}{self.model.isomorph_text(coll)}")
        self.refresh(force=True)
        return s

    def browse(self) -> None:
        """Ask which stored series to browse (all of them is one choice)."""
        stored = [s for s in self.model.series.values() if s.collection_id is not None]
        if not stored:
            QMessageBox.information(self, "Browse", "No stored collection yet: run a generator or import a "
                                    "collection (or the collection store could not be opened).")
            return
        labels = ["all of them", *[s.name for s in stored]] if len(stored) > 1 else [stored[0].name]
        label, ok = QInputDialog.getItem(self, "Browse collection", "Collection:", labels, 0, False)
        if ok:
            chosen = stored if label == "all of them" else [stored[labels.index(label) - (len(labels) > 1)]]
            self.browseRequested.emit([s.collection_id for s in chosen])

    def export_file(self) -> None:
        series = self.model.exportable()
        if not series:
            QMessageBox.information(self, "Export", "Nothing to export yet: run a generator or import a collection.")
            return
        labels = [s.name for s in series]
        label, ok = QInputDialog.getItem(self, "Export collection", "Collection:", labels, 0, False)
        if not ok:
            return
        key = series[labels.index(label)].key
        path, _ = QFileDialog.getSaveFileName(self, "Export collection", f"{key.split(':')[0]}.csv",
                                              "CSV with clues, weight, difficulty (*.csv);;"
                                              "One puzzle per line (*.txt *.sdm)")
        if not path:
            return
        which, ok = QInputDialog.getItem(self, "Export collection", "Puzzles:", EXPORT_CHOICES, 0, False)
        if ok:
            self.export_series(key, path, one_per_class=which == EXPORT_CHOICES[1])

    def export_series(self, key: str, path: str, one_per_class: bool = False) -> None:
        """Write a series off the UI thread (74,000 puzzles held it 0.25 s, 0.76 s one per class;
        the isomorph classes' kernels are in the generators group, never compiled in the window)."""
        seed = self.seed_spin.value()

        def start():
            self.status.setText(f"Exporting to {path}…")
            self.calls.submit("export", lambda: self.model.export(key, path, seed=seed, one_per_class=one_per_class),
                              on_done=lambda n: self.status.setText(f"Exported {n:,} puzzles to {path}"),
                              on_error=lambda e: self._failed(f"Cannot export to {path}", "Cannot export", e))
        when_kernels_ready(("generators",), start, self, "Export") if one_per_class else start()

    def clear(self) -> None:
        self.model.clear()
        self.refresh(force=True)

    # ------------------------------------------------------------ drawing
    def _set_correct(self, on: bool) -> None:
        self.model.correct = on
        self.refresh(force=True)

    def refresh(self, force: bool = False) -> None:
        """The rows at each tick; the plots and the table when a series changed.  Their data (the
        statistics of every series) is computed by a worker thread (``GeneratorsModel.drawing``);
        ``force`` (a user's change of what is shown) asks for a new drawing at once, dropping one still
        to come (computed here, a cf(n) toggle over 74,000 puzzles froze the tab for 110-170 ms)."""
        key = tuple((k, s.current().count, s.current().tries, s.run.status if s.run else None)
                    for k, s in self.series.items())
        for method, row in self.rows.items():
            st, bar = self.model.row(method), row["progress"]
            fits = bar.fontMetrics().horizontalAdvance(st.progress_text) < bar.width() - 10  # else figures alone
            bar.setValue(int(1000 * st.progress))
            bar.setFormat(st.progress_text if fits else st.progress_short)
            row["count"].setText(st.count)
            row["rate"].setText(st.rate)
            row["button"].setText(st.button)
            row["button"].setEnabled(st.button != "Stopping…")
            bar.setToolTip(st.detail)
        self.export_btn.setEnabled(bool(self.model.exportable()))    # greyed while they would do nothing
        self.browse_btn.setEnabled(any(s.collection_id is not None for s in self.series.values()))
        self.clear_btn.setEnabled(bool(self.series))
        if self.model.collection_problem and self.model.collection_problem != self.status.text():
            self.status.setText(self.model.collection_problem)
        metric = self.metric_combo.currentText()
        if force or (key != self._drawn and not self.drawings.busy()):
            if force:
                self.drawings.drop()
            self._drawn = key
            self.drawings.submit("drawing", lambda: self.model.drawing(metric), on_done=self._show)

    def drawn(self) -> bool:
        """Whether the newest drawing asked for is shown, every stage of it (tests wait on it)."""
        return not self.drawings.busy() and self._stages.pending == 0

    def _show(self, drawing: GenDrawing) -> None:
        """Show a drawing: the clue-count plot at once, then the metric plot and the table, each
        ``REDRAW_STAGGER_MS`` after the one before has painted (a newer drawing takes over the
        stages left): one pass of the event loop had laid out and painted all
        three (the longest UI stall of four generators at once 23-35 ms, 10-20 ms staged)."""
        names = [self.metric_combo.itemText(i) for i in range(self.metric_combo.count())]
        for k in drawing.metric_names:
            if k not in names:
                self.metric_combo.addItem(k)
        self._stages.run([lambda: self._draw(drawing, "hist"), lambda: self._draw(drawing, "metric"),
                          lambda: self._fill_table(drawing)])

    def _curve(self, plot, key: str, name: str | None):
        """A persistent curve per (plot, series): updated with setData, never re-created
        (clearing and re-adding items at 5 Hz is slow and has crashed pyqtgraph offscreen)."""
        item = self._curves.get((id(plot), key))
        if item is None:
            item = plot.plot([], [], name=name)
            self._curves[(id(plot), key)] = item
        return item

    def _draw(self, d: GenDrawing, which: str) -> None:
        """Update one plot, ``which`` = "hist" (the clue counts) or "metric" (the difficulty
        signal per clue count), from the drawing."""
        hist = which == "hist"
        plot = self.hist_plot if hist else self.metric_plot
        xs, ref = d.reference
        if hist and self._versions.get("ref") != (d.correct,):
            self._versions["ref"] = (d.correct,)
            ref_item = self._curve(self.hist_plot, "ref", "seed 002")
            ref_item.setData(xs, ref)
            ref_item.setPen(pg.mkPen("#888888", width=2, style=Qt.DashLine))
        if hist:
            corrected = " (controlled-bias corrected by cf(n))" if d.correct else ""
            set_title(self.hist_plot, "Clue counts" + corrected, color="k")
        else:
            set_title(self.metric_plot, f"Mean {METRIC_TITLES.get(d.metric, d.metric)} per clue count", color="k")
        shown = {"ref"}
        x_lo, x_hi, ymax = float(xs.min()), float(xs.max()), float(ref.max())
        m_bounds = []
        for c in d.curves:
            s, key = c.series, c.key
            (x, y), (mx, my) = c.hist, c.metric
            shown.add(key)
            x_lo, x_hi, ymax = min(x_lo, float(x.min())), max(x_hi, float(x.max())), max(ymax, float(np.max(y)))
            if len(mx):
                m_bounds.append((float(mx.min()), float(mx.max()), float(np.min(my)), float(np.max(my))))
            if self._versions.get((which, key)) == c.version:   # unchanged: no setData, no repaint
                continue
            self._versions[(which, key)] = c.version
            style = Qt.DotLine if s.imported else Qt.SolidLine
            if hist:
                item = self._curve(plot, key, _short(s).replace("\n", " ").replace("controlled- bias", "c-bias"))
                item.setData(x, y, pen=pg.mkPen(s.colour, width=2.5, style=style), symbol="o", symbolSize=6,
                             symbolBrush=s.colour, symbolPen=s.colour)
            else:
                self._curve(plot, key, None).setData(
                    mx, my, pen=pg.mkPen(s.colour, width=2, style=style), symbol="o", symbolSize=5,
                    symbolBrush=s.colour, symbolPen=s.colour)
        # room for the legend above the curves; ranges move only when the data leaves them
        if hist:
            self._hist_range.fit(x=(x_lo - 0.5, x_hi + 0.5), y=(0.0, ymax * 1.45))
        else:
            if m_bounds:
                self._metric_range.fit(x=(min(b[0] for b in m_bounds) - 0.5, max(b[1] for b in m_bounds) + 0.5),
                                       y=(min(b[2] for b in m_bounds), max(b[3] for b in m_bounds)))
            if self.metric_note.toPlainText() != d.note:
                self.metric_note.setText(d.note)
            if d.note:
                vb = self.metric_plot.getViewBox()
                (x0, x1), (y0, y1) = vb.viewRange()
                self.metric_note.setPos((x0 + x1) / 2, (y0 + y1) / 2)
        for (pid, key), item in list(self._curves.items()):
            if pid == id(plot) and key not in shown and key not in self.series:
                plot.removeItem(item)
                legend = plot.plotItem.legend
                if legend is not None:
                    legend.removeItem(item)
                del self._curves[(pid, key)]
                self._versions.pop((which, key), None)

    def _fit_metric_note(self, *_) -> None:
        """Wrap the empty difficulty plot's note to the plot's width (a line wider than the plot
        was cut at both ends)."""
        width = 0.9 * self.metric_plot.getViewBox().width()
        if width > 0 and abs(self.metric_note.textItem.textWidth() - width) > 1:
            self.metric_note.setTextWidth(width)

    def _fill_table(self, d: GenDrawing) -> None:
        """The comparison table; its headers are rebuilt only when the columns change, and
        only changed cells are touched (see ui/widgets/table_fill.py)."""
        rows, cols, cells, kinds = d.table
        live = d.table_series
        headers = [_short(s) for s in live] + [c.replace("seed 002 ", "seed 002\n") for c in cols[len(live):]]
        structure = (tuple(rows), tuple(headers), tuple(kinds), tuple(s.colour for s in live))
        if structure != getattr(self, "_table_structure", None):
            self._table_structure = structure
            self.table.clear()
            self.table.setRowCount(len(rows))
            self.table.setColumnCount(len(cols))
            self.table.setVerticalHeaderLabels(rows)
            if SHARES_ROW in rows:
                self.table.verticalHeaderItem(rows.index(SHARES_ROW)).setToolTip(
                    "The weighted sampler's share of each clue count against seed 002's real distribution: "
                    "the largest |z| (combined standard errors) and where. A clue count found in fewer than "
                    "10 effective samples is not tested (its standard error is too rough): 'untested'")
            if TAIL_ROW in rows:
                self.table.verticalHeaderItem(rows.index(TAIL_ROW)).setToolTip(
                    "The weighted sampler's effective number of samples (Kish, over the samples' weights). "
                    "'untrusted' while it is under 100, one sample holds over 5% of the weight, or a clue "
                    "count holding 1% of the weight or more rests on fewer than 10 effective samples: "
                    "until then the mean's standard error and the shares' z-scores read low")
            self.table.setHorizontalHeaderLabels(headers)
            for j, kind in enumerate(kinds):
                if kind != "published":
                    s = live[j]
                    hi = self.table.horizontalHeaderItem(j)
                    hi.setForeground(QColor(s.colour))
                    hi.setToolTip(f"{s.name}: {s.method}" + (" — imported collection" if s.imported else ""))
        grey = QColor("#f0f0f0")

        def style(item, i, j):
            if kinds[j] == "published":
                item.setBackground(grey)
                item.setToolTip(f"{cols[j]} (seed 002)")

        fill_table(self.table, [[cells[i][j] for j in range(len(cols))] for i in range(len(rows))], style=style,
                   fit_rows=True)
        if TAIL_ROW in rows:   # an untrusted weighted tail reads orange, its reasons in the tooltip
            r = rows.index(TAIL_ROW)
            for j, name in enumerate(cols[:len(live)]):
                item = self.table.item(r, j)
                warning = d.tail_warnings.get(name, "")
                if item is not None and item.toolTip() != warning:
                    item.setToolTip(warning)
                    item.setForeground(QColor("#c05000") if warning else self.table.palette().text().color())

    # ------------------------------------------------------------ closing
    def shutdown(self, deadline: float = 1.5) -> None:
        self.timer.stop()
        self.calls.drop()
        self.drawings.drop()
        self.model.shutdown(deadline)


class _ProgressRelay(QObject):
    """Hands an import's progress from its worker thread to a progress bar (a queued signal)."""

    progressed = Signal(int, int)

    def __init__(self, bar: QProgressBar):
        super().__init__(bar)
        self.bar = bar
        self.progressed.connect(self._show)

    def report(self, done: int, total: int) -> None:  # in the worker thread
        self.progressed.emit(done, total)

    def _show(self, done: int, total: int) -> None:
        self.bar.setRange(0, total)
        self.bar.setValue(done)


def _short(s: GenSeries) -> str:
    if s.imported:
        return f"{s.name.replace(' (imported)', '')}\n(imported)"
    return {"top-down": "top-down", "bottom-up": "bottom-up", "controlled-bias": "controlled-\nbias",
            "weighted-subsets": "weighted\nsubsets"}.get(s.method, s.name)
