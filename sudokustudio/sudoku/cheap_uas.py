"""Cheap unavoidable sets (UAs) of a 9x9 grid, for pre-tests before the solver.

A UA is a set of cells whose digits can be rearranged into another valid
grid; a clue set that misses one is not unique.  Two kinds cost little:

* two-digit UAs (~3 us a grid): the cells of digits a and b split into
  components (linked within rows, columns and boxes) that can swap a<->b;
* with ``three_digits``, the UAs found by refilling the cells of every
  three-digit set in all possible ways (a few ms a grid).

They seed the UA cache of the uniqueness oracle (``minimal``) and the
pre-test of the generators.  The exhaustive harvest is ``unavoidable.harvest``.
Sets are ``core.cellset`` pairs; lists are parallel ``lo``/``hi`` arrays.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from sudokustudio.core.bits import lowest_index64
from sudokustudio.core.cellset import ZERO, add_cell, to_cells


@njit(cache=True, nogil=True)
def add_minimal_ua(lo, hi, n, ua_lo, ua_hi, max_ua):
    """Add a UA to the list lo/hi[:n] unless a listed UA is a subset of it;
    drop listed supersets of it.  Returns the new length (at most max_ua)."""
    for i in range(n):
        if (lo[i] & ~ua_lo) == ZERO and (hi[i] & ~ua_hi) == ZERO:
            return n
    k = 0
    for i in range(n):
        if not ((ua_lo & ~lo[i]) == ZERO and (ua_hi & ~hi[i]) == ZERO):
            lo[k] = lo[i]
            hi[k] = hi[i]
            k += 1
    if k < max_ua:
        lo[k] = ua_lo
        hi[k] = ua_hi
        k += 1
    return k


def _row_union_table() -> tuple[np.ndarray, np.ndarray]:
    """The cells of every set of rows of a 9x9 grid (a bit set of rows 0..8) as a cell set
    (array operations: a loop over the 512 sets cost ~3 ms at every import)."""
    rows = (np.arange(512)[:, None] >> np.arange(9)) & 1                 # [set, row]
    cells = np.repeat(rows, 9, axis=1).astype(np.uint64)                 # [set, cell]
    lo = (cells[:, :64] << np.arange(64, dtype=np.uint64)).sum(axis=1, dtype=np.uint64)
    hi = (cells[:, 64:] << np.arange(17, dtype=np.uint64)).sum(axis=1, dtype=np.uint64)
    return lo, hi


_ROWS_LO, _ROWS_HI = _row_union_table()


@njit(cache=True, nogil=True)
def two_digit_uas_kernel(grid, lo, hi, max_ua):
    """All minimal UAs on two digits: the connected components of the cells of
    digits a, b (linked within each row, column and box) can swap a<->b.
    Written to lo/hi (per pair of digits, components by their lowest row); returns how
    many (at most max_ua).  No one contains another (a component holds both of
    its digits; those of one pair are disjoint), so they are simply appended.

    A row's a and b always swap together, so a component is a set of rows: row r
    is linked to the row of the b in its a's column and to the row of the b in its a's
    box, and the components are found on bit sets of the 9 rows (a component of two
    rows or more is a UA: its rows' cells of a and b).  A quarter of the CPU of a
    union-find over the 18 cells (2026-11-30: 11.2 -> 2.6 us a grid; the same UAs on 20,000
    grids)."""
    n = 0
    pos = np.empty((10, 9), dtype=np.int64)   # pos[d, row] = column of digit d in row
    row_in_col = np.empty((10, 9), dtype=np.int64)   # row of digit d in column c
    row_in_box = np.empty((10, 9), dtype=np.int64)   # row of digit d in box x
    digit_lo = np.zeros(10, dtype=np.uint64)   # the cells of digit d
    digit_hi = np.zeros(10, dtype=np.uint64)
    for cell in range(81):
        r = cell // 9
        d = grid[cell]
        pos[d, r] = cell % 9
        row_in_col[d, cell % 9] = r
        row_in_box[d, 3 * (r // 3) + (cell % 9) // 3] = r
        digit_lo[d], digit_hi[d] = add_cell(digit_lo[d], digit_hi[d], cell)
    linked = np.empty(9, dtype=np.int64)   # linked[r]: the rows row r swaps with (bits)
    for a in range(1, 10):
        for b in range(a + 1, 10):
            for r in range(9):
                linked[r] = 0
            for r in range(9):
                ca = pos[a, r]
                s1 = row_in_col[b, ca]
                s2 = row_in_box[b, 3 * (r // 3) + ca // 3]
                linked[r] |= (1 << s1) | (1 << s2)
                linked[s1] |= 1 << r
                linked[s2] |= 1 << r
            pair_lo = digit_lo[a] | digit_lo[b]
            pair_hi = digit_hi[a] | digit_hi[b]
            rest = 0x1FF
            while rest:
                comp = rest & -rest
                frontier = comp
                while frontier:
                    r = lowest_index64(np.uint64(frontier))
                    frontier &= frontier - 1
                    new = linked[r] & ~comp
                    comp |= new
                    frontier |= new
                rest &= ~comp
                if comp & (comp - 1) and n < max_ua:   # two rows or more
                    lo[n] = pair_lo & _ROWS_LO[comp]
                    hi[n] = pair_hi & _ROWS_HI[comp]
                    n += 1
    return n


@njit(cache=True, nogil=True)
def _unmark(c, d, rows, cols, boxes):
    bit = 1 << (d - 1)
    rows[c // 9] &= ~bit
    cols[c % 9] &= ~bit
    boxes[3 * (c // 27) + (c % 9) // 3] &= ~bit


@njit(cache=True, nogil=True)
def _enumerate_fill(grid, blank, max_sol, lo, hi, n, max_ua):
    """Enumerate the refills of the blank cells (uint8 mask) of ``grid``; each
    refill that differs from the grid gives a UA (its difference set)."""
    cells = np.empty(81, dtype=np.int64)
    m = 0
    rows = np.zeros(9, dtype=np.int64)
    cols = np.zeros(9, dtype=np.int64)
    boxes = np.zeros(9, dtype=np.int64)
    for c in range(81):
        if blank[c]:
            cells[m] = c
            m += 1
        else:
            bit = 1 << (grid[c] - 1)
            rows[c // 9] |= bit
            cols[c % 9] |= bit
            boxes[3 * (c // 27) + (c % 9) // 3] |= bit
    val = np.zeros(81, dtype=np.int64)
    tried = np.zeros(81, dtype=np.int64)
    depth = 0
    found = 0
    while depth >= 0:
        if depth == m:
            ua_lo = ZERO
            ua_hi = ZERO
            for k in range(m):
                c = cells[k]
                if val[k] != grid[c]:
                    ua_lo, ua_hi = add_cell(ua_lo, ua_hi, c)
            if ua_lo != ZERO or ua_hi != ZERO:
                n = add_minimal_ua(lo, hi, n, ua_lo, ua_hi, max_ua)
            found += 1
            if found >= max_sol:
                return n
            depth -= 1
            if depth >= 0:
                _unmark(cells[depth], val[depth], rows, cols, boxes)
            continue
        c = cells[depth]
        used = rows[c // 9] | cols[c % 9] | boxes[3 * (c // 27) + (c % 9) // 3]
        d = tried[depth] + 1
        while d <= 9 and (used >> (d - 1)) & 1:
            d += 1
        if d > 9:
            tried[depth] = 0
            depth -= 1
            if depth >= 0:
                _unmark(cells[depth], val[depth], rows, cols, boxes)
            continue
        tried[depth] = d
        val[depth] = d
        bit = 1 << (d - 1)
        rows[c // 9] |= bit
        cols[c % 9] |= bit
        boxes[3 * (c // 27) + (c % 9) // 3] |= bit
        depth += 1
        if depth < m:
            tried[depth] = 0
    return n


@njit(cache=True, nogil=True)
def grid_uas_kernel(grid, lo, hi, three_digits):
    """Cheap minimal UAs of ``grid``: all two-digit UAs and, with
    ``three_digits``, those found by refilling the cells of every three-digit
    set.  Returns the number written (at most lo.size)."""
    max_ua = lo.shape[0]
    n = two_digit_uas_kernel(grid, lo, hi, max_ua)
    if three_digits:
        blank = np.zeros(81, dtype=np.uint8)
        for a in range(1, 10):
            for b in range(a + 1, 10):
                for c in range(b + 1, 10):
                    for cell in range(81):
                        g = grid[cell]
                        blank[cell] = 1 if (g == a or g == b or g == c) else 0
                    n = _enumerate_fill(grid, blank, 4096, lo, hi, n, max_ua)
    return n


def grid_uas(grid, three_digits: bool = True, max_ua: int = 512) -> list[list[int]]:
    """The cheap UAs of a grid as sorted cell lists (for tests and display)."""
    lo = np.zeros(max_ua, dtype=np.uint64)
    hi = np.zeros(max_ua, dtype=np.uint64)
    n = grid_uas_kernel(np.ascontiguousarray(grid, dtype=np.uint8).reshape(81), lo, hi, bool(three_digits))
    return sorted((to_cells(lo[i], hi[i]).tolist() for i in range(n)), key=lambda u: (len(u), u))
