"""Exact Survo solver, minimum swaps, and the swap distribution of random tables.

Solver (``solve_kernel``): depth-first search.  At every node each
free cell gets an interval of possible values from both of its lines: the
other f−1 free cells of a line must be fillable by available numbers, so
the value lies in [rest − (sum of the f−1 largest available),
rest − (sum of the f−1 smallest available)].  A node is dead when a line's
rest is out of its min/max range, a cell has no available value in its
interval, or an available number fits no cell.  It branches on whichever
is narrowest: the cell with the fewest candidate values, or the number
with the fewest candidate cells (every number must go somewhere).  It
enumerates all solutions up to ``limit`` (limit 2 = uniqueness proof).
Knowing one solution (``solve_other_kernel``) it goes down to that one first
and counts only the others (limit 1 = uniqueness proof of the known one).

Minimum swaps (DESIGN.md): a swap exchanges two cells' numbers; the fewest
swaps turning a table into a solution is cells − cycles of the permutation
that maps the table onto the solution.  A swap lowers it by one exactly
when both numbers lie in the same cycle.

Random tables: the cycle count of a uniform permutation of N follows the
unsigned Stirling numbers of the first kind, so the swap distribution is
exact integer arithmetic here (seed 001 computes it for N = 16).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
from numba import njit

from sudokustudio.survo.puzzle import SurvoPuzzle


# ------------------------------------------------------------- exact solver
@njit(cache=True, nogil=True, _nrt=False)
def _extreme_sums(avail, N, kmax, mins, maxs):
    """mins[k] / maxs[k] = sum of the k smallest / largest available numbers (k ≤ kmax).

    Entries beyond the count of available numbers get sentinels making any
    line needing them infeasible.
    """
    mins[0] = 0
    maxs[0] = 0
    k = 0
    for v in range(1, N + 1):
        if k >= kmax:
            break
        if avail[v]:
            mins[k + 1] = mins[k] + v
            k += 1
    for r in range(k + 1, kmax + 1):
        mins[r] = 1 << 40
    k = 0
    for v in range(N, 0, -1):
        if k >= kmax:
            break
        if avail[v]:
            maxs[k + 1] = maxs[k] + v
            k += 1
    for r in range(k + 1, kmax + 1):
        maxs[r] = -(1 << 40)



# _branching and _extreme_sums run once per node and allocate nothing: compiled without
# reference counting (_nrt=False), their array arguments cost no atomic increment and
# decrement per node (they did: the atlas's 4×5 checks, see survo.atlas.arrange)
@njit(cache=True, nogil=True, _nrt=False)
def _branching(N, kmax, avail, rrem, rfree, crem, cfree, table, mins, maxs, cand, row, prefix, diff, lo, hi):
    """The branching of a node, candidates into ``cand[row]``.

    Returns (k, kind, index): k = -1 dead node, 0 table complete, else k
    candidates; kind 0 = cell ``index`` takes one of the values in cand,
    kind 1 = number ``index`` goes to one of the cells in cand.
    """
    m, n = table.shape
    _extreme_sums(avail, N, kmax, mins, maxs)
    for i in range(m):
        f = rfree[i]
        if rrem[i] < mins[f] or rrem[i] > maxs[f]:
            return -1, 0, 0
    for j in range(n):
        f = cfree[j]
        if crem[j] < mins[f] or crem[j] > maxs[f]:
            return -1, 0, 0
    prefix[0] = 0
    for v in range(1, N + 1):
        prefix[v] = prefix[v - 1] + (1 if avail[v] else 0)
    for v in range(N + 2):
        diff[v] = 0
    best = 1 << 30
    best_cell = -1
    nfree = 0
    for i in range(m):
        for j in range(n):
            c = i * n + j
            if table[i, j] != 0:
                lo[c] = 1
                hi[c] = 0
                continue
            nfree += 1
            kr = rfree[i] - 1
            kc = cfree[j] - 1
            a = max(rrem[i] - maxs[kr], crem[j] - maxs[kc])
            b = min(rrem[i] - mins[kr], crem[j] - mins[kc])
            if a < 1:
                a = 1
            if b > N:
                b = N
            if a > b:
                return -1, 0, 0
            cnt = prefix[b] - prefix[a - 1]
            if cnt == 0:
                return -1, 0, 0
            lo[c] = a
            hi[c] = b
            diff[a] += 1
            diff[b + 1] -= 1
            if cnt < best:
                best = cnt
                best_cell = c
    if nfree == 0:
        return 0, 0, 0
    run = 0
    best_v = -1
    bestv_cnt = 1 << 30
    for v in range(1, N + 1):
        run += diff[v]
        if avail[v]:
            if run == 0:
                return -1, 0, 0
            if run < bestv_cnt:
                bestv_cnt = run
                best_v = v
    k = 0
    if bestv_cnt < best:
        for c in range(m * n):
            if lo[c] <= best_v and best_v <= hi[c]:
                cand[row, k] = c
                k += 1
        return k, 1, best_v
    for v in range(lo[best_cell], hi[best_cell] + 1):
        if avail[v]:
            cand[row, k] = v
            k += 1
    return k, 0, best_cell


@njit(cache=True, nogil=True)
def solve_kernel(row_sums, col_sums, givens, limit, max_nodes, solutions_out):
    """All solutions up to ``limit``, giving up after ``max_nodes`` placements (< 0: never).

    row_sums int64[m], col_sums int64[n], givens int16[m, n] (0 = free);
    the first min(count, len(solutions_out)) solutions go to
    ``solutions_out`` int16[k, m, n].  Returns (count, nodes); count <
    limit means the search was complete, so count == 1 with limit >= 2
    proves uniqueness; (-1, nodes) when it gave up (the count is unknown).
    """
    return solve_other_kernel(row_sums, col_sums, givens, limit, max_nodes, solutions_out,
                              np.zeros((0, 0), np.int16))


@njit(cache=True, nogil=True)
def solve_other_kernel(row_sums, col_sums, givens, limit, max_nodes, solutions_out, known):
    """``solve_kernel`` knowing one solution ``known`` (int16[m, n], or a 0×0 array for none):
    its search goes down to ``known`` first and counts (and returns) only the other
    solutions, so count 0 with limit >= 1 proves ``known`` unique.

    Going to the known solution first is what pays: the atlas's 4×5 candidates
    that have a second solution mostly have it near the known one, in the
    subtrees left next on the way back up (8,015 candidates of batch 185:
    38.0M -> 10.2M nodes; the unique ones' trees are whole either way).

    Written for a short compile (the first hint waits for it), which is why
    it is long: one call site of ``_branching``, element loops instead of array assignments,
    scratch rows as views of one allocation.
    """
    m, n = givens.shape
    N = m * n
    kmax = max(m, n)
    avail = np.ones(N + 1, dtype=np.bool_)
    avail[0] = False
    table = np.zeros((m, n), dtype=np.int16)
    scratch = np.zeros((17, N + 2), dtype=np.int64)
    rrem = scratch[0]
    crem = scratch[1]
    rfree = scratch[2]
    cfree = scratch[3]
    mins = scratch[4]
    maxs = scratch[5]
    ncand = scratch[6]
    kind = scratch[7]
    index = scratch[8]
    pos = scratch[9]
    pcell = scratch[10]
    prefix = scratch[11]
    diff = scratch[12]
    lo = scratch[13]
    hi = scratch[14]
    on_known = scratch[15]   # on_known[d]: every placement above depth d is the known solution's
    known_cell = scratch[16]   # the cell holding number v in ``known``
    use_known = known.shape[0] == m and known.shape[1] == n
    if use_known:
        for c in range(m * n):
            known_cell[known[c // n, c % n]] = c
    cand = np.zeros((N + 1, N + 1), dtype=np.int64)
    for i in range(m):
        rrem[i] = row_sums[i]
    for j in range(n):
        crem[j] = col_sums[j]
    for i in range(m):
        for j in range(n):
            g = givens[i, j]
            table[i, j] = g
            if g > 0:
                if not avail[g]:
                    return 0, 0
                avail[g] = False
                rrem[i] -= g
                crem[j] -= g
            else:
                rfree[i] += 1
                cfree[j] += 1
    count = 0
    nodes = 0
    d = -1
    expand = True
    while True:
        if expand:
            # branch at the node just reached: dead (k < 0), complete (k == 0) or k candidates
            expand = False
            k, kd, ix = _branching(N, kmax, avail, rrem, rfree, crem, cfree, table, mins, maxs, cand, d + 1,
                                    prefix, diff, lo, hi)
            if k == 0:
                is_known = use_known
                if use_known:
                    for c in range(m * n):
                        if table[c // n, c % n] != known[c // n, c % n]:
                            is_known = False
                            break
                if not is_known:
                    if count < solutions_out.shape[0]:
                        for i in range(m):
                            for j in range(n):
                                solutions_out[count, i, j] = table[i, j]
                    count += 1
                    if count >= limit:
                        break
            elif k > 0:
                d += 1
                ncand[d] = k
                kind[d] = kd
                index[d] = ix
                pos[d] = 0
                pcell[d] = -1
                if use_known:
                    # on the known solution's path (its choice taken first at every node above):
                    # move its choice here to the front, keeping the others' order
                    on_known[d] = 1 if d == 0 or (on_known[d - 1] == 1 and pos[d - 1] == 1) else 0
                    if on_known[d] == 1:
                        target = known[ix // n, ix % n] if kd == 0 else known_cell[ix]
                        at = 0
                        while at < k and cand[d, at] != target:
                            at += 1
                        if at == k:
                            on_known[d] = 0   # ``known`` does not fit the givens
                        else:
                            for q in range(at, 0, -1):
                                cand[d, q] = cand[d, q - 1]
                            cand[d, 0] = target
        if d < 0:
            break
        # take back the placement tried last at this depth
        if pcell[d] >= 0:
            c = pcell[d]
            i = c // n
            j = c % n
            v = table[i, j]
            avail[v] = True
            rrem[i] += v
            crem[j] += v
            rfree[i] += 1
            cfree[j] += 1
            table[i, j] = 0
            pcell[d] = -1
        if pos[d] >= ncand[d]:
            d -= 1
            continue
        x = cand[d, pos[d]]
        pos[d] += 1
        if kind[d] == 0:
            c = index[d]
            v = x
        else:
            c = x
            v = index[d]
        i = c // n
        j = c % n
        nodes += 1
        if max_nodes >= 0 and nodes > max_nodes:
            return -1, nodes
        avail[v] = False
        rrem[i] -= v
        crem[j] -= v
        rfree[i] -= 1
        cfree[j] -= 1
        table[i, j] = v
        pcell[d] = c
        expand = True
    return count, nodes


# ------------------------------------------------------------- minimum swaps
def cycle_labels(table, solution) -> tuple[list[int], int]:
    """Label each cell (row-major) with its cycle of the table -> solution permutation.

    Returns (labels, number of cycles).  Plain Python: at most 64 cells.
    """
    t = np.asarray(table).ravel().tolist()
    s = np.asarray(solution).ravel().tolist()
    pos = {v: c for c, v in enumerate(t)}
    label = [-1] * len(t)
    cycles = 0
    for c in range(len(t)):
        if label[c] >= 0:
            continue
        x = c
        while label[x] < 0:
            label[x] = cycles
            x = pos[s[x]]  # where the number that belongs at x is now
        cycles += 1
    return label, cycles


def min_swaps(table, solution) -> int:
    """Fewest swaps turning ``table`` into ``solution``: cells − cycles."""
    return int(np.asarray(table).size - cycle_labels(table, solution)[1])


def reducing_swaps(table, solution) -> list[tuple[int, int]]:
    """All swaps (a, b), a < b, that bring the minimum number of swaps down by one.

    Such pairs are exactly the pairs of misplaced numbers in the same cycle.
    """
    label, _ = cycle_labels(table, solution)
    t = np.asarray(table).ravel().tolist()
    s = np.asarray(solution).ravel().tolist()
    wrong = [c for c in range(len(t)) if t[c] != s[c]]
    out = []
    for x, c1 in enumerate(wrong):
        for c2 in wrong[x + 1:]:
            if label[c1] == label[c2]:
                a, b = t[c1], t[c2]
                out.append((min(a, b), max(a, b)))
    return out


# ------------------------------------------------------------- wrappers
@dataclass
class SurvoSolution:
    """Solutions found (up to the limit) and whether the search finished."""

    solutions: list[np.ndarray]
    count: int
    limit: int
    nodes: int = 0

    @property
    def unique(self) -> bool:
        return self.count == 1 and self.limit >= 2

    @property
    def complete(self) -> bool:
        """The search finished: count is the exact number of solutions."""
        return self.count < self.limit

    @property
    def solution(self) -> np.ndarray | None:
        return self.solutions[0] if self.solutions else None


def _arrays(puzzle: SurvoPuzzle):
    return (np.ascontiguousarray(puzzle.row_sums, dtype=np.int64),
            np.ascontiguousarray(puzzle.col_sums, dtype=np.int64),
            np.ascontiguousarray(puzzle.givens, dtype=np.int16))


def solve_survo(puzzle: SurvoPuzzle, limit: int = 2, keep: int | None = None) -> SurvoSolution:
    """Enumerate the solutions of a puzzle up to ``limit`` (keeps the first ``keep``, default all)."""
    r, c, g = _arrays(puzzle)
    keep = limit if keep is None else min(keep, limit)
    out = np.zeros((keep, puzzle.m, puzzle.n), dtype=np.int16)
    count, nodes = solve_kernel(r, c, g, limit, -1, out)
    count = int(count)
    return SurvoSolution([out[k].copy() for k in range(min(count, keep))], count, limit, int(nodes))


def count_solutions(puzzle: SurvoPuzzle, limit: int = 2) -> int:
    r, c, g = _arrays(puzzle)
    out = np.zeros((0, puzzle.m, puzzle.n), dtype=np.int16)
    return int(solve_kernel(r, c, g, limit, -1, out)[0])


def min_swaps_any(table, solutions) -> tuple[int, int]:
    """(fewest swaps, index of the solution reaching it) over several solutions."""
    best, idx = None, -1
    for k, s in enumerate(solutions):
        v = min_swaps(table, s)
        if best is None or v < best:
            best, idx = v, k
    if best is None:
        raise ValueError("no solution given")
    return best, idx


@dataclass
class Hint:
    """'Mate in N' and one swap that brings N to N − 1 (None when solved)."""

    moves_left: int
    swap: tuple[int, int] | None
    w_after: int | None
    unique: bool
    solution: np.ndarray = field(repr=False, default=None)


def best_hint(table, puzzle: SurvoPuzzle, solutions: list[np.ndarray], unique: bool = True) -> Hint:
    """The minimum swaps left and, among the swaps lowering it, one that lowers W most.

    Ties go to a swap that puts a number on its final cell, then to the
    smallest numbers; with several solutions the nearest one is used.
    """
    from sudokustudio.survo.board import w_of

    n_left, idx = min_swaps_any(table, solutions)
    sol = solutions[idx]
    if n_left == 0:
        return Hint(0, None, 0, unique, sol)
    t = np.asarray(table, dtype=np.int16)
    pos = {int(v): (int(i), int(j)) for (i, j), v in np.ndenumerate(t)}
    best = None
    for a, b in reducing_swaps(t, sol):
        (ai, aj), (bi, bj) = pos[a], pos[b]
        t2 = t.copy()
        t2[ai, aj], t2[bi, bj] = b, a
        w = w_of(t2, puzzle.row_sums, puzzle.col_sums)
        places = int(sol[ai, aj] == b) + int(sol[bi, bj] == a)
        key = (w, -places, a, b)
        if best is None or key < best[0]:
            best = (key, (a, b), w)
    return Hint(n_left, best[1], best[2], unique, sol)


# ------------------------------------------------------------- random tables
def stirling_first_unsigned(n: int) -> list[int]:
    """c(n, k) for k = 0..n: permutations of n with k cycles (exact integers).

    Coefficients of x(x+1)...(x+n−1), built one factor at a time.
    """
    coeffs = [1]  # the empty product
    for r in range(n):
        nxt = [0] * (len(coeffs) + 1)
        for k, a in enumerate(coeffs):
            nxt[k + 1] += a       # times x
            nxt[k] += r * a       # times r
        coeffs = nxt
    return coeffs


def swap_distribution(n: int) -> dict[int, int]:
    """Number of permutations of n needing s swaps (s = n − cycles), s = 0..n−1."""
    c = stirling_first_unsigned(n)
    return {n - k: c[k] for k in range(n, 0, -1)}


def swap_moments(n: int) -> tuple[Fraction, Fraction]:
    """Exact mean and variance of the swaps of a uniform random permutation of n."""
    dist = swap_distribution(n)
    total = sum(dist.values())
    mean = Fraction(sum(s * f for s, f in dist.items()), total)
    second = Fraction(sum(s * s * f for s, f in dist.items()), total)
    return mean, second - mean * mean


def warm_up() -> None:
    """Compile (or load) what Hint and Solve need: the exact solver (group survo-solve)."""
    solve_survo(SurvoPuzzle([3, 7], [4, 6]), 2)
