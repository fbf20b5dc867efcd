"""Board state of the swapping method: a full table, its sums, D, W and the swaps made.

W = Σ|computed − required| over the rows and the columns (DESIGN.md).
A swap exchanges two numbers (by value, as /SP_SWAP does); a given never moves.
Plain numpy, no numba: the board is playable the moment the window shows.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sudokustudio.survo.puzzle import SurvoPuzzle


def w_of(table, row_sums, col_sums) -> int:
    """W = Σ|row sum − required| + Σ|column sum − required| (plain numpy: no compile wait)."""
    t = np.asarray(table, dtype=np.int64)
    return int(np.abs(t.sum(axis=1) - np.asarray(row_sums)).sum()
               + np.abs(t.sum(axis=0) - np.asarray(col_sums)).sum())


def swap_delta_w(table, row_sums, col_sums, a_i, a_j, b_i, b_j) -> int:
    """W after swapping cells (a_i, a_j) and (b_i, b_j), without changing ``table``."""
    t = np.array(table, dtype=np.int64)
    t[a_i, a_j], t[b_i, b_j] = t[b_i, b_j], t[a_i, a_j]
    return w_of(t, row_sums, col_sums)


@dataclass(frozen=True)
class SwapRecord:
    """One swap of the list: the two numbers (smaller first), W before and after."""

    a: int
    b: int
    w_before: int
    w_after: int

    @property
    def is_sacrifice(self) -> bool:
        """A swap that raises W (seed 001's 'sacrifice')."""
        return self.w_after > self.w_before

    def label(self, index: int) -> str:
        mark = "  sacrifice" if self.is_sacrifice else ""
        return f"{index}. ({self.a},{self.b}) W={self.w_after}{mark}"


class SurvoBoard:
    """A puzzle, the current full table and the list of swaps (no Qt)."""

    def __init__(self, puzzle: SurvoPuzzle, table: np.ndarray | None = None):
        from sudokustudio.survo.setup import puzzle_setup

        self.puzzle = puzzle
        self.start = puzzle_setup(puzzle) if table is None else np.array(table, dtype=np.int16)
        self._check_table(self.start)
        self.table = self.start.copy()
        self.swaps: list[SwapRecord] = []

    def _check_table(self, t: np.ndarray) -> None:
        p = self.puzzle
        if t.shape != (p.m, p.n):
            raise ValueError(f"table is {t.shape[0]}×{t.shape[1]}, the puzzle {p.m}×{p.n}")
        if sorted(t.ravel().tolist()) != list(range(1, p.cells + 1)):
            raise ValueError(f"the table must hold 1..{p.cells} once each")
        g = p.givens
        if np.any((g != 0) & (t != g)):
            raise ValueError("the table moves a given number")

    # ------------------------------------------------------------- sums
    @property
    def row_totals(self) -> np.ndarray:
        return self.table.sum(axis=1).astype(np.int64)

    @property
    def col_totals(self) -> np.ndarray:
        return self.table.sum(axis=0).astype(np.int64)

    @property
    def row_d(self) -> np.ndarray:
        return self.row_totals - self.puzzle.row_sums

    @property
    def col_d(self) -> np.ndarray:
        return self.col_totals - self.puzzle.col_sums

    @property
    def w(self) -> int:
        return w_of(self.table, self.puzzle.row_sums, self.puzzle.col_sums)

    @property
    def initial_w(self) -> int:
        return w_of(self.start, self.puzzle.row_sums, self.puzzle.col_sums)

    @property
    def solved(self) -> bool:
        return self.w == 0

    def w_history(self) -> list[int]:
        """W of the setup, then after each swap."""
        return [self.initial_w] + [s.w_after for s in self.swaps]

    # ------------------------------------------------------------- cells
    def position(self, number: int) -> tuple[int, int]:
        idx = np.argwhere(self.table == number)
        if len(idx) == 0:
            raise ValueError(f"number {number} is not on the board (1..{self.puzzle.cells})")
        return int(idx[0, 0]), int(idx[0, 1])

    def is_given_cell(self, i: int, j: int) -> bool:
        return bool(self.puzzle.givens[i, j] != 0)

    def is_given_number(self, number: int) -> bool:
        return bool(np.any(self.puzzle.givens == number))

    # ------------------------------------------------------------- moves
    def swap(self, a: int, b: int) -> SwapRecord:
        """Swap the numbers a and b (values, not cells); records and returns the swap."""
        if a == b:
            raise ValueError(f"cannot swap {a} with itself")
        for v in (a, b):
            if self.is_given_number(v):
                raise ValueError(f"{v} is a given number and cannot move")
        ai, aj = self.position(a)
        bi, bj = self.position(b)
        before = self.w
        self.table[ai, aj], self.table[bi, bj] = b, a
        rec = SwapRecord(min(a, b), max(a, b), before, self.w)
        self.swaps.append(rec)
        return rec

    def undo_last(self) -> SwapRecord:
        """Take back the last swap."""
        rec = self.swaps.pop()
        ai, aj = self.position(rec.a)
        bi, bj = self.position(rec.b)
        self.table[ai, aj], self.table[bi, bj] = rec.b, rec.a
        return rec

    def reset(self) -> None:
        self.table = self.start.copy()
        self.swaps.clear()

    def swap_list(self) -> list[str]:
        """The swaps in /SP_SWAP's style: '1. (5,6) W=4'."""
        return [s.label(k) for k, s in enumerate(self.swaps, start=1)]

    def report(self) -> str:
        """The table with Sum / OK / D for rows and columns and W, as seed 001 prints it."""
        return format_report(self.table, self.puzzle.row_sums, self.puzzle.col_sums)


def format_report(table, row_sums, col_sums) -> str:
    """Seed 001's layout: rows with Sum OK D, then Sum, OK, D lines and W."""
    t = np.asarray(table)
    m, n = t.shape
    rs = t.sum(axis=1)
    cs = t.sum(axis=0)
    w = w_of(t, row_sums, col_sums)
    lines = [" " * (3 * n) + "  Sum  OK   D"]
    for i in range(m):
        cells = "".join(f"{int(v):3d}" for v in t[i])
        lines.append(f"{cells}  {int(rs[i]):3d} {int(row_sums[i]):3d} {int(rs[i] - row_sums[i]):3d}")
    lines.append("".join(f"{int(v):3d}" for v in cs) + "  Sum")
    lines.append("".join(f"{int(v):3d}" for v in col_sums) + "  OK")
    lines.append("".join(f"{int(cs[j] - col_sums[j]):3d}" for j in range(n)) + f"  D   W={w}")
    return "\n".join(lines)
