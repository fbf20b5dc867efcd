"""The estimator tab as a view: start, Stop ("Stopping…", back within a batch), reopen and resume
in a new tab, the left panel following the selected run, a damaged store, bad parameters."""
import re
import time

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from sudokustudio.jobs.store import RunStore, default_store_path
from sudokustudio.sudoku import estimate as E
from sudokustudio.ui.estimator_tab import EstimatorTab


@pytest.fixture
def messages(monkeypatch):
    seen = []
    for name in ("warning", "information"):
        monkeypatch.setattr(QMessageBox, name, lambda *a, _n=name, **k: seen.append((_n, a[2] if len(a) > 2 else "")))
    return seen


def _grids_tab(qtbot, settings, method="ridder", box="2x2"):
    tab = EstimatorTab(settings)
    qtbot.addWidget(tab)
    tab.what.setCurrentIndex(0)
    tab.box.setCurrentIndex(E.BOX_SHAPES.index(box))
    tab.gmethod.setCurrentIndex(E.GRID_METHODS.index(method))
    return tab


def _item(tab, rid):
    (item,) = [tab.run_list.item(i) for i in range(tab.run_list.count())
               if tab.run_list.item(i).data(Qt.UserRole) == rid]
    return item


def test_run_stop_reopen_resume(qtbot, settings, tmp_path, messages):
    tab = _grids_tab(qtbot, settings)
    tab._update_buttons()
    assert not any(b.isEnabled() for b in (tab.resume_btn, tab.export_btn, tab.delete_btn))  # no run yet
    view = tab.start_run()
    assert tab.export_btn.isEnabled() and not tab.resume_btn.isEnabled() and not tab.delete_btn.isEnabled()
    qtbot.waitUntil(lambda: view.run.batches_done >= 3, timeout=60_000)
    t0 = time.monotonic()
    tab.stop_run()
    assert tab.stop_btn.text() == "Stopping…" and not tab.stop_btn.isEnabled()
    qtbot.waitUntil(lambda: view.run.finished, timeout=5_000)
    assert time.monotonic() - t0 < 2.0          # a 2x2 Ridder batch takes a fraction of a second
    tab._tick()
    assert tab.stop_btn.text() == "Stop" and tab.start_btn.isEnabled()
    done = view.run.batches_done
    store = RunStore(default_store_path())
    assert store.done_indices(view.run_id) == set(range(done))
    assert store.run(view.run_id).status == "paused"
    assert "paused" in tab.status_label.text() and "ETA" in tab.status_label.text()
    assert tab.conv_plot.plotItem.listDataItems()
    tab.export_run(view, str(tmp_path / "r.csv"))
    lines = (tmp_path / "r.csv").read_text().splitlines()
    assert lines[0] == "cpu_seconds,samples,estimate,se,rel_err" and len(lines) >= 2 and "np." not in lines[1]
    tab.shutdown()

    # a new tab (as after quitting the app) lists the run; double-click resumes it
    tab2 = EstimatorTab(settings)
    qtbot.addWidget(tab2)
    item = _item(tab2, view.run_id)
    assert f"{done:,} batches, paused" in item.text()
    tab2.run_list.setCurrentItem(item)
    assert tab2.resume_btn.isEnabled() and tab2.export_btn.isEnabled() and tab2.delete_btn.isEnabled()
    tab2.resume_selected()
    qtbot.waitUntil(lambda: tab2.model.live is not None and tab2.model.live.run.batches_done >= done + 2,
                    timeout=60_000)
    again = tab2.model.live
    assert again.run_id == view.run_id
    tab2._tick()
    assert "running" in _item(tab2, view.run_id).text()
    tab2.stop_run()
    qtbot.waitUntil(lambda: again.run.finished, timeout=5_000)
    d = again.run.job.describe(again.run.total)
    assert d["samples"] == again.run.job.samples_per_batch * again.run.batches_done
    assert abs(d["estimate"] - 288) < 5 * d["se"]
    tab2.shutdown()
    assert not [m for m in messages if m[0] == "warning"]


def test_the_left_panel_follows_the_selected_run_and_the_kind(qtbot, settings, messages):
    tab = _grids_tab(qtbot, settings)
    tab._update_panel()
    assert tab.progress.format() == "RE target: no run"    # not a share of nothing
    assert tab.estimate_label.text() == "no estimate yet"     # words, not a lone dash
    grids = tab.start_run()
    qtbot.waitUntil(lambda: grids.run.batches_done >= 2, timeout=60_000)
    tab.stop_run()
    qtbot.waitUntil(lambda: grids.run.finished, timeout=5_000)
    tab._tick()
    rel_err = grids.run.snapshot(history=False).rel_err
    # the RE, the target and the share of the samples done (or reached), not a bare "0%"
    assert re.fullmatch(rf"RE {100 * rel_err:.3g}% (→ 0\.1%: [\d.]+% done|≤ 0\.1%: reached)",
                        tab.progress.format()), tab.progress.format()
    tab.what.setCurrentIndex(1)
    tab.mmethod.setCurrentIndex(tab.mmethod.findData("path"))
    minimals = tab.start_run()
    qtbot.waitUntil(lambda: minimals.run.batches_done >= 2, timeout=120_000)
    tab.stop_run()
    qtbot.waitUntil(lambda: minimals.run.finished, timeout=10_000)
    tab._tick()
    assert "path" in tab.status_label.text()
    tab.what.setCurrentIndex(0)                 # Count: grids
    assert "c=" not in tab.estimate_label.text() and "ridder" in tab.status_label.text()
    # two grid runs on one plot
    tab.gmethod.setCurrentIndex(E.GRID_METHODS.index("rows"))
    rows = tab.start_run()
    qtbot.waitUntil(lambda: rows.run.batches_done >= 2, timeout=60_000)
    tab.stop_run()
    qtbot.waitUntil(lambda: rows.run.finished, timeout=5_000)
    tab._tick()   # the timer's redraw: the second plot follows in the next pass of the event loop
    assert len(tab.conv_plot._series.items) == 2
    qtbot.waitUntil(lambda: len(tab.re_plot._series.items) == 2, timeout=2_000)
    tab.run_list.setCurrentItem(_item(tab, grids.run_id))   # selecting a run shows it on the left
    assert f"#{grids.run_id} 2x2 ridder" in tab.status_label.text()
    tab.run_list.setCurrentItem(_item(tab, rows.run_id))
    assert f"#{rows.run_id} 2x2 rows" in tab.status_label.text()
    tab.shutdown()


def test_a_damaged_store_file_gives_a_clear_message(qtbot, settings, messages):
    default_store_path().write_bytes(b"not a database at all" * 50)
    tab = EstimatorTab(settings)
    qtbot.addWidget(tab)
    qtbot.waitUntil(lambda: bool(messages), timeout=5000)
    assert "damaged or not a run store" in messages[0][1]
    assert tab.store is None
    tab.box.setCurrentIndex(E.BOX_SHAPES.index("2x2"))     # estimating still works, unsaved
    tab.gmethod.setCurrentIndex(E.GRID_METHODS.index("ridder"))
    view = tab.start_run()
    qtbot.waitUntil(lambda: view.run.batches_done >= 1, timeout=60_000)
    tab.shutdown()


def test_minimal_counts_start_from_the_best_combination(qtbot, settings):
    tab = EstimatorTab(settings)
    qtbot.addWidget(tab)
    tab.what.setCurrentIndex(1)
    assert tab.mmethod.currentData() == "best" and not tab.s_spin.isEnabled() and not tab.c_spin.isEnabled()
    assert tab.params_from_controls().job().floor_mix == (0, 28, 29)
    tab.mmethod.setCurrentIndex(tab.mmethod.findData("subsets"))
    assert tab.s_spin.isEnabled() and tab.params_from_controls().job().s == 30


def test_bad_parameters_give_a_message(qtbot, settings, messages):
    tab = EstimatorTab(settings)
    qtbot.addWidget(tab)
    tab.what.setCurrentIndex(1)
    tab.mmethod.setCurrentIndex(tab.mmethod.findData("supersets"))
    tab.s_spin.setValue(30)
    tab.c_spin.setValue(20)
    assert tab.start_run() is None
    assert messages and "clue limit" in messages[-1][1]
    assert tab.model.live is None


_KILLED = r"""
import sys, time
from sudokustudio.jobs.executors import ThreadExecutor
from sudokustudio.jobs.store import RunStore
from sudokustudio.models.estimator import EstimatorModel, EstimatorParams
model = EstimatorModel(RunStore(sys.argv[1]), lambda: ThreadExecutor(2))
view = model.start(EstimatorParams("grids", box="2x2", grid_method="ridder", seed=7))
while view.run.batches_done < 3:
    time.sleep(0.01)
print(view.run.run_id, flush=True)
time.sleep(600)
"""


def test_a_run_killed_with_its_process_shows_interrupted_and_resumes(qtbot, settings):
    import os
    import signal
    import subprocess
    import sys

    proc = subprocess.Popen([sys.executable, "-c", _KILLED, str(default_store_path())], stdout=subprocess.PIPE,
                            text=True)
    rid = int(proc.stdout.readline())
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    tab = EstimatorTab(settings)
    qtbot.addWidget(tab)
    item = _item(tab, rid)
    assert "interrupted" in item.text() and "running" not in item.text()
    tab.run_list.setCurrentItem(item)
    tab.resume_selected()
    qtbot.waitUntil(lambda: tab.model.live is not None and tab.model.live.run.batches_done >= 5, timeout=60_000)
    tab._tick()
    assert "running" in _item(tab, rid).text() and "this session" in tab.status_label.text()
    tab.shutdown()


def test_plots_draw_a_bounded_spread_of_each_series_ending_at_its_last_point(qtbot):
    """A 600-point history is drawn as at most DRAWN_POINTS points spread along the axis (linear
    for the estimate, log for the RE), keeping the first and the newest point."""
    import numpy as np

    from sudokustudio.ui.widgets.est_plots import DRAWN_POINTS, ConvergencePlot, RelErrPlot, drawn_points

    t = np.cumsum(np.random.default_rng(1).uniform(0.5, 1.5, 600))
    for log_x in (False, True):
        idx = drawn_points(t, log_x=log_x)
        assert idx[0] == 0 and idx[-1] == 599 and len(idx) <= DRAWN_POINTS + 2
        assert np.all(np.diff(idx) > 0)
        x = np.log10(t) if log_x else t
        step = (x[-1] - x[0]) / (DRAWN_POINTS - 1)
        # no hole wider than a step, but for the data's own widest gap in between
        for a, b in zip(idx[:-1], idx[1:]):
            assert x[b] - x[a] <= step + np.diff(x[a:b + 1]).max() + 1e-12
    assert list(drawn_points(t[:50])) == list(range(50))               # short series: every point
    conv, rel = ConvergencePlot(), RelErrPlot()
    qtbot.addWidget(conv)
    qtbot.addWidget(rel)
    y, se = 1 + 0.01 / np.sqrt(t), 0.05 / np.sqrt(t)
    conv.show_runs([("a", "#1f77b4", t, y, se)])
    rel.show_runs([("a", "#1f77b4", t, se)], guide_from=(t[-1], se[-1]))
    (upper, lower, band, line) = conv._series.items[("a", "#1f77b4")]
    xs, ys = line.getData()
    assert len(xs) <= DRAWN_POINTS + 2 and xs[-1] == t[-1] and ys[-1] == y[-1]
    (rline,) = rel._series.items[("a", "#1f77b4")]
    assert len(rline.getData()[0]) <= DRAWN_POINTS + 2


def test_the_form_shows_its_labels_whole_in_both_modes(qtbot, settings):
    """The longest method name (the particle filter's) once squeezed "Method" to "Metho"."""
    from PySide6.QtWidgets import QLabel

    tab = EstimatorTab(settings)
    qtbot.addWidget(tab)
    tab.resize(1280, 750)
    tab.show()
    qtbot.waitExposed(tab)
    for mode in (0, 1):
        tab.what.setCurrentIndex(mode)
        qtbot.wait(50)
        shown = [lab for lab in tab.findChildren(QLabel) if lab.isVisible() and lab.text() in
                 ("Count", "Boxes", "Method", "s", "c", "Grids", "Seed", "Target RE")]
        assert len(shown) >= 5
        for lab in shown:
            assert lab.width() >= lab.minimumSizeHint().width(), (mode, lab.text(), lab.width())


def test_a_short_window_scrolls_the_left_column_and_keeps_the_form_whole(qtbot, settings):
    """At 1024 x 720 a run's wrapped status lines squeezed the form's rows on top of each other;
    the form now keeps its height and the column scrolls."""
    tab = EstimatorTab(settings)
    qtbot.addWidget(tab)
    tab.what.setCurrentIndex(1)
    tab.resize(1000, 520)
    tab.show()
    qtbot.waitExposed(tab)
    tab.status_label.setText("\n".join(["a run's status, long enough to wrap in the column"] * 12))
    tab.warning_label.setText("Heavy tail: the RE cannot be trusted yet at c = 20, 29")
    tab.warning_label.setVisible(True)
    qtbot.wait(100)
    rows = [tab.what, tab.mmethod, tab.s_spin, tab.c_spin]
    for w in rows:
        assert w.height() >= w.minimumSizeHint().height(), (w, w.height())
    tops = [w.mapTo(tab, w.rect().topLeft()).y() for w in rows]
    bottoms = [w.mapTo(tab, w.rect().bottomLeft()).y() for w in rows]
    assert all(b < t for b, t in zip(bottoms, tops[1:])), (tops, bottoms)
    # at about the window's first size (1280 x 820, the tab ~740 high) the column fits: the run
    # list takes the room left, its preferred height does not add a scroll bar
    from PySide6.QtWidgets import QScrollArea

    (column,) = [a for a in tab.findChildren(QScrollArea) if a.widget() is tab.run_list.parentWidget().parentWidget()]
    tab.status_label.setText("#1 subsets s=30 — paused\n" + "\n".join(["a line of the run's status"] * 6))
    tab.resize(1280, 740)
    qtbot.waitUntil(lambda: not column.verticalScrollBar().isVisible(), timeout=5000)


def test_a_run_waiting_for_its_kernels_shows_their_share_compiled_as_it_moves(qtbot, settings, messages):
    """A first start: the panel of a run queued for its kernels follows the share compiled (the
    tab redraws only when a batch or the status changes, which a waiting run does not)."""
    from sudokustudio.kernels import KernelReadiness, set_readiness
    from sudokustudio.kernels.readiness import COMPILING

    r = KernelReadiness(["grid-estimators"], ready=False)   # a grid count needs this group alone
    r.update("grid-estimators", state=COMPILING, kernels=32, expected=128)
    old = set_readiness(r)
    try:
        tab = _grids_tab(qtbot, settings)
        view = tab.start_run()
        qtbot.waitUntil(lambda: bool(view.run.snapshot(history=False).waiting_for), timeout=5_000)
        tab._tick()
        assert "preparing (compiling kernels: 25%)" in tab.status_label.text()
        r.update("grid-estimators", kernels=64)
        tab._tick()
        assert "preparing (compiling kernels: 50%)" in tab.status_label.text()
        r.mark_ready("grid-estimators")
        qtbot.waitUntil(lambda: view.run.batches_done >= 1, timeout=60_000)
        tab.stop_run()
        qtbot.waitUntil(lambda: view.run.finished, timeout=5_000)
        tab._tick()
        assert "preparing" not in tab.status_label.text()
        tab.shutdown()
    finally:
        set_readiness(old)
    assert not [m for m in messages if m[0] == "warning"]
