"""Uniqueness and minimality of clue sets of one grid (shared by generators, estimators,
the UA search and the enumerations of ``minimal_sets``).

All clue sets here are subsets of one complete grid G, so "unique" means "G
is the only solution".  Two facts make the questions cheap:

* a clue set that is not unique has no unique subset (so the subsets DFS
  descends only into unique sets), and
* a second solution G' of a non-unique clue set T gives an unavoidable set
  U = {cells where G' differs from G}: every clue set disjoint from U is not
  unique either, and a clue alone in U is needed by every unique superset.

An *oracle* bundles what these questions need, as a tuple ``(grid, peers,
units, ua_lo, ua_hi, ua_n, other, calls, workspace, digit_sets)``: the grid, its
geometry (``tables.geometry``), a ring buffer of unavoidable sets (cell sets of
``core.cellset``; ``ua_n`` = [how many, next slot, learns?]), scratch for a
second solution, a solver-call counter, the 9x9 solver's work space (made
once an oracle, not once a question) and the cells of each digit (cell sets,
for the singles that settle a question without the solver).  ``is_unique``
answers from the cached sets when it can and feeds them; ``all_clues_needed``
is the one minimality check of the project.  9x9 questions go to the project solver
(``solver.other_solution_differing_in``: one search answers "unique?" and
gives the second solution); other box shapes to ``generic.search_g``.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from sudokustudio.core.bits import lowest_index64
from sudokustudio.core.cellset import ONE, ZERO, add_cell, cell_set, has_cell, remove_cell, set_size
from sudokustudio.core.cellset_blocks import first_disjoint
from sudokustudio.sudoku.cheap_uas import two_digit_uas_kernel
from sudokustudio.sudoku.generic import search_g
from sudokustudio.sudoku.solver import NO_CELL, new_search_workspace, other_solution_differing_in, solve_kernel
from sudokustudio.sudoku.tables import PEER_SETS, UNIT_SETS, geometry

MAX_UA = 256  # unavoidable sets cached per oracle
#: two-digit UAs put in a fresh 9x9 cache (a grid has ~30-60; they are the small ones)
MAX_SEED_UA = 96
_ONE = np.int64(1)   # not a literal: calls with it share one compiled signature
_TWO = np.int64(2)
_ZERO_N = np.int64(0)


# ------------------------------------------------------------------ the oracle
@njit(cache=True, nogil=True)
def new_oracle(grid, peers, units):
    """An oracle for ``grid`` that learns.  A 9x9 cache starts with the grid's
    two-digit UAs, smallest first: they cost ~3 us a grid and answer most
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
    return _oracle(grid, peers, units, ua_lo, ua_hi, ua_n)


@njit(cache=True, nogil=True)
def fixed_oracle(grid, peers, units, ua_lo, ua_hi, n_ua):
    """An oracle for ``grid`` that reads the known UAs ``ua_lo/hi[:n_ua]`` and
    never learns (no second solve for a non-unique set: a one-off minimality
    check of a unique set gains nothing from the sets its deletions expose)."""
    ua_n = np.zeros(3, dtype=np.int64)
    ua_n[0] = n_ua
    return _oracle(grid, peers, units, ua_lo, ua_hi, ua_n)


@njit(cache=True, nogil=True)
def _oracle(grid, peers, units, ua_lo, ua_hi, ua_n):
    """The oracle tuple (the module docstring) around a UA cache."""
    return (grid, peers, units, ua_lo, ua_hi, ua_n, np.zeros(grid.shape[0], dtype=np.uint8),
            np.zeros(1, dtype=np.int64), new_search_workspace(), _digit_sets(grid))


@njit(cache=True, nogil=True)
def _digit_sets(grid):
    """sets[d]: the cells of the grid holding digit d, as a cell set (uint64[10, 2]; 9x9 only)."""
    sets = np.zeros((10, 2), dtype=np.uint64)
    if grid.shape[0] == 81:
        for y in range(81):
            lo, hi = add_cell(sets[grid[y], 0], sets[grid[y], 1], y)
            sets[grid[y], 0] = lo
            sets[grid[y], 1] = hi
    return sets


def oracle(grid, box=(3, 3), seed_uas: bool = True):
    """A learning oracle from Python (``seed_uas=False``: its cache starts empty)."""
    g = np.ascontiguousarray(grid, dtype=np.uint8).reshape(-1)
    _, peers, units = geometry(*box)
    if seed_uas:
        return new_oracle(g, peers, units)
    return _oracle(g, peers, units, np.zeros(MAX_UA, dtype=np.uint64), np.zeros(MAX_UA, dtype=np.uint64),
                   np.array([0, 0, 1], dtype=np.int64))


@njit(cache=True, nogil=True)
def missed_ua(o, lo, hi):
    """Index of a cached unavoidable set disjoint from the clue set, or -1."""
    n = o[5][0]
    i = first_disjoint(o[3], o[4], n, 0, lo, hi)
    return i if i < n else -1


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
    return is_unique_without(o, work, lo, hi, NO_CELL)


@njit(cache=True, nogil=True)
def is_unique_without(o, work, lo, hi, x):
    """:func:`is_unique` for ``work`` = a unique clue set minus the clue of cell ``x``
    (``x`` < 0: any clue set).  The 9x9 solver then looks only for solutions that
    differ from the grid at ``x`` (the others solve the unique set: there are none),
    which most such questions settle in the root propagation.  The answer is only
    right when ``work`` plus that clue is unique (else use ``x`` = -1)."""
    if missed_ua(o, lo, hi) >= 0:
        return False
    return solver_says_unique(o, work, lo, hi, x)


@njit(cache=True, nogil=True)
def solver_says_unique(o, work, lo, hi, x):
    """:func:`is_unique_without` past the cached UAs (``lo, hi``: the cells of ``work``): the
    solver's answer, unless a single settles it (:func:`forced_back`; 9-19% of the questions of
    the best combination's probes).

    The solver calls are written here, not in a helper: every function that calls
    the solver compiles it again (~1 CPU-s each).
    """
    grid, peers, units, ua_n, other, calls = o[0], o[1], o[2], o[5], o[6], o[7]
    if grid.shape[0] == 81 and x >= 0 and forced_back(o[9], grid[x], lo, hi, x):
        return True
    calls[0] += 1
    if grid.shape[0] == 81:
        if other_solution_differing_in(work, grid, x, other, o[8]) == 0:
            return True
    else:
        none = np.empty(0, dtype=np.uint64)
        if search_g(work, peers, units, _ONE, grid, other, none, none, np.zeros(1, dtype=np.int64), _ZERO_N) == 0:
            return True
    if ua_n[2]:
        remember_other(o)
    return False


@njit(cache=True, nogil=True, inline="always")
def forced_back(digit_sets, d, lo, hi, x):
    """Is the empty cell ``x`` of a 9x9 clue set of the grid (cells ``lo, hi``) forced to its
    digit ``d`` by a single: a hidden one (every other cell of x's row, column or box is a clue
    or sees a clue of d) or a naked one (x's peers hold the eight other digits)?  Then, if the
    set plus x's clue is unique, so is the set: every solution has d at x.  ``digit_sets``:
    the oracle's cells of each digit (:func:`_digit_sets`).  Cell-set words only (~38 ns; the
    solver's answer to such a question costs ~480 ns, its root propagation finds the single).
    """
    dl = digit_sets[d, 0] & lo      # the clues of d, and every cell they see
    dh = digit_sets[d, 1] & hi
    taken_lo = lo
    taken_hi = hi
    while dl != ZERO:
        y = lowest_index64(dl)
        taken_lo |= PEER_SETS[y, 0]
        taken_hi |= PEER_SETS[y, 1]
        dl &= dl - ONE
    while dh != ZERO:
        y = 64 + lowest_index64(dh)
        taken_lo |= PEER_SETS[y, 0]
        taken_hi |= PEER_SETS[y, 1]
        dh &= dh - ONE
    x_lo, x_hi = cell_set(x)
    r = x // 9
    c = x - 9 * r
    for u in (r, 9 + c, 18 + 3 * (r // 3) + c // 3):   # x alone in a unit where d can go
        if (UNIT_SETS[u, 0] & ~taken_lo) == x_lo and (UNIT_SETS[u, 1] & ~taken_hi) == x_hi:
            return True
    p_lo = PEER_SETS[x, 0] & lo
    p_hi = PEER_SETS[x, 1] & hi
    for e in range(1, 10):     # a digit no peer holds: x is not a naked single
        if e != d and (digit_sets[e, 0] & p_lo) == ZERO and (digit_sets[e, 1] & p_hi) == ZERO:
            return False
    return True


@njit(cache=True, nogil=True, inline="always")
def _alone_in(ua_lo, ua_hi, i, lo, hi):
    """The clue of the set (lo, hi) alone in cached UA i, if one is (else the empty set):
    branch-free, so that loops over the UAs vectorize."""
    a = ua_lo[i] & lo
    b = ua_hi[i] & hi
    a_alone = np.uint64((b == ZERO) & ((a & (a - ONE)) == ZERO))   # a single clue, or none
    b_alone = np.uint64((a == ZERO) & ((b & (b - ONE)) == ZERO))
    return a & (ZERO - a_alone), b & (ZERO - b_alone)


@njit(cache=True, nogil=True)
def alone_in_a_ua(o, lo, hi):
    """The clues of the set (lo, hi) alone in one of the oracle's cached UAs: needed (deleting
    one leaves that UA unhit).  Branch-free, so that the loop vectorizes (1.09x less CPU for
    32-clue subsets' enumeration, when the minimals found were also one pass a set)."""
    ua_lo, ua_hi, ua_n = o[3], o[4], o[5]
    need_lo = ZERO
    need_hi = ZERO
    for i in range(ua_n[0]):
        a, b = _alone_in(ua_lo, ua_hi, i, lo, hi)
        need_lo |= a
        need_hi |= b
    return need_lo, need_hi


@njit(cache=True, nogil=True)
def alone_in_uas_since(o, lo, hi, since):
    """:func:`alone_in_a_ua` over the UAs cached since the oracle had cached ``since`` (its
    ``ua_n[1]`` then): what a set's needed clues gain from the sets learned after they were
    made.  (A UA overwritten in the ring since is still unavoidable: the clues found needed by
    it stay needed.)"""
    ua_lo, ua_hi, ua_n = o[3], o[4], o[5]
    if ua_n[1] - since >= ua_lo.shape[0]:
        return alone_in_a_ua(o, lo, hi)
    need_lo = ZERO
    need_hi = ZERO
    for k in range(since, ua_n[1]):
        a, b = _alone_in(ua_lo, ua_hi, k % ua_lo.shape[0], lo, hi)
        need_lo |= a
        need_hi |= b
    return need_lo, need_hi


@njit(cache=True, nogil=True)
def all_clues_needed(o, work, lo, hi, skip_lo, skip_hi):
    """The minimality check: is every clue of the unique clue set ``work`` (cells
    ``lo, hi``) needed, i.e. does deleting any one leave several solutions?

    Clues in the skip set are known to be needed and not tested; nor is a clue
    that is alone in a cached unavoidable set.  ``work`` is restored.  ``work``
    must be unique: each deletion is then a question for the solver alone
    (:func:`solver_says_unique`), since a cached UA missed by ``work`` minus x
    holds no clue but x, so x was taken as needed (and one learned on the way
    while testing y holds y).

    A clue the others force back by a single is not needed, and that costs ~38 ns to see
    (:func:`forced_back`) against ~3 us for a solver call, so every clue is looked at that way
    before the solver is asked about any: the same answer, with 0.75x the solver calls and
    0.88x the CPU for the supersets search's sets (400 grids x 4 random 25-clue bases, paired;
    most of those sets have a clue that is not needed)."""
    grid = o[0]
    need_lo, need_hi = alone_in_a_ua(o, lo, hi)
    need_lo |= skip_lo
    need_hi |= skip_hi
    if grid.shape[0] == 81:
        for x in range(81):
            if work[x] != 0 and not has_cell(need_lo, need_hi, x):
                a, b = remove_cell(lo, hi, x)
                if forced_back(o[9], grid[x], a, b, x):
                    return False
    for x in range(grid.shape[0]):
        if work[x] == 0 or has_cell(need_lo, need_hi, x):
            continue
        work[x] = 0
        a, b = remove_cell(lo, hi, x)
        u = solver_says_unique(o, work, a, b, x)
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


def cached_uas(o) -> tuple[np.ndarray, np.ndarray]:
    """The unavoidable sets an oracle holds now (lo, hi arrays; copies)."""
    n = int(o[5][0])
    return o[3][:n].copy(), o[4][:n].copy()
