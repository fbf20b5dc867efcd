"""A difficulty signal for every generated puzzle (no Qt, no I/O).

``puzzle_difficulty(puzzles)`` returns per-puzzle metrics as a dict of
arrays; the generators store them with the puzzles and every statistic,
table, histogram and CSV export shows whatever this returns, generically.

- ``guesses``: the solver's guess count (``solve_kernel``), a crude search
  effort.
- ``brt``: 1 when singles alone solve the puzzle (Berthier's BRT level).
  Uses ``rating.brt_kernel`` when the rating module provides it, else the
  local naked/hidden singles propagation below (the same rule).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from sudokustudio.sudoku.rating import DEFAULT_CAP as W_CAP
from sudokustudio.sudoku.rating import rate_puzzles
from sudokustudio.sudoku.solver import solve_kernel
from sudokustudio.sudoku.tables import PEERS, UNITS

try:  # the rating helper's BRT (issue 9); same meaning as the fallback
    from sudokustudio.sudoku.rating import brt_kernel as _brt_kernel  # type: ignore
except Exception:  # not there yet
    _brt_kernel = None

#: metric name -> short description (for tooltips and CSV headers)
METRICS = {
    "guesses": "solver guesses (search effort of the backtracking solver)",
    "brt": "1 if singles alone solve it (Berthier's BRT level), else 0",
    "W": "Berthier's W-rating: least n such that BRT + whips of length <= n solve it "
         "(0 = BRT alone; 13 = beyond the cap 12; -1 = not a unique-solution puzzle)",
}


@njit(cache=True, nogil=True)
def singles_solve_kernel(puzzle):
    """True when naked and hidden singles alone solve ``puzzle``."""
    cand = np.full(81, 0x1FF, dtype=np.int64)
    value = np.zeros(81, dtype=np.int64)
    queue = np.empty(81, dtype=np.int64)
    qn = 0
    for c in range(81):
        if puzzle[c]:
            value[c] = puzzle[c]
            cand[c] = 1 << (puzzle[c] - 1)
            queue[qn] = c
            qn += 1
    placed = qn
    head = 0
    while True:
        while head < qn:
            c = queue[head]
            head += 1
            bit = 1 << (value[c] - 1)
            for k in range(20):
                p = PEERS[c, k]
                if cand[p] & bit:
                    if value[p]:
                        return False
                    cand[p] &= ~bit
                    v = cand[p]
                    if v == 0:
                        return False
                    if (v & (v - 1)) == 0:
                        d = 1
                        while v > 1:
                            v >>= 1
                            d += 1
                        value[p] = d
                        queue[qn] = p
                        qn += 1
                        placed += 1
        if placed == 81:
            return True
        progress = False
        for u in range(27):
            for d in range(9):
                bit = 1 << d
                where = -1
                n = 0
                for k in range(9):
                    c = UNITS[u, k]
                    if cand[c] & bit:
                        n += 1
                        where = c
                if n == 0:
                    return False
                if n == 1 and value[where] == 0:
                    value[where] = d + 1
                    cand[where] = bit
                    queue[qn] = where
                    qn += 1
                    placed += 1
                    progress = True
        if not progress:
            return False


@njit(cache=True, nogil=True)
def difficulty_kernel(puzzles, guesses, brt):
    sol = np.zeros(81, dtype=np.uint8)
    for i in range(puzzles.shape[0]):
        _, g = solve_kernel(puzzles[i], 2, sol)
        guesses[i] = g
        brt[i] = 1 if singles_solve_kernel(puzzles[i]) else 0


#: metrics cheap enough for the fast generators (microseconds per puzzle)
FAST_METRICS = ("guesses", "brt")


def puzzle_difficulty(puzzles, metrics=None) -> dict[str, np.ndarray]:
    """Per-puzzle difficulty metrics of ``puzzles`` (uint8[N, 81]).

    ``metrics``: names to compute (default: all of METRICS).  The W-rating
    costs ~10 ms per puzzle, so the fast generators ask for FAST_METRICS by
    default.
    """
    names = tuple(METRICS) if metrics is None else tuple(metrics)
    unknown = [m for m in names if m not in METRICS]
    if unknown:
        raise ValueError(f"unknown difficulty metric(s) {unknown}; known: {list(METRICS)}")
    p = np.ascontiguousarray(puzzles, dtype=np.uint8).reshape(-1, 81)
    n = p.shape[0]
    out = {}
    if "guesses" in names or "brt" in names:
        guesses = np.zeros(n, dtype=np.int64)
        brt = np.zeros(n, dtype=np.uint8)
        if n:
            difficulty_kernel(p, guesses, brt)
            if _brt_kernel is not None:
                for i in range(n):
                    brt[i] = 1 if _brt_kernel(p[i])[0] else 0
        if "guesses" in names:
            out["guesses"] = guesses
        if "brt" in names:
            out["brt"] = brt
    if "W" in names:
        # W-rating (issue 9): ~10 ms per puzzle on average, nogil, so batches stay parallel
        out["W"] = rate_puzzles(p, W_CAP)[0].astype(np.int64) if n else np.zeros(0, dtype=np.int64)
    return out


def warm_up() -> None:
    puzzle_difficulty(np.zeros((1, 81), dtype=np.uint8))
