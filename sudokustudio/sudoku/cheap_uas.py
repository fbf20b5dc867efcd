"""Cheap unavoidable sets (UAs) of a 9x9 grid, for pre-tests before the solver.

A UA is a set of cells whose digits can be rearranged into another valid
grid; a clue set that misses one is not unique.  Two kinds cost little:

* two-digit UAs (~50 us a grid): the cells of digits a and b split into
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


@njit(cache=True, nogil=True)
def _find(parent, i):
    while parent[i] != i:
        parent[i] = parent[parent[i]]
        i = parent[i]
    return i


@njit(cache=True, nogil=True)
def two_digit_uas_kernel(grid, lo, hi, max_ua):
    """All minimal UAs on two digits: the connected components of the cells of
    digits a, b (linked within each row, column and box) can swap a<->b.
    Written to lo/hi (per pair of digits, components by their root); returns how
    many (at most max_ua).  No one contains another (a component holds both of
    its digits; those of one pair are disjoint), so they are simply appended."""
    n = 0
    pos = np.empty((10, 9), dtype=np.int64)   # pos[d, row] = column of digit d in row
    row_in_col = np.empty((10, 9), dtype=np.int64)   # row of digit d in column c
    row_in_box = np.empty((10, 9), dtype=np.int64)   # row of digit d in box x
    for cell in range(81):
        r = cell // 9
        pos[grid[cell], r] = cell % 9
        row_in_col[grid[cell], cell % 9] = r
        row_in_box[grid[cell], 3 * (r // 3) + (cell % 9) // 3] = r
    parent = np.empty(18, dtype=np.int64)
    comp_lo = np.empty(18, dtype=np.uint64)   # per root: its component's cells and size
    comp_hi = np.empty(18, dtype=np.uint64)
    comp_n = np.empty(18, dtype=np.int64)
    for a in range(1, 10):
        for b in range(a + 1, 10):
            # nodes 0..8: digit a in row r; 9..17: digit b in row r
            for i in range(18):
                parent[i] = i
            for r in range(9):    # rows: a and b of the same row swap together
                x, y = _find(parent, r), _find(parent, 9 + r)
                parent[x] = y
            for r in range(9):
                # columns and boxes: a in row r and b in row s share a column or a box
                # (one b in a's column, one in its box; linked in increasing s)
                ca = pos[a, r]
                s1 = row_in_col[b, ca]
                s2 = row_in_box[b, 3 * (r // 3) + ca // 3]
                for s in (min(s1, s2), max(s1, s2)):
                    x, y = _find(parent, r), _find(parent, 9 + s)
                    parent[x] = y
            for i in range(18):
                comp_lo[i] = ZERO
                comp_hi[i] = ZERO
                comp_n[i] = 0
            for i in range(18):
                root = _find(parent, i)
                r = i % 9
                comp_lo[root], comp_hi[root] = add_cell(comp_lo[root], comp_hi[root],
                                                        r * 9 + (pos[a, r] if i < 9 else pos[b, r]))
                comp_n[root] += 1
            for root in range(18):
                if comp_n[root] >= 4 and n < max_ua:
                    lo[n] = comp_lo[root]
                    hi[n] = comp_hi[root]
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
