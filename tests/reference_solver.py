"""The 9x9 solver kernel as it was before issue 19 (commit 23874e0), kept unchanged as a
test oracle: the new kernel must agree with it on solution counts.  Not used by the app."""
from __future__ import annotations

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from sudokustudio.core.rng import rand_below

FULL27 = 0x7FFFFFF
_P = 27          # offset of the "last processed" copy of F in a state row
_U = 54          # offset of the three unsolved-cell masks
_Q = 57          # F as of the last column / stack check of each digit
_ALT = 84        # pending alternative of a branch: digit-band index, cell bit
STATE = 86
DIGIT_BANDS = 0o7          # the three bands of digit 0 as dirty bits
BAND_DIGITS = 0o111111111  # the nine digits of band 0 as dirty bits
COLUMN = 0o1001001         # column 0 of a band
MAX_DEPTH = 84   # pending alternatives <= placements on the current path <= 81


def _build_tables():
    shrink = np.zeros(512, dtype=np.int64)      # 9-bit row segment -> boxes it touches
    row_single = np.zeros(512, dtype=np.int64)  # segment if exactly one bit, else 0
    for v in range(512):
        shrink[v] = (1 if v & 0o7 else 0) | (2 if v & 0o70 else 0) | (4 if v & 0o700 else 0)
        if v and not v & (v - 1):
            row_single[v] = v
    perms = [(0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)]
    complex_mask = np.zeros(512, dtype=np.int64)  # (row,box) pattern -> cells on a permutation
    for s in range(512):
        m = 0
        for p in perms:
            if all(s >> (3 * r + p[r]) & 1 for r in range(3)):
                for r in range(3):
                    m |= 0o7 << (9 * r + 3 * p[r])
        complex_mask[s] = m
    band_peers = np.zeros(27, dtype=np.int64)  # same row or box inside the band, not the cell
    for i in range(27):
        r, c = divmod(i, 9)
        m = 0o777 << (9 * r)
        for rr in range(3):
            m |= 0o7 << (9 * rr + 3 * (c // 3))
        band_peers[i] = m & ~(1 << i)
    perm9 = np.zeros(512, dtype=np.int64)  # same on a 3x3 pattern, result as 9 bits
    for s in range(512):
        m = 0
        for p in perms:
            if all(s >> (3 * r + p[r]) & 1 for r in range(3)):
                for r in range(3):
                    m |= 1 << (3 * r + p[r])
        perm9[s] = m
    return shrink, row_single, complex_mask, band_peers, perm9


SHRINK, ROW_SINGLE, COMPLEX, BAND_PEERS, PERM9 = _build_tables()
POP9 = np.array([v.bit_count() for v in range(512)], dtype=np.int64)


@njit(cache=True, nogil=True, inline="always")
def _fold(a):
    """The columns (9 bits) a band mask touches."""
    return (a | (a >> 9) | (a >> 18)) & 0x1FF


@njit(cache=True, nogil=True)
def _propagate(s):
    """Band logic, naked singles and column hidden singles to a fixpoint.

    Works in place on state row ``s``; returns False on a contradiction.
    """
    dirty = 0
    for i in range(27):
        if s[i] != s[_P + i]:
            dirty |= 1 << i
    while True:
        while dirty:
            i = trailing_zeros(dirty)
            dirty &= dirty - 1
            a = s[i]
            if a == s[_P + i]:
                continue
            sh = SHRINK[a & 0x1FF] | (SHRINK[(a >> 9) & 0x1FF] << 3) | (SHRINK[a >> 18] << 6)
            a &= COMPLEX[sh]
            if a == 0:
                return False
            s[i] = a
            s[_P + i] = a
            b = i % 3
            placed = (ROW_SINGLE[a & 0x1FF] | (ROW_SINGLE[(a >> 9) & 0x1FF] << 9)
                      | (ROW_SINGLE[a >> 18] << 18))
            new = placed & s[_U + b]
            if new:
                s[_U + b] &= ~new
                cols = _fold(new)
                keep = ~(cols | (cols << 9) | (cols << 18))
                base = i - b
                for bb in range(3):
                    if bb != b:
                        s[base + bb] &= keep
                for j in range(b, 27, 3):
                    if j != i:
                        s[j] &= ~new
                dirty |= (DIGIT_BANDS << base) | (BAND_DIGITS << b)
        # naked singles: an unsolved cell with one candidate
        found = False
        for b in range(3):
            once = 0
            twice = 0
            for d in range(9):
                a = s[3 * d + b]
                twice |= once & a
                once |= a
            if once != FULL27:
                return False
            single = once & ~twice & s[_U + b]
            while single:
                bit = single & -single
                single ^= bit
                peers = BAND_PEERS[trailing_zeros(bit)]
                for d in range(9):
                    if s[3 * d + b] & bit:
                        s[3 * d + b] &= ~peers
                        dirty |= 1 << (3 * d + b)
                        break
                found = True
        if found:
            continue
        # hidden singles in columns: a column where d has one cell left
        for d in range(9):
            a0 = s[3 * d]
            a1 = s[3 * d + 1]
            a2 = s[3 * d + 2]
            if a0 == s[_Q + 3 * d] and a1 == s[_Q + 3 * d + 1] and a2 == s[_Q + 3 * d + 2]:
                continue
            once = a0 & 0x1FF
            twice = 0
            seg = (a0 >> 9) & 0x1FF
            twice |= once & seg
            once |= seg
            seg = a0 >> 18
            twice |= once & seg
            once |= seg
            for a in (a1, a2):
                seg = a & 0x1FF
                twice |= once & seg
                once |= seg
                seg = (a >> 9) & 0x1FF
                twice |= once & seg
                once |= seg
                seg = a >> 18
                twice |= once & seg
                once |= seg
            if once != 0x1FF:
                return False
            # Q gets F before the stack logic, so a digit it changes is looked at again
            s[_Q + 3 * d] = a0
            s[_Q + 3 * d + 1] = a1
            s[_Q + 3 * d + 2] = a2
            # stack (column x band pattern of d) permutations: column/box locked candidates
            f0 = _fold(a0)
            f1 = _fold(a1)
            f2 = _fold(a2)
            k0 = 0
            k1 = 0
            k2 = 0
            for t in range(0, 9, 3):
                allowed = PERM9[((f0 >> t) & 7) | (((f1 >> t) & 7) << 3) | (((f2 >> t) & 7) << 6)]
                if allowed == 0:
                    return False
                k0 |= (allowed & 7) << t
                k1 |= ((allowed >> 3) & 7) << t
                k2 |= (allowed >> 6) << t
            if k0 != f0:
                a0 &= k0 * 0x40201
                s[3 * d] = a0
                dirty |= 1 << (3 * d)
                found = True
            if k1 != f1:
                a1 &= k1 * 0x40201
                s[3 * d + 1] = a1
                dirty |= 2 << (3 * d)
                found = True
            if k2 != f2:
                a2 &= k2 * 0x40201
                s[3 * d + 2] = a2
                dirty |= 4 << (3 * d)
                found = True
            solved = _fold((a0 & ~s[_U]) | (a1 & ~s[_U + 1]) | (a2 & ~s[_U + 2]))
            hs = once & ~twice & ~solved
            while hs:
                col = hs & -hs
                hs ^= col
                cm = col | (col << 9) | (col << 18)
                for b in range(3):
                    cell = s[3 * d + b] & cm
                    if cell:
                        s[3 * d + b] &= ~BAND_PEERS[trailing_zeros(cell)]
                        dirty |= 1 << (3 * d + b)
                        found = True
                        break
        if not found:
            return True


@njit(cache=True, nogil=True, inline="always")
def _pop27(x):
    return POP9[x & 0x1FF] + POP9[(x >> 9) & 0x1FF] + POP9[x >> 18]


@njit(cache=True, nogil=True)
def _most_peers(s, m0, m1, m2):
    """(band, cell bit) of the cell in masks m0..m2 with the most unsolved peers."""
    best = -1
    best_b = 0
    best_bit = 0
    for b in range(3):
        t = m0 if b == 0 else (m1 if b == 1 else m2)
        if t == 0:
            continue
        u = s[_U + b]
        u_other_bands = s[_U + (b + 1) % 3] | s[_U + (b + 2) % 3]
        while t:
            bit = t & -t
            t ^= bit
            i = trailing_zeros(bit)
            score = _pop27(u & BAND_PEERS[i]) + _pop27(u_other_bands & (COLUMN << (i % 9)))
            if score > best:
                best = score
                best_b = b
                best_bit = bit
    return best_b, best_bit


@njit(cache=True, nogil=True)
def _choose_cell(s):
    """(band, cell bit) to branch on: a bivalue cell, else one with the fewest candidates;
    ties go to the most unsolved peers."""
    p0 = 0
    p1 = 0
    p2 = 0
    for b in range(3):
        once = 0
        twice = 0
        thrice = 0
        for d in range(9):
            a = s[3 * d + b]
            thrice |= twice & a
            twice |= once & a
            once |= a
        pairs = twice & ~thrice & s[_U + b]
        if b == 0:
            p0 = pairs
        elif b == 1:
            p1 = pairs
        else:
            p2 = pairs
    if p0 | p1 | p2:
        return _most_peers(s, p0, p1, p2)
    # no bivalue cell: bit-sliced counters c0..c3 of the candidates of every cell
    best_k = 10
    m0 = 0
    m1 = 0
    m2 = 0
    for b in range(3):
        c0 = 0
        c1 = 0
        c2 = 0
        c3 = 0
        for d in range(9):
            a = s[3 * d + b]
            k0 = c0 & a
            c0 ^= a
            k1 = c1 & k0
            c1 ^= k0
            k2 = c2 & k1
            c2 ^= k1
            c3 |= k2
        u = s[_U + b]
        for k in range(3, best_k + 1):
            m = u & (c0 if k & 1 else ~c0) & (c1 if k & 2 else ~c1)
            m &= (c2 if k & 4 else ~c2) & (c3 if k & 8 else ~c3)
            if m:
                if k < best_k:
                    best_k = k
                    m0 = 0
                    m1 = 0
                    m2 = 0
                if b == 0:
                    m0 = m
                elif b == 1:
                    m1 = m
                else:
                    m2 = m
                break
    return _most_peers(s, m0, m1, m2)


@njit(cache=True, nogil=True)
def _init_state(puzzle, s):
    """Givens into state row ``s``; False for a value above 9."""
    for i in range(27):
        s[i] = FULL27
        s[_P + i] = -1
        s[_Q + i] = -1
    for b in range(3):
        s[_U + b] = FULL27
    for c in range(81):
        v = np.int64(puzzle[c])
        if v:
            if v > 9:
                return False
            b = c // 27
            s[3 * (v - 1) + b] &= ~BAND_PEERS[c - 27 * b]
    return True


@njit(cache=True, nogil=True)
def _write_solution(s, solution):
    for i in range(27):
        a = s[i]
        base = 27 * (i % 3)
        d = i // 3 + 1
        while a:
            bit = a & -a
            a ^= bit
            solution[base + trailing_zeros(bit)] = d


@njit(cache=True, nogil=True)
def _search(puzzle, limit, solution, randomize, rng, stack):
    """Depth-first search.  Returns (solutions found up to ``limit``, guesses).

    ``stack`` is int64[MAX_DEPTH + 1, STATE] work space: row k is the state
    after k pending branches (each row keeps its own pending alternative, so a
    branch costs one row copy).  The first solution found is written to
    ``solution``.  With ``randomize`` the branch digit is drawn from ``rng``.
    ``guesses`` counts the branches entered (both "d here" and "d not here");
    it is 0 when propagation alone solves the puzzle.
    """
    if not _init_state(puzzle, stack[0]):
        return 0, 0
    count = 0
    guesses = 0
    sp = 0
    cur = stack[0]
    ok = _propagate(cur)
    while True:
        if ok:
            if (cur[_U] | cur[_U + 1] | cur[_U + 2]) == 0:
                count += 1
                if count == 1:
                    _write_solution(cur, solution)
                if count >= limit:
                    return count, guesses
            else:
                b, bit = _choose_cell(cur)
                d = 0
                if randomize:
                    n = 0
                    for e in range(9):
                        if cur[3 * e + b] & bit:
                            n += 1
                    k = rand_below(rng, n)
                    for e in range(9):
                        if cur[3 * e + b] & bit:
                            if k == 0:
                                d = e
                                break
                            k -= 1
                else:
                    while not cur[3 * d + b] & bit:
                        d += 1
                # the parent row keeps the alternative "d not in this cell" for later
                cur[_ALT] = 3 * d + b
                cur[_ALT + 1] = bit
                child = stack[sp + 1]
                child[:] = cur
                sp += 1
                cur = child
                cur[3 * d + b] &= ~BAND_PEERS[trailing_zeros(bit)]
                guesses += 1
                ok = _propagate(cur)
                continue
        # dead end or solution counted: resume the latest alternative
        if sp == 0:
            return count, guesses
        sp -= 1
        cur = stack[sp]
        cur[cur[_ALT]] &= ~cur[_ALT + 1]
        guesses += 1
        ok = _propagate(cur)


@njit(cache=True, nogil=True)
def _new_stack():
    return np.empty((MAX_DEPTH + 1, STATE), dtype=np.int64)


@njit(cache=True, nogil=True)
def count_solutions_batch_kernel(puzzles, limit, counts):
    stack = _new_stack()
    solution = np.zeros(81, dtype=np.uint8)
    rng = np.zeros(4, dtype=np.uint64)
    for i in range(puzzles.shape[0]):
        counts[i], _ = _search(puzzles[i], limit, solution, False, rng, stack)
