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
from sudokustudio.survo.atlas.plan import complement_vectors
from sudokustudio.survo.atlas.result import AtlasResult, record_width
from sudokustudio.survo.atlas.trades import PERM3, hash_slot, row_pairings, shuffle_trade
from sudokustudio.survo.atlas.workspace import make_plan, make_workspace
from sudokustudio.survo.setup import chi_squares, product_setups
from sudokustudio.survo.solve import solve_other_kernel


@njit(cache=True, nogil=True)
def _mask_values(mask, N, out):
    k = 0
    for v in range(1, N + 1):
        if (mask >> v) & 1:
            out[k] = v
            k += 1


@njit(cache=True, nogil=True)
def partitions_for(m, n, r, plan, rows, grid, trades, keys, nkeys, leaves, parts):
    """Enumerate the row-set partitions with row sums r (increasing) and arrange each.

    The trade-free pairings of row d with each earlier row are listed as
    soon as row d's set is chosen (shared by the whole subtree); a row set
    with no trade-free pairing against an earlier one ends its subtree.
    Each partition is then arranged in the row order of smallest estimated
    search tree (``place_rows_in_order``).  Beside each key, ``leaves`` gets
    its table's leaf code: the partition's number (its placed rows are
    ``parts[number]``) and the rows' arrangement ranks (``leaf_table``).
    Returns (the new key count, the key buffer, the leaf buffer, the
    partition buffer): a partition whose keys overflow ``keys`` is arranged
    again into bigger copies (the keys of one vector run to millions for
    3×6; growing here redoes one partition, where a bigger buffer from the
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
    serial_shift = (m - 1) * plan.rank_bits
    n_parts = 0
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
                if n_parts == parts.shape[0]:
                    more = np.empty((2 * n_parts, m, n), parts.dtype)
                    more[:n_parts] = parts
                    parts = more
                parts[n_parts] = rows.placed_vals
                leaf_base = np.int64(n_parts) << serial_shift
                n_parts += 1
                before = nkeys
                nkeys = arrange_rows(m, n, plan, rows, grid, trades, keys, nkeys, leaves, leaf_base)
                if nkeys > keys.shape[0]:
                    size = max(2 * keys.shape[0], nkeys + nkeys // 2)
                    bigger = np.empty(size, np.int64)
                    bigger[:before] = keys[:before]
                    keys = bigger
                    bigger = np.empty(size, np.int64)
                    bigger[:before] = leaves[:before]
                    leaves = bigger
                    nkeys = arrange_rows(m, n, plan, rows, grid, trades, keys, before, leaves, leaf_base)
            d -= 1
            continue
        if alive:
            d += 1
            if d < m - 1:
                pos[d] = start[r[d]] - 1
    return nkeys, keys, leaves, parts


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
def leaf_table(code, parts, perms, m, n, rank_bits, T):
    """Write into T the table of leaf code ``code`` (``partitions_for``): its partition's placed
    rows ``parts[code >> (m − 1)·rank_bits]``, row 0 increasing, row i by arrangement rank
    (code >> (i − 1)·rank_bits) & (2**rank_bits − 1)."""
    serial = code >> ((m - 1) * rank_bits)
    rmask = (np.int64(1) << rank_bits) - 1
    for j in range(n):
        T[0, j] = parts[serial, 0, j]
    for i in range(1, m):
        k = (code >> ((i - 1) * rank_bits)) & rmask
        for j in range(n):
            T[i, j] = parts[serial, i, perms[k, j]]


@njit(cache=True, nogil=True)
def _single_positions(keys, key_buf, nkeys):
    """The keys met once in sorted ``keys`` and, for each, its position in the unsorted
    ``key_buf`` (where its leaf code sits in the leaf buffer): (singles, positions)."""
    found = np.empty(nkeys, np.int64)
    count = 0
    a = 0
    while a < nkeys:
        b = a + 1
        while b < nkeys and keys[b] == keys[a]:
            b += 1
        if b == a + 1:
            found[count] = keys[a]
            count += 1
        a = b
    singles = found[:count].copy()
    log_size = 1
    while (1 << log_size) < 2 * count:
        log_size += 1
    hmask = (1 << log_size) - 1
    slot_of = np.full(hmask + 1, -1, np.int64)
    for t in range(count):
        h = hash_slot(singles[t], log_size)
        while slot_of[h] >= 0:
            h = (h + 1) & hmask
        slot_of[h] = t
    positions = np.zeros(count, np.int64)
    for p in range(nkeys):
        key = key_buf[p]
        h = hash_slot(key, log_size)
        while slot_of[h] >= 0:
            t = slot_of[h]
            if singles[t] == key:
                positions[t] = p
                break
            h = (h + 1) & hmask
    return singles, positions


@njit(cache=True, nogil=True)
def _row_triple_trade(T, rows, cols, N, sub, opts, sums, digits, hkeys, hcount, hstamp, stamp):
    """Does the rows x cols table T (or a transposed view) have a trade confined to three of
    its rows, entries moving within their columns (``trades.shuffle_trade`` on each triple)?
    Returns (found, the next unused stamp)."""
    for a in range(rows):
        for b in range(a + 1, rows):
            for c in range(b + 1, rows):
                for j in range(cols):
                    sub[0, j] = T[a, j]
                    sub[1, j] = T[b, j]
                    sub[2, j] = T[c, j]
                if shuffle_trade(sub, 3, cols, N, PERM3, opts, sums, digits, hkeys, hcount, hstamp, stamp):
                    return True, stamp
                stamp += 1
    return False, stamp


@njit(cache=True, nogil=True)
def _triple_trade(T, m, n, sub, opts, sums, digits, hkeys, hcount, hstamp, stamp):
    """Does the table T have a trade confined to three of its rows, entries moving within
    their columns, or to three of its columns, entries moving within their rows?  The
    search tests these only for its first three rows.  Uses stamps stamp .. stamp +
    C(m, 3) + C(n, 3) - 1."""
    found, stamp = _row_triple_trade(T, m, n, m * n, sub, opts, sums, digits, hkeys, hcount, hstamp, stamp)
    if found:
        return True
    found, stamp = _row_triple_trade(T.T, n, m, m * n, sub, opts, sums, digits, hkeys, hcount, hstamp, stamp)
    return found


@njit(cache=True, nogil=True, inline="always")
def _index_of(values, x):
    """Position of x in ``values`` (it is there)."""
    k = 0
    while values[k] != x:
        k += 1
    return k


@njit(cache=True, nogil=True)
def _sorted_solution(T, m, n, r, c, flip, out):
    """The table T (rows in placing order, columns as row 0 names them) as the solution of
    the puzzle (r, c) the solver gets: rows in the order of r, columns in the order of c (both
    increasing, distinct), transposed into ``out`` when ``flip``."""
    col_at = np.empty(n, np.int64)
    for j in range(n):
        col_at[j] = _index_of(c, T[:, j].sum())
    for i in range(m):
        ri = _index_of(r, T[i].sum())
        for j in range(n):
            if flip:
                out[col_at[j], ri] = T[i, j]
            else:
                out[ri, col_at[j]] = T[i, j]


@njit(cache=True, nogil=True)
def _check_single_keys(m, n, r, plan, key_buf, leaves, parts, nkeys, records, found, counters, verify):
    """Margins met by exactly one trade-free table are proved unique or not; unique ones go to
    ``records`` (while there is room).  Returns the new count.

    First a cheap test on the table itself (``leaf_table``): entries of three rows permuted
    within their columns keeping the row sums, or of three columns within their rows keeping
    the column sums (``_triple_trade``), which the search tests only on its first three rows;
    most candidates of 4×5 fall there.  The rest go to the exact solver knowing the table
    (``solve.solve_other_kernel``, limit 1: any other solution): it goes down to the table first,
    and a second solution mostly lies near it (4×5 batch 185: 38.0M -> 10.2M nodes).  For
    m < n the solver gets the transposed puzzle (n rows of m): the same solutions, transposed
    back; its search measured ~20 % fewer nodes on 4×5 candidates (5,432 vs 6,832 per
    non-unique one, before the known table went first).
    """
    cmask = (np.int64(1) << plan.bits) - 1
    c = np.zeros(n, np.int64)
    flip = m < n
    givens = np.zeros((n, m) if flip else (m, n), np.int16)
    known = np.zeros((n, m) if flip else (m, n), np.int16)
    sol = np.zeros((1, n, m) if flip else (1, m, n), np.int16)
    keys = sorted_keys(key_buf, nkeys, plan.bits * n)
    singles, positions = _single_positions(keys, key_buf, nkeys)
    T = np.zeros((m, n), np.int64)
    sub = np.zeros((3, max(m, n)), np.int64)
    opts = np.zeros((max(m, n), 6, 2), np.int64)
    sums = np.zeros((2, 3), np.int64)
    digits = np.zeros(max(m, n), np.int64)
    hkeys = np.zeros(1 << 9, np.int64)   # at least twice 6**(max(m, n) // 2) entries
    hcount = np.zeros(1 << 9, np.int64)
    hstamp = np.zeros(1 << 9, np.int64)
    stamp = 0
    stamp_step = m * (m - 1) * (m - 2) // 6 + n * (n - 1) * (n - 2) // 6   # stamps one test uses
    for t in range(singles.shape[0]):
        key = singles[t]
        for k in range(n - 1, -1, -1):
            c[k] = key & cmask
            key >>= plan.bits
        counters[2] += 1
        if not verify:
            continue
        leaf_table(leaves[positions[t]], parts, plan.perms, m, n, plan.rank_bits, T)
        stamp += stamp_step
        if _triple_trade(T, m, n, sub, opts, sums, digits, hkeys, hcount, hstamp, stamp):
            continue
        counters[5] += 1
        _sorted_solution(T, m, n, r, c, flip, known)
        others = (solve_other_kernel(c, r, givens, 1, -1, sol, known) if flip else
                  solve_other_kernel(r, c, givens, 1, -1, sol, known))[0]
        if others == 0:
            if found < records.shape[0]:
                rec = records[found]
                for i in range(m):
                    rec[i] = r[i]
                for j in range(n):
                    rec[m + j] = c[j]
                for i in range(m):
                    for j in range(n):
                        rec[m + n + i * n + j] = known[j, i] if flip else known[i, j]
            found += 1
    return found


@njit(cache=True, nogil=True)
def atlas_vectors_kernel(m, n, vectors, plan, rows, grid, trades, key_buf, records, counters, verify):
    """Unique open puzzles whose sorted row sums are among ``vectors``.

    ``key_buf`` int64[K] scratch for the surviving column-sum keys of one
    vector (a bigger copy replaces it when they overflow, ``partitions_for``);
    ``records`` int64[R, record_width] receives the row sums, column sums
    and solution of each puzzle (the rest: ``complete_records``).
    counters (int64[6]) gets: puzzles found, trade-free tables, candidates
    checked, the largest key count of one vector, the number of vectors
    done, and candidates that went on to the exact solver (no cheap trade
    found).  ``verify=False`` skips the checks (for profiling the enumeration).  Returns the
    number of puzzles.
    """
    found = 0
    leaf_buf = np.empty(key_buf.shape[0], np.int64)
    parts = np.empty((1024, m, n), np.int8)
    for q in range(vectors.shape[0]):
        r = vectors[q]
        for i in range(m):
            grid.r_desc[i] = r[m - 1 - i]
        nkeys, key_buf, leaf_buf, parts = partitions_for(m, n, r, plan, rows, grid, trades, key_buf, 0, leaf_buf,
                                                         parts)
        counters[3] = max(counters[3], nkeys)
        counters[1] += nkeys
        found = _check_single_keys(m, n, r, plan, key_buf, leaf_buf, parts, nkeys, records, found, counters, verify)
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


def complement_records(m: int, n: int, records: np.ndarray) -> np.ndarray:
    """The records of the complementary puzzles (every number v -> N + 1 - v; rows and columns
    reversed, so the sums still increase), margins and solution only: ``complete_records``
    fills the rest."""
    N = m * n
    o = m + n
    out = np.zeros_like(records)
    out[:, :m] = n * (N + 1) - records[:, m - 1::-1]
    out[:, m:o] = m * (N + 1) - records[:, o - 1:m - 1:-1]
    sols = records[:, o:o + N].reshape(-1, m, n)
    out[:, o:o + N] = (N + 1 - sols[:, ::-1, ::-1]).reshape(-1, N)
    return out


def _enumerate(m: int, n: int, vectors: np.ndarray, verify: bool, arrays) -> tuple[np.ndarray, int, int]:
    """(records with margins and solution, trade-free tables, candidates checked) of the vectors."""
    plan, rows, grid, trades = arrays
    rec_cap = 1 << 12
    parts = []
    tables = candidates = 0
    done = 0
    while done < len(vectors):
        key_buf = np.zeros(1 << 16, np.int64)   # grown by the kernel as needed
        records = np.zeros((rec_cap, record_width(m, n)), np.int64)
        counters = np.zeros(6, np.int64)
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
    return records, tables, candidates


def run_vectors(m: int, n: int, vectors: np.ndarray, verify: bool = True, pairs: bool = False) -> AtlasResult:
    """The atlas part for the given sorted row-sum vectors (one batch).  With ``pairs`` each
    vector stands for its complement pair (``plan.pair_vectors``): the complement's puzzles are
    made from the vector's own (``complement_records``), and the table and candidate counters
    count the complement's as the vector's own.  (The same as a search over both for three
    rows; with four, the search's cuts are not symmetric under complement, so those counters
    differ by a few % from a search of both vectors: 3,037 against 3,103 tables in one 4×5
    batch.  The puzzles are the same.)"""
    t0 = time.thread_time()
    arrays = (make_plan(m, n), *make_workspace(m, n))
    vectors = np.ascontiguousarray(vectors, dtype=np.int64).reshape(-1, m)
    if pairs:
        alone = np.all(complement_vectors(m, n, vectors) == vectors, axis=1)
        own, t1, c1 = _enumerate(m, n, np.ascontiguousarray(vectors[alone]), verify, arrays)
        twin, t2, c2 = _enumerate(m, n, np.ascontiguousarray(vectors[~alone]), verify, arrays)
        records = np.concatenate([own, twin, complement_records(m, n, twin)])
        tables, candidates = t1 + 2 * t2, c1 + 2 * c2
    else:
        records, tables, candidates = _enumerate(m, n, vectors, verify, arrays)
    chi2 = complete_records(m, n, records)
    return AtlasResult(m, n, records, chi2, tables, candidates, len(vectors), time.thread_time() - t0)
