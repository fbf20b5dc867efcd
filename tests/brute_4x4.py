"""Brute force over 4x4 Sudoku, without any solver: the 288 grids by plain backtracking, and
for one grid whether each of its 2^16 clue sets is unique and minimal.  The exact reference of
the oracle, the minimality check and the 4x4 minimal-count estimators."""
from __future__ import annotations

from itertools import permutations

import numpy as np

from sudokustudio.sudoku.tables import geometry


def all_4x4_grids_first_row_1234() -> list[np.ndarray]:
    """The 12 grids whose first row is 1 2 3 4."""
    _, peers, _ = geometry(2, 2)
    out = []
    g = np.zeros(16, dtype=np.uint8)
    g[:4] = [1, 2, 3, 4]

    def fill(i):
        if i == 16:
            out.append(g.copy())
            return
        for d in range(1, 5):
            if all(g[p] != d for p in peers[i] if p < i):
                g[i] = d
                fill(i + 1)
        g[i] = 0

    fill(4)
    return out


def all_4x4_grids() -> list[np.ndarray]:
    """The 288 grids: the digit relabellings of the 12 with first row 1234."""
    return [np.array([0, *p], dtype=np.uint8)[g] for g in all_4x4_grids_first_row_1234()
            for p in permutations(range(1, 5))]


def unique_and_minimal(grid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(unique, minimal) of every clue set m (bit i = cell i) of ``grid``: a clue set is
    unique when every other grid differs from this one on one of its cells, and minimal
    when it is unique and no set with one clue fewer is."""
    cells = 1 << np.arange(16)
    diffs = [int(cells[h != grid].sum()) for h in all_4x4_grids() if (h != grid).any()]
    assert len(diffs) == 287
    m = np.arange(1 << 16)
    unique = np.ones(1 << 16, dtype=bool)
    for d in diffs:
        unique &= (m & d) != 0
    minimal = unique.copy()
    for b in cells:
        has = (m & b) != 0
        minimal[has] &= ~unique[m[has] & ~b]
    return unique, minimal
