"""Minimal-puzzle generators of seed 002 as numba kernels.

- top-down (suexg, seed 002 §1.1): delete the clues of a random grid in
  random order, keeping each deletion that leaves the solution unique.
- bottom-up (Metcalf, §1.1): add random consistent clues until the puzzle is
  unique (dropping one that leaves no solution), then remove redundant clues
  in random order.
- controlled-bias (§2.1): delete random clues; abandon the grid at the first
  multi-solution puzzle; output the first minimal puzzle reached.  Its bias is
  known: Pr(n+1)/Pr(n) = (n+1)/(81-n), corrected by cf(n) (``correction``).

Every uniqueness check of a clue set of the grid asks the solver core for a
solution other than the grid (``solver.other_solution_differing_in``, in one
solver work space a kernel call; after deleting one clue of a unique puzzle, a
solution differing at that cell); bottom-up counts solutions until its puzzle
is unique, then has its grid.

Speed in the controlled-bias path: the path is a random order of the 81
cells; the puzzle after k deletions is the grid minus the first k cells.
Uniqueness is monotone along a path, so instead of testing every step we
(1) reject at once when the first ``blind`` deletions remove a whole known
unavoidable set (UA) of the grid, (2) test the (81-blind)-clue puzzle,
(3) binary-search the first non-unique step (UAs answer many probes; a
second solution found moves the upper end to the step that deletes the last
cell where it differs from the grid), and
(4) test minimality only for the one puzzle just before it, which is the only
candidate on the path (every earlier one has a unique one-clue-smaller
successor).  UAs with one clue left certify that clue as necessary.  Only the
set of the first ``blind`` deletions matters, not their order, so a path draws
just the 81 - blind clues kept, in order (``shuffle_tail``).
With the "pool" source the path runs on the pool grid itself and only the
output puzzle is mapped through a random isomorph: isomorphs preserve
uniqueness and minimality and the deletion order is uniform, so this is the
same distribution as running on the isomorph.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from sudokustudio.core.cellset import FULL_HI81, FULL_LO, ZERO, add_cell, cell_set, clue_set, has_cell, remove_cell
from sudokustudio.core.rng import rand_below, shuffle_inplace, shuffle_tail
from sudokustudio.sudoku.cheap_uas import grid_uas_kernel, two_digit_uas_kernel
from sudokustudio.sudoku.grid import random_isomorph_kernel
from sudokustudio.sudoku.grids import pairswap_grid_kernel, random_grid_kernel
from sudokustudio.sudoku.minimal import all_clues_needed, fixed_oracle
from sudokustudio.sudoku.solver import NO_CELL, new_search_workspace, other_solution_differing_in, solve_kernel
from sudokustudio.sudoku.tables import PEERS

SOURCE_CODES = {"solver": 0, "pairswap": 1, "pool": 2}
#: room for the known UAs of a grid (two- and three-digit ones)
MAX_UA = 512
_TWO = np.int64(2)     # numpy scalars, not literals: one compiled signature per callee
_NINE = np.int64(9)
_CELLS = np.int64(81)


@njit(cache=True, nogil=True)
def _deleted_ua(ua_lo, ua_hi, n_ua, del_lo, del_hi):
    """Index of the first UA inside the deleted cells (the puzzle is not unique), or -1."""
    for i in range(n_ua):
        if (ua_lo[i] & ~del_lo) == ZERO and (ua_hi[i] & ~del_hi) == ZERO:
            return i
    return -1


@njit(cache=True, nogil=True)
def _ua_fully_deleted(ua_lo, ua_hi, n_ua, del_lo, del_hi):
    """True when some UA lies inside the deleted cells (the puzzle is not unique)."""
    return _deleted_ua(ua_lo, ua_hi, n_ua, del_lo, del_hi) >= 0


@njit(cache=True, nogil=True)
def _swapped_grid(grid, ua_lo, ua_hi, out):
    """out := the grid with the two digits of a two-digit UA swapped on its cells (the
    other grid the UA stands for)."""
    a = 0
    b = 0
    for c in range(81):
        out[c] = grid[c]
        if has_cell(ua_lo, ua_hi, c):
            if a == 0:
                a = grid[c]
            elif grid[c] != a:
                b = grid[c]
    for c in range(81):
        if has_cell(ua_lo, ua_hi, c):
            out[c] = a + b - grid[c]


@njit(cache=True, nogil=True)
def _forced_by_peers(puzzle, cell, digit):
    """True when the other 8 digits all sit in the peers of ``cell`` (naked single)."""
    seen = 0
    for k in range(20):
        d = puzzle[PEERS[cell, k]]
        if d:
            seen |= 1 << (d - 1)
    return seen | (1 << (digit - 1)) == 0x1FF


@njit(cache=True, nogil=True)
def _grid_and_uas(rng, source, pool, pool_lo, pool_hi, pool_n, grid, lo, hi):
    """Next grid of the source and its known UAs: (how many, their lo and hi arrays).

    For the pool source the pool grid itself is returned (see module doc), and its
    UAs are the pool's rows (not copied: ~400 of them, and most paths read a few)."""
    if source == 2:
        k = rand_below(rng, pool.shape[0])
        grid[:] = pool[k]
        return pool_n[k], pool_lo[k], pool_hi[k]
    if source == 1:
        pairswap_grid_kernel(rng, grid)
    else:
        random_grid_kernel(rng, grid)
    return two_digit_uas_kernel(grid, lo, hi, lo.shape[0]), lo, hi


@njit(cache=True, nogil=True)
def _finish_output(rng, source, puzzle, out):
    if source == 2:
        random_isomorph_kernel(puzzle, rng, out)
    else:
        out[:] = puzzle


# ---------------------------------------------------------------- top-down
@njit(cache=True, nogil=True)
def top_down_kernel(rng, source, pool, pool_lo, pool_hi, pool_n, out, certs):
    """Fill ``out`` (uint8[N, 81]) with top-down minimal puzzles.  Returns solver calls.

    Every clue left was kept because deleting it left another solution, from a
    two-digit UA or the solver: that grid goes to ``certs[i, c]`` (uint8[N, 81, 81],
    or no rows: not kept; nor for the pool source, whose outputs are isomorphs), the
    certificate ``minimal.certifies`` checks."""
    grid = np.zeros(81, dtype=np.uint8)
    lo = np.zeros(MAX_UA, dtype=np.uint64)
    hi = np.zeros(MAX_UA, dtype=np.uint64)
    order = np.arange(81, dtype=np.int64)
    puzzle = np.zeros(81, dtype=np.uint8)
    other = np.zeros(81, dtype=np.uint8)
    workspace = new_search_workspace()
    calls = 0
    for i in range(out.shape[0]):
        n_ua, ua_lo, ua_hi = _grid_and_uas(rng, source, pool, pool_lo, pool_hi, pool_n, grid, lo, hi)
        puzzle[:] = grid
        shuffle_inplace(rng, order)
        del_lo = ZERO
        del_hi = ZERO
        for k in range(81):
            c = order[k]
            d = puzzle[c]
            puzzle[c] = 0
            t_lo, t_hi = add_cell(del_lo, del_hi, c)
            certify = i < certs.shape[0] and source != 2
            if _forced_by_peers(puzzle, c, d):
                keep_deleted = True
            else:
                u = _deleted_ua(ua_lo, ua_hi, n_ua, t_lo, t_hi)
                if u >= 0:
                    keep_deleted = False
                    if certify:
                        _swapped_grid(grid, ua_lo[u], ua_hi[u], certs[i, c])
                else:
                    calls += 1   # the puzzle was unique: another solution differs at c
                    keep_deleted = other_solution_differing_in(puzzle, grid, c, other, workspace) == 0
                    if not keep_deleted and certify:
                        certs[i, c] = other
            if keep_deleted:
                del_lo, del_hi = t_lo, t_hi
            else:
                puzzle[c] = d
        _finish_output(rng, source, puzzle, out[i])
    return calls


# ---------------------------------------------------------------- bottom-up
@njit(cache=True, nogil=True)
def _add_random_clue(rng, puzzle):
    """Put a random digit on a random empty cell, drawing (cell, digit) pairs
    uniformly and rejecting those that repeat a digit of a peer (Metcalf's
    "random values at random locations consistent with the basic
    constraints").  Returns the cell."""
    while True:
        c = rand_below(rng, _CELLS)
        if puzzle[c]:
            continue
        d = rand_below(rng, _NINE) + 1
        ok = True
        for k in range(20):
            if puzzle[PEERS[c, k]] == d:
                ok = False
                break
        if ok:
            puzzle[c] = d
            return c


@njit(cache=True, nogil=True)
def bottom_up_kernel(rng, out, start_clues, certs):
    """Fill ``out`` with bottom-up (Metcalf) minimal puzzles.  Returns solver calls.
    ``certs`` as for :func:`top_down_kernel` (the other solutions found in step 9)."""
    puzzle = np.zeros(81, dtype=np.uint8)
    solutions = np.zeros(162, dtype=np.uint8)   # the first two solutions of the last count
    solution = np.zeros(81, dtype=np.uint8)
    other = np.zeros(81, dtype=np.uint8)
    ua_lo = np.zeros(MAX_UA, dtype=np.uint64)
    ua_hi = np.zeros(MAX_UA, dtype=np.uint64)
    order = np.arange(81, dtype=np.int64)
    workspace = new_search_workspace()
    calls = 0
    for i in range(out.shape[0]):
        while True:
            # 1) start_clues random clues consistent with the rules
            puzzle[:] = 0
            for _ in range(start_clues):
                _add_random_clue(rng, puzzle)
            calls += 1
            n, _ = solve_kernel(puzzle, _TWO, solutions)
            if n == 0:
                continue          # 3) no solution: start again
            # 5)-8) add clues until unique, dropping one that kills every solution; a
            # clue that both known solutions have leaves several (no count needed)
            while n > 1:
                c = _add_random_clue(rng, puzzle)
                if puzzle[c] == solutions[c] and puzzle[c] == solutions[81 + c]:
                    continue
                calls += 1
                n, _ = solve_kernel(puzzle, _TWO, solutions)
                if n == 0:        # (the two solutions of the puzzle without c stay)
                    puzzle[c] = 0
                    n = 2
            break
        # 9) visit the clues in random order; remove the redundant ones.  The puzzle is
        # unique (its solution is ``solutions[:81]``), so without c it has another
        # solution exactly when one differs from it at c, or when it misses a two-digit
        # UA of the solution (c alone in it: ~40% of the clues left)
        solution[:] = solutions[:81]
        n_ua = two_digit_uas_kernel(solution, ua_lo, ua_hi, ua_lo.shape[0])
        c_lo, c_hi = clue_set(puzzle)
        shuffle_inplace(rng, order)
        for k in range(81):
            c = order[k]
            d = puzzle[c]
            if d == 0:
                continue
            puzzle[c] = 0
            t_lo, t_hi = remove_cell(c_lo, c_hi, c)
            if _forced_by_peers(puzzle, c, d):
                c_lo, c_hi = t_lo, t_hi
                continue
            u = _deleted_ua(ua_lo, ua_hi, n_ua, ~t_lo, ~t_hi)
            if u >= 0:
                puzzle[c] = d
                if i < certs.shape[0]:
                    _swapped_grid(solution, ua_lo[u], ua_hi[u], certs[i, c])
                continue
            calls += 1
            if other_solution_differing_in(puzzle, solution, c, other, workspace) != 0:
                puzzle[c] = d
                if i < certs.shape[0]:
                    certs[i, c] = other
            else:
                c_lo, c_hi = t_lo, t_hi
        out[i] = puzzle
    return calls


# ---------------------------------------------------------------- controlled-bias
@njit(cache=True, nogil=True)
def _deleted_set(order, k):
    lo = ZERO
    hi = ZERO
    for j in range(k):
        lo, hi = add_cell(lo, hi, order[j])
    return lo, hi


@njit(cache=True, nogil=True)
def _puzzle_after(grid, order, k, puzzle):
    puzzle[:] = grid
    for j in range(k):
        puzzle[order[j]] = 0


@njit(cache=True, nogil=True)
def last_unique_step(grid, order, blind, ua_lo, ua_hi, n_ua, puzzle, other, position):
    """The path's last unique step: the largest k in blind..64 whose puzzle (the grid
    minus the cells ``order[:k]``) is unique, or -1 when the ``blind`` step is not
    unique; and the solver calls it took.  ``puzzle``, ``other`` (uint8[81]) and
    ``position`` (int64[81]) are work space.

    By bisection, UAs first, then the solver (81 - 16 deletions leave 16 clues: never
    unique).  Another solution found after mid deletions differs from the grid only
    in deleted cells, so the puzzle is already not unique once the last of them is
    deleted: the upper end drops to that step."""
    _puzzle_after(grid, order, blind, puzzle)
    calls = 1
    workspace = new_search_workspace()
    if other_solution_differing_in(puzzle, grid, NO_CELL, other, workspace) != 0:
        return -1, calls
    for j in range(81):
        position[order[j]] = j
    good = blind
    bad = 65
    while bad - good > 1:
        mid = (good + bad) // 2
        d_lo, d_hi = _deleted_set(order, mid)
        unique = False
        if not _ua_fully_deleted(ua_lo, ua_hi, n_ua, d_lo, d_hi):
            _puzzle_after(grid, order, mid, puzzle)
            calls += 1
            unique = other_solution_differing_in(puzzle, grid, NO_CELL, other, workspace) == 0
            if not unique:
                last = good
                for c in range(81):
                    if other[c] != grid[c] and position[c] > last:
                        last = position[c]
                mid = last + 1
        if unique:
            good = mid
        else:
            bad = mid
    return good, calls


@njit(cache=True, nogil=True)
def controlled_bias_kernel(rng, source, pool, pool_lo, pool_hi, pool_n, peers, units, blind, n_paths,
                           out, tries_out, counters):
    """Run ``n_paths`` controlled-bias paths (one grid each); write the minimal
    puzzles found to ``out`` (stops early if it is full) and, for each, the
    number of paths since the previous output.  ``counters`` gets
    [paths, rejected by UAs at the blind step, solver calls].  Returns the count.
    ``peers``/``units``: ``tables.geometry(3, 3)`` for the minimality check."""
    grid = np.zeros(81, dtype=np.uint8)
    puzzle = np.zeros(81, dtype=np.uint8)
    other = np.zeros(81, dtype=np.uint8)
    lo = np.zeros(MAX_UA, dtype=np.uint64)
    hi = np.zeros(MAX_UA, dtype=np.uint64)
    order = np.arange(81, dtype=np.int64)
    position = np.zeros(81, dtype=np.int64)
    found = 0
    since = 0
    calls = 0
    ua_rejects = 0
    paths = 0
    for _ in range(n_paths):
        if found >= out.shape[0]:
            break
        paths += 1
        since += 1
        n_ua, ua_lo, ua_hi = _grid_and_uas(rng, source, pool, pool_lo, pool_hi, pool_n, grid, lo, hi)
        # the path: order[:blind] is the blind deletions (a set: their order never matters),
        # order[blind:] the clues kept, in the order they would be deleted next
        shuffle_tail(rng, order, 81 - blind)
        k_lo = ZERO
        k_hi = ZERO
        for j in range(blind, 81):
            k_lo, k_hi = add_cell(k_lo, k_hi, order[j])
        if _ua_fully_deleted(ua_lo, ua_hi, n_ua, FULL_LO ^ k_lo, FULL_HI81 ^ k_hi):
            ua_rejects += 1
            continue
        good, n_calls = last_unique_step(grid, order, blind, ua_lo, ua_hi, n_ua, puzzle, other, position)
        calls += n_calls
        if good < 0:
            continue
        _puzzle_after(grid, order, good, puzzle)
        # the only candidate of the path; deleting order[good] is known to break uniqueness
        o = fixed_oracle(grid, peers, units, ua_lo, ua_hi, n_ua)
        p_lo, p_hi = clue_set(puzzle)
        skip_lo, skip_hi = cell_set(order[good])
        ok = all_clues_needed(o, puzzle, p_lo, p_hi, skip_lo, skip_hi)
        calls += o[7][0]
        if ok:
            _finish_output(rng, source, puzzle, out[found])
            tries_out[found] = since
            since = 0
            found += 1
    counters[0] += paths
    counters[1] += ua_rejects
    counters[2] += calls
    return found


@njit(cache=True, nogil=True)
def pool_uas_kernel(pool, lo, hi, n, three_digits):
    """The cheap UAs of every pool grid (rows of lo/hi, counts in n)."""
    for k in range(pool.shape[0]):
        n[k] = grid_uas_kernel(pool[k], lo[k], hi[k], three_digits)
