"""The few-clue search of seed 004: every minimal puzzle of a grid with at most
k clues, as hitting sets of its unavoidable sets (UAs).

Depth-first enumeration of hitting sets, branching on the unhit UA with the
fewest live cells, with dead cells (cells tried earlier in a branch are
excluded from its later siblings' subtrees; so the busiest cells are tried
first, and of the smallest UAs the one overlapping the others most is
branched on: this halves the nodes of a 16-clue search), and the "forward
view": greedy groups of pairwise disjoint unhit UAs give a lower bound on
the clues still needed (Property 1: more than the clues left -> dead branch;
Property 2: exactly the clues left -> every remaining clue lies in the
group; Property 3: several such groups -> intersect them).  The view is
progressive: a group is formed from the UAs less the cells the critical
groups before it exclude, so Property 3 sharpens the later groups of the
same view (a UA left without a cell kills the node), and it is taken again
while a round kills cells; its first group is counted while the child's
list is built, so a node failing there costs one pass.  With 16 starts
per view, on the 20 random grids of benchmarks/ua_census.py: 16-clue
nodes -46 %, search CPU per grid -40 % (median of paired ratios; 1.3 ->
1.5 us a node); 4 starts where 7 or more clues are left (a view there
rarely kills) took 2.6 % more off.  A complete hitting set is checked by
the solver; if it is not unique, the difference to another solution is a
new UA, added on the fly.

The passes over a node's list (the child's list and the views' greedy
groups) test eight UAs at a time with vector instructions
(``core.cellset_blocks``): the same lists, groups and nodes, search CPU
0.75x on four median grids of the census (paired, 2026-11-30).

A node is ``uint64[4]``: clue set and dead set (``core.cellset`` words).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from sudokustudio.core.cellset import FULL_HI81, FULL_LO, ZERO, cell_set, cells_of, diff_set, has_cell, restrict
from sudokustudio.core.bits import lowest_index64, popcount64
from sudokustudio.core.cellset_blocks import compress8, disjoint_mask8, first_disjoint
from sudokustudio.sudoku.minimal import all_clues_needed, is_unique, missed_ua

S_NODES, S_LEAVES, S_ADDED, S_FORWARD_PRUNES, S_PUZZLES, S_NONMINIMAL, S_OVERFLOW, S_FRONTIER = range(8)
N_STATS = 8
#: columns of a node row and of the per-depth path (the path adds the cells tried so far)
CLUE_LO, CLUE_HI, DEAD_LO, DEAD_HI, TRIED_LO, TRIED_HI = range(6)
#: views per node while Property 3 kills cells: 1 -> 2 cut 16-clue nodes 4 %, CPU 11 % (4 grids); 4: no better
_VIEW_ROUNDS = 2
#: greedy disjoint groups tried per node, by the clues left.  With the progressive view,
#: every start is worth its pass: 10 -> 16 starts cut 16-clue nodes 7 %, CPU 7 %, and no
#: longer stopping after a group two short of critical cut nodes 28 %, CPU 14 % (4 random
#: grids, paired); 24 or 40 starts: fewer nodes, more CPU.  But with 7 or more clues left a
#: view rarely kills (15 % of views at 7, 3 % at 8, none at 9 or more; 93-97 % at 3-4), so
#: there 4 starts: search CPU -2.6 % (30 random grids, paired; nodes +1 %)
_GROUP_STARTS_BY_CLUES_LEFT = np.array([16] * 7 + [4] * 75, dtype=np.int64)
_TIE_CANDIDATES = 4
#: Branch cells are tried in decreasing order of the UAs they hit, a UA of size
#: s counting twice as much as one of size s + 1: a cell once tried is dead for
#: its later siblings, so trying the busiest cells first leaves the siblings
#: tightly constrained (on grid #40000 of puzzles2_17_clue: 95 M nodes -> 52 M).
_HIT_WEIGHT_BY_SIZE = np.array([1 << max(0, 16 - s) for s in range(90)], dtype=np.int64)
#: the search kernel polls its cancel flag every this many nodes (a node costs ~1-10 us)
CANCEL_POLL = 1024
_CANCEL_MASK = np.int64(CANCEL_POLL - 1)
#: _search_loop's results, and the ways it goes on (state[1])
_DONE, _CANCELLED, _AT_LEAF = range(3)
_GO_NEW_NODE, _GO_EVALUATE, _GO_NEXT_BRANCH = range(3)


@njit(cache=True, nogil=True, _nrt=False)
def _root_list(ua_lo, ua_hi, node, lo, hi, cap):
    """The UAs not hit by the node's clues, reduced to their live (not dead)
    cells, into lo/hi; how many, or -1 when one has no live cell left."""
    m = 0
    for i in range(ua_lo.shape[0]):
        if (ua_lo[i] & node[CLUE_LO]) != ZERO or (ua_hi[i] & node[CLUE_HI]) != ZERO:
            continue
        a = ua_lo[i] & ~node[DEAD_LO]
        b = ua_hi[i] & ~node[DEAD_HI]
        if a == ZERO and b == ZERO:
            return -1
        if m < cap:
            lo[m] = a
            hi[m] = b
            m += 1
    return m


@njit(cache=True, nogil=True, _nrt=False)
def _record_node(front, stats, clo, chi, dlo, dhi):
    """Append a node to the frontier (split runs)."""
    f = stats[S_FRONTIER]
    if f < front.shape[0]:
        front[f, CLUE_LO] = clo
        front[f, CLUE_HI] = chi
        front[f, DEAD_LO] = dlo
        front[f, DEAD_HI] = dhi
    else:
        stats[S_OVERFLOW] += 1
    stats[S_FRONTIER] += 1


@njit(cache=True, nogil=True)
def _check_leaf(o, clo, chi, out_puz, stats, puzzle):
    """A complete hitting set: if unique and minimal, a puzzle.  Returns the
    UA it misses when it is not unique (a cached UA of the oracle, else the
    difference to the other solution ``is_unique`` left in it), else (0, 0).
    ``o``: a fixed oracle."""
    grid = o[0]
    stats[S_LEAVES] += 1
    restrict(grid, clo, chi, puzzle)
    if is_unique(o, puzzle, clo, chi):
        if all_clues_needed(o, puzzle, clo, chi, ZERO, ZERO):
            p = stats[S_PUZZLES]
            if p < out_puz.shape[0]:
                out_puz[p] = puzzle
            else:
                stats[S_OVERFLOW] += 1
            stats[S_PUZZLES] += 1
        else:
            stats[S_NONMINIMAL] += 1
        return ZERO, ZERO
    stats[S_ADDED] += 1
    ui = missed_ua(o, clo, chi)
    if ui >= 0:   # answered from the oracle's cached UAs
        return o[3][ui], o[4][ui]
    return diff_set(grid, o[6])   # the other solution the solver found for is_unique


@njit(cache=True, nogil=True, _nrt=False)
def _add_found_ua(ulo, uhi, d, L_lo, L_hi, L_n, path, cap):
    """Add a UA found at a leaf of depth d to the lists of the depths above
    (minus their dead cells) and make it the only UA at depth d.  False when
    all its cells are dead at depth d (the node has no hitting set)."""
    for f in range(d):
        a = ulo & ~path[f, DEAD_LO]
        b = uhi & ~path[f, DEAD_HI]
        if (a != ZERO or b != ZERO) and L_n[f] < cap:
            L_lo[f, L_n[f]] = a
            L_hi[f, L_n[f]] = b
            L_n[f] += 1
    a = ulo & ~path[d, DEAD_LO]
    b = uhi & ~path[d, DEAD_HI]
    if a == ZERO and b == ZERO:
        return False
    L_lo[d, 0] = a
    L_hi[d, 0] = b
    L_n[d] = 1
    return True


@njit(cache=True, nogil=True, _nrt=False)
def _sort_by_size(lo, hi, n, sizes, tmp_lo, tmp_hi, bucket):
    """Reorder the list smallest live UA first (stable counting sort); sizes[i] := live cells of UA i.
    The sizes are counted in loops of their own, before and after: those vectorize
    (search CPU 0.97x on four median grids, paired; the same nodes)."""
    for i in range(n):
        sizes[i] = popcount64(lo[i]) + popcount64(hi[i])
    for s in range(83):
        bucket[s] = 0
    for i in range(n):
        bucket[sizes[i] + 1] += 1
    for s in range(1, 83):
        bucket[s] += bucket[s - 1]
    for i in range(n):
        s = sizes[i]
        tmp_lo[bucket[s]] = lo[i]
        tmp_hi[bucket[s]] = hi[i]
        bucket[s] += 1
    for i in range(n):
        lo[i] = tmp_lo[i]
        hi[i] = tmp_hi[i]
    for i in range(n):
        sizes[i] = popcount64(lo[i]) + popcount64(hi[i])


@njit(cache=True, nogil=True, _nrt=False)
def _forward_view(lo, hi, n, r, node, first):
    """Seed 004's forward view with r > 1 clues left: greedy disjoint groups, taking
    the UAs in list order (about smallest first: see search_kernel).  Returns True
    when the node is dead (Property 1, or a UA without a cell in every critical
    group); otherwise the cells outside the critical groups (Properties 2, 3)
    become dead in ``node`` and leave the lists, and the view is taken again
    on the smaller UAs while that kills cells (_VIEW_ROUNDS).  ``first``: the
    group started at the first UA (cells lo, hi, count, and its members of
    index < 64 as bits), counted while the list was built (_child_list); a
    count of 0: not known.

    While no group is critical, a start that is a member of the first group
    is skipped: the greedy from it takes UA 0 next (disjoint from it, and
    first in the list) and then, index by index, exactly the first group's
    members (every other UA meets one before it), so it would give the same
    group again.  The same groups, fewer passes (-9 % CPU on 12 random
    grids, paired; the same nodes)."""
    for rnd in range(_VIEW_ROUNDS):
        allow_lo = FULL_LO
        allow_hi = FULL_HI81
        group0 = ZERO
        for i0 in range(min(_GROUP_STARTS_BY_CLUES_LEFT[r], n)):
            if i0 == 0 and rnd == 0 and first[2] != ZERO:
                ulo = first[0]
                uhi = first[1]
                cnt = np.int64(first[2])
                group0 = first[3]
            elif allow_lo == FULL_LO and allow_hi == FULL_HI81:   # no critical group yet: the UAs whole, unmasked
                if (group0 >> np.uint64(i0)) & np.uint64(1):
                    continue   # the first group again (see above)
                ulo = lo[i0]
                uhi = hi[i0]
                cnt = 1
                j = first_disjoint(lo, hi, n, 0, ulo, uhi)
                while j < n:
                    ulo |= lo[j]
                    uhi |= hi[j]
                    cnt += 1
                    if cnt > r:
                        return True  # Property 1
                    if i0 == 0 and j < 64:
                        group0 |= np.uint64(1) << np.uint64(j)
                    j = first_disjoint(lo, hi, n, j + 1, ulo, uhi)
            else:   # the UAs less the cells the critical groups so far exclude (Property 3 at once)
                ulo = lo[i0] & allow_lo
                uhi = hi[i0] & allow_hi
                cnt = 1
                j = first_disjoint(lo, hi, n, 0, ulo, uhi)   # ulo, uhi lie in allow: no need to mask the UAs
                while j < n:
                    a = lo[j] & allow_lo
                    b = hi[j] & allow_hi
                    if a == ZERO and b == ZERO:
                        return True  # no cell left in the critical groups
                    ulo |= a
                    uhi |= b
                    cnt += 1
                    if cnt > r:
                        return True  # Property 1
                    j = first_disjoint(lo, hi, n, j + 1, ulo, uhi)
            if cnt == r:  # Properties 2 and 3
                allow_lo &= ulo
                allow_hi &= uhi
        if allow_lo == FULL_LO and allow_hi == FULL_HI81:
            return False
        # cells outside every critical group are dead in this subtree
        dead_lo = node[DEAD_LO]
        dead_hi = node[DEAD_HI]
        for i in range(n):
            a = lo[i]
            b = hi[i]
            dead_lo |= a & ~allow_lo
            dead_hi |= b & ~allow_hi
            a &= allow_lo
            b &= allow_hi
            if a == ZERO and b == ZERO:
                return True
            lo[i] = a
            hi[i] = b
        if dead_lo == node[DEAD_LO] and dead_hi == node[DEAD_HI]:
            return False   # no UA lost a cell: another round would see the same groups
        node[DEAD_LO] = dead_lo
        node[DEAD_HI] = dead_hi
    return False


@njit(cache=True, nogil=True, _nrt=False)
def _branch_ua(lo, hi, n, sizes):
    """The UA to branch on: of the first few smallest, the one overlapping the
    other unhit UAs most (weighted as _HIT_WEIGHT_BY_SIZE): its cells, once
    tried, constrain the siblings most (#40000: 52 M -> 42 M nodes)."""
    best = 0
    for i in range(1, n):
        if sizes[i] < sizes[best]:
            best = i
    smallest = sizes[best]
    most = -1
    seen = 0
    for i0 in range(best, n):
        if sizes[i0] != smallest:
            continue
        a0 = lo[i0]
        b0 = hi[i0]
        w = 0
        for i in range(n):
            if i != i0:
                w += _HIT_WEIGHT_BY_SIZE[sizes[i]] * (popcount64(lo[i] & a0) + popcount64(hi[i] & b0))
        if w > most:
            most = w
            best = i0
        seen += 1
        if seen == _TIE_CANDIDATES:
            break
    return best


@njit(cache=True, nogil=True, _nrt=False)
def _busiest_first(lo, hi, n, sizes, ua, cells, weight):
    """The cells of UA ``ua`` into ``cells``, busiest first (see
    _HIT_WEIGHT_BY_SIZE; stable); returns how many."""
    nb = cells_of(lo[ua], hi[ua], cells)
    for q in range(nb):
        cell = cells[q]
        h = 0
        for i in range(n):
            if has_cell(lo[i], hi[i], cell):
                h += _HIT_WEIGHT_BY_SIZE[sizes[i]]
        j = q
        while j > 0 and weight[j - 1] < h:
            weight[j] = weight[j - 1]
            cells[j] = cells[j - 1]
            j -= 1
        weight[j] = h
        cells[j] = cell
    return nb


@njit(cache=True, nogil=True, _nrt=False)
def _child_list(lo, hi, n, bit_lo, bit_hi, dead_lo, dead_hi, out_lo, out_hi, r, first):
    """The UAs not hit by the new clue, minus the dead cells, into out_lo/hi;
    how many, or -1 when one is left without a cell.  On the way, the child's
    forward-view group started at its first UA (see _forward_view) into
    ``first`` (cells lo, hi, count, members of index < 64): -2 as soon as it has more than r UAs
    (Property 1: the child is dead; its list is left unfinished).  Eight UAs a step
    (vector tests and a compress store); one at a time where a UA loses its last cell."""
    m = 0
    ulo = ZERO
    uhi = ZERO
    cnt = 0
    members = ZERO
    live_lo = ~dead_lo
    live_hi = ~dead_hi
    i = 0
    while i < n:
        if i + 8 <= lo.shape[0] and m + 8 <= out_lo.shape[0]:
            keep = disjoint_mask8(lo, hi, i, bit_lo, bit_hi)   # not hit by the clue
            if n - i < 8:
                keep &= (np.uint64(1) << np.uint64(n - i)) - np.uint64(1)
            if (keep & disjoint_mask8(lo, hi, i, live_lo, live_hi)) == ZERO:   # none left without a cell
                compress8(lo, i, live_lo, out_lo, m, keep)
                compress8(hi, i, live_hi, out_hi, m, keep)
                k = popcount64(keep)
                block = (np.uint64(1) << np.uint64(k)) - np.uint64(1)
                d = disjoint_mask8(out_lo, out_hi, m, ulo, uhi) & block
                while d != ZERO:   # the first group, in list order
                    q = lowest_index64(d)
                    ulo |= out_lo[m + q]
                    uhi |= out_hi[m + q]
                    cnt += 1
                    if cnt > r:
                        return -2
                    if m + q < 64:
                        members |= np.uint64(1) << np.uint64(m + q)
                    block &= ~((np.uint64(2) << np.uint64(q)) - np.uint64(1))   # the UAs after it
                    d = disjoint_mask8(out_lo, out_hi, m, ulo, uhi) & block
                m += k
                i += 8
                continue
        a = lo[i]
        b = hi[i]
        i += 1
        if (a & bit_lo) != ZERO or (b & bit_hi) != ZERO:
            continue
        a &= live_lo
        b &= live_hi
        if a == ZERO and b == ZERO:
            return -1
        out_lo[m] = a
        out_hi[m] = b
        m += 1
        if (a & ulo) == ZERO and (b & uhi) == ZERO:
            ulo |= a
            uhi |= b
            cnt += 1
            if cnt > r:
                return -2
            if m <= 64:
                members |= np.uint64(1) << np.uint64(m - 1)
    first[0] = ulo
    first[1] = uhi
    first[2] = np.uint64(cnt)
    first[3] = members
    return m


@njit(cache=True, nogil=True, _nrt=False)
def _last_clue_cells(lo, hi, n, cells):
    """One clue left: it must lie in every unhit UA.  The candidate cells into
    ``cells``; how many (0: dead node)."""
    a = FULL_LO
    b = FULL_HI81
    for i in range(n):
        a &= lo[i]
        b &= hi[i]
    return cells_of(a, b, cells)


@njit(cache=True, nogil=True)
def search_kernel(o, ua_lo, ua_hi, node, k, forward, split_depth, cap, out_puz, front, stats, cancel):
    """Hitting-set search from ``node`` (clues, dead cells) for minimal puzzles
    with at most ``k`` clues whose solution is the oracle's grid (``o``, see
    ``minimal``; a fixed one: the search keeps its own UA lists).

    ``forward``: use disjoint-group pruning (Properties 1-3 of seed 004).
    ``split_depth`` > 0: do not search below that many new clues; record the
    nodes reached there (and any earlier complete hitting set) in ``front``
    (rows like ``node``) instead.  ``cap``: room per depth for UAs (harvested
    + found on the way).  Found puzzles go to ``out_puz`` (uint8[M, 81]);
    counters to ``stats`` (see S_*).  ``cancel`` (int64[1]) is polled every
    CANCEL_POLL nodes: nonzero -> return True at once (the counters then
    describe a partial search).  Returns False when the search is complete.

    Allocates the per-depth state (lists, path, branch cells), runs
    ``_search_loop`` on it and answers the leaves it stops at.
    """
    n0 = popcount64(node[CLUE_LO]) + popcount64(node[CLUE_HI])
    maxd = max(k - n0, 0) + 2
    L_lo = np.empty((maxd, cap), dtype=np.uint64)   # per depth: the unhit UAs' live cells
    L_hi = np.empty((maxd, cap), dtype=np.uint64)
    L_n = np.zeros(maxd, dtype=np.int64)
    path = np.zeros((maxd, 6), dtype=np.uint64)       # per depth: a node row + cells tried
    first = np.zeros((maxd, 4), dtype=np.uint64)     # per depth: its forward view's first group (_child_list)
    branch_cells = np.zeros((maxd, 81), dtype=np.int64)   # per depth: the cells to try, in order
    n_branch = np.zeros(maxd, dtype=np.int64)
    next_branch = np.zeros(maxd, dtype=np.int64)
    cell_weight = np.zeros(81, dtype=np.int64)
    sizes = np.empty(cap, dtype=np.int64)
    tmp_lo = np.empty(cap, dtype=np.uint64)
    tmp_hi = np.empty(cap, dtype=np.uint64)
    bucket = np.zeros(83, dtype=np.int64)
    puzzle = np.empty(81, dtype=np.uint8)
    state = np.zeros(2, dtype=np.int64)   # where _search_loop stopped: depth, and how to go on
    m = _root_list(ua_lo, ua_hi, node, L_lo[0], L_hi[0], cap)
    if m < 0:
        return False
    L_n[0] = m
    path[0, :4] = node[:4]
    while True:
        code = _search_loop(k, forward, split_depth, cap, front, stats, cancel, n0, L_lo, L_hi, L_n, path, first,
                            branch_cells, n_branch, next_branch, cell_weight, sizes, tmp_lo, tmp_hi, bucket, state)
        if code == _DONE:
            return False
        if code == _CANCELLED:
            return True
        d = state[0]   # a complete hitting set at depth d: the solver's question (it allocates)
        ulo, uhi = _check_leaf(o, path[d, CLUE_LO], path[d, CLUE_HI], out_puz, stats, puzzle)
        if (ulo != ZERO or uhi != ZERO) and _add_found_ua(ulo, uhi, d, L_lo, L_hi, L_n, path, cap):
            first[d, 2] = ZERO   # a new list: its first group is not known
            state[1] = _GO_EVALUATE
        else:
            state[1] = _GO_NEXT_BRANCH


@njit(cache=True, nogil=True, _nrt=False)
def _search_loop(k, forward, split_depth, cap, front, stats, cancel, n0, L_lo, L_hi, L_n, path, first,
                 branch_cells, n_branch, next_branch, cell_weight, sizes, tmp_lo, tmp_hi, bucket, state):
    """The depth-first loop of ``search_kernel`` on its arrays, from ``state`` (depth, and
    _GO_NEW_NODE, _GO_EVALUATE: the node again, its list has a new UA, or _GO_NEXT_BRANCH)
    until the search ends (_DONE), is cancelled (_CANCELLED) or reaches a complete hitting
    set (_AT_LEAF, its depth in state[0]).  It allocates nothing and is compiled without
    reference counting: a node passes a dozen row views to the helpers, and each would cost
    an atomic increment and decrement (as in survo.atlas.arrange); the leaf's solver
    allocates, so the caller asks it.

    A long function: the loop and its per-depth state stay together; the work per node is
    in the helpers."""
    d = state[0]
    mode = state[1]
    need = mode != _GO_NEXT_BRANCH   # evaluate the node at depth d first
    fresh = mode != _GO_EVALUATE     # ... as a new node: count it, no cells tried yet
    no_view = np.int64(1 << 30)
    while True:
        if need:
            need = False
            if fresh:
                stats[S_NODES] += 1
                if (stats[S_NODES] & _CANCEL_MASK) == 0 and cancel[0] != 0:
                    return _CANCELLED
                n_branch[d] = 0
                next_branch[d] = 0
                path[d, TRIED_LO] = ZERO
                path[d, TRIED_HI] = ZERO
            fresh = True
            r = k - n0 - d
            n = L_n[d]
            if n == 0:
                if split_depth > 0:
                    _record_node(front, stats, path[d, CLUE_LO], path[d, CLUE_HI], path[d, DEAD_LO],
                                 path[d, DEAD_HI])
                else:
                    state[0] = d
                    return _AT_LEAF
            elif r <= 0:
                pass
            elif forward and r == 1:
                n_branch[d] = _last_clue_cells(L_lo[d], L_hi[d], n, branch_cells[d])
                if n_branch[d] == 0:
                    stats[S_FORWARD_PRUNES] += 1
            elif forward and _forward_view(L_lo[d], L_hi[d], n, r, path[d], first[d]):
                stats[S_FORWARD_PRUNES] += 1
            else:
                _sort_by_size(L_lo[d], L_hi[d], n, sizes, tmp_lo, tmp_hi, bucket)
                best = _branch_ua(L_lo[d], L_hi[d], n, sizes)
                n_branch[d] = _busiest_first(L_lo[d], L_hi[d], n, sizes, best, branch_cells[d], cell_weight)
        if next_branch[d] >= n_branch[d]:
            if d == 0:
                return _DONE
            d -= 1
            continue
        bit_lo, bit_hi = cell_set(branch_cells[d, next_branch[d]])
        next_branch[d] += 1
        c_lo = path[d, CLUE_LO] | bit_lo
        c_hi = path[d, CLUE_HI] | bit_hi
        dd_lo = path[d, DEAD_LO] | path[d, TRIED_LO]
        dd_hi = path[d, DEAD_HI] | path[d, TRIED_HI]
        path[d, TRIED_LO] |= bit_lo
        path[d, TRIED_HI] |= bit_hi
        rc = k - n0 - d - 1
        m = _child_list(L_lo[d], L_hi[d], L_n[d], bit_lo, bit_hi, dd_lo, dd_hi, L_lo[d + 1], L_hi[d + 1],
                        rc if forward and rc > 1 else no_view, first[d + 1])
        if m < 0:
            if m == -2:   # the child's forward view failed on its first group: a node, pruned
                stats[S_NODES] += 1
                stats[S_FORWARD_PRUNES] += 1
            continue
        if split_depth > 0 and d + 1 == split_depth:
            _record_node(front, stats, c_lo, c_hi, dd_lo, dd_hi)
            continue
        d += 1
        L_n[d] = m
        path[d, CLUE_LO] = c_lo
        path[d, CLUE_HI] = c_hi
        path[d, DEAD_LO] = dd_lo
        path[d, DEAD_HI] = dd_hi
        need = True
