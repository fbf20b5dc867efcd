"""A read-only table model whose columns are named by a HEADERS class attribute."""
from PySide6.QtCore import QAbstractTableModel, Qt


class HeadedTableModel(QAbstractTableModel):
    HEADERS: list[str] = []

    def columnCount(self, parent=None) -> int:
        return len(self.HEADERS)

    def headerData(self, section, orientation, role=Qt.DisplayRole):
        if role == Qt.DisplayRole and orientation == Qt.Horizontal:
            return self.HEADERS[section]
        return None
