"""Bit tricks on 64-bit words shared by the kernels.

Both take ``np.uint64`` (mixing uint64 with int64 gives floats in numba):
cast an int64 word with ``np.uint64(x)`` first.  LLVM turns the popcount
below into the CPU's popcnt instruction.
"""
from __future__ import annotations

import numpy as np
from numba import njit

_ONE = np.uint64(1)
_M1 = np.uint64(0x5555555555555555)
_M2 = np.uint64(0x3333333333333333)
_M4 = np.uint64(0x0F0F0F0F0F0F0F0F)
_H01 = np.uint64(0x0101010101010101)


@njit(cache=True, nogil=True, inline="always")
def popcount64(x):
    """Number of set bits of a uint64 (as int64)."""
    x = x - ((x >> _ONE) & _M1)
    x = (x & _M2) + ((x >> np.uint64(2)) & _M2)
    x = (x + (x >> np.uint64(4))) & _M4
    return np.int64((x * _H01) >> np.uint64(56))


@njit(cache=True, nogil=True, inline="always")
def lowest_index64(x):
    """Index of the lowest set bit of a non-zero uint64."""
    return popcount64((x & (~x + _ONE)) - _ONE)
