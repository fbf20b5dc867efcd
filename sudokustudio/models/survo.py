"""The Survo swap board's model, Qt-free: the puzzle on the board, swaps and W, the
solutions (from the exact solver), hints, the difficulty, new graded puzzles and files.

The tab (ui/survo_tab.py) draws what this model says and sends it the
user's actions; undo is Qt's QUndoStack in the tab, whose commands call
``swap`` and ``undo_swap`` here.  Slow work (the solver, the difficulty's
sacrifice search, generating a puzzle) is a plain function of a puzzle
(``solve``, ``difficulty``, ``generate``) that the tab runs off the UI
thread; the answers come back through ``take_solutions`` and
``take_difficulty``, which ignore answers for a puzzle no longer on the
board.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from sudokustudio.survo.board import SurvoBoard, SwapRecord
from sudokustudio.survo.difficulty import LEVELS, Difficulty
from sudokustudio.survo.puzzle import SurvoPuzzle, read_survo, write_survo

__all__ = ["LEVELS", "HintText", "SurvoModel"]

#: sizes New puzzle offers (graded puzzles exist for every size 2×3 … 6×8)
MAX_ROWS, MAX_COLS = 6, 8


@dataclass(frozen=True)
class HintText:
    """What Hint shows: the text and the swap to mark (None: nothing to mark)."""

    text: str
    swap: tuple[int, int] | None


class SurvoModel:
    """State of the swap board (see the module docstring)."""

    def __init__(self):
        self.board: SurvoBoard | None = None
        self.solutions: list[np.ndarray] | None = None
        self.solution_count = 0
        self.setup_min_swaps: int | None = None
        self.difficulty_result: Difficulty | None = None
        self.difficulty_error = ""

    # ------------------------------------------------------------------ puzzles
    def load(self, puzzle: SurvoPuzzle) -> SurvoBoard:
        """Put a puzzle on the board from its setup (ValueError for a bad puzzle)."""
        puzzle.validate()
        self.board = SurvoBoard(puzzle)
        self.solutions = None
        self.solution_count = 0
        self.setup_min_swaps = None
        self.difficulty_result = None
        self.difficulty_error = ""
        return self.board

    @staticmethod
    def read(path: str | Path) -> SurvoPuzzle:
        """A puzzle from a matrix file (SurvoFormatError names the line)."""
        return read_survo(path)

    def write(self, path: str | Path) -> None:
        """Save the puzzle (not the swaps); OSError if it cannot be written."""
        write_survo(path, self.board.puzzle)

    def title(self) -> str:
        p = self.board.puzzle
        kind = "open" if p.is_open else f"{p.n_givens} givens"
        return f"{p.name or 'puzzle'} — {p.m}×{p.n}, {kind}"

    # ------------------------------------------------------------------ swaps
    def refusal(self, a: int, b: int) -> str | None:
        """Why the swap of numbers a and b cannot be made (None: it can, or nothing to do)."""
        if self.board is None or a == b:
            return ""
        if self.board.is_given_number(a) or self.board.is_given_number(b):
            return "Given numbers never move."
        return None

    def swap(self, a: int, b: int) -> SwapRecord:
        return self.board.swap(a, b)

    def undo_swap(self) -> SwapRecord:
        return self.board.undo_last()

    def reset(self) -> None:
        self.board.reset()

    def swap_rows(self) -> list[tuple[str, bool]]:
        """(label, is a sacrifice) per swap made, as /SP_SWAP lists them."""
        return [(s.label(k), s.is_sacrifice) for k, s in enumerate(self.board.swaps, start=1)]

    def sacrifices(self) -> list[tuple[int, int]]:
        """(swap number, W after) of the swaps that raised W."""
        return [(k, s.w_after) for k, s in enumerate(self.board.swaps, start=1) if s.is_sacrifice]

    # ------------------------------------------------------------------ solutions
    @staticmethod
    def solve(puzzle: SurvoPuzzle):
        """The exact solver (up to two solutions): run it off the UI thread."""
        from sudokustudio.survo.solve import solve_survo

        return solve_survo(puzzle, limit=2)

    def take_solutions(self, board: SurvoBoard, result) -> bool:
        """Adopt the solver's answer for ``board``; False (ignored) if another puzzle is loaded."""
        if board is not self.board:
            return False
        from sudokustudio.survo.solve import min_swaps_any

        self.solutions = list(result.solutions)
        self.solution_count = result.count
        if self.solutions:
            self.setup_min_swaps = min_swaps_any(self.board.start, self.solutions)[0]
        return True

    @property
    def solved_known(self) -> bool:
        return self.solutions is not None

    def min_swaps_to_solved(self) -> int:
        """The fewest swaps from the setup to a solution (the known ones and the table now)."""
        from sudokustudio.survo.solve import min_swaps_any

        b = self.board
        return min_swaps_any(b.start, list(self.solutions or []) + [b.table.copy()])[0]

    def solved_text(self) -> str:
        return f"Solved in {len(self.board.swaps)} swaps (minimum {self.min_swaps_to_solved()})"

    def hint(self) -> HintText:
        """Mate in N and one swap that brings it to N − 1 (needs the solutions)."""
        from sudokustudio.survo.solve import best_hint

        b = self.board
        if not self.solutions:
            return HintText("This puzzle has no solution.", None)
        h = best_hint(b.table, b.puzzle, self.solutions, unique=self.solution_count == 1)
        if h.moves_left == 0:
            return HintText("Solved: mate in 0.", None)
        a, c = h.swap
        return HintText(f"Mate in {h.moves_left}: swap ({a},{c}) → W = {h.w_after}", h.swap)

    def uniqueness_text(self) -> str:
        if not self.solutions:
            return "This puzzle has no solution."
        return ("The solution is unique." if self.solution_count == 1 else
                "The solution is NOT unique (at least two solutions); the first one found is shown.")

    # ------------------------------------------------------------------ difficulty
    @staticmethod
    def difficulty(puzzle: SurvoPuzzle, solution: np.ndarray) -> Difficulty:
        """Fewest swaps, sacrifices, shortest sequences, setup W, grade: off the UI thread (the
        sacrifice search may take a second)."""
        from sudokustudio.survo.difficulty import difficulty_of

        return difficulty_of(puzzle, solution)

    def difficulty_request(self) -> tuple[SurvoPuzzle, np.ndarray] | str:
        """What ``difficulty`` needs for the puzzle on the board, or why it cannot be told."""
        if self.board is None:
            return "No puzzle on the board."
        if not self.solutions:
            return "No solution: no difficulty."
        if self.solution_count != 1:
            return "Not uniquely solvable: the difficulty is defined for a unique solution."
        return self.board.puzzle.copy(), self.solutions[0].copy()

    def take_difficulty(self, board: SurvoBoard, d: Difficulty) -> bool:
        if board is not self.board:
            return False
        self.difficulty_result = d
        return True

    def difficulty_text(self) -> str:
        d = self.difficulty_result
        if d is None:
            return self.difficulty_error
        sac = ("not computed" if d.sacrifices is None else
               "none needed" if d.sacrifices == 0 else f"{d.sacrifices} needed in every shortest sequence")
        return (f"Difficulty: {d.level} — fewest swaps {d.min_swaps}, sacrifices {sac}, "
                f"{d.shortest_sequences:,} shortest sequence{'s' * (d.shortest_sequences != 1)}, setup W {d.setup_w}")

    # ------------------------------------------------------------------ info
    def info_lines(self) -> list[str]:
        from sudokustudio.survo.setup import chi_square

        b = self.board
        lines = [f"Setup W = {b.initial_w}", f"Swaps made: {len(b.swaps)}"]
        if self.setup_min_swaps is not None:
            lines.append(f"Fewest swaps from the setup: {self.setup_min_swaps}")
        if self.solutions is not None:
            lines.append("Solution: unique" if self.solution_count == 1 else
                         "Solutions: none" if self.solution_count == 0 else "Solutions: 2 or more")
        else:
            lines.append("Solving…")
        lines.append(f"χ² of the table: {chi_square(b.table):.2f}")
        if self.difficulty_result is not None or self.difficulty_error:
            lines.append(self.difficulty_text())
        return lines

    # ------------------------------------------------------------------ new puzzles
    @staticmethod
    def generate(m: int, n: int, level: str | None = None, number: int = 0, givens: int | str = "auto",
                 cancelled=lambda: False):
        """Graded puzzle ``number`` (size + level + givens + number -> always the same puzzle);
        off the UI thread.  ValueError / GenerationError name what is wrong."""
        from sudokustudio.survo.generate import graded_puzzle

        return graded_puzzle(m, n, level, number, givens, cancelled=cancelled)

    @staticmethod
    def generated_text(g) -> str:
        d = g.difficulty
        kind = "open" if g.givens == 0 else f"{g.givens} givens"
        return (f"New {g.puzzle.m}×{g.puzzle.n} puzzle #{g.number} ({kind}): {d.level}, setup W = {d.setup_w}, "
                f"fewest swaps {d.min_swaps}")
