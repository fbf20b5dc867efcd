"""A difficulty signal for every generated puzzle (no Qt, no I/O).

``puzzle_difficulty(puzzles)`` returns per-puzzle metrics as a dict of
arrays; the generators store them with the puzzles and every statistic,
table, histogram and CSV export shows whatever this returns, generically.

- ``guesses``: the solver's guess count (``solve_kernel``), a crude search
  effort.
- ``brt``: 1 when singles alone solve the puzzle (Berthier's BRT level,
  ``rating.brt_kernel``).
- ``W``: Berthier's W-rating (``rating``), ~10 ms a puzzle.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from sudokustudio.core.batch import check_cancelled
from sudokustudio.sudoku.rating.kernels import DEFAULT_CAP as W_CAP
from sudokustudio.sudoku.rating.kernels import brt_kernel, rate_puzzles
from sudokustudio.sudoku.solver import solve_batch_kernel

_TWO = np.int64(2)

#: metric name -> short description (for tooltips and CSV headers)
METRICS = {
    "guesses": "solver guesses (search effort of the backtracking solver)",
    "brt": "1 if singles alone solve it (Berthier's BRT level), else 0",
    "W": "Berthier's W-rating: least n such that BRT + whips of length <= n solve it "
         "(0 = BRT alone; 13 = beyond the cap 12; -1 = not a unique-solution puzzle)",
}


@njit(cache=True, nogil=True)
def difficulty_kernel(puzzles, guesses, brt):
    """Solver guesses and BRT (1 = singles solve it) of each puzzle.

    The solver's root propagation does all that singles do and more (solver.py), so a
    puzzle it has to guess on is not solved by singles: BRT, ~4x the solver's time a
    puzzle, runs only on the puzzles solved without a guess (about half of the minimal
    puzzles; the same answers, tested)."""
    n = puzzles.shape[0]
    solutions = np.empty((n, 81), dtype=np.uint8)
    counts = np.empty(n, dtype=np.int64)
    solve_batch_kernel(puzzles, _TWO, solutions, counts, guesses)
    for i in range(n):
        brt[i] = 0
        if guesses[i] == 0:
            solved, _, _ = brt_kernel(puzzles[i])
            brt[i] = 1 if solved else 0


#: puzzles W-rated between two looks at the batch's cancel flag (~10 ms each): one grid sample
#: of the weighted sampler yields up to hundreds of puzzles, and Stop waited for all of them
W_CHUNK = 8

#: metrics cheap enough for the fast generators (microseconds per puzzle)
FAST_METRICS = ("guesses", "brt")


def check_metrics(metrics, default=METRICS) -> list[str]:
    """The metric names as a list (``default`` when None); ValueError naming any unknown one."""
    names = list(default if metrics is None else metrics)
    unknown = [m for m in names if m not in METRICS]
    if unknown:
        raise ValueError(f"unknown difficulty metric(s) {unknown}; known: {list(METRICS)}")
    return names


def puzzle_difficulty(puzzles, metrics=None) -> dict[str, np.ndarray]:
    """Per-puzzle difficulty metrics of ``puzzles`` (uint8[N, 81]).

    ``metrics``: names to compute (default: all of METRICS).  The W-rating
    costs ~10 ms per puzzle, so the fast generators ask for FAST_METRICS by
    default.
    """
    names = check_metrics(metrics)
    p = np.ascontiguousarray(puzzles, dtype=np.uint8).reshape(-1, 81)
    n = p.shape[0]
    out = {}
    if "guesses" in names or "brt" in names:
        guesses = np.zeros(n, dtype=np.int64)
        brt = np.zeros(n, dtype=np.uint8)
        if n:
            difficulty_kernel(p, guesses, brt)
        if "guesses" in names:
            out["guesses"] = guesses
        if "brt" in names:
            out["brt"] = brt
    if "W" in names:
        out["W"] = w_ratings(p)
    return out


def w_ratings(puzzles: np.ndarray) -> np.ndarray:
    """W-ratings (int64[N]) of ``puzzles`` (uint8[N, 81]), ``W_CHUNK`` at a time: inside a batch
    (``core.batch``) a stopped run raises ``BatchCancelled`` between chunks, so Stop does not
    wait for the whole batch.  ~10 ms a puzzle on average (issue 9), nogil."""
    out = np.zeros(puzzles.shape[0], dtype=np.int64)
    for start in range(0, puzzles.shape[0], W_CHUNK):
        check_cancelled()
        out[start:start + W_CHUNK] = rate_puzzles(puzzles[start:start + W_CHUNK], W_CAP)[0]
    return out


def warm_up() -> None:
    puzzle_difficulty(np.zeros((1, 81), dtype=np.uint8))
