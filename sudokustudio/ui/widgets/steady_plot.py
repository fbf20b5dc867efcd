"""Plots that a timer redraws without repainting their axes each time.

A pyqtgraph axis (with its grid lines) is most of what a plot repaint costs:
~10 ms of the UI thread for a plot of 800 x 500 pixels, at every redraw,
when the view range follows the data by auto-range.  ``SteadyRange`` moves
a plot's range only when the data leaves it (then with room to grow) or
fills too little of it, and ``cache_axes`` keeps each axis as a pixmap: a
redraw whose range did not change repaints the curves only (~2 ms).  A range
that does move redraws those pixmaps, which span the plot when it has a grid;
``major_grid_only`` keeps the grid to the labelled ticks, 2-4x cheaper then.
``fixed_label_width`` keeps a vertical axis as wide as its widest expected tick label: a label
of another width otherwise resized the axis, and with it the view, which then painted afresh.
``set_title`` and ``set_axis_label`` touch a title or an axis label only when its text changes:
pyqtgraph lays the whole plot out again at every call, the same text or not.
A tab with several plots updates them ``REDRAW_STAGGER_MS`` apart (``StagedUpdates``), so
that one pass of the event loop lays out and paints one of them.
"""
from __future__ import annotations

import math

from PySide6.QtCore import QTimer
from PySide6.QtGui import QFontMetricsF
from PySide6.QtWidgets import QGraphicsItem

AXES = ("left", "bottom", "right", "top")
#: delay between the staged updates of a tab's plots: with 0 the second update ran before the
#: first plot's paint, and both painted in one pass (~20-30 ms at an estimator run's start)
REDRAW_STAGGER_MS = 15


class StagedUpdates:
    """A tab's view updates, run ``REDRAW_STAGGER_MS`` apart: the first at once, each next one
    after the one before has painted.  A newer set of stages drops what is left of an older
    one, so each view shows the newest data and nothing runs twice.  ``owner`` (a QObject)
    bounds the timers' life: none fires once it is gone."""

    def __init__(self, owner):
        self._owner = owner
        self._generation = 0
        self.pending = 0      # stages scheduled and not run yet

    def run(self, stages) -> None:
        self._generation += 1
        stages[0]()
        rest = list(stages[1:])
        self.pending = len(rest)
        self._schedule(self._generation, rest)

    def _schedule(self, generation: int, rest: list) -> None:
        if rest:
            QTimer.singleShot(REDRAW_STAGGER_MS, self._owner, lambda: self._step(generation, rest))

    def _step(self, generation: int, rest: list) -> None:
        if generation != self._generation:    # a newer set of stages has replaced these
            return
        self.pending -= 1
        rest[0]()
        self._schedule(generation, rest[1:])


def set_title(plot, text: str, **style) -> None:
    """The plot's title, set only when it (or its style) changed: a timer redraw that set the same
    title laid the plot out and repainted it whole (the estimator's longest stall while a grid run
    drew, ~25 ms)."""
    key = (text, tuple(sorted(style.items())))
    if getattr(plot, "_shown_title", None) != key:
        plot._shown_title = key
        plot.setTitle(text, **style)


def set_axis_label(plot, axis: str, text: str) -> None:
    """An axis label, set only when its text changed (see ``set_title``)."""
    shown = getattr(plot, "_shown_axis_labels", None)
    if shown is None:
        shown = plot._shown_axis_labels = {}
    if shown.get(axis) != text:
        shown[axis] = text
        plot.setLabel(axis, text)


def cache_axes(plot) -> None:
    """Keep the axes (and their grid lines) of a PlotWidget or PlotItem as pixmaps, drawn again
    only when their range, ticks or size change."""
    item = plot.getPlotItem() if hasattr(plot, "getPlotItem") else plot
    for name in AXES:
        axis = item.getAxis(name)
        if axis is not None:
            axis.setCacheMode(QGraphicsItem.DeviceCoordinateCache)


def major_grid_only(plot, axes=("left", "bottom")) -> None:
    """Grid lines (and ticks) at the labelled ticks only: a moved linear axis with its minor
    grid took 7-19 ms a repaint of the estimator's convergence plot, 3-5 ms without."""
    item = plot.getPlotItem() if hasattr(plot, "getPlotItem") else plot
    for name in axes:
        item.getAxis(name).setStyle(maxTickLevel=0)


def fixed_label_width(plot, widest: str, axis: str = "left") -> None:
    """Reserve room on a vertical axis for tick labels up to ``widest`` (e.g. "0.99995") and keep
    it: pyqtgraph sizes the axis to its labels, so a run whose labels gained or lost a digit
    resized the axis and its view, a full repaint (six times in six seconds of a grid estimate;
    the longest UI stall of five such runs 28-65 ms, 22-31 ms with the width fixed)."""
    item = plot.getPlotItem() if hasattr(plot, "getPlotItem") else plot
    ax = item.getAxis(axis)
    font = ax.style["tickFont"] or ax.font()
    width = QFontMetricsF(font).horizontalAdvance(widest) + ax.style["tickTextOffset"][0] \
        + max(0, ax.style["tickLength"])
    if ax.label.isVisible():
        width += ax.label.boundingRect().height() * 0.8    # as pyqtgraph adds the axis label
    ax.setWidth(math.ceil(width))


def steady_span(current: tuple[float, float] | None, lo: float, hi: float, grow: float = 0.3,
                fill: float = 0.4, margin: float = 0.05) -> tuple[float, float] | None:
    """The range an axis should show for data in [lo, hi], or None to keep ``current``.

    ``current`` is kept while it holds the data and the data fills at least ``fill`` of it.
    A side the data passed moves ``grow`` spans beyond the data (room to grow: a running
    series moves its axis at every 30 % of growth, not at every redraw); data that fills
    too little is framed afresh: ``margin`` spans below, ``grow`` spans above."""
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return None
    lo, hi = min(lo, hi), max(lo, hi)
    span = hi - lo or max(abs(hi), 1.0) * 1e-3
    if current is None or span < fill * (current[1] - current[0]):
        return lo - margin * span, hi + grow * span
    a, b = current
    if a <= lo and hi <= b:
        return None
    return (lo - grow * span if lo < a else a), (hi + grow * span if hi > b else b)


class SteadyRange:
    """The view range of one plot, moved by ``steady_span`` (auto-range off on the axes it holds).

    ``x`` and ``y``: True, False (not held) or a dict of ``steady_span`` options for that axis
    (over the common ``span_options``).  ``fit(x=(lo, hi), y=(lo, hi))`` with the data's bounds
    in view coordinates (log10 of the data on a log axis); an axis given None is left as it is."""

    def __init__(self, plot, x: bool | dict = True, y: bool | dict = True, **span_options):
        self.plot = plot
        self.options = {a: {**span_options, **(o if isinstance(o, dict) else {})}
                        for a, o in (("x", x), ("y", y)) if o is not False}
        self.ranges: dict[str, tuple[float, float] | None] = {"x": None, "y": None}
        self.axes = list(self.options)
        view = plot.getPlotItem().getViewBox() if hasattr(plot, "getPlotItem") else plot.getViewBox()
        self.view = view
        for a in self.axes:
            view.enableAutoRange(axis=a, enable=False)

    def fit(self, x: tuple[float, float] | None = None, y: tuple[float, float] | None = None) -> bool:
        """Move the range if the data asks for it; True if it moved."""
        moved = False
        for axis, bounds in (("x", x), ("y", y)):
            if axis not in self.axes or bounds is None:
                continue
            new = steady_span(self.ranges[axis], *bounds, **self.options[axis])
            if new is not None:
                self.ranges[axis] = new
                if axis == "x":
                    self.view.setXRange(*new, padding=0)
                else:
                    self.view.setYRange(*new, padding=0)
                moved = True
        return moved

    def reset(self) -> None:
        """Forget the ranges (new data of another scale): the next fit frames the data afresh."""
        self.ranges = {"x": None, "y": None}
