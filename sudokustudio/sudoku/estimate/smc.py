"""Sequential Monte Carlo (a particle filter) for the number of grids: ``smc``.

A population of N partial grids is filled cell by cell in a fixed order (row
by row), every particle filling the same cell at the same step, with forward
checking (naked and hidden singles, propagated only where a candidate went).
A particle draws the cell's value v among its candidates with probability
proportional to F(v) = prod over the peers p still allowing v of (c_p - 1)/c_p
(c_p: p's number of candidates), and its weight is multiplied by 1/q(v) (1 when
propagation already placed the cell, 0 on a dead end).  After each step the
mean weight is a factor of the estimate and, when the population's effective
size has fallen below ``ess_frac * N``, the particles are resampled
(systematic) in proportion to their weights: dead ends are replaced by copies
of live particles instead of wasting the sample.

The product of the step factors is an unbiased estimate of the number of
grids for ANY population size N (Del Moral's Feynman-Kac argument: each step
and each resampling keeps the expected weighted population unchanged, and a
resampling decision made from the weights keeps it so), so independent runs
are independent unbiased samples: a batch holds ``n_runs`` runs and the job's
RE and tail diagnostics are over runs.  Runs return log2 of their estimate:
25x25 counts (~2^1025) pass the float range.

Measured (var ln Z ~ C / N): the fixed order matters most.  Filling the cell
with the fewest candidates first (each particle its own cell, aligned by the
number of placed cells) gave C ~ 450 at 25x25 and a heavy tail; row by row
gives C ~ 40-50 (box by box about the same); the guide F(v) halves C against
uniform draws; looking one value ahead (weight = number of values that
survive propagation) cost 4x for no gain.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from sudokustudio.core.bits import popcount64
from sudokustudio.core.rng import rand_below, rand_float
from sudokustudio.sudoku.estimate.samplers import add_weight


@njit(cache=True, nogil=True)
def _remove(x, bits, cand, cnt, cell_units, singles, ns, hidden, nh):
    """Remove ``bits`` from cell x: cnt[u, d] (cells of unit u that still allow digit d) follows;
    a cell left with one candidate goes on ``singles``, a unit-digit left with one cell on
    ``hidden``.  Returns (no contradiction, ns, nh)."""
    m = cand[x] & bits
    if m == 0:
        return True, ns, nh
    v = cand[x] & ~m
    if v == 0:
        return False, ns, nh
    cand[x] = v
    n = cnt.shape[1]
    while m:
        b = m & (-m)
        m &= m - 1
        d = popcount64(np.uint64(b - 1))
        for k in range(3):
            u = cell_units[x, k]
            cnt[u, d] -= 1
            if cnt[u, d] == 0:
                return False, ns, nh
            if cnt[u, d] == 1:
                hidden[nh] = u * n + d
                nh += 1
    if (v & (v - 1)) == 0:
        singles[ns] = x
        ns += 1
    return True, ns, nh


@njit(cache=True, nogil=True)
def _place(x, b, cand, cnt, peers, units, cell_units, singles, hidden):
    """Put digit ``b`` (a bit) in cell x and propagate naked and hidden singles from there (the
    same deductions as ``generic.propagate_g``, but only where something changed); False on a
    contradiction."""
    ok, ns, nh = _remove(x, cand[x] & ~b, cand, cnt, cell_units, singles, 0, hidden, 0)
    n = cnt.shape[1]
    P = peers.shape[1]
    while ok and (ns > 0 or nh > 0):
        if ns > 0:
            ns -= 1
            y = singles[ns]
            v = cand[y]
            for j in range(P):
                p = peers[y, j]
                if cand[p] & v:
                    ok, ns, nh = _remove(p, v, cand, cnt, cell_units, singles, ns, hidden, nh)
                    if not ok:
                        break
        else:
            nh -= 1
            u = hidden[nh] // n
            v = np.int64(1) << (hidden[nh] % n)
            for k in range(n):
                y = units[u, k]
                if cand[y] & v:
                    if cand[y] != v:
                        ok, ns, nh = _remove(y, cand[y] & ~v, cand, cnt, cell_units, singles, ns, hidden, nh)
                    break
    return ok


@njit(cache=True, nogil=True)
def _fill(rng, peers, units, cell_units, cand, cnt, x, shrink, probs, singles, hidden):
    """Fill cell x of one particle (nothing to do when propagation already placed it); returns
    the weight factor of the choice, 0.0 on a dead end."""
    v = cand[x]
    if (v & (v - 1)) == 0:
        return 1.0
    f, b = _guided_choose(rng, peers, cand, x, shrink, probs)
    if not _place(x, b, cand, cnt, peers, units, cell_units, singles, hidden):
        return 0.0
    return f


@njit(cache=True, nogil=True)
def _guided_choose(rng, peers, cand, x, shrink, probs):
    """Draw one of cell x's candidates v with probability proportional to F(v) = the product,
    over the peers p still allowing v, of shrink[c_p] (c_p: p's number of candidates;
    shrink[c] = ((c - 1) / c)^alpha: how little v narrows its peers; shrink[0] < 0: uniform).
    Returns (1 / q(v), v's bit)."""
    v = cand[x]
    if shrink[0] < 0.0:
        k = popcount64(np.uint64(v))
        for _s in range(rand_below(rng, k)):
            v &= v - 1
        return float(k), v & (-v)
    probs[:] = 1.0
    for j in range(peers.shape[1]):
        cp = cand[peers[x, j]]
        m = cp & v
        if m:
            f = shrink[popcount64(np.uint64(cp))]
            while m:
                b = m & (-m)
                m &= m - 1
                probs[popcount64(np.uint64(b - 1))] *= f
    tot = 0.0
    m = v
    while m:
        b = m & (-m)
        m &= m - 1
        tot += probs[popcount64(np.uint64(b - 1))]
    u = rand_float(rng) * tot
    acc = 0.0
    m = v
    while True:
        b = m & (-m)
        m &= m - 1
        p = probs[popcount64(np.uint64(b - 1))]
        acc += p
        if acc > u or m == 0:
            return tot / p, b


def guide_table(n: int, alpha: float) -> np.ndarray:
    """shrink[c] = ((c - 1) / c)^alpha for c = 1..n (``_guided_choose``); alpha 0 marks uniform draws."""
    shrink = np.array([((c - 1) / c) ** alpha if c else 0.0 for c in range(n + 1)])
    if alpha == 0.0:
        shrink[0] = -1.0
    return shrink


@njit(cache=True, nogil=True)
def _systematic_offspring(rng, w, total, out):
    """out[i] := number of copies of particle i: systematic resampling, E[out[i]] = N w[i] / total."""
    n = w.shape[0]
    step = total / n
    u = rand_float(rng) * step
    acc = 0.0
    drawn = 0
    for i in range(n):
        acc += w[i]
        c = 0
        while drawn < n and u < acc:
            c += 1
            drawn += 1
            u += step
        out[i] = c
    # rounding may leave the last draw beyond the summed weights: give it to the last live particle
    if drawn < n:
        for i in range(n - 1, -1, -1):
            if w[i] > 0:
                out[i] += n - drawn
                break


@njit(cache=True, nogil=True)
def _replicate(counts, cand, cnt):
    """Overwrite the particles with no offspring by the extra copies of those with several."""
    n = counts.shape[0]
    free = 0
    for i in range(n):
        while counts[i] > 1:
            while counts[free] != 0:
                free += 1
            cand[free, :] = cand[i, :]
            cnt[free, :, :] = cnt[i, :, :]
            counts[free] = 1           # the slot is taken (one copy of particle i)
            counts[i] -= 1


@njit(cache=True, nogil=True)
def smc_log2_estimate(rng, peers, units, cell_units, order, n_particles, ess_frac, shrink, cand, cnt, w, counts, probs,
                      singles, hidden):
    """One SMC run with ``n_particles`` particles (the arrays are its scratch, sized for them),
    filling the cells in ``order``; returns log2 of its unbiased estimate of the number of grids
    (-inf when every particle died)."""
    n = units.shape[1]
    cand[:, :] = (np.int64(1) << n) - 1
    cnt[:, :, :] = n
    w[:] = 1.0
    log2_z = 0.0
    for x in order:
        total = 0.0
        total2 = 0.0
        for i in range(n_particles):
            if w[i] > 0.0:
                w[i] *= _fill(rng, peers, units, cell_units, cand[i], cnt[i], x, shrink, probs, singles, hidden)
                total += w[i]
                total2 += w[i] * w[i]
        if total == 0.0:
            return -np.inf
        # the step's factor: the mean weight; weights are renormalised to mean 1
        log2_z += np.log2(total / n_particles)
        if total * total < ess_frac * n_particles * total2:
            _systematic_offspring(rng, w, total, counts)
            _replicate(counts, cand, cnt)
            w[:] = 1.0
        else:
            w *= n_particles / total
    return log2_z


@njit(cache=True, nogil=True)
def smc_batch_kernel(rng, peers, units, order, n_runs, n_particles, ess_frac, shrink, scale_e2, stats):
    """``n_runs`` independent SMC runs filling the cells in ``order``: ``stats`` += (nonzero,
    sum Z', sum Z'^2), max Z' in ``stats[3]``, Z' = Z * 2^-scale_e2 the run's estimate."""
    N = peers.shape[0]
    n = units.shape[1]
    cell_units = np.empty((N, 3), dtype=np.int64)     # the row, column and box of each cell
    seen = np.zeros(N, dtype=np.int64)
    for u in range(units.shape[0]):
        for k in range(n):
            x = units[u, k]
            cell_units[x, seen[x]] = u
            seen[x] += 1
    cand = np.empty((n_particles, N), dtype=np.int32)     # n <= 25 digits: half the bytes to copy
    cnt = np.empty((n_particles, units.shape[0], n), dtype=np.int8)
    singles = np.empty(N, dtype=np.int64)
    hidden = np.empty(units.shape[0] * n, dtype=np.int64)
    w = np.empty(n_particles)
    counts = np.empty(n_particles, dtype=np.int64)
    probs = np.empty(n)
    for _ in range(n_runs):
        lz = smc_log2_estimate(rng, peers, units, cell_units, order, n_particles, ess_frac, shrink, cand, cnt, w,
                               counts, probs, singles, hidden)
        if lz > -np.inf:      # a run whose particles all died is a zero estimate (the job counts runs)
            add_weight(stats, 2.0 ** (lz - scale_e2))


def fill_order(r: int, c: int, kind: str = "rows") -> np.ndarray:
    """The cells of the n x n grid with r x c boxes in filling order: "rows" row by row,
    "boxes" box by box (each row by row)."""
    n = r * c
    if kind == "rows":
        return np.arange(n * n, dtype=np.int64)
    if kind == "boxes":
        return np.array([(br * r + i) * n + bc * c + j for br in range(c) for bc in range(r)
                         for i in range(r) for j in range(c)], dtype=np.int64)
    raise ValueError(f"fill order {kind!r}: rows or boxes")
