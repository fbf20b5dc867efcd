"""A 9x9 grid view for the unavoidable-sets tab: the solution grid, a
highlighted UA with its other filling, coloured disjoint groups, and clues."""
from __future__ import annotations

import numpy as np
from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QPainter, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from sudokustudio.ui.style import SELECT_YELLOW

# light, distinct fills for up to 12 disjoint UAs (then they repeat)
GROUP_FILLS = ["#9ecae1", "#a1d99b", "#fdae6b", "#bcbddc", "#fa9fb5", "#c7e9c0",
               "#9edae5", "#dadaeb", "#fdd0a2", "#c6dbef", "#d9f0a3", "#e7cb94"]


class UAGridView(QWidget):
    """Paints the grid; all state is set from the GUI thread by the tab."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.grid = np.zeros(81, dtype=np.uint8)
        self.highlight: set[int] = set()
        self.other: dict[int, int] = {}        # cell -> digit of the other filling
        self.group_colour: dict[int, QColor] = {}
        self.clues: set[int] | None = None     # a puzzle shown: only these cells are clues
        self.setMinimumSize(300, 300)
        self.setSizePolicy(QSizePolicy.Expanding, QSizePolicy.Expanding)
        self.setToolTip("Solution grid.  Yellow: the selected UA (small red digits: the other filling "
                        "of its cells).  Coloured cells: a largest group of disjoint UAs.  "
                        "A puzzle from the search list shows its clues in bold.")

    def sizeHint(self) -> QSize:
        return QSize(460, 460)

    def set_grid(self, grid) -> None:
        self.grid = np.asarray(grid, dtype=np.uint8).copy()
        self.highlight, self.other, self.group_colour, self.clues = set(), {}, {}, None
        self.update()

    def set_ua(self, cells, other: dict[int, int] | None = None) -> None:
        self.highlight = set(int(c) for c in cells)
        self.other = dict(other or {})
        self.update()

    def set_groups(self, groups: list[list[int]]) -> None:
        self.group_colour = {}
        for k, cells in enumerate(groups):
            col = QColor(GROUP_FILLS[k % len(GROUP_FILLS)])
            for c in cells:
                self.group_colour[int(c)] = col
        self.update()

    def set_clues(self, cells) -> None:
        self.clues = None if cells is None else set(int(c) for c in cells)
        self.update()

    def paintEvent(self, event) -> None:  # noqa: N802 (Qt name)
        p = QPainter(self)
        p.setRenderHint(QPainter.Antialiasing)
        side = min(self.width(), self.height()) - 8
        x0 = (self.width() - side) / 2
        y0 = (self.height() - side) / 2
        cell = side / 9
        p.fillRect(QRectF(x0, y0, side, side), QColor("white"))
        big = QFont(self.font())
        big.setPixelSize(max(8, int(cell * 0.55)))
        small = QFont(self.font())
        small.setPixelSize(max(7, int(cell * 0.30)))
        small.setBold(True)
        bold = QFont(big)
        bold.setBold(True)
        for c in range(81):
            r, k = divmod(c, 9)
            rect = QRectF(x0 + k * cell, y0 + r * cell, cell, cell)
            if c in self.group_colour:
                p.fillRect(rect, self.group_colour[c])
            if c in self.highlight:
                p.fillRect(rect.adjusted(3, 3, -3, -3), SELECT_YELLOW)
                p.setPen(QPen(QColor("#b8860b"), 2))
                p.drawRect(rect.adjusted(3, 3, -3, -3))
            d = int(self.grid[c])
            if not d:
                continue
            is_clue = self.clues is None or c in self.clues
            p.setFont(bold if self.clues is not None and is_clue else big)
            if self.clues is not None and not is_clue:
                p.setPen(QColor("#c8c8c8"))
            else:
                p.setPen(QColor("#1a1a1a") if self.clues is None else QColor("#0b3d91"))
            p.drawText(rect, Qt.AlignCenter, str(d))
            if c in self.other:
                p.setFont(small)
                p.setPen(QColor("#c0392b"))
                p.drawText(rect.adjusted(0, 1, -3, 0), Qt.AlignRight | Qt.AlignTop, str(self.other[c]))
        for i in range(10):
            w = 2.4 if i % 3 == 0 else 0.8
            p.setPen(QPen(QColor("#333333" if i % 3 == 0 else "#9a9a9a"), w))
            p.drawLine(int(x0 + i * cell), int(y0), int(x0 + i * cell), int(y0 + side))
            p.drawLine(int(x0), int(y0 + i * cell), int(x0 + side), int(y0 + i * cell))
        p.end()
