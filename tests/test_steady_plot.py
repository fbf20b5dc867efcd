"""Plot ranges that move only when the data leaves them (ui/widgets/steady_plot.py)."""
import pytest

from sudokustudio.ui.widgets.steady_plot import steady_span


def test_a_first_frame_leaves_room_to_grow():
    assert steady_span(None, 0.0, 10.0) == pytest.approx((-0.5, 13.0))


def test_the_range_stays_while_the_data_is_inside_and_fills_it():
    assert steady_span((-0.5, 13.0), 0.0, 12.9) is None
    assert steady_span((-0.5, 13.0), 2.0, 10.0) is None


def test_a_side_the_data_passed_moves_beyond_it_the_other_stays():
    assert steady_span((-0.5, 13.0), 0.0, 20.0) == pytest.approx((-0.5, 26.0))
    assert steady_span((-0.5, 13.0), -10.0, 5.0) == pytest.approx((-14.5, 13.0))


def test_data_filling_too_little_of_the_range_is_framed_afresh():
    assert steady_span((0.0, 100.0), 10.0, 20.0) == pytest.approx((9.5, 23.0))


def test_a_growing_series_moves_its_axis_rarely():
    current, moves = None, 0
    for t in range(1, 1001):
        new = steady_span(current, 0.0, float(t))
        if new is not None:
            current, moves = new, moves + 1
        assert current[0] <= 0.0 and t <= current[1]
    assert moves <= 30


def test_no_data_keeps_the_range():
    assert steady_span((0.0, 1.0), float("nan"), 1.0) is None
    assert steady_span((0.0, 1.0), 0.5, float("inf")) is None


def test_each_axis_has_its_own_options(qtbot):
    import pyqtgraph as pg

    from sudokustudio.ui.widgets.steady_plot import SteadyRange

    plot = pg.PlotWidget()
    qtbot.addWidget(plot)
    steady = SteadyRange(plot, x={"grow": 1.0, "margin": 0.0}, y=False, grow=0.3)
    assert steady.axes == ["x"] and steady.options["x"] == {"grow": 1.0, "margin": 0.0}
    assert steady.fit(x=(0.0, 10.0), y=(0.0, 1.0))
    assert steady.ranges == {"x": (0.0, 20.0), "y": None}
    assert not steady.fit(x=(0.0, 15.0))
    (x0, x1), _ = plot.getViewBox().viewRange()
    assert (x0, x1) == pytest.approx((0.0, 20.0))


def test_major_grid_only_keeps_the_labelled_ticks(qtbot):
    """A moved axis redraws its grid; the convergence plot draws it at the labelled ticks only
    (one tick level), where a plain plot has three."""
    import pyqtgraph as pg

    from sudokustudio.ui.widgets.est_plots import ConvergencePlot
    from sudokustudio.ui.widgets.steady_plot import major_grid_only

    conv, plain, other = ConvergencePlot(), pg.PlotWidget(), pg.PlotWidget()
    for w in (conv, plain, other):
        qtbot.addWidget(w)
    major_grid_only(other, axes=("left",))
    for name in ("left", "bottom"):
        assert len(conv.getAxis(name).tickValues(0, 10, 800)) == 1
        assert len(plain.getAxis(name).tickValues(0, 10, 800)) > 1
    assert len(other.getAxis("left").tickValues(0, 10, 800)) == 1
    assert len(other.getAxis("bottom").tickValues(0, 10, 800)) > 1


def test_the_estimator_plots_keep_their_label_width_and_fit_their_labels(qtbot):
    """The left axes keep one width whatever labels a run's ranges bring (a new width resized
    the view, a full repaint), and that width holds the labels drawn: coarse and fine
    convergence ranges, relative errors from 100 % down to 0.0005 %."""
    import numpy as np

    from sudokustudio.ui.widgets.est_plots import ConvergencePlot, RelErrPlot

    conv, rel = ConvergencePlot(), RelErrPlot()
    for plot in (conv, rel):
        qtbot.addWidget(plot)
        plot.resize(700, 400)
        plot.show()
    qtbot.waitExposed(conv)
    widths = {id(p): p.getAxis("left").width() for p in (conv, rel)}
    t = np.linspace(1.0, 100.0, 50)
    for spread in (0.3, 1e-2, 1e-4, 2e-5):
        conv.show_runs([("run", "#1f77b4", t, 1 + spread * np.sin(t), np.full(50, spread))])
        rel.show_runs([("run", "#1f77b4", t, spread * 10 / np.sqrt(t))])
        for plot in (conv, rel):
            plot.grab()                       # paints: pyqtgraph measures the labels it draws
            axis = plot.getAxis("left")
            assert axis.width() == widths[id(plot)]
            room = axis.width() - axis.style["tickTextOffset"][0] - max(0, axis.style["tickLength"]) \
                - 0.8 * axis.label.boundingRect().height()
            assert 0 < axis.textWidth <= room + 0.5, (spread, axis.textWidth, room)


def test_a_title_or_axis_label_is_set_again_only_when_its_text_changes(qtbot):
    import pyqtgraph as pg

    from sudokustudio.ui.widgets.steady_plot import set_axis_label, set_title

    plot = pg.PlotWidget()
    qtbot.addWidget(plot)
    calls = []
    plot.setTitle = lambda *a, **k: calls.append(("title", a, k))
    plot.setLabel = lambda *a, **k: calls.append(("label", a, k))
    for _ in range(3):
        set_title(plot, "clue counts", color="k")
        set_axis_label(plot, "left", "fraction")
    assert calls == [("title", ("clue counts",), {"color": "k"}), ("label", ("left", "fraction"), {})]
    set_title(plot, "clue counts", color="b")       # another style is a change
    set_axis_label(plot, "bottom", "fraction")      # so is another axis
    set_axis_label(plot, "left", "share")
    assert [c[1] for c in calls[2:]] == [("clue counts",), ("bottom", "fraction"), ("left", "share")]


def test_the_bar_plots_legend_sits_above_its_bars_and_the_decades_are_apart(qtbot):
    """Three runs beside the published values at the size the Estimator gives the bar plot at 1024
    px: the legend's rows (top left) are above every bar, and the labelled decades of the axis are
    at least DECADE_LABEL_PX apart and never above the data."""
    import numpy as np
    from PySide6.QtCore import QPointF

    from sudokustudio.ui.widgets.est_plots import DECADE_LABEL_PX, MinimalsBarPlot

    plot = MinimalsBarPlot()
    qtbot.addWidget(plot)
    plot.resize(350, 300)
    plot.show()
    qtbot.waitExposed(plot)
    per_c = {c: (10.0 ** (3 + 1.5 * (c - 19) - 0.08 * (c - 19) ** 2), 0.0) for c in range(19, 31)}
    runs = [(f"#{k} a run of the estimator", colour, per_c) for k, colour in
            enumerate(("#1f77b4", "#d62728", "#2ca02c"), 1)]
    reference = {c: v for c, (v, _) in per_c.items()}
    for _ in range(2):   # the second drawing knows the view's height; the legend is rebuilt late
        plot.show_estimates(runs, reference, "Afmob 2015")
        qtbot.wait(120)
    legend = plot.getPlotItem().legend
    assert len(legend.items) == 4
    view = plot.getViewBox()
    legend_bottom = legend.mapRectToScene(legend.boundingRect()).bottom()
    highest = max(np.log10(v) for v in reference.values())
    bar_top = view.mapViewToScene(QPointF(25.0, highest)).y()
    assert legend_bottom < bar_top, (legend_bottom, bar_top)
    ticks = [v for v, _ in plot.getAxis("left")._tickLevels[0]]
    assert max(ticks) <= np.ceil(highest) + 0.5
    px = view.height() / (view.viewRange()[1][1] - view.viewRange()[1][0])
    assert min(np.diff(ticks)) * px >= DECADE_LABEL_PX


def test_bar_plot_legend_swatches_have_their_series_colours(qtbot):
    """Each legend row of the minimal-count bar plot shows its bars' colour (they all showed
    pyqtgraph's default blue-grey), read from the rendered legend."""
    from PySide6.QtGui import QColor, QImage, QPainter

    from sudokustudio.ui.widgets.est_plots import MinimalsBarPlot

    plot = MinimalsBarPlot()
    qtbot.addWidget(plot)
    plot.resize(350, 300)
    plot.show()
    qtbot.waitExposed(plot)
    per_c = {c: (10.0 ** (c - 15), 0.0) for c in range(20, 28)}
    runs = [("#1 run", "#2ca02c", per_c), ("#2 run", "#d62728", per_c)]
    plot.show_estimates(runs, {c: v for c, (v, _) in per_c.items()}, "Afmob 2015")
    qtbot.waitUntil(lambda: len(plot.getPlotItem().legend.items) == 3, timeout=2000)
    for (sample, label), want in zip(plot.getPlotItem().legend.items, ("#2ca02c", "#d62728", "#bbbbbb")):
        image = QImage(20, 20, QImage.Format_ARGB32)
        image.fill(QColor("white"))
        painter = QPainter(image)
        sample.paint(painter, None, None)
        painter.end()
        got = image.pixelColor(10, 10)
        assert (got.red(), got.green(), got.blue()) == QColor(want).getRgb()[:3], label.text


def test_an_empty_error_plot_shows_whole_decades_and_no_legend_until_a_run(qtbot):
    """Before any run the relative-error plot frames 0.01-1000 s and 0.01-10 % (its default view
    read "2" and "5" with no decade) and shows no legend (an empty one drew as a white square)
    and no grid (the empty log grid took ~10 ms to paint); the first run brings the legend with
    its row and the guide's, and the grid."""
    import numpy as np

    from sudokustudio.ui.widgets.est_plots import RelErrPlot

    plot = RelErrPlot()
    qtbot.addWidget(plot)
    plot.resize(500, 300)
    plot.show()
    qtbot.waitExposed(plot)
    legend = plot.getPlotItem().legend
    assert not legend.isVisible()
    (x0, x1), (y0, y1) = plot.getViewBox().viewRange()
    assert (x0, x1, y0, y1) == pytest.approx((-2, 3, -2, 1), abs=0.1)
    assert not plot.getAxis("left").grid and not plot.getAxis("bottom").grid
    t = np.linspace(0.1, 10, 50)
    plot.show_runs([("#1 rows", "#d62728", t, 0.01 / np.sqrt(t))], guide_from=(10.0, 0.01 / np.sqrt(10)))
    qtbot.waitUntil(legend.isVisible, timeout=2000)
    assert len(legend.items) == 2 and plot.getAxis("left").grid and plot.getAxis("bottom").grid
