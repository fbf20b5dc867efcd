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
from PySide6.QtCore import QPoint, QRect, QSize, Qt, Signal
from PySide6.QtGui import QColor, QFont, QPainter, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from sudokustudio.survo.board import SurvoBoard
from sudokustudio.ui.style import GIVEN_BLUE, NEGATIVE, OK_GREEN, POSITIVE, SELECT_YELLOW

HINT_ORANGE = QColor("#E69F00")
CURSOR_BLUE = QColor("#0072B2")
HEADER_GREY = QColor("#eeeeee")
MARGIN_GREY = QColor("#f7f7f7")


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

    def _margin_col_rect(self, i: int, k: int) -> QRect:
        """Row i's Sum (k=0), OK (1), D (2) cell."""
        size, x0, y0 = self._layout()
        n = self.board.puzzle.n
        return QRect(int(x0 + (n + 0.3 + k) * size), y0 + i * size, size, size)

    def _margin_row_rect(self, k: int, j: int) -> QRect:
        size, x0, y0 = self._layout()
        m = self.board.puzzle.m
        return QRect(x0 + j * size, int(y0 + (m + 0.3 + k) * size), size, size)

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
    def paintEvent(self, event) -> None:
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
        num_font = QFont(self.font())
        num_font.setPixelSize(int(size * 0.42))
        num_font.setBold(True)
        small = QFont(self.font())
        small.setPixelSize(int(size * 0.34))
        head = QFont(self.font())
        head.setPixelSize(int(size * 0.28))
        head.setBold(True)
        grid_pen = QPen(QColor("#888888"), 1)
        hint = set(self.hint or ())
        # headers
        p.setFont(head)
        p.setPen(QColor("#555555"))
        for k, label in enumerate(("Sum", "OK", "D")):
            r = self._margin_col_rect(0, k)
            p.drawText(QRect(r.x(), r.y() - int(0.7 * size), size, int(0.7 * size)), Qt.AlignCenter, label)
            r = self._margin_row_rect(k, 0)
            p.drawText(QRect(r.x() - int(0.8 * size), r.y(), int(0.75 * size), size),
                       Qt.AlignRight | Qt.AlignVCenter, label)
        for j in range(n):
            r = self.cell_rect(0, j)
            p.drawText(QRect(r.x(), r.y() - int(0.7 * size), size, int(0.7 * size)), Qt.AlignCenter, f"C{j + 1}")
        for i in range(m):
            r = self.cell_rect(i, 0)
            p.drawText(QRect(r.x() - int(0.8 * size), r.y(), int(0.75 * size), size),
                       Qt.AlignRight | Qt.AlignVCenter, f"R{i + 1}")
        # numbers
        for i in range(m):
            for j in range(n):
                r = self.cell_rect(i, j)
                v = int(b.table[i, j])
                if b.is_given_cell(i, j):
                    bg = GIVEN_BLUE
                elif v == self.selected:
                    bg = SELECT_YELLOW
                elif b.solved:
                    bg = OK_GREEN
                else:
                    bg = QColor(Qt.white)
                p.fillRect(r, bg)
                p.setPen(grid_pen)
                p.drawRect(r)
                if v in hint:
                    p.setPen(QPen(HINT_ORANGE, max(3, size // 14)))
                    p.drawRect(r.adjusted(3, 3, -3, -3))
                if self._dragging and self._press == (i, j):
                    continue
                p.setFont(num_font)
                p.setPen(QColor("#1a3d7c") if b.is_given_cell(i, j) else Qt.black)
                p.drawText(r, Qt.AlignCenter, str(v))
                if self.solution is not None and int(self.solution[i, j]) != v:
                    p.setFont(head)
                    p.setPen(QColor("#009E73"))
                    p.drawText(r.adjusted(2, 1, -3, -1), Qt.AlignRight | Qt.AlignBottom, str(int(self.solution[i, j])))
        # keyboard cursor
        if self.hasFocus():
            ci, cj = self.cursor
            p.setPen(QPen(CURSOR_BLUE, 2, Qt.DashLine))
            p.drawRect(self.cell_rect(ci, cj).adjusted(1, 1, -1, -1))
        # margins
        rows, row_d = b.row_totals, b.row_d
        cols, col_d = b.col_totals, b.col_d
        p.setFont(small)
        for i in range(m):
            for k, val in enumerate((rows[i], b.puzzle.row_sums[i], row_d[i])):
                self._margin_cell(p, self._margin_col_rect(i, k), int(val), k == 2, grid_pen)
        for j in range(n):
            for k, val in enumerate((cols[j], b.puzzle.col_sums[j], col_d[j])):
                self._margin_cell(p, self._margin_row_rect(k, j), int(val), k == 2, grid_pen)
        # W, large, in the corner
        wr = QRect(self._margin_col_rect(0, 0).x(), self._margin_row_rect(0, 0).y(), 3 * size, 3 * size)
        wfont = QFont(self.font())
        wfont.setPixelSize(int(size * 0.9))
        wfont.setBold(True)
        p.setFont(wfont)
        w = b.w
        p.setPen(QColor("#009E73") if w == 0 else QColor("#D55E00"))
        p.drawText(wr, Qt.AlignCenter, f"W={w}")
        # the number being dragged follows the mouse
        if self._dragging and self._press is not None:
            i, j = self._press
            r = QRect(0, 0, size, size)
            r.moveCenter(self._drag_pos)
            p.fillRect(r, SELECT_YELLOW)
            p.setPen(grid_pen)
            p.drawRect(r)
            p.setFont(num_font)
            p.setPen(Qt.black)
            p.drawText(r, Qt.AlignCenter, str(int(b.table[i, j])))

    def _margin_cell(self, p: QPainter, r: QRect, val: int, is_d: bool, pen: QPen) -> None:
        if is_d:
            bg = POSITIVE if val > 0 else NEGATIVE if val < 0 else OK_GREEN
        else:
            bg = MARGIN_GREY
        p.fillRect(r, bg)
        p.setPen(pen)
        p.drawRect(r)
        p.setPen(Qt.black)
        p.drawText(r, Qt.AlignCenter, (f"{val:+d}" if val else "0") if is_d else str(val))

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
