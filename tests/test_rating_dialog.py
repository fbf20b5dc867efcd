"""Tools → Rate puzzles…: the dialog rates a file in batches, shows the distribution, exports CSV."""
from __future__ import annotations

import numpy as np
import pytest

from sudokustudio.sudoku.grid import format_puzzle, read_puzzles
from sudokustudio.sudoku.rating import rating_label


def _finished(dlg) -> bool:
    """The run has ended and the dialog has drawn its last results."""
    return dlg.runner is not None and dlg.runner.finished and not dlg.timer.isActive()


def test_rate_dialog_rates_a_file_and_exports_csv(qtbot, settings, shared_data, tmp_path, monkeypatch):
    from sudokustudio.ui.rate_dialog import RateDialog

    d = shared_data / "controlled_bias"
    puzzles = read_puzzles(d / "001-puzzles.txt").puzzles[:40]
    w_ref = np.loadtxt(d / "001-W-ratings.txt", dtype=int)[:40]
    f = tmp_path / "p.txt"
    f.write_text("\n".join(format_puzzle(p) for p in puzzles) + "\n")

    dlg = RateDialog(settings)
    qtbot.addWidget(dlg)
    dlg.open_file(str(f))                                      # read in the background
    qtbot.waitUntil(lambda: len(dlg.puzzles) == 40, timeout=30000)
    assert not dlg.export_button.isEnabled()
    with qtbot.waitSignal(dlg.start_button.clicked, timeout=1000):
        dlg.start_button.click()
    qtbot.waitUntil(lambda: _finished(dlg), timeout=300000)
    assert dlg.ratings.tolist() == w_ref.tolist()
    assert dlg.model.rowCount() == 40
    row = [dlg.model.data(dlg.model.index(3, c)) for c in range(5)]
    assert row == ["4", str(int(np.count_nonzero(puzzles[3]))), rating_label(w_ref[3], dlg.rating.cap), row[3],
                   format_puzzle(puzzles[3])]
    metrics = dlg.view.fontMetrics()   # the columns fit their texts without measuring the rows
    assert all(dlg.view.columnWidth(c) >= metrics.horizontalAdvance(row[c]) for c in range(4))
    assert dlg.dist_table.item(0, 1).text() == str(int((w_ref == 0).sum()))
    assert dlg.dist_table.item(0, 4).text() == "35.08"        # seed 002 §3.3 beside it
    out = tmp_path / "r.csv"
    assert dlg.export_csv(str(out))
    rows = out.read_text().splitlines()
    assert rows[0] == "line,puzzle,clues,W,cands_after_BRT" and len(rows) == 41
    assert rows[1].split(",")[3] == str(w_ref[0])

    # a bad file: a clear message, the dialog keeps its puzzles
    from sudokustudio.ui import rate_dialog

    warned = []
    monkeypatch.setattr(rate_dialog, "show_error", lambda parent, title, exc: warned.append(str(exc)))
    bad = tmp_path / "bad.txt"
    bad.write_text("hello\n")
    dlg.open_file(str(bad))
    qtbot.waitUntil(lambda: bool(warned), timeout=30000)
    assert "bad.txt" in warned[0]
    assert len(dlg.puzzles) == 40
    dlg.shutdown()


def test_main_window_has_the_rate_action(qtbot, settings):
    from sudokustudio.ui.main_window import MainWindow

    w = MainWindow(settings, tab_names=[], warm_up=False)
    qtbot.addWidget(w)
    w.rate_action.trigger()
    assert w.rate_dialog.isVisible()
    w.close()


def test_rate_dialog_uses_collection_weights(qtbot, settings, shared_data):
    from sudokustudio.ui.rate_dialog import RateDialog

    d = shared_data / "controlled_bias"
    puzzles = read_puzzles(d / "001-puzzles.txt").puzzles[:8]
    w_ref = np.loadtxt(d / "001-W-ratings.txt", dtype=int)[:8]
    weights = np.arange(1.0, 9.0)
    dlg = RateDialog(settings)
    qtbot.addWidget(dlg)
    dlg.set_puzzles(puzzles, "weighted", weights=weights)
    dlg.start()
    qtbot.waitUntil(lambda: _finished(dlg), timeout=300000)
    assert dlg.ratings.tolist() == w_ref.tolist()
    assert dlg.dist_table.horizontalHeaderItem(3).text() == "real % (weights)"
    expect = 100 * weights[w_ref == 0].sum() / weights.sum()
    assert float(dlg.dist_table.item(0, 3).text()) == pytest.approx(expect, abs=0.01)
    dlg.shutdown()


def test_rate_dialog_shows_the_whips_behind_a_rating(qtbot, settings, shared_data):
    from sudokustudio.sudoku.rating import w_rating_path
    from sudokustudio.ui.rate_dialog import RateDialog

    puzzles = read_puzzles(shared_data / "controlled_bias" / "001-puzzles.txt").puzzles[:3]
    dlg = RateDialog(settings)
    qtbot.addWidget(dlg)
    dlg.set_puzzles(puzzles, "first three")
    dlg.start()
    qtbot.waitUntil(lambda: _finished(dlg), timeout=120000)
    assert dlg.path_button.isEnabled()
    dlg.view.selectRow(2)
    dlg.path_button.click()
    qtbot.waitUntil(lambda: dlg.path_dialog is not None and dlg.path_dialog.isVisible(), timeout=60000)
    text = dlg.path_text.toPlainText()
    steps = w_rating_path(puzzles[2]).steps
    assert text.startswith("line 3: ") and f"{len(steps)} whip eliminations" in text
    assert f"{len(steps):4d}. {steps[-1]}" in text
    assert "line 3" in dlg.path_dialog.windowTitle()
    dlg.shutdown()
