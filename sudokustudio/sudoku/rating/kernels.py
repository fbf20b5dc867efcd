"""Berthier's BRT and W-rating (whips) as numba kernels, and their Python face
(no Qt, no I/O).

Definitions (D. Berthier, "Pattern-Based Constraint Satisfaction and Logic
Puzzles", and the CSP-Rules documentation):

- A candidate is (digit, row, column); here ``x = cell * 9 + (digit - 1)``.
- The 324 CSP variables are the cells (rc), row-digit (rn), column-digit (cn)
  and box-digit (bn) pairs; two candidates are *linked* when they share one.
- BRT (= W0): elementary constraint propagation (a decided value removes its
  linked candidates) plus singles (a CSP variable with one candidate left is
  decided).
- A whip of length n on a target Z is L1 R1 L2 R2 ... Ln with CSP variables
  V1..Vn (Lk, Rk in Vk): L1 linked to Z; Lk linked to R(k-1) for k >= 2;
  for k < n, Rk is the only candidate of Vk other than Lk that is compatible
  with Z and R1..R(k-1) (not linked to any of them); Vn has no such
  candidate.  Then Z is eliminated.  No Vk may contain Z or an earlier Rj
  (such a variable is already satisfied by the context), and no left-linking
  candidate is used twice (Lk not in L1..L(k-1), as in CSP-Rules' whip
  rules; without this condition line 6847 of the 001 file rates 6, not 7).
- Wn = BRT + whips of length <= n.  The W-rating is the least n such that Wn
  solves the puzzle; 0 means BRT alone solves it (Berthier's files write 0,
  seed 002 §3.3 calls that class "L1_0").

Conventions of the results:

- ``W_ABOVE_CAP(cap) = cap + 1``: not solved by whips of length <= cap.
- ``W_INVALID = -1``: the puzzle has no solution or several (the W-rating is
  defined for puzzles with a unique solution only; rating a multi-solution
  puzzle would search every whip up to the cap for nothing).

Algorithm of ``w_path_kernel``: BRT to fixpoint, then for L = 1, 2, ...
every candidate is tried as a target for a whip of length <= L (depth-first,
fixed-size stacks); each elimination is followed by BRT, and after a sweep
that eliminated something the search restarts at L = 1.  Since the theories
Wn are confluent, the largest L used by this shortest-first strategy is the
least n such that Wn solves the puzzle.
"""
from __future__ import annotations


import numpy as np
from numba import njit

from sudokustudio.sudoku.candidates import as_candidates, count_candidates_kernel
from sudokustudio.sudoku.solver import count_solutions_kernel
from sudokustudio.sudoku.tables import PEERS, UNITS

# numpy scalars, not literals: every call of a kernel shares one compiled signature
_Z64 = np.int64(0)
_Z32 = np.int32(0)
_TWO = np.int64(2)

#: the largest whip length a kernel can search (size of the fixed stacks)
MAX_CAP = 40
#: default cap of the W-rating (the hardest puzzle of the 001 file is W10)
DEFAULT_CAP = 12
#: rating of a puzzle with no solution or several solutions
W_INVALID = -1


# ------------------------------------------------------------------ tables
def _build_tables():
    box = lambda r, c: 3 * (r // 3) + c // 3  # noqa: E731
    var_cands = np.empty((324, 9), dtype=np.int16)   # candidates of each variable, by slot
    cand_vars = np.empty((729, 4), dtype=np.int16)   # rc, rn, cn, bn of each candidate
    cand_slots = np.empty((729, 4), dtype=np.int16)  # slot of the candidate in each of them
    for cell in range(81):
        r, c = divmod(cell, 9)
        b = box(r, c)
        pos_in_box = 3 * (r % 3) + c % 3
        for d in range(9):
            x = cell * 9 + d
            vs = (cell, 81 + r * 9 + d, 162 + c * 9 + d, 243 + b * 9 + d)
            sl = (d, c, r, pos_in_box)
            for j in range(4):
                cand_vars[x, j] = vs[j]
                cand_slots[x, j] = sl[j]
                var_cands[vs[j], sl[j]] = x
    links = np.empty((729, 28), dtype=np.int16)
    for x in range(729):
        own = set(int(v) for v in cand_vars[x])
        linked = sorted({int(var_cands[v, s]) for v in own for s in range(9)} - {x})
        assert len(linked) == 28
        links[x] = linked
    pop = np.array([bin(m).count("1") for m in range(512)], dtype=np.int8)
    low = np.array([(m & -m).bit_length() - 1 if m else -1 for m in range(512)], dtype=np.int8)
    return var_cands, cand_vars, cand_slots, links, pop, low


VAR_CANDS, CAND_VARS, CAND_SLOTS, LINKS, POP9, LOW9 = _build_tables()


# ------------------------------------------------------------------ BRT
@njit(cache=True, nogil=True)
def _digit_of(mask):
    return LOW9[mask] + 1


@njit(cache=True, nogil=True)
def _decide(cell, digit, cand, value, queue, qn):
    """Decide cell := digit (both int64) and queue it; returns the new queue length."""
    value[cell] = digit
    cand[cell] = 1 << (digit - 1)
    queue[qn] = cell
    return qn + 1


@njit(cache=True, nogil=True)
def _brt_fixpoint(cand, value, queue, qn):
    """Propagate the decided cells queue[0:qn] and apply singles to fixpoint.

    ``cand[c]`` is the 9-bit candidate mask of cell c (the value bit for a
    decided cell), ``value[c]`` its digit or 0.  Returns False on a
    contradiction (a variable without candidate, or two equal values linked).
    """
    head = 0
    while True:
        while head < qn:
            c = queue[head]
            head += 1
            bit = 1 << (value[c] - 1)
            for k in range(20):
                p = PEERS[c, k]
                if cand[p] & bit:
                    if value[p]:
                        return False
                    m = cand[p] & ~bit
                    cand[p] = m
                    if m == 0:
                        return False
                    if POP9[m] == 1:
                        qn = _decide(np.int64(p), _digit_of(m), cand, value, queue, qn)
        # hidden singles (rn, cn, bn variables with one candidate left)
        progress = False
        for u in range(27):
            placed = 0
            seen = 0
            twice = 0
            for k in range(9):
                c = UNITS[u, k]
                if value[c]:
                    placed |= 1 << (value[c] - 1)
                else:
                    m = cand[c]
                    twice |= seen & m
                    seen |= m
            if (seen | placed) != 0x1FF:
                return False
            once = seen & ~twice & ~placed
            while once:
                bit = once & -once
                once &= once - 1
                for k in range(9):
                    c = UNITS[u, k]
                    if value[c] == 0 and (cand[c] & bit):
                        qn = _decide(np.int64(c), _digit_of(bit), cand, value, queue, qn)
                        progress = True
                        break
        if not progress and head >= qn:
            return True


@njit(cache=True, nogil=True)
def _init_state(puzzle, cand, value, queue):
    """Candidates of ``puzzle`` after BRT; returns (ok, queue length)."""
    qn = _Z64
    for c in range(81):
        cand[c] = 0x1FF
        value[c] = 0
    for c in range(81):
        d = puzzle[c]
        if d:
            if d > 9:
                return False
            qn = _decide(np.int64(c), np.int64(d), cand, value, queue, qn)
    # equal givens in one unit: the propagation below sees them as a contradiction
    return _brt_fixpoint(cand, value, queue, qn)


@njit(cache=True, nogil=True)
def _init_state_from_candidates(cands, cand, value, queue):
    """Like ``_init_state`` from candidate masks (bit d-1: digit d possible) instead of
    givens: a cell with one candidate is decided; BRT follows.  False on a contradiction."""
    qn = _Z64
    for c in range(81):
        m = np.int64(cands[c]) & 0x1FF
        if m == 0:
            return False
        cand[c] = m
        value[c] = 0
    for c in range(81):
        if POP9[cand[c]] == 1:
            qn = _decide(np.int64(c), _digit_of(cand[c]), cand, value, queue, qn)
    # two equal single candidates in one unit: the propagation sees a contradiction
    return _brt_fixpoint(cand, value, queue, qn)


@njit(cache=True, nogil=True)
def _count_left(cand, value):
    n_cands = 0
    n_decided = 0
    for c in range(81):
        if value[c]:
            n_decided += 1
        else:
            n_cands += POP9[cand[c]]
    return n_cands, n_decided


@njit(cache=True, nogil=True)
def brt_kernel(puzzle):
    """BRT on ``puzzle`` (uint8[81], 0 = empty).

    Returns (solved, n_candidates_left, n_decided_cells): the candidates
    left in undecided cells (Berthier's "nb-cands-after-BRT") and the decided
    cells ("nb-clues-after-BRT").  A contradiction gives (False, -1, -1).
    """
    cand = np.empty(81, dtype=np.int32)
    value = np.empty(81, dtype=np.int32)
    queue = np.empty(81, dtype=np.int32)
    if not _init_state(puzzle, cand, value, queue):
        return False, -1, -1
    n_cands, n_decided = _count_left(cand, value)
    return n_decided == 81, n_cands, n_decided


@njit(cache=True, nogil=True)
def brt_candidates_kernel(cands, out):
    """BRT on a candidate grid ``cands`` (uint16[81]); the candidates left go into
    ``out`` (uint16[81]).  Returns what ``brt_kernel`` returns."""
    cand = np.empty(81, dtype=np.int32)
    value = np.empty(81, dtype=np.int32)
    queue = np.empty(81, dtype=np.int32)
    if not _init_state_from_candidates(cands, cand, value, queue):
        return False, -1, -1
    for c in range(81):
        out[c] = cand[c]
    n_cands, n_decided = _count_left(cand, value)
    return n_decided == 81, n_cands, n_decided


@njit(cache=True, nogil=True)
def brt_batch_kernel(puzzles, solved, n_cands, n_decided):
    for i in range(puzzles.shape[0]):
        s, a, b = brt_kernel(puzzles[i])
        solved[i] = s
        n_cands[i] = a
        n_decided[i] = b


# ------------------------------------------------------------------ whips
@njit(cache=True, nogil=True)
def _load_whip_state(cand, is_cand, comp):
    """Per-candidate flags and per-variable masks of the current state."""
    for x in range(729):
        is_cand[x] = 0
    for v in range(324):
        comp[v] = 0
    for c in range(81):
        m = cand[c]
        while m:
            d = LOW9[m]
            m &= m - 1
            x = c * 9 + d
            is_cand[x] = 1
            for j in range(4):
                comp[CAND_VARS[x, j]] |= 1 << CAND_SLOTS[x, j]


@njit(cache=True, nogil=True)
def _push_context(x, is_cand, comp, ctx, erased, undo, sp):
    """Add x to the context (Z or an Rk): its variables are satisfied and its
    linked candidates become incompatible (z- or t-candidates)."""
    for j in range(4):
        ctx[CAND_VARS[x, j]] += 1
    for i in range(28):
        y = LINKS[x, i]
        if is_cand[y] and not erased[y]:
            erased[y] = 1
            undo[sp] = y
            sp += 1
            for j in range(4):
                comp[CAND_VARS[y, j]] &= ~(1 << CAND_SLOTS[y, j])
    return sp


@njit(cache=True, nogil=True)
def _pop_context(x, comp, ctx, erased, undo, sp, sp_to):
    for j in range(4):
        ctx[CAND_VARS[x, j]] -= 1
    while sp > sp_to:
        sp -= 1
        y = undo[sp]
        erased[y] = 0
        for j in range(4):
            comp[CAND_VARS[y, j]] |= 1 << CAND_SLOTS[y, j]
    return sp


@njit(cache=True, nogil=True)
def _has_whip(z, maxlen, is_cand, comp, ctx, erased, undo, visited, stamp, path, link_i, var_j, sp_at,
              llc_mark):
    """True when a whip of length <= maxlen eliminates candidate z.

    Depth-first over partial whips; ``path[k]`` is the right-linking
    candidate R(k) (path[0] = Z) whose links give the next L(k+1).  Returns
    (length, stamp): the length of the whip found (0: none) and the
    visited-variable stamp counter advanced.  After a find, the whip is
    L(k) = LINKS[path[k-1], link_i[k]], V(k) = CAND_VARS[L(k), var_j[k]-1],
    R(k) = path[k] (k < length).
    """
    sp_at[0] = 0
    sp = _push_context(z, is_cand, comp, ctx, erased, undo, _Z64)
    path[0] = z
    depth = 1
    link_i[1] = 0
    var_j[1] = 0
    stamp += 1
    node = stamp
    nodes = np.empty(maxlen + 2, dtype=np.int64)
    nodes[1] = node
    found = 0
    while depth >= 1:
        last = path[depth - 1]
        i = link_i[depth]
        if i >= 28:
            # exhausted: undo R(depth-1) and go back
            if depth == 1:
                break
            sp = _pop_context(last, comp, ctx, erased, undo, sp, sp_at[depth - 1])
            depth -= 1
            llc_mark[LINKS[path[depth - 1], link_i[depth]]] = 0
            continue
        y = LINKS[last, i]
        j = var_j[depth]
        if j >= 4 or not is_cand[y] or llc_mark[y]:
            link_i[depth] = i + 1
            var_j[depth] = 0
            continue
        var_j[depth] = j + 1
        v = CAND_VARS[y, j]
        if ctx[v] or visited[v] == nodes[depth]:
            continue
        visited[v] = nodes[depth]
        m = comp[v]
        if m == 0:
            found = depth
            break
        if POP9[m] == 1 and depth < maxlen:
            r = np.int32(VAR_CANDS[v, LOW9[m]])
            sp_at[depth] = sp
            llc_mark[y] = 1
            sp = _push_context(r, is_cand, comp, ctx, erased, undo, sp)
            path[depth] = r
            depth += 1
            link_i[depth] = 0
            var_j[depth] = 0
            stamp += 1
            nodes[depth] = stamp
    # unwind whatever is still pushed (R(depth-1) .. R1, then Z)
    while depth > 1:
        sp = _pop_context(path[depth - 1], comp, ctx, erased, undo, sp, sp_at[depth - 1])
        depth -= 1
        llc_mark[LINKS[path[depth - 1], link_i[depth]]] = 0
    _pop_context(z, comp, ctx, erased, undo, sp, _Z32)
    return found, stamp


#: columns of a trace row: length n, target Z, then (L_k, V_k, R_k) for k = 1..n (R_n = -1)
TRACE_WIDTH = 2 + 3 * MAX_CAP


@njit(cache=True, nogil=True)
def _write_whip(row, z, n, path, link_i, var_j):
    """One trace row from the stacks ``_has_whip`` leaves after a find."""
    row[0] = n
    row[1] = z
    for k in range(1, n + 1):
        llc = LINKS[path[k - 1], link_i[k]]
        row[3 * k - 1] = llc
        row[3 * k] = CAND_VARS[llc, var_j[k] - 1]
        row[3 * k + 1] = path[k] if k < n else -1


@njit(cache=True, nogil=True)
def w_path_kernel(puzzle, cap, trace):
    """The W-rating of ``puzzle`` (uint8[81]) with whips of length <= cap, and
    each whip elimination, in order, in the rows of ``trace`` (int32[K,
    TRACE_WIDTH], as many as fit; K = 0 for the rating alone).

    Returns (rating, n_candidates_after_brt, n_eliminations): rating 0 = BRT
    solves it, cap + 1 = not solved within the cap, -1 = BRT met a
    contradiction (no solution).  The caller checks uniqueness (see
    ``rate_batch_kernel``).
    """
    cand = np.empty(81, dtype=np.int32)
    value = np.empty(81, dtype=np.int32)
    queue = np.empty(81, dtype=np.int32)
    if not _init_state(puzzle, cand, value, queue):
        return -1, -1, 0
    return _w_path_from_state(cand, value, queue, cap, trace)


@njit(cache=True, nogil=True)
def w_path_candidates_kernel(cands, cap, trace):
    """``w_path_kernel`` for a grid given by its candidates (uint16[81], bit d-1 set
    when digit d is possible) instead of its givens."""
    cand = np.empty(81, dtype=np.int32)
    value = np.empty(81, dtype=np.int32)
    queue = np.empty(81, dtype=np.int32)
    if not _init_state_from_candidates(cands, cand, value, queue):
        return -1, -1, 0
    return _w_path_from_state(cand, value, queue, cap, trace)


@njit(cache=True, nogil=True)
def _w_path_from_state(cand, value, queue, cap, trace):
    """The whip search of ``w_path_kernel`` from a state after BRT (see there)."""
    if cap > MAX_CAP:
        cap = MAX_CAP
    n_after_brt, n_decided = _count_left(cand, value)
    if n_decided == 81:
        return 0, 0, 0
    n_elim = 0
    is_cand = np.zeros(729, dtype=np.uint8)
    erased = np.zeros(729, dtype=np.uint8)
    comp = np.zeros(324, dtype=np.int32)
    ctx = np.zeros(324, dtype=np.int32)
    visited = np.zeros(324, dtype=np.int64)
    undo = np.empty(729, dtype=np.int32)
    llc_mark = np.zeros(729, dtype=np.uint8)
    path = np.empty(MAX_CAP + 2, dtype=np.int32)
    link_i = np.empty(MAX_CAP + 2, dtype=np.int32)
    var_j = np.empty(MAX_CAP + 2, dtype=np.int32)
    sp_at = np.empty(MAX_CAP + 2, dtype=np.int32)
    targets = np.empty(729, dtype=np.int32)
    stamp = _Z64
    rating = 0
    level = np.int64(1)
    while True:
        if level > cap:
            return cap + 1, n_after_brt, n_elim
        _load_whip_state(cand, is_cand, comp)
        nt = 0
        for c in range(81):
            if value[c] == 0:
                m = cand[c]
                while m:
                    targets[nt] = c * 9 + LOW9[m]
                    nt += 1
                    m &= m - 1
        eliminated = False
        for t in range(nt):
            z = targets[t]
            c = z // 9
            bit = 1 << (z % 9)
            if value[c] or not (cand[c] & bit):
                continue  # decided or eliminated since the sweep began
            found, stamp = _has_whip(z, level, is_cand, comp, ctx, erased, undo, visited, stamp,
                                     path, link_i, var_j, sp_at, llc_mark)
            if not found:
                continue
            if n_elim < trace.shape[0]:
                _write_whip(trace[n_elim], z, found, path, link_i, var_j)
            n_elim += 1
            eliminated = True
            if level > rating:
                rating = level
            m = cand[c] & ~bit
            cand[c] = m
            qn = _Z64
            if m == 0:
                return -1, n_after_brt, n_elim
            if POP9[m] == 1:
                qn = _decide(np.int64(c), _digit_of(m), cand, value, queue, _Z64)
            if not _brt_fixpoint(cand, value, queue, qn):
                return -1, n_after_brt, n_elim
            n_left, n_decided = _count_left(cand, value)
            if n_decided == 81:
                return rating, n_after_brt, n_elim
            _load_whip_state(cand, is_cand, comp)
        level = 1 if eliminated else level + 1


# ------------------------------------------------------------------ batches
@njit(cache=True, nogil=True)
def rate_batch_kernel(puzzles, cap, ratings, n_cands):
    """W-ratings and candidates after BRT of ``puzzles`` (uint8[N, 81]).

    ``ratings[i]``: 0..cap, cap + 1 (not solved within the cap) or -1 (no
    solution or several); ``n_cands[i]``: candidates left after BRT (-1 when
    BRT meets a contradiction).
    """
    no_trace = np.empty((0, TRACE_WIDTH), dtype=np.int32)
    for i in range(puzzles.shape[0]):
        n_solutions = count_solutions_kernel(puzzles[i], _TWO)
        if n_solutions != 1:
            ok, nc, nd = brt_kernel(puzzles[i])
            ratings[i] = W_INVALID
            n_cands[i] = nc
            continue
        w, nc, _ = w_path_kernel(puzzles[i], cap, no_trace)
        ratings[i] = w
        n_cands[i] = nc


@njit(cache=True, nogil=True)
def rate_candidates_batch_kernel(cands, cap, ratings, n_cands):
    """``rate_batch_kernel`` for grids given by their candidates (uint16[N, 81])."""
    no_trace = np.empty((0, TRACE_WIDTH), dtype=np.int32)
    left = np.empty(81, dtype=np.uint16)
    for i in range(cands.shape[0]):
        if count_candidates_kernel(cands[i], _TWO) != 1:
            ok, nc, nd = brt_candidates_kernel(cands[i], left)
            ratings[i] = W_INVALID
            n_cands[i] = nc
            continue
        w, nc, _ = w_path_candidates_kernel(cands[i], cap, no_trace)
        ratings[i] = w
        n_cands[i] = nc


def as_batch(puzzles) -> np.ndarray:
    p = np.ascontiguousarray(puzzles, dtype=np.uint8)
    if p.ndim == 1:
        p = p.reshape(1, -1)
    if p.ndim != 2 or p.shape[1] != 81:
        raise ValueError(f"puzzles must have shape (N, 81), got {tuple(np.shape(puzzles))}")
    return p


def check_cap(cap: int) -> int:
    cap = int(cap)
    if not 1 <= cap <= MAX_CAP:
        raise ValueError(f"the whip length cap must be between 1 and {MAX_CAP}, got {cap}")
    return cap


def brt(puzzle) -> tuple[bool, int, int]:
    """(solved by BRT, candidates left, decided cells) of one puzzle."""
    s, a, b = brt_kernel(as_batch(puzzle)[0])
    return bool(s), int(a), int(b)


def w_rating(puzzle, cap: int = DEFAULT_CAP) -> int:
    """The W-rating of one puzzle (see the module docstring for the codes)."""
    r, _ = rate_puzzles(as_batch(puzzle)[:1], cap)
    return int(r[0])


def rate_puzzles(puzzles, cap: int = DEFAULT_CAP) -> tuple[np.ndarray, np.ndarray]:
    """(W-ratings int16[N], candidates after BRT int16[N]) in this thread."""
    p = as_batch(puzzles)
    cap = check_cap(cap)
    ratings = np.zeros(p.shape[0], dtype=np.int16)
    cands = np.zeros(p.shape[0], dtype=np.int16)
    if p.shape[0]:
        rate_batch_kernel(p, cap, ratings, cands)
    return ratings, cands


def brt_candidates(cands) -> np.ndarray | None:
    """The candidates (uint16[81]) left by BRT on a candidate grid, None on a contradiction.
    ``candidates.puzzle_candidates(puzzle)`` turns a plain puzzle into such a grid."""
    out = np.zeros(81, dtype=np.uint16)
    ok, n_cands, _ = brt_candidates_kernel(as_candidates(cands).reshape(81), out)
    return None if n_cands < 0 else out


def rate_candidates(cands, cap: int = DEFAULT_CAP) -> tuple[np.ndarray, np.ndarray]:
    """``rate_puzzles`` for grids given by their candidates (uint16[N, 81])."""
    c = as_candidates(cands).reshape(-1, 81)
    cap = check_cap(cap)
    ratings = np.zeros(c.shape[0], dtype=np.int16)
    n_cands = np.zeros(c.shape[0], dtype=np.int16)
    if c.shape[0]:
        rate_candidates_batch_kernel(c, cap, ratings, n_cands)
    return ratings, n_cands
