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


# ------------------------------------------------------------- graded puzzles
#: solver budgets of graded generation (placements): a check that runs out counts as "not unique"
GRADED_BUDGET = 20_000
#: candidates tried per request before giving up (deterministic: no clock involved)
GRADED_CANDIDATES = 300


@dataclass
class GradedPuzzle:
    """A uniquely solvable puzzle with its difficulty and how to make it again."""

    puzzle: SurvoPuzzle
    solution: np.ndarray
    difficulty: object          # difficulty.Difficulty
    number: int
    candidates: int             # candidate tables tried
    solver_calls: int

    @property
    def givens(self) -> int:
        return self.puzzle.n_givens

    def as_dict(self) -> dict:
        d = {"m": self.puzzle.m, "n": self.puzzle.n, "number": self.number, "givens": self.givens,
             "matrix": self.puzzle.to_matrix_text(), "row_sums": self.puzzle.row_sums.tolist(),
             "col_sums": self.puzzle.col_sums.tolist(), "given_table": self.puzzle.givens.tolist(),
             "solution": self.solution.tolist()}
        d.update(self.difficulty.as_dict())
        d["W"] = d["setup_W"]
        return d


def _level_index(level: str | None) -> int:
    from sudokustudio.survo.difficulty import LEVELS

    if level is None:
        return len(LEVELS)
    if level not in LEVELS:
        raise ValueError(f"difficulty must be one of {', '.join(LEVELS)}, got {level!r}")
    return LEVELS.index(level)


def _in_band(d, level: str | None) -> bool:
    return level is None or d.level == level


def _reduce_givens(table: np.ndarray, mask: np.ndarray, keep: np.ndarray, rng: np.random.Generator,
                   checker: Checker) -> None:
    """Drop givens in random order while the puzzle stays unique (``keep`` cells stay); in place."""
    for c in rng.permutation(np.flatnonzero(mask & ~keep)):
        mask.flat[c] = False
        if checker.count(table, mask, GRADED_BUDGET) != 1:
            mask.flat[c] = True


def _candidate(m: int, n: int, min_givens: int, disorder: int, rng: np.random.Generator,
               checker: Checker) -> tuple[np.ndarray, np.ndarray]:
    """A uniquely solvable table with few givens: a monotone table moved by ``disorder``
    random swaps, every cell given, then givens dropped while it stays unique."""
    N = m * n
    table = monotone((rng.permutation(N) + 1).astype(np.int16).reshape(m, n))
    for _ in range(disorder):
        a, b = rng.choice(N, 2, replace=False)
        table.flat[a], table.flat[b] = table.flat[b], table.flat[a]
    table, _ = permute_lines(table, np.zeros((m, n), bool), rng)
    keep = np.zeros((m, n), bool)
    keep.flat[rng.permutation(N)[:min_givens]] = True
    mask = np.ones((m, n), bool)
    if checker.count(table, keep, GRADED_BUDGET) == 1:   # often open (or k givens) is unique already
        mask = keep.copy()
    else:
        _reduce_givens(table, mask, keep, rng, checker)
    return table, mask


def _ease(table: np.ndarray, mask: np.ndarray, level: str, rng: np.random.Generator):
    """Add givens (never breaking uniqueness) where the setup misplaces a number, each time the
    one that brings the fewest swaps nearest to the level's band, until it is reached or
    nothing helps.  Returns the new mask and its difficulty (None if the band was missed)."""
    from sudokustudio.survo.difficulty import BANDS, difficulty_of
    from sudokustudio.survo.setup import puzzle_setup
    from sudokustudio.survo.solve import min_swaps

    lo, hi = BANDS[level]
    mask = mask.copy()
    while True:
        p = SurvoPuzzle.from_solution(table, mask)
        d = difficulty_of(p, table)
        if d.level == level:
            return mask, d
        if d.min_swaps < lo:
            return mask, None
        setup = puzzle_setup(p)
        wrong = np.flatnonzero((setup != table) & ~mask)
        best = None
        for c in rng.permutation(wrong):
            mask.flat[c] = True
            p2 = SurvoPuzzle.from_solution(table, mask)
            L = min_swaps(puzzle_setup(p2), table)
            mask.flat[c] = False
            gap = max(0, L - hi) + max(0, lo - L)
            if best is None or gap < best[0]:
                best = (gap, c)
        if best is None:
            return mask, None
        mask.flat[best[1]] = True


def graded_puzzle(m: int, n: int, level: str | None = None, number: int = 0, givens: int | str = "auto",
                  max_candidates: int = GRADED_CANDIDATES, cancelled=lambda: False) -> GradedPuzzle:
    """Puzzle ``number`` of size m×n and difficulty ``level`` (easy/medium/hard/expert, None = any).

    ``givens``: "auto" (as few as the candidate needs, open when it can be)
    or a minimum k.  Always the same puzzle for the same (m, n, level,
    number, givens).  Candidates go from near-monotone tables (easy) to
    shuffled ones (hard) as the level asks; a candidate harder than the
    band is eased by adding givens where the setup misplaces numbers.
    ``cancelled()`` is asked before each candidate (GenerationError "cancelled").
    """
    from sudokustudio.survo.difficulty import difficulty_of

    if not (2 <= m <= 8 and 2 <= n <= 8):
        raise ValueError(f"size {m}×{n}: rows and columns must be 2..8")
    k = 0 if givens == "auto" else int(givens)
    if not 0 <= k < m * n:
        raise ValueError(f"givens must be 'auto' or 0..{m * n - 1}, got {givens}")
    li = _level_index(level)
    rng = rng_for(number, m, n, li, k + 1)
    checker = Checker(m, n)
    N = m * n
    # disorder (random swaps away from monotone) per level, as a share of the cells
    share = {0: (0.0, 0.15), 1: (0.05, 0.3), 2: (0.1, 0.6), 3: (0.3, 1.5), 4: (0.0, 1.0)}[li]
    for cand in range(1, max_candidates + 1):
        if cancelled():
            raise GenerationError("cancelled")
        disorder = int(rng.integers(int(share[0] * N), int(share[1] * N) + 1))
        table, mask = _candidate(m, n, k, disorder, rng, checker)
        if level is None:
            d = difficulty_of(SurvoPuzzle.from_solution(table, mask), table)
        else:
            mask, d = _ease(table, mask, level, rng)
            if d is None:
                continue
        puzzle = SurvoPuzzle.from_solution(table, mask, name=f"{m}x{n} {level or 'any'} #{number}")
        return GradedPuzzle(puzzle, table, d, number, cand, checker.calls)
    raise GenerationError(f"no {level or ''} {m}×{n} puzzle with {givens} givens found in {max_candidates} "
                          f"candidates (puzzle number {number}); small sizes may have none at this level")


def warm_up() -> None:
    """Compile (or load) what New puzzle needs (group survo-generate): the exact solver."""
    random_puzzle(2, 3, seed=1)
