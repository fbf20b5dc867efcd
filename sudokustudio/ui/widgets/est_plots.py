"""Plots of the estimator tab (pyqtgraph, white background).

* ConvergencePlot: running estimate / reference with a +-2 sigma band.
* RelErrPlot: relative error against compute time, log-log, 1/sqrt(t) guide.
* MinimalsBarPlot: per-c estimates on a log scale with error bars, beside
  the published values of REFERENCES.md.
"""
from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, QTimer

from sudokustudio.ui.style import legend_ground
from sudokustudio.ui.widgets.steady_plot import (REDRAW_STAGGER_MS, SteadyRange, cache_axes, fixed_label_width,
                                                   major_grid_only)

pg.setConfigOptions(antialias=True, background="w", foreground="k")


#: points drawn per series: a run's history holds up to 600, and a 600-point band painted in
#: ~11 ms against ~4 ms for 150, with no difference a person can see at the plots' sizes
DRAWN_POINTS = 160


def drawn_points(t: np.ndarray, log_x: bool = False, most: int = DRAWN_POINTS) -> np.ndarray:
    """Indices of at most ``most`` points of the increasing series ``t``, spread evenly along the
    x axis (log10 t when ``log_x``), the first and last always among them."""
    n = len(t)
    if n <= most:
        return np.arange(n)
    x = np.log10(t) if log_x else np.asarray(t, float)
    marks = np.linspace(x[0], x[-1], most)
    idx = np.searchsorted(x, marks).clip(0, n - 1)
    return np.unique(np.concatenate(([0], idx, [n - 1])))


def _pen(colour, width=2, style=Qt.SolidLine):
    return pg.mkPen(colour, width=width, style=style)


class _Legend:
    """Legend entries rebuilt only when the set of series changes (clearing a
    pyqtgraph legend on every redraw is slow and has crashed PySide6), and then
    ``REDRAW_STAGGER_MS`` after the plot's own update: a run's first drawing made its
    items, ranges and legend labels in one pass (30-40 ms of the UI thread on a slow machine).
    A legend over the data has a near-opaque white ground (at 1024 px three runs' rows covered
    bars and curves, unreadable), as the Generators plots' legends have."""

    def __init__(self, plot: pg.PlotWidget, offset):
        self.plot = plot
        self.legend = plot.addLegend(offset=offset, labelTextSize="8pt", verSpacing=-6, **legend_ground())
        self.legend.setVisible(False)   # an empty legend drew as a stray white square
        self.keys: tuple = ()
        self.pending: list | None = None

    def sync(self, entries) -> None:
        """entries: [(item, name)] in order."""
        if self._keys(entries) == self.keys:
            self.pending = None
            return
        if self.pending is None:   # the plot as the timer's context: no call once it is gone
            QTimer.singleShot(REDRAW_STAGGER_MS, self.plot, self._rebuild)
        self.pending = list(entries)

    def _rebuild(self) -> None:
        entries, self.pending = self.pending, None
        if entries is None:
            return
        self.legend.clear()
        for it, name in entries:
            self.legend.addItem(it, name)
        self.legend.setVisible(bool(entries))
        self.keys = self._keys(entries)

    @staticmethod
    def _keys(entries) -> tuple:
        return tuple((id(it), name) for it, name in entries)


class _Series:
    """Keeps plot items per series key, creating and removing them as needed."""

    def __init__(self, plot: pg.PlotWidget):
        self.plot = plot
        self.items: dict = {}

    def get(self, key, factory):
        if key not in self.items:
            made = factory()
            for it in made:
                self.plot.addItem(it)
            self.items[key] = made
        return self.items[key]

    def keep_only(self, keys) -> None:
        for k in [k for k in self.items if k not in keys]:
            for it in self.items.pop(k):
                self.plot.removeItem(it)


class ConvergencePlot(pg.PlotWidget):
    """Estimate divided by the reference value against compute time."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setLabel("bottom", "compute time (s, all threads)")
        self.setLabel("left", "estimate ÷ reference")
        self.showGrid(x=True, y=True, alpha=0.25)
        major_grid_only(self)
        self.ref_line = pg.InfiniteLine(pos=1.0, angle=0, pen=_pen("k", 1, Qt.DashLine),
                                        label="reference", labelOpts={"position": 0.99, "color": "k",
                                                                      # right-aligned above the line's end,
                                                                      # away from the early swings (centred
                                                                      # at 5% it lost its first letters)
                                                                      "anchors": [(1, 1), (1, 1)]})
        self.addItem(self.ref_line)
        self._legend = _Legend(self, (10, 10))
        self._series = _Series(self)
        cache_axes(self)
        fixed_label_width(self, "0.99995")
        # compute time grows from 0: room for 60 % more, so the axis moves rarely at the start too
        self._range = SteadyRange(self, x={"grow": 0.6, "margin": 0.02}, y={"grow": 0.15, "margin": 0.15})

    def show_runs(self, runs) -> None:
        """runs: [(label, colour, t[], ratio[], ratio_se[])]."""
        entries, keys = [], []
        lo_all, hi_all, t_all = [], [], []
        for label, colour, t, y, se in runs:
            t = np.asarray(t, float)
            y = np.asarray(y, float)
            se = np.asarray(se, float)
            ok = np.isfinite(y) & np.isfinite(se) if len(t) else np.zeros(0, bool)
            key = (label, colour)
            keys.append(key)

            def factory(colour=colour):
                upper = pg.PlotDataItem([], [], pen=pg.mkPen(None))
                lower = pg.PlotDataItem([], [], pen=pg.mkPen(None))
                fill_c = pg.mkColor(colour)
                fill_c.setAlpha(50)
                band = pg.FillBetweenItem(upper, lower, brush=pg.mkBrush(fill_c))
                line = pg.PlotDataItem([], [], pen=_pen(colour))
                return [upper, lower, band, line]

            upper, lower, band, line = self._series.get(key, factory)
            entries.append((line, label))
            if not ok.any():
                continue
            t, y, se = t[ok], y[ok], se[ok]
            shown = drawn_points(t)
            t, y, se = t[shown], y[shown], se[shown]
            upper.setData(t, y + 2 * se)
            lower.setData(t, y - 2 * se)
            line.setData(t, y)
            tail = slice(len(y) // 4, None)  # skip the wild start when framing
            lo_all.append(np.min(y[tail] - 2 * se[tail]))
            hi_all.append(np.max(y[tail] + 2 * se[tail]))
            t_all += [t[0], t[-1]]
        self._series.keep_only(set(keys))
        self._legend.sync(entries)
        if lo_all:
            # the range moves only when the data leaves it (see widgets/steady_plot.py)
            self._range.fit(x=(min(t_all), max(t_all)), y=(min(lo_all + [1.0]), max(hi_all + [1.0])))


class _LogAxis(pg.AxisItem):
    """Log-mode axis that labels only 1, 2 and 5 times powers of ten (no crowded minor labels)."""

    def tickStrings(self, values, scale, spacing):
        out = []
        for v in values:
            x = 10 ** v
            mant = x / 10 ** math.floor(math.log10(x) + 1e-9)
            out.append(f"{x:g}" if round(mant, 3) in (1.0, 2.0, 5.0) else "")
        return out


class RelErrPlot(pg.PlotWidget):
    """Relative error (%) against compute time on log-log axes, with a 1/sqrt(t) guide."""

    def __init__(self, parent=None):
        super().__init__(parent, axisItems={"bottom": _LogAxis("bottom"), "left": _LogAxis("left")})
        self.setLogMode(x=True, y=True)
        self.setLabel("bottom", "compute time (s, all threads)")
        self.setLabel("left", "relative error (%)")
        self._gridded = False    # the grid comes with the first run: its empty log grid painted in ~10 ms
        # bottom left: a falling error curve starts high, so that corner stays empty
        self._legend = _Legend(self, (10, -10))
        self._series = _Series(self)
        self.guide = pg.PlotDataItem([], [], pen=_pen("#777777", 1, Qt.DashLine))
        self.addItem(self.guide)
        cache_axes(self)
        fixed_label_width(self, "0.0005")
        self._range = SteadyRange(self, grow=0.2, margin=0.1)   # in log10 units: the axes are log
        # before any run: 0.01-1000 s and 0.01-10 %, whole decades (the default view of an empty
        # log plot read "2" and "5" with no decade), the top label whole
        self.setRange(xRange=(-2, 3), yRange=(-2, 1.08), padding=0)

    def show_runs(self, runs, guide_from=None) -> None:
        """runs: [(label, colour, t[], re[])]; guide_from: (t, re) anchoring the 1/sqrt(t) line."""
        entries, keys = [], []
        tmin, tmax = math.inf, 0.0
        re_min, re_max = math.inf, 0.0
        for label, colour, t, re in runs:
            key = (label, colour)
            keys.append(key)
            (line,) = self._series.get(key, lambda colour=colour: [pg.PlotDataItem([], [], pen=_pen(colour))])
            entries.append((line, label))
            t = np.asarray(t, float)
            re = 100.0 * np.asarray(re, float)
            ok = (t > 0) & np.isfinite(re) & (re > 0) if len(t) else np.zeros(0, bool)
            if ok.sum() < 1:
                continue
            t, re = t[ok], re[ok]
            shown = drawn_points(t, log_x=True)
            line.setData(t[shown], re[shown])
            tmin, tmax = min(tmin, t.min()), max(tmax, t.max())
            re_min, re_max = min(re_min, re.min()), max(re_max, re.max())
        self._series.keep_only(set(keys))
        if guide_from is not None and tmax > 0 and guide_from[0] > 0 and guide_from[1] > 0 \
                and math.isfinite(guide_from[1]):
            t0, re0 = guide_from
            ts = np.geomspace(max(tmin, 1e-3), max(tmax, t0) * 10, 30)
            guide = 100 * re0 * np.sqrt(t0 / ts)
            self.guide.setData(ts, guide)
            entries.append((self.guide, "1/√t guide"))
            tmin, tmax = min(tmin, ts[0]), max(tmax, ts[-1])
            re_min, re_max = min(re_min, guide.min()), max(re_max, guide.max())
        else:
            self.guide.setData([], [])
        self._legend.sync(entries)
        if tmax > 0 and re_max > 0:
            if not self._gridded:
                self.showGrid(x=True, y=True, alpha=0.25)
                self._gridded = True
            self._range.fit(x=(math.log10(tmin), math.log10(tmax)), y=(math.log10(re_min), math.log10(re_max)))


#: a legend row's height and the legend's margins, in pixels
LEGEND_ROW_PX, LEGEND_MARGIN_PX = 15, 12
#: the least room between two labelled decades of the bar plot's axis, in pixels
DECADE_LABEL_PX = 16


class MinimalsBarPlot(pg.PlotWidget):
    """log10 of minimal puzzles per grid by clue count, with +-2 SE bars and published values."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setLabel("bottom", "clues c")
        self.setLabel("left", "minimal puzzles per grid (log scale)")
        self.showGrid(y=True, alpha=0.25)
        self._legend = _Legend(self, (10, 10))
        self._series = _Series(self)
        self._ticks = None
        cache_axes(self)

    def show_estimates(self, runs, reference: dict[int, float] | None, ref_label: str = "published") -> None:
        """runs: [(label, colour, {c: (estimate, se)})]; reference: {c: value}."""
        series = []
        for label, colour, per_c in runs:
            cs = np.array(sorted(c for c, (e, s) in per_c.items() if e > 0), float)
            if cs.size:
                est = np.array([per_c[int(c)][0] for c in cs])
                se = np.array([per_c[int(c)][1] for c in cs])
                series.append((label, colour, cs, est, se))
        if reference:
            cs = np.array(sorted(reference), float)
            series.append((ref_label, "#bbbbbb", cs, np.array([reference[int(c)] for c in cs]), None))
        if not series:
            self._series.keep_only(set())
            self._legend.sync([])
            return
        allv = np.concatenate([np.log10(s[3]) for s in series])
        lo = math.floor(allv.min()) - 1
        data_top = math.ceil(allv.max()) + 0.5
        hi = self._top_above_legend(lo, data_top, len(series))
        width = 0.8 / len(series)
        entries, keys = [], []
        for k, (label, colour, cs, est, se) in enumerate(series):
            key = (label, colour)
            keys.append(key)

            def factory(colour=colour):
                bars = pg.BarGraphItem(x=[0], y0=0, height=[0], width=0.1, brush=pg.mkBrush(colour),
                                       pen=_pen("k", 0.5))
                eb = pg.ErrorBarItem(x=np.zeros(0), y=np.zeros(0), top=np.zeros(0), bottom=np.zeros(0),
                                     pen=_pen("k", 1))
                # the legend's swatch: a scatter item keeps its brush with no points (an empty
                # PlotDataItem never passes its symbol brush on, and the legend drew pyqtgraph's
                # default blue-grey square for every series)
                proxy = pg.ScatterPlotItem([], [], symbol="s", brush=pg.mkBrush(colour),
                                           pen=pg.mkPen(colour), size=10)
                return [bars, eb, proxy]

            bars, eb, proxy = self._series.get(key, factory)
            entries.append((proxy, label))
            x = cs - 0.4 + width * (k + 0.5)
            y = np.log10(est)
            bars.setOpts(x=x, y0=lo, height=y - lo, width=width)
            if se is not None:
                top = np.log10(est + 2 * se) - y
                low = y - np.log10(np.maximum(est - 2 * se, est * 1e-3))
                eb.setData(x=x, y=y, top=top, bottom=low, beam=width * 0.6)
        self._series.keep_only(set(keys))
        self._legend.sync(entries)
        self.setYRange(lo, hi, padding=0)
        allc = np.concatenate([s[2] for s in series])
        self.setXRange(allc.min() - 1, allc.max() + 1, padding=0)
        # no decades above the data: the legend's room is not a scale
        px_per_decade = self.getViewBox().height() / max(hi - lo, 1e-9)
        step = max(1, math.ceil(DECADE_LABEL_PX / px_per_decade)) if px_per_decade > 0 else 1
        ticks = [[(v, f"1e{v}") for v in range(int(lo), int(data_top) + 1, step)]]
        if ticks != self._ticks:   # new ticks repaint the axis: only when they change
            self._ticks = ticks
            self.getAxis("left").setTicks(ticks)

    def _top_above_legend(self, lo: float, top: float, rows: int) -> float:
        """The y axis's top, raised so that the legend's rows (top left) sit above the bars: with
        three runs beside the published values they covered the bars of c = 22-24 at 1024 px."""
        height = self.getViewBox().height()
        if height <= 0:
            return top
        share = min(0.6, (LEGEND_ROW_PX * rows + LEGEND_MARGIN_PX) / height)
        return top + (top - lo) * share / (1 - share)
