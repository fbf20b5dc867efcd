"""Sources of complete solution grids."""
from __future__ import annotations

from functools import lru_cache

import numpy as np
from numba import njit

from sudokustudio.core.rng import rand_below, rand_float, seed_state, shuffle_inplace
from sudokustudio.sudoku.solver import random_solution_kernel

_ROW = np.bool_(True)     # numpy scalars, not literals: _line_cost compiles once
_COLUMN = np.bool_(False)


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
            digits = np.arange(1, 10, dtype=np.int64)   # int64 like every shuffled array: one compiled shuffle
            shuffle_inplace(rng, digits)
            br, bc = 3 * (b // 3), 3 * (b % 3)
            for i in range(9):
                out[(br + i // 3) * 9 + bc + i % 3] = digits[i]
        cost = 0
        for line in range(9):
            cost += _line_cost(out, line, _ROW) + _line_cost(out, line, _COLUMN)
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
            before = _line_cost(out, ra, _ROW) + _line_cost(out, ca, _COLUMN)
            if rc != ra:
                before += _line_cost(out, rc, _ROW)
            if cc != ca:
                before += _line_cost(out, cc, _COLUMN)
            t = out[a]
            out[a] = out[c]
            out[c] = t
            after = _line_cost(out, ra, _ROW) + _line_cost(out, ca, _COLUMN)
            if rc != ra:
                after += _line_cost(out, rc, _ROW)
            if cc != ca:
                after += _line_cost(out, cc, _COLUMN)
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


@lru_cache(maxsize=8)
def shared_grid_pool(size: int, seed: int, source: str = "solver") -> np.ndarray:
    """:func:`grid_pool`, built once a process for the generators' batches, which only read it
    (256 grids took ~5 ms a batch; not made read-only: numba would compile another signature)."""
    return grid_pool(size, seed, source)
