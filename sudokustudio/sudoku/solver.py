"""9x9 Sudoku solver kernel: bitboard candidates, naked and hidden singles,
fewest-candidates branching, solution counting up to a limit.

A puzzle is ``uint8[81]`` (0 = empty).  All kernels are ``nogil`` so worker
threads run them in parallel.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from sudokustudio.core.rng import rand_below
from sudokustudio.sudoku.tables import ALL_DIGITS, PEERS, UNITS


class NoSolutionError(ValueError):
    """Raised by :func:`solve` for a puzzle without a solution."""



@njit(cache=True, nogil=True)
def _propagate(cand, done, peers, units):
    """Apply naked and hidden singles until nothing changes.

    ``cand[c]`` is the candidate mask of cell c; ``done[c]`` is 1 once a
    solved cell's digit has been removed from its peers.  Returns False on a
    contradiction.
    """
    changed = True
    while changed:
        changed = False
        for c in range(81):
            v = np.int64(cand[c])
            if v == 0:
                return False
            if done[c] == 0 and (v & (v - 1)) == 0:
                done[c] = 1
                for k in range(20):
                    p = peers[c, k]
                    if cand[p] & v:
                        cand[p] = np.uint16(np.int64(cand[p]) & ~v)
                        if cand[p] == 0:
                            return False
                        changed = True
        for u in range(27):
            once = 0
            twice = 0
            for k in range(9):
                v = np.int64(cand[units[u, k]])
                twice |= once & v
                once |= v
            if once != ALL_DIGITS:
                return False
            only = once & ~twice
            if only:
                for k in range(9):
                    c = units[u, k]
                    v = np.int64(cand[c]) & only
                    if v:
                        if v & (v - 1):
                            return False
                        if cand[c] != v:
                            cand[c] = np.uint16(v)
                            changed = True
    return True


@njit(cache=True, nogil=True)
def _initial_candidates(puzzle):
    cand = np.full(81, ALL_DIGITS, dtype=np.uint16)
    for c in range(81):
        d = puzzle[c]
        if d:
            cand[c] = 1 << (d - 1)
    return cand


@njit(cache=True, nogil=True)
def _search(puzzle, limit, solution, randomize, rng):
    """Depth-first search.  Returns (solutions found up to ``limit``, guesses).

    The first solution found is written to ``solution``.  With ``randomize``
    the branch digit is drawn from ``rng`` (for random grids).
    """
    peers = PEERS
    units = UNITS
    cs = np.empty((82, 81), dtype=np.uint16)
    ds = np.zeros((82, 81), dtype=np.uint8)
    branch_cell = np.empty(82, dtype=np.int64)
    remaining = np.zeros(82, dtype=np.int64)
    for c in range(81):
        d = puzzle[c]
        if d > 9:
            return 0, 0
    cs[0] = _initial_candidates(puzzle)
    if not _propagate(cs[0], ds[0], peers, units):
        return 0, 0
    count = 0
    guesses = 0
    depth = 0
    while True:
        # choose the unsolved cell with the fewest candidates
        best = -1
        best_n = 10
        for c in range(81):
            v = np.int64(cs[depth, c])
            if v & (v - 1):
                n = 0
                while v:
                    v &= v - 1
                    n += 1
                if n < best_n:
                    best_n = n
                    best = c
                    if n == 2:
                        break
        if best < 0:
            count += 1
            if count == 1:
                for c in range(81):
                    v = np.int64(cs[depth, c])
                    d = 1
                    while v > 1:
                        v >>= 1
                        d += 1
                    solution[c] = d
            if count >= limit:
                return count, guesses
            remaining[depth] = 0
        else:
            branch_cell[depth] = best
            remaining[depth] = np.int64(cs[depth, best])
        # take the next untried digit, backtracking as needed
        while True:
            while remaining[depth] == 0:
                if depth == 0:
                    return count, guesses
                depth -= 1
            rem = remaining[depth]
            if randomize:
                n = 0
                t = rem
                while t:
                    t &= t - 1
                    n += 1
                k = rand_below(rng, n)
                t = rem
                for _ in range(k):
                    t &= t - 1
                v = t & (~t + 1)
            else:
                v = rem & (~rem + 1)
            remaining[depth] = rem & ~v
            guesses += 1
            cs[depth + 1] = cs[depth]
            ds[depth + 1] = ds[depth]
            cs[depth + 1, branch_cell[depth]] = np.uint16(v)
            if _propagate(cs[depth + 1], ds[depth + 1], peers, units):
                depth += 1
                break


_NO_RNG = np.zeros(4, dtype=np.uint64)


@njit(cache=True, nogil=True)
def count_solutions_kernel(puzzle, limit):
    solution = np.zeros(81, dtype=np.uint8)
    n, _ = _search(puzzle, limit, solution, False, np.zeros(4, dtype=np.uint64))
    return n


@njit(cache=True, nogil=True)
def solve_kernel(puzzle, limit, solution):
    """Count solutions up to ``limit``; first one into ``solution``.  Returns (count, guesses)."""
    return _search(puzzle, limit, solution, False, np.zeros(4, dtype=np.uint64))


@njit(cache=True, nogil=True)
def count_solutions_batch_kernel(puzzles, limit, counts):
    for i in range(puzzles.shape[0]):
        counts[i] = count_solutions_kernel(puzzles[i], limit)


@njit(cache=True, nogil=True)
def solve_batch_kernel(puzzles, limit, solutions, counts, guesses):
    for i in range(puzzles.shape[0]):
        c, g = _search(puzzles[i], limit, solutions[i], False, np.zeros(4, dtype=np.uint64))
        counts[i] = c
        guesses[i] = g


@njit(cache=True, nogil=True)
def is_unique_kernel(puzzle):
    return count_solutions_kernel(puzzle, 2) == 1


@njit(cache=True, nogil=True)
def random_solution_kernel(puzzle, rng, solution):
    """A solution of ``puzzle`` reached with random branch choices (0 if none)."""
    n, _ = _search(puzzle, 1, solution, True, rng)
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
