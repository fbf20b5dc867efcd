"""Static index tables: the 9x9 grid's units and peers (module constants the
kernels read), and the same tables for any box shape (``geometry``, passed
to the generic kernels as arguments)."""
from __future__ import annotations

import numpy as np

from sudokustudio.core.cellset import from_cells

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


def _as_cell_sets(rows) -> np.ndarray:
    """uint64[len(rows), 2]: each row of cells as a cell set (low word, high word; core.cellset)."""
    return np.array([from_cells(cells) for cells in rows], dtype=np.uint64).reshape(len(rows), 2)


#: the 27 units and each cell's 20 peers as cell sets (the singles of ``minimal.forced_back``)
UNIT_SETS = _as_cell_sets(UNITS)
PEER_SETS = _as_cell_sets(PEERS)

_GEOMS: dict = {}


def geometry(box_rows: int, box_cols: int):
    """(n, peers int16[N, P], units int16[3n, n]) of the n x n grid with r x c boxes.

    The arrays are built once per shape and shared: kernels take them as
    arguments (never as module constants, which numba types as read-only
    arrays and would compile a second time)."""
    key = (int(box_rows), int(box_cols))
    if key in _GEOMS:
        return _GEOMS[key]
    r, c = key
    n = r * c
    if not (1 <= r and 1 <= c and n <= 25):
        raise ValueError(f"box shape {r}x{c}: need r, c >= 1 and r*c <= 25")
    N = n * n
    units = np.empty((3 * n, n), dtype=np.int16)
    for i in range(n):
        units[i] = [i * n + j for j in range(n)]
        units[n + i] = [j * n + i for j in range(n)]
    for b in range(n):
        br, bc = r * (b // r), c * (b % r)
        units[2 * n + b] = [(br + i) * n + bc + j for i in range(r) for j in range(c)]
    cell_units = [[] for _ in range(N)]
    for u in range(3 * n):
        for x in units[u]:
            cell_units[int(x)].append(u)
    P = 3 * n - r - c - 1
    peers = np.empty((N, P), dtype=np.int16)
    for x in range(N):
        ps = sorted({int(y) for u in cell_units[x] for y in units[u]} - {x})
        assert len(ps) == P
        peers[x] = ps
    out = (n, peers, units)
    _GEOMS[key] = out
    return out
