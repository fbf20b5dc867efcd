"""The UA harvest: every minimal unavoidable set (UA) of a grid up to a size.

A UA is a set of cells whose digits can be rearranged into another valid
grid (equivalently: emptying those cells leaves 2+ solutions); every puzzle
whose solution is the grid has a clue in every UA.  The harvest empties
many cell sets of the grid (digit sets, bands, random sets), collects the
difference to every other solution (``generic.search_g``) and shrinks each
to a minimal UA inside it (one "another solution?" question per cell: the
project solver's ``other_solution_kernel``).  Sets are ``core.cellset`` pairs; a collection is
parallel ``lo``/``hi`` arrays.
"""
from __future__ import annotations

import time
from itertools import combinations

import numpy as np
from numba import njit

from sudokustudio.core.batch import check_cancelled
from sudokustudio.core.bits import popcount64
from sudokustudio.core.cellset import (FULL_HI81, ZERO, add_cell, diff_set, has_cell, restrict,
                                      sets_of_masks, sizes_of)
from sudokustudio.core.rng import rand_below, seed_state
from sudokustudio.sudoku.generic import search_g
from sudokustudio.sudoku.solver import other_solution_kernel as solver_other_solution
from sudokustudio.sudoku.tables import BOX, COL, ROW, geometry
from sudokustudio.sudoku.unavoidable.formats import as_grid, masks_to_strings


@njit(cache=True, nogil=True)
def other_solution_kernel(grid, peers, units, clue_lo, clue_hi, sol):
    """1 and another solution in ``sol`` if the clues (grid restricted to the
    set) do not determine the grid, else 0 (the project solver; ``peers`` and
    ``units`` are not needed for 9x9 and kept for the callers' signature)."""
    puzzle = np.empty(81, dtype=np.uint8)
    restrict(grid, clue_lo, clue_hi, puzzle)
    return solver_other_solution(puzzle, grid, sol)


def other_solution(grid, clue_lo, clue_hi, sol) -> bool:
    """True, and another solution in ``sol``, if the grid's digits on the cell
    set (``core.cellset`` words) do not determine it."""
    _, peers, units = geometry(3, 3)
    return bool(other_solution_kernel(grid, peers, units, np.uint64(clue_lo), np.uint64(clue_hi), sol))


@njit(cache=True, nogil=True)
def minimize_ua_kernel(grid, peers, units, lo, hi):
    """Shrink an unavoidable set to a minimal one inside it (exact).

    A set U is a minimal UA iff for every cell c of U the grid with U minus c
    emptied is unique; when it is not, the other solution's difference (a UA
    inside U minus c) replaces U.  Returns (lo, hi); (0, 0) if U was not
    unavoidable at all.
    """
    sol = np.empty(81, dtype=np.uint8)
    # first make sure U itself is unavoidable (and replace it by its difference)
    if not other_solution_kernel(grid, peers, units, ~lo, ~hi & FULL_HI81, sol):
        return ZERO, ZERO
    lo, hi = diff_set(grid, sol)
    changed = True
    while changed:
        changed = False
        for c in range(81):
            if not has_cell(lo, hi, c):
                continue
            # clues: everything outside U, plus c
            clo, chi = add_cell(~lo, ~hi & FULL_HI81, c)
            if other_solution_kernel(grid, peers, units, clo, chi, sol):
                lo, hi = diff_set(grid, sol)
                changed = True
                break
    return lo, hi


@njit(cache=True, nogil=True)
def is_minimal_ua_kernel(grid, peers, units, lo, hi):
    """Unavoidable (emptying the set leaves 2+ solutions), and no proper subset
    is (checked cell by cell, exact)."""
    sol = np.empty(81, dtype=np.uint8)
    if not other_solution_kernel(grid, peers, units, ~lo, ~hi & FULL_HI81, sol):
        return False
    for c in range(81):
        if has_cell(lo, hi, c):
            clo, chi = add_cell(~lo, ~hi & FULL_HI81, c)
            if other_solution_kernel(grid, peers, units, clo, chi, sol):
                return False
    return True


#: templates kept per digit by ``refillings_kernel`` (past it: the general search)
MAX_TEMPLATES = 4096


@njit(cache=True, nogil=True)
def _digit_templates(grid, e_lo, e_hi, d, t_lo, t_hi, rows, cells):
    """The places digit ``d`` can take in the emptied cells E of ``grid``: one cell
    of E in each row that lost its d, in distinct columns and boxes that lost
    theirs (every refilling of E puts each digit on such a template).  Writes
    them to t_lo/t_hi; returns how many, or -1 past their room."""
    need_r = 0
    need_c = 0
    need_b = 0
    n_rows = 0
    for c in range(81):
        if grid[c] == d and has_cell(e_lo, e_hi, c):
            need_r |= 1 << ROW[c]
            need_c |= 1 << COL[c]
            need_b |= 1 << BOX[c]
            rows[n_rows] = ROW[c]
            n_rows += 1
    if n_rows == 0:
        return 0
    # candidate cells of each needed row, then a depth-first walk over the rows
    n_cand = np.zeros(9, dtype=np.int64)
    for c in range(81):
        if has_cell(e_lo, e_hi, c) and (need_r >> ROW[c]) & 1 and (need_c >> COL[c]) & 1 \
                and (need_b >> BOX[c]) & 1:
            r = ROW[c]
            cells[r, n_cand[r]] = c
            n_cand[r] += 1
    pick = np.zeros(9, dtype=np.int64)
    used_c = np.zeros(10, dtype=np.int64)
    used_b = np.zeros(10, dtype=np.int64)
    n = 0
    k = 0
    pick[0] = -1
    while k >= 0:
        r = rows[k]
        pick[k] += 1
        while pick[k] < n_cand[r]:
            c = cells[r, pick[k]]
            if not ((used_c[k] >> COL[c]) & 1 or (used_b[k] >> BOX[c]) & 1):
                break
            pick[k] += 1
        if pick[k] >= n_cand[r]:
            k -= 1
            continue
        c = cells[r, pick[k]]
        used_c[k + 1] = used_c[k] | (1 << COL[c])
        used_b[k + 1] = used_b[k] | (1 << BOX[c])
        if k + 1 < n_rows:
            k += 1
            pick[k] = -1
            continue
        if n >= t_lo.shape[0]:
            return -1
        lo = ZERO
        hi = ZERO
        for j in range(n_rows):
            lo, hi = add_cell(lo, hi, cells[rows[j], pick[j]])
        t_lo[n] = lo
        t_hi[n] = hi
        n += 1
    return n


@njit(cache=True, nogil=True)
def refillings_kernel(grid, e_lo, e_hi, cap, max_size, out_lo, out_hi, n_out, t_lo, t_hi):
    """The other solutions of ``grid`` with the cells E emptied whose difference
    set has at most ``max_size`` cells, as :func:`generic.search_g` gives them
    to the harvest (each difference set appended to out_lo/out_hi while there
    is room; counting stops at ``cap``), found digit by digit: a refilling is a
    choice of one template per digit (``_digit_templates``), pairwise disjoint.
    The cells the digits move to are disjoint, so a partial choice that already
    moves more than ``max_size`` cells is dropped with its whole subtree (the
    harvest's four-digit sets over the whole grid have ~2,400 refillings each,
    nearly all far over 12 cells).  Returns how many there are, or -1 when a
    digit has more templates than ``t_lo``/``t_hi`` (uint64[10, MAX_TEMPLATES]
    work space) hold: then nothing is written."""
    n_t = np.zeros(10, dtype=np.int64)
    rows = np.empty(9, dtype=np.int64)
    cells = np.empty((9, 9), dtype=np.int64)
    digits = np.empty(9, dtype=np.int64)
    # each digit's own cells in E: a template's cells outside them are the cells it moves to
    own_lo = np.zeros(10, dtype=np.uint64)
    own_hi = np.zeros(10, dtype=np.uint64)
    for c in range(81):
        if has_cell(e_lo, e_hi, c):
            own_lo[grid[c]], own_hi[grid[c]] = add_cell(own_lo[grid[c]], own_hi[grid[c]], c)
    n_d = 0
    for d in range(1, 10):
        n = _digit_templates(grid, e_lo, e_hi, d, t_lo[d], t_hi[d], rows, cells)
        if n < 0:
            return -1
        n_t[d] = n
        if n:
            digits[n_d] = d
            n_d += 1
    if n_d == 0:
        return 0
    # fewest templates first: the cover's tree is narrowest at the top
    for i in range(1, n_d):
        j = i
        while j > 0 and n_t[digits[j]] < n_t[digits[j - 1]]:
            digits[j], digits[j - 1] = digits[j - 1], digits[j]
            j -= 1
    pick = np.zeros(9, dtype=np.int64)
    used_lo = np.zeros(10, dtype=np.uint64)
    used_hi = np.zeros(10, dtype=np.uint64)
    moved_lo = np.zeros(10, dtype=np.uint64)   # the cells whose digit the choice so far changed
    moved_hi = np.zeros(10, dtype=np.uint64)
    moved = np.zeros(10, dtype=np.int64)
    count = 0
    k = 0
    pick[0] = -1
    while k >= 0:
        d = digits[k]
        pick[k] += 1
        while pick[k] < n_t[d]:
            a = t_lo[d, pick[k]]
            b = t_hi[d, pick[k]]
            if (a & used_lo[k]) == ZERO and (b & used_hi[k]) == ZERO and \
                    moved[k] + popcount64(a & ~own_lo[d]) + popcount64(b & ~own_hi[d]) <= max_size:
                break
            pick[k] += 1
        if pick[k] >= n_t[d]:
            k -= 1
            continue
        a = t_lo[d, pick[k]]
        b = t_hi[d, pick[k]]
        used_lo[k + 1] = used_lo[k] | a
        used_hi[k + 1] = used_hi[k] | b
        moved_lo[k + 1] = moved_lo[k] | (a & ~own_lo[d])
        moved_hi[k + 1] = moved_hi[k] | (b & ~own_hi[d])
        moved[k + 1] = moved[k] + popcount64(a & ~own_lo[d]) + popcount64(b & ~own_hi[d])
        if k + 1 < n_d:
            k += 1
            pick[k] = -1
            continue
        # a refilling of at most max_size changed cells
        if moved[n_d] == 0:
            continue    # the grid itself
        count += 1
        if n_out[0] < out_lo.shape[0]:
            out_lo[n_out[0]] = moved_lo[n_d]
            out_hi[n_out[0]] = moved_hi[n_d]
            n_out[0] += 1
        if count >= cap:
            return count
    return count


@njit(cache=True, nogil=True)
def harvest_kernel(grid, peers, units, empties_lo, empties_hi, max_size, cap, out_lo, out_hi):
    """For each emptied cell set, collect the difference sets (<= max_size
    cells) of all other solutions (at most ``cap`` per set).  Returns the
    number written (duplicates and non-minimal ones included).  Sets are
    refilled digit by digit (``refillings_kernel``, ~20x faster on the digit
    sets than the general search, which takes the rare set it cannot)."""
    puzzle = np.empty(81, dtype=np.uint8)
    sol = np.empty(81, dtype=np.uint8)
    n_out = np.zeros(1, dtype=np.int64)
    t_lo = np.empty((10, MAX_TEMPLATES), dtype=np.uint64)
    t_hi = np.empty((10, MAX_TEMPLATES), dtype=np.uint64)
    for i in range(empties_lo.shape[0]):
        if refillings_kernel(grid, empties_lo[i], empties_hi[i] & FULL_HI81, cap, max_size, out_lo, out_hi,
                             n_out, t_lo, t_hi) < 0:
            restrict(grid, ~empties_lo[i], ~empties_hi[i] & FULL_HI81, puzzle)
            search_g(puzzle, peers, units, cap, grid, sol, out_lo, out_hi, n_out, max_size)
        if n_out[0] >= out_lo.shape[0]:
            break
    return n_out[0]


@njit(cache=True, nogil=True)
def minimize_all_kernel(grid, peers, units, lo, hi, out_lo, out_hi):
    for i in range(lo.shape[0]):
        a, b = minimize_ua_kernel(grid, peers, units, lo[i], hi[i])
        out_lo[i] = a
        out_hi[i] = b


@njit(cache=True, nogil=True)
def _random_sets(rng, n, size, out_lo, out_hi):
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
            lo, hi = add_cell(lo, hi, cells[j])
        out_lo[i] = lo
        out_hi[i] = hi


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
    digit = np.asarray(grid)[None, :] == np.arange(1, 10)[:, None]          # (9, 81): the cells of each digit

    def digit_sets(nd: int) -> np.ndarray:   # (K, 81): the cells of each set of nd digits, in combinations' order
        return digit[np.array(list(combinations(range(9), nd)))].any(axis=1)

    masks = [digit_sets(nd) for nd in ((2, 3) if quick else (2, 3, 4))]
    if not quick:
        # two bands or two stacks of each 5- (and 6-) digit set, then each band and each stack
        two = np.array([[np.isin(ROW // 3, pair), np.isin(COL // 3, pair)] for pair in ((0, 1), (0, 2), (1, 2))])
        for nd in ((5, 6) if six_digits else (5,)):
            masks.append((digit_sets(nd)[:, None, None, :] & two[None]).reshape(-1, 81))
        masks.append(np.array([[ROW // 3 == b, COL // 3 == b] for b in range(3)]).reshape(-1, 81))
    lo, hi = sets_of_masks(np.concatenate(masks))
    if quick:
        return lo, hi
    if random_sets:
        rlo = np.empty(random_sets, dtype=np.uint64)
        rhi = np.empty(random_sets, dtype=np.uint64)
        _random_sets(seed_state(np.uint64(seed)), random_sets, 30, rlo, rhi)
        lo = np.concatenate([lo, rlo])
        hi = np.concatenate([hi, rhi])
    return lo, hi


def unique_sorted(lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct non-empty sets, sorted by size then by cells (deterministic)."""
    keep = (lo != 0) | (hi != 0)
    lo, hi = lo[keep], hi[keep]
    pairs = np.unique(np.stack([hi, lo], axis=1), axis=0)
    hi, lo = pairs[:, 0].copy(), pairs[:, 1].copy()
    sizes = sizes_of(lo, hi)
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
        return sizes_of(self.lo, self.hi)

    def masks(self) -> list[str]:
        return masks_to_strings(self.lo, self.hi)

    def by_size(self) -> dict[int, int]:
        s = self.sizes()
        return {int(k): int((s == k).sum()) for k in np.unique(s)}


_CHUNK = 16   # cell sets per harvest_kernel call


def harvest(grid, max_size: int = 12, seed: int = 1, random_sets: int = 200,
            cap_per_set: int = 20000, six_digits: bool = False, quick: bool = False) -> UASet:
    """Harvest minimal UAs of ``grid`` with at most ``max_size`` cells.

    Every UA returned is exactly minimal (each is shrunk by the solver, see
    :func:`minimize_ua_kernel`); the harvest is complete for UAs of at most 4
    digits, hence for sizes 4 and 6 (tests compare with brute force).
    """
    g = as_grid(grid)
    _, peers, units = geometry(3, 3)
    t0 = time.perf_counter()
    elo, ehi = harvest_cell_sets(g, seed, random_sets, six_digits, quick)
    cap_out = 400_000
    out_lo = np.empty(cap_out, dtype=np.uint64)
    out_hi = np.empty(cap_out, dtype=np.uint64)
    # in chunks, with the batch's cancel flag checked between them (a run's stop acts within ~0.1 s)
    n = 0
    for i in range(0, len(elo), _CHUNK):
        check_cancelled()
        if n >= cap_out:
            break
        n += harvest_kernel(g, peers, units, elo[i:i + _CHUNK], ehi[i:i + _CHUNK], int(max_size),
                            int(cap_per_set), out_lo[n:], out_hi[n:])
    lo, hi = unique_sorted(out_lo[:n], out_hi[:n])
    mlo = np.empty_like(lo)
    mhi = np.empty_like(hi)
    for i in range(0, len(lo), 16 * _CHUNK):
        check_cancelled()
        minimize_all_kernel(g, peers, units, lo[i:i + 16 * _CHUNK], hi[i:i + 16 * _CHUNK],
                            mlo[i:i + 16 * _CHUNK], mhi[i:i + 16 * _CHUNK])
    lo, hi = unique_sorted(mlo, mhi)
    return UASet(g, lo, hi, time.perf_counter() - t0)


# ------------------------------------------------------------ brute force
@njit(cache=True, nogil=True)
def _small_ua_candidate(grid, cells, sub):
    """The 4- or 6-subset ``sub`` (bits over ``cells``) as a set, if every digit,
    row, column and box it touches it touches twice; else (0, 0)."""
    dcount = np.zeros(10, dtype=np.int64)
    rcount = np.zeros(9, dtype=np.int64)
    ccount = np.zeros(9, dtype=np.int64)
    bcount = np.zeros(9, dtype=np.int64)
    lo = ZERO
    hi = ZERO
    for q in range(9):
        if (sub >> q) & 1:
            c = cells[q]
            dcount[grid[c]] += 1
            rcount[c // 9] += 1
            ccount[c % 9] += 1
            bcount[(c // 27) * 3 + (c % 9) // 3] += 1
            lo, hi = add_cell(lo, hi, c)
    for q in range(10):
        if dcount[q] == 1:
            return ZERO, ZERO
    for q in range(9):
        if rcount[q] == 1 or ccount[q] == 1 or bcount[q] == 1:
            return ZERO, ZERO
    return lo, hi


@njit(cache=True, nogil=True)
def brute_force_small_uas_kernel(grid, peers, units, out_lo, out_hi):
    """All minimal UAs of size 4 and 6 by exhaustive search (test oracle).

    A UA meets each row, column and box it touches in 2+ cells, so a UA of
    size <= 6 lies in the cells of at most 3 rows x 3 columns: every 4- and
    6-subset of every 3x3 row/column cross is tested with the solver.
    Returns the count written (duplicates possible).
    """
    n = 0
    cells = np.empty(9, dtype=np.int64)
    for r0 in range(9):
        for r1 in range(r0 + 1, 9):
            for r2 in range(r1 + 1, 9):
                for c0 in range(9):
                    for c1 in range(c0 + 1, 9):
                        for c2 in range(c1 + 1, 9):
                            rs = (r0, r1, r2)
                            cl = (c0, c1, c2)
                            for i in range(3):
                                for j in range(3):
                                    cells[3 * i + j] = rs[i] * 9 + cl[j]
                            for sub in range(1 << 9):
                                bits = 0
                                t = sub
                                while t:
                                    t &= t - 1
                                    bits += 1
                                if bits != 4 and bits != 6:
                                    continue
                                lo, hi = _small_ua_candidate(grid, cells, sub)
                                if (lo != ZERO or hi != ZERO) and is_minimal_ua_kernel(grid, peers, units, lo, hi):
                                    if n < out_lo.shape[0]:
                                        out_lo[n] = lo
                                        out_hi[n] = hi
                                        n += 1
    return n


def brute_force_small_uas(grid) -> UASet:
    g = as_grid(grid)
    _, peers, units = geometry(3, 3)
    out_lo = np.empty(20000, dtype=np.uint64)
    out_hi = np.empty(20000, dtype=np.uint64)
    n = brute_force_small_uas_kernel(g, peers, units, out_lo, out_hi)
    lo, hi = unique_sorted(out_lo[:n], out_hi[:n])
    return UASet(g, lo, hi)


def is_minimal_ua(grid, lo, hi) -> bool:
    """Is the cell set a minimal UA of the grid?"""
    _, peers, units = geometry(3, 3)
    return bool(is_minimal_ua_kernel(as_grid(grid), peers, units, np.uint64(lo), np.uint64(hi)))
