"""A chart behind a placeholder line until it has something to show."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QStackedWidget, QWidget


class ChartSlot(QStackedWidget):
    """Holds ``chart`` behind ``hint`` (grey, centred) until ``reveal()``.

    An empty pyqtgraph chart shows bare 0-1 axes, which read as data; and a chart
    that is not shown costs nothing to paint, so a view with several charts opens
    without painting them all at once (each appears when its first data is drawn).
    """

    def __init__(self, chart: QWidget, hint: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.chart = chart
        self.hint = QLabel(hint)
        self.hint.setAlignment(Qt.AlignCenter)
        self.hint.setWordWrap(True)
        self.hint.setStyleSheet("color: #888888;")
        self.addWidget(self.hint)
        self.addWidget(chart)

    @property
    def revealed(self) -> bool:
        return self.currentWidget() is self.chart

    def reveal(self) -> None:
        if not self.revealed:
            self.setCurrentWidget(self.chart)
