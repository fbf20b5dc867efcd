"""Uniqueness and minimality of clue sets of one grid, and the minimal puzzles
inside / around a clue set (shared by generators, estimators and the UA search).

All clue sets here are subsets of one complete grid G, so "unique" means "G
is the only solution".  Two facts make the questions cheap:

* a clue set that is not unique has no unique subset (so the subsets DFS
  descends only into unique sets), and
* a second solution G' of a non-unique clue set T gives an unavoidable set
  U = {cells where G' differs from G}: every clue set disjoint from U is not
  unique either, and a clue alone in U is needed by every unique superset.

An *oracle* bundles what these questions need, as a tuple ``(grid, peers,
units, ua_lo, ua_hi, ua_n, other, calls)``: the grid, its geometry
(``tables.geometry``), a ring buffer of unavoidable sets (cell sets of
``core.cellset``; ``ua_n`` = [how many, next slot, learns?]), scratch for a
second solution and a solver-call counter.  ``is_unique`` answers from the cached
sets when it can and feeds them; ``all_clues_needed`` is the one minimality
check of the project.  9x9 questions go to the project solver
(``solver.other_solution_differing_kernel``: one search answers "unique?" and
gives the second solution); other box shapes to ``generic.search_g``.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from sudokustudio.core.cellset import ZERO, add_cell, has_cell, remove_cell, set_size
from sudokustudio.sudoku.cheap_uas import two_digit_uas_kernel
from sudokustudio.sudoku.generic import search_g
from sudokustudio.sudoku.solver import other_solution_differing_kernel, solve_kernel
from sudokustudio.sudoku.tables import geometry

MAX_UA = 256  # unavoidable sets cached per oracle
#: two-digit UAs put in a fresh 9x9 cache (a grid has ~30-60; they are the small ones)
MAX_SEED_UA = 96
_ONE = np.int64(1)   # not a literal: calls with it share one compiled signature
_TWO = np.int64(2)
_ZERO_N = np.int64(0)
_NO_CELL = np.int64(-1)


# ------------------------------------------------------------------ the oracle
@njit(cache=True, nogil=True)
def new_oracle(grid, peers, units):
    """An oracle for ``grid`` that learns.  A 9x9 cache starts with the grid's
    two-digit UAs, smallest first: they cost ~50 us a grid and answer most
    "not unique" questions without the solver (89% of random 30-clue subsets
    miss one)."""
    ua_lo = np.zeros(MAX_UA, dtype=np.uint64)
    ua_hi = np.zeros(MAX_UA, dtype=np.uint64)
    ua_n = np.zeros(3, dtype=np.int64)
    ua_n[2] = 1
    if grid.shape[0] == 81:
        n = two_digit_uas_kernel(grid, ua_lo, ua_hi, MAX_SEED_UA)
        # stable insertion sort by size
        for i in range(1, n):
            a = ua_lo[i]
            b = ua_hi[i]
            s = set_size(a, b)
            j = i
            while j > 0 and set_size(ua_lo[j - 1], ua_hi[j - 1]) > s:
                ua_lo[j] = ua_lo[j - 1]
                ua_hi[j] = ua_hi[j - 1]
                j -= 1
            ua_lo[j] = a
            ua_hi[j] = b
        ua_n[0] = n
        ua_n[1] = n
    return (grid, peers, units, ua_lo, ua_hi, ua_n, np.zeros(grid.shape[0], dtype=np.uint8),
            np.zeros(1, dtype=np.int64))


@njit(cache=True, nogil=True)
def fixed_oracle(grid, peers, units, ua_lo, ua_hi, n_ua):
    """An oracle for ``grid`` that reads the known UAs ``ua_lo/hi[:n_ua]`` and
    never learns (no second solve for a non-unique set: a one-off minimality
    check of a unique set gains nothing from the sets its deletions expose)."""
    ua_n = np.zeros(3, dtype=np.int64)
    ua_n[0] = n_ua
    return (grid, peers, units, ua_lo, ua_hi, ua_n, np.zeros(grid.shape[0], dtype=np.uint8),
            np.zeros(1, dtype=np.int64))


def oracle(grid, box=(3, 3), seed_uas: bool = True):
    """A learning oracle from Python (``seed_uas=False``: its cache starts empty)."""
    g = np.ascontiguousarray(grid, dtype=np.uint8).reshape(-1)
    _, peers, units = geometry(*box)
    if seed_uas:
        return new_oracle(g, peers, units)
    return (g, peers, units, np.zeros(MAX_UA, dtype=np.uint64), np.zeros(MAX_UA, dtype=np.uint64),
            np.array([0, 0, 1], dtype=np.int64), np.zeros(g.shape[0], dtype=np.uint8),
            np.zeros(1, dtype=np.int64))


@njit(cache=True, nogil=True)
def missed_ua(o, lo, hi):
    """Index of a cached unavoidable set disjoint from the clue set, or -1."""
    ua_lo = o[3]
    ua_hi = o[4]
    for i in range(o[5][0]):
        if (ua_lo[i] & lo) == ZERO and (ua_hi[i] & hi) == ZERO:
            return i
    return -1


@njit(cache=True, nogil=True)
def remember_other(o):
    """Cache the unavoidable set where ``other`` differs from the grid; returns its slot."""
    grid, ua_lo, ua_hi, ua_n, other = o[0], o[3], o[4], o[5], o[6]
    slot = ua_n[1] % ua_lo.shape[0]
    lo = ZERO
    hi = ZERO
    for c in range(grid.shape[0]):
        if other[c] != grid[c]:
            lo, hi = add_cell(lo, hi, c)
    ua_lo[slot] = lo
    ua_hi[slot] = hi
    ua_n[1] += 1
    if ua_n[0] < ua_lo.shape[0]:
        ua_n[0] += 1
    return slot


@njit(cache=True, nogil=True)
def is_unique(o, work, lo, hi):
    """Is clue set ``work`` (cells ``lo, hi``, clues from the grid) unique?

    Answers from the cached UAs when it can, else asks the solver for a
    solution other than the grid (9x9: the project solver; other shapes:
    ``search_g``); that solution is left in the oracle's ``other`` (o[6]) and a
    learning oracle caches its UA."""
    return is_unique_without(o, work, lo, hi, _NO_CELL)


@njit(cache=True, nogil=True)
def is_unique_without(o, work, lo, hi, x):
    """:func:`is_unique` for ``work`` = a unique clue set minus the clue of cell ``x``
    (``x`` < 0: any clue set).  The 9x9 solver then looks only for solutions that
    differ from the grid at ``x`` (the others solve the unique set: there are none),
    which most such questions settle in the root propagation.  The answer is only
    right when ``work`` plus that clue is unique (else use ``x`` = -1)."""
    if missed_ua(o, lo, hi) >= 0:
        return False
    return solver_says_unique(o, work, x)


@njit(cache=True, nogil=True)
def solver_says_unique(o, work, x):
    """:func:`is_unique_without` past the cached UAs: the solver's answer.

    The solver calls are written here, not in a helper: every function that calls
    the solver compiles it again (~1 CPU-s each).
    """
    grid, peers, units, ua_n, other, calls = o[0], o[1], o[2], o[5], o[6], o[7]
    calls[0] += 1
    if grid.shape[0] == 81:
        if other_solution_differing_kernel(work, grid, x, other) == 0:
            return True
    else:
        none = np.empty(0, dtype=np.uint64)
        if search_g(work, peers, units, _ONE, grid, other, none, none, np.zeros(1, dtype=np.int64), _ZERO_N) == 0:
            return True
    if ua_n[2]:
        remember_other(o)
    return False


@njit(cache=True, nogil=True)
def all_clues_needed(o, work, lo, hi, skip_lo, skip_hi):
    """The minimality check: is every clue of the unique clue set ``work`` (cells
    ``lo, hi``) needed, i.e. does deleting any one leave several solutions?

    Clues in the skip set are known to be needed and not tested; nor is a clue
    that is alone in a cached unavoidable set.  ``work`` is restored.  ``work``
    must be unique: each deletion is then a question for the solver alone
    (:func:`solver_says_unique`), since a cached UA missed by ``work`` minus x
    holds no clue but x, so x was taken as needed (and one learned on the way
    while testing y holds y)."""
    grid, ua_lo, ua_hi, ua_n = o[0], o[3], o[4], o[5]
    need_lo = skip_lo
    need_hi = skip_hi
    for i in range(ua_n[0]):
        a = ua_lo[i] & lo
        b = ua_hi[i] & hi
        if b == ZERO and a != ZERO and (a & (a - np.uint64(1))) == ZERO:
            need_lo |= a
        elif a == ZERO and b != ZERO and (b & (b - np.uint64(1))) == ZERO:
            need_hi |= b
    for x in range(grid.shape[0]):
        if work[x] == 0 or has_cell(need_lo, need_hi, x):
            continue
        work[x] = 0
        u = solver_says_unique(o, work, x)
        work[x] = grid[x]
        if u:
            return False
    return True


@njit(cache=True, nogil=True)
def certifies(alt, puzzle, c, masks):
    """Is ``alt`` a complete valid grid that has every clue of ``puzzle`` but the one of
    cell ``c``, and another digit there?  Then that clue is needed (the puzzle's own
    solution is a second solution of the rest).  ``masks``: int64[27] scratch."""
    if alt[c] == 0 or alt[c] == puzzle[c]:
        return False
    masks[:] = 0
    for y in range(81):
        v = np.int64(alt[y])
        if v < 1 or v > 9 or (puzzle[y] != 0 and y != c and puzzle[y] != v):
            return False
        bit = np.int64(1) << (v - 1)
        r = y // 9
        k = y - 9 * r
        b = 18 + 3 * (r // 3) + k // 3
        if (masks[r] | masks[9 + k] | masks[b]) & bit:
            return False
        masks[r] |= bit
        masks[9 + k] |= bit
        masks[b] |= bit
    return True


@njit(cache=True, nogil=True)
def minimal_puzzles_kernel(puzzles, certs, peers, units, first_bad):
    """Is each puzzle (uint8[M, 81]) unique and minimal?  ``first_bad[0]`` gets
    the index of the first that is not (-1 if none); returns how many are.

    ``certs[i, c]`` (uint8[M, 81, 81], or fewer rows: none for the rest) may hold a
    grid that :func:`certifies` clue c of puzzle i as needed, as a generator that
    tried to delete it found; the other clues are tested, the grid's two-digit UAs
    first (~10 us; a clue alone in one is needed: ~40% of a minimal puzzle's)."""
    grid = np.zeros(81, dtype=np.uint8)
    work = np.zeros(81, dtype=np.uint8)
    masks = np.zeros(27, dtype=np.int64)
    ua_lo = np.zeros(MAX_SEED_UA, dtype=np.uint64)
    ua_hi = np.zeros(MAX_SEED_UA, dtype=np.uint64)
    first_bad[0] = -1
    good = 0
    for i in range(puzzles.shape[0]):
        work[:] = puzzles[i]
        n, _ = solve_kernel(work, _TWO, grid)
        ok = n == 1
        if ok:
            lo = ZERO
            hi = ZERO
            skip_lo = ZERO
            skip_hi = ZERO
            for c in range(81):
                if work[c]:
                    lo, hi = add_cell(lo, hi, c)
                    if i < certs.shape[0] and certifies(certs[i, c], work, c, masks):
                        skip_lo, skip_hi = add_cell(skip_lo, skip_hi, c)
            if skip_lo != lo or skip_hi != hi:
                n_ua = two_digit_uas_kernel(grid, ua_lo, ua_hi, MAX_SEED_UA)
                o = fixed_oracle(grid, peers, units, ua_lo, ua_hi, n_ua)
                ok = all_clues_needed(o, work, lo, hi, skip_lo, skip_hi)
        if ok:
            good += 1
        elif first_bad[0] < 0:
            first_bad[0] = i
    return good


_NO_CERTS = np.zeros((0, 81, 81), dtype=np.uint8)


def first_not_minimal(puzzles, certs=None) -> int:
    """Index of the first puzzle of ``puzzles`` (uint8[M, 81]) that is not unique
    and minimal, or -1.  ``certs``: grids certifying clues as needed (see
    :func:`minimal_puzzles_kernel`)."""
    p = np.ascontiguousarray(puzzles, dtype=np.uint8).reshape(-1, 81)
    _, peers, units = geometry(3, 3)
    bad = np.zeros(1, dtype=np.int64)
    minimal_puzzles_kernel(p, _NO_CERTS if certs is None else np.ascontiguousarray(certs, dtype=np.uint8),
                           peers, units, bad)
    return int(bad[0])


def is_minimal(puzzle) -> bool:
    """True when ``puzzle`` has a unique solution and every clue is needed."""
    return first_not_minimal(np.asarray(puzzle).reshape(1, 81)) < 0


# ------------------------------------------------ minimals inside a subset
#: the unique sets a subsets DFS remembers (a table of twice as many slots at most)
MAX_SEEN = 1 << 19
#: minimals a subsets DFS keeps (a set holding one is unique): 4096, not 256, is 1.4x faster on 32-clue subsets
MAX_KNOWN_MINIMALS = 4096


@njit(cache=True, nogil=True)
def _seen_slot(seen_lo, seen_hi, lo, hi):
    """The slot of cell set (lo, hi) in the open-addressing table ``seen_lo/hi`` (a
    power of two long, the empty set marks a free slot): where it is or would go."""
    mask = np.uint64(seen_lo.shape[0] - 1)
    h = (lo * np.uint64(0x9E3779B97F4A7C15)) ^ (hi * np.uint64(0xC2B2AE3D27D4EB4F))
    i = np.int64((h ^ (h >> np.uint64(29))) & mask)
    while seen_lo[i] != ZERO or seen_hi[i] != ZERO:
        if seen_lo[i] == lo and seen_hi[i] == hi:
            return i
        i = (i + 1) & np.int64(mask)
    return i


@njit(cache=True, nogil=True)
def _alone_in_a_ua(o, lo, hi):
    """The clues of the set (lo, hi) alone in one of the oracle's cached UAs: needed."""
    ua_lo, ua_hi, ua_n = o[3], o[4], o[5]
    need_lo = ZERO
    need_hi = ZERO
    for i in range(ua_n[0]):
        a = ua_lo[i] & lo
        b = ua_hi[i] & hi
        if b == ZERO and (a & (a - np.uint64(1))) == ZERO:
            need_lo |= a
        elif a == ZERO and (b & (b - np.uint64(1))) == ZERO:
            need_hi |= b
    return need_lo, need_hi


@njit(cache=True, nogil=True)
def _outside_a_minimal(min_lo, min_hi, n_min, lo, hi):
    """The clues of the set (lo, hi) outside a minimal of ``min_lo/hi[:n_min]`` inside it."""
    free_lo = ZERO
    free_hi = ZERO
    for i in range(n_min):
        if (min_lo[i] & ~lo) == ZERO and (min_hi[i] & ~hi) == ZERO:
            free_lo |= lo & ~min_lo[i]
            free_hi |= hi & ~min_hi[i]
    return free_lo, free_hi


@njit(cache=True, nogil=True)
def _seen_has(seen_lo, seen_hi, lo, hi):
    """Is the non-empty cell set (lo, hi) in the table?"""
    j = _seen_slot(seen_lo, seen_hi, lo, hi)
    return seen_lo[j] == lo and seen_hi[j] == hi


@njit(cache=True, nogil=True)
def _remember_seen(seen_lo, seen_hi, n_seen, lo, hi):
    """Add (lo, hi) to the table, doubling it at half full.  Returns the table (the same
    arrays or larger ones); ``n_seen[0]`` counts the sets, -1 once MAX_SEEN sets are in
    (it then stops remembering)."""
    if n_seen[0] < 0:
        return seen_lo, seen_hi
    if 2 * (n_seen[0] + 1) > seen_lo.shape[0]:
        if seen_lo.shape[0] >= 2 * MAX_SEEN:
            n_seen[0] = -1
            return seen_lo, seen_hi
        big_lo = np.zeros(2 * seen_lo.shape[0], dtype=np.uint64)
        big_hi = np.zeros(2 * seen_lo.shape[0], dtype=np.uint64)
        for i in range(seen_lo.shape[0]):
            if seen_lo[i] != ZERO or seen_hi[i] != ZERO:
                j = _seen_slot(big_lo, big_hi, seen_lo[i], seen_hi[i])
                big_lo[j] = seen_lo[i]
                big_hi[j] = seen_hi[i]
        seen_lo, seen_hi = big_lo, big_hi
    j = _seen_slot(seen_lo, seen_hi, lo, hi)
    seen_lo[j] = lo
    seen_hi[j] = hi
    n_seen[0] += 1
    return seen_lo, seen_hi


@njit(cache=True, nogil=True)
def minimals_in_subset(o, subset_mask, out, counts_by_c, min_clues):
    """Every minimal puzzle whose clues are a subset of the kept cells
    (``subset_mask`` 1 = kept), any box shape.

    Depth-first: clues are deleted in increasing cell order, so each subset
    is visited at most once, and only unique sets are entered (a non-unique
    set has no unique subset).  A unique set is minimal when none of its
    children is unique (those clues are needed) and no clue deleted before
    the last one is redundant.  That second test needs no solver: deleting
    such a clue gives a set whose clues deleted in increasing order are each
    a child of the previous set, i.e. a unique set is visited, before this
    one (the DFS visits the sets in lexicographic order of their deletions),
    so the clue is redundant exactly when that set is among the visited ones
    (a hash table; ``all_clues_needed`` on those clues if it ever overflows).
    The solver is asked only about children not settled by one pass per node
    over the cached UAs (a clue alone in one is needed) and one over the
    minimals found (a clue outside one inside the set can go).
    ``counts_by_c[c]`` += the number of c-clue minimals found; the first
    ``out.shape[0]`` go to ``out``; returns how many.  Only minimals of ``min_clues`` or
    more clues are sought: a set of ``min_clues`` clues is not entered, only asked whether
    any clue can go (``all_clues_needed``: the solver stops at the first that can, where
    entering it certified every unique subset), and once a set one above has a unique
    child T - y, its next children T - x take one question, T - x - y unique (then T - x is
    unique and not minimal), instead of two (1.5x less CPU for the c >= 29 tail in 34-clue
    subsets, the same minimals).  Long (~140 lines):
    the DFS stack, the visited-set table and the found minimals share one loop,
    and uniqueness is asked inline (a helper would compile the solver again).
    """
    grid = o[0]
    N = grid.shape[0]
    keep = np.empty(N, dtype=np.int64)
    s = 0
    work = np.zeros(N, dtype=np.uint8)
    lo = ZERO
    hi = ZERO
    for c in range(N):
        if subset_mask[c]:
            keep[s] = c
            s += 1
            work[c] = grid[c]
            lo, hi = add_cell(lo, hi, c)
    n_written = 0
    if not is_unique(o, work, lo, hi):
        return 0
    children = np.empty((s + 1, s), dtype=np.int64)   # positions; -1 - position: known not minimal
    n_children = np.zeros(s + 1, dtype=np.int64)
    not_minimal = np.zeros(s + 1, dtype=np.bool_)    # the node at a level is known not to be minimal
    ptr = np.zeros(s + 1, dtype=np.int64)
    deleted_at = np.empty(s + 1, dtype=np.int64)  # position (in keep) deleted to reach level L
    seen_lo = np.zeros(1024, dtype=np.uint64)   # the unique sets visited (none is empty)
    seen_hi = np.zeros(1024, dtype=np.uint64)
    n_seen = np.zeros(1, dtype=np.int64)
    min_lo = np.empty(MAX_KNOWN_MINIMALS, dtype=np.uint64)   # the first minimals found
    min_hi = np.empty(MAX_KNOWN_MINIMALS, dtype=np.uint64)
    n_min = 0
    level = 0
    deleted_at[0] = -1
    size = s
    while True:
        # ---- process the node at ``level`` (a unique set of ``size`` clues)
        p = deleted_at[level]
        nc = 0
        later_lo = later_hi = ZERO   # the clues after position p: tested here as children
        seen_lo, seen_hi = _remember_seen(seen_lo, seen_hi, n_seen, lo, hi)
        minimal = False
        if size == min_clues:
            # the floor: minimal exactly when no clue can go; its subsets are never visited, so
            # the solver stops at the first unique one instead of certifying them all
            minimal = not not_minimal[level] and all_clues_needed(o, work, lo, hi, ZERO, ZERO)
        elif size > min_clues:
            need_lo, need_hi = _alone_in_a_ua(o, lo, hi)
            free_lo, free_hi = _outside_a_minimal(min_lo, min_hi, n_min, lo, hi)
            y = -1    # above the floor: a clue whose deletion was found to leave a unique set
            for j in range(p + 1, s):
                x = keep[j]
                later_lo, later_hi = add_cell(later_lo, later_hi, x)
                if has_cell(need_lo, need_hi, x):
                    continue
                work[x] = 0
                if has_cell(free_lo, free_hi, x):
                    children[level, nc] = j
                    nc += 1
                elif y >= 0:
                    # one question for a floor child: no other solution of it minus y differing at x
                    # (this set minus y is unique) makes it unique and not minimal at once
                    work[y] = 0
                    u = solver_says_unique(o, work, x)
                    work[y] = grid[y]
                    if u:
                        children[level, nc] = -1 - j
                        nc += 1
                    elif o[6][y] != grid[y] and solver_says_unique(o, work, x):
                        children[level, nc] = j   # (the solution found kept y's clue: not unique)
                        nc += 1
                elif solver_says_unique(o, work, x):
                    children[level, nc] = j
                    nc += 1
                    if size == min_clues + 1:
                        y = x
                work[x] = grid[x]
            minimal = nc == 0
            if minimal and n_seen[0] >= 0:
                for j in range(p):
                    a, b = remove_cell(lo, hi, keep[j])
                    if work[keep[j]] and _seen_has(seen_lo, seen_hi, a, b):
                        minimal = False
                        break
            elif minimal:
                minimal = all_clues_needed(o, work, lo, hi, later_lo, later_hi)
        if minimal:
            if n_min < min_lo.shape[0]:
                min_lo[n_min] = lo
                min_hi[n_min] = hi
                n_min += 1
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
                known = j < 0
                if known:
                    j = -1 - j
                x = keep[j]
                work[x] = 0
                lo, hi = remove_cell(lo, hi, x)
                size -= 1
                level += 1
                deleted_at[level] = j
                not_minimal[level] = known
                break
            if level == 0:
                return n_written
            x = keep[deleted_at[level]]
            work[x] = grid[x]
            lo, hi = add_cell(lo, hi, x)
            size += 1
            level -= 1


# ------------------------------------------------ minimals containing a set
@njit(cache=True, nogil=True)
def minimals_containing(o, base_mask, max_clues, out, counts_by_c):
    """Every minimal puzzle of the grid containing the clues of ``base_mask``
    with at most ``max_clues`` clues.

    Hitting-set branching: a non-unique set T has an unavoidable set U
    disjoint from it (the oracle must learn: ``is_unique`` then caches one);
    every unique superset contains
    a cell of U.  Branch i
    adds U's i-th allowed cell and forbids its earlier ones, so each superset
    is reached once; a unique set is a leaf (its proper supersets are not
    minimal).  Returns the number of minimals written to ``out``.
    """
    grid, ua_lo, ua_hi, ua_n = o[0], o[3], o[4], o[5]
    N = grid.shape[0]
    work = np.zeros(N, dtype=np.uint8)
    lo = ZERO
    hi = ZERO
    size = 0
    for c in range(N):
        if base_mask[c]:
            work[c] = grid[c]
            lo, hi = add_cell(lo, hi, c)
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
        ui = -1
        if not is_unique(o, work, lo, hi):
            ui = missed_ua(o, lo, hi)
            if ui < 0:  # an oracle that does not learn: the solver's other solution is in o[6]
                ui = remember_other(o)
        if ui < 0:
            if all_clues_needed(o, work, lo, hi, ZERO, ZERO):
                counts_by_c[size] += 1
                if n_written < out.shape[0]:
                    for c in range(N):
                        out[n_written, c] = work[c]
                    n_written += 1
        elif size < max_clues:
            # pick, among cached UAs disjoint from T, the one with fewest allowed cells
            best = -1
            best_k = N + 1
            for i in range(ua_n[0]):
                if (ua_lo[i] & lo) != ZERO or (ua_hi[i] & hi) != ZERO:
                    continue
                k = 0
                for x in range(N):
                    if has_cell(ua_lo[i], ua_hi[i], x) and not forbidden[x]:
                        k += 1
                if k < best_k:
                    best_k = k
                    best = i
                    if k <= 1:
                        break
            if best >= 0 and best_k > 0:
                for x in range(N):
                    if has_cell(ua_lo[best], ua_hi[best], x) and not forbidden[x]:
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
                    lo, hi = remove_cell(lo, hi, x)
                    forbidden[x] = 1
                    size -= 1
                x = branch_cells[level, i]
                ptr[level] += 1
                work[x] = grid[x]
                lo, hi = add_cell(lo, hi, x)
                size += 1
                level += 1
                break
            # all branches done: undo the last one and the forbids of this level
            if n_branch[level] > 0:
                x = branch_cells[level, n_branch[level] - 1]
                work[x] = 0
                lo, hi = remove_cell(lo, hi, x)
                size -= 1
                for i in range(n_branch[level] - 1):
                    forbidden[branch_cells[level, i]] = 0
            if level == 0:
                return n_written
            level -= 1


def warm_up() -> None:
    """Compile the oracle and the enumerations (9x9 types, as the app uses them)."""
    from sudokustudio.sudoku.grids import random_grid

    g = random_grid(1)
    is_minimal(g)
    o = oracle(g)
    keep = np.zeros(81, dtype=np.uint8)
    keep[:30] = 1
    minimals_in_subset(o, keep, np.zeros((1, 81), dtype=np.uint8), np.zeros(82, dtype=np.int64), _ZERO_N)
    minimals_containing(o, keep, 31, np.zeros((1, 81), dtype=np.uint8), np.zeros(82, dtype=np.int64))


def cached_uas(o) -> tuple[np.ndarray, np.ndarray]:
    """The unavoidable sets an oracle holds now (lo, hi arrays; copies)."""
    n = int(o[5][0])
    return o[3][:n].copy(), o[4][:n].copy()
