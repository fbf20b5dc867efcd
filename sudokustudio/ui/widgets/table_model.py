"""A read-only table model whose columns are named by a HEADERS class attribute, and the item
roles and alignments as ints: Qt asks ``data`` for every role of every cell it paints or
measures, and comparing PySide6's enums costs ~15 us a call (4,000 calls held the window
~75 ms), comparing ints next to nothing."""
from PySide6.QtCore import QAbstractTableModel, Qt

DISPLAY, ALIGN, TIP, FONT = (int(Qt.DisplayRole), int(Qt.TextAlignmentRole), int(Qt.ToolTipRole),
                             int(Qt.FontRole))
LEFT, RIGHT = int(Qt.AlignLeft | Qt.AlignVCenter), int(Qt.AlignRight | Qt.AlignVCenter)


class HeadedTableModel(QAbstractTableModel):
    HEADERS: list[str] = []

    def columnCount(self, parent=None) -> int:
        return len(self.HEADERS)

    def widths_for(self, metrics, samples) -> list[int]:
        """Column widths that fit each column's widest text (``samples``, one a column) and its
        header, measured once: resizing to contents would ask ``data`` of every row."""
        return [max(metrics.horizontalAdvance(text), metrics.horizontalAdvance(head)) + 16
                for text, head in zip(samples, self.HEADERS)]

    def headerData(self, section, orientation, role=Qt.DisplayRole):
        if role == Qt.DisplayRole and orientation == Qt.Horizontal:
            return self.HEADERS[section]
        return None
