"""Sources of complete solution grids."""
from __future__ import annotations

import numpy as np
from numba import njit

from sudokustudio.core.rng import seed_state
from sudokustudio.sudoku.solver import random_solution_kernel


@njit(cache=True, nogil=True)
def random_grid_kernel(rng, out):
    """A random complete grid by randomized backtracking from the empty grid.

    Not uniform over grids (the randomized-solver source of DESIGN.md is
    biased); use the sequential sampler with weights where uniformity matters.
    """
    empty = np.zeros(81, dtype=np.uint8)
    random_solution_kernel(empty, rng, out)


def random_grid(seed: int | None = None, rng=None) -> np.ndarray:
    """A random solution grid, reproducible from ``seed`` (or an rng state)."""
    if rng is None:
        if seed is None:
            seed = int(np.random.SeedSequence().generate_state(1, dtype=np.uint64)[0])
        rng = seed_state(np.uint64(seed))
    out = np.zeros(81, dtype=np.uint8)
    random_grid_kernel(rng, out)
    return out
