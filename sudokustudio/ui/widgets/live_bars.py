"""Bar charts that a timer redraws while a run fills them.

Clearing a plot and adding new bar items (and legend rows) at every redraw
cost the UI thread ~10 ms a redraw, and auto-range moved the view at each
one, which repainted the plot twice more.  ``LiveBars`` makes a plot's bar
series once, updates them in place (only when their data changed) and holds
them in a ``SteadyRange`` (from 0 up) with the axes cached as pixmaps.
"""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg

from sudokustudio.ui.widgets.steady_plot import SteadyRange, cache_axes


class LiveBars:
    """The bar series of one PlotWidget (``add``), redrawn by ``set`` and held in view by ``fit``."""

    def __init__(self, plot: pg.PlotWidget, x_grow: float = 0.0, y_grow: float = 0.25):
        self.plot = plot
        self.series: list[pg.BarGraphItem] = []
        self._legend_on = False
        cache_axes(plot)
        self.range = SteadyRange(plot, x={"grow": x_grow}, y={"grow": y_grow}, margin=0.0)

    def add(self, brush, width: float, name: str | None = None, pen="w") -> pg.BarGraphItem:
        """A new (empty, hidden) series; a named one has a legend row while ``legend(True)``."""
        item = pg.BarGraphItem(x=np.zeros(0), height=np.zeros(0), width=width, brush=brush,
                               pen=None if pen is None else pg.mkPen(pen))
        item.setVisible(False)
        self.plot.addItem(item)
        if name is not None:   # named after it is added: PlotItem.addItem would give it a legend row now
            item.opts["name"] = name
        self.series.append(item)
        return item

    @staticmethod
    def set(item: pg.BarGraphItem, x: np.ndarray, height: np.ndarray, width: float) -> None:
        """Show bars at ``x`` of ``height`` (none: the series hides); unchanged data is not redrawn."""
        item.setVisible(len(x) > 0)
        same = (len(x) == len(item.opts["x"]) and np.array_equal(x, item.opts["x"])
                and np.array_equal(height, item.opts["height"]) and width == item.opts["width"])
        if len(x) and not same:
            item.setOpts(x=np.asarray(x, float), height=np.asarray(height, float), width=width)

    def fit(self) -> None:
        """Hold the visible bars in the plot's range (moved only when they leave it)."""
        shown = [it for it in self.series if it.isVisible()]
        if shown:
            w = max(it.opts["width"] for it in shown)
            self.range.fit(x=(min(float(it.opts["x"].min()) for it in shown) - w,
                              max(float(it.opts["x"].max()) for it in shown) + w),
                           y=(0.0, max(float(it.opts["height"].max()) for it in shown)))

    def legend(self, on: bool) -> None:
        """Legend rows for the named series, or none (the plot needs ``addLegend()``)."""
        if on == self._legend_on:
            return
        legend = self.plot.getPlotItem().legend
        for item in self.series:
            if "name" in item.opts:
                if on:
                    legend.addItem(item, item.opts["name"])
                else:
                    legend.removeItem(item)
        self._legend_on = on
