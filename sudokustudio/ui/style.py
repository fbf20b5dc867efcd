"""Application look: icon and a few palette choices shared by the tabs."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QBrush, QColor, QIcon, QPen

RESOURCES = Path(__file__).resolve().parent.parent / "resources"

GIVEN_BLUE = QColor("#cfe2ff")      # given numbers (Survo) / givens (Sudoku)
SELECT_YELLOW = QColor("#ffe08a")   # the first number of a swap
POSITIVE = QColor("#f8c4c4")        # D > 0
NEGATIVE = QColor("#c4d7f8")        # D < 0
OK_GREEN = QColor("#cdebd0")        # D = 0, solved

# series colours for plots (colour-blind friendly)
SERIES = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#000000"]


def legend_ground() -> dict:
    """A plot legend's near-opaque white ground and grey frame (``addLegend(**legend_ground())``):
    over bars or curves a bare legend is unreadable."""
    return {"brush": QBrush(QColor(255, 255, 255, 210)), "pen": QPen(QColor("#cccccc"))}


def app_icon() -> QIcon:
    p = RESOURCES / "icons" / "sudokustudio.svg"
    return QIcon(str(p)) if p.exists() else QIcon()


def apply_style(app) -> None:
    app.setWindowIcon(app_icon())
