"""9x9 Sudoku solver kernel (band bitboards), counting solutions up to a limit.

A puzzle is ``uint8[81]`` (0 = empty).  All kernels are ``nogil`` so worker
threads run them in parallel.

Representation (after the JCZ / fsss2 family of solvers): for each digit d and
band b (three rows), one 27-bit integer ``F[3*d + b]`` holds the cells of the
band where d is still possible; bit ``9*r + c`` is row ``3*b + r``, column c,
so bit ``i`` of band b is cell ``27*b + i``.  ``U[b]`` holds the band's cells
not placed yet.  Propagation is table driven:

* in a band, digit d takes one cell in each of the three rows and one in
  each of the three boxes, i.e. a permutation row -> box.  From the 3x3
  "row r has d in box x" pattern a 512-entry table gives the cells that lie on
  some such permutation; everything else goes.  That covers hidden singles
  in rows and boxes and the row/box locked candidates of the band at once;
* the same permutation argument on a stack (column x band pattern of d)
  gives the column/box locked candidates;
* a row with a single unplaced cell places d there: the cell leaves the other
  digits of the band and its column leaves d's other two bands;
* naked singles (a cell left with one digit) and hidden singles in columns
  are found by bit-parallel counts across the digits / rows.

The work list holds exactly the words that changed (each write compares old
and new without a branch), the three bands are scanned side by side (three
independent dependency chains), givens are placed directly at the start, and
the search state is indexed (``st[row, word]``), never sliced into views.

Search is a binary choice "d in cell" / "d not in cell" on a bivalue cell
(among those, the one with the most unsolved peers; otherwise a cell with the
fewest candidates).  The degree tie-break halves the search tree of the
hardest puzzles compared with "first bivalue cell".  A search state is one
int64 row: F[27], U[3] and the pending alternative of the branch taken from
this state; a branch costs one row copy.

Puzzles whose root propagation leaves HARD_CELLS or more cells open (the hard
ones: forum_hardest, most of magictour top1465) are searched by
``_search_triads`` instead: the minirow ("triad") rule at every fixpoint and
tdoku-like configuration branching (solver_triads.py).  That roughly matches
tdoku's search tree on the hardest set (224 branches counted both arms, 112
nodes, tdoku 110) where the cell search makes 291; on easy and multi-solution
puzzles the rule costs more than it saves.  The randomize and avoid paths
always take the cell search.

This is the project's one 9x9 solver core: counting (``count_solutions_kernel``),
solving, random solutions and "a solution other than this grid"
(``other_solution_kernel``, the uniqueness check of a clue set of a grid for the
generators, the minimality oracle and the UA search).  The module is long
(~700 lines) because the kernel's helpers are inlined into the search loops and
stay beside them; the layout and tables are in solver_bits.py, the minirow rule
in solver_triads.py; the Python API at the end is short.
"""
from __future__ import annotations

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from sudokustudio.core.rng import rand_below
from sudokustudio.sudoku.solver_bits import (
    _ALT,
    _U,
    AVOID,
    BAND_PEERS,
    COL_OF,
    COLUMN,
    COMPLEX,
    FULL27,
    MAX_DEPTH,
    PERM9,
    ROW_SINGLE,
    SHRINK,
    STATE,
    TRIAD_DEPTH,
    _BAND,
    _FOLDS,
    _fold,
    _popcount,
)
from sudokustudio.sudoku.solver_triads import _choose_split, _triads


class NoSolutionError(ValueError):
    """Raised by :func:`solve` for a puzzle without a solution."""


NO_CELL = np.int64(-1)   # no cell to differ at (a numpy scalar: one compiled signature of _search;
# a None here compiled _search twice, +7 CPU-s at first start, for no measurable speed)
HARD_CELLS = 48  # open cells left at the root from which the search takes minirow logic


@njit(cache=True, nogil=True, inline="always")
def _columns(st, r, d):
    """Stack logic and hidden singles in the columns of digit d, in place on row r.

    Returns -1 on a contradiction, else the mask of the words that changed.
    """
    a0 = st[r, 3 * d]
    a1 = st[r, 3 * d + 1]
    a2 = st[r, 3 * d + 2]
    f0 = _fold(a0)
    f1 = _fold(a1)
    f2 = _fold(a2)
    once = f0 | f1 | f2
    if once != 0x1FF:
        return -1
    # columns with two or more cells of d: in two bands, or in two rows of one band
    twice = (f0 & f1) | (f0 & f2) | (f1 & f2)
    for a in (a0, a1, a2):
        twice |= (a & (a >> 9)) | (a & (a >> 18)) | ((a >> 9) & (a >> 18))
    twice &= 0x1FF
    # stack (column x band pattern of d) permutations: column/box locked candidates
    k0 = 0
    k1 = 0
    k2 = 0
    for t in range(0, 9, 3):
        allowed = PERM9[(((f0 >> t) & 7) | (((f1 >> t) & 7) << 3) | (((f2 >> t) & 7) << 6)) & 0x1FF]
        if allowed == 0:
            return -1
        k0 |= (allowed & 7) << t
        k1 |= ((allowed >> 3) & 7) << t
        k2 |= (allowed >> 6) << t
    a0 &= k0 * 0x40201
    a1 &= k1 * 0x40201
    a2 &= k2 * 0x40201
    # a column with one cell of d left, d not placed in it yet: place d there
    solved = _fold((a0 & ~st[r, _U]) | (a1 & ~st[r, _U + 1]) | (a2 & ~st[r, _U + 2]))
    hs = once & ~twice & ~solved
    while hs:
        cm = (hs & -hs) * 0x40201
        hs &= hs - 1
        if a0 & cm:
            a0 &= ~BAND_PEERS[trailing_zeros(a0 & cm)]
        elif a1 & cm:
            a1 &= ~BAND_PEERS[trailing_zeros(a1 & cm)]
        elif a2 & cm:
            a2 &= ~BAND_PEERS[trailing_zeros(a2 & cm)]
    ch = (np.int64(a0 != st[r, 3 * d]) | (np.int64(a1 != st[r, 3 * d + 1]) << 1)
          | (np.int64(a2 != st[r, 3 * d + 2]) << 2))
    st[r, 3 * d] = a0
    st[r, 3 * d + 1] = a1
    st[r, 3 * d + 2] = a2
    return ch << (3 * d)


@njit(cache=True, nogil=True, inline="always")
def _propagate(st, r, dirty, cols, triads_on):
    """Band logic, naked singles and column logic to a fixpoint, in place on row r of ``st``.

    ``dirty``: the words (bit 3*d+b) changed since the last fixpoint; ``cols``:
    the digits among them.  Returns False on a contradiction.  (Table indices
    are masked so that numba's negative-index wraparound code goes.)  It is long
    on purpose: the three rules share the loop's registers in one inlined body,
    and split into calls the hardest set measured slower.
    """
    while True:
        while dirty:
            i = trailing_zeros(dirty)
            dirty &= dirty - 1
            a0 = st[r, i]
            a = a0 & COMPLEX[(SHRINK[a0 & 0x1FF] | (SHRINK[(a0 >> 9) & 0x1FF] << 3)
                              | (SHRINK[(a0 >> 18) & 0x1FF] << 6)) & 0x1FF]
            if a == 0:
                return False
            d = i // 3
            b = i - 3 * d
            st[r, i] = a
            cols |= np.int64(a != a0) << d
            placed = (ROW_SINGLE[a & 0x1FF] | (ROW_SINGLE[(a >> 9) & 0x1FF] << 9)
                      | (ROW_SINGLE[(a >> 18) & 0x1FF] << 18)) & st[r, _U + b]
            if placed:
                # the cells leave the other digits of the band, their columns d's other bands
                st[r, _U + b] &= ~placed
                keep = ~(_fold(placed) * 0x40201)
                ch = 0
                for bb in range(3):
                    j = 3 * d + bb
                    x = st[r, j]
                    y = x & (keep if bb != b else x)
                    st[r, j] = y
                    ch |= np.int64(y != x) << j
                for e in range(9):
                    j = 3 * e + b
                    x = st[r, j]
                    y = x & ~(placed if e != d else 0)
                    st[r, j] = y
                    f = np.int64(y != x)
                    ch |= f << j
                    cols |= f << e
                dirty |= ch
        # naked singles: an unplaced cell with one candidate (the three bands side by side)
        o0 = 0
        o1 = 0
        o2 = 0
        t0 = 0
        t1 = 0
        t2 = 0
        for d in range(9):
            a = st[r, 3 * d]
            t0 |= o0 & a
            o0 |= a
            a = st[r, 3 * d + 1]
            t1 |= o1 & a
            o1 |= a
            a = st[r, 3 * d + 2]
            t2 |= o2 & a
            o2 |= a
        if (o0 & o1 & o2) != FULL27:
            return False
        n0 = o0 & ~t0 & st[r, _U]
        n1 = o1 & ~t1 & st[r, _U + 1]
        n2 = o2 & ~t2 & st[r, _U + 2]
        if n0 | n1 | n2:
            for d in range(9):
                for b in range(3):
                    m = st[r, 3 * d + b] & (n0 if b == 0 else (n1 if b == 1 else n2))
                    if m:
                        a = st[r, 3 * d + b]
                        while m:
                            a &= ~BAND_PEERS[trailing_zeros(m)]
                            m &= m - 1
                        st[r, 3 * d + b] = a
                        dirty |= 1 << (3 * d + b)
                        cols |= 1 << d
            continue
        # column logic of the digits that changed; a digit it changes is looked at again
        again = 0
        while cols:
            d = trailing_zeros(cols)
            cols &= cols - 1
            ch = _columns(st, r, d)
            if ch < 0:
                return False
            if ch:
                dirty |= ch
                again |= 1 << d
        if dirty == 0:
            if not triads_on or (st[r, _U] | st[r, _U + 1] | st[r, _U + 2]) == 0:
                return True
            dirty = _triads(st, r)
            if dirty < 0:
                return False
            if dirty == 0:
                return True
            for e in range(9):
                again |= np.int64((dirty >> (3 * e)) & 7 != 0) << e
        cols = again


@njit(cache=True, nogil=True, inline="always")
def _fewest(st, r, u0, u1, u2):
    """Per band, the unplaced cells with the fewest candidates (3 or more), kept only
    for the bands reaching the overall fewest."""
    best_k = 10
    r0 = 0
    r1 = 0
    r2 = 0
    for b in range(3):
        c0 = 0
        c1 = 0
        c2 = 0
        c3 = 0
        for d in range(9):   # bit-sliced candidate counters c3..c0 of every cell
            a = st[r, 3 * d + b]
            k0 = c0 & a
            c0 ^= a
            k1 = c1 & k0
            c1 ^= k0
            k2 = c2 & k1
            c2 ^= k1
            c3 |= k2
        u = u0 if b == 0 else (u1 if b == 1 else u2)
        for k in range(3, best_k + 1):
            m = u & (c0 if k & 1 else ~c0) & (c1 if k & 2 else ~c1)
            m &= (c2 if k & 4 else ~c2) & (c3 if k & 8 else ~c3)
            if m:
                if k < best_k:
                    best_k = k
                    r0 = 0
                    r1 = 0
                    r2 = 0
                if b == 0:
                    r0 = m
                elif b == 1:
                    r1 = m
                else:
                    r2 = m
                break
    return r0, r1, r2


@njit(cache=True, nogil=True, inline="always")
def _choose_cell(st, r):
    """(band, cell bit) to branch on: a bivalue cell, else one with the fewest candidates;
    ties go to the most unsolved peers, then to the first cell."""
    o0 = 0
    o1 = 0
    o2 = 0
    t0 = 0
    t1 = 0
    t2 = 0
    h0 = 0
    h1 = 0
    h2 = 0
    for d in range(9):
        a = st[r, 3 * d]
        h0 |= t0 & a
        t0 |= o0 & a
        o0 |= a
        a = st[r, 3 * d + 1]
        h1 |= t1 & a
        t1 |= o1 & a
        o1 |= a
        a = st[r, 3 * d + 2]
        h2 |= t2 & a
        t2 |= o2 & a
        o2 |= a
    u0 = st[r, _U]
    u1 = st[r, _U + 1]
    u2 = st[r, _U + 2]
    m0 = t0 & ~h0 & u0
    m1 = t1 & ~h1 & u1
    m2 = t2 & ~h2 & u2
    if (m0 | m1 | m2) == 0:
        m0, m1, m2 = _fewest(st, r, u0, u1, u2)
    best = -1
    for b in range(3):
        t = m0 if b == 0 else (m1 if b == 1 else m2)
        u = u0 if b == 0 else (u1 if b == 1 else u2)
        uo = (u1 | u2) if b == 0 else ((u0 | u2) if b == 1 else (u0 | u1))
        while t:
            i = trailing_zeros(t)
            t &= t - 1
            score = _popcount(u & BAND_PEERS[i]) + _popcount(uo & (COLUMN << COL_OF[i]))
            best = max(best, (score << 7) | (127 - 27 * b - i))   # most peers, then first cell
    idx = 127 - (best & 127)
    b = idx // 27
    return b, 1 << (idx - 27 * b)


@njit(cache=True, nogil=True, inline="always")
def _init_state(puzzle, st):
    """Givens into state row 0 of ``st``, placed directly; False for a value above 9.

    Conflicting givens leave a cell without candidates (found by the first
    propagation)."""
    g0 = 0
    g1 = 0
    g2 = 0
    top = 0
    for c in range(27):
        v0 = np.int64(puzzle[c])
        v1 = np.int64(puzzle[27 + c])
        v2 = np.int64(puzzle[54 + c])
        top = max(top, max(v0, max(v1, v2)))
        g0 |= np.int64(v0 != 0) << c
        g1 |= np.int64(v1 != 0) << c
        g2 |= np.int64(v2 != 0) << c
    if top > 9:
        return False
    for d in range(9):
        st[0, 3 * d] = FULL27 & ~g0
        st[0, 3 * d + 1] = FULL27 & ~g1
        st[0, 3 * d + 2] = FULL27 & ~g2
    st[0, _U] = FULL27 & ~g0
    st[0, _U + 1] = FULL27 & ~g1
    st[0, _U + 2] = FULL27 & ~g2
    for b in range(3):
        g = g0 if b == 0 else (g1 if b == 1 else g2)
        while g:
            i = trailing_zeros(g)
            g &= g - 1
            j = (3 * (np.int64(puzzle[27 * b + i]) - 1)) & 31
            st[0, j + b] = (st[0, j + b] & ~BAND_PEERS[i]) | (1 << i)
            col = ~(COLUMN << COL_OF[i])
            st[0, j + (b + 1) % 3] &= col
            st[0, j + (b + 2) % 3] &= col
    return True


@njit(cache=True, nogil=True, inline="always")
def _avoid_words(avoid, st):
    """The grid ``avoid`` (uint8[81]) as words F into row AVOID of ``st``."""
    for i in range(27):
        st[AVOID, i] = 0
    for c in range(81):
        v = np.int64(avoid[c])
        if v:
            b = c // 27
            st[AVOID, (3 * (v - 1) + b) & 31] |= np.int64(1) << (c - 27 * b)


@njit(cache=True, nogil=True, inline="always")
def _is_avoided(st, r):
    """Is the solution in row r the avoided grid?"""
    same = True
    for i in range(27):
        same &= st[r, i] == st[AVOID, i]
    return same


@njit(cache=True, nogil=True, inline="always")
def _write_solution(st, r, solution, offset):
    for i in range(27):
        a = st[r, i]
        base = offset + 27 * (i % 3)
        d = i // 3 + 1
        while a:
            solution[base + trailing_zeros(a)] = d
            a &= a - 1


@njit(cache=True, nogil=True, inline="always")
def _pick_digit(st, r, b, bit, randomize, rng, use_avoid, near):
    """The digit to try first in a cell: the lowest, or a uniformly random one; with
    ``use_avoid`` the lowest but the avoided grid's (row AVOID of ``st``), with ``near``
    too the avoided grid's if it is possible."""
    if not randomize:
        d = 0
        if near:
            while d < 9 and not st[AVOID, 3 * d + b] & bit:
                d += 1
            if d < 9 and st[r, 3 * d + b] & bit:
                return d
            d = 0
        elif use_avoid:
            while not st[r, 3 * d + b] & bit & ~st[AVOID, 3 * d + b]:
                d += 1
            return d
        while not st[r, 3 * d + b] & bit:
            d += 1
        return d
    n = 0
    for e in range(9):
        if st[r, 3 * e + b] & bit:
            n += 1
    k = rand_below(rng, n)
    for e in range(9):
        if st[r, 3 * e + b] & bit:
            if k == 0:
                return e
            k -= 1
    return 0


@njit(cache=True, nogil=True, _nrt=False)
def _search_triads(limit, solution, st):
    """The search of :func:`_search` from its root state (row 0 of ``st``, at a fixpoint)
    with the minirow rule in propagation and configuration branching: for the puzzles
    whose singles leave most of the grid open."""
    count = 0
    guesses = 0
    sp = 0
    dirty = np.int64(0)
    cols = np.int64(0)
    while True:
        if _propagate(st, sp, dirty, cols, True):
            if (st[sp, _U] | st[sp, _U + 1] | st[sp, _U + 2]) == 0:
                count += 1
                if count == 1:
                    _write_solution(st, sp, solution, 0)
                if count >= limit:
                    return count, guesses
            else:
                if st[_FOLDS, _BAND] >= 0 and sp < TRIAD_DEPTH:
                    i, m1, m2 = _choose_split(st, sp)
                else:
                    b, bit = _choose_cell(st, sp)
                    d = 0
                    while not st[sp, 3 * d + b] & bit:
                        d += 1
                    i = 3 * d + b
                    m1 = BAND_PEERS[trailing_zeros(bit)]
                    m2 = bit
                st[sp, _ALT] = i
                st[sp, _ALT + 1] = m2
                for k in range(STATE):
                    st[sp + 1, k] = st[sp, k]
                sp += 1
                st[sp, i] &= ~m1
                guesses += 1
                dirty = np.int64(1) << i
                cols = np.int64(1) << (i // 3)
                continue
        if sp == 0:
            return count, guesses
        sp -= 1
        i = st[sp, _ALT] & 31
        st[sp, i] &= ~st[sp, _ALT + 1]
        guesses += 1
        dirty = np.int64(1) << i
        cols = np.int64(1) << (i // 3)


# The helpers above are inlined into _search (each has one call site there), and _search
# is compiled without reference counting (numba's _nrt=False: it allocates nothing and
# every array it touches belongs to its caller): array arguments of a call or of an
# inlined helper otherwise cost an atomic increment and decrement per node.
@njit(cache=True, nogil=True, _nrt=False)
def _search(puzzle, limit, solution, randomize, rng, st, avoid, use_avoid, differ_at):
    """Depth-first search.  Returns (solutions found up to ``limit``, guesses).

    With ``use_avoid`` (its words in row AVOID of ``st``: :func:`other_solution_differing_in`
    writes them) only the solutions other than the grid ``avoid`` count and
    each branch tries a digit other than ``avoid``'s first, so that such a
    solution turns up early (the uniqueness question of a subset of a grid:
    "has it another solution?").  ``differ_at`` >= 0 (with ``use_avoid``): only
    solutions whose cell ``differ_at`` differs from ``avoid`` (the candidate goes
    at the root, so propagation starts from it), and branches try ``avoid``'s digit
    first; -1: no such cell.

    ``st`` is int64[MAX_DEPTH + 2, STATE] work space: row k is the state
    after k pending branches (each row keeps its own pending alternative, so a
    branch costs one row copy; rows are indexed, never sliced, so no array
    views and their reference counts are made).  The first solution found is
    written to ``solution``, the second to ``solution[81:162]`` if it is that long
    (a 9x9 search only).  With ``randomize`` the branch digit is drawn
    from ``rng``.  ``guesses`` counts the branches entered (both "d here" and
    "d not here"); it is 0 when propagation alone solves the puzzle.
    """
    if not _init_state(puzzle, st):
        return 0, 0
    if use_avoid:
        if differ_at >= 0 and avoid[differ_at]:
            b = differ_at // 27
            st[0, (3 * (np.int64(avoid[differ_at]) - 1) + b) & 31] &= ~(np.int64(1) << (differ_at - 27 * b))
    near = differ_at >= 0
    count = 0
    guesses = 0
    sp = 0
    dirty = np.int64(FULL27)
    cols = np.int64(0x1FF)
    while True:
        if _propagate(st, sp, dirty, cols, False):
            if (st[sp, _U] | st[sp, _U + 1] | st[sp, _U + 2]) == 0:
                if not (use_avoid and _is_avoided(st, sp)):
                    count += 1
                    if count == 1:
                        _write_solution(st, sp, solution, 0)
                    elif count == 2 and solution.shape[0] >= 162:
                        _write_solution(st, sp, solution, 81)
                    if count >= limit:
                        return count, guesses
            elif (guesses == 0 and not (randomize or use_avoid)
                  and _popcount(st[0, _U]) + _popcount(st[0, _U + 1]) + _popcount(st[0, _U + 2]) >= HARD_CELLS):
                return _search_triads(limit, solution, st)
            else:
                b, bit = _choose_cell(st, sp)
                d = _pick_digit(st, sp, b, bit, randomize, rng, use_avoid, near)
                # the parent row keeps the alternative "d not in this cell" for later
                st[sp, _ALT] = 3 * d + b
                st[sp, _ALT + 1] = bit
                for k in range(STATE):
                    st[sp + 1, k] = st[sp, k]
                sp += 1
                st[sp, 3 * d + b] &= ~BAND_PEERS[trailing_zeros(bit)]
                guesses += 1
                dirty = np.int64(1) << (3 * d + b)
                cols = np.int64(1) << d
                continue
        # dead end or solution counted: resume the latest alternative
        if sp == 0:
            return count, guesses
        sp -= 1
        i = st[sp, _ALT] & 31
        st[sp, i] &= ~st[sp, _ALT + 1]
        guesses += 1
        dirty = np.int64(1) << i
        cols = np.int64(1) << (i // 3)


@njit(cache=True, nogil=True)
def new_search_stack():
    """The state rows of one search (``_search``'s ``st``)."""
    return np.empty((MAX_DEPTH + 2, STATE), dtype=np.int64)


@njit(cache=True, nogil=True)
def new_search_workspace():
    """What :func:`other_solution_differing_in` searches in, made once by a caller that asks
    many questions: the state rows, an (unused) rng state and the grid whose words row AVOID
    holds (none yet: 255 is no digit)."""
    return new_search_stack(), np.zeros(4, dtype=np.uint64), np.full(81, 255, dtype=np.uint8)


@njit(cache=True, nogil=True)
def count_solutions_kernel(puzzle, limit):
    """Number of solutions of ``puzzle`` (uint8[81]), counting stops at ``limit``."""
    solution = np.zeros(81, dtype=np.uint8)
    n, _ = _search(puzzle, np.int64(limit), solution, np.bool_(False), np.zeros(4, dtype=np.uint64),
                   new_search_stack(), puzzle, np.bool_(False), NO_CELL)
    return n


@njit(cache=True, nogil=True)
def solve_kernel(puzzle, limit, solution):
    """Count solutions up to ``limit``; first one into ``solution`` (uint8[81]; with
    uint8[162] the second one too, into ``solution[81:]``).  Returns (count, guesses)."""
    return _search(puzzle, np.int64(limit), solution, np.bool_(False), np.zeros(4, dtype=np.uint64),
                   new_search_stack(), puzzle, np.bool_(False), NO_CELL)


@njit(cache=True, nogil=True)
def count_solutions_batch_kernel(puzzles, limit, counts):
    stack = new_search_stack()
    solution = np.zeros(81, dtype=np.uint8)
    rng = np.zeros(4, dtype=np.uint64)
    for i in range(puzzles.shape[0]):
        counts[i], _ = _search(puzzles[i], np.int64(limit), solution, np.bool_(False), rng, stack, puzzles[i],
                               np.bool_(False), NO_CELL)


@njit(cache=True, nogil=True)
def solve_batch_kernel(puzzles, limit, solutions, counts, guesses):
    stack = new_search_stack()
    rng = np.zeros(4, dtype=np.uint64)
    for i in range(puzzles.shape[0]):
        c, g = _search(puzzles[i], np.int64(limit), solutions[i], np.bool_(False), rng, stack, puzzles[i],
                       np.bool_(False), NO_CELL)
        counts[i] = c
        guesses[i] = g


@njit(cache=True, nogil=True)
def is_unique_kernel(puzzle):
    return count_solutions_kernel(puzzle, np.int64(2)) == 1


@njit(cache=True, nogil=True)
def random_solution_kernel(puzzle, rng, solution):
    """A solution of ``puzzle`` reached with random branch choices (0 if none)."""
    n, _ = _search(puzzle, np.int64(1), solution, np.bool_(True), rng, new_search_stack(), puzzle, np.bool_(False),
                   NO_CELL)
    return n


@njit(cache=True, nogil=True)
def other_solution_kernel(puzzle, avoid, other):
    """Has ``puzzle`` a solution other than the grid ``avoid``?  Returns 1 and writes the
    first one found to ``other``, else 0.  For a clue set taken from the grid this is
    the uniqueness check (0: unique), and ``other`` then gives an unavoidable set (the
    cells where it differs from the grid); the search tries digits other than the
    grid's first, so a second solution turns up early."""
    return other_solution_differing_kernel(puzzle, avoid, NO_CELL, other)


@njit(cache=True, nogil=True)
def other_solution_differing_kernel(puzzle, avoid, cell, other):
    """:func:`other_solution_kernel` restricted, for ``cell`` >= 0, to the solutions whose
    ``cell`` differs from ``avoid``.  Deleting the clue of ``cell`` from a unique clue
    set T of the grid (the minimality and top-down questions) leaves T - {cell} with
    another solution exactly when one differs there (one agreeing there solves T), and
    that candidate gone at the root most such questions end in the root propagation."""
    return other_solution_differing_in(puzzle, avoid, cell, other, new_search_workspace())


@njit(cache=True, nogil=True)
def other_solution_differing_in(puzzle, avoid, cell, other, workspace):
    """:func:`other_solution_differing_kernel` in the caller's ``workspace``
    (``new_search_workspace``): an oracle asking thousands of questions a grid saves two
    allocations a question (~9% of a question's time), and the avoided grid's words are
    made again only when the grid changes (an oracle's questions are all about one grid: the
    words cost ~0.085 us of a 0.83 us question, 2026-11-29)."""
    st, rng, words_of = workspace
    changed = np.uint8(0)
    for c in range(81):   # branch-free, so that it vectorizes
        changed |= avoid[c] ^ words_of[c]
    if changed:
        _avoid_words(avoid, st)
        words_of[:] = avoid
    n, _ = _search(puzzle, np.int64(1), other, np.bool_(False), rng, st, avoid, np.bool_(True), np.int64(cell))
    return n


# ---------------------------------------------------------------- Python API
def _as_puzzle(puzzle) -> np.ndarray:
    p = np.ascontiguousarray(puzzle, dtype=np.uint8).reshape(-1)
    if p.shape != (81,):
        raise ValueError(f"a puzzle has 81 cells, got {p.size}")
    if p.max(initial=0) > 9:
        raise ValueError("cell values must be 0..9")
    return p


def count_solutions(puzzle, limit: int = 2) -> int:
    """Number of solutions of ``puzzle``, counting stops at ``limit``."""
    if limit < 1:
        raise ValueError("limit must be at least 1")
    return int(count_solutions_kernel(_as_puzzle(puzzle), limit))


def solve(puzzle) -> np.ndarray:
    """The first solution of ``puzzle``; raises NoSolutionError if it has none."""
    sol = np.zeros(81, dtype=np.uint8)
    n, _ = solve_kernel(_as_puzzle(puzzle), 1, sol)
    if n == 0:
        raise NoSolutionError("the puzzle has no solution")
    return sol


def solve_with_stats(puzzle, limit: int = 2) -> tuple[int, np.ndarray | None, int]:
    """(solutions up to limit, first solution or None, guess count)."""
    sol = np.zeros(81, dtype=np.uint8)
    n, g = solve_kernel(_as_puzzle(puzzle), limit, sol)
    return int(n), (sol if n else None), int(g)


def _as_batch(puzzles) -> np.ndarray:
    p = np.ascontiguousarray(puzzles, dtype=np.uint8)
    if p.ndim != 2 or p.shape[1] != 81:
        raise ValueError("a puzzle batch has shape (N, 81)")
    return p


def count_solutions_batch(puzzles, limit: int = 2) -> np.ndarray:
    p = _as_batch(puzzles)
    counts = np.zeros(p.shape[0], dtype=np.int64)
    count_solutions_batch_kernel(p, limit, counts)
    return counts


def solve_batch(puzzles, limit: int = 2) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(solutions uint8[N,81] (zeros where none), counts, guesses) for a batch."""
    p = _as_batch(puzzles)
    n = p.shape[0]
    sols = np.zeros((n, 81), dtype=np.uint8)
    counts = np.zeros(n, dtype=np.int64)
    guesses = np.zeros(n, dtype=np.int64)
    solve_batch_kernel(p, limit, sols, counts, guesses)
    return sols, counts, guesses
