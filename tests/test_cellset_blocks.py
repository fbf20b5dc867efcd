"""The eight-wide cell-set operations (core.cellset_blocks) and the search's list
passes built on them, each against a plain one-set-at-a-time reference."""
from __future__ import annotations

import importlib

import numpy as np
import pytest
from numba import njit

from sudokustudio.core.cellset_blocks import compress8, disjoint_mask8, first_disjoint

S = importlib.import_module("sudokustudio.sudoku.unavoidable.search")   # the package exports a search()
WORD = (1 << 64) - 1


def random_sets(rng, n, lo_size=2, hi_size=12):
    """n random cell sets of 9x9 cells as (lo, hi) uint64 arrays."""
    lo = np.zeros(n, dtype=np.uint64)
    hi = np.zeros(n, dtype=np.uint64)
    for i in range(n):
        for c in rng.choice(81, rng.integers(lo_size, hi_size + 1), replace=False):
            if c < 64:
                lo[i] |= np.uint64(1) << np.uint64(c)
            else:
                hi[i] |= np.uint64(1) << np.uint64(c - 64)
    return lo, hi


@njit(cache=True)
def _masks(lo, hi, c_lo, c_hi):
    out = np.zeros(lo.shape[0] - 7, dtype=np.uint64)
    for j in range(out.shape[0]):
        out[j] = disjoint_mask8(lo, hi, j, c_lo, c_hi)
    return out


@njit(cache=True)
def _compress(src, i, cells, keep, dst, m):
    compress8(src, i, cells, dst, m, keep)


def test_disjoint_mask8_is_eight_disjointness_tests():
    rng = np.random.default_rng(81)
    for _ in range(60):
        lo, hi = random_sets(rng, int(rng.integers(8, 40)))
        c_lo, c_hi = random_sets(rng, 1, 0, 30)
        got = _masks(lo, hi, c_lo[0], c_hi[0])
        for j, mask in enumerate(got):
            want = sum(1 << q for q in range(8)
                       if not (int(lo[j + q]) & int(c_lo[0]) or int(hi[j + q]) & int(c_hi[0])))
            assert int(mask) == want


def test_compress8_writes_the_kept_sets_in_order_and_nothing_else():
    rng = np.random.default_rng(82)
    src = rng.integers(0, 1 << 63, 24, dtype=np.uint64)
    for _ in range(200):
        keep = int(rng.integers(0, 256))
        i = int(rng.integers(0, 17))
        m = int(rng.integers(0, 9))
        cells = np.uint64(int(rng.integers(0, 1 << 63)) | (1 << 63))
        dst = np.full(20, 7, dtype=np.uint64)
        _compress(src, i, cells, np.uint64(keep), dst, m)
        want = np.full(20, 7, dtype=np.uint64)
        kept = [src[i + q] & cells for q in range(8) if keep >> q & 1]
        want[m:m + len(kept)] = kept
        assert np.array_equal(dst, want)


def _child_list_reference(lo, hi, n, clue_lo, clue_hi, dead_lo, dead_hi, r):
    """Seed 004's child list one UA at a time: (code, kept sets, first group)."""
    out = []
    g_lo = g_hi = count = members = 0
    for i in range(n):
        a, b = int(lo[i]), int(hi[i])
        if a & clue_lo or b & clue_hi:
            continue
        a &= ~dead_lo & WORD
        b &= ~dead_hi & WORD
        if a == 0 and b == 0:
            return -1, out, None
        out.append((a, b))
        if not (a & g_lo or b & g_hi):
            g_lo, g_hi, count = g_lo | a, g_hi | b, count + 1
            if count > r:
                return -2, out, None
            if len(out) <= 64:
                members |= 1 << (len(out) - 1)
    return len(out), out, (g_lo, g_hi, count, members)


@pytest.mark.parametrize("room", [0, 3, 40])
def test_child_list_equals_the_one_at_a_time_pass(room):
    """Every return code, kept set and first group, with lists of any length, rows with
    no room past the list (the one-at-a-time fallback), dead cells that empty a UA,
    and views that kill the child on its first group."""
    rng = np.random.default_rng(83 + room)
    codes = set()
    for _ in range(400):
        n = int(rng.integers(0, 90))
        lo = np.zeros(n + room, dtype=np.uint64)
        hi = np.zeros(n + room, dtype=np.uint64)
        lo[:n], hi[:n] = random_sets(rng, n, 1, 10)
        lo[n:] = rng.integers(0, 1 << 63, room, dtype=np.uint64)   # garbage past the list
        clue = int(rng.integers(0, 81))
        clue_lo, clue_hi = (1 << clue, 0) if clue < 64 else (0, 1 << (clue - 64))
        d_lo, d_hi = random_sets(rng, 1, 0, int(rng.integers(0, 40)))
        dead_lo, dead_hi = int(d_lo[0]), int(d_hi[0])
        r = int(rng.choice([2, 3, 5, 8, 1 << 30]))
        out_lo = np.zeros(n + room, dtype=np.uint64)
        out_hi = np.zeros(n + room, dtype=np.uint64)
        first = np.zeros(4, dtype=np.uint64)
        code = S._child_list(lo, hi, n, np.uint64(clue_lo), np.uint64(clue_hi), np.uint64(dead_lo),
                             np.uint64(dead_hi), out_lo, out_hi, r, first)
        want, kept, group = _child_list_reference(lo, hi, n, clue_lo, clue_hi, dead_lo, dead_hi, r)
        codes.add(min(want, 1))   # -2, -1, 0 (an empty list) or 1 (a list)
        assert code == want
        if code >= 0:
            assert [(int(a), int(b)) for a, b in zip(out_lo[:code], out_hi[:code])] == kept
            assert tuple(int(x) for x in first) == group
    assert codes == {-2, -1, 0, 1}


def test_first_disjoint_finds_the_first_disjoint_set_from_j():
    rng = np.random.default_rng(84)
    for _ in range(300):
        n = int(rng.integers(0, 50))
        room = int(rng.integers(0, 12))
        lo = np.zeros(n + room, dtype=np.uint64)
        hi = np.zeros(n + room, dtype=np.uint64)
        lo[:n], hi[:n] = random_sets(rng, n, 2, 8)
        lo[n:] = 0   # past the list: disjoint from anything, so it must be masked off
        c_lo, c_hi = random_sets(rng, 1, 0, 40)
        j = int(rng.integers(0, n + 1))
        got = first_disjoint(lo, hi, n, j, c_lo[0], c_hi[0])
        want = next((i for i in range(j, n) if not (int(lo[i]) & int(c_lo[0]) or int(hi[i]) & int(c_hi[0]))), n)
        assert got == want
