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
  monotone, i.e. close to the product setup).

Plain Python around one numba kernel, the exact solver
(``solve.solve_kernel``): a solver call costs far more than the Python
around it, and only the solver has to be compiled before a first puzzle.
Every step draws from an explicit ``numpy.random.Generator`` seeded from
the request, so (m, n, k, seed) always gives the same puzzle.  Difficulty
is the initial W of the setup and the minimum number of swaps from it.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sudokustudio.survo.puzzle import SurvoPuzzle
from sudokustudio.survo.solve import solve_kernel


class GenerationError(ValueError):
    """No puzzle met the request (size, givens, difficulty range) in the tries allowed."""


# Placement budgets of the exact solver: a check that runs out counts as
# "not unique", which bounds the time of a generation (a 5×5 open proof
# takes ~1e5 placements, ~0.1 s).
CHECK_BUDGET = 500_000
WALK_BUDGET = 100_000


def rng_for(*key: int) -> np.random.Generator:
    """The explicit random generator of a request (any tuple of non-negative integers)."""
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence([int(k) & 0xFFFFFFFF for k in key]
                                                                      + [int(k) >> 32 for k in key])))


class Checker:
    """Counts the solutions (up to 2) of the puzzle made of a table's margins and masked cells."""

    def __init__(self, m: int, n: int):
        self.sols = np.zeros((2, m, n), dtype=np.int16)
        self.calls = 0
        self.nodes = 0

    def count(self, table: np.ndarray, mask: np.ndarray, budget: int) -> int:
        """1 = unique, 0 = none, 2 = at least two (in ``sols``), -1 = the budget ran out."""
        self.calls += 1
        givens = np.where(mask, table, 0).astype(np.int16)
        c, nodes = solve_kernel(table.sum(axis=1).astype(np.int64), table.sum(axis=0).astype(np.int64),
                                givens, 2, budget, self.sols)
        self.nodes += int(nodes)
        return int(c)

    def other_solution(self, table: np.ndarray) -> np.ndarray:
        """After count() == 2: a solution different from ``table``."""
        return self.sols[1] if np.array_equal(self.sols[0], table) else self.sols[0]


def add_givens_until_unique(table: np.ndarray, mask: np.ndarray, max_givens: int, rng: np.random.Generator,
                            checker: Checker, budget: int = CHECK_BUDGET) -> bool:
    """Give cells where a second solution differs until unique (True) or ``max_givens`` is exceeded.

    ``mask`` (bool[m, n]) is updated in place.
    """
    while True:
        c = checker.count(table, mask, budget)
        if c == 1:
            return True
        if c < 0 or int(mask.sum()) >= max_givens:
            return False
        diff = np.flatnonzero(checker.other_solution(table) != table)
        pick = int(diff[rng.integers(len(diff))])
        mask.flat[pick] = True


def monotone(table: np.ndarray) -> np.ndarray:
    """Sort every row, then every column: a monotone table (rows stay sorted)."""
    return np.sort(np.sort(table, axis=1), axis=0)


def random_unique_table(m: int, n: int, k: int, rng: np.random.Generator, checker: Checker,
                        max_attempts: int) -> tuple[np.ndarray, np.ndarray] | None:
    """A uniquely solvable table and its given cells (at most k), or None."""
    N = m * n
    for _ in range(max_attempts):
        table = (rng.permutation(N) + 1).astype(np.int16).reshape(m, n)
        mask = np.zeros((m, n), dtype=bool)
        if k > 0:
            if add_givens_until_unique(table, mask, k, rng, checker):
                return table, mask
            mask[:, :] = False
        table = monotone(table)
        if k > 0:
            if add_givens_until_unique(table, mask, k, rng, checker):
                return table, mask
        elif checker.count(table, mask, CHECK_BUDGET) == 1:
            return table, mask
    return None


def unique_walk(table: np.ndarray, mask: np.ndarray, steps: int, rng: np.random.Generator,
                checker: Checker) -> None:
    """Random swaps of non-given cells, each kept only when the puzzle stays unique (in place)."""
    N = table.size
    for _ in range(steps):
        a = int(rng.integers(N))
        b = int(rng.integers(N - 1))
        b += b >= a
        if mask.flat[a] or mask.flat[b]:
            continue
        table.flat[a], table.flat[b] = table.flat[b], table.flat[a]
        if checker.count(table, mask, WALK_BUDGET) != 1:
            table.flat[a], table.flat[b] = table.flat[b], table.flat[a]


def permute_lines(table: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Random row and column permutations (the puzzle stays uniquely solvable)."""
    rp = rng.permutation(table.shape[0])
    cp = rng.permutation(table.shape[1])
    return table[rp][:, cp].copy(), mask[rp][:, cp].copy()


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
    rng = rng_for(seed, m, n, givens)
    checker = Checker(m, n)
    found = random_unique_table(m, n, givens, rng, checker, max_attempts)
    if found is None:
        raise GenerationError(f"no uniquely solvable {m}×{n} puzzle with {givens} givens found from seed {seed}")
    table, mask = found
    steps = (2 * m * n if m * n <= 20 else m * n // 2) if walk_steps is None else walk_steps
    unique_walk(table, mask, steps, rng, checker)
    table, mask = permute_lines(table, mask, rng)
    # top up the givens to exactly k with random further cells
    free = np.flatnonzero(~mask)
    extra = rng.permutation(free)[:max(0, givens - int(mask.sum()))]
    mask.flat[extra] = True
    puzzle = SurvoPuzzle.from_solution(table, mask, name=f"random {m}x{n} k={givens} seed={seed}")
    setup = puzzle_setup(puzzle)
    return GeneratedPuzzle(puzzle, table, w_of(setup, puzzle.row_sums, puzzle.col_sums),
                           min_swaps(setup, table), seed, checker.calls)


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


def warm_up() -> None:
    """Compile (or load) what New puzzle needs (group survo-generate): the exact solver."""
    random_puzzle(2, 3, seed=1)
