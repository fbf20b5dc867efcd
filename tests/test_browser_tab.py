"""The Collections tab (pytest-qt): open, filter, sort, select, step through a W path,
copy and paste through the clipboard, save the grid, find isomorphs."""
import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QMessageBox

from sudokustudio.core.rng import seed_state
from sudokustudio.jobs.collections import CollectionStore
from sudokustudio.sudoku.grid import format_puzzle, random_isomorph
from sudokustudio.sudoku.rating import w_rating
from sudokustudio.ui.browser_tab import BrowserTab
from tests.conftest import load_puzzles


@pytest.fixture
def tab(qtbot, settings, tmp_path, shared_data):
    store = CollectionStore(tmp_path / "collections.sqlite3")
    magic = load_puzzles(shared_data / "puzzles3_magictour_top1465", limit=12)
    w = np.array([w_rating(p) for p in magic])
    cid = store.create("magic", "imported")
    store.add_batch(cid, 0, magic, None, {"W": w})
    seventeen = load_puzzles(shared_data / "puzzles2_17_clue", limit=8)
    rng = seed_state(np.uint64(3))
    iso = np.array([random_isomorph(seventeen[i % 8], rng) for i in range(4)])
    cid2 = store.create("seventeen", "imported")
    store.add_batch(cid2, 0, np.r_[seventeen, iso])
    t = BrowserTab(settings, store=store)
    qtbot.addWidget(t)
    t.resize(1300, 700)
    t.show()
    t.magic, t.w, t.ids = magic, w, (cid, cid2)
    yield t
    t.shutdown()


def _open(qtbot, tab, ids):
    tab.show_collections(list(ids))
    qtbot.waitUntil(lambda: tab.table is not None and set(np.unique(tab.table.collection)) == set(ids),
                    timeout=20000)


def _select(qtbot, tab, row):
    tab.view.setCurrentIndex(tab.table_model.index(row, 0))
    qtbot.waitUntil(lambda: bool(tab.frames), timeout=120000)


def test_buttons_that_would_do_nothing_are_greyed(qtbot, tab):
    """Nothing open: no export, isomorphs, copy, image or print; a listed collection brings the
    first two, a selected (shown) puzzle the others; a filter that lists nothing greys export."""
    actions = (tab.export_btn, tab.classes_btn, tab.copy_btn, tab.save_btn, tab.print_btn)
    assert not any(b.isEnabled() for b in actions)
    _open(qtbot, tab, tab.ids)
    assert [b.isEnabled() for b in actions] == [True, True, False, False, False]
    tab.view.setCurrentIndex(tab.table_model.index(0, 0))
    assert all(b.isEnabled() for b in actions)
    tab.clues_lo.setValue(80)
    qtbot.waitUntil(lambda: tab.table_model.rowCount() == 0, timeout=5000)
    assert not tab.export_btn.isEnabled() and not tab.copy_btn.isEnabled() and tab.save_btn.isEnabled()


def test_open_filter_sort_and_select(qtbot, tab):
    _open(qtbot, tab, tab.ids)
    assert tab.table_model.rowCount() == 24
    assert tab.table_model.headers == ["collection", "clues", "W", "class", "isomorph", "puzzle"]
    tab.clues_lo.setValue(17)
    tab.clues_hi.setValue(17)
    qtbot.waitUntil(lambda: tab.table_model.rowCount() == 12, timeout=5000)
    assert "12 of 24 puzzles listed" in tab.count_label.text()
    tab.clues_lo.setValue(0)
    tab.clues_hi.setValue(81)
    tab.metric_combo.setCurrentText("W")
    tab.metric_lo.setValue(float(tab.w.min()))
    qtbot.waitUntil(lambda: tab.table_model.rowCount() == 12, timeout=5000)
    tab.view.sortByColumn(2, Qt.DescendingOrder)     # W, hardest first
    qtbot.waitUntil(lambda: tab.sort_key == ("W", True), timeout=5000)
    shown = [tab.table_model.data(tab.table_model.index(r, 2)) for r in range(12)]
    assert shown == ["> 12" if w == 13 else str(w) for w in sorted(tab.w.tolist(), reverse=True)]
    assert "> 12" in shown                        # the fixture holds puzzles beyond whips of length 12
    hardest = int(np.argmax(tab.w))
    assert tab.table_model.data(tab.table_model.index(0, 5)) == format_puzzle(tab.magic[hardest])


def test_step_through_the_w_path(qtbot, tab):
    _open(qtbot, tab, tab.ids[:1])
    _select(qtbot, tab, 0)
    assert tab.frame_index == 0 and len(tab.frames) >= 2
    assert np.array_equal(tab.grid.picture.puzzle, tab.magic[0])
    first = tab.frames[0].step
    assert tab.step_label.text().startswith(f"Step 1 of {len(tab.frames) - 1}: whip[")
    assert tab.grid.picture.step == first
    assert not tab.prev_btn.isEnabled() and tab.next_btn.isEnabled()
    qtbot.keyClick(tab, Qt.Key_Right, Qt.ControlModifier)
    assert tab.frame_index == 1 and tab.grid.picture.step == tab.frames[1].step
    # the eliminated candidate of step 1 is gone in step 2's picture
    cell, d = divmod(first.target, 9)
    assert not tab.grid.picture.cand[cell] >> d & 1
    tab.next_btn.click()
    tab.prev_btn.click()
    assert tab.frame_index == 1
    qtbot.keyClick(tab, Qt.Key_Home, Qt.ControlModifier)
    assert tab.frame_index == 0
    for _ in range(len(tab.frames)):
        tab.step(+1)
    assert "End of the path" in tab.step_label.text() and "solved" in tab.step_label.text()
    assert tab.rating_label.text().startswith(f"W{tab.w[0]}:")


def test_copy_paste_and_save_image(qtbot, tab, tmp_path, monkeypatch):
    _open(qtbot, tab, tab.ids[:1])
    _select(qtbot, tab, 3)
    tab.copy_puzzle()
    assert QGuiApplication.clipboard().text().strip() == format_puzzle(tab.magic[3])
    QGuiApplication.clipboard().setText(format_puzzle(tab.magic[5]) + "\nnot a puzzle\n")
    warnings = []
    monkeypatch.setattr(QMessageBox, "warning", staticmethod(lambda *a, **k: warnings.append(a[2])))
    tab.paste_puzzles()
    qtbot.waitUntil(lambda: tab.coll_list.count() == 3 and tab.table is not None and len(tab.table) == 13,
                    timeout=30000)
    assert "line 2:" in warnings[0]
    pasted = [r for r in range(tab.table_model.rowCount())
              if tab.table_model.data(tab.table_model.index(r, 0)).startswith("pasted")]
    assert len(pasted) == 1
    puzzle_col = tab.table_model.headers.index("puzzle")       # the pasted puzzles bring guesses and brt
    assert tab.table_model.data(tab.table_model.index(pasted[0], puzzle_col)) == format_puzzle(tab.magic[5])
    for suffix in ("png", "svg"):
        path = tmp_path / f"grid.{suffix}"
        tab.grid.save_image(str(path))
        assert path.stat().st_size > 1000
    assert "<svg" in (tmp_path / "grid.svg").read_text()


def test_find_isomorphs_flags_duplicates(qtbot, tab):
    _open(qtbot, tab, tab.ids[1:])
    tab.find_classes()
    qtbot.waitUntil(lambda: tab.table.classes_known == 12 and not tab.calls.busy("classes"), timeout=120000)
    assert "8 classes among 12 classified" in tab.count_label.text()
    tab.dup_combo.setCurrentIndex(2)              # duplicates only
    qtbot.waitUntil(lambda: tab.table_model.rowCount() == 4, timeout=5000)
    col = tab.table_model.headers.index("isomorph")
    assert {tab.table_model.data(tab.table_model.index(r, col)) for r in range(4)} == {"duplicate"}


def test_generators_browse_opens_the_collection_in_the_collections_tab(qtbot, settings, shared_data, monkeypatch):
    from PySide6.QtWidgets import QInputDialog

    from sudokustudio.jobs.collections import Collection
    from sudokustudio.ui.main_window import MainWindow

    win = MainWindow(settings=settings, warm_up=False,
                     tab_names=["sudokustudio.ui.generators_tab:GeneratorsTab",
                                "sudokustudio.ui.browser_tab:BrowserTab"])
    qtbot.addWidget(win)
    gen, browser = win.tabs.widget(0), win.tabs.widget(1)
    puzzles = load_puzzles(shared_data / "puzzles2_17_clue", limit=30)
    series = gen.model.add_collection(Collection("seventeen", "imported", puzzles, np.ones(30)))
    monkeypatch.setattr(QInputDialog, "getItem", staticmethod(lambda *a, **k: (series.name, True)))
    gen.browse()
    assert win.tabs.currentWidget() is browser
    qtbot.waitUntil(lambda: browser.table is not None and len(browser.order) == 30, timeout=20000)
    assert browser.checked_ids() == [series.collection_id]
    win.close()
