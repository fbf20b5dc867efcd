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
