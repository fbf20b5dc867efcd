"""Minimality of puzzles and enumeration of minimal puzzles inside / around a
clue set of a fixed grid (shared by generators, estimators and UA search).

All clue sets here are subsets of one complete grid G, so "unique" means "G
is the only solution".  Two facts make the enumerations cheap:

* a clue set that is not unique has no unique subset (so the subsets DFS
  descends only into unique sets), and
* a second solution G' of a non-unique clue set T gives an unavoidable set
  U = {cells where G' differs from G}: every clue set disjoint from U is not
  unique either.  The kernels keep a small cache of such sets and answer
  most uniqueness questions without calling the solver.

The 9x9 kernels call the project solver (``solve_kernel``); a small generic
solver (box shapes r x c, n = r*c <= 16) serves other box shapes (4x4 tests
of the exhaustive counts) and finds a second solution when the project
solver's first solution happens to be G.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from sudokustudio.core.bits import popcount64
from sudokustudio.sudoku.grids import two_digit_uas_kernel
from sudokustudio.sudoku.solver import count_solutions_kernel, solve_kernel
from sudokustudio.sudoku.unavoidable import mask_size

MAX_UA = 256  # unavoidable sets cached per enumeration


@njit(cache=True, nogil=True)
def is_minimal_kernel(puzzle):
    """True when ``puzzle`` has a unique solution and every clue is needed."""
    if count_solutions_kernel(puzzle, 2) != 1:
        return False
    work = puzzle.copy()
    for c in range(81):
        d = work[c]
        if d:
            work[c] = 0
            n = count_solutions_kernel(work, 2)
            work[c] = d
            if n == 1:
                return False
    return True


def is_minimal(puzzle) -> bool:
    return bool(is_minimal_kernel(np.ascontiguousarray(puzzle, dtype=np.uint8).reshape(81)))


# --------------------------------------------------------------- geometry
_GEOMS: dict = {}


def geometry(box_rows: int, box_cols: int):
    """(n, peers int16[N, P], units int16[3n, n]) of the n x n grid with r x c boxes."""
    key = (int(box_rows), int(box_cols))
    if key in _GEOMS:
        return _GEOMS[key]
    r, c = key
    n = r * c
    if not (1 <= r and 1 <= c and n <= 16):
        raise ValueError(f"box shape {r}x{c}: need r, c >= 1 and r*c <= 16")
    N = n * n
    units = np.empty((3 * n, n), dtype=np.int16)
    for i in range(n):
        units[i] = [i * n + j for j in range(n)]
        units[n + i] = [j * n + i for j in range(n)]
    for b in range(n):
        br, bc = r * (b // r), c * (b % r)
        units[2 * n + b] = [(br + i) * n + bc + j for i in range(r) for j in range(c)]
    cell_units = [[] for _ in range(N)]
    for u in range(3 * n):
        for x in units[u]:
            cell_units[int(x)].append(u)
    P = 3 * n - r - c - 1
    peers = np.empty((N, P), dtype=np.int16)
    for x in range(N):
        ps = sorted({int(y) for u in cell_units[x] for y in units[u]} - {x})
        assert len(ps) == P
        peers[x] = ps
    out = (n, peers, units)
    _GEOMS[key] = out
    return out


# ------------------------------------------------------ generic solver
@njit(cache=True, nogil=True)
def _propagate_g(cand, done, peers, units, full):
    """Naked and hidden singles on int64 candidate masks; False on a contradiction."""
    N = cand.shape[0]
    P = peers.shape[1]
    n = units.shape[1]
    changed = True
    while changed:
        changed = False
        for c in range(N):
            v = cand[c]
            if v == 0:
                return False
            if done[c] == 0 and (v & (v - 1)) == 0:
                done[c] = 1
                for k in range(P):
                    p = peers[c, k]
                    if cand[p] & v:
                        cand[p] &= ~v
                        if cand[p] == 0:
                            return False
                        changed = True
        for u in range(units.shape[0]):
            once = np.int64(0)
            twice = np.int64(0)
            for k in range(n):
                v = cand[units[u, k]]
                twice |= once & v
                once |= v
            if once != full:
                return False
            only = once & ~twice
            if only:
                for k in range(n):
                    c = units[u, k]
                    v = cand[c] & only
                    if v:
                        if v & (v - 1):
                            return False
                        if cand[c] != v:
                            cand[c] = v
                            changed = True
    return True


@njit(cache=True, nogil=True)
def count_generic_kernel(puzzle, peers, units, limit, avoid, other):
    """Solutions of ``puzzle`` (digits 1..n, 0 empty) counted up to ``limit``.

    The first solution found that differs from ``avoid`` is written to
    ``other`` (pass an all-zero ``avoid`` to get the first solution).
    Returns the count.  ``limit <= 0`` counts all solutions.
    """
    N = puzzle.shape[0]
    n = units.shape[1]
    full = (np.int64(1) << n) - 1
    cs = np.empty((N + 1, N), dtype=np.int64)
    ds = np.zeros((N + 1, N), dtype=np.uint8)
    branch = np.empty(N + 1, dtype=np.int64)
    remaining = np.zeros(N + 1, dtype=np.int64)
    for c in range(N):
        d = puzzle[c]
        cs[0, c] = full if d == 0 else (np.int64(1) << (d - 1))
    if not _propagate_g(cs[0], ds[0], peers, units, full):
        return 0
    count = 0
    found_other = False
    depth = 0
    while True:
        best = -1
        best_n = 99
        for c in range(N):
            v = cs[depth, c]
            if v & (v - 1):
                k = popcount64(np.uint64(v))
                if k < best_n:
                    best_n = k
                    best = c
                    if k == 2:
                        break
        if best < 0:
            count += 1
            if not found_other:
                differs = False
                for c in range(N):
                    v = cs[depth, c]
                    d = 1
                    while v > 1:
                        v >>= 1
                        d += 1
                    if d != avoid[c]:
                        differs = True
                if differs:
                    found_other = True
                    for c in range(N):
                        v = cs[depth, c]
                        d = 1
                        while v > 1:
                            v >>= 1
                            d += 1
                        other[c] = d
            if limit > 0 and count >= limit:
                return count
            remaining[depth] = 0
        else:
            branch[depth] = best
            remaining[depth] = cs[depth, best]
        while True:
            while remaining[depth] == 0:
                if depth == 0:
                    return count
                depth -= 1
            rem = remaining[depth]
            v = rem & (-rem)
            remaining[depth] = rem & ~v
            cs[depth + 1] = cs[depth]
            ds[depth + 1] = ds[depth]
            cs[depth + 1, branch[depth]] = v
            if _propagate_g(cs[depth + 1], ds[depth + 1], peers, units, full):
                depth += 1
                break


# ------------------------------------------------ uniqueness with a UA cache
@njit(cache=True, nogil=True)
def _set_bit(mask, x):
    mask[x >> 6] |= np.uint64(1) << np.uint64(x & 63)


@njit(cache=True, nogil=True)
def _clear_bit(mask, x):
    mask[x >> 6] &= ~(np.uint64(1) << np.uint64(x & 63))


@njit(cache=True, nogil=True)
def _has_bit(mask, x):
    return (mask[x >> 6] >> np.uint64(x & 63)) & np.uint64(1)


@njit(cache=True, nogil=True)
def _ua_disjoint(uas, n_ua, tmask):
    """Index of a cached unavoidable set disjoint from clue mask ``tmask``, or -1."""
    for i in range(n_ua):
        hit = False
        for w in range(4):
            if uas[i, w] & tmask[w]:
                hit = True
                break
        if not hit:
            return i
    return -1


@njit(cache=True, nogil=True)
def _add_ua(uas, ua_state, grid, other):
    """Cache the unavoidable set where ``other`` differs from ``grid`` (ring buffer)."""
    N = grid.shape[0]
    slot = ua_state[1] % uas.shape[0]
    for w in range(4):
        uas[slot, w] = 0
    for c in range(N):
        if other[c] != grid[c]:
            _set_bit(uas[slot], c)
    ua_state[1] += 1
    if ua_state[0] < uas.shape[0]:
        ua_state[0] += 1
    return slot


@njit(cache=True, nogil=True)
def _solve_other(work, grid, peers, units, other):
    """Count solutions of ``work`` up to 2; on 2, a solution != grid is put in ``other``.

    Returns (count, have_other).
    """
    N = grid.shape[0]
    if N == 81:
        cnt = count_solutions_kernel(work, 2)
        if cnt < 2:
            return cnt, False
        solve_kernel(work, 2, other)
        same = True
        for c in range(81):
            if other[c] != grid[c]:
                same = False
                break
        if not same:
            return cnt, True
        # the project solver found G first: ask the generic one for the other
        count_generic_kernel(work, peers, units, 2, grid, other)
        return cnt, True
    cnt = count_generic_kernel(work, peers, units, 2, grid, other)
    return cnt, cnt >= 2


@njit(cache=True, nogil=True)
def _is_unique(work, tmask, grid, peers, units, uas, ua_state, other, calls):
    """Is clue set ``work`` (mask ``tmask``, clues from ``grid``) unique?  Uses and feeds the UA cache."""
    if _ua_disjoint(uas, ua_state[0], tmask) >= 0:
        return False
    calls[0] += 1
    if grid.shape[0] == 81:
        # counting is several times cheaper than solving with a solution
        # written out; only a non-unique set is solved again, for its UA
        if count_solutions_kernel(work, 2) == 1:
            return True
        solve_kernel(work, 2, other)
        for c in range(81):
            if other[c] != grid[c]:
                _add_ua(uas, ua_state, grid, other)
                break
        return False
    cnt = count_generic_kernel(work, peers, units, 2, grid, other)
    if cnt == 1:
        return True
    _add_ua(uas, ua_state, grid, other)
    return False


# ------------------------------------------------ minimals inside a subset
@njit(cache=True, nogil=True)
def minimals_in_subset_g(grid, subset_mask, out, counts_by_c, peers, units, uas, ua_state, calls):
    """Every minimal puzzle whose clues are a subset of the kept cells (any box shape).

    Depth-first: clues are deleted in increasing cell order, so each subset
    is visited at most once, and only unique sets are entered (a non-unique
    set has no unique subset).  A unique set all of whose single-clue
    deletions are non-unique is minimal.  ``counts_by_c[c]`` is increased by
    the number of c-clue minimals found; the first ``out.shape[0]`` are
    written to ``out``.  Returns the number written.
    """
    N = grid.shape[0]
    other = np.zeros(N, dtype=np.uint8)
    keep = np.empty(N, dtype=np.int64)
    s = 0
    work = np.zeros(N, dtype=np.uint8)
    tmask = np.zeros(4, dtype=np.uint64)
    for c in range(N):
        if subset_mask[c]:
            keep[s] = c
            s += 1
            work[c] = grid[c]
            _set_bit(tmask, c)
    n_written = 0
    if not _is_unique(work, tmask, grid, peers, units, uas, ua_state, other, calls):
        return 0
    children = np.empty((s + 1, s), dtype=np.int64)
    n_children = np.zeros(s + 1, dtype=np.int64)
    ptr = np.zeros(s + 1, dtype=np.int64)
    deleted_at = np.empty(s + 1, dtype=np.int64)  # position (in keep) deleted to reach level L
    present = np.ones(s, dtype=np.uint8)
    level = 0
    deleted_at[0] = -1
    size = s
    while True:
        # ---- process the node at ``level`` (a unique set of ``size`` clues)
        p = deleted_at[level]
        nc = 0
        for j in range(p + 1, s):
            x = keep[j]
            work[x] = 0
            _clear_bit(tmask, x)
            if _is_unique(work, tmask, grid, peers, units, uas, ua_state, other, calls):
                children[level, nc] = j
                nc += 1
            work[x] = grid[x]
            _set_bit(tmask, x)
        minimal = nc == 0
        if minimal:
            for j in range(0, p):
                if present[j]:
                    x = keep[j]
                    work[x] = 0
                    _clear_bit(tmask, x)
                    u = _is_unique(work, tmask, grid, peers, units, uas, ua_state, other, calls)
                    work[x] = grid[x]
                    _set_bit(tmask, x)
                    if u:
                        minimal = False
                        break
        if minimal:
            counts_by_c[size] += 1
            if n_written < out.shape[0]:
                for c in range(N):
                    out[n_written, c] = work[c]
                n_written += 1
        n_children[level] = nc
        ptr[level] = 0
        # ---- next node: first unvisited child, else climb
        while True:
            if ptr[level] < n_children[level]:
                j = children[level, ptr[level]]
                ptr[level] += 1
                x = keep[j]
                work[x] = 0
                _clear_bit(tmask, x)
                present[j] = 0
                size -= 1
                level += 1
                deleted_at[level] = j
                break
            if level == 0:
                return n_written
            j = deleted_at[level]
            x = keep[j]
            work[x] = grid[x]
            _set_bit(tmask, x)
            present[j] = 1
            size += 1
            level -= 1


#: two-digit UAs put in a fresh 9x9 cache (a grid has ~30-60; they are the small ones)
MAX_SEED_UA = 96


@njit(cache=True, nogil=True)
def _new_ua_cache(grid):
    """An unavoidable-set cache for ``grid``.  For 9x9 it starts with the grid's
    two-digit UAs, smallest first: they cost ~50 us a grid and answer most "not
    unique" questions without the solver (89% of random 30-clue subsets miss one)."""
    uas = np.zeros((MAX_UA, 4), dtype=np.uint64)
    ua_state = np.zeros(2, dtype=np.int64)
    if grid.shape[0] != 81:
        return uas, ua_state
    lo = np.zeros(MAX_SEED_UA, dtype=np.uint64)
    hi = np.zeros(MAX_SEED_UA, dtype=np.uint64)
    n = two_digit_uas_kernel(grid, lo, hi, 0, MAX_SEED_UA)
    sizes = np.empty(n, dtype=np.int64)
    for i in range(n):
        sizes[i] = mask_size(lo[i], hi[i])
    order = np.argsort(sizes, kind="mergesort")
    for k in range(n):
        i = order[k]
        uas[k, 0] = lo[i]
        uas[k, 1] = hi[i]
    ua_state[0] = n
    ua_state[1] = n
    return uas, ua_state


@njit(cache=True, nogil=True)
def minimals_in_subset_kernel(grid, subset_mask, out, counts_by_c):
    """9x9: every minimal puzzle with clues among the kept cells (``subset_mask`` 1 = kept).

    ``counts_by_c`` (int64[82]) gets +1 per c-clue minimal; the first
    ``out.shape[0]`` minimals are written to ``out`` (uint8[max_out, 81]).
    Returns the number written.
    """
    uas, ua_state = _new_ua_cache(grid)
    calls = np.zeros(1, dtype=np.int64)
    return minimals_in_subset_g(grid, subset_mask, out, counts_by_c, _PEERS9, _UNITS9, uas, ua_state, calls)


# ------------------------------------------------ minimals containing a set
@njit(cache=True, nogil=True)
def minimals_containing_g(grid, base_mask, max_clues, out, counts_by_c, peers, units, uas, ua_state, calls):
    """Every minimal puzzle of ``grid`` containing the clues of ``base_mask`` with at most ``max_clues`` clues.

    Hitting-set branching: a non-unique set T has an unavoidable set U
    disjoint from it; every unique superset contains a cell of U.  Branch i
    adds U's i-th allowed cell and forbids its earlier ones, so each superset
    is reached once; a unique set is a leaf (its proper supersets are not
    minimal).  Returns the number of minimals written to ``out``.
    """
    N = grid.shape[0]
    other = np.zeros(N, dtype=np.uint8)
    work = np.zeros(N, dtype=np.uint8)
    tmask = np.zeros(4, dtype=np.uint64)
    size = 0
    for c in range(N):
        if base_mask[c]:
            work[c] = grid[c]
            _set_bit(tmask, c)
            size += 1
    forbidden = np.zeros(N, dtype=np.uint8)
    depth_max = max(0, max_clues - size) + 1
    branch_cells = np.empty((depth_max + 1, N), dtype=np.int64)
    n_branch = np.zeros(depth_max + 1, dtype=np.int64)
    ptr = np.zeros(depth_max + 1, dtype=np.int64)
    n_written = 0
    if size > max_clues:
        return 0
    level = 0
    while True:
        # ---- process node: clue set work (size clues), forbidden cells fixed
        nb = 0
        ui = _ua_disjoint(uas, ua_state[0], tmask)
        unique = False
        if ui < 0:
            calls[0] += 1
            cnt, have = _solve_other(work, grid, peers, units, other)
            if cnt == 1:
                unique = True
            else:
                ui = _add_ua(uas, ua_state, grid, other)
        if unique:
            minimal = True
            for x in range(N):
                if work[x]:
                    work[x] = 0
                    _clear_bit(tmask, x)
                    u = _is_unique(work, tmask, grid, peers, units, uas, ua_state, other, calls)
                    work[x] = grid[x]
                    _set_bit(tmask, x)
                    if u:
                        minimal = False
                        break
            if minimal:
                counts_by_c[size] += 1
                if n_written < out.shape[0]:
                    for c in range(N):
                        out[n_written, c] = work[c]
                    n_written += 1
        elif size < max_clues:
            # pick, among cached UAs disjoint from T, the one with fewest allowed cells
            best = -1
            best_k = N + 1
            for i in range(ua_state[0]):
                hit = False
                for w in range(4):
                    if uas[i, w] & tmask[w]:
                        hit = True
                        break
                if hit:
                    continue
                k = 0
                for x in range(N):
                    if _has_bit(uas[i], x) and not forbidden[x]:
                        k += 1
                if k < best_k:
                    best_k = k
                    best = i
                    if k <= 1:
                        break
            if best >= 0 and best_k > 0:
                for x in range(N):
                    if _has_bit(uas[best], x) and not forbidden[x]:
                        branch_cells[level, nb] = x
                        nb += 1
        n_branch[level] = nb
        ptr[level] = 0
        # ---- next node
        while True:
            if ptr[level] < n_branch[level]:
                i = ptr[level]
                if i > 0:  # leave the previous branch: its cell becomes forbidden
                    x = branch_cells[level, i - 1]
                    work[x] = 0
                    _clear_bit(tmask, x)
                    forbidden[x] = 1
                    size -= 1
                x = branch_cells[level, i]
                ptr[level] += 1
                work[x] = grid[x]
                _set_bit(tmask, x)
                size += 1
                level += 1
                break
            # all branches done: undo the last one and the forbids of this level
            if n_branch[level] > 0:
                x = branch_cells[level, n_branch[level] - 1]
                work[x] = 0
                _clear_bit(tmask, x)
                size -= 1
                for i in range(n_branch[level] - 1):
                    forbidden[branch_cells[level, i]] = 0
            if level == 0:
                return n_written
            level -= 1


@njit(cache=True, nogil=True)
def minimals_containing_kernel(grid, base_mask, max_clues, out, counts_by_c):
    """9x9: every minimal puzzle containing the clues of ``base_mask`` with at most ``max_clues`` clues."""
    uas, ua_state = _new_ua_cache(grid)
    calls = np.zeros(1, dtype=np.int64)
    return minimals_containing_g(grid, base_mask, max_clues, out, counts_by_c, _PEERS9, _UNITS9,
                                 uas, ua_state, calls)


_N9, _PEERS9, _UNITS9 = geometry(3, 3)
