"""The estimator tab: live run, pause/resume, reopen from the store, export, bad store."""
import json

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from sudokustudio.jobs.store import RunStore, default_store_path
from sudokustudio.sudoku import estimators as E
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


def test_live_run_pause_resume_reopen_and_export(qtbot, settings, tmp_path, messages):
    tab = _grids_tab(qtbot, settings)
    tab.start_run()
    run = tab.live
    qtbot.waitUntil(lambda: run.runner.batches_done >= 3, timeout=60_000)
    tab.toggle_pause()
    qtbot.waitUntil(lambda: not run.runner.running, timeout=30_000)
    tab._tick()
    done = run.runner.batches_done
    store = RunStore(default_store_path())
    assert store.done_indices(run.run_id) == set(range(done))
    assert store.run(run.run_id).status == "paused"
    assert "samples" in tab.status_label.text() and "ETA" in tab.status_label.text()
    assert tab.conv_plot.plotItem.listDataItems()
    # export
    tab.export_run(run, str(tmp_path / "r.json"))
    doc = json.loads((tmp_path / "r.json").read_text())
    assert doc["spec"]["method"] == "ridder" and doc["summary"]["samples"] == run.total.n
    tab.export_run(run, str(tmp_path / "r.csv"))
    lines = (tmp_path / "r.csv").read_text().splitlines()
    assert lines[0] == "cpu_seconds,samples,estimate,se,rel_err" and len(lines) >= 2
    tab.stop_run()
    tab.shutdown()

    # a new tab (as after quitting the app) lists the run and resumes it
    tab2 = EstimatorTab(settings)
    qtbot.addWidget(tab2)
    items = [tab2.run_list.item(i) for i in range(tab2.run_list.count())]
    (item,) = [it for it in items if it.data(Qt.UserRole) == run.run_id]
    tab2.run_list.setCurrentItem(item)
    tab2.resume_selected()
    again = tab2.live
    assert again.run_id == run.run_id
    qtbot.waitUntil(lambda: again.runner.batches_done >= done + 2, timeout=60_000)
    tab2.stop_run()
    again.runner.wait()
    total = again.runner.total()
    assert total.n == again.job.samples_per_batch * again.runner.batches_done
    d = again.job.describe(total)
    assert abs(d["estimate"] - 288) < 5 * d["se"]
    tab2.shutdown()
    assert not [m for m in messages if m[0] == "warning"]


def test_two_runs_on_one_plot_and_minimals_view(qtbot, settings, messages):
    tab = _grids_tab(qtbot, settings)
    for m in ("ridder", "rows"):
        tab.gmethod.setCurrentIndex(E.GRID_METHODS.index(m))
        tab.start_run()
        qtbot.waitUntil(lambda: tab.live.runner.batches_done >= 2, timeout=60_000)
        tab.stop_run()
        tab.live.runner.wait()
    for i in range(tab.run_list.count()):
        tab.run_list.item(i).setCheckState(Qt.Checked)
    tab._redraw(force=True)
    labels = {k[0] for k in tab.re_plot._series.items}
    assert len(labels) >= 2 and len(tab.conv_plot._series.items) >= 2
    assert {name for _, name in tab.re_plot._legend.keys} >= labels
    # minimal puzzles (9x9, path: quick batches)
    tab.what.setCurrentIndex(1)
    tab.mmethod.setCurrentIndex(E.MINIMAL_METHODS.index("path"))
    tab.start_run()
    qtbot.waitUntil(lambda: tab.live.runner.batches_done >= 2, timeout=120_000)
    tab.stop_run()
    tab.live.runner.wait()
    tab._redraw(force=True)
    assert tab.live.history and tab.live.history[-1][1] > 0
    tab.shutdown()


def test_a_damaged_store_file_gives_a_clear_message(qtbot, settings, messages):
    default_store_path().write_bytes(b"not a database at all" * 50)
    tab = EstimatorTab(settings)
    qtbot.addWidget(tab)
    qtbot.waitUntil(lambda: bool(messages), timeout=5000)
    assert "damaged or not a run store" in messages[0][1]
    assert tab.store is None
    # estimating still works, unsaved
    tab.box.setCurrentIndex(E.BOX_SHAPES.index("2x2"))
    tab.gmethod.setCurrentIndex(E.GRID_METHODS.index("ridder"))
    tab.start_run()
    qtbot.waitUntil(lambda: tab.live.runner.batches_done >= 1, timeout=60_000)
    tab.shutdown()


def test_bad_parameters_give_a_message(qtbot, settings, messages):
    tab = EstimatorTab(settings)
    qtbot.addWidget(tab)
    tab.what.setCurrentIndex(1)
    tab.mmethod.setCurrentIndex(E.MINIMAL_METHODS.index("supersets"))
    tab.s_spin.setValue(30)
    tab.c_spin.setValue(20)
    tab.start_run()
    assert messages and "clue limit" in messages[-1][1]
    assert tab.live is None
