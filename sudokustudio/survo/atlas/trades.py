"""Trade tests of the atlas search: a table containing a *trade* (another table with the
same margins, reached by moving a few entries) is never the unique solution of its margins.

* ``good_pairings``: the trade-free pairings of two row sets (which of their
  entries share a column), listed once per pair of row sets.
* ``three_row_trade`` / ``three_col_trade``: entries permuted within the
  columns of three rows (or within three rows among three columns) keeping
  all sums: meet in the middle over stamped tables that are never cleared.

The search's kernels are compiled without reference counting (``_nrt=False``,
see ``arrange``); ``shuffle_trade`` keeps it (the exact check calls it rarely).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from sudokustudio.core.bits import lowest_index64, popcount64

#: the six permutations of three things, the identity first (a global: numba folds it in as a constant,
#: which lets LLVM unroll the 6×6 loops below; passed as an argument it made the 4×4 atlas 2.5× slower)
PERM3 = np.array([[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]], dtype=np.int64)

@njit(cache=True, nogil=True, _nrt=False)
def expand_half(opt, j0, j1, out):
    """out[:6**(j1-j0)] = every sum of one option per column j0..j1-1 (index 0: all unchanged)."""
    out[0] = 0
    size = 1
    for j in range(j0, j1):
        for q in range(5, -1, -1):   # q = 0 last: it rewrites the sources in place
            for x in range(size):
                out[q * size + x] = out[x] + opt[j, q]
        size *= 6
    return size


@njit(cache=True, nogil=True, inline="always")
def six_changes(x, y, z, w, out):
    """out[q] = the changes (Δ at x's place, Δ at y's place), packed as Δx·w + Δy, when the
    three entries x, y, z (of one column over three rows, or of one row over three columns)
    are permuted by PERM3[q]: the six options of the three-row and three-column tests."""
    out[0] = 0
    out[1] = z - y
    out[2] = (y - x) * w + x - y
    out[3] = (y - x) * w + z - y
    out[4] = (z - x) * w + x - y
    out[5] = (z - x) * w


@njit(cache=True, nogil=True, _nrt=False)
def three_row_trade(T, n, opt, half_a, half_b, seen, stamp, span):
    """Rows 0, 1, 2 (placed): can the entries be permuted within each column so
    that the three row sums stay the same, other than by doing nothing?

    Meet in the middle over the columns: the (Δrow0, Δrow1) of every choice of
    permutations on the first n // 2 columns (the smaller half) are marked in
    ``seen`` (cells stamped ``stamp``, so nothing is cleared), then the other
    half's are looked up, stopping at the first match: most row-2 candidates
    of 4×5 have a trade, so storing the small half and scanning the big one
    measured faster than the reverse.  A change is one integer Δrow0·w + Δrow1
    (w = 2·span + 1 > twice any |Δrow1|, so sums of changes add as integers
    and a sum is 0 only when both parts are).  A zero change within the small
    half (other than all unchanged) is a trade found while marking; the scan
    skips only the big half all unchanged.  n = 4 and 5 (the atlas's sizes
    with three-row tests) run as plain nested loops (``_trade_2_2``,
    ``_trade_2_3``): 4×5 third rows measured 133 -> ~65 ns a test against the
    general odometer (``_trade_any_n``).  The two are written out, near copies,
    on purpose: one loop nest taking the half's size as an argument measured
    ~100 ns (its loops no longer unroll).
    """
    w = 2 * span + 1
    for j in range(n):   # the column's entries permuted among rows 0, 1, 2: (Δrow0, Δrow1)
        six_changes(T[0, j], T[1, j], T[2, j], w, opt[j])
    origin = span * w + span   # the cell of change 0
    if n == 5:
        return _trade_2_3(opt, seen, stamp, origin)
    if n == 4:
        return _trade_2_2(opt, seen, stamp, origin)
    return _trade_any_n(opt, n, half_a, half_b, seen, stamp, origin)


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _mark_2(opt, seen, stamp, origin):
    """Mark the changes of columns 0, 1; True when one other than all unchanged is 0 (a trade)."""
    for q0 in range(6):
        for q1 in range(6):
            change = opt[0, q0] + opt[1, q1]
            if change == 0 and (q0 > 0 or q1 > 0):
                return True
            seen[origin + change] = stamp
    return False


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _trade_2_3(opt, seen, stamp, origin):
    """``three_row_trade`` for 5 columns: 0, 1 marked, 2, 3, 4 looked up (fixed loops unroll)."""
    if _mark_2(opt, seen, stamp, origin):
        return True
    for q2 in range(6):
        e2 = origin - opt[2, q2]
        for q3 in range(6):
            e3 = e2 - opt[3, q3]
            for q4 in range(6):
                if seen[e3 - opt[4, q4]] == stamp and (q2 > 0 or q3 > 0 or q4 > 0):
                    return True
    return False


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _trade_2_2(opt, seen, stamp, origin):
    """``three_row_trade`` for 4 columns: 0, 1 marked, 2, 3 looked up."""
    if _mark_2(opt, seen, stamp, origin):
        return True
    for q2 in range(6):
        e2 = origin - opt[2, q2]
        for q3 in range(6):
            if seen[e2 - opt[3, q3]] == stamp and (q2 > 0 or q3 > 0):
                return True
    return False


@njit(cache=True, nogil=True, _nrt=False)
def _trade_any_n(opt, n, half_a, half_b, seen, stamp, origin):
    """``three_row_trade`` for any n: each half's choices listed by ``expand_half``, the last
    column of each added in the loop."""
    h = n // 2
    # the small half: its last column's options are added while marking
    na = expand_half(opt, 0, h - 1, half_a)
    for q in range(6):
        e = opt[h - 1, q]
        for x in range(na):
            change = half_a[x] + e
            if change == 0 and (x > 0 or q > 0):
                return True
            seen[origin + change] = stamp
    # the big half: its last column's six options are added while scanning (most calls stop
    # early); the origin cell (small half unchanged) is marked, so all unchanged is skipped
    nb = expand_half(opt, h, n - 1, half_b)
    for q in range(6):
        e = origin - opt[n - 1, q]
        for x in range(1 if q == 0 else 0, nb):
            if seen[e - half_b[x]] == stamp:
                return True
    return False


@njit(cache=True, nogil=True, _nrt=False)
def mark_two_row_triples(T, n, marks, stamp, span2, opt):
    """Rows 0, 1 (placed), columns a < b < c (triple t): stamp in ``marks[t]``
    the (Δcol a, Δcol b) of every permutation of the entries within each of
    the two rows among the three columns, other than doing nothing.  ``opt``
    int64[2, 6] scratch (the rows' six changes, ``six_changes``)."""
    w = 2 * span2 + 1
    origin = span2 * w + span2
    t = 0
    for a in range(n):
        for b in range(a + 1, n):
            for c in range(b + 1, n):
                six_changes(T[0, a], T[0, b], T[0, c], w, opt[0])
                six_changes(T[1, a], T[1, b], T[1, c], w, opt[1])
                for p1 in range(1, 6):   # row 0 left alone
                    marks[t, origin + opt[1, p1]] = stamp
                for p0 in range(1, 6):
                    e0 = origin + opt[0, p0]
                    for p1 in range(6):
                        marks[t, e0 + opt[1, p1]] = stamp
                t += 1


@njit(cache=True, nogil=True, _nrt=False)
def three_col_trade(T, n, marks, stamp, span2, opt):
    """Rows 0, 1, 2 (placed), columns a < b < c: can the entries be permuted
    within each row so that the three column sums stay the same (rows 3..
    untouched)?  Rows 0 and 1 were marked by ``mark_two_row_triples``; a
    row-2 permutation other than doing nothing never leaves both Δ at 0, so
    the unmarked 'all unchanged' is the only combination to leave out."""
    w = 2 * span2 + 1
    origin = span2 * w + span2
    t = 0
    for a in range(n):
        for b in range(a + 1, n):
            for c in range(b + 1, n):
                six_changes(T[2, a], T[2, b], T[2, c], w, opt[0])
                for p2 in range(6):
                    if marks[t, origin - opt[0, p2]] == stamp:
                        return True
                t += 1
    return False


#: third-row candidates per partition (m >= 4) that run both triple tests, counted in ``stamps``
#: (``arrange.arrange_rows_fast``)
TRIPLE_PROBE = 8
#: costs measured per call on 4×5 third rows (ns; three-row test, three-column test, marks of rows 0, 1;
#: 800,000 third rows of batches 345, 500, 778, 900, 2026-11-27: 150, 40, 360 before the nested loops)
ROW_TEST_COST, COL_TEST_COST, MARKS_COST = 65.0, 45.0, 230.0


@njit(cache=True, nogil=True, inline="always")
def row_test_first(stamps):
    """Should the three-row test go before the three-column one, by the counts of the candidates
    that ran both (``stamps[2:6]``: tested, cut by rows, cut by columns, second rows marked)?

    Either order keeps the same tables (both tests must pass); the expected cost per candidate
    differs: the row test cuts ~97 % of them in some 4×5 batches (700) and 40 % in others
    (380, where the column test cuts 49 %).  The column test needs its marks of rows 0, 1 once
    per second row: always when it goes first, else only when a candidate passes the row test.
    The counts are halved past 4096 candidates, so they follow the partitions as they change.
    """
    tested = float(stamps[2])
    rate_row = stamps[3] / tested
    rate_col = stamps[4] / tested
    per_node = tested / max(1.0, float(stamps[5]))   # candidates tested per second row
    marked_share = min(1.0, per_node * (1.0 - rate_row))
    row_first = (ROW_TEST_COST + (1.0 - rate_row) * COL_TEST_COST + MARKS_COST * marked_share / per_node <
                 COL_TEST_COST + (1.0 - rate_col) * ROW_TEST_COST + MARKS_COST / per_node)
    if stamps[2] > 4096:
        for q in range(2, 6):
            stamps[q] //= 2
    return row_first


@njit(cache=True, nogil=True, inline="always")
def row_triple_cut(T, n, opt, half_a, half_b, seen, stamps, span):
    """``three_row_trade`` on rows 0, 1, 2 of T with a fresh stamp (``stamps[0]``)."""
    stamps[0] += 1
    return three_row_trade(T, n, opt, half_a, half_b, seen, stamps[0], span)


@njit(cache=True, nogil=True, inline="always")
def col_triple_cut(T, n, marks, stamps, span2, marked, opt):
    """``three_col_trade`` on rows 0, 1, 2 of T, first marking rows 0, 1 (stamp ``stamps[1]``)
    unless they are ``marked`` already; ``opt`` int64[>= 2, 6] scratch."""
    if not marked:
        stamps[1] += 1
        mark_two_row_triples(T, n, marks, stamps[1], span2, opt)
    return three_col_trade(T, n, marks, stamps[1], span2, opt)


@njit(cache=True, nogil=True, _nrt=False)
def row_pairings(A, B, n, plan, rows, out):
    """The trade-free pairings of row sets A and B (see ``good_pairings``) into ``out``; returns
    their number.  By equal-sum subsets (``pairings_by_subsets``) where the plan has the
    subset tables (n <= 6), else depth first."""
    if plan.subset_masks.shape[0] > 1:
        return pairings_by_subsets(A, B, n, plan.subset_masks, rows.subset_sums, rows.sum_head, rows.sum_next,
                                   rows.bad, out)
    return good_pairings(A, B, n, plan.fact, rows.reach, rows.pick, rows.rank_prefix, out)


@njit(cache=True, nogil=True, _nrt=False)
def pairings_by_subsets(A, B, n, subset_masks, sums, head, nxt, bad, out):
    """The trade-free pairings of A and B (increasing), as ``good_pairings`` lists them.

    A pairing q has a trade exactly when some nonempty set S of A's
    positions has sum(A[S]) == sum(B[q(S)]): a set T = q(S) of B's positions
    of the same size and sum.  So every such pair (S, T) is found (A's
    subsets hashed by size and sum in ``head``/``nxt``, B's looked up),
    the arrangements mapping S onto T (``subset_masks[S, T]``, a bit set
    over the n! ranks) are ORed into ``bad``, and the ranks outside it
    are the answer, in increasing order.  Scratch: ``sums`` int64[2, 2**n],
    ``head`` int64[(n + 1)·(n·m·n + 1)] (all -1 between calls), ``nxt``
    int64[2**n], ``bad`` int64[n_words].
    """
    full = (1 << n) - 1
    n_words = bad.shape[0]
    width = head.shape[0] // (n + 1)   # sums 0..width-1 per size
    sums[0, 0] = 0
    sums[1, 0] = 0
    for S in range(1, full + 1):
        low = S & -S
        j = lowest_index64(np.uint64(low))
        sums[0, S] = sums[0, S ^ low] + A[j]
        sums[1, S] = sums[1, S ^ low] + B[j]
    for S in range(1, full + 1):
        key = popcount64(np.uint64(S)) * width + sums[0, S]
        nxt[S] = head[key]
        head[key] = S
    if n_words <= 2:
        # gathered in registers (n <= 5): ORed into ``bad`` it was loaded and stored at each step
        bad0 = np.int64(0)
        bad1 = np.int64(0)
        last = n_words - 1
        for T in range(1, full + 1):
            S = head[popcount64(np.uint64(T)) * width + sums[1, T]]
            while S >= 0:
                bad0 |= subset_masks[S, T, 0]
                bad1 |= subset_masks[S, T, last]
                S = nxt[S]
        bad[0] = bad0
        bad[last] = bad1 if last else bad0
    else:
        for w in range(n_words):
            bad[w] = 0
        for T in range(1, full + 1):
            S = head[popcount64(np.uint64(T)) * width + sums[1, T]]
            while S >= 0:
                for w in range(n_words):
                    bad[w] |= subset_masks[S, T, w]
                S = nxt[S]
    for S in range(1, full + 1):   # leave ``head`` all -1
        head[popcount64(np.uint64(S)) * width + sums[0, S]] = -1
    count = 0
    n_perms = out.shape[0]
    for w in range(n_words):
        x = ~bad[w]
        while x != 0:
            low = x & -x
            x ^= low
            k = w * 64 + lowest_index64(np.uint64(low))
            if k >= n_perms:
                break
            out[count] = k
            count += 1
    return count


@njit(cache=True, nogil=True, _nrt=False)
def good_pairings(A, B, n, fact, reach, pick, rank, out):
    """The trade-free pairings of two rows holding the sets A and B (increasing).

    A pairing q (A[j] shares a column with B[q[j]]) is trade-free when no
    nonempty set of positions has sum(B[q[j]] - A[j]) == 0.  Depth first over
    the positions, so a prefix with a zero subset is cut once.  ``reach[j]``
    (uint64[n + 1, W] scratch, ``reach_words``) is the bit set of the subset
    sums of positions < j (bit s + n·max|Δ|, the empty subset included): a
    difference d at position j closes a zero subset exactly when −d is in
    it, one bit test (it was 2**j sums); then reach[j + 1] = reach[j] OR
    reach[j] shifted by d.  ``rank[j]`` (scratch) is the rank contribution
    of positions < j.  The lexicographic ranks of the trade-free pairings go
    to ``out`` (increasing); returns their number.
    """
    n_words = reach.shape[1]
    offset = (n_words * 64) // 2   # bit of subset sum 0 (|sums| < offset: see reach_words)
    for w in range(n_words):
        reach[0, w] = np.uint64(0)
    reach[0, offset >> 6] = np.uint64(1) << np.uint64(offset & 63)
    count = 0
    used = 0
    rank[0] = 0
    j = 0
    pick[0] = -1
    while j >= 0:
        if j == n:
            out[count] = rank[n]
            count += 1
            j -= 1
            used &= ~(1 << pick[j])
            continue
        c = pick[j] + 1
        while c < n:
            if not (used >> c) & 1:
                t = offset - (B[c] - A[j])
                if not (reach[j, t >> 6] >> np.uint64(t & 63)) & np.uint64(1):
                    break
            c += 1
        if c >= n:
            j -= 1
            if j >= 0:
                used &= ~(1 << pick[j])
            continue
        pick[j] = c
        _or_shifted(reach, j, B[c] - A[j], n_words)
        smaller = 0
        for x in range(c):
            if not (used >> x) & 1:
                smaller += 1
        rank[j + 1] = rank[j] + smaller * fact[n - 1 - j]
        used |= 1 << c
        j += 1
        if j < n:
            pick[j] = -1
    return count


@njit(cache=True, nogil=True, inline="always")
def _or_shifted(reach, j, d, n_words):
    """reach[j + 1] = reach[j] | reach[j] shifted by d bits (towards higher bits for d > 0);
    0 < |d| < 64."""
    if d > 0:
        s = np.uint64(d)
        back = np.uint64(64 - d)
        carry = np.uint64(0)
        for w in range(n_words):
            x = reach[j, w]
            reach[j + 1, w] = x | (x << s) | carry
            carry = x >> back
    else:
        s = np.uint64(-d)
        back = np.uint64(64 + d)
        carry = np.uint64(0)
        for w in range(n_words - 1, -1, -1):
            x = reach[j, w]
            reach[j + 1, w] = x | (x >> s) | carry
            carry = x << back


def reach_words(m: int, n: int) -> int:
    """Words per subset-sum bit set of ``good_pairings``: sums of n differences of numbers
    1..m·n lie strictly inside ±n·(m·n − 1), centred in the set."""
    return (2 * n * (m * n - 1) + 2 + 63) // 64


@njit(cache=True, nogil=True, inline="always")
def hash_slot(key, log_size):
    """A slot in 0..2**log_size - 1 for ``key`` (Fibonacci hashing: the product's high bits,
    which depend on all of the key's bits)."""
    x = np.uint64(key) * np.uint64(0x9E3779B97F4A7C15)
    return np.int64(x >> np.uint64(64 - log_size))


@njit(cache=True, nogil=True)
def _shuffle_options(A, k, width, perms_k, opts):
    """opts[j, q, d] (d < k - 1) = the change of line d's sum when column j of ``A`` (k × width) is
    permuted by perms_k[q] (the last line's change follows: a column's changes add up to 0)."""
    for j in range(width):
        for q in range(perms_k.shape[0]):
            for d in range(k - 1):
                opts[j, q, d] = A[perms_k[q, d], j] - A[d, j]


@njit(cache=True, nogil=True)
def _pack_delta(sums, k, shift):
    """The k - 1 sums of a choice as one key (``shift`` bits each, offset to be non-negative)."""
    key = np.int64(0)
    half = np.int64(1) << (shift - 1)
    for d in range(k - 1):
        key = (key << shift) | (sums[d] + half)
    return key


@njit(cache=True, nogil=True)
def shuffle_trade(A, k, width, top, perms_k, opts, sums, digits, hkeys, hcount, hstamp, stamp):
    """Can the entries of ``A`` (k × width, distinct) be permuted within each column, not all
    left alone, so that every line (row of ``A``) keeps its sum?  Then A is not the only table
    with its margins (the column sums are kept too).  Called on a table for trades within its
    columns and on its transpose for trades within its rows.

    Meet in the middle over the columns: the line-sum changes of every choice of
    permutations of the first width // 2 columns are counted in a hash table (``hkeys`` /
    ``hcount``, slots stamped ``stamp`` so it is never cleared; size a power of two, at least
    twice (k!)**(width // 2)), then each choice of the other columns looks up the opposite change,
    stopping at the first match.  ``top``: the largest entry (the packed changes must not
    overflow their fields).  ``opts`` int64[width, k!, k - 1], ``sums`` int64[2, k],
    ``digits`` int64[width] scratch.
    """
    _shuffle_options(A, k, width, perms_k, opts)
    nq = perms_k.shape[0]
    h = width // 2
    shift = 1
    while (1 << (shift - 1)) <= width * top:   # |a change| < width·top: fits with its offset
        shift += 1
    hmask = hkeys.shape[0] - 1
    log_size = 0
    while (1 << log_size) < hkeys.shape[0]:
        log_size += 1
    for half in range(2):
        j0 = 0 if half == 0 else h
        j1 = h if half == 0 else width
        for j in range(j0, j1):
            digits[j] = 0
        while True:
            for d in range(k - 1):
                s = 0
                for j in range(j0, j1):
                    s += opts[j, digits[j], d]
                sums[0, d] = s if half == 0 else -s
            key = _pack_delta(sums[0], k, shift)
            slot = hash_slot(key, log_size)
            while hstamp[slot] == stamp and hkeys[slot] != key:
                slot = (slot + 1) & hmask
            if half == 0:
                if hstamp[slot] != stamp:
                    hstamp[slot] = stamp
                    hkeys[slot] = key
                    hcount[slot] = 0
                hcount[slot] += 1
            elif hstamp[slot] == stamp:
                c = hcount[slot]
                identity = True
                for j in range(j0, j1):
                    if digits[j] != 0:
                        identity = False
                        break
                if identity:
                    c -= 1   # both halves left alone: not a trade
                if c > 0:
                    return True
            # next choice (odometer over the half's columns)
            j = j0
            while j < j1:
                digits[j] += 1
                if digits[j] < nq:
                    break
                digits[j] = 0
                j += 1
            if j == j1:
                break
    return False
