"""Every minimal puzzle inside a clue set of one grid (the subsets DFS), all clue counts at
once: the (c, s)-subsets estimators, the weighted minimal-puzzle sampler and the c >= 29 tail
run ask this (the supersets search, every one containing a clue set, is ``minimal_supersets``).
The uniqueness questions go to ``minimal``'s oracle (its cached unavoidable sets and the
solver), whose conventions hold here: clue sets are cell sets of ``core.cellset``, and a set's
clues are the grid's digits on its cells.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from sudokustudio.core.cellset import ONE, ZERO, add_cell, clue_set, has_cell, remove_cell, set_size
from sudokustudio.core.rng import rand_float
from sudokustudio.sudoku.minimal import (all_clues_needed, alone_in_a_ua, alone_in_uas_since, missed_ua,
                                         solver_says_unique)
from sudokustudio.sudoku.solver import NO_CELL


# ------------------------------------------------ minimals inside a subset
#: the unique sets a subsets DFS remembers (a table of twice as many slots at most)
MAX_SEEN = 1 << 19
#: the length of a thinning array (:func:`thinned_minimals_in_subset`)
THIN_LEN = 6
#: the known unique sets (the minimals found and, with a clue floor, sets just below it) a subsets
#: DFS has room for at first (it keeps them all, in 64-bit words of bit sets)
FIRST_MINIMALS_ROOM = 256


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


@njit(cache=True, nogil=True, inline="always")
def _known_since(known_before, n_known, w):
    """Word w of the bit set of the known unique sets ``known_before``..n_known-1."""
    start = max(known_before - 64 * w, 0)   # their bits in this word: start..end-1
    end = min(n_known - 64 * w, 64)
    if start >= end:
        return ZERO
    return ((ONE << np.uint64(end - start)) - ONE if end - start < 64 else ~ZERO) << np.uint64(start)


@njit(cache=True, nogil=True, inline="always")
def _inside_child(inside, holds, level, deleted, known_before, n_known, n_words):
    """``inside[level]`` := the known unique sets inside the set one clue (position ``deleted``)
    smaller than the one at ``level - 1``: those inside that set (its bits), and the ones known
    since its bits were made (``known_before``..n_known-1, all inside it: found at it or
    below it), less those holding the deleted clue.  Returns whether any is inside."""
    anything = ZERO
    for w in range(n_words):
        bits = (inside[level - 1, w] | _known_since(known_before, n_known, w)) & ~holds[deleted, w]
        inside[level, w] = bits
        anything |= bits
    return anything != ZERO


@njit(cache=True, nogil=True, inline="always")
def _one_lacks(inside, holds, level, j, n_words):
    """Does a known unique set inside the set at ``level`` lack the clue at position j?  (Then
    the set less that clue holds it: unique, and not minimal, being larger.)"""
    for w in range(n_words):
        if inside[level, w] & ~holds[j, w]:
            return True
    return False


@njit(cache=True, nogil=True)
def _widened(a):
    """The 2-d array ``a`` with twice as many columns, the new ones zero."""
    b = np.zeros((a.shape[0], 2 * a.shape[1]), dtype=a.dtype)
    b[:, :a.shape[1]] = a
    return b


@njit(cache=True, nogil=True, inline="always")
def _remember_inside(holds, inside, n_known, work, keep, s, but_a, but_b):
    """Entry ``n_known`` of the bit sets := the clue set ``work`` (its clues at the positions
    ``keep[:s]``) less the clues at positions ``but_a`` and ``but_b``.  Returns (holds, inside),
    twice as wide when they were full.  (A minimal found is added by the same lines inline:
    through this helper, or one that returns nothing, the complete search read 4-9% slower at
    s = 32 in three pairings.)"""
    if n_known == 64 * holds.shape[1]:
        holds = _widened(holds)
        inside = _widened(inside)
    word = n_known // 64
    bit = ONE << np.uint64(n_known % 64)
    for j in range(s):
        if work[keep[j]] and j != but_a and j != but_b:
            holds[j, word] |= bit
    return holds, inside


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
def _subset_clues(grid, subset_mask):
    """The kept cells of a subset in increasing order (``keep[:s]``, their positions in the DFS),
    the grid's clues on them (``work``) and their cell set (lo, hi)."""
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
    return keep, s, work, lo, hi


@njit(cache=True, nogil=True)
def minimals_in_subset(o, subset_mask, out, counts_by_c, min_clues):
    """Every minimal puzzle whose clues are a subset of the kept cells (``subset_mask`` 1 =
    kept) with ``min_clues`` clues or more (0: all), counted by clue count into ``counts_by_c``;
    the first ``out.shape[0]`` go to ``out``; returns how many (:func:`_minimals_in_subset`)."""
    return thinned_minimals_in_subset(o, subset_mask, out, counts_by_c, min_clues, np.zeros(THIN_LEN),
                                      np.zeros(counts_by_c.shape[0]), np.zeros(4, dtype=np.uint64))


@njit(cache=True, nogil=True)
def thinned_minimals_in_subset(o, subset_mask, out, counts_by_c, min_clues, thin, worth_by_c, rng):
    """:func:`minimals_in_subset`, going past the subset's first level only with a chance that
    falls with the number r of its clues that can go alone (its unique children):
    pi(r) = min(1, exp(-beta (r - r0))), ``thin`` = [beta, r0, u, weight], u uniform in [0, 1)
    drawn by the caller.  A subset whose u >= pi(r) counts nothing; one that goes on counts its
    minimals, each worth ``weight`` = 1 / pi(r) (written back; 1.0 when beta is 0, as for a
    subset that is not unique): unbiased.  Where the finds are rare and sit in the subsets with
    few removable clues (30-clue minimals in 33-clue subsets: 0.0047 a unique subset with r = 12,
    0.00013 with r = 19, which costs 3.3x the questions), thinning the others buys more finds a
    CPU-second.
    With a floor, a second thinning (``thin[4:6]`` = [beta2, n2], beta2 0: none): each unique
    set one clue above the floor is searched (its children, the floor sets) with chance
    min(1, exp(beta2 (k - n2))), k its clues alone in a cached UA (needed), drawn from ``rng``;
    its own and its children's finds are then worth 1 / that chance more.  (A minimal floor
    set needs all its clues: 33-clue subsets searched to 29 found 1 in 2.4 million such sets with
    k <= 19, 85% of that search's questions, and 89 in the 0.6 million others.)  A set whose
    search was left is still remembered; its children are not, so a later set one clue above the
    floor that the table calls minimal is then checked by the solver.  ``worth_by_c[c]`` += the
    worth of each c-clue find (``counts_by_c`` counts them).
    Two DFSs: with no floor :func:`_every_minimal_in_subset`, above one
    :func:`_minimals_in_subset_above` (the floor's code made the complete search ~1.1-1.2x slower
    at s = 32 when compiled into it, paired)."""
    subset_lo, subset_hi = clue_set(subset_mask)
    if missed_ua(o, subset_lo, subset_hi) >= 0:
        # not unique by a cached UA (~83% of 29-clue probes, ~89% of 30-clue ones): settled before
        # the DFS makes any array (2.35 -> 2.1 us a 29-clue probe, timed apart)
        thin[3] = 1.0
        return 0
    if min_clues == 0:
        return _every_minimal_in_subset(o, subset_mask, out, counts_by_c, thin, worth_by_c, rng)
    return _minimals_in_subset_above(o, subset_mask, out, counts_by_c, min_clues, thin, worth_by_c, rng)


@njit(cache=True, nogil=True)
def _every_minimal_in_subset(o, subset_mask, out, counts_by_c, thin, worth_by_c, rng):
    """Every minimal puzzle whose clues are a subset of the kept cells (``subset_mask`` 1 =
    kept), any box shape.

    Depth-first: clues are deleted in increasing position order, so each subset is visited at
    most once, and only unique sets are entered (a non-unique set has no unique subset): every
    unique subset is visited, in lexicographic order of its deletions.  A leaf (a unique set
    with no unique child) is minimal unless it holds a minimal found before it: a unique set
    inside it was then visited before it, and held a minimal the DFS had reached before it.
    The solver is asked only about children not settled by the cached UAs (a clue alone in one
    is needed) or by the minimals found: a clue outside one inside the set can go, and the set
    less it is unique.  The minimals are kept as bit sets over them: the ones holding each clue,
    and the ones inside each set of the path, made from its parent's with one AND a word
    (32-clue subsets find ~360 minimals, 1.3x less CPU than a pass over them all at every set).
    A set's child is asked about only when the DFS comes to it, after the subtrees of its
    earlier siblings: by then it may hold a minimal found in those subtrees, and the UAs the
    solver gave there may show its clue needed (a set's needed clues are topped up from the UAs
    cached since they were made: :func:`alone_in_uas_since`).  Asked all at once on entering
    the set, as above a floor, 30-clue subsets took 1.47x the solver calls and ~1.1x the CPU
    (2026-11-30, scratch: 144,000 probes, the same minimals).  With the subset's first level
    thinned (``thin[0]`` != 0) the root's children are all asked first: their number decides
    whether the search goes on (:func:`thinned_minimals_in_subset`).  ``counts_by_c[c]`` += the
    number of c-clue minimals found (``worth_by_c[c]`` their worth); the first ``out.shape[0]``
    go to ``out``; returns how many.
    Long (~140 lines): the DFS stack and the minimals' bit sets share one loop, and uniqueness
    is asked inline (a helper would compile the solver again)."""
    grid = o[0]
    ua_n = o[5]
    keep, s, work, lo, hi = _subset_clues(grid, subset_mask)
    thin[3] = 1.0
    if not solver_says_unique(o, work, lo, hi, NO_CELL):   # the cached UAs: asked by the caller
        return 0
    need_lo, need_hi = alone_in_a_ua(o, lo, hi)
    root_unique = np.zeros(s if thin[0] != 0.0 else 0, dtype=np.bool_)
    if thin[0] != 0.0:   # the subset's removable clues decide whether to go on
        r = 0
        for j in range(s):
            x = keep[j]
            if not has_cell(need_lo, need_hi, x):
                work[x] = 0
                x_lo, x_hi = remove_cell(lo, hi, x)
                root_unique[j] = solver_says_unique(o, work, x_lo, x_hi, x)
                r += root_unique[j]
                work[x] = grid[x]
        go_on = min(1.0, np.exp(-thin[0] * (r - thin[1])))
        if thin[2] >= go_on:
            thin[3] = 0.0
            return 0
        thin[3] = 1.0 / go_on
    # the path's sets, saved while the DFS is below them: the next position to try, whether the
    # set holds a known minimal, its needed clues (and the UAs cached when they were last made)
    next_at = np.zeros(s + 1, dtype=np.int64)
    holds_one_at = np.zeros(s + 1, dtype=np.bool_)
    need_lo_at = np.zeros(s + 1, dtype=np.uint64)
    need_hi_at = np.zeros(s + 1, dtype=np.uint64)
    since_at = np.zeros(s + 1, dtype=np.int64)
    deleted_at = np.empty(s + 1, dtype=np.int64)
    n_words = FIRST_MINIMALS_ROOM // 64
    holds = np.zeros((s, n_words), dtype=np.uint64)
    inside = np.zeros((s + 1, n_words), dtype=np.uint64)
    known_before = np.zeros(s + 1, dtype=np.int64)
    n_known = 0
    n_written = 0
    level = 0
    size = s
    # the set at ``level``: the next position to try, any unique child yet, holds a known minimal
    j = 0
    has_child = False
    holds_one = False
    since = ua_n[1]
    while True:
        entered = False
        while j < s:
            x = keep[j]
            j += 1
            if since != ua_n[1]:
                a, b = alone_in_uas_since(o, lo, hi, since)
                need_lo |= a
                need_hi |= b
                since = ua_n[1]
            if has_cell(need_lo, need_hi, x):
                continue
            if n_known > known_before[level]:   # minimals found below it since: all inside it
                for w in range((n_known + 63) // 64):
                    inside[level, w] |= _known_since(known_before[level], n_known, w)
                known_before[level] = n_known
                holds_one = True
            work[x] = 0
            x_lo, x_hi = remove_cell(lo, hi, x)
            if level == 0 and thin[0] != 0.0:
                unique = root_unique[j - 1]
            else:
                unique = ((holds_one and _one_lacks(inside, holds, level, j - 1, (n_known + 63) // 64))
                          or solver_says_unique(o, work, x_lo, x_hi, x))
            if unique:   # save this set and enter the child
                next_at[level] = j
                holds_one_at[level] = holds_one
                need_lo_at[level] = need_lo
                need_hi_at[level] = need_hi
                since_at[level] = since
                lo, hi = x_lo, x_hi
                size -= 1
                level += 1
                deleted_at[level] = j - 1
                holds_one = _inside_child(inside, holds, level, j - 1, known_before[level - 1], n_known,
                                          (n_known + 63) // 64)
                known_before[level] = n_known
                has_child = False
                need_lo, need_hi = alone_in_a_ua(o, lo, hi)
                since = ua_n[1]
                entered = True
                break
            work[x] = grid[x]
        if entered:
            continue
        if not has_child and not holds_one:   # a leaf holding no minimal found: minimal
            holds, inside = _remember_inside(holds, inside, n_known, work, keep, s, -1, -1)
            n_known += 1
            counts_by_c[size] += 1
            worth_by_c[size] += thin[3]
            if n_written < out.shape[0]:
                out[n_written, :] = work
                n_written += 1
        if level == 0:
            return n_written
        x = keep[deleted_at[level]]   # climb to the parent
        work[x] = grid[x]
        lo, hi = add_cell(lo, hi, x)
        size += 1
        level -= 1
        j = next_at[level]
        has_child = True
        holds_one = holds_one_at[level]
        need_lo = need_lo_at[level]
        need_hi = need_hi_at[level]
        since = since_at[level]


@njit(cache=True, nogil=True)
def _minimals_in_subset_above(o, subset_mask, out, counts_by_c, min_clues, thin, worth_by_c, rng):
    """Every minimal puzzle of ``min_clues`` clues or more whose clues are a subset of the kept
    cells (``subset_mask`` 1 = kept), any box shape: the DFS of :func:`_every_minimal_in_subset`
    stopped at a floor.

    Below the floor nothing is visited, so a leaf holding no minimal found may still hold a
    smaller unique set: a unique set is minimal when none of its children is unique and no clue
    deleted before the last one is redundant.  That second test needs no solver: deleting such a
    clue gives a set whose clues deleted in increasing order are each a child of the previous
    set, i.e. a unique set visited before this one (the DFS visits the sets in lexicographic
    order of their deletions), so the clue is redundant exactly when that set is among the
    visited ones (a hash table; ``all_clues_needed`` on those clues if it ever overflows); a set
    holding a unique set known before it is not minimal without that look-up.
    A set of ``min_clues`` clues is not entered, only asked whether any clue can go
    (``all_clues_needed``: the solver stops at the first that can, where entering it certified
    every unique subset), and once a set one above has a unique child T - y, its next children
    T - x take one question, T - x - y unique (then T - x is unique and not minimal; nor is
    T - y then: x can go from it), instead of two (1.5x less CPU for the c >= 29 tail in
    34-clue subsets, the same minimals; T - y's test skipped: 1.09x less in 33- and 34-clue
    subsets searched to 30); where a cached UA holds x and y alone among the set's clues,
    T - x - y is known not unique and T - x takes its one question directly (1.1-1.17x less for
    subsets searched to a floor).  The sets T - x - y proven unique so join the unique sets
    known (with the minimals found) once the loop over T's children is done: a floor set, or a
    floor child, holding one is not minimal, and a child holding one is unique, without a
    question (half the solver calls of 33-clue subsets searched to 30, 1.5x less CPU).
    A set's children are all asked on entering it (the floor sets' parents, which ask most
    questions here, have no subtrees to wait for).  ``thin``: the chances of going past the
    first level and past a floor set's parent (:func:`thinned_minimals_in_subset`).
    Long (~200 lines, 40 of them this docstring): the DFS stack, the visited-set table and the
    known sets' bit sets share one loop, and uniqueness is asked inline (a helper would compile
    the solver again).
    """
    grid = o[0]
    N = grid.shape[0]
    keep, s, work, lo, hi = _subset_clues(grid, subset_mask)
    n_written = 0
    thin[3] = 1.0
    sub_w = 1.0       # the worth of a find below a floor set's parent (the second thinning)
    skipped = False   # has the second thinning left a floor set's parent unsearched?
    if not solver_says_unique(o, work, lo, hi, NO_CELL):   # the cached UAs: asked by the caller
        return 0
    children = np.empty((s + 1, s), dtype=np.int64)   # positions; -1 - position: known not minimal
    n_children = np.zeros(s + 1, dtype=np.int64)
    not_minimal = np.zeros(s + 1, dtype=np.bool_)    # the node at a level is known not to be minimal
    ptr = np.zeros(s + 1, dtype=np.int64)
    deleted_at = np.empty(s + 1, dtype=np.int64)  # position (in keep) deleted to reach level L
    seen_lo = np.zeros(1024, dtype=np.uint64)   # the unique sets visited (none is empty)
    seen_hi = np.zeros(1024, dtype=np.uint64)
    n_seen = np.zeros(1, dtype=np.int64)
    # the unique sets known (the minimals found; with a floor, also sets one clue below it), as
    # bit sets over them: holds[j] = those holding the clue at position j, inside[L] = those
    # inside the set at level L (made when known_before[L] were known)
    n_words = FIRST_MINIMALS_ROOM // 64
    holds = np.zeros((s, n_words), dtype=np.uint64)
    inside = np.zeros((s + 1, n_words), dtype=np.uint64)
    known_before = np.zeros(s + 1, dtype=np.int64)
    n_known = 0
    learned = np.empty(s, dtype=np.int64)   # a floor parent's positions x, T - x - y unique
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
        used = (n_known + 63) // 64
        holds_one = level > 0 and _inside_child(inside, holds, level, p, known_before[level - 1], n_known, used)
        known_before[level] = n_known   # (the root holds none: none is known yet)
        if size == min_clues:
            # the floor: minimal exactly when no clue can go; its subsets are never visited, so
            # the solver stops at the first unique one instead of certifying them all (a unique
            # set known inside it is smaller: one can go)
            minimal = not not_minimal[level] and not holds_one and all_clues_needed(o, work, lo, hi, ZERO, ZERO)
        elif size > min_clues:
            need_lo, need_hi = alone_in_a_ua(o, lo, hi)
            search_on = True
            if size == min_clues + 1:
                # the second thinning: a floor set's parent goes on with a chance that rises with
                # its clues known needed (alone in a cached UA); its finds are worth 1 / chance
                sub_w = 1.0
                if thin[4] != 0.0:
                    chance = min(1.0, np.exp(thin[4] * (set_size(need_lo & lo, need_hi & hi) - thin[5])))
                    if chance < 1.0:
                        search_on = rand_float(rng) < chance
                        if search_on:
                            sub_w = 1.0 / chance
                        else:
                            skipped = True
            if search_on:
                y = -1    # above the floor: a clue whose deletion was found to leave a unique set
                y_at = -1   # its entry in ``children``
                pair_lo = pair_hi = ZERO
                n_learned = 0
                y_pos = -1
                for j in range(p + 1, s):
                    x = keep[j]
                    later_lo, later_hi = add_cell(later_lo, later_hi, x)
                    if has_cell(need_lo, need_hi, x):
                        continue
                    work[x] = 0
                    x_lo, x_hi = remove_cell(lo, hi, x)   # this set minus x
                    if holds_one and _one_lacks(inside, holds, level, j, used):
                        children[level, nc] = -1 - j   # unique, and holds a smaller unique set
                        nc += 1
                    elif y >= 0 and has_cell(pair_lo, pair_hi, x):
                        # this set minus y and x misses a cached UA: only "is this set minus x unique"
                        if solver_says_unique(o, work, x_lo, x_hi, x):
                            children[level, nc] = j
                            nc += 1
                    elif y >= 0:
                        # one question for a floor child: no other solution of it minus y differing at x
                        # (this set minus y is unique) makes it unique and not minimal at once
                        work[y] = 0
                        a, b = remove_cell(x_lo, x_hi, y)
                        u = solver_says_unique(o, work, a, b, x)
                        work[y] = grid[y]
                        if u:
                            learned[n_learned] = j   # known after this loop (none of its children holds it)
                            n_learned += 1
                            children[level, nc] = -1 - j
                            nc += 1
                            if children[level, y_at] >= 0:   # x can go from this set minus y too
                                children[level, y_at] = -1 - children[level, y_at]
                        elif o[6][y] != grid[y] and solver_says_unique(o, work, x_lo, x_hi, x):
                            children[level, nc] = j   # (the solution found kept y's clue: not unique)
                            nc += 1
                    elif solver_says_unique(o, work, x_lo, x_hi, x):
                        children[level, nc] = j
                        nc += 1
                        if size == min_clues + 1:
                            y = x
                            y_at = nc - 1
                            y_pos = j
                            y_lo, y_hi = remove_cell(lo, hi, y)
                            pair_lo, pair_hi = alone_in_a_ua(o, y_lo, y_hi)   # with y, alone in a UA
                    work[x] = grid[x]
                for k in range(n_learned):
                    holds, inside = _remember_inside(holds, inside, n_known, work, keep, s, learned[k], y_pos)
                    n_known += 1
                if level == 0 and thin[0] != 0.0:   # the subset's removable clues are known: go on?
                    go_on = min(1.0, np.exp(-thin[0] * (nc - thin[1])))
                    if thin[2] >= go_on:
                        thin[3] = 0.0
                        return 0
                    thin[3] = 1.0 / go_on
                # a set holding a minimal found before it is not minimal: most leaves are settled so,
                # before the look-ups of the sets one clue smaller (~8 a leaf)
                minimal = nc == 0 and not holds_one
                if minimal:
                    if n_seen[0] >= 0:
                        for j in range(p):
                            a, b = remove_cell(lo, hi, keep[j])
                            if work[keep[j]] and _seen_has(seen_lo, seen_hi, a, b):
                                minimal = False
                                break
                        # a floor set the second thinning left unvisited is not in the table
                        if minimal and skipped and size == min_clues + 1:
                            minimal = all_clues_needed(o, work, lo, hi, later_lo, later_hi)
                    else:
                        minimal = all_clues_needed(o, work, lo, hi, later_lo, later_hi)
        if minimal:
            if n_known == 64 * holds.shape[1]:
                holds = _widened(holds)
                inside = _widened(inside)
            word = n_known // 64
            bit = ONE << np.uint64(n_known % 64)
            for j in range(s):
                if work[keep[j]]:
                    holds[j, word] |= bit
            n_known += 1
            counts_by_c[size] += 1
            worth_by_c[size] += thin[3] * (sub_w if size <= min_clues + 1 else 1.0)
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
