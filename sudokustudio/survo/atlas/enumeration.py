"""The atlas enumeration of one batch: row-sum vectors -> partitions -> trade-free tables
-> margins met once -> exact check (see the package doc for the method).

``run_vectors`` is what a batch runs; the kernels take the grouped arrays of
``workspace``.
"""
from __future__ import annotations

import time

import numpy as np
from numba import njit

from sudokustudio.survo.atlas.arrange import arrange_rows, place_rows_in_order
from sudokustudio.survo.atlas.result import AtlasResult, record_width
from sudokustudio.survo.atlas.trades import row_pairings
from sudokustudio.survo.atlas.workspace import make_plan, make_workspace
from sudokustudio.survo.setup import chi_squares, product_setups
from sudokustudio.survo.solve import solve_kernel


@njit(cache=True, nogil=True)
def _mask_values(mask, N, out):
    k = 0
    for v in range(1, N + 1):
        if (mask >> v) & 1:
            out[k] = v
            k += 1


@njit(cache=True, nogil=True)
def partitions_for(m, n, r, plan, rows, grid, trades, keys, nkeys):
    """Enumerate the row-set partitions with row sums r (increasing) and arrange each.

    The trade-free pairings of row d with each earlier row are listed as
    soon as row d's set is chosen (shared by the whole subtree); a row set
    with no trade-free pairing against an earlier one ends its subtree.
    Each partition is then arranged in the row order of smallest estimated
    search tree (``place_rows_in_order``).  Returns (the new key count, the
    key buffer): a partition whose keys overflow ``keys`` is arranged again
    into a bigger copy (the keys of one vector run to millions for 3×6;
    growing here redoes one partition, where a bigger buffer from the
    caller redid the whole vector: 3.8 of 8.8 CPU-s of the 3×6 sample).
    """
    N = m * n
    masks = plan.masks
    start = plan.start
    pos = rows.pos
    chosen = rows.chosen
    used = rows.used   # used[d] = union of rows 0..d-1 (used[0] stays 0)
    vals = rows.vals
    pair_list = rows.pair_list
    pair_count = rows.pair_count
    full = np.int64(0)
    for v in range(1, N + 1):
        full |= np.int64(1) << v
    d = 0
    pos[0] = start[r[0]] - 1
    while d >= 0:
        if d == m - 1:
            chosen[d] = full & ~used[d]   # its sum is r[m-1] since the total is fixed
        else:
            pos[d] += 1
            s = r[d]
            while pos[d] < start[s + 1] and (masks[pos[d]] & used[d]) != 0:
                pos[d] += 1
            if pos[d] >= start[s + 1]:
                d -= 1
                continue
            chosen[d] = masks[pos[d]]
            used[d + 1] = used[d] | chosen[d]
        _mask_values(chosen[d], N, vals[d])
        alive = True
        for earlier in range(d):
            c = row_pairings(vals[earlier], vals[d], n, plan, rows, pair_list[earlier, d])
            pair_count[earlier, d] = c
            if c == 0:
                alive = False
                break
        if d == m - 1:
            if alive:
                place_rows_in_order(m, n, plan, rows)
                before = nkeys
                nkeys = arrange_rows(m, n, plan, rows, grid, trades, keys, nkeys)
                if nkeys > keys.shape[0]:
                    bigger = np.empty(max(2 * keys.shape[0], nkeys + nkeys // 2), np.int64)
                    bigger[:before] = keys[:before]
                    keys = bigger
                    nkeys = arrange_rows(m, n, plan, rows, grid, trades, keys, before)
            d -= 1
            continue
        if alive:
            d += 1
            if d < m - 1:
                pos[d] = start[r[d]] - 1
    return nkeys, keys


@njit(cache=True, nogil=True)
def sorted_keys(key_buf, nkeys, key_bits):
    """key_buf[:nkeys] (non-negative, below 2**key_bits) sorted, as a new array.

    Least significant digit first radix sort (digits of at most 12 bits,
    all histograms in one pass): a vector's keys run to millions (3×6), where
    it measured several times faster than np.sort; short runs take np.sort.
    """
    if nkeys < 1 << 13:
        return np.sort(key_buf[:nkeys])
    passes = (key_bits + 11) // 12
    digit = (key_bits + passes - 1) // passes
    size = 1 << digit
    mask = size - 1
    counts = np.zeros((passes, size), np.int64)
    src = key_buf[:nkeys].copy()
    for i in range(nkeys):
        x = src[i]
        for p in range(passes):
            counts[p, (x >> (p * digit)) & mask] += 1
    dst = np.empty(nkeys, np.int64)
    for p in range(passes):
        total = 0
        for v in range(size):
            c = counts[p, v]
            counts[p, v] = total
            total += c
        shift = p * digit
        for i in range(nkeys):
            x = src[i]
            v = (x >> shift) & mask
            dst[counts[p, v]] = x
            counts[p, v] += 1
        src, dst = dst, src
    return src


@njit(cache=True, nogil=True)
def _check_single_keys(m, n, r, plan, key_buf, nkeys, records, found, counters, verify):
    """Margins met by exactly one trade-free table are proved unique or not by the exact
    solver; unique ones go to ``records`` (while there is room).  Returns the new count.

    For m < n the solver gets the transposed puzzle (n rows of m): the same
    solutions, transposed back; its search measured ~20 % fewer nodes on 4×5
    candidates (5,432 vs 6,832 per non-unique one).
    """
    cmask = (np.int64(1) << plan.bits) - 1
    c = np.zeros(n, np.int64)
    flip = m < n
    givens = np.zeros((n, m) if flip else (m, n), np.int16)
    sol = np.zeros((1, n, m) if flip else (1, m, n), np.int16)
    keys = sorted_keys(key_buf, nkeys, plan.bits * n)
    a = 0
    while a < nkeys:
        b = a + 1
        while b < nkeys and keys[b] == keys[a]:
            b += 1
        if b == a + 1:
            key = keys[a]
            for k in range(n - 1, -1, -1):
                c[k] = key & cmask
                key >>= plan.bits
            counters[2] += 1
            if verify and (solve_kernel(c, r, givens, 2, -1, sol) if flip else
                           solve_kernel(r, c, givens, 2, -1, sol))[0] == 1:
                if found < records.shape[0]:
                    rec = records[found]
                    for i in range(m):
                        rec[i] = r[i]
                    for j in range(n):
                        rec[m + j] = c[j]
                    for i in range(m):
                        for j in range(n):
                            rec[m + n + i * n + j] = sol[0, j, i] if flip else sol[0, i, j]
                found += 1
        a = b
    return found


@njit(cache=True, nogil=True)
def atlas_vectors_kernel(m, n, vectors, plan, rows, grid, trades, key_buf, records, counters, verify):
    """Unique open puzzles whose sorted row sums are among ``vectors``.

    ``key_buf`` int64[K] scratch for the surviving column-sum keys of one
    vector (a bigger copy replaces it when they overflow, ``partitions_for``);
    ``records`` int64[R, record_width] receives the row sums, column sums
    and solution of each puzzle (the rest: ``complete_records``).
    counters (int64[5]) gets: puzzles found, trade-free tables, candidates
    checked, the largest key count of one vector, and the number of vectors
    done.  ``verify=False``
    skips the exact check (for profiling the enumeration).  Returns the
    number of puzzles.
    """
    found = 0
    for q in range(vectors.shape[0]):
        r = vectors[q]
        for i in range(m):
            grid.r_desc[i] = r[m - 1 - i]
        nkeys, key_buf = partitions_for(m, n, r, plan, rows, grid, trades, key_buf, 0)
        counters[3] = max(counters[3], nkeys)
        counters[1] += nkeys
        found = _check_single_keys(m, n, r, plan, key_buf, nkeys, records, found, counters, verify)
        counters[4] = q + 1
    counters[0] += found
    return found


def complete_records(m: int, n: int, records: np.ndarray) -> np.ndarray:
    """Fill the setup, W and min-swaps columns of records holding row sums, column sums and
    solution; returns the chi-square of each solution (numpy over all records at once)."""
    N = m * n
    o = m + n
    r = records[:, :m]
    c = records[:, m:o]
    sols = records[:, o:o + N].reshape(-1, m, n)
    setups = product_setups(r, c)
    records[:, o + N:o + 2 * N] = setups.reshape(-1, N)
    t = setups.astype(np.int64)
    records[:, o + 2 * N] = (np.abs(t.sum(axis=2) - r).sum(axis=1) + np.abs(t.sum(axis=1) - c).sum(axis=1))
    records[:, o + 2 * N + 1] = N - cycle_counts(setups.reshape(-1, N), sols.reshape(-1, N))
    return chi_squares(sols)


def cycle_counts(tables: np.ndarray, solutions: np.ndarray) -> np.ndarray:
    """Cycles of each table -> solution permutation (rows of int[k, N] holding 1..N).

    perm[x] = the cell of the table holding the number that belongs at x; a
    cycle is counted at its smallest cell, found by pointer doubling.
    """
    k, N = tables.shape
    rows = np.arange(k)[:, None]
    pos = np.empty((k, N + 1), dtype=np.int64)
    pos[rows, tables] = np.arange(N)[None, :]
    perm = np.take_along_axis(pos, solutions.astype(np.int64), axis=1)
    low = np.broadcast_to(np.arange(N), (k, N)).copy()
    step = perm
    span = 1
    while span < N:
        low = np.minimum(low, np.take_along_axis(low, step, axis=1))
        step = np.take_along_axis(step, step, axis=1)
        span *= 2
    return (low == np.arange(N)[None, :]).sum(axis=1)


def run_vectors(m: int, n: int, vectors: np.ndarray, verify: bool = True) -> AtlasResult:
    """The atlas part for the given sorted row-sum vectors (one batch)."""
    t0 = time.thread_time()
    plan = make_plan(m, n)
    rows, grid, trades = make_workspace(m, n)
    vectors = np.ascontiguousarray(vectors, dtype=np.int64).reshape(-1, m)
    rec_cap = 1 << 12
    parts = []
    tables = candidates = 0
    done = 0
    while done < len(vectors):
        key_buf = np.zeros(1 << 16, np.int64)   # grown by the kernel as needed
        records = np.zeros((rec_cap, record_width(m, n)), np.int64)
        counters = np.zeros(5, np.int64)
        found = atlas_vectors_kernel(m, n, vectors[done:], plan, rows, grid, trades, key_buf, records, counters,
                                     verify)
        if found > rec_cap:
            rec_cap = int(found)   # redo this part with room for every puzzle
            continue
        parts.append(records[:found].copy())
        tables += int(counters[1])
        candidates += int(counters[2])
        done += int(counters[4])
    records = np.concatenate(parts) if parts else np.zeros((0, record_width(m, n)), np.int64)
    chi2 = complete_records(m, n, records)
    return AtlasResult(m, n, records, chi2, tables, candidates, len(vectors), time.thread_time() - t0)
