"""Arranging the row sets of one partition into every trade-free table (atlas search, level 2).

Rows are placed whole: the first placed row is written increasing (it names
the columns), each later one as one of the n! arrangements of its set,
taken from a bit set of candidates (see ``arrange_rows``).  The row order is
chosen per partition (``place_rows_in_order``).  The arrays come grouped as
in ``workspace`` (Plan, Rows, Grid, Trades).

The kernels here and in ``trades`` allocate nothing and are compiled without
reference counting (numba's ``_nrt=False``): otherwise every array argument of
a call, every row view (``cand[i]``) and every group passed whole (``plan``,
``rows``) costs an atomic increment and decrement, which perf put at ~25 % of a
4×5 batch (4 batches: 292 -> 241 CPU-s with the solver's helpers, same load).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from sudokustudio.core.bits import lowest_index64, popcount64
from sudokustudio.survo.atlas.keys import add_key, append_key, insert_sorted, sorted_key_5
from sudokustudio.survo.atlas.trades import (TRIPLE_PROBE, col_triple_cut, mark_two_row_triples, row_test_first,
                                             row_triple_cut)


@njit(cache=True, nogil=True, _nrt=False)
def pop_lowest(words, n_words, cursor, i):
    """Clear the lowest set bit of the bit set ``words`` and return its index (-1 if empty).

    ``cursor[i]``: the words before it are known empty (advanced here, so
    popping a whole set costs one pass over its words).
    """
    for w in range(cursor[i], n_words):
        x = words[w]
        if x != 0:
            cursor[i] = w
            low = x & -x
            words[w] = x ^ low
            return w * 64 + lowest_index64(np.uint64(low))
    cursor[i] = n_words
    return -1


@njit(cache=True, nogil=True, _nrt=False)
def compose_rank(perms, fact, a, b, n):
    """Rank of arrangement a ∘ arrangement b, computed (for n >= 7, without a table)."""
    rank = 0
    for k in range(n - 1):
        x = perms[a, perms[b, k]]
        smaller = 0
        for q in range(k + 1, n):
            if perms[a, perms[b, q]] < x:
                smaller += 1
        rank += smaller * fact[n - 1 - k]
    return rank


@njit(cache=True, nogil=True, inline="always")
def _compose_pairings(k, pairs, count, compose_t, perms, fact, n, out):
    """out = the bit set of the arrangements ``pairs[:count]`` (a later row's trade-free pairings
    with a row placed as arrangement k) composed with k: that row's candidates against it.

    Up to two words (n <= 5) the bits are gathered in registers, without a branch, and stored
    once: ORed into ``out`` they were loaded and stored at every step."""
    if out.shape[0] <= 2 and compose_t.shape[0] > 1:
        lo = np.int64(0)
        hi = np.int64(0)
        for t in range(count):
            rank = compose_t[k, pairs[t]]
            bit = np.int64(1) << (rank & 63)
            word = rank >> 6   # 0 or 1
            lo |= bit & (word - 1)
            hi |= bit & -word
        out[0] = lo
        if out.shape[0] == 2:
            out[1] = hi
        return
    for w in range(out.shape[0]):
        out[w] = 0
    for t in range(count):
        rank = compose_t[k, pairs[t]] if compose_t.shape[0] > 1 else compose_rank(perms, fact, pairs[t], k, n)
        out[rank >> 6] |= np.int64(1) << (rank & 63)


@njit(cache=True, nogil=True)
def _record_leaf(m, n, plan, grid, keys, nkeys):
    """A trade-free table (in ``grid.T``): append its key (``append_key``); returns the new count."""
    T = grid.T
    cs_sorted = grid.cs_sorted
    for j in range(n):
        s = 0
        for earlier in range(m):
            s += T[earlier, j]
        insert_sorted(cs_sorted, j, s)
    return append_key(m, n, cs_sorted, grid.r_desc, plan.bits, keys, nkeys)


@njit(cache=True, nogil=True, inline="always")
def _differences_to_avoid(colsub, forbid, i, n, N):
    """Row i's forbidden differences per column pair (a, b), as bits of forbid[i, a·n + b]:
    the differences col a − col b over every nonempty subset of the rows above (colsub),
    which row i's own difference would cancel in a trade (the empty subset's 0 is no
    difference of two distinct entries)."""
    for a in range(n):
        for b in range(a + 1, n):
            f = np.int64(0)
            for mask in range(1, 1 << i):
                s = colsub[a * n + b, mask]
                if -N < s < N:
                    f |= np.int64(1) << (N - 1 - s)
            forbid[i, a * n + b] = f


@njit(cache=True, nogil=True)
def _enter_row(i, m, n, rows, grid):
    """Row i's candidate bit set and the column differences it must avoid; False if no candidate."""
    N = m * n
    cand = grid.cand
    composed = grid.composed
    row0_mask = rows.row0_mask
    colsub = grid.colsub
    forbid = grid.forbid
    n_words = cand.shape[1]
    grid.cursor[i] = 0
    nonempty = False
    for w in range(n_words):
        x = row0_mask[i, w]
        for earlier in range(1, i):
            x &= composed[earlier, i, w]
        cand[i, w] = x
        if x != 0:
            nonempty = True
    if not nonempty:
        return False
    _differences_to_avoid(colsub, forbid, i, n, N)
    return True


@njit(cache=True, nogil=True, inline="always")
def _pair_trade(vals, perms, forbid, i, k, n, N):
    """Does arrangement k of row i make a forbidden column-pair difference (a trade with the
    rows above)?"""
    for a in range(n):
        xa = vals[i, perms[k, a]]
        for b in range(a + 1, n):
            if (forbid[i, a * n + b] >> (xa - vals[i, perms[k, b]] + N - 1)) & 1:
                return True
    return False


@njit(cache=True, nogil=True)
def _next_candidate(i, m, n, plan, rows, grid, trades, span, span2):
    """Pop row i's next arrangement passing the column-pair test (and, at row 2 of m > 3, the
    three-row / three-column trade tests); -1 when none is left."""
    N = m * n
    vals = rows.placed_vals
    perms = plan.perms
    T = grid.T
    forbid = grid.forbid
    cand_i = grid.cand[i]
    cursor = grid.cursor
    n_words = cand_i.shape[0]
    while True:
        k = pop_lowest(cand_i, n_words, cursor, i)
        if k < 0:
            return -1
        good = not _pair_trade(vals, perms, forbid, i, k, n, N)
        if good and i == 2 and m > 3:
            # three rows complete and more to come: cut trades among them (every completion
            # keeps them); for m = 3 the margin dedupe is cheaper than these checks
            for j in range(n):
                T[2, j] = vals[2, perms[k, j]]
            # rows 0, 1 were marked by _place
            good = not (col_triple_cut(T, n, trades.marks, trades.stamps, span2, True, trades.opt) or
                        row_triple_cut(T, n, trades.opt, trades.half_a, trades.half_b, trades.seen, trades.stamps,
                                       span))
        if good:
            return k


@njit(cache=True, nogil=True)
def _place(i, k, m, n, plan, rows, grid, trades, span2):
    """Write arrangement k as row i and update the column-pair sums and later rows' candidates."""
    vals = rows.placed_vals
    perms = plan.perms
    T = grid.T
    colsub = grid.colsub
    bi = 1 << i
    for j in range(n):
        T[i, j] = vals[i, perms[k, j]]
    for a in range(n):
        for b in range(a + 1, n):
            d = T[i, a] - T[i, b]
            for mask in range(bi):
                colsub[a * n + b, mask | bi] = colsub[a * n + b, mask] + d
    # the arrangements of each later row that pair trade-free with this one
    compose_t = plan.compose_t
    placed_list = rows.placed_list
    placed_count = rows.placed_count
    composed = grid.composed
    for i2 in range(i + 1, m):
        _compose_pairings(k, placed_list[i, i2], placed_count[i, i2], compose_t, perms, plan.fact, n, composed[i, i2])
    if i == 1 and m > 3:
        trades.stamps[1] += 1
        mark_two_row_triples(T, n, trades.marks, trades.stamps[1], span2, trades.opt)


@njit(cache=True, nogil=True, inline="always")
def _cut_column_trades(n, N, cand, forbid, realized, cell_masks, diff_start, diff_pairs):
    """Remove from the bit set ``cand`` every arrangement of a row with a column-pair trade:
    for each column pair (a, b) and forbidden difference d (``forbid``) that two elements u, v
    of the row have (``realized``, ``_differences``), the arrangements putting u, v with
    x_u − x_v = d (``diff_pairs``, by d) in columns a, b (``cell_masks``).  The register path
    (n <= 5) and the array path are two loop nests on purpose: one nest choosing inside its
    innermost loop measured 0.3-0.9 % slower on 4×5 batches."""
    n_words = cand.shape[0]
    if n_words <= 2:
        # the cut gathered in registers and applied once (n <= 5): ANDed into ``cand`` at each
        # step, it was loaded and stored at each step (``cand`` might alias ``cell_masks``)
        cut0 = np.int64(0)
        cut1 = np.int64(0)
        last = n_words - 1
        for a in range(n):
            for b in range(a + 1, n):
                f = forbid[a * n + b] & realized
                while f != 0:
                    low = f & -f
                    f ^= low
                    d = lowest_index64(np.uint64(low))
                    for e in range(diff_start[d], diff_start[d + 1]):
                        uv = diff_pairs[e]
                        cut0 |= cell_masks[a * n + b, uv, 0]
                        cut1 |= cell_masks[a * n + b, uv, last]
        cand[0] &= ~cut0
        cand[last] &= ~(cut1 if last else cut0)
        return
    for a in range(n):
        for b in range(a + 1, n):
            f = forbid[a * n + b] & realized
            while f != 0:
                low = f & -f
                f ^= low
                d = lowest_index64(np.uint64(low))
                for e in range(diff_start[d], diff_start[d + 1]):
                    uv = diff_pairs[e]
                    for w in range(n_words):
                        cand[w] &= ~cell_masks[a * n + b, uv, w]


@njit(cache=True, nogil=True, inline="always")
def _cut_pays(n, nb, forbid, realized, cell_masks):
    """Should a row's ``nb`` candidates lose their column-pair trades as bit sets
    (``_cut_column_trades``, about one step per forbidden difference the row's elements have)
    rather than be tested one by one (about two steps each: the bit sets pay from half as many
    candidates as forbidden differences; 4×5 batches 778, 500, 900, 345, 100 measured 33.1 CPU-s
    at one step each, 32.5 at two, 34.2 at four)?  Only where ``cell_masks`` exist."""
    if cell_masks.shape[0] <= 1:
        return False
    forbidden = 0
    for a in range(n):
        for b in range(a + 1, n):
            forbidden += popcount64(np.uint64(forbid[a * n + b] & realized))
    return 2 * nb > forbidden


@njit(cache=True, nogil=True, inline="always")
def _last_row(m, n, vals, perms, cand, forbid, realized, cell_masks, diff_start, diff_pairs, T, colbase, x, keys,
              nkeys, bits, cs_sorted, sorted_r_desc, prev, inv_prev, compose_t, fact, pairs, n_pairs, pair_mask, paired,
              leaves, leaf_prefix, last_shift):
    """Every trade-free completion of rows 0..m-2 by the last row; returns the new key count.

    ``cand``: the last row's arrangements that pair trade-free with rows
    0..m-3 (overwritten).  The column-pair trades (``forbid``) are cut from
    the bit set (``_cut_column_trades``) when that costs fewer steps than
    testing each candidate (and n <= 6 has ``cell_masks``), else tested per
    candidate.  Row m-2 (arrangement ``prev``; -1 when it is row 0, already
    in ``cand``) pairs trade-free by ``pairs[:n_pairs]`` (bit set
    ``pair_mask``): when there are fewer candidates than pairings, each
    candidate's pairing (candidate ∘ prev⁻¹) is tested by one bit, else the
    pairings composed with ``prev`` are ANDed in as a bit set (``paired``,
    scratch).  Each survivor's sorted column sums go to ``keys``, and beside them in ``leaves``
    the table's leaf code (``leaf_prefix`` | its arrangement << ``last_shift``, see
    ``arrange_rows_fast``).
    """
    N = m * n
    last = m - 1
    n_words = cand.shape[0]
    nb = 0
    for w in range(n_words):
        nb += popcount64(np.uint64(cand[w]))
    if nb == 0:
        return nkeys
    by_cells = _cut_pays(n, nb, forbid, realized, cell_masks)
    if by_cells:
        _cut_column_trades(n, N, cand, forbid, realized, cell_masks, diff_start, diff_pairs)
        nb = 0
        for w in range(n_words):
            nb += popcount64(np.uint64(cand[w]))
    test_pairs = prev >= 0 and nb < n_pairs
    if prev >= 0 and not test_pairs:
        _compose_pairings(prev, pairs, n_pairs, compose_t, perms, fact, n, paired)
        for w in range(n_words):
            cand[w] &= paired[w]
    for j in range(n):
        s = 0
        for earlier in range(last):
            s += T[earlier, j]
        colbase[j] = s
    for w in range(n_words):
        word = cand[w]
        while word != 0:
            low = word & -word
            word ^= low
            k = w * 64 + lowest_index64(np.uint64(low))
            if test_pairs:
                q = compose_t[inv_prev, k] if compose_t.shape[0] > 1 else compose_rank(perms, fact, k, inv_prev, n)
                if not (pair_mask[q >> 6] >> (q & 63)) & 1:
                    continue
            for j in range(n):
                x[j] = vals[last, perms[k, j]]
            good = True
            if not by_cells:
                for a in range(n):
                    for b in range(a + 1, n):
                        if (forbid[a * n + b] >> (x[a] - x[b] + N - 1)) & 1:
                            good = False
                            break
                    if not good:
                        break
            if good:
                if nkeys < leaves.shape[0]:
                    leaves[nkeys] = leaf_prefix | (np.int64(k) << last_shift)
                if n == 5 and m != n:   # no orientation to keep (m = n): the key in registers
                    if nkeys < keys.shape[0]:
                        keys[nkeys] = sorted_key_5(colbase[0] + x[0], colbase[1] + x[1], colbase[2] + x[2],
                                                   colbase[3] + x[3], colbase[4] + x[4], bits)
                    nkeys += 1
                else:
                    nkeys = add_key(m, n, x, colbase, keys, nkeys, bits, cs_sorted, sorted_r_desc)
    return nkeys


@njit(cache=True, nogil=True, _nrt=False)
def _differences(vals, n, N, diff_start, diff_pairs):
    """The ordered pairs u·n + v (u != v) of ``vals`` grouped by x_u − x_v + N − 1 (counting
    sort: diff_pairs[diff_start[d]:diff_start[d + 1]]); returns the differences met, as bits
    x_u − x_v + N − 1."""
    for d in range(2 * N):
        diff_start[d] = 0
    for u in range(n):
        for v in range(n):
            if u != v:
                diff_start[vals[u] - vals[v] + N] += 1
    for d in range(1, 2 * N):
        diff_start[d] += diff_start[d - 1]
    for u in range(n):
        for v in range(n):
            if u != v:
                d = vals[u] - vals[v] + N - 1
                diff_pairs[diff_start[d]] = u * n + v
                diff_start[d] += 1
    for d in range(2 * N - 1, 0, -1):
        diff_start[d] = diff_start[d - 1]
    diff_start[0] = 0
    realized = np.int64(0)
    for d in range(2 * N - 1):
        if diff_start[d + 1] > diff_start[d]:
            realized |= np.int64(1) << d
    return realized


@njit(cache=True, nogil=True, _nrt=False)
def arrange_rows_fast(m, n, vals, perms, compose_t, inverse, fact, cell_masks, row0_mask, pair_list, pair_count,
                      last_pair_mask, placed_k, cand, cand_cursor, composed, T, colsub, forbid, diff_start, diff_pairs,
                      realized, row_cut, colbase, x_last, opt, half_a, half_b, seen, marks, stamps, keys, nkeys, bits,
                      cs_sorted, sorted_r_desc, leaves, leaf_base, rank_bits):
    """All trade-free tables on the row sets ``vals`` (in placing order; row 0 fixed increasing).

    The search's hot loop, kept whole (long) with its arrays as plain arguments:
    about 120 lines, because the same search split into helpers taking the
    grouped arrays measured 1.9× slower (3×5: 8.1 vs 4.1 CPU-s); ``arrange_rows``
    unpacks the groups for it, and its own helpers are inlined (a call to
    ``_last_row`` cost 8 % of 4×4).  ``_enter_row`` … ``_record_leaf``
    serve the probes of ``estimate``.

    Row i (i >= 1) is placed whole, as an arrangement (rank into ``perms``)
    taken from the bit set ``cand[i]``: its trade-free pairings with row 0
    (``row0_mask[i]``) AND, for every earlier row l, its trade-free pairings
    with row l composed with row l's arrangement (``composed[l, i]``, built
    once when row l is placed).  Column pairs: ``colsub[a·n + b, S]`` is the
    sum over the placed rows S of T[., a] − T[., b]; the differences x_a − x_b
    row i may not have (−colsub over the rows above) are collected as bits
    in ``forbid[a·n + b]`` before its first candidate is tested.  The last
    row is completed by ``_last_row`` as bit sets (its pairings with row
    m − 2, arrangement ``placed_k[m − 2]``, are tested there: no
    ``composed[m − 2]``).  Appends the encoded sorted column sums of each
    surviving table to ``keys`` (while there is room) and its leaf code to
    ``leaves``: ``leaf_base`` | the arrangement rank of row i (1 <= i < m)
    << (i − 1)·``rank_bits`` (``enumeration.leaf_table`` rebuilds the
    table from it); returns the new number of keys.
    """
    N = m * n
    n_words = cand.shape[1]
    if cell_masks.shape[0] > 1:
        for i in range(1, m):
            realized[i] = _differences(vals[i], n, N, diff_start[i], diff_pairs[i])
    for j in range(n):
        T[0, j] = vals[0, j]
    for a in range(n):
        for b in range(a + 1, n):
            colsub[a * n + b, 0] = 0
            colsub[a * n + b, 1] = T[0, a] - T[0, b]
    span = (N - 1) * (n - n // 2)   # |Δ| bound of a half in _three_row_trade
    span2 = 2 * (N - 1)              # |Δ| bound of two rows in _mark_two_row_triples
    i = 1
    entering = True
    marked = False   # rows 0, 1's part of the three-column test (marks) is done for this row 1
    probe = 0        # third-row candidates of this partition that ran both triple tests
    row_first = True
    while i >= 1:
        if entering:
            entering = False
            if i == m - 1:   # built here, not when placing the earlier row: 4×5 cuts ~90 % before
                for earlier in range(1, m - 2):
                    _compose_pairings(placed_k[earlier], pair_list[earlier, i], pair_count[earlier, i], compose_t,
                                      perms, fact, n, composed[earlier, i])
            cand_cursor[i] = 0
            nonempty = False
            for w in range(n_words):
                x = row0_mask[i, w]
                for earlier in range(1, min(i, m - 2)):   # the last row meets row m - 2 in _last_row
                    x &= composed[earlier, i, w]
                cand[i, w] = x
                if x != 0:
                    nonempty = True
            if not nonempty:
                i -= 1
                continue
            _differences_to_avoid(colsub, forbid, i, n, N)
            if i < m - 1:
                # as bit sets when that costs less than testing each candidate popped
                nb = 0
                for w in range(n_words):
                    nb += popcount64(np.uint64(cand[i, w]))
                row_cut[i] = _cut_pays(n, nb, forbid[i], realized[i], cell_masks)
                if row_cut[i]:
                    _cut_column_trades(n, N, cand[i], forbid[i], realized[i], cell_masks, diff_start[i],
                                       diff_pairs[i])
            if i == m - 1:
                prev = placed_k[m - 2] if m > 2 else -1
                leaf_prefix = leaf_base
                for earlier in range(1, m - 1):
                    leaf_prefix |= placed_k[earlier] << ((earlier - 1) * rank_bits)
                nkeys = _last_row(m, n, vals, perms, cand[i], forbid[i], realized[i], cell_masks, diff_start[i],
                                  diff_pairs[i], T, colbase, x_last, keys, nkeys, bits, cs_sorted, sorted_r_desc, prev,
                                  inverse[max(prev, 0)], compose_t, fact, pair_list[m - 2, i], pair_count[m - 2, i],
                                  last_pair_mask, composed[m - 2, i], leaves, leaf_prefix, (m - 2) * rank_bits)
                i -= 1
                continue
        k = -1
        while True:
            k = pop_lowest(cand[i], n_words, cand_cursor, i)
            if k < 0:
                break
            # when row_cut[i], its column-pair trades are cut from the bit set already
            good = row_cut[i] or not _pair_trade(vals, perms, forbid, i, k, n, N)
            if good and i == 2 and m > 3:
                # three rows complete and more to come: cut trades among them (every completion
                # keeps them); for m = 3 the margin dedupe is cheaper than these checks
                for j in range(n):
                    T[2, j] = vals[2, perms[k, j]]
                # which of the three-row and three-column tests goes first depends on the row
                # sets (``row_test_first``); the first few candidates of each partition run
                # both, to count how often each one cuts
                if probe < TRIPLE_PROBE:
                    probe += 1
                    stamps[5] += not marked
                    row_cut3 = row_triple_cut(T, n, opt, half_a, half_b, seen, stamps, span)
                    col_cut3 = col_triple_cut(T, n, marks, stamps, span2, marked, opt)
                    marked = True
                    good = not (row_cut3 or col_cut3)
                    stamps[2] += 1
                    stamps[3] += row_cut3
                    stamps[4] += col_cut3
                    if probe == TRIPLE_PROBE:
                        row_first = row_test_first(stamps)
                elif row_first:
                    good = not row_triple_cut(T, n, opt, half_a, half_b, seen, stamps, span)
                    if good:
                        good = not col_triple_cut(T, n, marks, stamps, span2, marked, opt)
                        marked = True
                else:
                    good = not col_triple_cut(T, n, marks, stamps, span2, marked, opt)
                    marked = True
                    if good:
                        good = not row_triple_cut(T, n, opt, half_a, half_b, seen, stamps, span)
            if good:
                break
        if k < 0:
            i -= 1
            continue
        bi = 1 << i
        for j in range(n):
            T[i, j] = vals[i, perms[k, j]]
        for a in range(n):
            for b in range(a + 1, n):
                d = T[i, a] - T[i, b]
                for mask in range(bi):
                    colsub[a * n + b, mask | bi] = colsub[a * n + b, mask] + d
        placed_k[i] = k
        # the arrangements of each later row but the last that pair trade-free with this one
        # (the last row's: when it is entered)
        for i2 in range(i + 1, m - 1):
            _compose_pairings(k, pair_list[i, i2], pair_count[i, i2], compose_t, perms, fact, n, composed[i, i2])
        if i == 1:
            marked = False
        i += 1
        entering = True
    return nkeys


@njit(cache=True, nogil=True, _nrt=False)
def arrange_rows(m, n, plan, rows, grid, trades, keys, nkeys, leaves, leaf_base):
    """All trade-free tables on the row sets ``rows.placed_vals`` (see ``arrange_rows_fast``);
    appends their encoded sorted column sums to ``keys`` and their leaf codes to ``leaves``,
    returns the new key count."""
    return arrange_rows_fast(m, n, rows.placed_vals, plan.perms, plan.compose_t, plan.inverse, plan.fact,
                             plan.cell_masks, rows.row0_mask, rows.placed_list, rows.placed_count,
                             rows.last_pair_mask, grid.placed_k, grid.cand, grid.cursor, grid.composed, grid.T,
                             grid.colsub, grid.forbid, grid.diff_start, grid.diff_pairs, grid.realized, grid.row_cut,
                             grid.colbase, grid.x_last,
                             trades.opt, trades.half_a, trades.half_b, trades.seen, trades.marks,
                             trades.stamps, keys, nkeys, plan.bits, grid.cs_sorted, grid.r_desc, leaves, leaf_base,
                             plan.rank_bits)


@njit(cache=True, nogil=True, _nrt=False)
def place_rows_in_order(m, n, plan, rows):
    """Choose the order in which ``arrange_rows`` places the row sets of a partition.

    Any row may come first (written increasing, it names the columns) and
    the others in any order: every table is still met exactly once.  The
    estimated tree size of an order is the sum over its levels of
    prod(pairings with the first row) · prod(pairings with the other earlier
    rows / n!); the smallest wins.  Copies the row sets, their pairing lists
    (a pair met in reverse takes the inverse pairings) and the first row's
    pairings as bit sets into the ``placed_*`` arrays and ``row0_mask``.
    """
    pair_count = rows.pair_count
    pair_list = rows.pair_list
    row_orders = plan.row_orders
    F = float(plan.fact[n])
    best = -1.0
    best_o = 0
    for o in range(row_orders.shape[0]):
        est = 0.0
        level = 1.0
        for k in range(1, m):
            b = row_orders[o, k]
            for earlier in range(k):
                a = row_orders[o, earlier]
                g = float(pair_count[a, b] if a < b else pair_count[b, a])
                level *= g if earlier == 0 else g / F
            est += level
        if best < 0.0 or est < best:
            best = est
            best_o = o
    for k in range(m):
        src = row_orders[best_o, k]
        for j in range(n):
            rows.placed_vals[k, j] = rows.vals[src, j]
    n_words = rows.row0_mask.shape[1]
    for k in range(1, m):
        b = row_orders[best_o, k]
        for earlier in range(k):
            a = row_orders[best_o, earlier]
            if a < b:
                c = pair_count[a, b]
                for t in range(c):
                    rows.placed_list[earlier, k, t] = pair_list[a, b, t]
            else:
                c = pair_count[b, a]
                for t in range(c):
                    rows.placed_list[earlier, k, t] = plan.inverse[pair_list[b, a, t]]
            rows.placed_count[earlier, k] = c
        # the first row is written increasing: its pairings are the arrangements of row k
        for w in range(n_words):
            rows.row0_mask[k, w] = 0
        for t in range(rows.placed_count[0, k]):
            rank = rows.placed_list[0, k, t]
            rows.row0_mask[k, rank >> 6] |= np.int64(1) << (rank & 63)
    # the last row's pairings with row m - 2 as a bit set (``_last_row`` may test them one by one)
    for w in range(n_words):
        rows.last_pair_mask[w] = 0
    for t in range(rows.placed_count[m - 2, m - 1]):
        rank = rows.placed_list[m - 2, m - 1, t]
        rows.last_pair_mask[rank >> 6] |= np.int64(1) << (rank & 63)
