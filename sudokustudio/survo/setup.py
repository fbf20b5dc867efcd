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
then row-major.  All comparisons are exact integer cross-multiplications.

The chi-square of a table read as a contingency table is here too: seed 001
uses it to explain why the product setup predicts the solution well.
"""
from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def _frac_less(a_num, a_den, b_num, b_den):
    """a_num/a_den < b_num/b_den for positive denominators."""
    return a_num * b_den < b_num * a_den


@njit(cache=True, nogil=True)
def _rank_cells(rnum, rden, cnum, cden, free, order):
    """Sort the free cells (flat indices in ``order``) by the rule of the module doc.

    Returns how many cells were ranked.  Insertion sort: at most 64 cells.
    """
    m = rnum.shape[0]
    n = cnum.shape[0]
    k = 0
    for i in range(m):
        for j in range(n):
            if free[i, j]:
                order[k] = i * n + j
                k += 1
    for a in range(1, k):
        cur = order[a]
        ci = cur // n
        cj = cur % n
        b = a - 1
        while b >= 0:
            o = order[b]
            oi = o // n
            oj = o % n
            # key(o) > key(cur) ?  keys compared: product, row mean, column mean, index
            p_o_num = rnum[oi] * cnum[oj]
            p_o_den = rden[oi] * cden[oj]
            p_c_num = rnum[ci] * cnum[cj]
            p_c_den = rden[ci] * cden[cj]
            greater = False
            if _frac_less(p_c_num, p_c_den, p_o_num, p_o_den):
                greater = True
            elif not _frac_less(p_o_num, p_o_den, p_c_num, p_c_den):
                if _frac_less(rnum[ci], rden[ci], rnum[oi], rden[oi]):
                    greater = True
                elif not _frac_less(rnum[oi], rden[oi], rnum[ci], rden[ci]):
                    if _frac_less(cnum[cj], cden[cj], cnum[oj], cden[oj]):
                        greater = True
                    elif not _frac_less(cnum[oj], cden[oj], cnum[cj], cden[cj]):
                        greater = o > cur
            if not greater:
                break
            order[b + 1] = o
            b -= 1
        order[b + 1] = cur
    return k


@njit(cache=True, nogil=True)
def product_setup_kernel(row_sums, col_sums, out):
    """Fill ``out`` (int16[m, n]) with 1..m·n ranked by row sum × column sum."""
    m = row_sums.shape[0]
    n = col_sums.shape[0]
    ones_r = np.ones(m, dtype=np.int64)
    ones_c = np.ones(n, dtype=np.int64)
    free = np.ones((m, n), dtype=np.bool_)
    order = np.empty(m * n, dtype=np.int64)
    k = _rank_cells(row_sums.astype(np.int64), ones_r, col_sums.astype(np.int64), ones_c, free, order)
    for r in range(k):
        c = order[r]
        out[c // n, c % n] = r + 1


@njit(cache=True, nogil=True)
def givens_setup_kernel(row_sums, col_sums, givens, out):
    """Generalised setup: givens stay, free cells ranked by products of residual means.

    ``givens`` int16[m, n] (0 = free); fills ``out`` int16[m, n].
    """
    m = row_sums.shape[0]
    n = col_sums.shape[0]
    N = m * n
    used = np.zeros(N + 1, dtype=np.bool_)
    rnum = row_sums.astype(np.int64).copy()
    cnum = col_sums.astype(np.int64).copy()
    rden = np.zeros(m, dtype=np.int64)
    cden = np.zeros(n, dtype=np.int64)
    free = np.zeros((m, n), dtype=np.bool_)
    for i in range(m):
        for j in range(n):
            g = givens[i, j]
            out[i, j] = g
            if g > 0:
                used[g] = True
                rnum[i] -= g
                cnum[j] -= g
            else:
                free[i, j] = True
                rden[i] += 1
                cden[j] += 1
    # a line without free cells never ranks a cell; keep its denominator positive
    for i in range(m):
        if rden[i] == 0:
            rden[i] = 1
        if rnum[i] < 0:
            rnum[i] = 0
    for j in range(n):
        if cden[j] == 0:
            cden[j] = 1
        if cnum[j] < 0:
            cnum[j] = 0
    order = np.empty(N, dtype=np.int64)
    k = _rank_cells(rnum, rden, cnum, cden, free, order)
    v = 1
    for r in range(k):
        while used[v]:
            v += 1
        c = order[r]
        out[c // n, c % n] = v
        v += 1


@njit(cache=True, nogil=True)
def products_kernel(row_sums, col_sums, out):
    """The table of products row sum × column sum (int64[m, n])."""
    for i in range(row_sums.shape[0]):
        for j in range(col_sums.shape[0]):
            out[i, j] = row_sums[i] * col_sums[j]


@njit(cache=True, nogil=True)
def chi_square_kernel(table):
    """Pearson's chi-square of a table read as a contingency table (independence)."""
    m, n = table.shape
    rs = np.zeros(m)
    cs = np.zeros(n)
    total = 0.0
    for i in range(m):
        for j in range(n):
            v = float(table[i, j])
            rs[i] += v
            cs[j] += v
            total += v
    chi = 0.0
    for i in range(m):
        for j in range(n):
            e = rs[i] * cs[j] / total
            d = table[i, j] - e
            chi += d * d / e
    return chi


# ------------------------------------------------------------- wrappers
def product_setup(row_sums, col_sums) -> np.ndarray:
    """The product-of-sums setup of an open puzzle (int16[m, n])."""
    r = np.ascontiguousarray(row_sums, dtype=np.int64)
    c = np.ascontiguousarray(col_sums, dtype=np.int64)
    out = np.zeros((len(r), len(c)), dtype=np.int16)
    product_setup_kernel(r, c, out)
    return out


def givens_setup(row_sums, col_sums, givens) -> np.ndarray:
    """The generalised setup with givens (equal to product_setup when there are none)."""
    r = np.ascontiguousarray(row_sums, dtype=np.int64)
    c = np.ascontiguousarray(col_sums, dtype=np.int64)
    g = np.ascontiguousarray(givens, dtype=np.int16)
    out = np.zeros(g.shape, dtype=np.int16)
    givens_setup_kernel(r, c, g, out)
    return out


def puzzle_setup(puzzle) -> np.ndarray:
    """The starting table of a SurvoPuzzle (product rule, generalised when it has givens)."""
    if puzzle.is_open:
        return product_setup(puzzle.row_sums, puzzle.col_sums)
    return givens_setup(puzzle.row_sums, puzzle.col_sums, puzzle.givens)


def products_table(row_sums, col_sums) -> np.ndarray:
    r = np.ascontiguousarray(row_sums, dtype=np.int64)
    c = np.ascontiguousarray(col_sums, dtype=np.int64)
    out = np.zeros((len(r), len(c)), dtype=np.int64)
    products_kernel(r, c, out)
    return out


def chi_square(table) -> float:
    return float(chi_square_kernel(np.ascontiguousarray(table, dtype=np.float64)))
