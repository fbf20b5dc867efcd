"""Static index tables of the 9x9 grid (units, peers), shared by the kernels."""
from __future__ import annotations

import numpy as np

ALL_DIGITS = 0x1FF  # candidate mask: bit d-1 set means digit d is possible


def _build():
    units = np.empty((27, 9), dtype=np.int16)
    for r in range(9):
        units[r] = [r * 9 + c for c in range(9)]
    for c in range(9):
        units[9 + c] = [r * 9 + c for r in range(9)]
    for b in range(9):
        br, bc = 3 * (b // 3), 3 * (b % 3)
        units[18 + b] = [(br + i) * 9 + bc + j for i in range(3) for j in range(3)]
    cell_units = np.empty((81, 3), dtype=np.int16)
    for cell in range(81):
        r, c = divmod(cell, 9)
        cell_units[cell] = (r, 9 + c, 18 + 3 * (r // 3) + c // 3)
    peers = np.empty((81, 20), dtype=np.int16)
    for cell in range(81):
        ps = sorted({int(x) for u in cell_units[cell] for x in units[u]} - {cell})
        peers[cell] = ps
    return units, cell_units, peers


UNITS, CELL_UNITS, PEERS = _build()
ROW = (np.arange(81) // 9).astype(np.int16)
COL = (np.arange(81) % 9).astype(np.int16)
BOX = (3 * (ROW // 3) + COL // 3).astype(np.int16)
