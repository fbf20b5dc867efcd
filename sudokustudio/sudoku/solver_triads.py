"""The minirow ("triad") rule and configuration branching of the 9x9 solver kernel, after
tdoku's DPLL triad solver (github.com/t-dillon/tdoku; ideas only, no code).

A minirow is the three cells of a row (or column) in a box; it holds exactly three
digits.  Digit d of a band takes one minirow in each of the band's rows and boxes: a
permutation row -> box, its *configuration* (same for stacks, columns and boxes).
:func:`_triads` applies, at a fixpoint of the other rules: three digits forced into a
minirow clear the other digits from its cells; a minirow with only three possible
digits forces them all into it.  :func:`_choose_split` picks the branch: in the band or
stack with the fewest digit-minirow pairs left, the digit with the fewest
configurations, and one minirow of its first configuration ("d there" / "d not there"),
so that with 2 to 4 configurations the first arm fixes one configuration.

Used by ``solver._search_triads`` only (the puzzles whose root propagation leaves
many cells open): for the others the rule costs more than it saves.
"""
from __future__ import annotations

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from sudokustudio.sudoku.solver_bits import (
    _BAND,
    _DIGIT_WORDS,
    _FOLDS,
    _MINIROWS,
    COLUMN,
    SHRINK,
    _fold,
    _popcount,
)


def _build_split_tables():
    """3x3 triad pattern of a digit in a band (row x box) or stack (band x column) -> the
    triad to branch on: one of its first configuration (permutation) lying on the fewest
    other configurations (on none when it has 2 to 4, so both arms fix a configuration)."""
    perms = [(0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)]
    triad = np.zeros(512, dtype=np.int64)
    for s in range(512):
        valid = [p for p in perms if all(s >> (3 * r + p[r]) & 1 for r in range(3))]
        if valid:
            a = valid[0]
            best = min(range(3), key=lambda r: sum(1 for q in valid if q[r] == a[r]))
            triad[s] = 3 * best + a[best]
    return triad


SPLIT_TRIAD = _build_split_tables()
# configurations of a digit in a band or stack from its triads, for the patterns left by
# propagation (every triad on some configuration): 3 -> 1, 5 or 6 -> 2, 7 -> 3, 8 -> 4, 9 -> 6
CONFIGS_OF_TRIADS = np.array([0, 0, 0, 1, 1, 2, 2, 3, 4, 6, 6, 6, 6, 6, 6, 6], dtype=np.int64)
SPACED = 0o111111111        # the first cell of each minirow of a band
ROWS3 = 0o007007007          # interleaved minirow word: box 0 of each row, three bands
BOX_IN_BAND = np.array([0o7007007 << (3 * x) for x in range(3)], dtype=np.int64)
ROW_CELLS = np.array([0o777 << (9 * r) for r in range(3)], dtype=np.int64)


@njit(cache=True, nogil=True, inline="always")
def _minirow_words(st, r, d):
    """Digit d's possible minirows (bits 3k+b: band b, minirow k; bits 27+9b+c: column c
    of band b) and those it is forced into, from the rows _MINIROWS and _FOLDS of ``st``
    (filled by :func:`_triads` for row r)."""
    h = st[_MINIROWS, 3 * d] | (st[_MINIROWS, 3 * d + 1] << 1) | (st[_MINIROWS, 3 * d + 2] << 2)
    c0 = h & ROWS3
    c1 = (h >> 3) & ROWS3
    c2 = (h >> 6) & ROWS3
    one = (c0 ^ c1 ^ c2) & ~(c0 & c1 & c2)
    mh = h & (one * 0o111)
    f0 = st[_FOLDS, 3 * d]
    f1 = st[_FOLDS, 3 * d + 1]
    f2 = st[_FOLDS, 3 * d + 2]
    v = f0 | (f1 << 9) | (f2 << 18)
    mv = (f0 & ~(f1 | f2)) | ((f1 & ~(f0 | f2)) << 9) | ((f2 & ~(f0 | f1)) << 18)
    return h | (v << 27), mh | (mv << 27)


@njit(cache=True, nogil=True, inline="always")
def _triads(st, r):
    """A minirow (three cells of a row or column in a box) holds exactly three digits.
    Returns -1 on a contradiction, else the words changed.

    Long (~100 lines) because it is one hot pass inlined into the search: counting each
    digit's minirows and then restricting them work on the same per-digit words, kept in
    spare stack rows; split in two, both halves would recompute or pass those words."""
    for i in range(27):   # one loop over the words, apart, so that it runs vectorized
        a = st[r, i]
        st[_MINIROWS, i] = (a | (a >> 1) | (a >> 2)) & SPACED
        st[_FOLDS, i] = _fold(a)
    for d in range(9):
        p, m = _minirow_words(st, r, d)
        st[_DIGIT_WORDS, d] = p
        st[_DIGIT_WORDS, 9 + d] = m
    c0 = 0
    c1 = 0
    c2 = 0
    c3 = 0
    m1 = 0
    m2 = 0
    m3 = 0
    for d in range(9):
        p = st[_DIGIT_WORDS, d]
        m = st[_DIGIT_WORDS, 9 + d]
        k0 = c0 & p
        c0 ^= p
        k1 = c1 & k0
        c1 ^= k0
        k2 = c2 & k1
        c2 ^= k1
        c3 |= k2
        m3 |= m2 & m
        m2 |= m1 & m
        m1 |= m
    big = c2 | c3
    if ((~(c1 | big) | (c1 & ~c0 & ~big)) & 0x3FFFFFFFFFFFFF):
        return -1
    restrict = m3 & big                   # three forced digits (more: no solution): the others leave
    assert_ = c0 & c1 & ~big & ~m3        # three possible digits: all are forced
    if (restrict | assert_) == 0:
        # no change: the band (or stack) with the fewest digit-triad pairs left, not all fixed
        best = 1 << 20
        for j in range(6):
            mask = (SPACED << j) if j < 3 else ((0o007007007 << (3 * (j - 3))) << 27)
            n = (_popcount(c0 & mask) + 2 * _popcount(c1 & mask) + 4 * _popcount(c2 & mask)
                 + 8 * _popcount(c3 & mask))
            if n > 27:
                best = min(best, (n << 3) | j)
        st[_FOLDS, _BAND] = (best & 7) if best < (1 << 20) else -1
        return 0
    ch = 0
    for d in range(9):
        p = st[_DIGIT_WORDS, d]
        m = st[_DIGIT_WORDS, 9 + d]
        rm = p & restrict & ~m
        asr = p & assert_ & ~m
        if (rm | asr) == 0:
            continue
        w0 = st[r, 3 * d]
        w1 = st[r, 3 * d + 1]
        w2 = st[r, 3 * d + 2]
        for b in range(3):
            sel = (rm >> b) & SPACED
            cells = sel * 7 | (((rm >> (27 + 9 * b)) & 0x1FF) * 0x40201)
            if b == 0:
                w0 &= ~cells
            elif b == 1:
                w1 &= ~cells
            else:
                w2 &= ~cells
            t = (asr >> b) & SPACED
            while t:
                k = trailing_zeros(t) // 3
                t &= t - 1
                row = k // 3
                x = k - 3 * row
                clear = (ROW_CELLS[row & 3] | BOX_IN_BAND[x & 3]) & ~(0o7 << (3 * k))
                if b == 0:
                    w0 &= ~clear
                elif b == 1:
                    w1 &= ~clear
                else:
                    w2 &= ~clear
            t = (asr >> (27 + 9 * b)) & 0x1FF
            while t:
                c = trailing_zeros(t)
                t &= t - 1
                col = COLUMN << c
                inbox = BOX_IN_BAND[(c // 3) & 3] & ~col
                if b == 0:
                    w0 &= ~inbox
                    w1 &= ~col
                    w2 &= ~col
                elif b == 1:
                    w1 &= ~inbox
                    w0 &= ~col
                    w2 &= ~col
                else:
                    w2 &= ~inbox
                    w0 &= ~col
                    w1 &= ~col
        ch |= ((np.int64(w0 != st[r, 3 * d]) | (np.int64(w1 != st[r, 3 * d + 1]) << 1)
                | (np.int64(w2 != st[r, 3 * d + 2]) << 2)) << (3 * d))
        st[r, 3 * d] = w0
        st[r, 3 * d + 1] = w1
        st[r, 3 * d + 2] = w2
    return ch


@njit(cache=True, nogil=True, inline="always")
def _choose_split(st, r):
    """(word, arm-1 clear mask, arm-2 clear mask): in the band or stack chosen by the last
    fixpoint, the digit with the fewest configurations; one triad of its first configuration."""
    band = st[_FOLDS, _BAND]
    best = 1 << 20
    cm = 0o7 << (3 * (band - 3))
    for d in range(9):   # the last fixpoint's minirow and column masks are the state's
        if band < 3:
            n = _popcount(st[_MINIROWS, 3 * d + band])
        else:
            n = (_popcount(st[_FOLDS, 3 * d] & cm) + _popcount(st[_FOLDS, 3 * d + 1] & cm)
                 + _popcount(st[_FOLDS, 3 * d + 2] & cm))
        if n > 3:
            best = min(best, (CONFIGS_OF_TRIADS[n & 15] << 4) | d)
    d = best & 15
    if band < 3:
        a = st[r, 3 * d + band]
        s = (SHRINK[a & 0x1FF] | (SHRINK[(a >> 9) & 0x1FF] << 3) | (SHRINK[(a >> 18) & 0x1FF] << 6)) & 0x1FF
    else:
        t = band - 3
        f0 = st[_FOLDS, 3 * d]
        f1 = st[_FOLDS, 3 * d + 1]
        f2 = st[_FOLDS, 3 * d + 2]
        s = (((f0 >> (3 * t)) & 7) | (((f1 >> (3 * t)) & 7) << 3) | (((f2 >> (3 * t)) & 7) << 6)) & 0x1FF
    tr = SPLIT_TRIAD[s]
    row = tr // 3
    col = tr - 3 * row
    if band < 3:
        i = 3 * d + band
        box = BOX_IN_BAND[col & 3]
        inner = (0o7 << (9 * row + 3 * col)) & box
    else:
        t = band - 3
        i = 3 * d + row
        box = BOX_IN_BAND[t & 3]
        inner = COLUMN << (3 * t + col)
    a = st[r, i]
    return i, a & box & ~inner, a & inner
