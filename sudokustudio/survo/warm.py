"""Warm-up of the Survo kernels (see sudokustudio.kernels): tiny inputs, every kernel once.

``warm_solve`` is the kernel group "survo-solve" (board, setup, hint, solve),
``warm_generate`` the group "survo-generate" (New puzzle).
"""
import numpy as np


def warm_up() -> None:
    warm_solve()
    warm_generate()


def warm_solve() -> None:
    from sudokustudio.survo.board import swap_delta_w_kernel, w_of
    from sudokustudio.survo.puzzle import SurvoPuzzle
    from sudokustudio.survo.setup import chi_square, givens_setup, product_setup, products_table
    from sudokustudio.survo.solve import min_swaps, reducing_swaps, solve_survo

    p = SurvoPuzzle([3, 7], [4, 6])
    t = product_setup(p.row_sums, p.col_sums)
    givens_setup(p.row_sums, p.col_sums, np.array([[1, 0], [0, 0]], dtype=np.int16))
    products_table(p.row_sums, p.col_sums)
    chi_square(t)
    w_of(t, p.row_sums, p.col_sums)
    swap_delta_w_kernel(t, p.row_sums, p.col_sums, 0, 0, 1, 1)
    s = solve_survo(p, 2)
    min_swaps(t, s.solution)
    reducing_swaps(t, s.solution)


def warm_generate() -> None:
    from sudokustudio.survo.generate import random_puzzle

    random_puzzle(2, 2, seed=1)
