"""Sources of complete solution grids."""
from __future__ import annotations

import numpy as np
from numba import njit

from sudokustudio.core.rng import rand_below, rand_float, seed_state, shuffle_inplace
from sudokustudio.sudoku.grid import random_isomorph_kernel
from sudokustudio.sudoku.solver import random_solution_kernel


@njit(cache=True, nogil=True)
def random_grid_kernel(rng, out):
    """A random complete grid by randomized backtracking from the empty grid.

    Not uniform over grids (the randomized-solver source of DESIGN.md is
    biased); use the sequential sampler with weights where uniformity matters.
    """
    empty = np.zeros(81, dtype=np.uint8)
    random_solution_kernel(empty, rng, out)


def random_grid(seed: int | None = None, rng=None) -> np.ndarray:
    """A random solution grid, reproducible from ``seed`` (or an rng state)."""
    if rng is None:
        if seed is None:
            seed = int(np.random.SeedSequence().generate_state(1, dtype=np.uint64)[0])
        rng = seed_state(np.uint64(seed))
    out = np.zeros(81, dtype=np.uint8)
    random_grid_kernel(rng, out)
    return out


# ------------------------------------------------------------ Barker pairswap
@njit(cache=True, nogil=True)
def _line_cost(grid, line, is_row):
    """Number of digits missing from a row (is_row) or column."""
    seen = 0
    for k in range(9):
        cell = line * 9 + k if is_row else k * 9 + line
        seen |= 1 << (grid[cell] - 1)
    n = 0
    while seen:
        seen &= seen - 1
        n += 1
    return 9 - n


@njit(cache=True, nogil=True)
def pairswap_grid_kernel(rng, out, max_sweeps=400):
    """Allan Barker's Monte Carlo grid source (seed 002 §1.1), as a Metropolis pairswap.

    Random placement of the 81 digits (each box a random permutation of 1..9,
    so boxes are valid), then random swaps of two cells of one box, accepted
    when they do not increase the row+column conflict count (and, rarely, when
    they do, so the walk leaves plateaus), until the grid is valid.  Restarts
    from a new placement when it stalls.  Returns the number of swaps tried.

    The grids are not known to be uniform: treat this source as biased.
    """
    tried = 0
    while True:
        for b in range(9):
            digits = np.arange(1, 10, dtype=np.uint8)
            shuffle_inplace(rng, digits)
            br, bc = 3 * (b // 3), 3 * (b % 3)
            for i in range(9):
                out[(br + i // 3) * 9 + bc + i % 3] = digits[i]
        cost = 0
        for line in range(9):
            cost += _line_cost(out, line, True) + _line_cost(out, line, False)
        temperature = 0.5
        for _ in range(max_sweeps * 81):
            if cost == 0:
                return tried
            tried += 1
            b = rand_below(rng, 9)
            i = rand_below(rng, 9)
            j = rand_below(rng, 8)
            if j >= i:
                j += 1
            br, bc = 3 * (b // 3), 3 * (b % 3)
            a = (br + i // 3) * 9 + bc + i % 3
            c = (br + j // 3) * 9 + bc + j % 3
            ra, ca, rc, cc = a // 9, a % 9, c // 9, c % 9
            before = _line_cost(out, ra, True) + _line_cost(out, ca, False)
            if rc != ra:
                before += _line_cost(out, rc, True)
            if cc != ca:
                before += _line_cost(out, cc, False)
            t = out[a]
            out[a] = out[c]
            out[c] = t
            after = _line_cost(out, ra, True) + _line_cost(out, ca, False)
            if rc != ra:
                after += _line_cost(out, rc, True)
            if cc != ca:
                after += _line_cost(out, cc, False)
            delta = after - before
            if delta <= 0 or rand_float(rng) < np.exp(-delta / temperature):
                cost += delta
            else:
                t = out[a]
                out[a] = out[c]
                out[c] = t
            temperature = max(0.05, temperature * 0.99995)
        # stalled: start again from a fresh placement


def pairswap_grid(seed: int) -> np.ndarray:
    out = np.zeros(81, dtype=np.uint8)
    pairswap_grid_kernel(seed_state(np.uint64(seed)), out)
    return out


# ------------------------------------------------------------ pools of grids
GRID_SOURCES = {
    "solver": "fresh grids from the randomized solver (biased: not uniform over grids)",
    "pairswap": "fresh grids from Barker's pairswap Monte Carlo (slow; not known to be uniform)",
    "pool": "random isomorphs of a pool of solver grids (cheap; biased: a finite pool)",
}


@njit(cache=True, nogil=True)
def grid_pool_kernel(rng, pool, source):
    """Fill ``pool`` (uint8[M, 81]) with grids: source 0 = solver, 1 = pairswap."""
    for i in range(pool.shape[0]):
        if source == 1:
            pairswap_grid_kernel(rng, pool[i])
        else:
            random_grid_kernel(rng, pool[i])


def grid_pool(size: int, seed: int, source: str = "solver") -> np.ndarray:
    """``size`` grids reproducible from ``seed`` (source 'solver' or 'pairswap')."""
    if source not in ("solver", "pairswap"):
        raise ValueError(f"pool grids come from 'solver' or 'pairswap', not {source!r}")
    pool = np.zeros((int(size), 81), dtype=np.uint8)
    grid_pool_kernel(seed_state(np.uint64(seed)), pool, 1 if source == "pairswap" else 0)
    return pool


@njit(cache=True, nogil=True)
def random_pool_isomorph_kernel(pool, rng, out):
    """A random isomorph of a random grid of ``pool`` into ``out``; returns the pool index."""
    k = rand_below(rng, pool.shape[0])
    random_isomorph_kernel(pool[k], rng, out)
    return k


# ------------------------------------------------------------ cheap unavoidable sets
@njit(cache=True, nogil=True)
def _bit(cell):
    return np.uint64(1) << np.uint64(cell & 63)


@njit(cache=True, nogil=True)
def _add_ua(lo, hi, n, ua_lo, ua_hi, max_ua):
    """Add a UA mask unless a known UA is a subset of it; drop known supersets."""
    for i in range(n):
        if (lo[i] & ~ua_lo) == 0 and (hi[i] & ~ua_hi) == 0:
            return n
    k = 0
    for i in range(n):
        if not ((ua_lo & ~lo[i]) == 0 and (ua_hi & ~hi[i]) == 0):
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
def two_digit_uas_kernel(grid, lo, hi, n, max_ua):
    """All minimal UAs on two digits: the connected components of the cells of
    digits a, b (linked within each row, column and box) can swap a<->b."""
    pos = np.empty((10, 9), dtype=np.int64)   # pos[d, row] = column of digit d in row
    for cell in range(81):
        pos[grid[cell], cell // 9] = cell % 9
    parent = np.empty(18, dtype=np.int64)
    for a in range(1, 10):
        for b in range(a + 1, 10):
            # nodes 0..8: digit a in row r; 9..17: digit b in row r
            for i in range(18):
                parent[i] = i
            for r in range(9):    # rows: a and b of the same row swap together
                x, y = _find(parent, r), _find(parent, 9 + r)
                parent[x] = y
            for r in range(9):
                for s in range(9):
                    # columns and boxes: a in row r and b in row s share a column or a box
                    ca, cb = pos[a, r], pos[b, s]
                    if ca == cb or (r // 3 == s // 3 and ca // 3 == cb // 3):
                        x, y = _find(parent, r), _find(parent, 9 + s)
                        parent[x] = y
            for root in range(18):
                ua_lo = np.uint64(0)
                ua_hi = np.uint64(0)
                size = 0
                for i in range(18):
                    if _find(parent, i) == root:
                        size += 1
                        r = i % 9
                        cell = r * 9 + (pos[a, r] if i < 9 else pos[b, r])
                        if cell < 64:
                            ua_lo |= _bit(cell)
                        else:
                            ua_hi |= _bit(cell)
                if size >= 4:
                    n = _add_ua(lo, hi, n, ua_lo, ua_hi, max_ua)
    return n


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
            ua_lo = np.uint64(0)
            ua_hi = np.uint64(0)
            diff = False
            for k in range(m):
                c = cells[k]
                if val[k] != grid[c]:
                    diff = True
                    if c < 64:
                        ua_lo |= _bit(c)
                    else:
                        ua_hi |= _bit(c)
            if diff:
                n = _add_ua(lo, hi, n, ua_lo, ua_hi, max_ua)
            found += 1
            if found >= max_sol:
                return n
            depth -= 1
            if depth >= 0:
                c = cells[depth]
                bit = 1 << (val[depth] - 1)
                rows[c // 9] &= ~bit
                cols[c % 9] &= ~bit
                boxes[3 * (c // 27) + (c % 9) // 3] &= ~bit
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
                c = cells[depth]
                bit = 1 << (val[depth] - 1)
                rows[c // 9] &= ~bit
                cols[c % 9] &= ~bit
                boxes[3 * (c // 27) + (c % 9) // 3] &= ~bit
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
    """Cheap minimal unavoidable sets of ``grid`` as 81-bit masks (lo: cells
    0..63, hi: cells 64..80): all two-digit UAs and, with ``three_digits``,
    those found by refilling the cells of every three-digit set.  Returns the
    number written (at most lo.size)."""
    max_ua = lo.shape[0]
    n = two_digit_uas_kernel(grid, lo, hi, 0, max_ua)
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
    n = grid_uas_kernel(np.ascontiguousarray(grid, dtype=np.uint8).reshape(81), lo, hi, three_digits)
    out = []
    for i in range(n):
        cells = [c for c in range(64) if (int(lo[i]) >> c) & 1] + [64 + c for c in range(17) if (int(hi[i]) >> c) & 1]
        out.append(cells)
    return sorted(out, key=lambda u: (len(u), u))
