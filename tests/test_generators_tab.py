"""The Generators tab as a view over its model: runs on the shared executor, batches committed
by the runs' own threads, imports in the background, exports, Stop within a batch, and a
controlled-bias run that shows its work before its first puzzle."""
import numpy as np

from sudokustudio.jobs.collections import CollectionStore, import_collection
from sudokustudio.models.generators import METHODS


def _wait_idle(qtbot, tab, timeout=180_000):
    qtbot.waitUntil(lambda: not any(tab.is_running(m) for m in METHODS), timeout=timeout)


def _redrawn(qtbot, tab):
    """A forced refresh: the statistics come from a worker thread, then the stages are shown."""
    tab.refresh(force=True)
    qtbot.waitUntil(tab.drawn, timeout=30_000)


def test_tab_runs_generators_stores_and_exports(qtbot, settings, tmp_path):
    from sudokustudio.ui.generators_tab import GeneratorsTab

    tab = GeneratorsTab(settings)
    qtbot.addWidget(tab)
    tab.rows["top-down"]["target"].setValue(200)
    tab.rows["bottom-up"]["target"].setValue(100)
    tab.start("top-down")
    tab.start("bottom-up")
    _wait_idle(qtbot, tab)

    def drawn_by_the_timer():   # the statistics come from a worker thread, the table shows them
        t = tab.table
        cols = {t.horizontalHeaderItem(j).text(): j for j in range(t.columnCount())}
        return {"top-down", "bottom-up"} <= set(cols) and t.item(0, cols["top-down"]).text() == "200" \
            and t.item(0, cols["bottom-up"]).text() == "100"

    qtbot.waitUntil(drawn_by_the_timer, timeout=10_000)
    _redrawn(qtbot, tab)
    td = tab.series["top-down"]
    assert td.current().count == 200 and tab.series["bottom-up"].current().count == 100
    assert tab.rows["top-down"]["button"].text() == "Start"
    # every batch was committed to the collection store (by the run's thread)
    store = CollectionStore()
    assert np.array_equal(store.load(td.collection_id).puzzles, td.current().puzzles)
    headers = [tab.table.horizontalHeaderItem(j).text() for j in range(tab.table.columnCount())]
    assert "top-down" in headers and any("seed 002" in h for h in headers)
    rows = [tab.table.verticalHeaderItem(i).text() for i in range(tab.table.rowCount())]
    assert "mean clues" in rows and "mean solver guesses" in rows
    shares = tab.table.verticalHeaderItem(rows.index("shares vs seed 002 real (max |z|)"))
    assert "fewer than 10 effective samples" in shares.toolTip()
    tab.export_series("top-down", str(tmp_path / "td.csv"))   # written off the UI thread
    assert tab.calls.wait_idle(30_000) and tab.status.text() == f"Exported 200 puzzles to {tmp_path / 'td.csv'}"
    assert import_collection(tmp_path / "td.csv").puzzles.shape == (200, 81)
    from unittest import mock

    with mock.patch("sudokustudio.ui.generators_tab.show_error") as shown:   # a suffix it cannot write
        tab.export_series("top-down", str(tmp_path / "td.xls"))
        assert tab.calls.wait_idle(30_000)
        qtbot.waitUntil(lambda: shown.called, timeout=5_000)
    assert "'.xls'" in str(shown.call_args.args[2]) and tab.status.text().startswith("Cannot export")
    # the app's own CSV says which generator made it
    assert tab.model.guess_generator(tmp_path / "td.csv") == "top-down"
    tab.shutdown()


def test_staged_redraws_end_on_the_newest_drawing(qtbot, settings):
    """The tab shows a drawing in three stages (clue plot, metric plot, table) 15 ms apart; a
    newer drawing arriving between the stages still reaches all three."""
    from sudokustudio.ui.generators_tab import GeneratorsTab

    tab = GeneratorsTab(settings)
    qtbot.addWidget(tab)
    tab.rows["top-down"]["target"].setValue(200)
    tab.start("top-down")
    _wait_idle(qtbot, tab)
    metric = tab.metric_combo.currentText()
    tab.model.correct = True
    first = tab.model.drawing(metric)
    tab.rows["bottom-up"]["target"].setValue(100)
    tab.start("bottom-up")
    _wait_idle(qtbot, tab)
    tab.timer.stop()
    newest = tab.model.drawing(metric)
    tab._show(first)
    qtbot.wait(20)            # the first drawing's metric stage has run, its table stage not yet
    tab._show(newest)
    qtbot.wait(100)

    def shown(plot):
        return {k for (pid, k) in tab._curves if pid == id(plot) and k != "ref"}

    keys = {c.key for c in newest.curves}
    assert len(keys) == 2 and shown(tab.hist_plot) == keys and shown(tab.metric_plot) == keys
    cols = [tab.table.horizontalHeaderItem(j).text() for j in range(tab.table.columnCount())]
    assert "bottom-up" in cols and tab._stages.pending == 0
    tab.shutdown()


def test_stop_all_shows_stopping_and_no_batch_starts_after_it(qtbot, settings):
    from sudokustudio.ui.generators_tab import GeneratorsTab

    tab = GeneratorsTab(settings)
    qtbot.addWidget(tab)
    for m in METHODS:
        tab.rows[m]["target"].setValue(10_000_000)
    tab.start_all()
    qtbot.waitUntil(lambda: all(tab.series[m].run.batches_done >= 1 for m in ("top-down", "bottom-up")),
                    timeout=120_000)
    at_stop = {m: tab.series[m].run.batches_done for m in METHODS}
    tab.stop_all()
    assert {tab.rows[m]["button"].text() for m in METHODS} <= {"Stopping…", "Start"}
    assert "Stopping…" in {tab.rows[m]["button"].text() for m in METHODS}
    _wait_idle(qtbot, tab, timeout=60_000)
    for m in METHODS:   # only the batches in flight at Stop were merged: at most one per worker thread
        assert tab.series[m].run.batches_done - at_stop[m] <= 2
        assert tab.series[m].run.status.value == "paused"
    tab.refresh(force=True)
    assert {tab.rows[m]["button"].text() for m in METHODS} == {"Start"}
    # a restart over the first run's puzzles: the rows at once, the statistics from a worker thread
    import threading

    threads = []
    drawing = tab.model.drawing
    tab.model.drawing = lambda metric: (threads.append(threading.current_thread()), drawing(metric))[1]
    tab.start_all()
    assert {tab.rows[m]["button"].text() for m in METHODS} == {"Stop"}
    qtbot.waitUntil(lambda: bool(threads), timeout=10_000)
    assert threading.main_thread() not in threads
    tab.stop_all()
    _wait_idle(qtbot, tab, timeout=60_000)
    tab.shutdown()


def test_controlled_bias_shows_grids_tried_before_its_first_puzzle(qtbot, settings):
    from sudokustudio.ui.generators_tab import GeneratorsTab

    tab = GeneratorsTab(settings)
    qtbot.addWidget(tab)
    tab.rows["controlled-bias"]["target"].setValue(1)
    tab.start("controlled-bias")
    s = tab.series["controlled-bias"]
    qtbot.waitUntil(lambda: s.run.batches_done >= 1, timeout=120_000)
    row = tab.model.row("controlled-bias")
    assert "grids tried" in row.detail
    if s.run.snapshot(history=False).total.count == 0:
        assert "grids/s" in row.rate
    _wait_idle(qtbot, tab)
    assert s.current().count >= 1
    tab.shutdown()


def test_tab_imports_in_the_background_and_corrects_a_collection(qtbot, settings, shared_data, tmp_path,
                                                                  monkeypatch):
    from sudokustudio.ui import generators_tab
    from sudokustudio.ui.generators_tab import GeneratorsTab

    errors = []
    monkeypatch.setattr(generators_tab, "show_error", lambda parent, title, exc: errors.append(str(exc)))
    lines = (shared_data / "controlled_bias" / "001-puzzles.txt").read_text().splitlines()[:3000]
    (tmp_path / "cb.txt").write_text("\n".join(lines) + "\n")
    tab = GeneratorsTab(settings)
    qtbot.addWidget(tab)
    files = (tab.export_btn, tab.browse_btn, tab.clear_btn)
    tab.refresh()
    assert not any(b.isEnabled() for b in files)           # nothing to export, browse or clear yet
    tab.open_file(str(tmp_path / "cb.txt"), generator="controlled-bias")
    assert not tab.import_progress.isHidden() and not tab.import_btn.isEnabled()
    qtbot.waitUntil(lambda: not tab.calls.busy(), timeout=120_000)
    tab.refresh()
    assert all(b.isEnabled() for b in files)
    (s,) = [s for s in tab.series.values() if s.imported]
    assert s.current().count == 3000 and "guesses" in s.current().metrics
    stats = tab.model.stats(s)
    assert stats["corrected_mean"] > stats["mean"] + 0.5
    tab.correct_box.setChecked(False)
    assert tab.model.metric_note("W").startswith("No W-rating yet")
    tab.open_file(str(shared_data / "README.md"), generator="unknown")  # not a collection: a message, no crash
    qtbot.waitUntil(lambda: bool(errors), timeout=30_000)
    assert "README.md" in errors[0] and "line" in errors[0]
    tab.shutdown()


def test_the_w_plot_says_why_it_is_empty(qtbot, settings):
    from sudokustudio.ui.generators_tab import GeneratorsTab

    tab = GeneratorsTab(settings)
    qtbot.addWidget(tab)
    import threading

    threads = []
    drawing = tab.model.drawing
    tab.model.drawing = lambda metric: (threads.append(threading.current_thread()), drawing(metric))[1]
    tab.metric_combo.setCurrentText("W")     # the combo forces a redraw: its statistics off the UI thread
    qtbot.waitUntil(tab.drawn, timeout=30_000)
    assert "No W-rating yet" in tab.metric_note.toPlainText()
    tab.metric_combo.setCurrentText("guesses")
    _redrawn(qtbot, tab)
    assert "start a generator" in tab.metric_note.toPlainText()
    assert threads and threading.main_thread() not in threads
    # the note wraps to the plot's width, at the window's size and after it shrinks
    for width in (1280, 900):
        tab.resize(width, 700)
        tab.show()
        qtbot.waitExposed(tab)
        plot_width = tab.metric_plot.getViewBox().width()
        qtbot.waitUntil(lambda: tab.metric_note.boundingRect().width() <= plot_width, timeout=5000)
    tab.shutdown()


def test_tab_pattern_symmetry_and_rating_row(qtbot, settings, tmp_path):
    from sudokustudio.sudoku.generate.pattern import is_symmetric
    from sudokustudio.ui.generators_tab import GeneratorsTab

    tab = GeneratorsTab(settings)
    qtbot.addWidget(tab)
    row = tab.rows["pattern"]
    row["source"].setCurrentText("central")
    assert not row["mask"].isEnabled()
    row["target"].setValue(4)
    row["rating"].setText("guesses:0-6")
    tab.start("pattern")
    qtbot.waitUntil(lambda: not tab.is_running("pattern"), timeout=180_000)
    tab.refresh(force=True)
    s = tab.series["pattern"]
    res = s.current()
    assert res.count >= 4 and all(is_symmetric(p, "central") for p in res.puzzles)
    assert res.rated >= res.count and (res.metrics["guesses"] <= 6).all()
    assert "grids per puzzle" in row["progress"].toolTip() and "rated" in row["progress"].toolTip()
    assert "central symmetry" in s.name
    # one per isomorphism class on export
    tab.export_series("pattern", str(tmp_path / "p.txt"), one_per_class=True)
    assert tab.calls.wait_idle(30_000) and tab.status.text().startswith(f"Exported {res.count:,} puzzles")
    assert len(import_collection(tmp_path / "p.txt").puzzles) == res.count
    # a mask with a bad character: a clear message, nothing started
    row["source"].setCurrentText("mask")
    row["mask"].setText("x" * 40 + "q" + "." * 40)
    from unittest import mock

    with mock.patch("sudokustudio.ui.generators_tab.QMessageBox.warning") as warn:
        tab.series.pop("pattern")
        tab.start("pattern")
    assert "r5c5" in warn.call_args[0][2]
    tab.shutdown()


def test_clue_plot_range_follows_the_shares_down(qtbot, settings):
    """A run's first puzzles give spiky shares; once the shares settle, the clue-count plot
    frames them again: the data fill at least 60 % of its y range (with 40 %, an axis framed on
    a spike twice the settled shares stayed, as a run of the window showed)."""
    import dataclasses

    from sudokustudio.ui.generators_tab import GeneratorsTab

    tab = GeneratorsTab(settings)
    qtbot.addWidget(tab)
    tab.rows["top-down"]["target"].setValue(200)
    tab.start("top-down")
    _wait_idle(qtbot, tab)
    tab.timer.stop()
    settled = tab.model.drawing(tab.metric_combo.currentText())
    (curve,) = settled.curves
    x, y = curve.hist
    high = max(float(y.max()), float(settled.reference[1].max()))
    spike = np.where(np.arange(len(y)) == int(np.argmax(y)), 2 * high / 1.1, 0.0)
    early = dataclasses.replace(settled, curves=[dataclasses.replace(curve, hist=(x, spike),
                                                                     version=("early",))])
    view = tab.hist_plot.getViewBox()
    tab._show(early)      # its first stage, the clue-count plot, is drawn at once
    assert view.viewRange()[1][1] >= 2 * 1.45 * high          # the spike and room for the legend
    tab._show(settled)
    top = view.viewRange()[1][1]
    assert 1.45 * high <= top <= 1.45 * high / 0.6 + 1e-9
    tab.shutdown()


def test_a_narrow_window_narrows_the_table_not_the_plots(qtbot, settings):
    """At 800 px the plots keep their minimum width (title and legend whole) and the metric plot
    its height; the table, which scrolls, gives the width up."""
    from sudokustudio.ui.generators_tab import METRIC_MIN_HEIGHT, PLOTS_MIN_WIDTH, GeneratorsTab

    tab = GeneratorsTab(settings)
    qtbot.addWidget(tab)
    tab.resize(800, 560)
    tab.show()
    qtbot.waitExposed(tab)
    qtbot.waitUntil(lambda: tab.hist_plot.width() >= PLOTS_MIN_WIDTH, timeout=5000)
    assert tab.table.width() < tab.hist_plot.width()
    assert tab.metric_plot.height() >= METRIC_MIN_HEIGHT
    title = tab.hist_plot.getPlotItem().titleLabel
    assert title.boundingRect().width() <= tab.hist_plot.width()
    # a progress bar too narrow for its words shows the figures alone (they wrapped out of the bar)
    from sudokustudio.models.generators import RowState

    row = RowState(0.25, "5,000 / 20,000 samples", "0", "–", "Stop", "", "5,000 / 20,000")
    tab.model.row = lambda method: row
    bar = tab.rows["weighted-subsets"]["progress"]
    for width, shown in ((900, "5,000 / 20,000"), (1400, "5,000 / 20,000 samples")):
        tab.resize(width, 560)
        qtbot.waitUntil(lambda: tab.width() == width, timeout=5000)
        qtbot.wait(50)
        tab.refresh()
        assert bar.format() == shown, (width, bar.width())
        assert bar.fontMetrics().horizontalAdvance(bar.format()) < bar.width()
    tab.shutdown()
