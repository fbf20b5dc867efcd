"""Canonical (minlex) forms of puzzles and solution grids.

Convention (the usual one, as in the minlex lists of the Sudoku forums): a
puzzle is an 81-character string, row by row, empty cells written ``0``.  Its
minlex form is the lexicographically smallest such string over the 2*6^8 =
3,359,232 cell symmetries (transposition, band order, rows inside bands,
stack order, columns inside stacks) combined with the best relabelling of
the digits.  For a fixed cell arrangement the best relabelling gives the
digits new names in order of first appearance (the first clue read becomes
1, the next new digit 2, ...), so the minlex form is the smallest
first-appearance-relabelled string over the cell symmetries.  Empty cells
(0) sort before every digit, so a minlex puzzle starts with as many empty
cells as its pattern allows.  Two puzzles are isomorphic exactly when their
minlex forms are equal.

The kernel builds the form row by row, keeping only the partial transforms
whose rows so far equal the smallest prefix seen (a breadth-first search with
ties): row 0 is the line (row or column) with the smallest clue pattern, and
the column permutations that push its clues right are generated directly;
each later row tries the rows its band still allows (or the first row of a
new band) under every surviving transform, keeps the minimum and drops the
rest as soon as one of its cells is larger.  The number of transforms left at
the end is the number of automorphisms of the puzzle (cell symmetries that
map it onto a relabelling of itself; 1 for most puzzles).
"""
from __future__ import annotations

import numpy as np
from numba import njit

# the six permutations of three things
PERM3 = np.array([[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]], dtype=np.int64)

# candidate record columns (int16): transpose, colperm index, 9 rows, 10 digit labels, next label, used rows
_T = 0
_CP = 1
_ROWS = 2
_MAP = 11
_NEXT = 21
_USED = 22
_W = 23


def _colperms() -> np.ndarray:
    """All 1296 column orders: index so*216 + w0*36 + w1*6 + w2; position 3s+i reads
    source column 3*PERM3[so][s] + PERM3[w_s][i]."""
    out = np.empty((1296, 9), dtype=np.int64)
    for so in range(6):
        for w0 in range(6):
            for w1 in range(6):
                for w2 in range(6):
                    w = (w0, w1, w2)
                    k = so * 216 + w0 * 36 + w1 * 6 + w2
                    for s in range(3):
                        for i in range(3):
                            out[k, 3 * s + i] = 3 * PERM3[so, s] + PERM3[w[s], i]
    return out


COLPERMS = _colperms()


@njit(cache=True, nogil=True)
def _grow(buf, n):
    """``buf`` with room for at least one more record (doubles its rows)."""
    if n < buf.shape[0]:
        return buf
    new = np.empty((buf.shape[0] * 2, _W), dtype=np.int16)
    new[:n] = buf[:n]
    return new


@njit(cache=True, nogil=True)
def _line_pattern(g, r):
    """Smallest 9-bit clue pattern of row ``r`` of ``g`` under column symmetries (bit 8 =
    column 0): clues pushed right inside each stack, stacks sorted by clue count."""
    k0 = 0
    k1 = 0
    k2 = 0
    for i in range(3):
        if g[r * 9 + i]:
            k0 += 1
        if g[r * 9 + 3 + i]:
            k1 += 1
        if g[r * 9 + 6 + i]:
            k2 += 1
    # sort three counts
    if k0 > k1:
        k0, k1 = k1, k0
    if k1 > k2:
        k1, k2 = k2, k1
    if k0 > k1:
        k0, k1 = k1, k0
    return (((1 << k0) - 1) << 6) | (((1 << k1) - 1) << 3) | ((1 << k2) - 1)


@njit(cache=True, nogil=True)
def _expand(g, t, r, rec, k, buf, m, colperms):
    """Append to ``buf`` (from row ``m``) the record ``rec`` extended at level ``k`` by row
    ``r`` under every column order that pushes that row's clues right (stacks by clue
    count): the orders giving its smallest pattern.  ``rec`` has no column order yet
    (every row before is empty, so the digit labels start at 1).  Returns (buf, m)."""
    cnt = np.empty(3, dtype=np.int64)
    # per source stack, the orders of its three columns that push its clues right
    valid = np.empty((3, 6), dtype=np.int64)
    n_valid = np.zeros(3, dtype=np.int64)
    for s in range(3):
        cnt[s] = 0
        for i in range(3):
            if g[t, r * 9 + 3 * s + i]:
                cnt[s] += 1
        for ws in range(6):
            seen_clue = False
            ok = True
            for i in range(3):
                if g[t, r * 9 + 3 * s + PERM3[ws, i]]:
                    seen_clue = True
                elif seen_clue:
                    ok = False
            if ok:
                valid[s, n_valid[s]] = ws
                n_valid[s] += 1
    for so in range(6):
        a = PERM3[so, 0]
        b = PERM3[so, 1]
        c = PERM3[so, 2]
        if not (cnt[a] <= cnt[b] <= cnt[c]):
            continue
        for idx in range(n_valid[a] * n_valid[b] * n_valid[c]):
            i2 = idx % n_valid[c]
            i1 = (idx // n_valid[c]) % n_valid[b]
            i0 = idx // (n_valid[c] * n_valid[b])
            w = valid[a, i0] * 36 + valid[b, i1] * 6 + valid[c, i2]
            buf = _grow(buf, m)
            nr = buf[m]
            for q in range(_W):
                nr[q] = rec[q]
            cp = so * 216 + w
            nr[_CP] = cp
            nr[_ROWS + k] = r
            lab = 1
            for j in range(9):
                v = g[t, r * 9 + colperms[cp, j]]
                if v:
                    nr[_MAP + v] = lab
                    lab += 1
            nr[_NEXT] = lab
            nr[_USED] = rec[_USED] | (1 << r)
            m += 1
    return buf, m


@njit(cache=True, nogil=True)
def minlex_kernel(puzzle, out, colperms):
    """Write the minlex form of ``puzzle`` (uint8[81], 0 = empty; a complete grid too) to
    ``out`` (uint8[81]); returns the number of automorphisms (transforms giving it).
    ``colperms``: ``COLPERMS``.

    A record holds no column order (-1) while its rows are all empty: its next row's
    smallest form is then its clue pattern alone (labels 1, 2, ... in order), and only the
    first non-empty row expands it into the column orders reaching that pattern.

    Long (~120 lines) because the level loop is one hot loop: a row is compared with the
    best cell by cell while it is relabelled, and split into helpers it measured slower
    (numba passes record views and the scratch rows by reference at every call)."""
    g = np.empty((2, 81), dtype=np.uint8)
    for r in range(9):
        for c in range(9):
            g[0, r * 9 + c] = puzzle[r * 9 + c]
            g[1, r * 9 + c] = puzzle[c * 9 + r]
    cur = np.zeros((256, _W), dtype=np.int16)
    nxt = np.zeros((256, _W), dtype=np.int16)
    for t in range(2):
        cur[t, _T] = t
        cur[t, _CP] = -1
        cur[t, _NEXT] = 1
    n = 2
    row = np.empty(9, dtype=np.int64)
    best = np.empty(9, dtype=np.int64)
    tmp = np.empty(10, dtype=np.int64)
    for k in range(9):
        m = 0
        have_best = False
        # rows still all empty (then every record is): the smallest clue pattern of the
        # rows allowed, found first, so only the rows reaching it are expanded
        min_pat = 512
        if n and cur[0, _CP] < 0:
            for ci in range(n):
                lo = 0 if k % 3 == 0 else (cur[ci, _ROWS + k - 1] // 3) * 3
                hi = 9 if k % 3 == 0 else lo + 3
                for r in range(lo, hi):
                    if not cur[ci, _USED] & (1 << r):
                        min_pat = min(min_pat, _line_pattern(g[cur[ci, _T]], r))
        for ci in range(n):
            rec = cur[ci]
            t = rec[_T]
            cp = rec[_CP]
            used = rec[_USED]
            if k % 3 == 0:      # a new band: any row of a band not used yet
                lo = 0
                hi = 9
            else:
                lo = (rec[_ROWS + k - 1] // 3) * 3
                hi = lo + 3
            for r in range(lo, hi):
                if used & (1 << r):
                    continue
                if cp < 0:
                    # a pattern's row (labels 1, 2, ... on its clues) orders as the pattern
                    # read from bit 8 down: compare patterns, not rows
                    pat = _line_pattern(g[t], r)
                    if pat != min_pat:
                        continue
                    if not have_best:
                        lab = 1
                        for j in range(9):
                            if pat & (1 << (8 - j)):
                                best[j] = lab
                                lab += 1
                            else:
                                best[j] = 0
                        have_best = True
                    if pat == 0:
                        nxt = _grow(nxt, m)
                        nr = nxt[m]
                        for q in range(_W):
                            nr[q] = rec[q]
                        nr[_ROWS + k] = r
                        nr[_USED] = used | (1 << r)
                        m += 1
                    else:
                        nxt, m = _expand(g, t, r, rec, k, nxt, m, colperms)
                    continue
                # evaluate row r under this transform, comparing with the best as we go
                for d in range(10):
                    tmp[d] = rec[_MAP + d]
                lab = rec[_NEXT]
                state = 0 if have_best else -1   # 0: equal so far, -1: smaller, 1: larger
                for j in range(9):
                    v = g[t, r * 9 + colperms[cp, j]]
                    if v:
                        if tmp[v] == 0:
                            tmp[v] = lab
                            lab += 1
                        x = tmp[v]
                    else:
                        x = 0
                    row[j] = x
                    if state == 0:
                        if x > best[j]:
                            state = 1
                            break
                        if x < best[j]:
                            state = -1
                if state == 1:
                    continue
                if state == -1:
                    for j in range(9):
                        best[j] = row[j]
                    have_best = True
                    m = 0
                nxt = _grow(nxt, m)
                nr = nxt[m]
                for q in range(_W):
                    nr[q] = rec[q]
                nr[_ROWS + k] = r
                for d in range(10):
                    nr[_MAP + d] = tmp[d]
                nr[_NEXT] = lab
                nr[_USED] = used | (1 << r)
                m += 1
        for j in range(9):
            out[9 * k + j] = best[j]
        cur, nxt = nxt, cur
        n = m
    if n and cur[0, _CP] < 0:    # the empty puzzle: every column order gives it
        return n * 1296
    return n


@njit(cache=True, nogil=True)
def minlex_batch_kernel(puzzles, out, autos, colperms):
    """Minlex form of each row of ``puzzles`` (uint8[N, 81]) into ``out``; automorphism
    counts into ``autos`` (int64[N])."""
    for i in range(puzzles.shape[0]):
        autos[i] = minlex_kernel(puzzles[i], out[i], colperms)


def minlex(puzzle) -> np.ndarray:
    """The minlex form of one puzzle or grid (uint8[81]); see the module doc."""
    out = np.zeros(81, dtype=np.uint8)
    minlex_kernel(np.ascontiguousarray(puzzle, dtype=np.uint8).reshape(81), out, COLPERMS)
    return out


def minlex_many(puzzles, threads: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """(minlex forms uint8[N, 81], automorphism counts int64[N]) of ``puzzles``; the kernel
    releases the GIL, so ``threads`` > 1 runs chunks in parallel."""
    p = np.ascontiguousarray(puzzles, dtype=np.uint8).reshape(-1, 81)
    out = np.zeros_like(p)
    autos = np.zeros(p.shape[0], dtype=np.int64)
    if threads <= 1 or p.shape[0] < 256:
        minlex_batch_kernel(p, out, autos, COLPERMS)
        return out, autos
    from concurrent.futures import ThreadPoolExecutor

    bounds = np.linspace(0, p.shape[0], threads * 8 + 1).astype(np.int64)

    def work(i):
        a, b = bounds[i], bounds[i + 1]
        minlex_batch_kernel(p[a:b], out[a:b], autos[a:b], COLPERMS)

    with ThreadPoolExecutor(threads) as ex:
        list(ex.map(work, range(len(bounds) - 1)))
    return out, autos


def classes(forms: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(index of the first puzzle of each class in input order, class id of each puzzle)
    from minlex forms (uint8[N, 81])."""
    f = np.ascontiguousarray(forms, dtype=np.uint8).reshape(-1, 81)
    if f.shape[0] == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    keys = f.view(np.dtype((np.void, 81))).ravel()
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")       # class ids in order of first appearance
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    return np.sort(first), rank[inverse.ravel()].astype(np.int64)


def dedup(puzzles, threads: int = 1) -> np.ndarray:
    """Indices of the first puzzle of each isomorphism class, in input order."""
    forms, _ = minlex_many(puzzles, threads)
    return classes(forms)[0]


def warm_up() -> None:
    minlex_many(np.zeros((1, 81), dtype=np.uint8))
