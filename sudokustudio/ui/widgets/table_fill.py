"""Filling a QTableWidget that a timer redraws, without re-measuring it per cell.

A header in ResizeToContents mode measures every row again on each changed
item, so a table refilled item by item costs milliseconds per cell on the UI
thread.  ``fill_table`` changes only the texts that changed and sizes the
columns once at the end.
"""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHeaderView, QTableWidget, QTableWidgetItem

RIGHT = Qt.AlignRight | Qt.AlignVCenter


def fill_table(table: QTableWidget, rows, align=RIGHT, style=None, fit_rows: bool = False) -> None:
    """Put ``rows`` (lists of texts) into ``table``; ``style(item, r, c)``, if given, is called
    for each new item (colours, tooltips).  ``fit_rows``: size the rows to their contents too,
    once at the end (never a vertical header in ResizeToContents mode: it measures every row at
    each changed cell)."""
    table.horizontalHeader().setSectionResizeMode(QHeaderView.Interactive)
    table.setUpdatesEnabled(False)
    try:
        if table.rowCount() != len(rows):
            table.setRowCount(len(rows))
        for r, cells in enumerate(rows):
            for c, text in enumerate(cells):
                item = table.item(r, c)
                if item is None:
                    item = QTableWidgetItem(text)
                    item.setTextAlignment(align)
                    if style is not None:
                        style(item, r, c)
                    table.setItem(r, c, item)
                elif item.text() != text:
                    item.setText(text)
    finally:
        table.resizeColumnsToContents()
        if fit_rows:
            table.resizeRowsToContents()
        table.setUpdatesEnabled(True)
