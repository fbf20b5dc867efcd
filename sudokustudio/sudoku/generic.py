"""The candidate-mask search for any box shape: one propagate and one search loop.

A cell's candidates are an int64 mask (bit d-1 = digit d possible) and the
grid's geometry comes as arguments (``tables.geometry``: peers int16[N, P],
units int16[3n, n]), so one compiled kernel serves 4x4 to 16x16.  Users:

* the uniqueness oracle of ``minimal`` (box shapes other than 9x9, and a
  second solution of a 9x9 clue set when the project solver's first one is
  the grid itself);
* the UA harvest (every other solution of a grid with some cells emptied);
* the forward-checking grid sampler of ``estimate.grids`` (``propagate_g``).

The 9x9 project solver (``solver.py``, band bitboards) is much faster for
plain 9x9 counting; this one exists for what it cannot answer.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from sudokustudio.core.bits import popcount64
from sudokustudio.core.cellset import ZERO, add_cell, set_size


@njit(cache=True, nogil=True)
def propagate_g(cand, done, peers, units, full):
    """Naked and hidden singles on int64 candidate masks, to a fixpoint.

    ``done[c]`` marks cells whose single candidate was already removed from
    their peers.  Returns False on a contradiction.
    """
    N = cand.shape[0]
    P = peers.shape[1]
    n = units.shape[1]
    changed = True
    while changed:
        changed = False
        for c in range(N):
            v = cand[c]
            if v == 0:
                return False
            if done[c] == 0 and (v & (v - 1)) == 0:
                done[c] = 1
                for k in range(P):
                    p = peers[c, k]
                    if cand[p] & v:
                        cand[p] &= ~v
                        if cand[p] == 0:
                            return False
                        changed = True
        for u in range(units.shape[0]):
            once = np.int64(0)
            twice = np.int64(0)
            for k in range(n):
                v = cand[units[u, k]]
                twice |= once & v
                once |= v
            if once != full:
                return False
            only = once & ~twice
            if only:
                for k in range(n):
                    c = units[u, k]
                    v = cand[c] & only
                    if v:
                        if v & (v - 1):
                            return False
                        if cand[c] != v:
                            cand[c] = v
                            changed = True
    return True


@njit(cache=True, nogil=True)
def digit_of(mask):
    """The digit (1..) of a one-candidate mask."""
    d = 1
    while mask > 1:
        mask >>= 1
        d += 1
    return d


@njit(cache=True, nogil=True)
def search_g(puzzle, peers, units, limit, avoid, other, found_lo, found_hi, n_found, max_size):
    """Depth-first search of the solutions of ``puzzle`` (digits 1..n, 0 empty)
    that differ from ``avoid`` (all zeros: every solution counts).

    Returns how many there are, counting stops at ``limit`` (``<= 0``: all).
    The first one is written to ``other``.  For each one differing from
    ``avoid`` in at most ``max_size`` cells, the set of those cells is
    appended to ``found_lo``/``found_hi`` while there is room (``n_found[0]``
    is the fill count).  Branching: the first cell with the fewest
    candidates; digits other than ``avoid``'s first (ascending), so a
    solution different from ``avoid`` turns up early.
    """
    N = puzzle.shape[0]
    n = units.shape[1]
    full = (np.int64(1) << n) - 1
    cs = np.empty((N + 1, N), dtype=np.int64)
    ds = np.zeros((N + 1, N), dtype=np.uint8)
    branch = np.empty(N + 1, dtype=np.int64)
    remaining = np.zeros(N + 1, dtype=np.int64)
    for c in range(N):
        d = puzzle[c]
        cs[0, c] = full if d == 0 else (np.int64(1) << (d - 1))
    if not propagate_g(cs[0], ds[0], peers, units, full):
        return 0
    count = 0
    depth = 0
    while True:
        best = -1
        best_n = 99
        for c in range(N):
            v = cs[depth, c]
            if v & (v - 1):
                k = popcount64(np.uint64(v))
                if k < best_n:
                    best_n = k
                    best = c
                    if k == 2:
                        break
        if best < 0:
            differs = False
            for c in range(N):
                if digit_of(cs[depth, c]) != avoid[c]:
                    differs = True
                    break
            if differs:
                count += 1
                if count == 1:
                    for c in range(N):
                        other[c] = digit_of(cs[depth, c])
                if n_found[0] < found_lo.shape[0]:  # cell sets: N <= 128
                    lo = ZERO
                    hi = ZERO
                    for c in range(N):
                        if digit_of(cs[depth, c]) != avoid[c]:
                            lo, hi = add_cell(lo, hi, c)
                    if set_size(lo, hi) <= max_size:
                        found_lo[n_found[0]] = lo
                        found_hi[n_found[0]] = hi
                        n_found[0] += 1
                if limit > 0 and count >= limit:
                    return count
            remaining[depth] = 0
        else:
            branch[depth] = best
            remaining[depth] = cs[depth, best]
        while True:
            while remaining[depth] == 0:
                if depth == 0:
                    return count
                depth -= 1
            rem = remaining[depth]
            a = avoid[branch[depth]]
            pref = rem & ~((np.int64(1) << (a - 1)) if a else np.int64(0))
            v = pref & (-pref) if pref else rem
            remaining[depth] = rem & ~v
            cs[depth + 1] = cs[depth]
            ds[depth + 1] = ds[depth]
            cs[depth + 1, branch[depth]] = v
            if propagate_g(cs[depth + 1], ds[depth + 1], peers, units, full):
                depth += 1
                break
