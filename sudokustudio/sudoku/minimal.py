"""Minimality of puzzles (shared by generators, estimators and UA search)."""
from __future__ import annotations

import numpy as np
from numba import njit

from sudokustudio.sudoku.solver import count_solutions_kernel


@njit(cache=True, nogil=True)
def is_minimal_kernel(puzzle):
    """True when ``puzzle`` has a unique solution and every clue is needed."""
    if count_solutions_kernel(puzzle, 2) != 1:
        return False
    work = puzzle.copy()
    for c in range(81):
        d = work[c]
        if d:
            work[c] = 0
            n = count_solutions_kernel(work, 2)
            work[c] = d
            if n == 1:
                return False
    return True


def is_minimal(puzzle) -> bool:
    return bool(is_minimal_kernel(np.ascontiguousarray(puzzle, dtype=np.uint8).reshape(81)))
