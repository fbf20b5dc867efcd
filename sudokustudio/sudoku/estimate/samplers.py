"""Sequential samplers of Sudoku grids (any box shape) with their weights.

A sequential sampler fills cells one at a time and multiplies the sizes of
the candidate sets it draws from; the product is 1/q(grid) times
1{complete}, so its mean is the number of grids (DESIGN.md "Estimation").

* ``crude``  -- uniform permutation-row grids, value |Omega| when the grid is
  a Sudoku (seed 003 eq. 1); hopeless beyond 4x4, shown to say why.
* ``ridder`` -- seed 003: row by row, left to right, uniform over the digits
  not yet in the row, column or box; weight = product of candidate-set sizes.
* ``rows``   -- ours: row by row, each row drawn uniformly among ALL rows
  valid given the rows above; their number (a permanent, by a subset DP
  over digits) multiplies the weight.  Row 0 is fixed by relabelling
  symmetry (weight n!), and rows n-2 and n-1 are summed exactly (every
  valid row n-2 whose forced last row is valid counts).  Relative sd per
  9x9 sample 0.78 (Ridder: ~30), ~30 us per sample.
* ``fc``     -- forward checking with naked and hidden singles, the cell with
  the fewest candidates next.  Removing only choices without completion
  keeps it unbiased.  (Counting the last open cells exactly was measured
  not to pay and is gone.)

Each batch kernel adds (nonzero samples, sum w', sum w'^2) to ``stats``
and keeps the largest w' in ``stats[3]`` (tail diagnostics), w' = w *
2^-scale_e2 (a fixed power of two per shape keeps the squares in range).
Ridder and fc carry their running product as mantissa * 2^e, so 25x25
weights (~1e300) neither overflow nor underflow before scaling.
``sequential_grid_kernel`` draws a 9x9 grid with its weight for the
estimators that need uniform grids.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from sudokustudio.core.bits import popcount64
from sudokustudio.core.rng import rand_below, rand_float
from sudokustudio.sudoku.generic import digit_of, propagate_g

_NO_PICK = np.int64(-1)   # numpy scalars, not literals: one compiled signature per kernel
_THREE = np.int64(3)
_GRID = np.bool_(True)
_NO_GRID = np.bool_(False)
_BIG_E2 = 512.0                 # running products are renormalised by 2^512 when they pass it
_BIG = 2.0 ** 512
_INV_BIG = 2.0 ** -512


@njit(cache=True, nogil=True)
def add_weight(stats, w):
    """stats += (1, w, w^2); stats[3] = max(stats[3], w)."""
    stats[0] += 1.0
    stats[1] += w
    stats[2] += w * w
    if w > stats[3]:
        stats[3] = w


@njit(cache=True, nogil=True)
def crude_batch_kernel(rng, r, c, n_samples):
    """Uniform permutation-row grids; returns how many were Sudoku grids."""
    n = r * c
    perm = np.empty(n, dtype=np.int64)
    colm = np.zeros(n, dtype=np.int64)
    boxm = np.zeros(n, dtype=np.int64)
    hits = 0
    for _ in range(n_samples):
        colm[:] = 0
        boxm[:] = 0
        ok = True
        for i in range(n):
            for k in range(n):
                perm[k] = k
            # Fisher-Yates, checking each placed digit at once (same law as a full shuffle)
            for j in range(n):
                t = j + rand_below(rng, n - j)
                d = perm[t]
                perm[t] = perm[j]
                perm[j] = d
                bit = np.int64(1) << d
                b = (i // r) * r + j // c
                if (colm[j] & bit) or (boxm[b] & bit):
                    ok = False
                    break
                colm[j] |= bit
                boxm[b] |= bit
            if not ok:
                break
        if ok:
            hits += 1
    return hits


@njit(cache=True, nogil=True)
def ridder_batch_kernel(rng, r, c, n_samples, scale_e2, stats):
    """Seed 003's importance sampler.  ``stats`` += (nonzero, sum w', sum w'^2), max w' in
    ``stats[3]``; w' = w * 2^-scale_e2."""
    n = r * c
    full = (np.int64(1) << n) - 1
    colm = np.zeros(n, dtype=np.int64)
    boxm = np.zeros(n, dtype=np.int64)
    for _ in range(n_samples):
        colm[:] = 0
        boxm[:] = 0
        w = 1.0
        e2 = 0.0
        ok = True
        for i in range(n):
            rowm = np.int64(0)
            for j in range(n):
                b = (i // r) * r + j // c
                avail = full & ~(rowm | colm[j] | boxm[b])
                if avail == 0:
                    ok = False
                    break
                k = popcount64(np.uint64(avail))
                w *= k
                if w > _BIG:
                    w *= _INV_BIG
                    e2 += _BIG_E2
                t = rand_below(rng, k)
                for _s in range(t):
                    avail &= avail - 1
                bit = avail & (-avail)
                rowm |= bit
                colm[j] |= bit
                boxm[b] |= bit
            if not ok:
                break
        if ok:
            add_weight(stats, w * 2.0 ** (e2 - scale_e2))


@njit(cache=True, nogil=True)
def _fc_sample(rng, peers, units, cand, done):
    """One forward-checking sample; returns its weight as (mantissa, e2): w = mantissa * 2^e2
    (mantissa 0 on a dead end)."""
    N = cand.shape[0]
    n = units.shape[1]
    full = (np.int64(1) << n) - 1
    cand[:] = full
    done[:] = 0
    w = 1.0
    e2 = 0.0
    while True:
        if not propagate_g(cand, done, peers, units, full):
            return 0.0, e2
        best = -1
        best_n = 99
        for x in range(N):
            v = cand[x]
            if v & (v - 1):
                k = popcount64(np.uint64(v))
                if k < best_n:
                    best_n = k
                    best = x
        if best < 0:
            return w, e2
        v = cand[best]
        w *= best_n
        if w > _BIG:
            w *= _INV_BIG
            e2 += _BIG_E2
        t = rand_below(rng, best_n)
        for _s in range(t):
            v &= v - 1
        cand[best] = v & (-v)


@njit(cache=True, nogil=True)
def fc_batch_kernel(rng, peers, units, n_samples, scale_e2, stats):
    """The forward-checking sampler (``peers``/``units``: ``tables.geometry``)."""
    N = peers.shape[0]
    cand = np.empty(N, dtype=np.int64)
    done = np.zeros(N, dtype=np.uint8)
    for _ in range(n_samples):
        w, e2 = _fc_sample(rng, peers, units, cand, done)
        if w > 0:
            add_weight(stats, w * 2.0 ** (e2 - scale_e2))


@njit(cache=True, nogil=True)
def fc_log2_weights(rng, peers, units, out):
    """log2 of ``out.size`` forward-checking weights (-inf on a dead end): a pilot for the
    weight scale of shapes with no reference count."""
    N = peers.shape[0]
    cand = np.empty(N, dtype=np.int64)
    done = np.zeros(N, dtype=np.uint8)
    for i in range(out.size):
        w, e2 = _fc_sample(rng, peers, units, cand, done)
        out[i] = np.log2(w) + e2 if w > 0 else -np.inf


# ---------------------------------------------------- the row-wise sampler
@njit(cache=True, nogil=True)
def _row_dp(allowed, n, g):
    """g[S] = ways to fill columns |S|..n-1 of a row with digits outside S.

    ``allowed[j]`` is column j's candidate mask (not in its column or box).
    g[0] is the number of valid rows (a permanent, by subset DP).
    """
    full = (1 << n) - 1
    g[full] = 1.0
    for S in range(full - 1, -1, -1):
        a = allowed[popcount64(np.uint64(S))] & ~S
        tot = 0.0
        while a:
            b = a & (-a)
            a &= a - 1
            tot += g[S | b]
        g[S] = tot
    return g[0]


@njit(cache=True, nogil=True)
def _last_row_ok(i, r, c, n, colm, boxm, full, row_out):
    """Is the forced last row valid?  Its digits (bits) go to ``row_out``."""
    seen = np.int64(0)
    for j in range(n):
        a = full & ~colm[j]
        if a == 0 or (a & (a - 1)) or (a & seen) or (boxm[(i // r) * r + j // c] & a):
            return False
        seen |= a
        row_out[j] = a
    return True


@njit(cache=True, nogil=True)
def _allowed_row(i, r, c, colm, boxm, allowed):
    """allowed[j] := the digits row i may have in column j."""
    n = r * c
    full = (np.int64(1) << n) - 1
    for j in range(n):
        allowed[j] = full & ~(colm[j] | boxm[(i // r) * r + j // c])


@njit(cache=True, nogil=True)
def rows_workspace(n):
    """Scratch of the row-wise sampler for n x n grids:
    (DP table, column masks, box masks, allowed, the endings' picks, DFS options, last row, relabelling)."""
    return (np.zeros(1 << n), np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64),
            np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64),
            np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64))


@njit(cache=True, nogil=True)
def _endings(r, c, ws, pick, grid_out):
    """The valid endings (row n-2, and the forced row n-1) given the rows above
    (in ws's masks, ``ws[0]`` the DP table of row n-2): how many, by a DFS over
    the DP table.  With ``pick >= 0`` the DFS stops at ending number ``pick``
    and writes both rows to ``grid_out``."""
    g, colm, boxm, allowed, picks, opts, lastrow = ws[0], ws[1], ws[2], ws[3], ws[4], ws[5], ws[6]
    n = r * c
    full = (np.int64(1) << n) - 1
    i = n - 2
    n_ok = 0
    S = 0
    j = 0
    opts[0] = allowed[0]
    while True:
        if j == n:
            # complete row n-2: test the forced last row
            for jj in range(n):
                colm[jj] |= picks[jj]
                boxm[(i // r) * r + jj // c] |= picks[jj]
            ok = _last_row_ok(n - 1, r, c, n, colm, boxm, full, lastrow)
            if ok and n_ok == pick:
                for jj in range(n):
                    grid_out[i * n + jj] = digit_of(picks[jj])
                    grid_out[(n - 1) * n + jj] = digit_of(lastrow[jj])
                return n_ok + 1
            for jj in range(n):
                colm[jj] &= ~picks[jj]
                boxm[(i // r) * r + jj // c] &= ~picks[jj]
            if ok:
                n_ok += 1
            j -= 1
            S &= ~picks[j]
            continue
        a = opts[j] & ~S
        # skip digits with no completion
        while a and g[S | (a & (-a))] == 0.0:
            a &= a - 1
        if a == 0:
            if j == 0:
                return n_ok
            j -= 1
            S &= ~picks[j]
            continue
        b = a & (-a)
        opts[j] = a & ~b
        picks[j] = b
        S |= b
        j += 1
        if j < n:
            opts[j] = allowed[j]


@njit(cache=True, nogil=True)
def _rows_sample(rng, r, c, ws, grid_out, want_grid, g1, cnt1):
    """One sample of the row-wise sampler; returns its weight (0 on a dead end).

    Row 0 is any permutation (weight n!, by relabelling symmetry): the
    identity, and with ``want_grid`` the finished grid's digits relabelled by a
    uniform random permutation, which gives every grid the chance a random row 0
    would (the later rows' counts do not change under relabelling).  Rows
    1..n-3 are drawn uniformly among the valid rows given the rows above (count
    = subset-DP permanent, weight *= count; ``g1, cnt1``: row 1's table, the same
    every sample, made once by :func:`grid_workspace`; cnt1 0: made here).  Row
    n-2 is summed exactly (``_endings``); with ``want_grid`` one ending is
    drawn uniformly and the grid written to ``grid_out``.
    """
    g, colm, boxm, allowed, relabel = ws[0], ws[1], ws[2], ws[3], ws[7]
    n = r * c
    colm[:] = 0
    boxm[:] = 0
    w = 1.0
    for k in range(1, n + 1):
        w *= k
    if want_grid:
        for j in range(n):
            relabel[j] = j + 1
        for j in range(n - 1, 0, -1):
            t = rand_below(rng, j + 1)
            tmp = relabel[j]
            relabel[j] = relabel[t]
            relabel[t] = tmp
    for j in range(n):   # row 0: digit j + 1 in column j
        colm[j] |= np.int64(1) << j
        boxm[j // c] |= np.int64(1) << j
        if want_grid:
            grid_out[j] = j + 1
    for i in range(1, n - 2):
        _allowed_row(i, r, c, colm, boxm, allowed)
        # with row 0 the identity, row 1's table is the same every sample: reuse it
        reuse = i == 1 and cnt1 > 0.0
        gi = g1 if reuse else g
        cnt = cnt1 if reuse else _row_dp(allowed, n, g)
        if cnt == 0.0:
            return 0.0
        w *= cnt
        S = 0
        for j in range(n):
            a = allowed[j] & ~S
            u = rand_float(rng) * gi[S]
            acc = 0.0
            pick = np.int64(0)
            while a:
                b = a & (-a)
                a &= a - 1
                acc += gi[S | b]
                pick = b
                if acc > u:
                    break
            S |= pick
            colm[j] |= pick
            boxm[(i // r) * r + j // c] |= pick
            if want_grid:
                grid_out[i * n + j] = digit_of(pick)
    if n < 3:
        return w
    # rows n-2 and n-1 exactly
    _allowed_row(n - 2, r, c, colm, boxm, allowed)
    if _row_dp(allowed, n, g) == 0.0:
        return 0.0
    n_ok = _endings(r, c, ws, _NO_PICK, grid_out)
    if n_ok == 0:
        return 0.0
    if want_grid:
        # draw one of the n_ok valid endings uniformly: enumerate again to it
        _endings(r, c, ws, np.int64(rand_below(rng, n_ok)), grid_out)
        for x in range(n * n):
            grid_out[x] = relabel[grid_out[x] - 1]
    return w * n_ok


@njit(cache=True, nogil=True)
def rows_batch_kernel(rng, r, c, n_samples, scale_e2, stats):
    """The row-wise sampler."""
    ws, g1, cnt1 = grid_workspace(r, c)
    grid = np.zeros(r * c * r * c, dtype=np.uint8)
    for _ in range(n_samples):
        w = _rows_sample(rng, r, c, ws, grid, _NO_GRID, g1, cnt1)
        if w > 0:
            add_weight(stats, w * 2.0 ** -scale_e2)


@njit(cache=True, nogil=True)
def grid_workspace(r, c):
    """The row-wise sampler's scratch and row 1's table given row 0 = identity, the same for
    every sample: (workspace, table, its count; 0.0 below 4 rows, where there is none)."""
    n = r * c
    ws = rows_workspace(n)
    g1 = np.zeros(1 << n)
    full = (np.int64(1) << n) - 1
    allowed = ws[3]
    for j in range(n):
        box_row0 = ((np.int64(1) << c) - 1) << (c * (j // c))   # row 0's digits in column j's box
        allowed[j] = full & ~((np.int64(1) << j) | box_row0)
    cnt1 = _row_dp(allowed, n, g1) if n > 3 else 0.0
    return ws, g1, cnt1


@njit(cache=True, nogil=True)
def draw_grid(rng, r, c, gws, out):
    """A complete grid from the row-wise sampler with weight 1/q(grid) (0.0 on a dead end), in
    the scratch ``gws`` of :func:`grid_workspace`: a loop drawing many grids makes it once and
    saves row 1's table each grid (9x9: 25.4 -> 21.3 us a grid, 2026-11-30, scratch)."""
    return _rows_sample(rng, r, c, gws[0], out, _GRID, gws[1], gws[2])


@njit(cache=True, nogil=True)
def rows_grid_g(rng, r, c, out):
    """One grid of :func:`draw_grid` with a scratch of its own."""
    return draw_grid(rng, r, c, grid_workspace(r, c), out)


@njit(cache=True, nogil=True)
def sequential_grid_kernel(rng, out):
    """9x9: a complete grid in ``out`` with weight 1/q(grid), q its sampling probability.

    E[weight] = number of grids and E[weight * f(grid)] = sum of f over all
    grids, so weighted grids give unbiased per-grid averages (divide by the
    number of grids).  A dead end returns 0.0 and leaves ``out`` incomplete.
    """
    return rows_grid_g(rng, _THREE, _THREE, out)
