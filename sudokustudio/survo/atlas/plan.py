"""Sizes, subset tables and the batch plan of an atlas (Python, cached per size)."""
from __future__ import annotations

from functools import cache
from itertools import combinations, islice, permutations
from math import factorial

import numpy as np

MAX_CELLS = 21          # 3×7 (tens of core-hours: a stored run, resumed) is the largest atlas run
MAX_BATCHES = 1000
PREDICT_MAX_CELLS = 30  # the size estimate (``estimate``) reaches further than a run
#: the largest two-row size (``two_rows``: sums up to 2N - 1 = 39, top-row sums up to T = 210 in 4 words)
TWO_ROW_MAX_N = 10


@cache
def subset_tables(m: int, n: int):
    """All n-subsets of 1..N as bit masks (bit v = number v), sorted by sum.

    Returns (masks int64[K], start int64[maxsum + 2]) with the subsets of sum s
    at masks[start[s]:start[s + 1]].
    """
    N = m * n
    # numpy in chunks, not a Python sort of tuples: the window predicts 3×7 (116,280 subsets) in a
    # worker, and one long Python or C call holding the GIL stalled its UI thread 50 ms
    found = combinations(range(1, N + 1), n)
    chunks = [np.array(part, dtype=np.int64) for part in iter(lambda: list(islice(found, 8192)), [])]
    subs = np.concatenate(chunks).reshape(-1, n)
    sums = subs.sum(axis=1)
    order = np.argsort(sums, kind="stable")   # combinations come lexicographic: ties keep that order
    masks = (np.int64(1) << subs[order]).sum(axis=1)
    sums = sums[order]
    maxsum = int(sums[-1])
    start = np.searchsorted(sums, np.arange(maxsum + 2)).astype(np.int64)
    return masks, start


@cache
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


def complement_vectors(m: int, n: int, vectors: np.ndarray) -> np.ndarray:
    """The row-sum vectors of the complementary tables (every number v replaced by N + 1 - v),
    sorted increasing like the vectors themselves: r'_i = n(N + 1) - r_(m+1-i)."""
    vectors = np.asarray(vectors, dtype=np.int64).reshape(-1, m)
    return n * (m * n + 1) - vectors[:, ::-1]


def lex_less(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Row by row: is a lexicographically smaller than b?  (bool[k])"""
    diff = a != b
    first = np.argmax(diff, axis=1)
    rows = np.arange(len(a))
    return diff[rows, first] & (a[rows, first] < b[rows, first])


def uses_complements(m: int, n: int) -> bool:
    """Does the m×n atlas run over complement pairs (``pair_vectors``)?  Three rows or more and not
    square: a square's complement may need transposing back to its kept orientation, which can
    move it to another row-sum vector; two rows run by their own method."""
    return 3 <= m < n


@cache
def pair_vectors(m: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    """(vectors, self_complementary): the row-sum vectors r with r <= r' (lexicographically), one
    per complement pair, and whether r = r'.  Complementing every entry (v -> N + 1 - v) maps the
    tables with margins (r, c) one to one onto those with margins (r', c'), trades onto trades, so
    a puzzle's complement is uniquely solvable exactly when it is: enumerating r finds r''s puzzles
    too (their records are made from r's), and the search over r' is never run.  For 3 <= m < n
    (``uses_complements``)."""
    vectors = row_sum_vectors(m, n)
    comp = complement_vectors(m, n, vectors)
    keep = ~lex_less(comp, vectors)
    return vectors[keep], np.all(comp[keep] == vectors[keep], axis=1)


@cache
def batch_plan(m: int, n: int, pairs: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Row-sum vectors and batch boundaries: batch b covers vectors[bounds[b]:bounds[b+1]]
    (with ``pairs``, one vector per complement pair: ``pair_vectors``).

    About one batch per four vectors (at most MAX_BATCHES), cut at equal
    steps of the mean of two shares: of the estimated work and of the
    vectors.  The work figure alone is crude (it put 2,816 vectors of 4×5,
    hours of work, into batch 0); the vector share caps a batch at twice
    the average number of vectors, so progress never stalls on one batch.
    The plan depends only on (m, n).
    """
    vectors = pair_vectors(m, n)[0] if pairs else row_sum_vectors(m, n)
    work = np.cumsum(_work_estimate(m, n, vectors))
    share = 0.5 * work / work[-1] + 0.5 * np.arange(1, len(vectors) + 1) / len(vectors)
    n_batches = int(min(MAX_BATCHES, max(1, len(vectors) // 4)))
    cuts = np.searchsorted(share, np.arange(1, n_batches) / n_batches, side="right")
    bounds = np.unique(np.concatenate([[0], cuts, [len(vectors)]]))
    return vectors, bounds.astype(np.int64)


@cache
def pairing_tables(m: int, n: int):
    """The n! arrangements of a row (lexicographic: an arrangement's rank is its index).

    Returns (perms int64[n!, n], inverse int64[n!] (rank of the inverse),
    compose_t int16[n!, n!] with compose_t[b, a] = rank of perms[a]∘perms[b]
    (b first: a placed row's arrangement b is composed with every pairing a
    in one row of the table, read in order; only needed with three or more
    rows; a 1×1 dummy for two rows, and for n >= 8, where the table would
    take n!² words (3.3 GB) and ranks are computed instead), fact int64[n+1],
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
    if m >= 3 and n <= 7:
        # int16 (ranks < 5040): the table is read at random, 1 MB (n = 6) stays in L2 where 4 MB did not;
        # for n = 7 (51 MB) a search reads one row (10 KB) at a time, and computing each rank
        # instead made a 3×7 row-sum vector ~60× dearer than its pops at n = 6 prices
        compose_t = np.empty((len(perms), len(perms)), np.int16)
        step = 256   # rows of the table at a time: the whole n = 7 temporary would take 1.4 GB
        for b in range(0, len(perms), step):
            chunk = perms[:, perms[b:b + step]]   # [a, b, k]: perms[a, perms[b, k]]
            compose_t[b:b + step] = ranks(chunk).T
    else:
        compose_t = np.zeros((1, 1), np.int16)
    row_orders = np.array(list(permutations(range(m))), dtype=np.int64)
    return perms, inverse, compose_t, fact, row_orders


@cache
def cell_pair_masks(n: int) -> np.ndarray:
    """Bit sets over the n! arrangements (rank k: bit k & 63 of word k >> 6): entry
    [a·n + b, u·n + v] holds the arrangements putting element u in column a and element v in
    column b (perms[k, a] == u, perms[k, b] == v).  For n <= 7 (n⁴·n!/64 words: 15,552 for
    n = 6, 189,679 for n = 7); beyond, a 1×1×1 dummy (the last row's column pairs are then tested
    one by one)."""
    if n > 7:
        return np.zeros((1, 1, 1), np.int64)
    perms = np.array(list(permutations(range(n))), dtype=np.int64)
    n_words = (len(perms) + 63) // 64
    hit = (perms[:, :, None, None, None] == np.arange(n)[None, None, :, None, None]) & \
        (perms[:, None, None, :, None] == np.arange(n)[None, None, None, None, :])   # [k, a, u, b, v]
    hit = hit.transpose(1, 3, 2, 4, 0).reshape(n * n, n * n, len(perms))           # [a·n + b, u·n + v, k]
    padded = np.zeros((n * n, n * n, n_words * 64), bool)
    padded[:, :, :len(perms)] = hit
    return np.packbits(padded, axis=2, bitorder="little").view(np.int64).reshape(n * n, n * n, n_words)


@cache
def subset_pair_masks(n: int) -> np.ndarray:
    """Bit sets over the n! arrangements (as ``cell_pair_masks``): entry [S, T] (bit masks of
    positions) holds the arrangements mapping the positions S onto the positions T
    ({perms[k, j] : j in S} == T; empty unless |S| == |T|).  For n <= 7 (2**2n·n!/64 words:
    49,152 for n = 6, 1.3 M (10 MB) for n = 7: listing 3×7 pairings depth first made a row-sum
    vector cost minutes); beyond, a 1×1×1 dummy (pairings are then listed depth first)."""
    if n > 7:
        return np.zeros((1, 1, 1), np.int64)
    perms = np.array(list(permutations(range(n))), dtype=np.int64)
    n_perms = len(perms)
    n_words = (n_perms + 63) // 64
    subsets = np.arange(1 << n)
    members = (subsets[:, None] >> np.arange(n)[None, :]) & 1                      # [S, j]
    image = (members[None, :, :] << perms[:, None, :]).sum(axis=2)                  # [k, S]: q(S) as a mask
    hit = np.zeros((1 << n, 1 << n, n_words * 64), bool)
    hit[subsets[None, :], image, np.arange(n_perms)[:, None]] = True
    return np.packbits(hit, axis=2, bitorder="little").view(np.int64).reshape(1 << n, 1 << n, n_words)


def check_size(m: int, n: int, max_cells: int | None = MAX_CELLS) -> None:
    """Raise ValueError for a size the atlas cannot take (``max_cells=None``: the limit of the
    estimate, ``PREDICT_MAX_CELLS``, whose bit sets and keys hold numbers up to 30).

    Two rows run by their own method (``two_rows``) up to 2×``TWO_ROW_MAX_N``;
    the estimate of the general search stops at 8 columns (n! arrangements).
    """
    limit = PREDICT_MAX_CELLS if max_cells is None else max_cells
    max_n = TWO_ROW_MAX_N if m == 2 and max_cells is not None else 8
    if not (2 <= m <= 8 and 2 <= n <= max_n):
        raise ValueError(f"atlas size {m}x{n}: rows and columns must be between 2 and 8"
                         + (f" (2 rows: up to {TWO_ROW_MAX_N} columns)" if max_cells is not None else ""))
    if m > n:
        raise ValueError(f"atlas size {m}x{n}: give the smaller side first ({n}x{m} is the same atlas transposed)")
    if m * n > limit:
        raise ValueError(f"atlas size {m}x{n}: at most {limit} cells")


def uses_two_rows(m: int, n: int) -> bool:
    """Does the m×n atlas run by the two-row method (``two_rows``)?  2×2 keeps the general one
    (its transposition rule)."""
    return m == 2 and n >= 3
