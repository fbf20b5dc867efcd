"""A 9x9 Sudoku grid with candidates, and one whip of a W path drawn on it.

Givens are bold black, cells decided by the path blue, candidates small in
their 3x3 place.  A whip step (``rating.paths.WhipStep``) is drawn the way
Berthier writes it: the target candidate struck out in red, the
left-linking candidates L1..Ln circled green, the right-linking ones R1..R(n-1)
circled blue, red arrows for the links Z -> L1 and R(k-1) -> Lk, and the cells
the whip goes through shaded.  ``paint_grid`` draws on any QPainter, so the
same picture goes to the screen, a PNG, an SVG or a printer.
"""
from __future__ import annotations

import numpy as np
from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QImage, QPainter, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from sudokustudio.ui.style import SELECT_YELLOW

GIVEN = QColor("#111111")
DECIDED = QColor("#1f4fb4")
CANDIDATE = QColor("#555555")
TARGET = QColor("#d62728")
LEFT_LINK = QColor("#2ca02c")
RIGHT_LINK = QColor("#1f77b4")
WHIP_CELL = QColor(SELECT_YELLOW)


class GridPicture:
    """What the grid shows: givens, the decided values and candidates of a path
    frame (or none: the puzzle alone), and the step drawn on it."""

    def __init__(self):
        self.puzzle = np.zeros(81, dtype=np.uint8)
        self.cand: np.ndarray | None = None
        self.value: np.ndarray | None = None
        self.step = None

    def set_puzzle(self, puzzle) -> None:
        self.puzzle = np.asarray(puzzle, dtype=np.uint8).reshape(81).copy()
        self.cand = self.value = self.step = None

    def set_frame(self, frame) -> None:
        self.cand, self.value, self.step = frame.cand, frame.value, frame.step


def _candidate_point(cell_rect: QRectF, digit: int) -> QPointF:
    third = cell_rect.width() / 3
    r, c = divmod(digit - 1, 3)
    return QPointF(cell_rect.left() + (c + 0.5) * third, cell_rect.top() + (r + 0.5) * third)


def paint_grid(p: QPainter, rect: QRectF, pic: GridPicture) -> None:
    """Draw ``pic`` in the square ``rect``."""
    side = min(rect.width(), rect.height())
    left = rect.left() + (rect.width() - side) / 2
    top = rect.top() + (rect.height() - side) / 2
    cell = side / 9

    def cell_rect(i: int) -> QRectF:
        return QRectF(left + (i % 9) * cell, top + (i // 9) * cell, cell, cell)

    p.fillRect(QRectF(left, top, side, side), Qt.white)
    step = pic.step
    if step is not None:
        for x in (step.target, *step.llcs, *step.rlcs):
            p.fillRect(cell_rect(x // 9), WHIP_CELL)
    big, small = QFont(), QFont()
    big.setPixelSize(max(6, int(cell * 0.62)))
    small.setPixelSize(max(5, int(cell * 0.27)))
    for i in range(81):
        r = cell_rect(i)
        given = int(pic.puzzle[i])
        decided = int(pic.value[i]) if pic.value is not None else 0
        if given or decided:
            big.setBold(bool(given))
            p.setFont(big)
            p.setPen(GIVEN if given else DECIDED)
            p.drawText(r, Qt.AlignCenter, str(given or decided))
        elif pic.cand is not None:
            p.setFont(small)
            p.setPen(CANDIDATE)
            m = int(pic.cand[i])
            third = cell / 3
            for d in range(1, 10):
                if m >> (d - 1) & 1:
                    c = _candidate_point(r, d)
                    p.drawText(QRectF(c.x() - third / 2, c.y() - third / 2, third, third), Qt.AlignCenter, str(d))
    for k in range(10):
        p.setPen(QPen(Qt.black, 2.4 if k % 3 == 0 else 0.7))
        p.drawLine(QPointF(left + k * cell, top), QPointF(left + k * cell, top + side))
        p.drawLine(QPointF(left, top + k * cell), QPointF(left + side, top + k * cell))
    if step is not None:
        _paint_step(p, step, cell_rect, cell)


def _paint_step(p: QPainter, step, cell_rect, cell: float) -> None:
    def point(x: int) -> QPointF:
        return _candidate_point(cell_rect(x // 9), x % 9 + 1)

    radius = cell / 7
    p.setBrush(Qt.NoBrush)
    links = [(step.target, step.llcs[0])] + list(zip(step.rlcs, step.llcs[1:]))
    p.setPen(QPen(TARGET, max(1.0, cell / 28), Qt.DashLine))
    for a, b in links:
        _arrow(p, point(a), point(b), radius)
    p.setPen(QPen(LEFT_LINK, max(1.2, cell / 22)))
    for x in step.llcs:
        p.drawEllipse(point(x), radius, radius)
    p.setPen(QPen(RIGHT_LINK, max(1.2, cell / 22)))
    for x in step.rlcs:
        p.drawEllipse(point(x), radius, radius)
    z = point(step.target)
    p.setPen(QPen(TARGET, max(1.5, cell / 16)))
    p.drawLine(z + QPointF(-radius, -radius), z + QPointF(radius, radius))
    p.drawLine(z + QPointF(-radius, radius), z + QPointF(radius, -radius))


def _arrow(p: QPainter, a: QPointF, b: QPointF, gap: float) -> None:
    d = b - a
    length = (d.x() ** 2 + d.y() ** 2) ** 0.5
    if length < 2 * gap:
        return
    u = d / length
    start, end = a + u * gap, b - u * gap
    p.drawLine(start, end)
    normal = QPointF(-u.y(), u.x())
    head = gap * 0.9
    solid = QPen(p.pen())
    solid.setStyle(Qt.SolidLine)
    saved = p.pen()
    p.setPen(solid)
    p.drawLine(end, end - u * head + normal * head * 0.5)
    p.drawLine(end, end - u * head - normal * head * 0.5)
    p.setPen(saved)


class SudokuGridView(QWidget):
    """Paints a ``GridPicture``; state is set from the GUI thread by the view."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.picture = GridPicture()
        self.setMinimumSize(200, 200)
        self.setSizePolicy(QSizePolicy.Expanding, QSizePolicy.Expanding)
        self.setToolTip("The selected puzzle.  Stepping through its W path: candidates in small digits, "
                        "the eliminated candidate struck out in red, the whip's left-linking candidates "
                        "circled green, right-linking ones blue, red arrows for its links.")

    def sizeHint(self) -> QSize:
        return QSize(440, 440)

    def show_puzzle(self, puzzle) -> None:
        self.picture.set_puzzle(puzzle)
        self.update()

    def show_frame(self, frame) -> None:
        self.picture.set_frame(frame)
        self.update()

    def paintEvent(self, event) -> None:  # noqa: N802 (Qt name)
        p = QPainter(self)
        p.setRenderHint(QPainter.Antialiasing)
        paint_grid(p, QRectF(self.rect()).adjusted(4, 4, -4, -4), self.picture)
        p.end()

    def save_image(self, path: str, size: int = 720) -> None:
        """The grid as PNG (``size`` pixels square) or SVG, by the suffix of ``path``."""
        rect = QRectF(0, 0, size, size)
        if str(path).lower().endswith(".svg"):
            from PySide6.QtSvg import QSvgGenerator

            gen = QSvgGenerator()
            gen.setFileName(str(path))
            gen.setSize(QSize(size, size))
            gen.setViewBox(rect)
            gen.setTitle("Sudoku Studio grid")
            p = QPainter(gen)
            paint_grid(p, rect, self.picture)
            p.end()
            return
        img = QImage(size, size, QImage.Format_ARGB32)
        img.fill(Qt.white)
        p = QPainter(img)
        p.setRenderHint(QPainter.Antialiasing)
        paint_grid(p, rect, self.picture)
        p.end()
        if not img.save(str(path)):
            raise OSError(f"cannot write the image {path}")

    def print_grid(self, printer) -> None:
        p = QPainter(printer)
        page = QRectF(printer.pageLayout().paintRectPixels(printer.resolution()))
        paint_grid(p, QRectF(0, 0, page.width(), page.height()), self.picture)
        p.end()
