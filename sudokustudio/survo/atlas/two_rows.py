"""The atlas of two-row sizes (m = 2): column pairings and counted subset sums instead of the
general search, which was predicted at ~74 core-hours for 2×10 (this takes minutes).

* A 2×n table with sorted distinct column sums c is a perfect matching of 1..N
  (N = 2n) into n pairs {a_j < b_j} with a_j + b_j = c_j (column j holds the
  pair of sum c_j) and an orientation (which of a_j, b_j is on top).  The
  tables with margins (r, c) are the (matching, orientation) pairs whose top
  row sums to r.
* A batch covers the column-sum vectors with given smallest sums (a
  *prefix*, ``two_row_plan``).  Per prefix, a depth-first search lists every
  matching whose sums are distinct, the prefix's or above its last, with
  every prefix sum used: it pairs the smallest unpaired number x with each
  unpaired y, and stops once a prefix sum s still unused cannot be formed
  (the smallest unpaired number is >= s / 2).  Each matching is visited once.
* Along the path the number of orientations reaching each top-row sum r is
  kept up to 2 as two bit sets over r (reached >= 1, >= 2): adding the pair
  {x, y} maps the counts f to f(r − x) + f(r − y), two shifts and a
  saturating add.  The prefix's matchings are stored (sums as a bit mask,
  counts, partners) and sorted by their sums: the matchings of one
  column-sum vector c are adjacent, and their counts are added
  (saturating) into c's.
* The puzzle (r, T − r; c) with 2r < T (rows sorted; r = T/2 is never
  unique: turning every column over keeps the margins) is unique iff c's
  count at r is exactly 1.  Its table: the one stored matching of c
  reaching r, its path replayed and the orientation read backwards from the
  bit sets of the levels.
* Counters equal to the general method's (checked by the tests): trade-free
  tables, i.e. tables whose top-row sum has count 1 within their own
  matching (two orientations with the same top sum differ by a row trade),
  and candidates, the (r, c) met by exactly one trade-free table.

``run_prefixes`` is what a batch runs; the records are those of the general
method (``complete_records`` fills setup, W, swaps and chi-square).
"""
from __future__ import annotations

import time
from functools import cache

import numpy as np
from numba import njit

from sudokustudio.survo.atlas.enumeration import complete_records
from sudokustudio.survo.atlas.result import AtlasResult, record_width

#: batches of a two-row atlas (2×10: half a second of CPU on average, the largest a few seconds; the run
#: merges the total and summarises it once per batch, which costs more with more batches)
TWO_ROW_BATCHES = 200

_U1 = np.uint64(1)


@njit(cache=True, nogil=True)
def _words(n):
    """Words of the bit sets over r: only r with 2r < T matter, and adding a pair only moves
    counts up, so the bits above never reach them and are not kept (2 words for 2×10)."""
    T = n * (2 * n + 1)
    return (((T - 1) // 2) >> 6) + 1


@njit(cache=True, nogil=True)
def _shifted_word(src, w, s):
    """Word w of the bit set ``src`` shifted up by s bits (bits pushed past the top are lost)."""
    q = s >> 6
    b = s & 63
    i = w - q
    if i < 0:
        return np.uint64(0)
    v = src[i] << np.uint64(b)
    if b != 0 and i >= 1:
        v |= src[i - 1] >> np.uint64(64 - b)
    return v


@njit(cache=True, nogil=True)
def _popcount(v):
    v = v - ((v >> np.uint64(1)) & np.uint64(0x5555555555555555))
    v = (v & np.uint64(0x3333333333333333)) + ((v >> np.uint64(2)) & np.uint64(0x3333333333333333))
    v = (v + (v >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((v * np.uint64(0x0101010101010101)) >> np.uint64(56))


@njit(cache=True, nogil=True)
def _add_pair(ones, twos, k, x, y, W):
    """Level k + 1 of the path's counts: f(r − x) + f(r − y) from level k, saturated at 2."""
    for w in range(W):
        a1 = _shifted_word(ones[k], w, x)
        b1 = _shifted_word(ones[k], w, y)
        ones[k + 1, w] = a1 | b1
        twos[k + 1, w] = _shifted_word(twos[k], w, x) | _shifted_word(twos[k], w, y) | (a1 & b1)


@njit(cache=True, nogil=True)
def _leaf_counts(o1, o2, W, low, acc, counters):
    """Add one matching's counts (o1 >= 1, o2 >= 2 over r) into its vector's: acc[0], acc[1] =
    the vector's counts, acc[2], acc[3] = trade-free tables per r (>= 1, >= 2); counters[1] += the
    matching's trade-free tables."""
    for w in range(W):
        o = o1[w]
        t = o2[w]
        acc[1, w] |= t | (acc[0, w] & o)
        acc[0, w] |= o
        free = o & ~t & low[w]
        counters[1] += _popcount(free)
        acc[3, w] |= acc[2, w] & free
        acc[2, w] |= free


@njit(cache=True, nogil=True)
def _record_leaf(cs, n, T, W, ones, xs, ys, js, targets, records, found):
    """Write the puzzles of ``targets`` (bit set over r) this matching reaches; returns the new count.

    Going back along the path, the top entry of the pair at level k is x_k if
    t − x_k is reached at level k, else y_k (exactly one is, as r's count is 1).
    """
    for r in range(W * 64):
        w = r >> 6
        bit = _U1 << np.uint64(r & 63)
        if (targets[w] & ones[n, w] & bit) == 0:
            continue
        if found < records.shape[0]:
            rec = records[found]
            rec[0] = r
            rec[1] = T - r
            t = r
            for k in range(n - 1, -1, -1):
                top = xs[k]
                if ((ones[k, (t - xs[k]) >> 6] >> np.uint64((t - xs[k]) & 63)) & _U1) == 0:
                    top = ys[k]
                t -= top
                j = js[k]
                rec[2 + j] = cs[j]
                rec[2 + n + j] = top
                rec[2 + 2 * n + j] = cs[j] - top
        found += 1
    return found


@njit(cache=True, nogil=True)
def _lowest_bit(v):
    b = 0
    while ((v >> b) & 1) == 0:
        b += 1
    return b


@njit(cache=True, nogil=True)
def _prefix_matchings(n, prefix, W, ws, keys, bits, partners):
    """Every matching of 1..2n into pairs of distinct sums whose sorted sums start with ``prefix``.

    Stores per matching (while there is room): its sums as a bit mask
    (``keys``), its counts over r (``bits[l, 0]`` >= 1, ``bits[l, 1]`` >= 2)
    and its partners level by level (``partners[l]``: level k pairs the
    smallest unpaired number with partners[l, k]).  Sums are the prefix's or
    above its last; a prefix sum s still unused needs an unpaired u < s / 2,
    so the search stops once the smallest unpaired number is past it.
    Returns the number of matchings (more than len(keys): retry with room).
    """
    ones, twos, xs, ys, js = ws
    N = 2 * n
    last = prefix[prefix.shape[0] - 1]
    required = np.int64(0)
    for s in prefix:
        required |= np.int64(1) << s
    for w in range(W):
        ones[0, w] = 0
        twos[0, w] = 0
    ones[0, 0] = _U1
    paired = np.int64(0)
    used = np.int64(0)
    count = 0
    k = 0
    xs[0] = 1
    ys[0] = 1
    while k >= 0:
        x = xs[k]
        y = ys[k] + 1
        while y <= N:
            s = x + y
            if ((paired >> y) & 1) == 0 and ((used >> s) & 1) == 0 and (s > last or ((required >> s) & 1) != 0):
                need = required & ~(used | (np.int64(1) << s))
                if k == n - 1:
                    if need == 0:
                        break
                else:
                    nx = x + 1
                    while nx == y or ((paired >> nx) & 1) != 0:
                        nx += 1
                    if need == 0 or 2 * nx < _lowest_bit(need):
                        break
            y += 1
        if y > N:   # no more partners for x: back to the previous level
            k -= 1
            if k >= 0:
                paired &= ~((np.int64(1) << xs[k]) | (np.int64(1) << ys[k]))
                used &= ~(np.int64(1) << (xs[k] + ys[k]))
            continue
        ys[k] = y
        _add_pair(ones, twos, k, x, y, W)
        if k == n - 1:
            if count < keys.shape[0]:
                keys[count] = used | (np.int64(1) << (x + y))
                for w in range(W):
                    bits[count, 0, w] = ones[n, w]
                    bits[count, 1, w] = twos[n, w]
                for i in range(n):
                    partners[count, i] = ys[i]
            count += 1
            continue
        paired |= (np.int64(1) << x) | (np.int64(1) << y)
        used |= np.int64(1) << (x + y)
        k += 1
        nx = x + 1
        while (paired >> nx) & 1:
            nx += 1
        xs[k] = nx
        ys[k] = nx
    return count


@njit(cache=True, nogil=True)
def _replay(n, W, ws, partners_l, col_of):
    """The path of a stored matching again: levels' counts, xs, ys, and js (columns)."""
    ones, twos, xs, ys, js = ws
    paired = np.int64(0)
    x = 1
    for k in range(n):
        y = np.int64(partners_l[k])
        xs[k] = x
        ys[k] = y
        js[k] = col_of[x + y]
        _add_pair(ones, twos, k, x, y, W)
        paired |= (np.int64(1) << x) | (np.int64(1) << y)
        while k < n - 1 and ((paired >> x) & 1) != 0:
            x += 1


@njit(cache=True, nogil=True)
def _group_vectors(n, T, W, L, keys, bits, partners, ws, low, counters, records, found):
    """The matchings stored, grouped by their sums (column-sum vectors): counts added per vector,
    counters kept, and the puzzles met exactly once recovered.  Returns the new record count."""
    acc = np.zeros((4, W), np.uint64)
    targets = np.zeros(W, np.uint64)
    cs = np.zeros(n, np.int64)
    col_of = np.zeros(4 * n, np.int64)
    order = np.argsort(keys[:L])
    a = 0
    while a < L:
        key = keys[order[a]]
        b = a + 1
        while b < L and keys[order[b]] == key:
            b += 1
        counters[3] += 1
        j = 0
        for s in range(4 * n):
            if (key >> s) & 1:
                cs[j] = s
                col_of[s] = j
                j += 1
        acc[:] = 0
        for i in range(a, b):
            _leaf_counts(bits[order[i], 0], bits[order[i], 1], W, low, acc, counters)
        any_unique = False
        for w in range(W):
            counters[2] += _popcount(acc[2, w] & ~acc[3, w])
            targets[w] = acc[0, w] & ~acc[1, w] & low[w]
            any_unique = any_unique or targets[w] != 0
        for i in range(a, b):
            if not any_unique:
                break
            hit = False
            for w in range(W):
                hit = hit or (bits[order[i], 0, w] & targets[w]) != 0
            if hit:
                _replay(n, W, ws, partners[order[i]], col_of)
                found = _record_leaf(cs, n, T, W, ws[0], ws[2], ws[3], ws[4], targets, records, found)
        a = b
    return found


@njit(cache=True, nogil=True)
def two_rows_kernel(n, prefixes, keys, bits, partners, records, counters):
    """Unique open 2×n puzzles whose sorted column sums start with one of ``prefixes`` (int64[P, k]).

    Prefix by prefix: its matchings (``_prefix_matchings``, stored in keys,
    bits, partners), then its column-sum vectors (``_group_vectors``), the
    records (row sums, column sums, solution) going to ``records``.
    counters (int64[8]) gets: puzzles, trade-free tables, candidates,
    column-sum vectors, matchings, prefixes done; a prefix whose matchings
    or puzzles exceed the room stops the run before it, with the room it
    needs in counters[6] (matchings) and counters[7] (records): the caller
    resumes there with bigger arrays.  Returns the number of puzzles.
    """
    N = 2 * n
    T = N * (N + 1) // 2
    W = _words(n)
    ws = (np.zeros((n + 1, W), np.uint64), np.zeros((n + 1, W), np.uint64), np.zeros(n, np.int64),
          np.zeros(n, np.int64), np.zeros(n, np.int64))
    low = np.zeros(W, np.uint64)
    for r in range((T + 1) // 2):   # 2r < T
        low[r >> 6] |= _U1 << np.uint64(r & 63)
    saved = np.zeros(5, np.int64)
    found = 0
    for p in range(prefixes.shape[0]):
        L = _prefix_matchings(n, prefixes[p], W, ws, keys, bits, partners)
        if L > keys.shape[0]:
            counters[6] = L
            break
        saved[:] = counters[:5]
        now = _group_vectors(n, T, W, L, keys, bits, partners, ws, low, counters, records, found)
        if now > records.shape[0]:
            counters[:5] = saved
            counters[7] = now - found
            break
        counters[4] += L
        counters[5] = p + 1
        found = now
    counters[0] += found
    return found


def prefix_length(n: int) -> int:
    """Column sums fixed per batch unit: enough units for a few hundred balanced batches."""
    return 1 if n <= 4 else (2 if n <= 7 else 3)


@cache
def _completion_counts(n: int) -> np.ndarray:
    """g[lo, j, s] = ways to choose j distinct sums in lo..2N−1 totalling s (a work estimate)."""
    N = 2 * n
    T = N * (N + 1) // 2
    hi = 2 * N - 1
    g = np.zeros((hi + 2, n + 1, T + 1), np.float64)
    g[:, 0, 0] = 1.0
    for lo in range(hi, 0, -1):
        g[lo] = g[lo + 1]
        g[lo, 1:, lo:] += g[lo + 1, :-1, :T + 1 - lo]
    return g


@cache
def prefixes_and_work(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Every feasible prefix of the sorted column sums (int64[P, k], lexicographic) and the number of
    column-sum vectors each covers (an upper bound: the per-prefix condition is not applied)."""
    N = 2 * n
    T = N * (N + 1) // 2
    hi = 2 * N - 1
    k = prefix_length(n)
    g = _completion_counts(n)
    out, work = [], []

    def rec(prefix: list[int], total: int):
        d = len(prefix)
        if d == k:
            rest = T - total
            w = g[prefix[-1] + 1, n - k, rest] if 0 <= rest <= T else 0.0
            if w > 0:
                out.append(tuple(prefix))
                work.append(w)
            return
        for v in range((prefix[-1] + 1) if prefix else 3, hi + 1):
            if total + v >= (d + 1) * (2 * d + 3):
                rec(prefix + [v], total + v)

    rec([], 0)
    return np.array(out, np.int64).reshape(-1, k), np.array(work)


@cache
def two_row_plan(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Prefixes and batch boundaries: batch b covers prefixes[bounds[b]:bounds[b+1]].

    Cut at equal steps of the mean of two shares, of the estimated work
    (column-sum vectors) and of the prefixes, as ``plan.batch_plan`` does.
    The estimate is crude (the matchings of a prefix, the real work, vary
    from 10 to 500 per vector for 2×10), but no prefix is more than about a
    second of CPU, so no batch stalls a run.
    """
    prefixes, work = prefixes_and_work(n)
    cum = np.cumsum(work)
    share = 0.5 * cum / cum[-1] + 0.5 * np.arange(1, len(prefixes) + 1) / len(prefixes)
    n_batches = int(min(TWO_ROW_BATCHES, max(1, len(prefixes) // 2)))
    cuts = np.searchsorted(share, np.arange(1, n_batches) / n_batches, side="right")
    bounds = np.unique(np.concatenate([[0], cuts, [len(prefixes)]]))
    return prefixes, bounds.astype(np.int64)


def run_prefixes(n: int, prefixes: np.ndarray, room: int = 1 << 15, rec_room: int = 1 << 12) -> AtlasResult:
    """The 2×n atlas part whose column sums start with one of ``prefixes`` (one batch).

    ``room`` and ``rec_room``: the first sizes of the matchings' and the
    records' arrays (grown, and the run resumed, when a prefix needs more).
    """
    t0 = time.thread_time()
    prefixes = np.ascontiguousarray(prefixes, dtype=np.int64).reshape(len(prefixes), -1)
    W = _words(n)
    parts = []
    counters = np.zeros(8, np.int64)
    done = 0
    while done < len(prefixes):
        keys = np.zeros(room, np.int64)
        bits = np.zeros((room, 2, W), np.uint64)
        partners = np.zeros((room, n), np.int8)
        records = np.zeros((rec_room, record_width(2, n)), np.int64)
        counters[5:] = 0
        found = two_rows_kernel(n, prefixes[done:], keys, bits, partners, records, counters)
        parts.append(records[:found].copy())
        done += int(counters[5])
        room = max(room, int(counters[6]))
        rec_room = max(rec_room, int(counters[7]))
    records = np.concatenate(parts) if parts else np.zeros((0, record_width(2, n)), np.int64)
    chi2 = complete_records(2, n, records)
    return AtlasResult(2, n, records, chi2, int(counters[1]), int(counters[2]), len(prefixes),
                       time.thread_time() - t0)


def warm_up() -> None:
    """Compile (or load) the two-row kernels on the 2×5 atlas's first prefix."""
    prefixes, _ = prefixes_and_work(5)
    run_prefixes(5, prefixes[:1])
