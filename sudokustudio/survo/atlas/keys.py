"""The key of a trade-free table: its column sums sorted increasingly, ``bits`` bits each, in one
integer (the atlas search appends one per table; ``enumeration`` sorts them and keeps the
margins met once)."""
from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True, inline="always")
def append_key(m, n, cs_sorted, r_desc, bits, keys, nkeys):
    """The table whose sorted column sums are ``cs_sorted``: append their encoding to ``keys``
    while there is room (m = n keeps only the orientation of REFERENCES.md: r sorted
    decreasingly lexicographically smaller); returns the new key count."""
    if m == n:
        for k in range(m):
            a = r_desc[k]
            b = cs_sorted[n - 1 - k]
            if a != b:
                if a > b:
                    return nkeys
                break
    if nkeys < keys.shape[0]:
        key = np.int64(0)
        for k in range(n):
            key = (key << bits) | cs_sorted[k]
        keys[nkeys] = key
    return nkeys + 1


@njit(cache=True, nogil=True, inline="always")
def sorted_key_5(v0, v1, v2, v3, v4, bits):
    """``append_key``'s encoding of five column sums (increasing, ``bits`` each), sorted by a
    nine-comparator network in registers: the 4×5 atlas's keys (1.2e10 of them), which the
    insertion sort through an array (``insert_sorted``) loaded and stored at every step."""
    v0, v1 = min(v0, v1), max(v0, v1)
    v3, v4 = min(v3, v4), max(v3, v4)
    v2, v4 = min(v2, v4), max(v2, v4)
    v2, v3 = min(v2, v3), max(v2, v3)
    v0, v3 = min(v0, v3), max(v0, v3)
    v0, v2 = min(v0, v2), max(v0, v2)
    v1, v4 = min(v1, v4), max(v1, v4)
    v1, v3 = min(v1, v3), max(v1, v3)
    v1, v2 = min(v1, v2), max(v1, v2)
    return ((((((((v0 << bits) | v1) << bits) | v2) << bits) | v3) << bits) | v4)


@njit(cache=True, nogil=True, inline="always")
def insert_sorted(cs_sorted, j, s):
    """Insertion sort step, no allocation: ``s`` into ``cs_sorted[:j + 1]``."""
    k = j
    while k > 0 and cs_sorted[k - 1] > s:
        cs_sorted[k] = cs_sorted[k - 1]
        k -= 1
    cs_sorted[k] = s


@njit(cache=True, nogil=True, inline="always")
def add_key(m, n, x, colbase, keys, nkeys, bits, cs_sorted, sorted_r_desc):
    """A trade-free table (column sums colbase + x): append its key (``append_key``);
    returns the new key count."""
    for j in range(n):
        insert_sorted(cs_sorted, j, colbase[j] + x[j])
    return append_key(m, n, cs_sorted, sorted_r_desc, bits, keys, nkeys)
