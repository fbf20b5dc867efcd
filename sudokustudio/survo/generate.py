"""Random Survo puzzles with a unique solution, reproducible from a seed.

A random permutation of 1..N fills the table; its margins are the puzzle.

* With k givens: the exact solver looks for a second solution and a cell
  where it differs from the table becomes a given, until the solution is
  unique; random further cells are then given until there are k.
* A random table is rarely uniquely solvable as an open puzzle (for 4×4
  about 3 in 10 million tables), but a *monotone* one (each row, then each
  column sorted) often is (≈ 50 % for 4×4, 27 % for 4×5, 12 % for 5×5).  So
  when the raw table fails (always, for k = 0) it is sorted and tried again,
  and a fresh permutation is drawn if that fails too.
* From the first unique table a short random walk of swaps, each kept only
  if the puzzle stays unique, moves away from the monotone start; finally
  rows and columns are permuted at random.  The puzzles are therefore not
  uniform over all uniquely solvable ones (they lean towards tables close to
  monotone, i.e. close to the product setup); difficulty is reported with
  each puzzle and the New-puzzle dialog filters on it.

Every step draws from the explicit RNG state, so (m, n, k, seed) always
gives the same puzzle.  Difficulty is the initial W of the setup and the
minimum number of swaps from it.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from sudokustudio.core.rng import rand_below, seed_state, shuffle_inplace
from sudokustudio.survo.puzzle import SurvoPuzzle
from sudokustudio.survo.solve import solve_survo_budget_kernel

class GenerationError(ValueError):
    """No puzzle met the request (size, givens, difficulty range) in the tries allowed."""


# Placement budgets of the exact solver: a check that runs out counts as
# "not unique", which bounds the time of a generation (a 5×5 open proof
# takes ~1e5 placements, ~0.1 s).
CHECK_BUDGET = 500_000
WALK_BUDGET = 100_000


@njit(cache=True, nogil=True)
def _margins(table, rs, cs):
    m, n = table.shape
    for i in range(m):
        rs[i] = 0
    for j in range(n):
        cs[j] = 0
    for i in range(m):
        for j in range(n):
            rs[i] += table[i, j]
            cs[j] += table[i, j]


@njit(cache=True, nogil=True)
def _count(table, mask, limit, rs, cs, givens, sols, budget):
    """Solutions of the puzzle made of table's margins and its masked cells (-1: budget ran out)."""
    m, n = table.shape
    _margins(table, rs, cs)
    for i in range(m):
        for j in range(n):
            givens[i, j] = table[i, j] if mask[i, j] else 0
    c, _ = solve_survo_budget_kernel(rs, cs, givens, limit, budget, sols)
    return c


@njit(cache=True, nogil=True)
def _add_givens(table, mask, k, state, rs, cs, givens, sols):
    """Give cells where a second solution differs until unique (True) or k is exceeded."""
    m, n = table.shape
    N = m * n
    diff = np.empty(N, dtype=np.int64)
    while True:
        c = _count(table, mask, 2, rs, cs, givens, sols, CHECK_BUDGET)
        if c == 1:
            return True
        if c < 0:
            return False
        if int(mask.sum()) >= k:
            return False
        # sols[0], sols[1] are two solutions; at least one differs from the table
        other = sols[0]
        same = True
        for i in range(m):
            for j in range(n):
                if other[i, j] != table[i, j]:
                    same = False
        if same:
            other = sols[1]
        nd = 0
        for i in range(m):
            for j in range(n):
                if other[i, j] != table[i, j]:
                    diff[nd] = i * n + j
                    nd += 1
        pick = diff[rand_below(state, nd)]
        mask[pick // n, pick % n] = True


@njit(cache=True, nogil=True)
def _sort_table(table):
    """Sort every row, then every column: a monotone table (rows stay sorted)."""
    m, n = table.shape
    for i in range(m):
        table[i, :] = np.sort(table[i, :])
    for j in range(n):
        table[:, j] = np.sort(table[:, j])


@njit(cache=True, nogil=True)
def _permute_lines(state, table, mask):
    """Random row and column permutations (the puzzle stays uniquely solvable)."""
    m, n = table.shape
    rp = np.arange(m)
    cp = np.arange(n)
    shuffle_inplace(state, rp)
    shuffle_inplace(state, cp)
    t2 = table.copy()
    m2 = mask.copy()
    for i in range(m):
        for j in range(n):
            table[i, j] = t2[rp[i], cp[j]]
            mask[i, j] = m2[rp[i], cp[j]]


@njit(cache=True, nogil=True)
def random_puzzle_kernel(m, n, k, state, walk_steps, max_attempts, table_out, mask_out):
    """A uniquely solvable m×n table with k givens; returns (ok, solver calls).

    ``table_out`` int16[m, n] gets the solution, ``mask_out`` bool[m, n] the
    given cells.  ``walk_steps`` random swaps are tried after the first
    unique table, each kept only when the puzzle stays unique.
    """
    N = m * n
    perm = np.arange(1, N + 1).astype(np.int16)
    rs = np.zeros(m, dtype=np.int64)
    cs = np.zeros(n, dtype=np.int64)
    givens = np.zeros((m, n), dtype=np.int16)
    sols = np.zeros((2, m, n), dtype=np.int16)
    calls = 0
    found = False
    table = perm.reshape(m, n).copy()
    mask = np.zeros((m, n), dtype=np.bool_)
    for attempt in range(max_attempts):
        shuffle_inplace(state, perm)
        table = perm.reshape(m, n).copy()
        mask[:, :] = False
        if k > 0:
            calls += 1
            if _add_givens(table, mask, k, state, rs, cs, givens, sols):
                found = True
                break
            mask[:, :] = False
        _sort_table(table)
        if k > 0:
            calls += 1
            if _add_givens(table, mask, k, state, rs, cs, givens, sols):
                found = True
                break
        else:
            calls += 1
            if _count(table, mask, 2, rs, cs, givens, sols, CHECK_BUDGET) == 1:
                found = True
                break
    if not found:
        return False, calls
    # wander inside the uniquely solvable tables, away from the monotone start
    for step in range(walk_steps):
        a = rand_below(state, N)
        b = rand_below(state, N - 1)
        if b >= a:
            b += 1
        ai = a // n
        aj = a % n
        bi = b // n
        bj = b % n
        va = table[ai, aj]
        table[ai, aj] = table[bi, bj]
        table[bi, bj] = va
        calls += 1
        if _count(table, mask, 2, rs, cs, givens, sols, WALK_BUDGET) != 1:
            table[bi, bj] = table[ai, aj]
            table[ai, aj] = va
    _permute_lines(state, table, mask)
    # top up the givens to exactly k with random further cells
    free = np.empty(N, dtype=np.int64)
    while int(mask.sum()) < k:
        nf = 0
        for c in range(N):
            if not mask[c // n, c % n]:
                free[nf] = c
                nf += 1
        pick = free[rand_below(state, nf)]
        mask[pick // n, pick % n] = True
    table_out[:, :] = table
    mask_out[:, :] = mask
    return True, calls


@dataclass
class GeneratedPuzzle:
    puzzle: SurvoPuzzle
    solution: np.ndarray
    initial_w: int
    min_swaps: int
    seed: int
    solver_calls: int


def random_puzzle(m: int, n: int, givens: int = 0, seed: int = 0, walk_steps: int | None = None,
                  max_attempts: int = 300) -> GeneratedPuzzle:
    """A uniquely solvable random m×n puzzle with ``givens`` given numbers."""
    from sudokustudio.survo.board import w_of
    from sudokustudio.survo.setup import puzzle_setup
    from sudokustudio.survo.solve import min_swaps

    if not (2 <= m <= 8 and 2 <= n <= 8):
        raise ValueError(f"size {m}×{n}: rows and columns must be 2..8")
    if not 0 <= givens < m * n:
        raise ValueError(f"givens must be 0..{m * n - 1}, got {givens}")
    state = seed_state(np.uint64(seed & 0xFFFFFFFFFFFFFFFF))
    table = np.zeros((m, n), dtype=np.int16)
    mask = np.zeros((m, n), dtype=np.bool_)
    steps = (2 * m * n if m * n <= 20 else m * n // 2) if walk_steps is None else walk_steps
    ok, calls = random_puzzle_kernel(m, n, givens, state, steps, max_attempts, table, mask)
    if not ok:
        raise GenerationError(f"no uniquely solvable {m}×{n} puzzle with {givens} givens found from seed {seed}")
    puzzle = SurvoPuzzle.from_solution(table, mask, name=f"random {m}x{n} k={givens} seed={seed}")
    setup = puzzle_setup(puzzle)
    return GeneratedPuzzle(puzzle, table, w_of(setup, puzzle.row_sums, puzzle.col_sums),
                           min_swaps(setup, table), seed, int(calls))


def random_puzzle_in_range(m: int, n: int, givens: int = 0, seed: int = 0,
                           min_swaps_range: tuple[int, int] = (0, 64), tries: int = 200,
                           cancelled=lambda: False) -> GeneratedPuzzle:
    """The first puzzle from seeds seed, seed+1, … whose minimum swaps lie in the range.

    Each seed gets a few attempts only, so ``cancelled()`` is checked often
    even for large sizes where most attempts fail.
    """
    lo, hi = min_swaps_range
    for t in range(tries):
        if cancelled():
            raise GenerationError("cancelled")
        try:
            g = random_puzzle(m, n, givens, seed + t, max_attempts=10)
        except GenerationError:
            continue
        if lo <= g.min_swaps <= hi:
            return g
    raise GenerationError(f"no {m}×{n} puzzle with {givens} givens and {lo}..{hi} swaps in {tries} tries "
                          f"from seed {seed}")
