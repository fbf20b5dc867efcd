"""Sequential Monte Carlo (a particle filter) for the number of grids: ``smc``.

A population of partial grids is filled by the forward-checking sampler of
``samplers`` (naked and hidden singles, the cell with the fewest candidates
next), all particles advancing together: step s brings every live particle to
at least ``s * stride`` placed cells (propagated singles count), multiplying
its weight by the candidate counts of the cells it chose (0 on a dead end).
After each step the mean weight is a factor of the estimate and, when the
population's effective size has fallen below ``ess_frac * N``, the particles
are resampled (systematic) in proportion to their weights; dead ends are
thereby replaced by copies of live particles instead of wasting the sample.

The product of the step factors (times the final mean weight) is an unbiased
estimate of the number of grids for ANY population size N (Del Moral's
Feynman-Kac argument: each step and each resampling keeps the expected
weighted population unchanged; the resampling decision depends only on the
weights, which keeps it so), so independent runs are independent unbiased
samples: a batch holds ``n_runs`` runs and the job's RE and tail diagnostics
are over runs.  Runs return log2 of their estimate: 25x25 counts (~2^1025)
pass the float range.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from sudokustudio.core.bits import popcount64
from sudokustudio.core.rng import rand_float
from sudokustudio.sudoku.estimate.samplers import _add_weight, fc_choose, fewest_candidates
from sudokustudio.sudoku.generic import propagate_g


@njit(cache=True, nogil=True)
def _advance(rng, peers, units, cand, done, full, target, placed, pick, i, alpha, probs):
    """Fill particle i by forward checking until at least ``target`` cells are placed; returns
    the product of the candidate counts of the cells chosen (0.0 on a dead end).  ``placed[i]``
    and ``pick[i]`` (its next cell, fewest candidates) are kept up to date."""
    w = 1.0
    while placed[i] < target:
        if alpha == 0.0:
            w *= fc_choose(rng, cand[i], pick[i])
        else:
            w *= _guided_choose(rng, peers, cand[i], pick[i], alpha, probs)
        if not propagate_g(cand[i], done[i], peers, units, full):
            return 0.0
        pick[i], _, placed[i] = fewest_candidates(cand[i])
    return w


@njit(cache=True, nogil=True)
def _guided_choose(rng, peers, cand, x, alpha, probs):
    """Place one of cell x's candidates v with probability proportional to F(v)^alpha,
    F(v) = prod over the peers p still allowing v of (c_p - 1) / c_p (c_p: p's candidate count):
    how much v shrinks its peers.  Returns 1 / q(v), the weight factor."""
    v = cand[x]
    P = peers.shape[1]
    k = 0
    tot = 0.0
    m = v
    while m:
        b = m & (-m)
        m &= m - 1
        f = 1.0
        for j in range(P):
            cp = cand[peers[x, j]]
            if cp & b:
                c = popcount64(np.uint64(cp))
                f *= (c - 1.0) / c
        probs[k] = f ** alpha
        tot += probs[k]
        k += 1
    u = rand_float(rng) * tot
    acc = 0.0
    m = v
    j = 0
    while True:
        b = m & (-m)
        m &= m - 1
        acc += probs[j]
        if acc > u or m == 0:
            cand[x] = b
            return tot / probs[j]
        j += 1


@njit(cache=True, nogil=True)
def _systematic_offspring(rng, w, total, out):
    """out[i] := number of copies of particle i: systematic resampling, E[out[i]] = N w[i] / total."""
    n = w.shape[0]
    step = total / n
    u = rand_float(rng) * step
    acc = 0.0
    for i in range(n):
        acc += w[i]
        c = 0
        while u < acc:
            c += 1
            u += step
        out[i] = c
    # rounding may leave the last draw beyond acc: give it to the last particle with weight
    short = n - out.sum()
    if short > 0:
        for i in range(n - 1, -1, -1):
            if w[i] > 0:
                out[i] += short
                break


@njit(cache=True, nogil=True)
def _replicate(counts, cand, done, placed, pick):
    """Overwrite the particles with no offspring by the extra copies of those with several."""
    n = counts.shape[0]
    free = 0
    for i in range(n):
        while counts[i] > 1:
            while counts[free] != 0:
                free += 1
            cand[free, :] = cand[i, :]
            done[free, :] = done[i, :]
            placed[free] = placed[i]
            pick[free] = pick[i]
            counts[free] = 1           # the slot is taken (one copy of particle i)
            counts[i] -= 1


@njit(cache=True, nogil=True)
def smc_log2_estimate(rng, peers, units, n_particles, stride, ess_frac, alpha, cand, done, w, placed, pick,
                      counts, probs):
    """One SMC run with ``n_particles`` particles (the arrays are its scratch, sized for them);
    returns log2 of its unbiased estimate of the number of grids (-inf when every particle died)."""
    N = peers.shape[0]
    n = units.shape[1]
    full = (np.int64(1) << n) - 1
    cand[:, :] = full
    done[:, :] = 0
    w[:] = 1.0
    log2_z = 0.0
    first, _, _ = fewest_candidates(cand[0])
    placed[:] = 0
    pick[:] = first
    target = 0
    while target < N:
        target = min(target + stride, N)
        total = 0.0
        total2 = 0.0
        for i in range(n_particles):
            if w[i] > 0.0:
                w[i] *= _advance(rng, peers, units, cand, done, full, target, placed, pick, i, alpha, probs)
                total += w[i]
                total2 += w[i] * w[i]
        if total == 0.0:
            return -np.inf
        # the step's factor: the mean weight; weights are renormalised to mean 1
        log2_z += np.log2(total / n_particles)
        if total * total < ess_frac * n_particles * total2:
            _systematic_offspring(rng, w, total, counts)
            _replicate(counts, cand, done, placed, pick)
            w[:] = 1.0
        else:
            w *= n_particles / total
    return log2_z


@njit(cache=True, nogil=True)
def smc_batch_kernel(rng, peers, units, n_runs, n_particles, stride, ess_frac, alpha, scale_e2, stats):
    """``n_runs`` independent SMC runs: ``stats`` += (nonzero, sum Z', sum Z'^2), max Z' in
    ``stats[3]``, Z' = Z * 2^-scale_e2 the run's estimate."""
    N = peers.shape[0]
    cand = np.empty((n_particles, N), dtype=np.int64)
    done = np.empty((n_particles, N), dtype=np.uint8)
    w = np.empty(n_particles)
    placed = np.empty(n_particles, dtype=np.int64)
    pick = np.empty(n_particles, dtype=np.int64)
    counts = np.empty(n_particles, dtype=np.int64)
    probs = np.empty(units.shape[1])
    for _ in range(n_runs):
        lz = smc_log2_estimate(rng, peers, units, n_particles, stride, ess_frac, alpha, cand, done, w, placed,
                               pick, counts, probs)
        if lz > -np.inf:      # a run whose particles all died is a zero estimate (the job counts runs)
            _add_weight(stats, 2.0 ** (lz - scale_e2))
