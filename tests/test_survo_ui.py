"""The Survo tab (pytest-qt): clicks, givens, undo/redo, bad files, solved message."""
import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from sudokustudio.survo.puzzle import SurvoPuzzle, parse_survo
from sudokustudio.ui.survo_tab import SurvoTab


@pytest.fixture
def tab(qtbot, settings):
    t = SurvoTab(settings)
    qtbot.addWidget(t)
    t.resize(1100, 700)
    t.show()
    t.load_example("worked_example.mat")
    t.wait_idle()
    yield t
    t.shutdown()


def click(qtbot, tab, number):
    i, j = tab.board.position(number)
    qtbot.mouseClick(tab.board_widget, Qt.LeftButton, pos=tab.board_widget.cell_rect(i, j).center())


def test_two_clicks_swap_and_update_sums(qtbot, tab):
    b = tab.board
    assert b.w == 6 and b.row_d.tolist() == [-1, 1, 1, -1]
    click(qtbot, tab, 5)
    assert tab.board_widget.selected == 5  # first stays highlighted
    click(qtbot, tab, 6)
    assert tab.board_widget.selected == 0
    assert b.table[0, 3] == 6 and b.table[2, 0] == 5
    assert b.row_totals.tolist() == [14, 29, 44, 49] and b.col_d.tolist() == [-1, 1, 0, 0]
    assert b.w == 4 and "W = 4" in tab.w_label.text()
    assert tab.swap_list.item(0).text() == "1. (5,6) W=4"


def test_clicking_the_first_again_deselects(qtbot, tab):
    click(qtbot, tab, 9)
    click(qtbot, tab, 9)
    assert tab.board_widget.selected == 0 and tab.board.swaps == []


def test_drag_and_drop_swaps(qtbot, tab):
    w = tab.board_widget
    a = w.cell_rect(*tab.board.position(7)).center()
    b = w.cell_rect(*tab.board.position(8)).center()
    qtbot.mousePress(w, Qt.LeftButton, pos=a)
    from PySide6.QtCore import QPointF
    from PySide6.QtGui import QMouseEvent
    move = QMouseEvent(QMouseEvent.MouseMove, QPointF(b), QPointF(w.mapToGlobal(b)), Qt.NoButton,
                       Qt.LeftButton, Qt.NoModifier)
    w.mouseMoveEvent(move)
    qtbot.mouseRelease(w, Qt.LeftButton, pos=b)
    assert [(s.a, s.b) for s in tab.board.swaps] == [(7, 8)]


def test_keyboard_x_y_swap(qtbot, tab):
    w = tab.board_widget
    w.setFocus()
    w.cursor = tab.board.position(5)  # (0, 3)
    qtbot.keyClick(w, Qt.Key_X)
    assert w.selected == 5
    for key in (Qt.Key_Down, Qt.Key_Down, Qt.Key_Right):  # (2, 3), then wrap to (2, 0): the 6
        qtbot.keyClick(w, key)
    assert w.cursor == tab.board.position(6)
    qtbot.keyClick(w, Qt.Key_Y)
    assert [(s.a, s.b) for s in tab.board.swaps] == [(5, 6)] and tab.board.w == 4


def test_given_cannot_be_selected(qtbot, tab):
    sol = np.array([[1, 3, 4, 6], [2, 7, 9, 10], [5, 11, 13, 15], [8, 12, 14, 16]])
    mask = np.zeros((4, 4), bool)
    mask[0, 0] = mask[3, 3] = True
    tab.play_puzzle(SurvoPuzzle.from_solution(sol, mask, name="with givens"))
    tab.wait_idle()
    with qtbot.waitSignal(tab.board_widget.givenClicked):
        click(qtbot, tab, 1)
    assert tab.board_widget.selected == 0
    click(qtbot, tab, 3)
    click(qtbot, tab, 16)  # a given as the second click: no swap
    assert tab.board.swaps == [] and tab.board_widget.selected == 3


def test_undo_redo_restore(qtbot, tab):
    start = tab.board.table.copy()
    tab.request_swap(5, 6)
    after1 = tab.board.table.copy()
    tab.request_swap(7, 8)
    assert tab.board.solved
    qtbot.keyClick(tab.board_widget, Qt.Key_Z, Qt.ControlModifier)
    assert np.array_equal(tab.board.table, after1) and tab.board.w == 4
    tab.undo_stack.undo()
    assert np.array_equal(tab.board.table, start) and tab.board.w == 6 and tab.swap_list.count() == 0
    qtbot.keyClick(tab.board_widget, Qt.Key_Y, Qt.ControlModifier)
    assert np.array_equal(tab.board.table, after1)
    tab.undo_stack.redo()
    assert tab.board.solved and tab.board.w_history() == [6, 4, 0]
    tab.reset_board()
    assert np.array_equal(tab.board.table, start) and not tab.undo_stack.canUndo()


def test_malformed_file_shows_error_and_keeps_board(qtbot, tab, tmp_path, monkeypatch):
    tab.request_swap(5, 6)
    before = tab.board.table.copy()
    board = tab.board
    shown = []
    monkeypatch.setattr(QMessageBox, "critical", lambda *a, **k: shown.append(a[2]))
    bad = tmp_path / "bad.mat"
    bad.write_text("MAT SAVE AS A\n0 0 0 14\n0 0 0 28\n1 2 x 0\n")
    assert tab.open_file(str(bad)) is False
    assert shown and "bad.mat" in shown[0] and "line" in shown[0]
    assert tab.board is board and np.array_equal(tab.board.table, before) and len(tab.board.swaps) == 1


def test_solved_message(qtbot, tab):
    tab.request_swap(5, 6)
    tab.request_swap(9, 10)   # a detour
    tab.request_swap(9, 10)
    tab.request_swap(7, 8)
    assert tab.message.text() == "Solved in 4 swaps (minimum 2)"
    tab.undo_stack.undo()
    assert tab.message.text() == ""


def test_hint_and_solve(qtbot, tab):
    tab.show_hint()
    assert tab.hint_label.text().startswith("Mate in 2: swap (5,6)")
    assert tab.board_widget.hint == (5, 6)
    tab.show_solution()
    assert "unique" in tab.hint_label.text()
    assert tab.board_widget.solution is not None


def test_waiting_for_the_solver_is_said_then_cleared(qtbot, tab):
    tab.load_example("sacrifice_example.mat")   # its solver starts now: a hint must wait for it
    tab.show_hint()
    assert tab.status.text() in ("Solving…", "Preparing (compiling kernels)…")
    qtbot.waitUntil(lambda: bool(tab.hint_label.text()), timeout=30000)
    assert tab.hint_label.text().startswith("Mate in 4")   # the fewest swaps from its setup
    assert tab.status.text() == ""


def test_w_plot_follows_the_swaps(qtbot, tab):
    tab.load_example("sacrifice_example.mat")
    tab.request_swap(2, 3)     # a sacrifice: W 4 -> 6
    qtbot.waitUntil(lambda: len(tab.w_curve.getData()[1]) == 2, timeout=5000)   # drawn a turn later
    assert list(tab.w_curve.getData()[1]) == [4, 6]
    assert list(tab.sacrifice_dots.getData()[1]) == [6]
    tab.undo_stack.undo()
    qtbot.waitUntil(lambda: len(tab.w_curve.getData()[1]) == 1, timeout=5000)
    assert len(tab.sacrifice_dots.getData()[0]) == 0


def test_sacrifice_marked_in_swap_list(qtbot, tab):
    tab.load_example("sacrifice_example.mat")
    tab.wait_idle()
    for a, b in [(2, 3), (7, 8), (12, 13), (10, 11)]:
        tab.request_swap(a, b)
    assert "sacrifice" in tab.swap_list.item(0).text()
    assert tab.message.text() == "Solved in 4 swaps (minimum 4)"


def test_play_puzzle_and_export(qtbot, tab, tmp_path):
    p = parse_survo("* * * 6\n* * * 15\n* * * 24\n12 15 18\n")
    tab.views.setCurrentIndex(0)
    tab.play_puzzle(p)
    tab.wait_idle()
    assert tab.board.puzzle == p and tab.views.currentIndex() == 0
    f = tmp_path / "out.mat"
    assert tab.export_file(str(f))
    assert parse_survo(f.read_text()) == p


def test_generate_in_background(qtbot, tab):
    tab.generate(3, 4, "medium", number=3)
    qtbot.waitUntil(lambda: tab.board.puzzle.m == 3 and tab.board.puzzle.n == 4, timeout=60000)
    tab.wait_idle()
    assert tab.solution_count == 1
    first = tab.board.puzzle
    tab.generate(3, 4, "medium", number=3)   # the same number: the same puzzle
    qtbot.waitUntil(lambda: tab.board.puzzle is not first, timeout=60000)
    tab.wait_idle()
    assert tab.board.puzzle == first


def test_difficulty_on_request_and_after_solving(qtbot, tab):
    tab.show_difficulty()
    tab.wait_idle()
    assert tab.model.difficulty_result is not None
    info = tab.info_label.text()
    assert "Difficulty: easy" in info and "fewest swaps 2" in info and "setup W 6" in info
    tab.load_example("sacrifice_example.mat")
    tab.wait_idle()
    assert "Difficulty" not in tab.info_label.text()
    for a, b in [(2, 3), (7, 8), (12, 13), (10, 11)]:
        tab.request_swap(a, b)
    tab.wait_idle()
    d = tab.model.difficulty_result
    from sudokustudio.survo.difficulty import puzzle_difficulty

    assert d == puzzle_difficulty(tab.board.puzzle) and d.min_swaps == 4
    assert f"Difficulty: {d.level} — fewest swaps 4" in tab.info_label.text()


def test_undo_label_fixed_so_the_toolbar_does_not_shift(qtbot, tab):
    widths = (tab.undo_button.width(), tab.redo_button.width(), tab.new_button.x())
    tab.request_swap(5, 6)
    qtbot.wait(10)
    assert tab.undo_button.text() == "Undo" and tab.undo_action.isEnabled()
    assert "swap (5,6)" in tab.undo_button.toolTip()
    assert (tab.undo_button.width(), tab.redo_button.width(), tab.new_button.x()) == widths
    tab.undo_stack.undo()
    assert tab.redo_button.text() == "Redo" and tab.redo_action.isEnabled() and not tab.undo_action.isEnabled()
    assert (tab.undo_button.width(), tab.redo_button.width(), tab.new_button.x()) == widths


def test_first_puzzle_loads_after_background_warm_up(qtbot, settings):
    t = SurvoTab(settings)
    qtbot.addWidget(t)
    qtbot.waitUntil(lambda: t.board is not None, timeout=120000)
    assert t.board.puzzle.row_sums.tolist() == [14, 28, 44, 50]
    t.shutdown()


def test_new_puzzle_dialog_checks_its_input(qtbot, monkeypatch):
    from sudokustudio.ui.survo_tab import NewPuzzleDialog

    warned = []
    monkeypatch.setattr(QMessageBox, "warning", lambda *a, **k: warned.append(a[2]))
    d = NewPuzzleDialog(None, 3, 3, number=4)
    qtbot.addWidget(d)
    d.givens.setValue(9)
    d._check()
    assert warned and "9 cells" in warned[0] and d.result() == 0
    d.givens.setValue(0)
    assert d.values() == dict(m=3, n=3, level="medium", givens="auto", number=4)
    d.givens.setValue(2)
    d.level.setCurrentIndex(d.level.findData("expert"))
    d.rows.setValue(6)
    d.cols.setValue(8)
    d._check()
    assert d.result() == 1
    assert d.values() == dict(m=6, n=8, level="expert", givens=2, number=4)


def test_toolbar_wraps_to_two_rows_in_a_narrow_tab(qtbot, tab):
    """Wide: the file buttons follow the play buttons in one row; narrow: they move to a second
    row, every button inside the tab (no sideways scrolling), and the puzzle's name heads the
    side panel."""
    def top(w):
        return w.mapTo(tab, w.rect().topLeft()).y()

    save, hint = tab.save_button, tab.hint_button
    assert tab.title_label.text().startswith("Worked example")
    assert top(save) == top(hint)
    tab.resize(760, 700)
    qtbot.waitUntil(lambda: top(save) >= top(hint) + hint.height(), timeout=5000)
    assert save.mapTo(tab, save.rect().topRight()).x() <= tab.width()
    tab.resize(1100, 700)
    qtbot.waitUntil(lambda: top(save) == top(hint), timeout=5000)
