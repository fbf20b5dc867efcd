"""Exact Survo solver, minimum swaps, and the swap distribution of random tables.

Solver (``solve_survo_kernel``): depth-first search over the free cells in a
fixed order that closes lines early (repeatedly take the line with the
fewest unplaced free cells and append them), so the last cell of a line is
forced.  Each cell's candidates are bounded by both of its lines: the other
f−1 free cells of a line must be fillable by available numbers, so the
value lies in [rest − (sum of the f−1 largest available),
rest − (sum of the f−1 smallest available)].  After each placement every
unfinished line is checked against the same min/max sums of the numbers
still available.  It enumerates all solutions up to ``limit`` (limit 2 =
uniqueness proof).

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
@njit(cache=True, nogil=True)
def _cell_order(givens, order):
    """Free cells (flat indices) in an order that closes lines early; returns their count."""
    m, n = givens.shape
    rleft = np.zeros(m, dtype=np.int64)
    cleft = np.zeros(n, dtype=np.int64)
    taken = np.zeros((m, n), dtype=np.bool_)
    total = 0
    for i in range(m):
        for j in range(n):
            if givens[i, j] == 0:
                rleft[i] += 1
                cleft[j] += 1
                total += 1
            else:
                taken[i, j] = True
    k = 0
    while k < total:
        # the unfinished line with the fewest unplaced cells (rows first on ties)
        best = 1 << 30
        is_row = True
        line = -1
        for i in range(m):
            if 0 < rleft[i] < best:
                best = rleft[i]
                is_row = True
                line = i
        for j in range(n):
            if 0 < cleft[j] < best:
                best = cleft[j]
                is_row = False
                line = j
        # append its cells, those whose crossing line is closer to closing first
        while True:
            pick = -1
            pick_left = 1 << 30
            if is_row:
                for j in range(n):
                    if not taken[line, j] and cleft[j] < pick_left:
                        pick_left = cleft[j]
                        pick = line * n + j
            else:
                for i in range(m):
                    if not taken[i, line] and rleft[i] < pick_left:
                        pick_left = rleft[i]
                        pick = i * n + line
            if pick < 0:
                break
            pi = pick // n
            pj = pick % n
            taken[pi, pj] = True
            rleft[pi] -= 1
            cleft[pj] -= 1
            order[k] = pick
            k += 1
    return total


@njit(cache=True, nogil=True)
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


@njit(cache=True, nogil=True)
def _lines_feasible(rrem, rfree, crem, cfree, mins, maxs):
    for i in range(rrem.shape[0]):
        f = rfree[i]
        if rrem[i] < mins[f] or rrem[i] > maxs[f]:
            return False
    for j in range(crem.shape[0]):
        f = cfree[j]
        if crem[j] < mins[f] or crem[j] > maxs[f]:
            return False
    return True


@njit(cache=True, nogil=True)
def solve_survo_kernel(row_sums, col_sums, givens, limit, solutions_out):
    """All solutions up to ``limit``; returns (count, nodes).

    row_sums int64[m], col_sums int64[n], givens int16[m, n] (0 = free);
    the first min(count, len(solutions_out)) solutions go to
    ``solutions_out`` int16[k, m, n].  count < limit means the search was
    complete, so count == 1 with limit >= 2 proves uniqueness.
    """
    m, n = givens.shape
    N = m * n
    kmax = max(m, n)
    avail = np.ones(N + 1, dtype=np.bool_)
    avail[0] = False
    table = givens.astype(np.int16).copy()
    rrem = row_sums.astype(np.int64).copy()
    crem = col_sums.astype(np.int64).copy()
    rfree = np.zeros(m, dtype=np.int64)
    cfree = np.zeros(n, dtype=np.int64)
    for i in range(m):
        for j in range(n):
            g = givens[i, j]
            if g > 0:
                if not avail[g]:
                    return 0, 0
                avail[g] = False
                rrem[i] -= g
                crem[j] -= g
            else:
                rfree[i] += 1
                cfree[j] += 1
    order = np.empty(N, dtype=np.int64)
    F = _cell_order(givens, order)
    mins = np.zeros((N + 1, kmax + 1), dtype=np.int64)
    maxs = np.zeros((N + 1, kmax + 1), dtype=np.int64)
    _extreme_sums(avail, N, kmax, mins[0], maxs[0])
    if not _lines_feasible(rrem, rfree, crem, cfree, mins[0], maxs[0]):
        return 0, 0
    count = 0
    nodes = 0
    if F == 0:
        if solutions_out.shape[0] > 0:
            solutions_out[0] = table
        return 1, 0
    lo = np.zeros(N + 1, dtype=np.int64)
    hi = np.zeros(N + 1, dtype=np.int64)
    cur = np.zeros(N + 1, dtype=np.int64)
    placed = np.zeros(N + 1, dtype=np.int64)

    d = 0
    entering = True
    while d >= 0:
        c = order[d]
        i = c // n
        j = c % n
        if entering:
            entering = False
            kr = rfree[i] - 1
            kc = cfree[j] - 1
            a = max(rrem[i] - maxs[d, kr], crem[j] - maxs[d, kc])
            b = min(rrem[i] - mins[d, kr], crem[j] - mins[d, kc])
            lo[d] = max(a, 1)
            hi[d] = min(b, N)
            cur[d] = lo[d] - 1
            placed[d] = 0
        v = placed[d]
        if v > 0:  # take back the previous candidate
            avail[v] = True
            rrem[i] += v
            crem[j] += v
            rfree[i] += 1
            cfree[j] += 1
            table[i, j] = 0
            placed[d] = 0
        found = False
        v = cur[d] + 1
        while v <= hi[d]:
            if avail[v]:
                nodes += 1
                avail[v] = False
                rrem[i] -= v
                crem[j] -= v
                rfree[i] -= 1
                cfree[j] -= 1
                _extreme_sums(avail, N, kmax, mins[d + 1], maxs[d + 1])
                if _lines_feasible(rrem, rfree, crem, cfree, mins[d + 1], maxs[d + 1]):
                    found = True
                    break
                avail[v] = True
                rrem[i] += v
                crem[j] += v
                rfree[i] += 1
                cfree[j] += 1
            v += 1
        if not found:
            d -= 1
            continue
        cur[d] = v
        placed[d] = v
        table[i, j] = v
        if d == F - 1:
            if count < solutions_out.shape[0]:
                solutions_out[count] = table
            count += 1
            if count >= limit:
                break
            continue  # next candidate at the same depth
        d += 1
        entering = True
    return count, nodes


# ------------------------------------------------------------- minimum swaps
@njit(cache=True, nogil=True)
def _cycle_labels(table, solution, label):
    """Label each cell with its cycle of the table -> solution permutation; returns #cycles."""
    m, n = table.shape
    N = m * n
    pos = np.empty(N + 1, dtype=np.int64)
    for c in range(N):
        pos[table.flat[c]] = c
    for c in range(N):
        label[c] = -1
    cycles = 0
    for c in range(N):
        if label[c] >= 0:
            continue
        x = c
        while label[x] < 0:
            label[x] = cycles
            x = pos[solution.flat[x]]  # where the number that belongs at x is now
        cycles += 1
    return cycles


@njit(cache=True, nogil=True)
def min_swaps_kernel(table, solution):
    """Fewest swaps turning ``table`` into ``solution``: cells − cycles."""
    N = table.shape[0] * table.shape[1]
    label = np.empty(N, dtype=np.int64)
    return N - _cycle_labels(table, solution, label)


@njit(cache=True, nogil=True)
def reducing_swaps_kernel(table, solution, out):
    """Pairs of numbers (a < b) whose swap lowers the minimum by one; returns how many.

    ``out`` int16[k, 2]; stops when full.  Such pairs are exactly the pairs
    of misplaced numbers in the same cycle.
    """
    m, n = table.shape
    N = m * n
    label = np.empty(N, dtype=np.int64)
    _cycle_labels(table, solution, label)
    k = 0
    for c1 in range(N):
        if table.flat[c1] == solution.flat[c1]:
            continue
        for c2 in range(c1 + 1, N):
            if label[c2] == label[c1] and table.flat[c2] != solution.flat[c2]:
                if k >= out.shape[0]:
                    return k
                a = table.flat[c1]
                b = table.flat[c2]
                out[k, 0] = min(a, b)
                out[k, 1] = max(a, b)
                k += 1
    return k


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
    count, nodes = solve_survo_kernel(r, c, g, limit, out)
    count = int(count)
    return SurvoSolution([out[k].copy() for k in range(min(count, keep))], count, limit, int(nodes))


def count_solutions(puzzle: SurvoPuzzle, limit: int = 2) -> int:
    r, c, g = _arrays(puzzle)
    out = np.zeros((0, puzzle.m, puzzle.n), dtype=np.int16)
    return int(solve_survo_kernel(r, c, g, limit, out)[0])


def min_swaps(table, solution) -> int:
    return int(min_swaps_kernel(np.ascontiguousarray(table, dtype=np.int16),
                                np.ascontiguousarray(solution, dtype=np.int16)))


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


def reducing_swaps(table, solution) -> list[tuple[int, int]]:
    """All swaps (a, b), a < b, that bring the minimum number of swaps down by one."""
    t = np.ascontiguousarray(table, dtype=np.int16)
    s = np.ascontiguousarray(solution, dtype=np.int16)
    N = t.size
    out = np.zeros((N * (N - 1) // 2, 2), dtype=np.int16)
    k = int(reducing_swaps_kernel(t, s, out))
    return [(int(a), int(b)) for a, b in out[:k]]


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
