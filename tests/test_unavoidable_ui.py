"""The unavoidable-sets tab: harvest into the table, UA selection on the grid,
disjoint groups, forced search, export, bad input."""
from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt

from sudokustudio.sudoku import unavoidable as U
from sudokustudio.sudoku.grid import format_puzzle, read_puzzles
from sudokustudio.sudoku.solver import solve


def test_ua_tab_harvest_select_search_export(qtbot, settings, shared_data, tmp_path, monkeypatch):
    from sudokustudio.ui import ua_tab
    from sudokustudio.ui.ua_tab import UATab

    warnings = []
    monkeypatch.setattr(ua_tab, "show_error", lambda parent, title, exc: warnings.append(str(exc)))
    tab = UATab(settings)
    qtbot.addWidget(tab)

    tab.grid_edit.setText("1234")
    tab.set_grid_from_text()
    assert warnings and "81" in warnings[-1]
    assert tab.grid is None

    p = read_puzzles(shared_data / "puzzles2_17_clue").puzzles[1234]
    tab.grid_edit.setText(format_puzzle(p))  # a puzzle: its solution becomes the grid
    tab.set_grid_from_text()
    g = solve(p)
    assert (tab.grid == g).all()
    assert tab.grid_edit.text() == format_puzzle(g) and tab.grid_edit.cursorPosition() == 0

    tab.start_harvest()
    qtbot.waitUntil(lambda: tab.uas is not None, timeout=120_000)
    rows = tab.table.model()
    n = rows.rowCount()
    assert n == len(tab.uas) > 100

    def cell(i, j):
        return rows.data(rows.index(i, j))

    sizes = [int(cell(i, 1)) for i in range(n)]
    assert sizes == sorted(sizes)
    # each row's size is its mask's count of cells, and the mask is the UA's own
    assert all(cell(i, 2).count("1") == sizes[i] for i in range(n))
    assert [cell(i, 2) for i in range(n)] == [U.mask_to_string(a, b) for a, b in zip(tab.uas.lo, tab.uas.hi)]
    # the disjoint group's rows, and only they, are bold
    assert {i for i in range(n) if rows.data(rows.index(i, 0), Qt.FontRole) is not None} == set(tab.groups)
    assert "Clue lower bound" in tab.bound_label.text()
    group_cells = set(tab.view.group_colour)
    assert len(group_cells) == sum(len(U.mask_to_cells(tab.uas.lo[i], tab.uas.hi[i])) for i in tab.groups)

    tab.table.selectRow(0)
    mask = cell(0, 2)
    cells = {i for i, ch in enumerate(mask) if ch == "1"}
    assert tab.view.highlight == cells
    assert set(tab.view.other) == cells  # a minimal UA: every cell changes
    other = g.copy()
    for c, d in tab.view.other.items():
        other[c] = d
    from sudokustudio.sudoku.grid import is_valid_grid

    assert is_valid_grid(other)

    forced = set(np.flatnonzero(p)[:11].tolist())
    tab.force_edit.setText("".join("1" if c in forced else "." for c in range(81)))
    tab.k_spin.setValue(17)
    tab.start_search()
    qtbot.waitUntil(lambda: tab.search_runner is not None and tab.search_runner.finished
                    and not tab.timer.isActive(), timeout=120_000)
    assert format_puzzle(p) in tab.puzzles() and "complete" in tab.rate_label.text()
    assert "nodes/s" in tab.rate_label.text()
    tab.found.setCurrentRow(0)
    assert tab.view.clues == {i for i, ch in enumerate(tab.puzzles()[0]) if ch != "."}
    out = tmp_path / "found.txt"
    tab.save_puzzles(out)
    assert out.read_text().split() == tab.puzzles()

    tab.force_edit.setText("..z")
    tab.start_search()
    qtbot.waitUntil(lambda: "position 3" in warnings[-1], timeout=30_000)
    tab.shutdown()


def test_a_short_window_keeps_the_search_form_whole(qtbot, settings):
    """At 1024 x 720 the search's wrapped status lines squeezed the form above them (the clue
    spin box 4 px high); its lines now count in the search box's minimum, the UA table gives way."""
    from sudokustudio.ui.ua_tab import UATab

    tab = UATab(settings)
    qtbot.addWidget(tab)
    tab.resize(1000, 560)
    tab.show()
    qtbot.waitExposed(tab)
    tab.rate_label.setText("7,299,546 nodes, 920,462 nodes/s; 383,992 hitting sets checked, 383,992 UAs "
                           "found on the way; 7.9 s")
    qtbot.wait(100)
    for w in (tab.k_spin, tab.force_edit, tab.start_btn):
        assert w.height() >= w.minimumSizeHint().height(), (w, w.height())
