"""The Survo tab's New puzzle dialog: size, difficulty, givens (auto or at least k) and a
puzzle number (size + difficulty + givens + number always give the same puzzle)."""
from __future__ import annotations

from PySide6.QtWidgets import QComboBox, QDialog, QDialogButtonBox, QFormLayout, QMessageBox, QSpinBox

from sudokustudio.models.survo import LEVELS, MAX_COLS, MAX_ROWS

BANDS_TEXT = {"easy": "≤ 3 swaps", "medium": "4–5 swaps", "hard": "6–7 swaps, or a sacrifice needed",
              "expert": "≥ 8 swaps"}


class NewPuzzleDialog(QDialog):
    """Size, difficulty (any / easy / medium / hard / expert), givens and the puzzle number."""

    def __init__(self, parent=None, m: int = 4, n: int = 4, number: int = 1, level: str | None = "medium"):
        super().__init__(parent)
        self.setWindowTitle("New Survo puzzle")
        form = QFormLayout(self)
        self.rows = QSpinBox(minimum=2, maximum=MAX_ROWS, value=min(m, MAX_ROWS))
        self.cols = QSpinBox(minimum=2, maximum=MAX_COLS, value=min(n, MAX_COLS))
        self.level = QComboBox()
        self.level.addItem("any", None)
        for lev in LEVELS:
            self.level.addItem(f"{lev}  ({BANDS_TEXT[lev]})", lev)
        self.level.setCurrentIndex(0 if level is None else 1 + LEVELS.index(level))
        self.givens = QSpinBox(minimum=0, maximum=63, value=0)
        self.givens.setSpecialValueText("auto (as few as needed)")
        self.number = QSpinBox(minimum=0, maximum=2_000_000_000, value=number)
        self.rows.setToolTip(f"Rows, 2..{MAX_ROWS} (a puzzle takes about a second up to 5×5, at most ~10 s)")
        self.cols.setToolTip(f"Columns, 2..{MAX_COLS}")
        self.level.setToolTip("Fewest swaps from the product setup (and whether a sacrifice is needed)")
        self.givens.setToolTip("auto: open when it can be, givens added only as uniqueness needs them; "
                               "k: at least k given numbers")
        self.number.setToolTip("The same size, difficulty, givens and number always give the same puzzle")
        form.addRow("Rows", self.rows)
        form.addRow("Columns", self.cols)
        form.addRow("Difficulty", self.level)
        form.addRow("Given numbers", self.givens)
        form.addRow("Puzzle number", self.number)
        buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel)
        buttons.accepted.connect(self._check)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)

    def _check(self) -> None:
        cells = self.rows.value() * self.cols.value()
        if self.givens.value() >= cells:
            QMessageBox.warning(self, "New Survo puzzle",
                                f"A {self.rows.value()}×{self.cols.value()} table has {cells} cells: "
                                f"give fewer than {cells} numbers.")
            return
        self.accept()

    def values(self) -> dict:
        k = self.givens.value()
        return dict(m=self.rows.value(), n=self.cols.value(), level=self.level.currentData(),
                    givens="auto" if k == 0 else k, number=self.number.value())
