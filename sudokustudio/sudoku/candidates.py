"""Puzzles given by their candidates (pencil marks): ``uint16[81]`` masks, bit
``d - 1`` set when digit d is still possible in the cell, and a solver for them.

A plain puzzle is the special case where a given has one candidate and an
empty cell all nine (``puzzle_candidates``).  The solver here serves
pencil-mark input only: the plain solver (``sudoku.solver``) works on givens
and cannot take eliminated candidates, so this one is a separate, simple
kernel (naked and hidden singles, then depth-first on a cell with the fewest
candidates); it is correct, not the fastest.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from sudokustudio.sudoku.tables import PEERS, UNITS

ALL_DIGITS = 0x1FF
_POP9 = np.array([bin(m).count("1") for m in range(512)], dtype=np.int8)
_LOW9 = np.array([(m & -m).bit_length() - 1 if m else -1 for m in range(512)], dtype=np.int8)


# ------------------------------------------------------------------ conversions
def puzzle_candidates(puzzles) -> np.ndarray:
    """Candidate masks of plain puzzles (uint8[..., 81]): a given's single digit,
    all nine digits in an empty cell (peers are not looked at)."""
    p = np.asarray(puzzles, dtype=np.uint8)
    if p.shape[-1] != 81 or p.max(initial=0) > 9:
        raise ValueError("puzzles must be uint8[..., 81] with values 0..9")
    bits = np.left_shift(np.uint16(1), (p.astype(np.int16) - 1).clip(0)).astype(np.uint16)
    return np.where(p == 0, np.uint16(ALL_DIGITS), bits).astype(np.uint16)


def singles_of(cands) -> np.ndarray:
    """The digits of the cells with exactly one candidate (0 elsewhere): the puzzle a
    pencil-mark grid shows when only its decided cells are read."""
    c = np.asarray(cands, dtype=np.uint16)
    pop = _POP9[c & ALL_DIGITS]
    return np.where(pop == 1, _LOW9[c & ALL_DIGITS] + 1, 0).astype(np.uint8)


def as_candidates(cands) -> np.ndarray:
    c = np.ascontiguousarray(cands, dtype=np.uint16)
    if c.shape[-1] != 81 or (c > ALL_DIGITS).any():
        raise ValueError("candidate masks must be uint16[..., 81] with values below 512")
    return c


# ------------------------------------------------------------------ kernel
@njit(cache=True, nogil=True)
def _propagate(st, r):
    """Naked singles (a one-candidate cell clears its digit from its 20 peers) and hidden
    singles (a digit with one place in a unit) to a fixpoint on row r; False on a
    contradiction (a cell without candidate, a digit without place in a unit)."""
    changed = True
    while changed:
        changed = False
        for c in range(81):
            m = st[r, c]
            if m == 0:
                return False
            if _POP9[m] != 1:
                continue
            for k in range(20):
                p = PEERS[c, k]
                if st[r, p] & m:
                    st[r, p] &= ~m
                    if st[r, p] == 0:
                        return False
                    changed = True
        for u in range(27):
            seen = 0
            twice = 0
            for k in range(9):
                m = st[r, UNITS[u, k]]
                twice |= seen & m
                seen |= m
            if seen != ALL_DIGITS:
                return False
            once = seen & ~twice
            while once:
                bit = once & -once
                once &= once - 1
                for k in range(9):
                    c = UNITS[u, k]
                    if st[r, c] & bit and st[r, c] != bit:
                        st[r, c] = bit
                        changed = True
    return True


@njit(cache=True, nogil=True)
def _fewest(st, r):
    """The undecided cell with the fewest candidates, or -1 when every cell is decided."""
    best = -1
    best_n = 10
    for c in range(81):
        n = _POP9[st[r, c]]
        if 1 < n < best_n:
            best, best_n = c, n
            if n == 2:
                break
    return best


@njit(cache=True, nogil=True)
def solve_candidates_kernel(cands, limit, solution):
    """Count the solutions of the candidate grid ``cands`` (uint16[81]) up to ``limit``;
    the first one goes into ``solution`` (uint8[81], untouched if none).
    Returns (count, guesses)."""
    st = np.empty((82, 81), dtype=np.int32)
    cell_at = np.empty(82, dtype=np.int64)
    rest_at = np.empty(82, dtype=np.int32)
    for c in range(81):
        st[0, c] = cands[c] & ALL_DIGITS
    count = 0
    guesses = 0
    if not _propagate(st, 0):
        return count, guesses
    c = _fewest(st, 0)
    if c < 0:
        for k in range(81):
            solution[k] = _LOW9[st[0, k]] + 1
        return 1, guesses
    depth = 0
    cell_at[0] = c
    rest_at[0] = st[0, c]
    while depth >= 0:
        rest = rest_at[depth]
        if rest == 0:
            depth -= 1
            continue
        bit = rest & -rest
        rest_at[depth] = rest & ~bit
        for k in range(81):
            st[depth + 1, k] = st[depth, k]
        st[depth + 1, cell_at[depth]] = bit
        guesses += 1
        if not _propagate(st, depth + 1):
            continue
        c = _fewest(st, depth + 1)
        if c < 0:
            count += 1
            if count == 1:
                for k in range(81):
                    solution[k] = _LOW9[st[depth + 1, k]] + 1
            if count >= limit:
                break
            continue
        depth += 1
        cell_at[depth] = c
        rest_at[depth] = st[depth, c]
    return count, guesses


@njit(cache=True, nogil=True)
def count_candidates_kernel(cands, limit):
    """Number of solutions of ``cands`` (uint16[81]), counting stops at ``limit``."""
    solution = np.zeros(81, dtype=np.uint8)
    n, _ = solve_candidates_kernel(cands, limit, solution)
    return n


@njit(cache=True, nogil=True)
def solve_candidates_batch_kernel(cands, limit, solutions, counts):
    for i in range(cands.shape[0]):
        n, _ = solve_candidates_kernel(cands[i], limit, solutions[i])
        counts[i] = n


# ------------------------------------------------------------------ Python face
def solve_with_candidates(cands, limit: int = 2) -> tuple[int, np.ndarray]:
    """(number of solutions up to ``limit``, the first solution or zeros) of one grid
    given by its candidates."""
    c = as_candidates(cands).reshape(81)
    if limit < 1:
        raise ValueError("limit must be at least 1")
    solution = np.zeros(81, dtype=np.uint8)
    n, _ = solve_candidates_kernel(c, np.int64(limit), solution)
    return int(n), solution


def count_solutions_with_candidates(cands, limit: int = 2) -> int:
    return solve_with_candidates(cands, limit)[0]


def solve_candidates_batch(cands, limit: int = 2) -> tuple[np.ndarray, np.ndarray]:
    """(solutions uint8[N, 81], counts int64[N]) of candidate grids uint16[N, 81]."""
    c = as_candidates(cands).reshape(-1, 81)
    solutions = np.zeros((c.shape[0], 81), dtype=np.uint8)
    counts = np.zeros(c.shape[0], dtype=np.int64)
    if c.shape[0]:
        solve_candidates_batch_kernel(c, np.int64(limit), solutions, counts)
    return solutions, counts
