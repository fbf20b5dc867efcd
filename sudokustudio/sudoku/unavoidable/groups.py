"""Disjoint unavoidable sets (a lower bound on the clues of any puzzle of the
grid) and the UA pre-test (a clue set missing a known UA is not unique)."""
from __future__ import annotations

import numpy as np
from numba import njit

from sudokustudio.core.cellset import ZERO, clue_set
from sudokustudio.core.cellset_blocks import first_disjoint
from sudokustudio.sudoku.unavoidable.formats import mask_from_string
from sudokustudio.sudoku.unavoidable.harvest import UASet


@njit(cache=True, nogil=True)
def greedy_disjoint_kernel(lo, hi, chosen):
    """Greedy pairwise-disjoint UAs in the given order (smallest first is
    best); writes the chosen indices, returns how many."""
    ulo = ZERO
    uhi = ZERO
    n = 0
    for i in range(lo.shape[0]):
        if (lo[i] & ulo) == ZERO and (hi[i] & uhi) == ZERO:
            ulo |= lo[i]
            uhi |= hi[i]
            chosen[n] = i
            n += 1
    return n


@njit(cache=True, nogil=True)
def max_disjoint_kernel(lo, hi, best, node_limit):
    """Maximum set of pairwise disjoint UAs by branch and bound.

    ``best`` receives the indices (in ``best[:k]``); returns (k, exact) where
    exact is False when ``node_limit`` stopped the search (k is then still a
    valid lower bound on the clues).
    """
    n = lo.shape[0]
    g = np.empty(n, dtype=np.int64)
    best_k = greedy_disjoint_kernel(lo, hi, g)
    for i in range(best_k):
        best[i] = g[i]
    # candidate lists per depth: indices still disjoint from the chosen ones
    maxd = 82
    cand = np.empty((maxd, n), dtype=np.int64)
    ncand = np.zeros(maxd, dtype=np.int64)
    pos = np.zeros(maxd, dtype=np.int64)
    chosen = np.empty(maxd, dtype=np.int64)
    ulo = np.zeros(maxd, dtype=np.uint64)
    uhi = np.zeros(maxd, dtype=np.uint64)
    for i in range(n):
        cand[0, i] = i
    ncand[0] = n
    depth = 0
    nodes = 0
    exact = True
    while depth >= 0:
        nodes += 1
        if nodes > node_limit:
            exact = False
            break
        if pos[depth] >= ncand[depth] or depth + ncand[depth] - pos[depth] <= best_k:
            depth -= 1
            if depth >= 0:
                pos[depth] += 1
            continue
        i = cand[depth, pos[depth]]
        chosen[depth] = i
        nlo = ulo[depth] | lo[i]
        nhi = uhi[depth] | hi[i]
        m = 0
        for q in range(pos[depth] + 1, ncand[depth]):
            j = cand[depth, q]
            if (lo[j] & nlo) == ZERO and (hi[j] & nhi) == ZERO:
                cand[depth + 1, m] = j
                m += 1
        if depth + 1 > best_k:
            best_k = depth + 1
            for q in range(depth + 1):
                best[q] = chosen[q]
        if m == 0 or depth + 1 + m <= best_k:
            pos[depth] += 1
            continue
        depth += 1
        ncand[depth] = m
        pos[depth] = 0
        ulo[depth] = nlo
        uhi[depth] = nhi
    return best_k, exact


def disjoint_groups(uas: UASet, exact_limit: int = 400, node_limit: int = 2_000_000):
    """(indices of a largest found set of pairwise disjoint UAs, exact?).

    The exact search runs on the ``exact_limit`` smallest UAs (a largest
    disjoint set uses small ones); its size is a lower bound on the clues of
    any puzzle with this solution.
    """
    n = min(len(uas), exact_limit)
    best = np.empty(max(n, 1), dtype=np.int64)
    if n == 0:
        return [], True
    k, exact = max_disjoint_kernel(uas.lo[:n], uas.hi[:n], best, int(node_limit))
    exact = bool(exact) and n == len(uas)
    return sorted(int(i) for i in best[:k]), exact


@njit(cache=True, nogil=True)
def misses_known_ua_kernel(clue_lo, clue_hi, lo, hi):
    """Does the clue set miss one of the UAs lo/hi (so it is not unique)?"""
    return first_disjoint(lo, hi, lo.shape[0], 0, clue_lo, clue_hi) < lo.shape[0]


def misses_known_ua(clue_mask, uas) -> bool:
    """True when the clue set misses a known UA: it cannot have a unique
    solution (no solver call needed).  ``clue_mask``: a puzzle (uint8[81],
    clues non-zero), an 81-character mask, or a (lo, hi) pair; ``uas``: a
    UASet or a (lo, hi) pair of arrays."""
    if isinstance(clue_mask, tuple):
        clo, chi = clue_mask
    elif isinstance(clue_mask, str):
        clo, chi = mask_from_string(clue_mask)
    else:
        clo, chi = clue_set(np.ascontiguousarray(clue_mask, dtype=np.uint8).reshape(81))
    lo, hi = (uas.lo, uas.hi) if isinstance(uas, UASet) else uas
    return bool(misses_known_ua_kernel(np.uint64(clo), np.uint64(chi), np.ascontiguousarray(lo, dtype=np.uint64),
                                       np.ascontiguousarray(hi, dtype=np.uint64)))
