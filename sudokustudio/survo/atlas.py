"""Atlas of the uniquely solvable open Survo puzzles of a size (seed 001).

An open m×n puzzle is a pair (row sums, column sums) of a table holding
1..N (N = m·n) once each; it is uniquely solvable when exactly one table has
those margins.  Tied sums would let two lines swap, so a unique puzzle has
distinct row sums and distinct column sums, and "essentially different"
puzzles are counted with rows and columns sorted by increasing sum (and,
for m = n, one of a puzzle and its transpose kept).

Method (row-sum batches, whole-row arrangement, trade pruning, margin
dedupe, exact check):

* Every table with sorted margins is enumerated once in a canonical form:
  rows are the row *sets* of a partition with row sums r_1 < … < r_m; the
  rows are placed in an order chosen per partition, the first one written
  in increasing order (it names the columns), each other one whole as one
  of the n! arrangements of its set.  Any order meets every table once;
  the one with the smallest estimated search tree (from the numbers of
  trade-free pairings below) is taken, which puts the most constrained
  rows first.
* A table that contains a *trade* is never the unique solution of its
  margins, so it is cut as soon as the trade appears: two rows whose entries
  over some set of columns have equal sums (swap them: same row and column
  sums), or two columns whose entries over some set of rows have equal sums.
  The full set of columns (rows) is included, which also forces distinct
  row (column) sums.
* Row pairs: whether two rows have such a trade depends only on which of
  their entries share a column (a *pairing*), not on the column order.  So
  when the partition search picks a row set, the trade-free pairings with
  every earlier row set are listed once (a depth-first search with subset
  sums kept incrementally) and shared by the whole subtree; a row set
  without any ends it.  A row's candidate arrangements are a bit set over
  the n! arrangement ranks: its trade-free pairings with the first placed
  row (written increasing, so a pairing is an arrangement) AND, for each
  earlier row l, its trade-free pairings with row l composed with row l's
  arrangement (built once when row l is placed).  Candidates that fail a
  row pair are never visited.
* Column pairs: the subset sums of T[., a] − T[., b] over the placed rows
  are kept per column pair; before a row is tried, the differences its
  entries x_a − x_b may not have are collected as bits, so a candidate costs
  one bit test per column pair.  Leaves sort their column sums in place.
* When m >= 4, once three rows are placed, two more trades among them are
  cut: permuting entries within the columns of those three rows keeping
  their row sums (meet in the middle over the columns, in a stamped table
  that is never cleared), and permuting entries within those rows among
  three columns keeping the column sums (the first two rows' part is
  marked once per second row, a third-row candidate costs 6 look-ups per
  triple).
* A batch handles whole row-sum vectors r, so every table with margins
  (r, c) is met inside one batch: the surviving tables' column-sum vectors
  are sorted, and only the c met exactly once are candidates.  (A candidate
  may still have a second solution that was cut for its own trade.)  Each
  candidate is proved unique or not by the exact solver
  (``solve.solve_survo_kernel``, limit 2), which also returns its solution.
* m = n: only the orientation of REFERENCES.md is kept (row sums sorted
  decreasingly lexicographically smaller than the column sums sorted the
  same way); its transpose is the same essential puzzle.

Per puzzle the batch records the solution, the product setup (DESIGN.md tie
rule, ``setup.product_setup_kernel``), the initial W, the minimum number of
swaps from the setup and the chi-square of the solution.  Results are
integer histograms plus the puzzle rows, so merging is exact.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import combinations, permutations
from math import factorial

import numpy as np
from numba import njit

from sudokustudio.core.plain import plain_dataclass

from sudokustudio.core.batch import BatchJob
from sudokustudio.core.bits import lowest_index64
from sudokustudio.survo.setup import chi_squares, product_setups
from sudokustudio.survo.solve import solve_kernel

#: S(m, n) of REFERENCES.md (Mustonen), keyed by (m, n) with m <= n.
KNOWN_COUNTS = {(2, 2): 1, (2, 3): 18, (2, 4): 62, (2, 5): 278, (2, 6): 1146, (2, 7): 5706,
                (3, 3): 38, (3, 4): 583, (3, 5): 5337, (4, 4): 5327, (4, 5): 257773}

#: Seed 001's tables for the 5327 open 4×4 puzzles.
SEED_SWAPS_4x4 = [85, 262, 522, 977, 1271, 1222, 696, 255, 36, 1]
#: W bins as seed 001 prints them: "0-4", 6, 8, ..., 22 -> (frequency, "% solvable in < 6 swaps").
SEED_W_BINS_4x4 = [("0-4", 467, 100.0), ("6", 417, 99.5), ("8", 609, 99.0), ("10", 879, 93.6),
                   ("12", 896, 85.8), ("14", 929, 70.6), ("16", 681, 56.6), ("18", 312, 49.6),
                   ("20", 126, 46.8), ("22", 11, 54.5)]
SEED_ALL_UNDER6_4x4 = 81.5
SEED_CHI2_RANGE_4x4 = (0.25, 8.25)

MAX_CELLS = 20          # 4×5 (the stretch size) is the largest practical atlas
MAX_BATCHES = 1000

# puzzle record layout: row sums (m) | column sums (n) | solution (m·n) | setup (m·n) | W | swaps
# (chi-square is kept in a separate float array)


# ------------------------------------------------------------------ tables
@lru_cache(maxsize=None)
def subset_tables(m: int, n: int):
    """All n-subsets of 1..N as bit masks (bit v = number v), sorted by sum.

    Returns (masks int64[K], start int64[maxsum + 2]) with the subsets of sum s
    at masks[start[s]:start[s + 1]].
    """
    N = m * n
    subs = sorted(combinations(range(1, N + 1), n), key=lambda c: (sum(c), c))
    masks = np.array([sum(1 << v for v in c) for c in subs], dtype=np.int64)
    sums = np.array([sum(c) for c in subs], dtype=np.int64)
    maxsum = int(sums[-1])
    start = np.searchsorted(sums, np.arange(maxsum + 2)).astype(np.int64)
    return masks, start


@lru_cache(maxsize=None)
def row_sum_vectors(m: int, n: int) -> np.ndarray:
    """Every strictly increasing vector of m achievable n-subset sums totalling N(N+1)/2.

    Sorted lexicographically; int64[k, m].  (Some may have no partition at all.)
    """
    N = m * n
    total = N * (N + 1) // 2
    lo = n * (n + 1) // 2
    hi = sum(range(N - n + 1, N + 1))
    out: list[tuple[int, ...]] = []

    def rec(prefix: list[int], remaining: int, k: int, smallest: int):
        if k == 1:
            if smallest <= remaining <= hi:
                out.append(tuple(prefix + [remaining]))
            return
        # the k remaining sums are > previous and increasing: s*k + k(k-1)/2 <= remaining
        s = smallest
        while s <= hi and s * k + k * (k - 1) // 2 <= remaining:
            rec(prefix + [s], remaining - s, k - 1, s + 1)
            s += 1

    rec([], total, m, lo)
    return np.array(out, dtype=np.int64).reshape(-1, m)


def _work_estimate(m: int, n: int, vectors: np.ndarray) -> np.ndarray:
    """A rough work figure per row-sum vector: product of the subset counts of its sums."""
    masks, start = subset_tables(m, n)
    counts = np.diff(start).astype(np.float64)
    return np.prod(counts[vectors], axis=1)


@lru_cache(maxsize=None)
def batch_plan(m: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Row-sum vectors and batch boundaries: batch b covers vectors[bounds[b]:bounds[b+1]].

    About one batch per four vectors (at most MAX_BATCHES), cut so that the
    batches have equal estimated work; the plan depends only on (m, n).
    """
    vectors = row_sum_vectors(m, n)
    work = np.cumsum(_work_estimate(m, n, vectors))
    n_batches = int(min(MAX_BATCHES, max(1, len(vectors) // 4)))
    cuts = np.searchsorted(work, work[-1] * np.arange(1, n_batches) / n_batches, side="right")
    bounds = np.unique(np.concatenate([[0], cuts, [len(vectors)]]))
    return vectors, bounds.astype(np.int64)


@lru_cache(maxsize=None)
def pairing_tables(m: int, n: int):
    """The n! arrangements of a row (lexicographic: an arrangement's rank is its index).

    Returns (perms int64[n!, n], inverse int64[n!] (rank of the inverse),
    compose int64[n!, n!] with compose[a, b] = rank of perms[a]∘perms[b]
    (only needed with three or more rows, else a 1×1 dummy), fact int64[n+1],
    row_orders int64[m!, m] (every order of placing the m rows)).
    """
    perms = np.array(list(permutations(range(n))), dtype=np.int64)
    fact = np.array([factorial(k) for k in range(n + 1)], dtype=np.int64)

    def ranks(p):   # lexicographic ranks of the arrangements p[..., :] (Lehmer code)
        out = np.zeros(p.shape[:-1], np.int64)
        for k in range(n - 1):
            out += (p[..., k + 1:] < p[..., k:k + 1]).sum(axis=-1) * fact[n - 1 - k]
        return out

    inverse = ranks(np.argsort(perms, axis=1))
    if m >= 3:
        compose = ranks(perms[:, perms])   # [a, b, k] = perms[a, perms[b, k]]
    else:
        compose = np.zeros((1, 1), np.int64)
    row_orders = np.array(list(permutations(range(m))), dtype=np.int64)
    return perms, inverse, compose, fact, row_orders


# ------------------------------------------------------------------ kernels
@njit(cache=True, nogil=True)
def _mask_values(mask, N, out):
    k = 0
    for v in range(1, N + 1):
        if (mask >> v) & 1:
            out[k] = v
            k += 1


_PERM3 = np.array([[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]], dtype=np.int64)


@njit(cache=True, nogil=True)
def _expand_half(opt, j0, j1, out):
    """out[:6**(j1-j0)] = every sum of one option per column j0..j1-1 (index 0: all unchanged)."""
    out[0, 0] = 0
    out[0, 1] = 0
    size = 1
    for j in range(j0, j1):
        for q in range(5, -1, -1):   # q = 0 last: it rewrites the sources in place
            for x in range(size):
                out[q * size + x, 0] = out[x, 0] + opt[j, q, 0]
                out[q * size + x, 1] = out[x, 1] + opt[j, q, 1]
        size *= 6
    return size


@njit(cache=True, nogil=True)
def _three_row_trade(T, n, perm3, opt, half_a, half_b, seen, seen_count, stamp, span):
    """Rows 0, 1, 2 (placed): can the entries be permuted within each column so
    that the three row sums stay the same, other than by doing nothing?

    Meet in the middle over the columns: the (Δrow0, Δrow1) of every choice of
    permutations on the second half are marked in ``seen`` (cells stamped
    ``stamp``, so nothing is cleared), then the first half's are looked up.
    """
    for j in range(n):
        for q in range(6):
            opt[j, q, 0] = T[perm3[q, 0], j] - T[0, j]
            opt[j, q, 1] = T[perm3[q, 1], j] - T[1, j]
    h = n // 2
    w = 2 * span + 1
    nb = _expand_half(opt, h, n, half_b)
    for x in range(nb):
        key = (half_b[x, 0] + span) * w + half_b[x, 1] + span
        if seen[key] != stamp:
            seen[key] = stamp
            seen_count[key] = 0
        seen_count[key] += 1
    na = _expand_half(opt, 0, h, half_a)
    zero = span * w + span
    for x in range(na):
        key = (span - half_a[x, 0]) * w + span - half_a[x, 1]
        if seen[key] == stamp:
            c = seen_count[key]
            if x == 0 and key == zero:
                c -= 1   # both halves unchanged: not a trade
            if c > 0:
                return True
    return False


@njit(cache=True, nogil=True)
def _mark_two_row_triples(T, n, perm3, marks, stamp, span2):
    """Rows 0, 1 (placed), columns a < b < c (triple t): stamp in ``marks[t]``
    the (Δcol a, Δcol b) of every permutation of the entries within each of
    the two rows among the three columns, other than doing nothing."""
    w = 2 * span2 + 1
    t = 0
    for a in range(n):
        for b in range(a + 1, n):
            for c in range(b + 1, n):
                for p0 in range(6):
                    x0 = T[0, a], T[0, b], T[0, c]
                    da0 = x0[perm3[p0, 0]] - x0[0]
                    db0 = x0[perm3[p0, 1]] - x0[1]
                    for p1 in range(6):
                        if p0 == 0 and p1 == 0:
                            continue
                        x1 = T[1, a], T[1, b], T[1, c]
                        da = da0 + x1[perm3[p1, 0]] - x1[0]
                        db = db0 + x1[perm3[p1, 1]] - x1[1]
                        marks[t, (da + span2) * w + db + span2] = stamp
                t += 1


@njit(cache=True, nogil=True)
def _three_col_trade(T, n, perm3, marks, stamp, span2):
    """Rows 0, 1, 2 (placed), columns a < b < c: can the entries be permuted
    within each row so that the three column sums stay the same (rows 3..
    untouched)?  Rows 0 and 1 were marked by ``_mark_two_row_triples``; a
    row-2 permutation other than doing nothing never leaves both Δ at 0, so
    the unmarked 'all unchanged' is the only combination to leave out."""
    w = 2 * span2 + 1
    t = 0
    for a in range(n):
        for b in range(a + 1, n):
            for c in range(b + 1, n):
                x2 = T[2, a], T[2, b], T[2, c]
                for p2 in range(6):
                    da = x2[perm3[p2, 0]] - x2[0]
                    db = x2[perm3[p2, 1]] - x2[1]
                    if marks[t, (span2 - da) * w + span2 - db] == stamp:
                        return True
                t += 1
    return False


@njit(cache=True, nogil=True)
def _good_pairings(A, B, n, fact, sub, pick, rank, out):
    """The trade-free pairings of two rows holding the sets A and B (increasing).

    A pairing q (A[j] shares a column with B[q[j]]) is trade-free when no
    nonempty set of positions has sum(B[q[j]] - A[j]) == 0.  Depth first over
    the positions with the subset sums kept incrementally (``sub``, 2**n
    scratch), so a prefix with a zero subset is cut once; ``rank[j]`` (scratch)
    is the rank contribution of positions < j.  The lexicographic ranks of
    the trade-free pairings go to ``out`` (increasing); returns their number.
    """
    count = 0
    used = 0
    sub[0] = 0
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
        bj = 1 << j
        while c < n:
            if (used >> c) & 1:
                c += 1
                continue
            d = B[c] - A[j]
            good = True
            for mask in range(bj):
                s = sub[mask] + d
                if s == 0:
                    good = False
                    break
                sub[mask | bj] = s
            if good:
                break
            c += 1
        if c >= n:
            j -= 1
            if j >= 0:
                used &= ~(1 << pick[j])
            continue
        pick[j] = c
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


@njit(cache=True, nogil=True)
def _pop_lowest(words, n_words, cursor, i):
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


@njit(cache=True, nogil=True)
def _arrange_rows(m, n, vals, perms, compose, row0_mask, pair_list, pair_count, cand, composed, T, colsub,
                  forbid, opt, half_a, half_b, seen, seen_count, marks, stamps,
                  keys, nkeys, bits, cs_sorted, sorted_r_desc):
    """All trade-free tables on the row sets ``vals`` (in placing order; row 0 fixed increasing).

    Row i (i >= 1) is placed whole, as an arrangement (rank into ``perms``)
    taken from the bit set ``cand[i]``: its trade-free pairings with row 0
    (``row0_mask[i]``) AND, for every earlier row l, its trade-free pairings
    with row l composed with row l's arrangement (``composed[l, i]``, built
    once when row l is placed).  Column pairs: ``colsub[a·n + b, S]`` is the
    sum over the placed rows S of T[., a] − T[., b]; the differences x_a − x_b
    row i may not have (−colsub over the rows above) are collected as bits
    in ``forbid[a·n + b]`` before its first candidate is tested.
    Appends the encoded sorted column sums of each surviving table to
    ``keys`` (while there is room); returns the new number of keys.
    """
    N = m * n
    n_words = cand.shape[1]
    cand_cursor = np.zeros(m, np.int64)
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
    while i >= 1:
        if i == m:
            # a trade-free table: record its sorted column sums (insertion sort, no allocation)
            for j in range(n):
                s = 0
                for l in range(m):
                    s += T[l, j]
                k = j
                while k > 0 and cs_sorted[k - 1] > s:
                    cs_sorted[k] = cs_sorted[k - 1]
                    k -= 1
                cs_sorted[k] = s
            keep = True
            if m == n:
                # orientation: r sorted decreasingly must be lexicographically smaller
                for k in range(m):
                    a = sorted_r_desc[k]
                    b = cs_sorted[n - 1 - k]
                    if a != b:
                        keep = a < b
                        break
            if keep:
                if nkeys < keys.shape[0]:
                    key = np.int64(0)
                    for k in range(n):
                        key = (key << bits) | cs_sorted[k]
                    keys[nkeys] = key
                nkeys += 1
            i -= 1
            entering = False
            continue
        if entering:
            entering = False
            cand_cursor[i] = 0
            nonempty = False
            for w in range(n_words):
                x = row0_mask[i, w]
                for l in range(1, i):
                    x &= composed[l, i, w]
                cand[i, w] = x
                if x != 0:
                    nonempty = True
            if not nonempty:
                i -= 1
                continue
            # the column differences row i must avoid
            for a in range(n):
                for b in range(a + 1, n):
                    f = np.int64(0)
                    for mask in range(1 << i):
                        s = colsub[a * n + b, mask]
                        if -N < s < N:
                            f |= np.int64(1) << (N - 1 - s)
                    forbid[i, a * n + b] = f
        k = -1
        while True:
            k = _pop_lowest(cand[i], n_words, cand_cursor, i)
            if k < 0:
                break
            good = True
            for a in range(n):
                xa = vals[i, perms[k, a]]
                for b in range(a + 1, n):
                    d = xa - vals[i, perms[k, b]]
                    if (forbid[i, a * n + b] >> (d + N - 1)) & 1:
                        good = False
                        break
                if not good:
                    break
            if good and i == 2 and m > 3:
                # three rows complete and more to come: cut trades among them (every completion
                # keeps them); for m = 3 the margin dedupe is cheaper than these checks
                for j in range(n):
                    T[2, j] = vals[2, perms[k, j]]
                if _three_col_trade(T, n, _PERM3, marks, stamps[1], span2):
                    good = False
                else:
                    stamps[0] += 1
                    if _three_row_trade(T, n, _PERM3, opt, half_a, half_b, seen, seen_count, stamps[0], span):
                        good = False
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
        # the arrangements of each later row that pair trade-free with this one
        for i2 in range(i + 1, m):
            for w in range(n_words):
                composed[i, i2, w] = 0
            for t in range(pair_count[i, i2]):
                rank = compose[pair_list[i, i2, t], k]
                composed[i, i2, rank >> 6] |= np.int64(1) << (rank & 63)
        if i == 1 and m > 3:
            stamps[1] += 1
            _mark_two_row_triples(T, n, _PERM3, marks, stamps[1], span2)
        i += 1
        entering = True
    return nkeys


@njit(cache=True, nogil=True)
def _place_rows_in_order(m, n, vals, pair_list, pair_count, inverse, fact, row_orders, placed_vals, placed_list,
                         placed_count, row0_mask):
    """Choose the order in which ``_arrange_rows`` places the row sets of a partition.

    Any row may come first (written increasing, it names the columns) and
    the others in any order: every table is still met exactly once.  The
    estimated tree size of an order is the sum over its levels of
    prod(pairings with the first row) · prod(pairings with the other earlier
    rows / n!); the smallest wins.  Copies the row sets, their pairing lists
    (a pair met in reverse takes the inverse pairings) and the first row's
    pairings as bit sets into the ``placed_*`` arrays and ``row0_mask``.
    """
    F = float(fact[n])
    best = -1.0
    best_o = 0
    for o in range(row_orders.shape[0]):
        est = 0.0
        level = 1.0
        for k in range(1, m):
            b = row_orders[o, k]
            for l in range(k):
                a = row_orders[o, l]
                g = float(pair_count[a, b] if a < b else pair_count[b, a])
                level *= g if l == 0 else g / F
            est += level
        if best < 0.0 or est < best:
            best = est
            best_o = o
    for k in range(m):
        src = row_orders[best_o, k]
        for j in range(n):
            placed_vals[k, j] = vals[src, j]
    n_words = row0_mask.shape[1]
    for k in range(1, m):
        b = row_orders[best_o, k]
        for l in range(k):
            a = row_orders[best_o, l]
            if a < b:
                c = pair_count[a, b]
                for t in range(c):
                    placed_list[l, k, t] = pair_list[a, b, t]
            else:
                c = pair_count[b, a]
                for t in range(c):
                    placed_list[l, k, t] = inverse[pair_list[b, a, t]]
            placed_count[l, k] = c
        # the first row is written increasing: its pairings are the arrangements of row k
        for w in range(n_words):
            row0_mask[k, w] = 0
        for t in range(placed_count[0, k]):
            rank = placed_list[0, k, t]
            row0_mask[k, rank >> 6] |= np.int64(1) << (rank & 63)


@njit(cache=True, nogil=True)
def _partitions_for(m, n, r, masks, start, perms, inverse, compose, fact, row_orders, vals, row0_mask,
                    pair_list, pair_count, placed_vals, placed_list, placed_count, cand, composed, T, colsub,
                    forbid, opt, half_a, half_b, seen, seen_count, marks, stamps, sub, pick,
                    keys, nkeys, bits, cs_sorted, sorted_r_desc):
    """Enumerate the row-set partitions with row sums r (increasing) and arrange each.

    The trade-free pairings of row d with each earlier row are listed as
    soon as row d's set is chosen (shared by the whole subtree); a row set
    with no trade-free pairing against an earlier one ends its subtree.
    Each partition is then arranged in the row order of smallest estimated
    search tree (``_place_rows_in_order``).
    """
    N = m * n
    n_words = cand.shape[1]
    full = np.int64(0)
    for v in range(1, N + 1):
        full |= np.int64(1) << v
    pos = np.zeros(m, np.int64)
    rank_prefix = np.zeros(n + 1, np.int64)
    chosen = np.zeros(m, np.int64)
    used = np.zeros(m + 1, np.int64)   # used[d] = union of rows 0..d-1
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
        for l in range(d):
            c = _good_pairings(vals[l], vals[d], n, fact, sub, pick, rank_prefix, pair_list[l, d])
            pair_count[l, d] = c
            if c == 0:
                alive = False
                break
        if d == m - 1:
            if alive:
                _place_rows_in_order(m, n, vals, pair_list, pair_count, inverse, fact, row_orders, placed_vals,
                                     placed_list, placed_count, row0_mask)
                nkeys = _arrange_rows(m, n, placed_vals, perms, compose, row0_mask, placed_list, placed_count,
                                      cand, composed, T, colsub, forbid, opt, half_a, half_b, seen,
                                      seen_count, marks, stamps, keys, nkeys, bits, cs_sorted,
                                      sorted_r_desc)
            d -= 1
            continue
        if alive:
            d += 1
            if d < m - 1:
                pos[d] = start[r[d]] - 1
    return nkeys


@njit(cache=True, nogil=True)
def atlas_vectors_kernel(m, n, vectors, masks, start, perms, inverse, compose, fact, row_orders,
                         key_buf, records, counters, verify=True):
    """Unique open puzzles whose sorted row sums are among ``vectors``.

    ``key_buf`` int64[K] scratch for the surviving column-sum keys of one
    vector; ``records`` int64[R, m + n + 2·m·n + 2] receives the row sums,
    column sums and solution of each puzzle (the rest: ``complete_records``).  counters (int64[5])
    gets: puzzles found, trade-free tables, candidates checked, the largest
    key count of one vector, and the number of vectors done: a vector whose
    keys exceed len(key_buf) stops the run before it (the caller resumes
    there with a bigger buffer).
    ``verify=False`` skips the exact check (for profiling the enumeration).
    Returns the number of puzzles.
    """
    N = m * n
    bits = 1
    while (1 << bits) <= m * N:
        bits += 1
    cmask = (np.int64(1) << bits) - 1
    vals = np.zeros((m, n), np.int64)
    T = np.zeros((m, n), np.int64)
    n_perms = fact[n]
    n_words = (n_perms + 63) // 64
    pair_list = np.zeros((m, m, n_perms), np.int64)   # [l, i]: trade-free pairings of row sets l < i
    pair_count = np.zeros((m, m), np.int64)
    placed_vals = np.zeros((m, n), np.int64)             # the row sets in placing order
    placed_list = np.zeros((m, m, n_perms), np.int64)    # pair_list in placing order
    placed_count = np.zeros((m, m), np.int64)
    row0_mask = np.zeros((m, n_words), np.int64)
    cand = np.zeros((m, n_words), np.int64)
    composed = np.zeros((m, m, n_words), np.int64)
    colsub = np.zeros((n * n, 1 << m), np.int64)
    forbid = np.zeros((m, n * n), np.int64)
    cs_sorted = np.zeros(n, np.int64)
    sub = np.zeros(1 << n, np.int64)
    pick = np.zeros(n + 1, np.int64)
    # three-row / three-column trade scratch (stamped tables: never cleared)
    span = (N - 1) * (n - n // 2)
    span2 = 2 * (N - 1)
    opt = np.zeros((n, 6, 2), np.int64)
    half_a = np.zeros((6 ** (n // 2), 2), np.int64)
    half_b = np.zeros((6 ** (n - n // 2), 2), np.int64)
    seen = np.zeros((2 * span + 1) ** 2, np.int64)
    seen_count = np.zeros((2 * span + 1) ** 2, np.int64)
    marks = np.zeros((max(1, n * (n - 1) * (n - 2) // 6), (2 * span2 + 1) ** 2), np.int64)
    stamps = np.zeros(2, np.int64)
    sub = np.zeros(1 << n, np.int64)
    pick = np.zeros(n + 1, np.int64)
    c = np.zeros(n, np.int64)
    givens = np.zeros((m, n), np.int16)
    sol = np.zeros((1, m, n), np.int16)
    found = 0
    for q in range(vectors.shape[0]):
        r = vectors[q]
        sorted_r_desc = r[::-1].copy()
        nkeys = _partitions_for(m, n, r, masks, start, perms, inverse, compose, fact, row_orders, vals,
                                row0_mask, pair_list, pair_count, placed_vals, placed_list, placed_count, cand,
                                composed, T, colsub, forbid, opt, half_a, half_b, seen, seen_count,
                                marks, stamps, sub, pick, key_buf, 0, bits, cs_sorted,
                                sorted_r_desc)
        if nkeys > counters[3]:
            counters[3] = nkeys
        if nkeys > key_buf.shape[0]:
            break   # the caller resumes at this vector with a bigger buffer
        counters[1] += nkeys
        keys = np.sort(key_buf[:nkeys])
        a = 0
        while a < nkeys:
            b = a + 1
            while b < nkeys and keys[b] == keys[a]:
                b += 1
            if b == a + 1:
                key = keys[a]
                for k in range(n - 1, -1, -1):
                    c[k] = key & cmask
                    key >>= bits
                counters[2] += 1
                if not verify:   # profiling: enumeration and dedupe only
                    a = b
                    continue
                cnt, _ = solve_kernel(r, c, givens, 2, -1, sol)
                if cnt == 1:
                    if found < records.shape[0]:
                        rec = records[found]
                        for i in range(m):
                            rec[i] = r[i]
                        for j in range(n):
                            rec[m + j] = c[j]
                        o = m + n
                        for i in range(m):
                            for j in range(n):
                                rec[o + i * n + j] = sol[0, i, j]
                    found += 1
            a = b
        counters[4] = q + 1
    counters[0] += found
    return found


# ------------------------------------------------------------------ results
def record_width(m: int, n: int) -> int:
    return m + n + 2 * m * n + 2


@plain_dataclass("AtlasResult")
@dataclass
class AtlasResult:
    """Merged (or one batch's) atlas: puzzle records and exact counters.

    ``records`` int64[k, record_width]: row sums | column sums | solution |
    setup | W | min swaps; ``chi2`` float64[k].
    """

    m: int
    n: int
    records: np.ndarray
    chi2: np.ndarray
    tables: int = 0          # trade-free tables met
    candidates: int = 0      # margins met once among them (checked exactly)
    vectors_done: int = 0
    cpu_seconds: float = 0.0   # thread CPU time of the batches (robust to a loaded machine)

    @property
    def count(self) -> int:
        return int(self.records.shape[0])

    # -- columns
    def row_sums(self) -> np.ndarray:
        return self.records[:, :self.m]

    def col_sums(self) -> np.ndarray:
        return self.records[:, self.m:self.m + self.n]

    def solutions(self) -> np.ndarray:
        o = self.m + self.n
        return self.records[:, o:o + self.m * self.n].reshape(-1, self.m, self.n)

    def setups(self) -> np.ndarray:
        o = self.m + self.n + self.m * self.n
        return self.records[:, o:o + self.m * self.n].reshape(-1, self.m, self.n)

    def w(self) -> np.ndarray:
        return self.records[:, -2]

    def swaps(self) -> np.ndarray:
        return self.records[:, -1]

    # -- distributions
    def swaps_hist(self) -> list[int]:
        s = self.swaps()
        return np.bincount(s, minlength=1).tolist() if len(s) else []

    def w_hist(self) -> list[int]:
        w = self.w()
        return np.bincount(w, minlength=1).tolist() if len(w) else []

    def swaps_mean_sd(self) -> tuple[float, float]:
        s = self.swaps().astype(np.float64)
        if len(s) == 0:
            return float("nan"), float("nan")
        return float(s.mean()), float(s.std())

    def w_table(self, bins=None) -> list[tuple[str, int, float]]:
        """Seed 001's W table: (W bin, frequency, % of them solvable in < 6 swaps).

        Bins: "0-4" then every even W (as seed 001 prints them) up to the largest W met.
        """
        w = self.w()
        s = self.swaps()
        if bins is None:
            top = int(w.max()) if len(w) else 0
            bins = [("0-4", 0, 4)] + [(str(x), x, x) for x in range(6, max(top, 6) + 1, 2)]
        out = []
        for label, lo, hi in bins:
            sel = (w >= lo) & (w <= hi)
            k = int(sel.sum())
            pct = 100.0 * float((s[sel] < 6).sum()) / k if k else float("nan")
            out.append((label, k, pct))
        return out

    def under6_percent(self) -> float:
        s = self.swaps()
        return 100.0 * float((s < 6).sum()) / len(s) if len(s) else float("nan")

    def describe(self, seconds: float | None = None) -> dict:
        mean, sd = self.swaps_mean_sd()
        return {
            "m": self.m, "n": self.n, "count": self.count,
            "swaps_hist": self.swaps_hist(), "W_hist": self.w_hist(),
            "W_table": [{"W": lab, "count": k, "under6_percent": round(p, 1)} for lab, k, p in self.w_table()],
            "under6_percent": round(self.under6_percent(), 1),
            "swaps_mean": mean, "swaps_sd": sd,
            "chi2_min": float(self.chi2.min()) if self.count else None,
            "chi2_max": float(self.chi2.max()) if self.count else None,
            "trade_free_tables": self.tables, "candidates_checked": self.candidates,
            "seconds": self.cpu_seconds if seconds is None else seconds,
            "cpu_seconds": round(self.cpu_seconds, 3),
        }

    def puzzle_line(self, k: int) -> str:
        """One line of the atlas file (see ``write_atlas``)."""
        rec = self.records[k]
        m, n, N = self.m, self.n, self.m * self.n
        o = m + n

        def tab(a):
            return "/".join(" ".join(str(int(x)) for x in a[i * n:(i + 1) * n]) for i in range(m))

        return (f"{' '.join(map(str, rec[:m]))} | {' '.join(map(str, rec[m:o]))} | "
                f"{tab(rec[o:o + N])} | {tab(rec[o + N:o + 2 * N])} | "
                f"{int(rec[-2])} | {int(rec[-1])} | {self.chi2[k]:.4f}")


def empty_result(m: int, n: int) -> AtlasResult:
    return AtlasResult(m, n, np.zeros((0, record_width(m, n)), np.int64), np.zeros(0))


def merge_results(a: AtlasResult, b: AtlasResult) -> AtlasResult:
    return AtlasResult(a.m, a.n, np.concatenate([a.records, b.records]), np.concatenate([a.chi2, b.chi2]),
                       a.tables + b.tables, a.candidates + b.candidates, a.vectors_done + b.vectors_done,
                       a.cpu_seconds + b.cpu_seconds)


ATLAS_HEADER = ("# row sums | column sums | solution (rows split by /) | product setup | W | "
                "min swaps from the setup | chi-square")


def write_atlas(path, result: AtlasResult) -> None:
    """One puzzle per line, in the order of the run (sorted row-sum vectors)."""
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(f"# Survo atlas {result.m}x{result.n}: {result.count} essentially different "
                 "uniquely solvable open puzzles\n")
        fh.write(ATLAS_HEADER + "\n")
        for k in range(result.count):
            fh.write(result.puzzle_line(k) + "\n")


def parse_atlas_line(line: str, m: int, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Row sums, column sums and solution of one atlas line."""
    parts = [p.strip() for p in line.split("|")]
    if len(parts) != 7:
        raise ValueError(f"atlas line needs 7 fields separated by '|', got {len(parts)}: {line!r}")
    r = np.array(parts[0].split(), dtype=np.int64)
    c = np.array(parts[1].split(), dtype=np.int64)
    sol = np.array([row.split() for row in parts[2].split("/")], dtype=np.int64)
    if r.shape != (m,) or c.shape != (n,) or sol.shape != (m, n):
        raise ValueError(f"atlas line does not fit {m}x{n}: {line!r}")
    return r, c, sol


def read_atlas(path) -> AtlasResult:
    """Read a file written by ``write_atlas`` (the size comes from its first line)."""
    import re

    with open(path, encoding="utf-8") as fh:
        lines = fh.read().splitlines()
    head = re.match(r"# Survo atlas (\d+)x(\d+):", lines[0]) if lines else None
    if head is None:
        raise ValueError(f"{path}: line 1: not a Survo atlas file (expected '# Survo atlas MxN: ...')")
    m, n = int(head.group(1)), int(head.group(2))
    N = m * n
    recs, chis = [], []
    for no, line in enumerate(lines[1:], start=2):
        if not line.strip() or line.startswith("#"):
            continue
        try:
            r, c, sol = parse_atlas_line(line, m, n)
            parts = [p.strip() for p in line.split("|")]
            setup = np.array([row.split() for row in parts[3].split("/")], dtype=np.int64)
            if setup.shape != (m, n):
                raise ValueError("the setup does not fit the size")
            w, sw, chi = int(parts[4]), int(parts[5]), float(parts[6])
        except ValueError as exc:
            raise ValueError(f"{path}: line {no}: {exc}") from None
        if sorted(sol.ravel().tolist()) != list(range(1, N + 1)):
            raise ValueError(f"{path}: line {no}: the solution is not a table of 1..{N}")
        recs.append(np.concatenate([r, c, sol.ravel(), setup.ravel(), [w, sw]]))
        chis.append(chi)
    records = np.array(recs, dtype=np.int64).reshape(-1, record_width(m, n))
    return AtlasResult(m, n, records, np.array(chis, dtype=np.float64))


# ------------------------------------------------------------------ batch job
def check_size(m: int, n: int) -> None:
    if not (2 <= m <= 8 and 2 <= n <= 8):
        raise ValueError(f"atlas size {m}x{n}: rows and columns must be between 2 and 8")
    if m > n:
        raise ValueError(f"atlas size {m}x{n}: give the smaller side first ({n}x{m} is the same atlas transposed)")
    if m * n > MAX_CELLS:
        raise ValueError(f"atlas size {m}x{n}: at most {MAX_CELLS} cells")


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
    masks, start = subset_tables(m, n)
    perms, inverse, compose, fact, row_orders = pairing_tables(m, n)
    vectors = np.ascontiguousarray(vectors, dtype=np.int64).reshape(-1, m)
    key_cap = 1 << 16
    rec_cap = 1 << 12
    parts = []
    tables = candidates = 0
    done = 0
    while done < len(vectors):
        key_buf = np.zeros(key_cap, np.int64)
        records = np.zeros((rec_cap, record_width(m, n)), np.int64)
        counters = np.zeros(5, np.int64)
        found = atlas_vectors_kernel(m, n, vectors[done:], masks, start, perms, inverse, compose, fact,
                                     row_orders, key_buf, records, counters, verify)
        key_cap = max(key_cap, int(counters[3]) + 1024)
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


class SurvoAtlasJob(BatchJob):
    """Every essentially different uniquely solvable open m×n Survo puzzle, in batches.

    Batch b covers a fixed group of row-sum vectors (``batch_plan``); the run
    seed is unused (the enumeration is exact).  ``n_batches()`` batches make
    the whole atlas.
    """

    kind = "survo_atlas"
    kernel_groups = ("survo-atlas",)

    def __init__(self, m: int, n: int):
        check_size(int(m), int(n))
        super().__init__(m=int(m), n=int(n))
        self.m, self.n = int(m), int(n)

    def n_batches(self) -> int:
        return len(batch_plan(self.m, self.n)[1]) - 1

    def run_batch(self, batch_index: int, seed: int) -> AtlasResult:
        vectors, bounds = batch_plan(self.m, self.n)
        if not 0 <= batch_index < len(bounds) - 1:
            return self.empty()
        return run_vectors(self.m, self.n, vectors[bounds[batch_index]:bounds[batch_index + 1]])

    def merge(self, a: AtlasResult, b: AtlasResult) -> AtlasResult:
        return merge_results(a, b)

    def empty(self) -> AtlasResult:
        return empty_result(self.m, self.n)

    def warm_up(self) -> None:
        warm_up()

    def describe(self, total: AtlasResult) -> dict:
        return total.describe()


def warm_up() -> None:
    """Compile the atlas kernels on the 2×2 atlas."""
    run_vectors(2, 2, row_sum_vectors(2, 2))


def compare_with_seed(result: AtlasResult) -> dict:
    """Seed 001's 4×4 tables beside the computed ones, with a match flag per table.

    Only meaningful for the complete 4×4 atlas; for other sizes only the
    count is compared (with REFERENCES.md's S(m, n)).
    """
    out = {"size": f"{result.m}x{result.n}", "count": result.count,
           "known_count": KNOWN_COUNTS.get((result.m, result.n))}
    out["count_match"] = out["known_count"] == result.count
    if (result.m, result.n) != (4, 4):
        return out
    swaps = result.swaps_hist()
    swaps = swaps + [0] * (len(SEED_SWAPS_4x4) - len(swaps))
    out["swaps"] = {"seed": SEED_SWAPS_4x4, "computed": swaps, "match": swaps == SEED_SWAPS_4x4}
    computed_w = result.w_table([(lab, *_bin_limits(lab)) for lab, _, _ in SEED_W_BINS_4x4])
    w_match = all(k == sk and pct_as_printed(p, sp) for (_, k, p), (_, sk, sp) in zip(computed_w, SEED_W_BINS_4x4))
    w_match = w_match and sum(k for _, k, _ in computed_w) == result.count
    out["W_table"] = {"seed": [[lab, k, p] for lab, k, p in SEED_W_BINS_4x4],
                      "computed": [[lab, k, round(p, 2)] for lab, k, p in computed_w], "match": w_match}
    under6 = result.under6_percent()
    out["under6"] = {"seed": SEED_ALL_UNDER6_4x4, "computed": round(under6, 2),
                     "match": pct_as_printed(under6, SEED_ALL_UNDER6_4x4)}
    lo, hi = (float(result.chi2.min()), float(result.chi2.max())) if result.count else (None, None)
    out["chi2"] = {"seed_interval": list(SEED_CHI2_RANGE_4x4), "min": lo, "max": hi,
                   "match": bool(result.count) and SEED_CHI2_RANGE_4x4[0] < lo and hi < SEED_CHI2_RANGE_4x4[1]}
    mean, sd = result.swaps_mean_sd()
    out["swaps_mean_sd"] = {"seed": "about 4 and 1.6", "mean": mean, "sd": sd,
                            "match": bool(result.count) and round(mean) == 4 and abs(sd - 1.6) < 0.05}
    out["all_match"] = all(out[k]["match"] for k in ("swaps", "W_table", "under6", "chi2", "swaps_mean_sd")) \
        and out["count_match"]
    return out


def pct_as_printed(p: float, printed: float) -> bool:
    """Does percentage ``p`` print as seed 001's one-decimal figure?

    Seed 001 cuts its W-table percentages to one decimal (56.68 % -> 56.6,
    49.68 % -> 49.6) but rounds elsewhere (4339/5327 = 81.45 % -> 81.5), so
    either reading is accepted; the frequencies themselves must be equal.
    """
    if p != p:  # NaN: empty bin
        return False
    return abs(round(p, 1) - printed) < 1e-9 or abs(np.floor(p * 10 + 1e-9) / 10 - printed) < 1e-9


def _bin_limits(label: str) -> tuple[int, int]:
    if "-" in label:
        lo, hi = label.split("-")
        return int(lo), int(hi)
    return int(label), int(label)
