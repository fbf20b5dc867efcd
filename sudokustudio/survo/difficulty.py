"""Difficulty of a Survo puzzle for the swapping method (issue 16, item 4).

From the setup S (products of sums, generalised with givens) to the
solution T the fewest swaps are L = cells − cycles of the permutation
S -> T (DESIGN.md).  A swap belongs to a shortest sequence exactly when
it splits a cycle, i.e. exchanges two misplaced numbers of the same cycle,
so:

* the number of shortest sequences has a closed form: a k-cycle has
  k^(k−2) minimal factorisations into transpositions (Dénes), and the
  factorisations of disjoint cycles interleave freely, so with cycle
  lengths k_i and L = Σ(k_i − 1) it is  L! · Π k_i^(k_i−2) / (k_i − 1)!;
* the fewest *sacrifices* (swaps that raise W, seed 001) over all
  shortest sequences is a shortest-path search over the tables reachable
  by cycle-splitting swaps, memoised by table.  Their number grows like a
  product of Catalan numbers of the cycle lengths, so it is computed only
  up to ``MAX_STATES`` tables (``None`` beyond: never for L <= 7).

Grades (survo.fi's swap game in spirit): easy ≤ 3 swaps, medium 4–5,
hard 6–7 or a sacrifice needed in every shortest sequence, expert ≥ 8.
Plain Python: at most 64 cells, microseconds to milliseconds per puzzle.
"""
from __future__ import annotations

from dataclasses import dataclass
from math import factorial

import numpy as np

LEVELS = ("easy", "medium", "hard", "expert")
#: min-swap bands of the grades (a sacrifice makes easy/medium puzzles hard)
BANDS = {"easy": (0, 3), "medium": (4, 5), "hard": (6, 7), "expert": (8, 63)}
MAX_STATES = 200_000        # tables searched for the sacrifices when the grade depends on them (L <= 7)
EXPERT_STATES = 5_000       # ... and when it does not (L >= 8 is expert anyway)


@dataclass(frozen=True)
class Difficulty:
    """The swap difficulty of a puzzle from its setup."""

    min_swaps: int
    sacrifices: int | None      # fewest sacrifices over the shortest sequences (None: not computed)
    shortest_sequences: int
    setup_w: int
    level: str

    @property
    def needs_sacrifice(self) -> bool | None:
        """Every shortest swap sequence raises W at least once (None: not computed)."""
        return None if self.sacrifices is None else self.sacrifices > 0

    def as_dict(self) -> dict:
        return {"min_swaps": self.min_swaps, "sacrifices": self.sacrifices,
                "needs_sacrifice": self.needs_sacrifice, "shortest_sequences": self.shortest_sequences,
                "setup_W": self.setup_w, "difficulty": self.level}


def grade(min_swaps: int, sacrifices: int | None) -> str:
    """easy / medium / hard / expert from the fewest swaps and sacrifices."""
    if min_swaps >= 8:
        return "expert"
    if min_swaps >= 6 or (sacrifices or 0) > 0:
        return "hard"
    return "medium" if min_swaps >= 4 else "easy"


def cycle_lengths(table, solution) -> list[int]:
    """Lengths of the cycles of the table -> solution permutation (fixed cells included)."""
    from sudokustudio.survo.solve import cycle_labels

    label, cycles = cycle_labels(table, solution)
    return np.bincount(label, minlength=cycles).tolist()


def shortest_sequences(table, solution) -> int:
    """Number of shortest swap sequences turning ``table`` into ``solution`` (exact)."""
    ks = [k for k in cycle_lengths(table, solution) if k > 1]
    total = factorial(sum(k - 1 for k in ks))
    for k in ks:
        total = total * k ** (k - 2) // factorial(k - 1)
    return total


def fewest_sacrifices(table, solution, row_sums, col_sums, max_states: int = MAX_STATES) -> int | None:
    """The fewest W-raising swaps over all shortest swap sequences (None if over ``max_states``).

    Depth-first over cycle-splitting swaps with a memo of tables; W is kept
    from the line sums, updated per swap.
    """
    from sudokustudio.survo.solve import cycle_labels

    t0 = np.asarray(table)
    m, n = t0.shape
    goal = tuple(np.asarray(solution).ravel().tolist())
    rs = [int(x) for x in row_sums]
    cs = [int(x) for x in col_sums]
    memo: dict[tuple, int] = {goal: 0}

    def w_of(rsum, csum):
        return sum(abs(a - b) for a, b in zip(rsum, rs)) + sum(abs(a - b) for a, b in zip(csum, cs))

    def best(state: tuple, rsum: list[int], csum: list[int], w: int) -> int:
        got = memo.get(state)
        if got is not None:
            return got
        if len(memo) > max_states:
            raise OverflowError
        label, _ = cycle_labels(np.array(state).reshape(m, n), np.array(goal).reshape(m, n))
        wrong = [c for c in range(m * n) if state[c] != goal[c]]
        out = 1 << 30
        cur = list(state)
        for x, a in enumerate(wrong):
            for b in wrong[x + 1:]:
                if label[a] != label[b]:
                    continue
                va, vb = cur[a], cur[b]
                ia, ja, ib, jb = a // n, a % n, b // n, b % n
                d = vb - va
                rsum[ia] += d
                rsum[ib] -= d
                csum[ja] += d
                csum[jb] -= d
                w2 = w_of(rsum, csum)
                cur[a], cur[b] = vb, va
                cost = (1 if w2 > w else 0) + best(tuple(cur), rsum, csum, w2)
                cur[a], cur[b] = va, vb
                rsum[ia] -= d
                rsum[ib] += d
                csum[ja] -= d
                csum[jb] += d
                if cost < out:
                    out = cost
                    if out == 0:
                        break
            if out == 0:
                break
        memo[state] = out
        return out

    rsum0 = t0.sum(axis=1).astype(np.int64).tolist()
    csum0 = t0.sum(axis=0).astype(np.int64).tolist()
    try:
        return best(tuple(t0.ravel().tolist()), rsum0, csum0, w_of(rsum0, csum0))
    except (OverflowError, RecursionError):
        return None


def difficulty_of(puzzle, solution, setup=None, max_states: int | None = None) -> Difficulty:
    """All difficulty measures of a puzzle with a known (unique) solution.

    ``max_states`` bounds the sacrifice search (default: ``MAX_STATES`` up to
    7 swaps, where the grade needs it, ``EXPERT_STATES`` beyond).
    """
    from sudokustudio.survo.board import w_of
    from sudokustudio.survo.setup import puzzle_setup
    from sudokustudio.survo.solve import min_swaps

    s = puzzle_setup(puzzle) if setup is None else np.asarray(setup)
    L = min_swaps(s, solution)
    if max_states is None:
        max_states = MAX_STATES if L <= 7 else EXPERT_STATES
    sac = fewest_sacrifices(s, solution, puzzle.row_sums, puzzle.col_sums, max_states)
    return Difficulty(L, sac, shortest_sequences(s, solution), w_of(s, puzzle.row_sums, puzzle.col_sums),
                      grade(L, sac))


def puzzle_difficulty(puzzle, max_states: int | None = None) -> Difficulty:
    """Difficulty of a puzzle given by its sums and givens (solves it first).

    Raises ValueError when the puzzle is not uniquely solvable (difficulty
    is defined from its one solution).
    """
    from sudokustudio.survo.solve import solve_survo

    res = solve_survo(puzzle, 2)
    if not res.unique:
        raise ValueError("the puzzle has no solution" if res.count == 0 else
                         "the puzzle has more than one solution")
    return difficulty_of(puzzle, res.solution, max_states=max_states)
