"""The row-wise sampler's 9x9 weights against a symmetry of uniform grids.  Transposing maps
grids onto grids, so for any f the mean of f(G) over all grids equals the mean of f(G^T); the
weighted sample must show it: E_q[w f(G)] = E_q[w f(G^T)].  f is the log of the product of the
valid-row counts (row i given the rows above it), the quantity the sampler's chance of a grid
follows, so unweighted the two means differ by hundreds of SE and a small error in the weights
would show.  (On 1.5 million draws, 2026-11-30: weighted difference -0.0008 +- 0.0010 against
-0.321 unweighted.)"""
import math

import numpy as np
from numba import njit

from sudokustudio.core.rng import seed_state
from sudokustudio.sudoku.estimate import GRID_COUNTS
from sudokustudio.sudoku.estimate.samplers import _row_dp, draw_grid, grid_workspace


@njit(cache=True)
def _log_row_counts(g, transpose, scratch):
    """log of prod_i (valid rows i given rows 0..i-1) of g, or of its transpose."""
    col = np.zeros(9, np.int64)
    box = np.zeros(9, np.int64)
    allowed = np.zeros(9, np.int64)
    total = 0.0
    for i in range(9):
        if i > 0:
            for j in range(9):
                allowed[j] = 511 & ~(col[j] | box[3 * (i // 3) + j // 3])
            total += math.log(_row_dp(allowed, 9, scratch))
        for j in range(9):
            bit = 1 << ((g[j * 9 + i] if transpose else g[i * 9 + j]) - 1)
            col[j] |= bit
            box[3 * (i // 3) + j // 3] |= bit
    return total


@njit(cache=True)
def _sums(rng, n, inv_count, out):
    """out += (sum w d, sum (w d)^2, sum d, sum d^2, grids) with d = f(G) - f(G^T)."""
    gws = grid_workspace(3, 3)
    g = np.zeros(81, np.uint8)
    scratch = np.zeros(512)
    for _ in range(n):
        w = draw_grid(rng, 3, 3, gws, g) * inv_count
        if w == 0.0:
            continue
        d = _log_row_counts(g, False, scratch) - _log_row_counts(g, True, scratch)
        out[0] += w * d
        out[1] += (w * d) ** 2
        out[2] += d
        out[3] += d * d
        out[4] += 1


def test_weighted_grids_are_symmetric_under_transposition():
    n = 100_000
    out = np.zeros(5)
    _sums(seed_state(20261130), n, 1.0 / GRID_COUNTS["3x3"], out)
    weighted = out[0] / n
    weighted_se = math.sqrt((out[1] / n - weighted ** 2) / n)
    plain = out[2] / out[4]
    plain_se = math.sqrt((out[3] / out[4] - plain ** 2) / out[4])
    assert abs(plain) > 20 * plain_se, "the statistic must tell the unweighted grids from uniform ones"
    assert abs(weighted) < 4 * weighted_se, f"weighted {weighted:+.5f} +- {weighted_se:.5f}"
