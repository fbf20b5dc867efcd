"""Warm-up of the core Sudoku kernels: the solver and what every group uses
(grids, isomorphs, the minimality check)."""
import numpy as np


def warm_up() -> None:
    from sudokustudio.sudoku.grid import is_valid_grid, random_isomorph
    from sudokustudio.sudoku.grids import random_grid
    from sudokustudio.sudoku.minimal import is_minimal
    from sudokustudio.sudoku.solver import count_solutions_batch, solve_batch

    g = random_grid(1)
    is_valid_grid(g)
    random_isomorph(g, np.array([1, 2, 3, 4], dtype=np.uint64))
    count_solutions_batch(g[None, :], 2)
    solve_batch(g[None, :], 2)
    is_minimal(g)
