"""Sets of cells as two 64-bit words: the one cell-set representation of the kernels.

A set of cells 0..127 is a pair ``(lo, hi)`` of ``np.uint64``: cell ``c < 64``
is bit ``c`` of ``lo``, cell ``c >= 64`` is bit ``c - 64`` of ``hi`` (a 9x9
grid uses cells 0..80, so ``hi`` holds 17 bits).  The kernels take and return
the two words as scalars; a list of sets is two parallel ``uint64[N]``
arrays ``lo[i], hi[i]``.  All arithmetic uses ``np.uint64`` constants (mixing
uint64 with int64 gives floats in numba).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from sudokustudio.core.bits import lowest_index64, popcount64

ZERO = np.uint64(0)
ONE = np.uint64(1)
FULL_LO = np.uint64(0xFFFFFFFFFFFFFFFF)
#: the ``hi`` word of all 81 cells of a 9x9 grid
FULL_HI81 = np.uint64((1 << 17) - 1)


@njit(cache=True, nogil=True)
def cell_set(c):
    """The set {c}."""
    if c < 64:
        return ONE << np.uint64(c), ZERO
    return ZERO, ONE << np.uint64(c - 64)


@njit(cache=True, nogil=True)
def has_cell(lo, hi, c):
    if c < 64:
        return (lo >> np.uint64(c)) & ONE != ZERO
    return (hi >> np.uint64(c - 64)) & ONE != ZERO


@njit(cache=True, nogil=True)
def add_cell(lo, hi, c):
    if c < 64:
        return lo | (ONE << np.uint64(c)), hi
    return lo, hi | (ONE << np.uint64(c - 64))


@njit(cache=True, nogil=True)
def remove_cell(lo, hi, c):
    if c < 64:
        return lo & ~(ONE << np.uint64(c)), hi
    return lo, hi & ~(ONE << np.uint64(c - 64))


@njit(cache=True, nogil=True)
def set_size(lo, hi):
    return popcount64(lo) + popcount64(hi)


@njit(cache=True, nogil=True)
def cells_of(lo, hi, out):
    """Write the cells of the set to ``out`` in increasing order; return how many."""
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
def clue_set(puzzle):
    """The set of the non-empty cells of ``puzzle``.  Branch-free: a subsets probe builds one
    for every random subset (~35 ns at 81 cells)."""
    lo = ZERO
    hi = ZERO
    n = puzzle.shape[0]
    for c in range(min(n, 64)):
        lo |= np.uint64(puzzle[c] != 0) << np.uint64(c)
    for c in range(64, n):
        hi |= np.uint64(puzzle[c] != 0) << np.uint64(c - 64)
    return lo, hi


@njit(cache=True, nogil=True)
def restrict(grid, lo, hi, out):
    """``out`` := ``grid`` on the cells of the set, 0 elsewhere."""
    for c in range(grid.shape[0]):
        out[c] = grid[c] if has_cell(lo, hi, c) else 0


@njit(cache=True, nogil=True)
def diff_set(a, b):
    """The set of cells where the arrays ``a`` and ``b`` differ."""
    lo = ZERO
    hi = ZERO
    for c in range(a.shape[0]):
        if a[c] != b[c]:
            lo, hi = add_cell(lo, hi, c)
    return lo, hi


# ------------------------------------------------------------------ Python side
def to_cells(lo, hi) -> np.ndarray:
    """The cells of a set, increasing (int64)."""
    lo, hi = int(lo), int(hi)
    return np.array([c for c in range(64) if lo >> c & 1] + [64 + c for c in range(64) if hi >> c & 1],
                    dtype=np.int64)


def from_cells(cells) -> tuple[int, int]:
    """The set of the given cells as Python ints (lo, hi)."""
    lo = hi = 0
    for c in cells:
        c = int(c)
        if not 0 <= c < 128:
            raise ValueError(f"cell {c} outside 0..127")
        if c < 64:
            lo |= 1 << c
        else:
            hi |= 1 << (c - 64)
    return lo, hi


def sets_of_masks(masks) -> tuple[np.ndarray, np.ndarray]:
    """Many sets at once from boolean masks over their cells (shape (..., n), n <= 128): the
    words ``(lo, hi)`` as uint64 arrays of shape (...).  Array operations only, so a worker
    building thousands of sets does not hold the GIL (and the window) for a Python loop."""
    m = np.asarray(masks, dtype=bool)
    if m.shape[-1] > 128:
        raise ValueError(f"masks over {m.shape[-1]} cells: a set holds at most 128")
    padded = np.zeros(m.shape[:-1] + (128,), dtype=bool)
    padded[..., :m.shape[-1]] = m
    words = np.packbits(padded, axis=-1, bitorder="little").view("<u8")
    return words[..., 0].astype(np.uint64), words[..., 1].astype(np.uint64)


def size_of(lo, hi) -> int:
    return int(lo).bit_count() + int(hi).bit_count()


def sizes_of(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """The sizes of many sets (uint64 arrays of their words) in a few array operations: a
    Python loop over hundreds of thousands of sets held the GIL, and the window, for ~50 ms."""
    return _popcounts(np.asarray(lo, dtype=np.uint64)) + _popcounts(np.asarray(hi, dtype=np.uint64))


def _popcounts(x: np.ndarray) -> np.ndarray:
    # popcount64's bit trick on whole arrays (numpy >= 1.26 has no bitwise_count)
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return ((x * np.uint64(0x0101010101010101)) >> np.uint64(56)).astype(np.int64)
