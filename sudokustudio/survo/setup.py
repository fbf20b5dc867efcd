"""The starting table of the swapping method: products of marginal sums.

Open puzzles (DESIGN.md, "Survo conventions"): rank the cells by
row sum × column sum, the smallest product gets 1; ties go to the smaller
row sum, then the smaller column sum, then row-major order.

With given numbers (our generalisation of Mustonen's SPGUESS rule): the
givens stay; each line gets its *residual* sum (sum minus its givens) and
its number of free cells; a free cell is ranked by the product of the
residual *means* of its row and column, (r_i / f_i)·(c_j / g_j), and the
free cells receive the remaining numbers in that order.  For an open puzzle
the means are the sums divided by constants, so the rule reduces to the
plain product rule.  Ties: smaller residual row mean, then column mean,
then row-major.  All comparisons are exact (fractions).

The chi-square of a table read as a contingency table is here too: seed 001
uses it to explain why the product setup predicts the solution well.

Plain numpy and Python, no numba: the board needs these the moment the
window shows (issue 15), and they cost microseconds on at most 64 cells.
"""
from __future__ import annotations

from math import lcm

import numpy as np


def product_setup(row_sums, col_sums) -> np.ndarray:
    """The product-of-sums setup of an open puzzle (int16[m, n])."""
    return product_setups(np.asarray(row_sums, dtype=np.int64)[None, :],
                          np.asarray(col_sums, dtype=np.int64)[None, :])[0]


def product_setups(row_sums: np.ndarray, col_sums: np.ndarray) -> np.ndarray:
    """The product setups of many open puzzles at once: int64[k, m], int64[k, n] -> int16[k, m, n].

    Cells sorted by (product, row sum, column sum, row-major index), the
    first gets 1 (DESIGN.md's tie rule).
    """
    r = np.asarray(row_sums, dtype=np.int64)
    c = np.asarray(col_sums, dtype=np.int64)
    k, m = r.shape
    n = c.shape[1]
    rr = np.broadcast_to(r[:, :, None], (k, m, n)).reshape(k, m * n)
    cc = np.broadcast_to(c[:, None, :], (k, m, n)).reshape(k, m * n)
    idx = np.broadcast_to(np.arange(m * n), (k, m * n))
    order = np.lexsort((idx, cc, rr, rr * cc), axis=-1)
    out = np.empty((k, m * n), dtype=np.int16)
    np.put_along_axis(out, order, np.arange(1, m * n + 1, dtype=np.int16)[None, :].repeat(k, 0), axis=1)
    return out.reshape(k, m, n)


def givens_setup(row_sums, col_sums, givens) -> np.ndarray:
    """The generalised setup with givens (equal to product_setup when there are none).

    Residual means are compared exactly as integers: a row mean r_i / f_i
    times lcm(1..n) is whole (f_i <= n), and likewise for the columns.
    """
    g = np.asarray(givens, dtype=np.int16)
    m, n = g.shape
    free = g == 0
    f_r = np.maximum(1, free.sum(axis=1))   # a line without free cells never ranks a cell
    f_c = np.maximum(1, free.sum(axis=0))
    r_res = np.maximum(0, np.asarray(row_sums, dtype=np.int64) - g.sum(axis=1, dtype=np.int64))
    c_res = np.maximum(0, np.asarray(col_sums, dtype=np.int64) - g.sum(axis=0, dtype=np.int64))
    r_mean = [int(x) * (lcm(*range(1, n + 1)) // int(f)) for x, f in zip(r_res, f_r)]
    c_mean = [int(x) * (lcm(*range(1, m + 1)) // int(f)) for x, f in zip(c_res, f_c)]
    cells = sorted((r_mean[i] * c_mean[j], r_mean[i], c_mean[j], i * n + j)
                   for i in range(m) for j in range(n) if free[i, j])
    out = g.copy()
    used = np.zeros(m * n + 1, dtype=bool)
    used[g[~free]] = True
    values = np.flatnonzero(~used[1:]) + 1
    for (_, _, _, cell), v in zip(cells, values):
        out[cell // n, cell % n] = v
    return out


def puzzle_setup(puzzle) -> np.ndarray:
    """The starting table of a SurvoPuzzle (product rule, generalised when it has givens)."""
    if puzzle.is_open:
        return product_setup(puzzle.row_sums, puzzle.col_sums)
    return givens_setup(puzzle.row_sums, puzzle.col_sums, puzzle.givens)


def products_table(row_sums, col_sums) -> np.ndarray:
    """The table of products row sum × column sum (int64[m, n])."""
    return np.outer(np.asarray(row_sums, dtype=np.int64), np.asarray(col_sums, dtype=np.int64))


def chi_square(table) -> float:
    """Pearson's chi-square of a table read as a contingency table (independence)."""
    return float(chi_squares(np.asarray(table)[None])[0])


def chi_squares(tables: np.ndarray) -> np.ndarray:
    """Chi-square of many tables (k, m, n) -> float64[k].

    The terms are added one cell at a time in row-major order, so the
    figures are bit-identical to a plain loop over the cells.
    """
    t = np.asarray(tables, dtype=np.float64)
    k, m, n = t.shape
    rs = t.sum(axis=2)
    cs = t.sum(axis=1)
    total = rs.sum(axis=1)
    e = rs[:, :, None] * cs[:, None, :] / total[:, None, None]
    d = t - e
    terms = (d * d / e).reshape(k, m * n)
    chi = np.zeros(k)
    for x in range(m * n):
        chi = chi + terms[:, x]
    return chi
