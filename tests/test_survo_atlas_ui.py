"""Atlas view: run with progress, seed tables, double-click plays on the board."""
from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt

from sudokustudio.survo.atlas import SEED_SWAPS_4x4, SurvoAtlasJob, read_atlas, write_atlas
from sudokustudio.ui.survo_atlas_view import SIZES, AtlasView


def _run(view, qtbot, size):
    view.size_box.setCurrentIndex(SIZES.index(size))
    # the signal is watched before the run starts: its thread may finish before the test's next line
    with qtbot.waitSignal(view.runOver, timeout=120_000):
        view.start()
        assert not view.run_btn.isEnabled() and view.cancel_btn.isEnabled()
    qtbot.waitUntil(lambda: not view.charts_pending)   # the last charts, one per turn of the event loop


def test_run_shows_puzzles_and_double_click_plays(qtbot, settings):
    view = AtlasView(settings)
    qtbot.addWidget(view)
    files = (view.save_btn, view.csv_btn, view.play_btn)
    assert not any(b.isEnabled() for b in files)       # no atlas: nothing to save, export or play
    _run(view, qtbot, (2, 5))
    assert [b.isEnabled() for b in files] == [True, True, False]
    view.table.selectRow(0)
    assert view.play_btn.isEnabled()
    assert view.model.rowCount() == 278
    assert view.progress.value() == view.progress.maximum() == SurvoAtlasJob(2, 5).n_batches()
    assert "278" in view.status.text() and "match" in view.status.text()
    played = []
    view.playRequested.connect(played.append)
    view.table.sortByColumn(4, Qt.DescendingOrder)   # most swaps first
    swaps_shown = [view.model.data(view.model.index(r, 4)) for r in range(view.model.rowCount())]
    assert swaps_shown == sorted(view.result.swaps().tolist(), reverse=True)
    idx = view.model.index(3, 1)
    view.table.doubleClicked.emit(idx)
    assert len(played) == 1
    p = played[0]
    src = view.model.record_index(3)
    assert view.model.data(view.model.index(3, 0)) == src + 1
    assert view.model.data(idx) == " ".join(map(str, view.result.row_sums()[src]))
    assert np.array_equal(p.row_sums, view.result.row_sums()[src])
    assert np.array_equal(p.col_sums, view.result.col_sums()[src])
    view.shutdown()


def test_cancel_keeps_a_partial_atlas(qtbot, settings):
    view = AtlasView(settings)
    qtbot.addWidget(view)
    view.size_box.setCurrentIndex(SIZES.index((3, 4)))
    with qtbot.waitSignal(view.runOver, timeout=120_000):
        view.start()
        qtbot.waitUntil(lambda: view.runner is not None, timeout=60_000)   # planned off the UI thread
        view.cancel()
    assert view.run_btn.isEnabled()
    assert view.runner.batches_done <= SurvoAtlasJob(3, 4).n_batches()
    assert view.model.rowCount() <= 583


def test_cancel_while_planning_starts_no_run(qtbot, settings):
    """Start builds the batch plan off the UI thread; Cancel meanwhile means no run at all."""
    view = AtlasView(settings)
    qtbot.addWidget(view)
    view.size_box.setCurrentIndex(SIZES.index((3, 5)))
    with qtbot.waitSignal(view.runOver, timeout=120_000) as over:
        view.start()
        assert view.calls.busy("plan") and not view.size_box.isEnabled() and view.cancel_btn.isEnabled()
        view.cancel()
    assert over.args == ["cancelled"] and view.runner is None
    assert view.run_btn.isEnabled() and view.size_box.isEnabled() and not view.cancel_btn.isEnabled()
    assert "Cancelled" in view.status.text()


def test_seed_tables_shown_for_a_4x4_file(qtbot, settings, tmp_path):
    """A 4×4 atlas file (here a fake, partial one) fills the computed columns."""
    from sudokustudio.survo.atlas import AtlasResult, record_width

    job_result = AtlasResult(4, 4, np.zeros((0, record_width(4, 4)), np.int64), np.zeros(0))
    view = AtlasView(settings)
    qtbot.addWidget(view)
    assert view.swaps_table.item(1, 0).text() == str(SEED_SWAPS_4x4[0])
    assert view.seed_box.isHidden()            # 3×4 selected: no seed tables to compare, no room taken
    view.set_result(job_result, complete=True)
    assert view.swaps_table.item(2, 0).text() == "0" and not view.seed_box.isHidden()
    legend = view.swaps_plot.getPlotItem().legend
    assert [label.text for _, label in legend.items] == ["computed", "seed 001"]   # seed bars beside
    # a real file round trip (2x4) selects the size and lists the puzzles
    from sudokustudio.jobs.run import run_batches

    job = SurvoAtlasJob(2, 4)
    res = run_batches(job, 0, job.n_batches()).total
    path = tmp_path / "a.txt"
    write_atlas(path, res)
    assert view.open_file(str(path))   # read off the UI thread
    assert view.calls.wait_idle(30_000)
    qtbot.waitUntil(lambda: not view.charts_pending)
    assert view.selected_size() == (2, 4) and view.model.rowCount() == 62
    assert not legend.items   # no seed bars beside a 2×4 atlas, no legend rows
    assert view.seed_box.isHidden()
    # a shown result's columns are fitted a turn of the event loop later (not in the refresh's
    # own turn); then "#" has room for the largest number a sort brings up
    view.table.setColumnWidth(0, 300)
    view.set_result(view.result, complete=True, charts=False)
    assert view.table.columnWidth(0) == 300 and view.fit_timer.isActive()
    qtbot.waitUntil(lambda: not view.fit_timer.isActive())
    assert view.table.fontMetrics().horizontalAdvance("620") <= view.table.columnWidth(0) < 300


def test_open_button_reads_an_atlas_file_in_the_background(qtbot, settings, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QFileDialog

    from sudokustudio.jobs.run import run_batches

    job = SurvoAtlasJob(2, 5)
    res = run_batches(job, 0, job.n_batches()).total
    path = tmp_path / "a.txt"
    write_atlas(path, res)
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(path), ""))
    view = AtlasView(settings)
    qtbot.addWidget(view)
    assert view.open_btn.isEnabled() and "--out" in view.open_btn.toolTip()
    view.open_btn.click()
    assert view.status.text().startswith("Reading a.txt")
    assert view.calls.wait_idle(30_000)
    assert view.selected_size() == (2, 5) and view.model.rowCount() == res.count
    p = view.atlas.partition_progress()
    assert p.done.all() and int(p.puzzles.sum()) == res.count
    assert view.progress.value() == view.progress.maximum() == len(p.done)
    assert settings.value("folders/atlas") == str(tmp_path)


def test_bad_atlas_file_shows_error(qtbot, settings, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QMessageBox

    shown = []
    monkeypatch.setattr(QMessageBox, "critical", lambda *a, **k: shown.append(a[2]))
    view = AtlasView(settings)
    qtbot.addWidget(view)
    bad = tmp_path / "bad.txt"
    bad.write_text("not an atlas\n")
    before = view.status.text()
    assert view.open_file(str(bad))
    assert view.calls.wait_idle(30_000)
    assert shown and "line 1" in shown[0]
    assert view.status.text() == before and view.result is None


def test_survo_tab_has_atlas_view(qtbot, settings):
    from sudokustudio.ui.survo_tab import SurvoTab

    tab = SurvoTab(settings)
    qtbot.addWidget(tab)
    titles = [tab.views.tabText(i) for i in range(tab.views.count())]
    assert "Atlas" in titles
    played = []
    tab.atlas_view.playRequested.connect(played.append)
    tab.shutdown()


def test_2x6_run_fills_partitions_size_tables_and_exports_csv(qtbot, settings, tmp_path):
    view = AtlasView(settings)
    qtbot.addWidget(view)
    view.show()
    view.size_box.setCurrentIndex(SIZES.index((2, 6)))
    # the prediction runs in the background when the view is seen
    qtbot.waitUntil(lambda: view.prediction.text().startswith("S(2,6): about"), timeout=120_000)
    # no empty 0-1 axes before a run: each chart waits behind a line saying what it will show
    assert not any(slot.revealed for slot in view.chart_slots.values())
    assert "drawn as a run goes" in view.chart_slots[view.w_plot].hint.text()
    _run(view, qtbot, (2, 6))
    assert all(slot.revealed for slot in view.chart_slots.values())
    assert view.model.rowCount() == 1146
    p = view.atlas.partition_progress()
    assert p.done.all() and int(p.puzzles.sum()) == 1146
    # the charts: a bar per partition holding its puzzles, none pending; the swaps bars hold every puzzle
    assert view._done_bars.isVisible() and not view._pending_bars.isVisible()
    assert len(view._done_bars.opts["x"]) == len(p.done) and view._done_bars.opts["height"].sum() == 1146
    computed, seed = view._hist_bars[view.swaps_bars]
    assert computed.opts["height"].sum() == 1146 and not seed.isVisible()   # no seed bars beside a 2×6 run
    assert view._hist_bars[view.w_bars][0].opts["height"].sum() == 1146   # the W chart drawn to the end too
    assert not view.swaps_plot.getPlotItem().legend.items   # and no legend rows for them
    for plot, bars in ((view.part_plot, view._done_bars), (view.swaps_plot, computed)):   # every bar in view
        (x0, x1), (y0, y1) = plot.getPlotItem().getViewBox().viewRange()
        assert x0 <= bars.opts["x"].min() and bars.opts["x"].max() <= x1 and y0 <= 0 < bars.opts["height"].max() <= y1
    swaps = view.size_swaps_table
    assert swaps.rowCount() == len(view.result.swaps_hist())
    assert sum(int(swaps.item(r, 1).text().replace(",", "")) for r in range(swaps.rowCount())) == 1146
    w = view.size_w_table
    assert w.item(w.rowCount() - 1, 0).text() == "all"
    assert "measured" in view.prediction.text()   # how good the prediction was
    paths = view.export_csv(str(tmp_path / "t"))
    assert len(paths) == 3 and all(x.exists() for x in paths)
    view.export_file(str(tmp_path / "a.txt"))     # written off the UI thread
    assert view.calls.wait_idle(30_000)
    saved = read_atlas(str(tmp_path / "a.txt"))
    assert np.array_equal(saved.records, view.result.records)
    view.shutdown()


def test_prediction_only_size_does_not_run(qtbot, settings, monkeypatch):
    from PySide6.QtWidgets import QMessageBox

    shown = []
    monkeypatch.setattr(QMessageBox, "information", lambda *a, **k: shown.append(a[2]))
    view = AtlasView(settings)
    qtbot.addWidget(view)
    view.size_box.setCurrentIndex(SIZES.index((5, 5)))
    assert not view.run_btn.isEnabled()
    view.start()
    assert view.runner is None and shown and "S(5,5)" in shown[0]


def test_2x10_is_offered_without_a_probe_estimate(qtbot, settings):
    """Two rows run by their own method: 2×10 is runnable, and no estimate of the general search
    (past 8 columns) is started when it is selected."""
    view = AtlasView(settings)
    qtbot.addWidget(view)
    view.size_box.setCurrentIndex(SIZES.index((2, 10)))
    view.show()   # a shown view predicts its size when it can
    assert view.run_btn.isEnabled() and "843,476" in view.size_box.currentText()
    assert "two-row method" in view.prediction.text() and not view.calls.busy("predict")
    view.shutdown()


def test_big_atlas_sorts_off_the_ui_thread_and_shows_the_newest_rows(qtbot, monkeypatch):
    """Past SYNC_SORT_ROWS the list sorts through its sorter (the view's background calls): until the
    order lands every row is shown once (new rows after those shown); a growing total sorted meanwhile
    is sorted again when the first sort lands; the final order is the stable sort."""
    from sudokustudio.models.survo_atlas import puzzle_order
    from sudokustudio.survo.atlas import AtlasResult, merge_results, record_width
    from sudokustudio.ui import survo_atlas_list
    from sudokustudio.ui.survo_atlas_list import AtlasModel

    monkeypatch.setattr(survo_atlas_list, "sorts_slowly", lambda count, column: column != 0 and count > 10)
    rng = np.random.default_rng(2)

    def part(k):
        return AtlasResult(2, 3, rng.integers(0, 9, size=(k, record_width(2, 3)), dtype=np.int64), rng.random(k))

    model = AtlasModel()
    model.RESORT_EVERY = 0.0
    pending = []
    model.sorter = lambda fn, done, error: pending.append((fn, done))
    first = part(40)
    model.set_result(first)
    model.sort(2, Qt.DescendingOrder)
    assert len(pending) == 1 and np.array_equal(model.order, np.arange(40))   # shown as they were
    grown = merge_results(first, part(25))
    model.set_result(grown)                       # a sort is out: no second one yet
    assert len(pending) == 1 and sorted(model.order.tolist()) == list(range(65))
    fn, done = pending.pop()
    done(fn())                                    # the first sort lands for an older total: sort again
    assert len(pending) == 1 and model.rowCount() == 65
    fn, done = pending.pop()
    done(fn())
    assert not pending and np.array_equal(model.order, puzzle_order(grown, 2, descending=True))
    shown = [model.data(model.index(r, 2)) for r in range(65)]
    want = sorted((tuple(c) for c in grown.col_sums().tolist()), reverse=True)
    assert [tuple(map(int, s.split())) for s in shown] == want

    # a live total sorted by the same column waits RESORT_EVERY seconds; another column does not
    model.RESORT_EVERY = 60.0
    model.sort(2, Qt.AscendingOrder)
    fn, done = pending.pop()
    done(fn())
    newer = merge_results(grown, part(5))
    model.set_result(newer)
    assert not pending and model._resort_timer.isActive() and model.rowCount() == 70
    model.sort(4, Qt.AscendingOrder)
    assert len(pending) == 1 and not model._resort_timer.isActive()
    fn, done = pending.pop()
    done(fn())
    assert not pending and np.array_equal(model.order, puzzle_order(newer, 4))


def test_resume_carries_on_a_stored_run(qtbot, settings):
    """A 3×4 run stopped after 5 batches in the app's store: the view offers Resume for that size,
    says what the stored run holds, and carries it on to the whole atlas in the background."""
    from sudokustudio.jobs.run import Run, StopRules
    from sudokustudio.jobs.store import RunStore

    job = SurvoAtlasJob(3, 4)
    stored = Run.create(job, 0, StopRules(batches=job.n_batches()), store=RunStore(), name="survo atlas 3x4")
    stored.set_rules(StopRules(batches=5))
    stored.run(workers=1)
    stored.set_rules(StopRules(batches=job.n_batches()))   # as a crash leaves it: 5 of the whole plan done
    view = AtlasView(settings)
    qtbot.addWidget(view)
    view.size_box.setCurrentIndex(SIZES.index((2, 5)))
    assert not view.resume_btn.isEnabled()
    view.size_box.setCurrentIndex(SIZES.index((3, 4)))
    assert view.resume_btn.isEnabled()
    assert f"#{stored.run_id}, stopped) has 5 of {job.n_batches()} partitions" in view.status.text()
    with qtbot.waitSignal(view.runOver, timeout=120_000):
        view.resume()
    assert view.result.count == 583 and "match" in view.status.text()
    assert view.progress.value() == view.progress.maximum() == job.n_batches()
    assert view.atlas.partition_progress().done.all() and view.resume_btn.isEnabled()
    assert "is complete" in view.atlas.stored_run_text(view.atlas.stored_run_info())
    view.shutdown()



def test_a_running_refresh_draws_one_chart_a_tick(qtbot, settings, monkeypatch):
    """A chart whose range moved paints its axes again (~9 ms): while a run goes, a refresh with a
    new batch fills the tables and each next tick draws one chart; the final refresh draws them all."""
    from types import SimpleNamespace

    from sudokustudio.jobs.run import run_batches

    job = SurvoAtlasJob(2, 5)
    res = run_batches(job, 0, job.n_batches()).total
    view = AtlasView(settings)
    qtbot.addWidget(view)
    view.atlas.select(2, 5)
    view.job = job
    snap = SimpleNamespace(batches=1, total=res, session_seconds=1.0, eta=None)
    view.runner = SimpleNamespace(snapshot=lambda history=False: snap, live=True)
    drawn = []
    for name in ("_draw_swaps", "_draw_w", "_draw_partitions"):
        monkeypatch.setattr(view, name, lambda name=name: drawn.append(name))
    view._refresh()   # a new batch: the tables now, the charts in the next ticks
    assert drawn == [] and view.size_swaps_table.rowCount() == len(res.swaps_hist())
    view._refresh()
    assert drawn == ["_draw_swaps"]
    view._refresh()
    view._refresh()
    assert drawn == ["_draw_swaps", "_draw_w", "_draw_partitions"]
    view._refresh()   # nothing new, nothing left
    assert len(drawn) == 3
    snap.batches = 2  # a new batch: the turn starts again
    view._refresh()
    view._refresh()
    assert drawn[3:] == ["_draw_swaps"]
    drawn.clear()
    view._refresh(final=True)   # the last charts: one per turn of the event loop
    assert drawn == [] and view.charts_pending
    qtbot.waitUntil(lambda: not view.charts_pending)
    assert drawn == ["_draw_swaps", "_draw_w", "_draw_partitions"]
    view.runner = None
