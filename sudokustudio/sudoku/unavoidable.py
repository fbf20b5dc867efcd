"""Unavoidable sets (UAs) of a solution grid: harvest, disjoint groups, and
the few-clue hitting-set search of seed 004.

A UA is a set of cells whose digits can be rearranged into another valid
grid (equivalently: emptying those cells leaves 2+ solutions); every puzzle
whose solution is the grid has a clue in every UA.  A set of cells is an
81-bit mask held in two uint64 words: ``lo`` = cells 0..63, ``hi`` = cells
64..80.  Collections are parallel ``uint64[N]`` arrays (lo, hi).

Search (seed 004): depth-first enumeration of hitting sets, branching on
the unhit UA with the fewest live cells, with dead cells (cells tried
earlier in a branch are excluded from its later siblings' subtrees; so the
busiest cells are tried first, and of the smallest UAs the one overlapping
the others most is branched on: this halves the nodes of a 16-clue search), and
the "forward view": greedy groups of pairwise disjoint unhit UAs give a
lower bound on the clues still needed (Property 1: more than the clues left
-> dead branch; Property 2: exactly the clues left -> every remaining clue
lies in the group; Property 3: several such groups -> intersect them).  A
complete hitting set is checked by a solver; if it is not unique, the
difference to another solution is a new UA, added on the fly.

Every kernel is ``@njit(cache=True, nogil=True)``; all uint64 arithmetic uses
explicit ``np.uint64`` constants (mixing uint64 and int64 gives floats in
numba).
"""
from __future__ import annotations

import time
from itertools import combinations
from pathlib import Path

import numpy as np
from numba import njit

from sudokustudio.core.batch import BatchJob
from sudokustudio.core.bits import lowest_index64, popcount64
from sudokustudio.core.rng import rand_below, seed_state
from sudokustudio.sudoku.tables import ALL_DIGITS, BOX, COL, PEERS, ROW, UNITS

_U = np.uint64
ZERO = np.uint64(0)
ONE = np.uint64(1)
FULL_LO = np.uint64(0xFFFFFFFFFFFFFFFF)
FULL_HI = np.uint64((1 << 17) - 1)


# ----------------------------------------------------------------- bit tricks
@njit(cache=True, nogil=True, inline="always")
def mask_size(lo, hi):
    return popcount64(lo) + popcount64(hi)


@njit(cache=True, nogil=True)
def mask_from_cells_kernel(cells):
    lo = ZERO
    hi = ZERO
    for c in cells:
        if c < 64:
            lo |= ONE << _U(c)
        else:
            hi |= ONE << _U(c - 64)
    return lo, hi


@njit(cache=True, nogil=True)
def _mask_of_puzzle(puzzle):
    lo = ZERO
    hi = ZERO
    for c in range(81):
        if puzzle[c]:
            if c < 64:
                lo |= ONE << _U(c)
            else:
                hi |= ONE << _U(c - 64)
    return lo, hi


@njit(cache=True, nogil=True, inline="always")
def _in_mask(lo, hi, c):
    if c < 64:
        return (lo >> _U(c)) & ONE
    return (hi >> _U(c - 64)) & ONE


# --------------------------------------------------------------- own solver
# The UA kernels need two things the public solver API does not give: a
# solution *different from the grid* (to derive the UA a clue set misses)
# and all solutions of a partly emptied grid.  Both come from this small
# candidate-bitboard search (naked + hidden singles, fewest candidates).
@njit(cache=True, nogil=True)
def _propagate(cand, done):
    changed = True
    while changed:
        changed = False
        for c in range(81):
            v = np.int64(cand[c])
            if v == 0:
                return False
            if done[c] == 0 and (v & (v - 1)) == 0:
                done[c] = 1
                for k in range(20):
                    p = PEERS[c, k]
                    if cand[p] & v:
                        cand[p] = np.uint16(np.int64(cand[p]) & ~v)
                        if cand[p] == 0:
                            return False
                        changed = True
        for u in range(27):
            once = 0
            twice = 0
            for k in range(9):
                v = np.int64(cand[UNITS[u, k]])
                twice |= once & v
                once |= v
            if once != ALL_DIGITS:
                return False
            only = once & ~twice
            if only:
                for k in range(9):
                    c = UNITS[u, k]
                    v = np.int64(cand[c]) & only
                    if v:
                        if v & (v - 1):
                            return False
                        if cand[c] != v:
                            cand[c] = np.uint16(v)
                            changed = True
    return True


@njit(cache=True, nogil=True)
def _other_solutions(puzzle, grid, mode, cap, max_size, out_lo, out_hi, n_out, sol, cs, ds):
    """Search the solutions of ``puzzle`` (whose solutions include ``grid``).

    mode 0: stop at the first solution different from ``grid`` (into ``sol``);
    returns 1 if there is one, else 0 (the puzzle is unique).
    mode 1: visit all solutions (at most ``cap``); the difference mask of each
    solution other than the grid with at most ``max_size`` cells is appended
    to out_lo/out_hi (n_out[0] is the fill count).  Returns the solutions seen.
    Digits different from the grid's are tried first, so mode 0 is quick.
    ``cs`` (82x81 uint16) and ``ds`` (82x81 uint8) are work arrays.
    """
    branch_cell = np.empty(82, dtype=np.int64)
    remaining = np.zeros(82, dtype=np.int64)
    for c in range(81):
        d = puzzle[c]
        cs[0, c] = np.uint16(1 << (d - 1)) if d else np.uint16(ALL_DIGITS)
        ds[0, c] = 0
    if not _propagate(cs[0], ds[0]):
        return 0
    count = 0
    depth = 0
    while True:
        best = -1
        best_n = 10
        for c in range(81):
            v = np.int64(cs[depth, c])
            if v & (v - 1):
                n = 0
                while v:
                    v &= v - 1
                    n += 1
                if n < best_n:
                    best_n = n
                    best = c
                    if n == 2:
                        break
        if best < 0:
            lo = ZERO
            hi = ZERO
            for c in range(81):
                if np.int64(cs[depth, c]) != (1 << (grid[c] - 1)):
                    if c < 64:
                        lo |= ONE << _U(c)
                    else:
                        hi |= ONE << _U(c - 64)
            if lo != ZERO or hi != ZERO:
                count += 1
                if mode == 0:
                    for c in range(81):
                        v = np.int64(cs[depth, c])
                        d = 1
                        while v > 1:
                            v >>= 1
                            d += 1
                        sol[c] = d
                    return 1
                if mask_size(lo, hi) <= max_size and n_out[0] < out_lo.shape[0]:
                    out_lo[n_out[0]] = lo
                    out_hi[n_out[0]] = hi
                    n_out[0] += 1
                if count >= cap:
                    return count
            remaining[depth] = 0
        else:
            branch_cell[depth] = best
            remaining[depth] = np.int64(cs[depth, best])
        while True:
            while remaining[depth] == 0:
                if depth == 0:
                    return count
                depth -= 1
            rem = remaining[depth]
            gbit = np.int64(1) << (grid[branch_cell[depth]] - 1)
            other = rem & ~gbit
            if other:
                v = other & (-other)
            else:
                v = rem
            remaining[depth] = rem & ~v
            cs[depth + 1] = cs[depth]
            ds[depth + 1] = ds[depth]
            cs[depth + 1, branch_cell[depth]] = np.uint16(v)
            if _propagate(cs[depth + 1], ds[depth + 1]):
                depth += 1
                break


@njit(cache=True, nogil=True)
def _puzzle_from_mask(grid, lo, hi, out):
    for c in range(81):
        out[c] = grid[c] if _in_mask(lo, hi, c) else 0


@njit(cache=True, nogil=True)
def other_solution_kernel(grid, clue_lo, clue_hi, sol):
    """1 and another solution in ``sol`` if the clues (grid restricted to the
    mask) do not determine the grid, else 0."""
    puzzle = np.empty(81, dtype=np.uint8)
    _puzzle_from_mask(grid, clue_lo, clue_hi, puzzle)
    cs = np.empty((82, 81), dtype=np.uint16)
    ds = np.empty((82, 81), dtype=np.uint8)
    dummy = np.empty(0, dtype=np.uint64)
    n_out = np.zeros(1, dtype=np.int64)
    return _other_solutions(puzzle, grid, 0, 1, 81, dummy, dummy, n_out, sol, cs, ds)


@njit(cache=True, nogil=True)
def minimize_ua_kernel(grid, lo, hi, cs, ds):
    """Shrink an unavoidable set to a minimal one inside it (exact).

    A set U is a minimal UA iff for every cell c of U the grid with U minus c
    emptied is unique; when it is not, the other solution's difference (a UA
    inside U minus c) replaces U.  Returns (lo, hi); (0, 0) if U was not
    unavoidable at all.
    """
    puzzle = np.empty(81, dtype=np.uint8)
    sol = np.empty(81, dtype=np.uint8)
    dummy = np.empty(0, dtype=np.uint64)
    n_out = np.zeros(1, dtype=np.int64)
    # first make sure U itself is unavoidable (and replace it by its difference)
    _puzzle_from_mask(grid, ~lo, ~hi & FULL_HI, puzzle)
    if _other_solutions(puzzle, grid, 0, 1, 81, dummy, dummy, n_out, sol, cs, ds) == 0:
        return ZERO, ZERO
    lo, hi = _diff_mask(grid, sol)
    changed = True
    while changed:
        changed = False
        for c in range(81):
            if not _in_mask(lo, hi, c):
                continue
            # clues: everything outside U, plus c
            _puzzle_from_mask(grid, ~lo, ~hi & FULL_HI, puzzle)
            puzzle[c] = grid[c]
            if _other_solutions(puzzle, grid, 0, 1, 81, dummy, dummy, n_out, sol, cs, ds):
                lo, hi = _diff_mask(grid, sol)
                changed = True
                break
    return lo, hi


@njit(cache=True, nogil=True)
def _diff_mask(grid, sol):
    lo = ZERO
    hi = ZERO
    for c in range(81):
        if sol[c] != grid[c]:
            if c < 64:
                lo |= ONE << _U(c)
            else:
                hi |= ONE << _U(c - 64)
    return lo, hi


@njit(cache=True, nogil=True)
def is_unavoidable_kernel(grid, lo, hi):
    """Emptying the cells of the mask leaves 2+ solutions."""
    sol = np.empty(81, dtype=np.uint8)
    return other_solution_kernel(grid, ~lo, ~hi & FULL_HI, sol) == 1


@njit(cache=True, nogil=True)
def is_minimal_ua_kernel(grid, lo, hi):
    """Unavoidable, and no proper subset is (checked cell by cell, exact)."""
    if not is_unavoidable_kernel(grid, lo, hi):
        return False
    sol = np.empty(81, dtype=np.uint8)
    for c in range(81):
        if _in_mask(lo, hi, c):
            if c < 64:
                clo = ~lo | (ONE << _U(c))
                chi = ~hi & FULL_HI
            else:
                clo = ~lo
                chi = (~hi & FULL_HI) | (ONE << _U(c - 64))
            if other_solution_kernel(grid, clo, chi, sol):
                return False
    return True


# ------------------------------------------------------------------ harvest
@njit(cache=True, nogil=True)
def harvest_kernel(grid, empties_lo, empties_hi, max_size, cap, out_lo, out_hi):
    """For each emptied cell set, collect the difference masks (<= max_size
    cells) of all other solutions (at most ``cap`` per set).  Returns the
    number of masks written (duplicates and non-minimal ones included)."""
    cs = np.empty((82, 81), dtype=np.uint16)
    ds = np.empty((82, 81), dtype=np.uint8)
    puzzle = np.empty(81, dtype=np.uint8)
    sol = np.empty(81, dtype=np.uint8)
    n_out = np.zeros(1, dtype=np.int64)
    for i in range(empties_lo.shape[0]):
        _puzzle_from_mask(grid, ~empties_lo[i], ~empties_hi[i] & FULL_HI, puzzle)
        _other_solutions(puzzle, grid, 1, cap, max_size, out_lo, out_hi, n_out, sol, cs, ds)
        if n_out[0] >= out_lo.shape[0]:
            break
    return n_out[0]


@njit(cache=True, nogil=True)
def minimize_all_kernel(grid, lo, hi, out_lo, out_hi):
    cs = np.empty((82, 81), dtype=np.uint16)
    ds = np.empty((82, 81), dtype=np.uint8)
    for i in range(lo.shape[0]):
        a, b = minimize_ua_kernel(grid, lo[i], hi[i], cs, ds)
        out_lo[i] = a
        out_hi[i] = b


@njit(cache=True, nogil=True)
def _random_masks(rng, n, size, out_lo, out_hi):
    cells = np.arange(81)
    for i in range(n):
        # partial Fisher-Yates: the first ``size`` cells
        for j in range(size):
            k = j + rand_below(rng, 81 - j)
            t = cells[j]
            cells[j] = cells[k]
            cells[k] = t
        lo = ZERO
        hi = ZERO
        for j in range(size):
            c = cells[j]
            if c < 64:
                lo |= ONE << _U(c)
            else:
                hi |= ONE << _U(c - 64)
        out_lo[i] = lo
        out_hi[i] = hi


def _cells_mask(cells) -> tuple[int, int]:
    lo = hi = 0
    for c in cells:
        c = int(c)
        if c < 64:
            lo |= 1 << c
        else:
            hi |= 1 << (c - 64)
    return lo, hi


def harvest_cell_sets(grid: np.ndarray, seed: int = 1, random_sets: int = 200,
                      six_digits: bool = False, quick: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """The cell sets emptied by the harvest.

    Digit sets of 2-4 digits over the whole grid find every UA using at most
    4 digits (all UAs of sizes 4 and 6 among them: a UA's other filling uses
    only the digits the grid has there).  5- and 6-digit sets restricted to
    two bands or two stacks, single bands and stacks, and random cell sets
    find larger ones.  ``six_digits`` adds 6-digit sets on two bands or
    stacks (about 4% more UAs of size 12 for 3x the time).  ``quick``: only
    2- and 3-digit sets (milliseconds; all UAs of sizes 4 and 6 and most
    small ones) for the UA pre-test.
    """
    grid = np.asarray(grid)
    sets: list[tuple[int, int]] = []
    rows = ROW
    cols = COL
    for nd in ((2, 3) if quick else (2, 3, 4)):
        for ds in combinations(range(1, 10), nd):
            sets.append(_cells_mask(np.flatnonzero(np.isin(grid, ds))))
    if quick:
        return (np.array([s[0] for s in sets], dtype=np.uint64), np.array([s[1] for s in sets], dtype=np.uint64))
    pairs = [(0, 1), (0, 2), (1, 2)]
    for nd in ((5, 6) if six_digits else (5,)):
        for ds in combinations(range(1, 10), nd):
            sel = np.isin(grid, ds)
            for a, b in pairs:
                sets.append(_cells_mask(np.flatnonzero(sel & np.isin(rows // 3, (a, b)))))
                sets.append(_cells_mask(np.flatnonzero(sel & np.isin(cols // 3, (a, b)))))
    for b in range(3):
        sets.append(_cells_mask(np.flatnonzero(rows // 3 == b)))
        sets.append(_cells_mask(np.flatnonzero(cols // 3 == b)))
    lo = np.array([s[0] for s in sets], dtype=np.uint64)
    hi = np.array([s[1] for s in sets], dtype=np.uint64)
    if random_sets:
        rlo = np.empty(random_sets, dtype=np.uint64)
        rhi = np.empty(random_sets, dtype=np.uint64)
        _random_masks(seed_state(np.uint64(seed)), random_sets, 30, rlo, rhi)
        lo = np.concatenate([lo, rlo])
        hi = np.concatenate([hi, rhi])
    return lo, hi


def _unique_sorted(lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct masks, sorted by size then by cells (deterministic)."""
    keep = (lo != 0) | (hi != 0)
    lo, hi = lo[keep], hi[keep]
    pairs = np.unique(np.stack([hi, lo], axis=1), axis=0)
    hi, lo = pairs[:, 0].copy(), pairs[:, 1].copy()
    sizes = np.array([bin(int(a)).count("1") + bin(int(b)).count("1") for a, b in zip(lo, hi)], dtype=np.int64)
    order = np.lexsort((hi, lo, sizes))
    return np.ascontiguousarray(lo[order]), np.ascontiguousarray(hi[order])


class UASet:
    """Minimal UAs of a grid, sorted by size: ``lo``, ``hi`` (uint64[N])."""

    def __init__(self, grid: np.ndarray, lo: np.ndarray, hi: np.ndarray, seconds: float = 0.0):
        self.grid = np.ascontiguousarray(grid, dtype=np.uint8)
        self.lo = np.ascontiguousarray(lo, dtype=np.uint64)
        self.hi = np.ascontiguousarray(hi, dtype=np.uint64)
        self.seconds = seconds

    def __len__(self) -> int:
        return int(self.lo.shape[0])

    def sizes(self) -> np.ndarray:
        return np.array([mask_to_cells(a, b).size for a, b in zip(self.lo, self.hi)], dtype=np.int64)

    def masks(self) -> list[str]:
        return [mask_to_string(a, b) for a, b in zip(self.lo, self.hi)]

    def by_size(self) -> dict[int, int]:
        s = self.sizes()
        return {int(k): int((s == k).sum()) for k in np.unique(s)}


def harvest(grid, max_size: int = 12, seed: int = 1, random_sets: int = 200,
            cap_per_set: int = 20000, six_digits: bool = False, quick: bool = False) -> UASet:
    """Harvest minimal UAs of ``grid`` with at most ``max_size`` cells.

    Every UA returned is exactly minimal (each is shrunk by the solver, see
    :func:`minimize_ua_kernel`); the harvest is complete for UAs of at most 4
    digits, hence for sizes 4 and 6 (tests compare with brute force).
    """
    g = _as_grid(grid)
    t0 = time.perf_counter()
    elo, ehi = harvest_cell_sets(g, seed, random_sets, six_digits, quick)
    cap_out = 400_000
    out_lo = np.empty(cap_out, dtype=np.uint64)
    out_hi = np.empty(cap_out, dtype=np.uint64)
    n = harvest_kernel(g, elo, ehi, max_size, cap_per_set, out_lo, out_hi)
    lo, hi = _unique_sorted(out_lo[:n], out_hi[:n])
    mlo = np.empty_like(lo)
    mhi = np.empty_like(hi)
    minimize_all_kernel(g, lo, hi, mlo, mhi)
    lo, hi = _unique_sorted(mlo, mhi)
    return UASet(g, lo, hi, time.perf_counter() - t0)


# ------------------------------------------------------------ brute force
@njit(cache=True, nogil=True)
def brute_force_small_uas_kernel(grid, out_lo, out_hi):
    """All minimal UAs of size 4 and 6 by exhaustive search (test oracle).

    A UA meets each row, column and box it touches in 2+ cells, so a UA of
    size <= 6 lies in the cells of at most 3 rows x 3 columns: every 4- and
    6-subset of every 3x3 row/column cross is tested with the solver.
    Returns the count written (duplicates possible).
    """
    n = 0
    cells = np.empty(9, dtype=np.int64)
    sol = np.empty(81, dtype=np.uint8)
    for r0 in range(9):
        for r1 in range(r0 + 1, 9):
            for r2 in range(r1 + 1, 9):
                for c0 in range(9):
                    for c1 in range(c0 + 1, 9):
                        for c2 in range(c1 + 1, 9):
                            rs = (r0, r1, r2)
                            cl = (c0, c1, c2)
                            m = 0
                            for i in range(3):
                                for j in range(3):
                                    cells[m] = rs[i] * 9 + cl[j]
                                    m += 1
                            # subsets of 9 cells of size 4 or 6
                            for sub in range(1 << 9):
                                bits = 0
                                t = sub
                                while t:
                                    t &= t - 1
                                    bits += 1
                                if bits != 4 and bits != 6:
                                    continue
                                # every digit present at least twice, and per row/col/box >= 2 or 0
                                dcount = np.zeros(10, dtype=np.int64)
                                rcount = np.zeros(9, dtype=np.int64)
                                ccount = np.zeros(9, dtype=np.int64)
                                bcount = np.zeros(9, dtype=np.int64)
                                for q in range(9):
                                    if (sub >> q) & 1:
                                        c = cells[q]
                                        dcount[grid[c]] += 1
                                        rcount[c // 9] += 1
                                        ccount[c % 9] += 1
                                        bcount[(c // 27) * 3 + (c % 9) // 3] += 1
                                ok = True
                                for q in range(10):
                                    if dcount[q] == 1:
                                        ok = False
                                for q in range(9):
                                    if rcount[q] == 1 or ccount[q] == 1 or bcount[q] == 1:
                                        ok = False
                                if not ok:
                                    continue
                                lo = ZERO
                                hi = ZERO
                                for q in range(9):
                                    if (sub >> q) & 1:
                                        c = cells[q]
                                        if c < 64:
                                            lo |= ONE << _U(c)
                                        else:
                                            hi |= ONE << _U(c - 64)
                                if is_minimal_ua_kernel(grid, lo, hi):
                                    if n < out_lo.shape[0]:
                                        out_lo[n] = lo
                                        out_hi[n] = hi
                                        n += 1
    return n


def brute_force_small_uas(grid) -> UASet:
    g = _as_grid(grid)
    out_lo = np.empty(20000, dtype=np.uint64)
    out_hi = np.empty(20000, dtype=np.uint64)
    n = brute_force_small_uas_kernel(g, out_lo, out_hi)
    lo, hi = _unique_sorted(out_lo[:n], out_hi[:n])
    return UASet(g, lo, hi)


# ------------------------------------------------------------ disjoint UAs
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
        # bound by free cells: each further UA needs at least the smallest size
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
    k, exact = max_disjoint_kernel(uas.lo[:n], uas.hi[:n], best, node_limit)
    exact = bool(exact) and n == len(uas)
    return sorted(int(i) for i in best[:k]), exact


# ----------------------------------------------------------- UA pre-test
@njit(cache=True, nogil=True)
def misses_known_ua_kernel(clue_lo, clue_hi, lo, hi):
    for i in range(lo.shape[0]):
        if (lo[i] & clue_lo) == ZERO and (hi[i] & clue_hi) == ZERO:
            return True
    return False


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
        clo, chi = _mask_of_puzzle(np.ascontiguousarray(clue_mask, dtype=np.uint8).reshape(81))
    lo, hi = (uas.lo, uas.hi) if isinstance(uas, UASet) else uas
    return bool(misses_known_ua_kernel(_U(clo), _U(chi), lo, hi))


# ----------------------------------------------------------------- search
S_NODES, S_LEAVES, S_ADDED, S_FORWARD_PRUNES, S_PUZZLES, S_NONMINIMAL, S_OVERFLOW, S_FRONTIER = range(8)
N_STATS = 8
_GROUP_STARTS = 6
_TIE_CANDIDATES = 4
#: Branch cells are tried in decreasing order of the UAs they hit, a UA of size
#: s counting twice as much as one of size s + 1: a cell once tried is dead for
#: its later siblings, so trying the busiest cells first leaves the siblings
#: tightly constrained (on grid #40000 of puzzles2_17_clue: 95 M nodes -> 52 M).
_HIT_WEIGHT_BY_SIZE = np.array([1 << max(0, 16 - s) for s in range(90)], dtype=np.int64)


@njit(cache=True, nogil=True)
def _cells_of_mask(lo, hi, out):
    """Write the cells of the mask to ``out`` in increasing order; return how many."""
    k = 0
    while lo != ZERO:
        out[k] = lowest_index64(lo)
        lo &= lo - ONE
        k += 1
    while hi != ZERO:
        out[k] = 64 + lowest_index64(hi)
        hi &= hi - ONE
        k += 1
    return k


@njit(cache=True, nogil=True)
def _is_minimal_clues(grid, clo, chi, sol, cs, ds):
    puzzle = np.empty(81, dtype=np.uint8)
    dummy = np.empty(0, dtype=np.uint64)
    n_out = np.zeros(1, dtype=np.int64)
    for c in range(81):
        if _in_mask(clo, chi, c):
            if c < 64:
                a = clo & ~(ONE << _U(c))
                b = chi
            else:
                a = clo
                b = chi & ~(ONE << _U(c - 64))
            _puzzle_from_mask(grid, a, b, puzzle)
            if _other_solutions(puzzle, grid, 0, 1, 81, dummy, dummy, n_out, sol, cs, ds) == 0:
                return False
    return True


@njit(cache=True, nogil=True)
def search_kernel(grid, ua_lo, ua_hi, clue_lo0, clue_hi0, dead_lo0, dead_hi0, k, forward,
                  split_depth, cap, out_puz, front, stats):
    """Hitting-set search from one node (clues, dead cells) for minimal puzzles
    with at most ``k`` clues whose solution is ``grid``.

    ``forward``: use disjoint-group pruning (Properties 1-3 of seed 004).
    ``split_depth`` > 0: do not search below that many new clues; record the
    nodes reached there (and any earlier complete hitting set) in ``front``
    (rows: clue lo, clue hi, dead lo, dead hi) instead.  ``cap``: room per
    depth for UAs (harvested + found on the way).  Found puzzles go to
    ``out_puz`` (uint8[M, 81]); counters to ``stats`` (see S_*).
    """
    n_ua = ua_lo.shape[0]
    n0 = popcount64(clue_lo0) + popcount64(clue_hi0)
    maxd = max(k - n0, 0) + 2
    L_lo = np.empty((maxd, cap), dtype=np.uint64)
    L_hi = np.empty((maxd, cap), dtype=np.uint64)
    L_n = np.zeros(maxd, dtype=np.int64)
    cl_lo = np.zeros(maxd, dtype=np.uint64)
    cl_hi = np.zeros(maxd, dtype=np.uint64)
    de_lo = np.zeros(maxd, dtype=np.uint64)
    de_hi = np.zeros(maxd, dtype=np.uint64)
    branch_cells = np.zeros((maxd, 81), dtype=np.int64)   # per depth: the cells to try, in order
    n_branch = np.zeros(maxd, dtype=np.int64)
    next_branch = np.zeros(maxd, dtype=np.int64)
    cell_weight = np.zeros(81, dtype=np.int64)
    tr_lo = np.zeros(maxd, dtype=np.uint64)
    tr_hi = np.zeros(maxd, dtype=np.uint64)
    sizes = np.empty(cap, dtype=np.int64)
    order = np.empty(cap, dtype=np.int64)
    bucket = np.zeros(83, dtype=np.int64)
    sol = np.empty(81, dtype=np.uint8)
    puzzle = np.empty(81, dtype=np.uint8)
    cs = np.empty((82, 81), dtype=np.uint16)
    ds = np.empty((82, 81), dtype=np.uint8)
    dummy = np.empty(0, dtype=np.uint64)
    n_out = np.zeros(1, dtype=np.int64)

    # root list: unhit UAs reduced to their live (not dead) cells
    m = 0
    for i in range(n_ua):
        if (ua_lo[i] & clue_lo0) != ZERO or (ua_hi[i] & clue_hi0) != ZERO:
            continue
        a = ua_lo[i] & ~dead_lo0
        b = ua_hi[i] & ~dead_hi0
        if a == ZERO and b == ZERO:
            return
        if m < cap:
            L_lo[0, m] = a
            L_hi[0, m] = b
            m += 1
    L_n[0] = m
    cl_lo[0] = clue_lo0
    cl_hi[0] = clue_hi0
    de_lo[0] = dead_lo0
    de_hi[0] = dead_hi0
    d = 0
    need = True
    while True:
        if need:
            need = False
            stats[S_NODES] += 1
            n_branch[d] = 0
            next_branch[d] = 0
            tr_lo[d] = ZERO
            tr_hi[d] = ZERO
            nclues = n0 + d
            r = k - nclues
            while True:  # (re)evaluate this node; loops when a leaf exposes a new UA
                n = L_n[d]
                if n == 0:
                    if split_depth > 0:
                        f = stats[S_FRONTIER]
                        if f < front.shape[0]:
                            front[f, 0] = cl_lo[d]
                            front[f, 1] = cl_hi[d]
                            front[f, 2] = de_lo[d]
                            front[f, 3] = de_hi[d]
                        else:
                            stats[S_OVERFLOW] += 1
                        stats[S_FRONTIER] += 1
                        break
                    stats[S_LEAVES] += 1
                    _puzzle_from_mask(grid, cl_lo[d], cl_hi[d], puzzle)
                    if _other_solutions(puzzle, grid, 0, 1, 81, dummy, dummy, n_out, sol, cs, ds) == 0:
                        if _is_minimal_clues(grid, cl_lo[d], cl_hi[d], sol, cs, ds):
                            p = stats[S_PUZZLES]
                            if p < out_puz.shape[0]:
                                out_puz[p] = puzzle
                            else:
                                stats[S_OVERFLOW] += 1
                            stats[S_PUZZLES] += 1
                        else:
                            stats[S_NONMINIMAL] += 1
                        break
                    # not unique: the difference is a UA missed by all clues
                    ulo, uhi = _diff_mask(grid, sol)
                    stats[S_ADDED] += 1
                    for f in range(d):
                        a = ulo & ~de_lo[f]
                        b = uhi & ~de_hi[f]
                        if (a != ZERO or b != ZERO) and L_n[f] < cap:
                            L_lo[f, L_n[f]] = a
                            L_hi[f, L_n[f]] = b
                            L_n[f] += 1
                    a = ulo & ~de_lo[d]
                    b = uhi & ~de_hi[d]
                    if a == ZERO and b == ZERO:
                        break  # every cell of the new UA is dead here
                    L_lo[d, 0] = a
                    L_hi[d, 0] = b
                    L_n[d] = 1
                    continue
                if r <= 0:
                    break
                # live sizes; smallest first order (counting sort)
                for s in range(83):
                    bucket[s] = 0
                for i in range(n):
                    s = popcount64(L_lo[d, i]) + popcount64(L_hi[d, i])
                    sizes[i] = s
                    bucket[s + 1] += 1
                for s in range(1, 83):
                    bucket[s] += bucket[s - 1]
                for i in range(n):
                    s = sizes[i]
                    order[bucket[s]] = i
                    bucket[s] += 1
                if forward:
                    if r == 1:
                        # one clue left: it must lie in every unhit UA
                        a = FULL_LO
                        b = FULL_HI
                        for i in range(n):
                            a &= L_lo[d, i]
                            b &= L_hi[d, i]
                        if a == ZERO and b == ZERO:
                            stats[S_FORWARD_PRUNES] += 1
                            break
                        n_branch[d] = _cells_of_mask(a, b, branch_cells[d])
                        break
                    allow_lo = FULL_LO
                    allow_hi = FULL_HI
                    dead_branch = False
                    starts = min(_GROUP_STARTS, n)
                    for s0 in range(starts):
                        i0 = order[s0]
                        ulo = L_lo[d, i0]
                        uhi = L_hi[d, i0]
                        cnt = 1
                        for q in range(n):
                            j = order[q]
                            if (L_lo[d, j] & ulo) == ZERO and (L_hi[d, j] & uhi) == ZERO:
                                ulo |= L_lo[d, j]
                                uhi |= L_hi[d, j]
                                cnt += 1
                                if cnt > r:
                                    break
                        if cnt > r:  # Property 1
                            dead_branch = True
                            break
                        if cnt == r:  # Properties 2 and 3
                            allow_lo &= ulo
                            allow_hi &= uhi
                        elif cnt < r - 1:
                            break  # other starts rarely gain two UAs: not worth the scan
                    if dead_branch:
                        stats[S_FORWARD_PRUNES] += 1
                        break
                    if allow_lo != FULL_LO or allow_hi != FULL_HI:
                        # cells outside every critical group are dead in this subtree
                        empty = False
                        for i in range(n):
                            a = L_lo[d, i]
                            b = L_hi[d, i]
                            de_lo[d] |= a & ~allow_lo
                            de_hi[d] |= b & ~allow_hi
                            a &= allow_lo
                            b &= allow_hi
                            if a == ZERO and b == ZERO:
                                empty = True
                                break
                            L_lo[d, i] = a
                            L_hi[d, i] = b
                            sizes[i] = popcount64(a) + popcount64(b)
                        if empty:
                            stats[S_FORWARD_PRUNES] += 1
                            break
                best = 0
                for i in range(1, n):
                    if sizes[i] < sizes[best]:
                        best = i
                # of the first few smallest UAs, branch on the one overlapping the
                # other unhit UAs most (weighted as _HIT_WEIGHT_BY_SIZE): its cells,
                # once tried, constrain the siblings most (#40000: 52 M -> 42 M nodes)
                smallest = sizes[best]
                most = -1
                seen = 0
                for i0 in range(best, n):
                    if sizes[i0] != smallest:
                        continue
                    a0 = L_lo[d, i0]
                    b0 = L_hi[d, i0]
                    w = 0
                    for i in range(n):
                        if i != i0:
                            w += _HIT_WEIGHT_BY_SIZE[sizes[i]] * (popcount64(L_lo[d, i] & a0)
                                                                 + popcount64(L_hi[d, i] & b0))
                    if w > most:
                        most = w
                        best = i0
                    seen += 1
                    if seen == _TIE_CANDIDATES:
                        break
                # busiest cells first (see _HIT_WEIGHT_BY_SIZE)
                nb = _cells_of_mask(L_lo[d, best], L_hi[d, best], branch_cells[d])
                for q in range(nb):
                    cell = branch_cells[d, q]
                    h = 0
                    for i in range(n):
                        if _in_mask(L_lo[d, i], L_hi[d, i], cell):
                            h += _HIT_WEIGHT_BY_SIZE[sizes[i]]
                    j = q
                    while j > 0 and cell_weight[j - 1] < h:
                        cell_weight[j] = cell_weight[j - 1]
                        branch_cells[d, j] = branch_cells[d, j - 1]
                        j -= 1
                    cell_weight[j] = h
                    branch_cells[d, j] = cell
                n_branch[d] = nb
                break
        # take the next branch cell at depth d, or backtrack
        if next_branch[d] >= n_branch[d]:
            if d == 0:
                return
            d -= 1
            continue
        cell = branch_cells[d, next_branch[d]]
        next_branch[d] += 1
        if cell < 64:
            bit_lo = ONE << _U(cell)
            bit_hi = ZERO
        else:
            bit_lo = ZERO
            bit_hi = ONE << _U(cell - 64)
        c_lo = cl_lo[d] | bit_lo
        c_hi = cl_hi[d] | bit_hi
        dd_lo = de_lo[d] | tr_lo[d]
        dd_hi = de_hi[d] | tr_hi[d]
        tr_lo[d] |= bit_lo
        tr_hi[d] |= bit_hi
        # child list: drop UAs hit by the new clue, remove dead cells
        m = 0
        ok = True
        for i in range(L_n[d]):
            a = L_lo[d, i]
            b = L_hi[d, i]
            if (a & bit_lo) != ZERO or (b & bit_hi) != ZERO:
                continue
            a &= ~dd_lo
            b &= ~dd_hi
            if a == ZERO and b == ZERO:
                ok = False
                break
            L_lo[d + 1, m] = a
            L_hi[d + 1, m] = b
            m += 1
        if not ok:
            continue
        if split_depth > 0 and d + 1 == split_depth:
            f = stats[S_FRONTIER]
            if f < front.shape[0]:
                front[f, 0] = c_lo
                front[f, 1] = c_hi
                front[f, 2] = dd_lo
                front[f, 3] = dd_hi
            else:
                stats[S_OVERFLOW] += 1
            stats[S_FRONTIER] += 1
            continue
        d += 1
        L_n[d] = m
        cl_lo[d] = c_lo
        cl_hi[d] = c_hi
        de_lo[d] = dd_lo
        de_hi[d] = dd_hi
        need = True


# ------------------------------------------------------------- masks, text
def mask_to_cells(lo, hi) -> np.ndarray:
    lo, hi = int(lo), int(hi)
    cells = [c for c in range(64) if lo >> c & 1] + [64 + c for c in range(17) if hi >> c & 1]
    return np.array(cells, dtype=np.int64)


def mask_to_string(lo, hi, length: int = 81) -> str:
    s = ["."] * 81
    for c in mask_to_cells(lo, hi):
        s[c] = "1"
    return "".join(s[:length])


def mask_from_string(text: str) -> tuple[int, int]:
    """An 81-character mask ('1' or any digit/'x' = in the set, '.'/'0' = not);
    shorter masks (e.g. 54 characters for bands 1+2) are padded with '.'."""
    t = text.strip().split()[0] if text.strip() else ""
    if len(t) > 81:
        raise ValueError(f"a cell mask has at most 81 characters, got {len(t)}")
    cells = []
    for i, ch in enumerate(t):
        if ch in ".0-":
            continue
        if ch in "123456789xX#*":
            cells.append(i)
        else:
            raise ValueError(f"bad character {ch!r} in cell mask at position {i + 1}")
    return _cells_mask(cells)


def _as_grid(grid) -> np.ndarray:
    if isinstance(grid, str):
        from sudokustudio.sudoku.grid import parse_puzzle

        grid = parse_puzzle(grid)
    g = np.ascontiguousarray(grid, dtype=np.uint8).reshape(-1)
    if g.shape != (81,) or (g == 0).any():
        raise ValueError("a solution grid has 81 filled cells")
    from sudokustudio.sudoku.grid import is_valid_grid

    if not is_valid_grid(g):
        raise ValueError("not a valid solution grid (a digit repeats in a row, column or box)")
    return g


def read_grid(text_or_path: str) -> np.ndarray:
    """A solution grid from an 81-digit string or from the first line of a file.

    A puzzle (with empty cells) is replaced by its solution if it is unique.
    """
    from sudokustudio.sudoku.grid import parse_puzzle, read_puzzles
    from sudokustudio.sudoku.solver import solve_with_stats

    s = text_or_path.strip()
    if len(s) == 81 and all(ch in "0123456789." for ch in s):
        p = parse_puzzle(s)
    else:
        path = Path(s)
        if not path.exists():
            raise ValueError(f"expected an 81-digit grid or a file name; {s!r} is neither")
        coll = read_puzzles(path)
        if len(coll) == 0:
            raise ValueError(f"{s}: no puzzle or grid found")
        p = coll.puzzles[0]
    if (p == 0).any():
        n, sol, _ = solve_with_stats(p, 2)
        if n == 0:
            raise ValueError("the puzzle has no solution")
        if n > 1:
            raise ValueError("the puzzle has several solutions; give a full grid")
        p = sol
    return _as_grid(p)


# ----------------------------------------------------------------- the job
class UASearchJob(BatchJob):
    """Few-clue search as batches over the nodes ``split_depth`` clues below
    the root (after the forced clues).  spec: grid (81 digits), clues (k),
    force (81-char mask or ""), max_size, forward (bool), split_depth,
    nodes_per_batch."""

    kind = "ua_search"
    kernel_groups = ("ua",)

    def __init__(self, grid: str, clues: int, force: str = "", max_size: int = 12, forward: bool = True,
                 split_depth: int = 2, nodes_per_batch: int = 4, harvest_seed: int = 1):
        super().__init__(grid=grid, clues=clues, force=force, max_size=max_size, forward=forward,
                         split_depth=split_depth, nodes_per_batch=nodes_per_batch, harvest_seed=harvest_seed)
        if clues < 1 or clues > 40:
            raise ValueError(f"--clues must be between 1 and 40, got {clues}")
        self._prepared = None

    def __getstate__(self):
        st = dict(self.__dict__)
        return st

    def prepare(self, uas: "UASet | None" = None):
        """Harvest (unless given) and expand the first levels; idempotent."""
        if self._prepared is not None:
            return self._prepared
        g = _as_grid(self.spec["grid"])
        if uas is None:
            uas = harvest(g, self.spec["max_size"], seed=self.spec["harvest_seed"])
        flo, fhi = mask_from_string(self.spec["force"]) if self.spec["force"] else (0, 0)
        nforce = bin(flo).count("1") + bin(fhi).count("1")
        if nforce > self.spec["clues"]:
            raise ValueError(f"{nforce} forced cells but at most {self.spec['clues']} clues")
        split = max(0, min(self.spec["split_depth"], self.spec["clues"] - nforce))
        front = np.zeros((0, 4), dtype=np.uint64)
        stats = np.zeros(N_STATS, dtype=np.int64)
        if split > 0:
            cap_front = 200_000
            front = np.zeros((cap_front, 4), dtype=np.uint64)
            out = np.zeros((1, 81), dtype=np.uint8)
            search_kernel(g, uas.lo, uas.hi, _U(flo), _U(fhi), ZERO, ZERO, self.spec["clues"],
                          bool(self.spec["forward"]), split, len(uas) + 4096, out, front, stats)
            if stats[S_OVERFLOW]:
                raise ValueError("too many first-level nodes; lower split_depth")
            front = front[:stats[S_FRONTIER]].copy()
        else:
            front = np.array([[flo, fhi, 0, 0]], dtype=np.uint64)
        self._prepared = (g, uas, front, int(stats[S_NODES]))
        return self._prepared

    def n_batches(self) -> int:
        _, _, front, _ = self.prepare()
        per = self.spec["nodes_per_batch"]
        return max(1, (len(front) + per - 1) // per)

    def run_batch(self, batch_index: int, seed: int):
        g, uas, front, _ = self.prepare()
        per = self.spec["nodes_per_batch"]
        stats = np.zeros(N_STATS, dtype=np.int64)
        puzzles: list[str] = []
        cap = len(uas) + 4096
        out = np.zeros((1000, 81), dtype=np.uint8)
        dummy_front = np.zeros((0, 4), dtype=np.uint64)
        for row in front[batch_index * per:(batch_index + 1) * per]:
            s = np.zeros(N_STATS, dtype=np.int64)
            search_kernel(g, uas.lo, uas.hi, row[0], row[1], row[2], row[3], self.spec["clues"],
                          bool(self.spec["forward"]), 0, cap, out, dummy_front, s)
            for i in range(min(int(s[S_PUZZLES]), out.shape[0])):
                puzzles.append("".join(str(int(v)) if v else "." for v in out[i]))
            stats += s
        return {"puzzles": sorted(puzzles), "stats": stats, "nodes_done": len(front[batch_index * per:(batch_index + 1) * per])}

    def merge(self, a, b):
        return {"puzzles": sorted(a["puzzles"] + b["puzzles"]), "stats": a["stats"] + b["stats"],
                "nodes_done": a["nodes_done"] + b["nodes_done"]}

    def empty(self):
        return {"puzzles": [], "stats": np.zeros(N_STATS, dtype=np.int64), "nodes_done": 0}

    def warm_up(self) -> None:
        warm_up()

    def describe(self, total) -> dict:
        s = total["stats"]
        pre = self._prepared[3] if self._prepared else 0
        return {"puzzles": total["puzzles"], "nodes": int(s[S_NODES]) + pre, "leaves_checked": int(s[S_LEAVES]),
                "uas_added": int(s[S_ADDED]), "forward_prunes": int(s[S_FORWARD_PRUNES]),
                "nonminimal_unique": int(s[S_NONMINIMAL]), "overflow": int(s[S_OVERFLOW])}


class UAHarvestJob(BatchJob):
    """The harvest as a one-batch job, so a UI can run it off the GUI thread
    with the same runner as everything else.  Result: dict(lo, hi, groups,
    exact, seconds)."""

    kind = "ua_harvest"
    kernel_groups = ("ua",)

    def __init__(self, grid: str, max_size: int = 12, six_digits: bool = False):
        super().__init__(grid=grid, max_size=max_size, six_digits=six_digits)

    def run_batch(self, batch_index: int, seed: int):
        uas = harvest(self.spec["grid"], self.spec["max_size"], six_digits=self.spec["six_digits"])
        groups, exact = disjoint_groups(uas)
        return {"lo": uas.lo, "hi": uas.hi, "groups": groups, "exact": exact, "seconds": uas.seconds}

    def merge(self, a, b):
        return b if a is None else a

    def empty(self):
        return None


def search(grid, clues: int, force: str = "", *, uas: UASet | None = None, forward: bool = True,
           max_size: int = 12, split_depth: int = 0) -> dict:
    """Single-threaded search (tests, small cases): the describe() dict plus seconds."""
    g = _as_grid(grid)
    job = UASearchJob("".join(map(str, g)), clues, force, max_size, forward, split_depth, 1 << 30)
    t0 = time.perf_counter()
    job.prepare(uas)
    total = job.empty()
    for i in range(job.n_batches()):
        total = job.merge(total, job.run_batch(i, 0))
    out = job.describe(total)
    out["seconds"] = time.perf_counter() - t0
    return out


def warm_up() -> None:
    """Compile the UA kernels on a small input (see sudokustudio.warmup)."""
    from sudokustudio.sudoku.grids import random_grid

    g = random_grid(7)
    uas = harvest(g, 6, random_sets=2)
    greedy_disjoint_kernel(uas.lo, uas.hi, np.empty(len(uas), dtype=np.int64))
    disjoint_groups(uas, node_limit=1000)
    misses_known_ua(np.zeros(81, dtype=np.uint8), uas)
    is_minimal_ua_kernel(g, uas.lo[0], uas.hi[0])
    job = UASearchJob("".join(map(str, g)), 3, "", 6, True, 1, 4)
    job.prepare(uas)
    job.run_batch(0, 0)
