"""The atlas search's bit-set kernels against plain definitions: trade-free pairings by
equal-sum subsets against a brute force over all pairings (and the depth-first search),
the arrangement bit set tables, the radix sort of keys, a key buffer grown mid-vector, and the
three-row and three-column trade tests and the shuffle trade test against brute forces over all permutations within
the columns."""
from __future__ import annotations

import functools
import itertools
from math import factorial

import numpy as np
import pytest

from sudokustudio.survo.atlas.enumeration import atlas_vectors_kernel, sorted_keys
from sudokustudio.survo.atlas.plan import cell_pair_masks, pairing_tables, row_sum_vectors, subset_pair_masks
from sudokustudio.survo.atlas.result import record_width
from sudokustudio.survo.atlas.trades import (PERM3, good_pairings, mark_two_row_triples, pairings_by_subsets,
                                             reach_words, shuffle_trade, three_col_trade, three_row_trade)
from sudokustudio.survo.atlas.workspace import make_plan, make_workspace


def _bit(masks, k):
    return (int(masks[k >> 6]) >> (k & 63)) & 1


def _trade_free_brute(A, B, n):
    """Ranks (lexicographic = itertools order) of the pairings with no zero-sum nonempty subset."""
    out = []
    for rank, q in enumerate(itertools.permutations(range(n))):
        d = [int(B[q[j]] - A[j]) for j in range(n)]
        if all(sum(d[j] for j in S) != 0 for k in range(1, n + 1) for S in itertools.combinations(range(n), k)):
            out.append(rank)
    return out


@pytest.mark.parametrize("m,n", [(2, 3), (3, 3), (4, 4), (3, 5), (2, 6)])
def test_pairings_by_subsets_match_brute_force_and_depth_first(m, n):
    rng = np.random.default_rng(7 * n + m)
    counts = set()
    for _ in range(40 if n >= 6 else 150):
        A, B, by_subsets, depth_first = _both_pairings(m, n, rng)
        expected = _trade_free_brute(A, B, n)
        assert by_subsets == expected
        assert depth_first == expected
        counts.add(len(by_subsets))
    assert len(counts) >= 2   # the sample meets varied cases, not one count only


def _both_pairings(m, n, rng):
    """Two random row sets of an m×n table and their trade-free pairings listed by subsets and
    depth first (the hash heads must be left clean for the next call)."""
    N = m * n
    fact = np.array([factorial(k) for k in range(n + 1)], np.int64)
    head = np.full((n + 1) * (n * N + 1), -1, np.int64)
    by_subsets, depth_first = np.zeros(factorial(n), np.int64), np.zeros(factorial(n), np.int64)
    p = rng.permutation(np.arange(1, N + 1))
    A, B = np.sort(p[:n]), np.sort(p[n:2 * n])
    c1 = pairings_by_subsets(A, B, n, subset_pair_masks(n), np.zeros((2, 1 << n), np.int64), head,
                             np.zeros(1 << n, np.int64), np.zeros((factorial(n) + 63) // 64, np.int64), by_subsets)
    c2 = good_pairings(A, B, n, fact, np.zeros((n + 1, reach_words(m, n)), np.uint64), np.zeros(n + 1, np.int64),
                       np.zeros(n + 1, np.int64), depth_first)
    assert (head == -1).all()
    return A, B, list(by_subsets[:c1]), list(depth_first[:c2])


@pytest.mark.parametrize("n", [3, 4, 5])
def test_arrangement_bit_set_tables(n):
    perms = pairing_tables(3, n)[0]
    cells, subsets = cell_pair_masks(n), subset_pair_masks(n)
    for k in range(len(perms)):
        for a, b, u, v in itertools.product(range(n), repeat=4):
            assert _bit(cells[a * n + b, u * n + v], k) == (perms[k, a] == u and perms[k, b] == v)
        for S in range(1 << n):
            image = sum(1 << int(perms[k, j]) for j in range(n) if (S >> j) & 1)
            for T in range(1 << n):
                assert _bit(subsets[S, T], k) == (T == image)


def test_sorted_keys_radix_equals_numpy_sort():
    rng = np.random.default_rng(3)
    for bits, count in [(28, 10), (30, 9000), (36, 200_000), (36, 70_000)]:
        keys = rng.integers(0, 1 << bits, size=count + 17)
        keys[5:40] = keys[3]   # repeats, as margins met more than once
        assert np.array_equal(sorted_keys(keys, count, bits), np.sort(keys[:count]))


def test_key_buffer_grown_mid_vector_gives_the_same_counts():
    m, n = 3, 4
    vectors = np.ascontiguousarray(row_sum_vectors(m, n))
    plan = make_plan(m, n)
    results = []
    for cap in (4, 1 << 20):   # 4 keys: every vector overflows, in many partitions
        rows, grid, trades = make_workspace(m, n)
        records = np.zeros((1 << 12, record_width(m, n)), np.int64)
        counters = np.zeros(6, np.int64)
        found = atlas_vectors_kernel(m, n, vectors, plan, rows, grid, trades, np.zeros(cap, np.int64), records,
                                     counters, True)
        results.append((found, counters.copy(), records[:found].copy()))
    (f1, c1, r1), (f2, c2, r2) = results
    assert f1 == f2 > 0 and c1[4] == c2[4] == len(vectors)
    assert np.array_equal(c1, c2) and np.array_equal(r1, r2)
    assert c1[3] > 4   # the small buffer did overflow


@functools.cache
def _choices(n):
    """Every choice of one of the six permutations per column (PERM3 ranks), all identities left out."""
    return np.array(list(itertools.product(range(6), repeat=n)))[1:]


def _three_row_trade_brute(T):
    """Some choice of permutations within the columns, not all identities, keeps rows 0 and 1's sums."""
    n = T.shape[1]
    cols = np.arange(n)
    d0 = np.array([[T[PERM3[q, 0], j] - T[0, j] for q in range(6)] for j in range(n)])
    d1 = np.array([[T[PERM3[q, 1], j] - T[1, j] for q in range(6)] for j in range(n)])
    ch = _choices(n)
    return bool(np.any((d0[cols, ch].sum(axis=1) == 0) & (d1[cols, ch].sum(axis=1) == 0)))


def _three_col_trade_brute(T):
    """Rows 0, 1, 2 permuted within themselves among some three columns, not all left alone,
    keeping those columns' sums."""
    n = T.shape[1]
    for cols in itertools.combinations(range(n), 3):
        sub = T[:3, list(cols)]
        for p in itertools.product(range(6), repeat=3):
            if any(p):
                moved = np.array([sub[i, PERM3[p[i]]] for i in range(3)])
                if np.array_equal(moved.sum(axis=0), sub.sum(axis=0)):
                    return True
    return False


@pytest.mark.parametrize("n", [3, 4, 5, 6])
def test_three_row_trade_matches_brute_force(n):
    """Both answers against the brute force: every "no trade" the kernel gives among up to 3,000
    random tables (rare past 4 columns: the ones that matter, a wrong one would lose a puzzle's
    table) and the first "trade" ones."""
    rng = np.random.default_rng(n)
    N = 4 * n
    _, _, trades = make_workspace(4, n)
    span = (N - 1) * (n - n // 2)
    checked = {True: 0, False: 0}
    for stamp in range(1, 3001):
        T = np.zeros((4, n), np.int64)
        T[:3] = rng.permutation(np.arange(1, N + 1))[:3 * n].reshape(3, n)
        got = three_row_trade(T, n, trades.opt, trades.half_a, trades.half_b, trades.seen, stamp, span)
        if got and checked[True] >= (40 if n < 6 else 8):
            continue
        assert got == _three_row_trade_brute(T)
        checked[bool(got)] += 1
        if checked[False] >= 20 and checked[True] >= 40:
            break
    assert checked[True] > 0 and checked[False] > 0, checked   # both answers were exercised


@pytest.mark.parametrize("n", [4, 5])
def test_three_col_trade_matches_brute_force(n):
    """The three-column test (rows 0, 1 marked once, row 2 looked up) against the brute force,
    both answers."""
    rng = np.random.default_rng(10 + n)
    N = 4 * n
    _, _, trades = make_workspace(4, n)
    span2 = 2 * (N - 1)
    answers = set()
    for stamp in range(1, 81):
        T = np.zeros((4, n), np.int64)
        T[:3] = rng.permutation(np.arange(1, N + 1))[:3 * n].reshape(3, n)
        mark_two_row_triples(T, n, trades.marks, stamp, span2, trades.opt)
        got = three_col_trade(T, n, trades.marks, stamp, span2, trades.opt)
        assert got == _three_col_trade_brute(T)
        answers.add(bool(got))
    assert answers == {True, False}


def _shuffle_trade_brute(A):
    """Some choice of permutations within the columns of A, not all identities, keeps every row sum."""
    k, width = A.shape
    perms = list(itertools.permutations(range(k)))
    for choice in itertools.product(range(len(perms)), repeat=width):
        if any(choice):
            new = np.array([[A[perms[q][d], j] for j, q in enumerate(choice)] for d in range(k)])
            if np.array_equal(new.sum(axis=1), A.sum(axis=1)):
                return True
    return False


@pytest.mark.parametrize("k,width", [(3, 3), (3, 4), (3, 5), (4, 3), (2, 5)])
def test_shuffle_trade_matches_brute_force(k, width):
    """Sub-tables of a 4×5 table (entries up to 20, so the packed changes need room for them)."""
    rng = np.random.default_rng(10 * k + width)
    top = 20
    perms_k = np.array(list(itertools.permutations(range(k))), np.int64)
    size = 2
    while size < 2 * len(perms_k) ** (width // 2):
        size *= 2
    hkeys, hcount, hstamp = np.zeros(size, np.int64), np.zeros(size, np.int64), np.zeros(size, np.int64)
    opts = np.zeros((width, len(perms_k), k - 1), np.int64)
    sums, digits = np.zeros((2, k), np.int64), np.zeros(width, np.int64)
    answers = set()
    for stamp in range(1, 41):
        low = 1 if stamp % 2 else top - k * width + 1   # the largest entries: changes reach their fields' edge
        A = rng.permutation(np.arange(low, top + 1))[:k * width].reshape(k, width).astype(np.int64)
        got = shuffle_trade(A, k, width, top, perms_k, opts, sums, digits, hkeys, hcount, hstamp, stamp)
        assert got == _shuffle_trade_brute(A)
        answers.add(bool(got))
    assert answers == {True, False}


def test_seven_column_tables_match_their_definitions_and_the_depth_first_pairings():
    """3×7 keeps the composition table and the bit sets too (plan.py): sampled entries against
    their definitions, and pairings by subsets against the depth-first listing 7 columns used."""
    n, m = 7, 3
    perms, compose_t = pairing_tables(m, n)[0], pairing_tables(m, n)[2]
    cells, subsets = cell_pair_masks(n), subset_pair_masks(n)
    rng = np.random.default_rng(77)
    lookup = {tuple(p): k for k, p in enumerate(perms.tolist())}
    for _ in range(300):
        a, b, k = (int(x) for x in rng.integers(len(perms), size=3))
        assert compose_t[b, a] == lookup[tuple(perms[a][perms[b]])]
        ca, cb, u, v = (int(x) for x in rng.integers(n, size=4))
        assert _bit(cells[ca * n + cb, u * n + v], k) == (perms[k, ca] == u and perms[k, cb] == v)
        S = int(rng.integers(1 << n))
        image = sum(1 << int(perms[k, j]) for j in range(n) if (S >> j) & 1)
        for T in (image, int(rng.integers(1 << n))):
            assert _bit(subsets[S, T], k) == (T == image)
    counts = set()
    for _ in range(25):
        _, _, by_subsets, depth_first = _both_pairings(m, n, rng)
        assert by_subsets == depth_first
        counts.add(len(by_subsets))
    assert len(counts) >= 2


def test_sorted_key_5_is_the_key_of_the_sorted_sums():
    """The 4×5 keys' sorting network against sorting: every order of five sums, ties included."""
    from sudokustudio.survo.atlas.keys import sorted_key_5

    bits = 7
    rng = np.random.default_rng(5)
    for values in itertools.chain(itertools.permutations([3, 9, 27, 40, 101]),
                                  (rng.integers(0, 6, 5) for _ in range(300))):
        expected = 0
        for v in sorted(int(x) for x in values):
            expected = (expected << bits) | v
        assert sorted_key_5(*(int(x) for x in values), bits) == expected
