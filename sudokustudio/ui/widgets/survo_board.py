"""The Survo swap board: the table with Sum / OK / D for rows and columns and W.

Mouse: click a number, then another, and they swap (the first stays
highlighted; clicking it again deselects).  Dragging a number onto another
swaps them too.  Keyboard: arrows move a cursor, X marks the first number,
Y the second and swaps, Space/Enter acts like a click, Esc clears.
Given numbers (blue) cannot be selected.  The widget only asks for swaps
(``swapRequested``); the tab performs them through its undo stack.
"""
from __future__ import annotations

import numpy as np
from PySide6.QtCore import QEvent, QPoint, QRect, QSize, Qt, Signal
from PySide6.QtGui import QColor, QFont, QPainter, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from sudokustudio.survo.board import SurvoBoard
from sudokustudio.ui.style import GIVEN_BLUE, NEGATIVE, OK_GREEN, POSITIVE, SELECT_YELLOW

HINT_ORANGE = QColor("#E69F00")
CURSOR_BLUE = QColor("#0072B2")
MARGIN_GREY = QColor("#f7f7f7")
WHITE = QColor(Qt.white)
GIVEN_TEXT = QColor("#1a3d7c")
HEADER_TEXT = QColor("#555555")
SOLUTION_GREEN = QColor("#009E73")
W_ORANGE = QColor("#D55E00")


class SurvoBoardWidget(QWidget):
    """Paints a SurvoBoard and turns clicks, drags and keys into swap requests."""

    swapRequested = Signal(int, int)
    givenClicked = Signal(int)
    selectionChanged = Signal(int)  # the first number of a swap, 0 = none

    def __init__(self, parent=None):
        super().__init__(parent)
        self.board: SurvoBoard | None = None
        self.selected = 0
        self.cursor = (0, 0)
        self.hint: tuple[int, int] | None = None
        self.solution: np.ndarray | None = None  # shown faintly when "show solution" is on
        self._press: tuple[int, int] | None = None
        self._press_pos = QPoint()
        self._dragging = False
        self._drag_pos = QPoint()
        self._font_cache: tuple[int, dict[str, QFont]] | None = None
        self.setFocusPolicy(Qt.StrongFocus)
        self.setMouseTracking(False)
        self.setSizePolicy(QSizePolicy.Expanding, QSizePolicy.Expanding)
        self.setMinimumSize(360, 300)
        self.setToolTip("Click a number, then another: they swap. Drag a number onto another to swap.\n"
                        "Keys: arrows move, X marks the first number, Y the second (swap), Esc clears.\n"
                        "Blue numbers are given and never move.")

    # ------------------------------------------------------------- state
    def set_board(self, board: SurvoBoard | None) -> None:
        self.board = board
        self.selected = 0
        self.hint = None
        self.solution = None
        self.cursor = (0, 0)
        self.selectionChanged.emit(0)
        self.updateGeometry()
        self.update()

    def set_hint(self, pair: tuple[int, int] | None) -> None:
        self.hint = pair
        self.update()

    def clear_selection(self) -> None:
        if self.selected:
            self.selected = 0
            self.selectionChanged.emit(0)
        self.update()

    # ------------------------------------------------------------- geometry
    def _layout(self):
        """Cell size and origin so that the table plus 3 margin columns/rows fit."""
        m, n = self.board.puzzle.m, self.board.puzzle.n
        cols = n + 3 + 0.3  # numbers, gap, Sum, OK, D
        rows = m + 3 + 0.3 + 0.8  # numbers, gap, Sum, OK, D, header
        size = int(min(self.width() / (cols + 0.8), self.height() / (rows + 0.6)))
        size = max(24, min(size, 96))
        total_w = int(size * (cols + 0.8))
        total_h = int(size * (rows + 0.6))
        x0 = (self.width() - total_w) // 2 + int(0.8 * size)
        y0 = (self.height() - total_h) // 2 + int(0.8 * size)
        return size, x0, y0

    def cell_rect(self, i: int, j: int) -> QRect:
        size, x0, y0 = self._layout()
        return QRect(x0 + j * size, y0 + i * size, size, size)

    def cell_at(self, pos: QPoint) -> tuple[int, int] | None:
        if self.board is None:
            return None
        size, x0, y0 = self._layout()
        j = (pos.x() - x0) // size
        i = (pos.y() - y0) // size
        if 0 <= i < self.board.puzzle.m and 0 <= j < self.board.puzzle.n:
            return int(i), int(j)
        return None

    def sizeHint(self) -> QSize:
        return QSize(560, 480)

    # ------------------------------------------------------------- painting
    def _fonts(self, size: int) -> dict[str, QFont]:
        """The board's fonts for a cell size, made once per size (a paint makes none)."""
        if self._font_cache is None or self._font_cache[0] != size:
            def font(scale: float, bold: bool) -> QFont:
                f = QFont(self.font())
                f.setPixelSize(int(size * scale))
                f.setBold(bold)
                return f
            self._font_cache = (size, {"number": font(0.42, True), "small": font(0.34, False),
                                       "head": font(0.28, True), "w": font(0.9, True)})
        return self._font_cache[1]

    def changeEvent(self, event) -> None:  # noqa: N802 (Qt name)
        if event.type() == QEvent.FontChange:
            self._font_cache = None
        super().changeEvent(event)

    def paintEvent(self, event) -> None:  # noqa: N802 (Qt name)
        """One pass over the table and its margins.  The geometry, the table and the board's
        W are read once, and the cell outlines drawn in one call: a paint costs ~1/4 of what
        it did when each cell asked for its own layout, W and outline (the window repaints
        the board several times while a new puzzle settles in)."""
        p = QPainter(self)
        p.setRenderHint(QPainter.Antialiasing)
        p.fillRect(self.rect(), Qt.white)
        if self.board is None:
            p.setPen(Qt.darkGray)
            p.drawText(self.rect(), Qt.AlignCenter, "Open a puzzle or choose one from Examples")
            return
        b = self.board
        m, n = b.puzzle.m, b.puzzle.n
        size, x0, y0 = self._layout()
        fonts = self._fonts(size)
        table = b.table.tolist()
        given = (b.puzzle.givens != 0).tolist()
        w = b.w
        grid_pen = QPen(QColor("#888888"), 1)
        outlines: list[QRect] = []

        def cell(i: int, j: int) -> QRect:   # cell_rect without a layout pass each
            return QRect(x0 + j * size, y0 + i * size, size, size)

        self._paint_headers(p, m, n, size, x0, y0, fonts["head"])
        # numbers: backgrounds first, then outlines in one call, then the digits
        hint = set(self.hint or ())
        for i in range(m):
            for j in range(n):
                r = cell(i, j)
                v = table[i][j]
                bg = (GIVEN_BLUE if given[i][j] else SELECT_YELLOW if v == self.selected
                      else OK_GREEN if w == 0 else WHITE)
                p.fillRect(r, bg)
                outlines.append(r)
        margin_x = int(x0 + (n + 0.3) * size)
        margin_y = int(y0 + (m + 0.3) * size)
        rows = (b.row_totals.tolist(), b.puzzle.row_sums.tolist(), b.row_d.tolist())
        cols = (b.col_totals.tolist(), b.puzzle.col_sums.tolist(), b.col_d.tolist())
        margins = [(QRect(margin_x + k * size, y0 + i * size, size, size), int(rows[k][i]), k == 2)
                   for i in range(m) for k in range(3)]
        margins += [(QRect(x0 + j * size, margin_y + k * size, size, size), int(cols[k][j]), k == 2)
                    for j in range(n) for k in range(3)]
        for r, val, is_d in margins:
            p.fillRect(r, (POSITIVE if val > 0 else NEGATIVE if val < 0 else OK_GREEN) if is_d else MARGIN_GREY)
            outlines.append(r)
        p.setPen(grid_pen)
        p.drawRects(outlines)
        if hint:
            p.setPen(QPen(HINT_ORANGE, max(3, size // 14)))
            for i in range(m):
                for j in range(n):
                    if table[i][j] in hint:
                        p.drawRect(cell(i, j).adjusted(3, 3, -3, -3))
        p.setFont(fonts["number"])
        for i in range(m):
            for j in range(n):
                if self._dragging and self._press == (i, j):
                    continue
                p.setPen(GIVEN_TEXT if given[i][j] else Qt.black)
                p.drawText(cell(i, j), Qt.AlignCenter, str(table[i][j]))
        if self.solution is not None:
            p.setFont(fonts["head"])
            p.setPen(SOLUTION_GREEN)
            solution = self.solution.tolist()
            for i in range(m):
                for j in range(n):
                    if int(solution[i][j]) != table[i][j]:
                        p.drawText(cell(i, j).adjusted(2, 1, -3, -1), Qt.AlignRight | Qt.AlignBottom,
                                   str(int(solution[i][j])))
        # keyboard cursor
        if self.hasFocus():
            ci, cj = self.cursor
            p.setPen(QPen(CURSOR_BLUE, 2, Qt.DashLine))
            p.drawRect(cell(ci, cj).adjusted(1, 1, -1, -1))
        p.setFont(fonts["small"])
        p.setPen(Qt.black)
        for r, val, is_d in margins:
            p.drawText(r, Qt.AlignCenter, (f"{val:+d}" if val else "0") if is_d else str(val))
        # W, large, in the corner
        p.setFont(fonts["w"])
        p.setPen(SOLUTION_GREEN if w == 0 else W_ORANGE)
        p.drawText(QRect(margin_x, margin_y, 3 * size, 3 * size), Qt.AlignCenter, f"W={w}")
        # the number being dragged follows the mouse
        if self._dragging and self._press is not None:
            i, j = self._press
            r = QRect(0, 0, size, size)
            r.moveCenter(self._drag_pos)
            p.fillRect(r, SELECT_YELLOW)
            p.setPen(grid_pen)
            p.drawRect(r)
            p.setFont(fonts["number"])
            p.setPen(Qt.black)
            p.drawText(r, Qt.AlignCenter, str(table[i][j]))

    def _paint_headers(self, p: QPainter, m: int, n: int, size: int, x0: int, y0: int, font: QFont) -> None:
        """Sum / OK / D over the margins, C1.. over the columns, R1.. beside the rows."""
        p.setFont(font)
        p.setPen(HEADER_TEXT)
        head_h = int(0.7 * size)
        margin_x = int(x0 + (n + 0.3) * size)
        margin_y = int(y0 + (m + 0.3) * size)
        for k, label in enumerate(("Sum", "OK", "D")):
            p.drawText(QRect(margin_x + k * size, y0 - head_h, size, head_h), Qt.AlignCenter, label)
            p.drawText(QRect(x0 - int(0.8 * size), margin_y + k * size, int(0.75 * size), size),
                       Qt.AlignRight | Qt.AlignVCenter, label)
        for j in range(n):
            p.drawText(QRect(x0 + j * size, y0 - head_h, size, head_h), Qt.AlignCenter, f"C{j + 1}")
        for i in range(m):
            p.drawText(QRect(x0 - int(0.8 * size), y0 + i * size, int(0.75 * size), size),
                       Qt.AlignRight | Qt.AlignVCenter, f"R{i + 1}")

    # ------------------------------------------------------------- clicks
    def click_cell(self, i: int, j: int) -> None:
        """What a click on cell (i, j) does: select, deselect, or ask for a swap."""
        if self.board is None:
            return
        self.cursor = (i, j)
        v = int(self.board.table[i, j])
        if self.board.is_given_cell(i, j):
            self.givenClicked.emit(v)
            self.update()
            return
        if self.selected == 0:
            self.selected = v
            self.selectionChanged.emit(v)
        elif self.selected == v:
            self.selected = 0
            self.selectionChanged.emit(0)
        else:
            a = self.selected
            self.selected = 0
            self.selectionChanged.emit(0)
            self.swapRequested.emit(a, v)
        self.update()

    def mousePressEvent(self, event) -> None:
        if event.button() != Qt.LeftButton:
            return
        self.setFocus()
        cell = self.cell_at(event.position().toPoint())
        self._press = cell
        self._press_pos = event.position().toPoint()
        self._dragging = False

    def mouseMoveEvent(self, event) -> None:
        if self._press is None or self.board is None:
            return
        pos = event.position().toPoint()
        if not self._dragging and (pos - self._press_pos).manhattanLength() > 8:
            if not self.board.is_given_cell(*self._press):
                self._dragging = True
        if self._dragging:
            self._drag_pos = pos
            self.update()

    def mouseReleaseEvent(self, event) -> None:
        if event.button() != Qt.LeftButton or self.board is None:
            return
        start = self._press
        self._press = None
        target = self.cell_at(event.position().toPoint())
        if self._dragging:
            self._dragging = False
            if start is not None and target is not None and target != start:
                if self.board.is_given_cell(*target):
                    self.givenClicked.emit(int(self.board.table[target]))
                else:
                    a = int(self.board.table[start])
                    b = int(self.board.table[target])
                    self.selected = 0
                    self.selectionChanged.emit(0)
                    self.swapRequested.emit(a, b)
            self.update()
            return
        if start is not None and target == start:
            self.click_cell(*start)

    # ------------------------------------------------------------- keys
    def keyPressEvent(self, event) -> None:
        if self.board is None:
            return super().keyPressEvent(event)
        m, n = self.board.puzzle.m, self.board.puzzle.n
        i, j = self.cursor
        key = event.key()
        moves = {Qt.Key_Left: (0, -1), Qt.Key_Right: (0, 1), Qt.Key_Up: (-1, 0), Qt.Key_Down: (1, 0)}
        if key in moves:
            di, dj = moves[key]
            self.cursor = ((i + di) % m, (j + dj) % n)
            self.update()
        elif key == Qt.Key_X:
            v = int(self.board.table[i, j])
            if self.board.is_given_cell(i, j):
                self.givenClicked.emit(v)
            else:
                self.selected = v
                self.selectionChanged.emit(v)
            self.update()
        elif key == Qt.Key_Y:
            v = int(self.board.table[i, j])
            if self.board.is_given_cell(i, j):
                self.givenClicked.emit(v)
            elif self.selected and self.selected != v:
                a = self.selected
                self.selected = 0
                self.selectionChanged.emit(0)
                self.swapRequested.emit(a, v)
            self.update()
        elif key in (Qt.Key_Space, Qt.Key_Return, Qt.Key_Enter):
            self.click_cell(i, j)
        elif key == Qt.Key_Escape:
            self.clear_selection()
        else:
            super().keyPressEvent(event)

    def focusInEvent(self, event) -> None:
        super().focusInEvent(event)
        self.update()

    def focusOutEvent(self, event) -> None:
        super().focusOutEvent(event)
        self.update()
