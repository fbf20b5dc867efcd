"""The Survo board's model without Qt: swaps, W, solutions, hints, difficulty, graded puzzles."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from sudokustudio.models.survo import SurvoModel
from sudokustudio.survo.puzzle import SurvoPuzzle

RES = Path(__file__).resolve().parent.parent / "resources" / "survo"


@pytest.fixture
def model():
    m = SurvoModel()
    m.load(m.read(RES / "worked_example.mat"))
    return m


def test_swaps_w_and_undo(model):
    b = model.board
    assert b.w == 6 and model.info_lines()[:2] == ["Setup W = 6", "Swaps made: 0"]
    assert "Solving…" in model.info_lines()
    assert model.refusal(5, 5) == "" and model.refusal(5, 6) is None
    model.swap(5, 6)
    assert model.swap_rows() == [("1. (5,6) W=4", False)] and b.w == 4
    model.undo_swap()
    assert b.w == 6 and model.swap_rows() == []
    model.swap(5, 6)
    model.swap(7, 8)
    assert b.solved
    model.reset()
    assert b.w == 6 and b.swaps == []


def test_given_numbers_refused():
    sol = np.array([[1, 3, 4, 6], [2, 7, 9, 10], [5, 11, 13, 15], [8, 12, 14, 16]])
    mask = np.zeros((4, 4), bool)
    mask[0, 0] = True
    m = SurvoModel()
    m.load(SurvoPuzzle.from_solution(sol, mask))
    assert m.refusal(1, 3) == "Given numbers never move."
    assert "1 givens" in m.title()


def test_solutions_hint_solved_text_and_stale_answers(model):
    board = model.board
    result = SurvoModel.solve(board.puzzle)
    other = SurvoModel()
    other.load(board.puzzle.copy())
    assert not model.take_solutions(other.board, result)   # an answer for another board is ignored
    assert model.solutions is None
    assert model.take_solutions(board, result)
    assert model.solution_count == 1 and model.setup_min_swaps == 2
    assert "Solution: unique" in model.info_lines() and "Fewest swaps from the setup: 2" in model.info_lines()
    h = model.hint()
    assert h.text.startswith("Mate in 2: swap (5,6)") and h.swap == (5, 6)
    assert model.uniqueness_text() == "The solution is unique."
    model.swap(5, 6)
    model.swap(9, 10)
    model.swap(9, 10)
    model.swap(7, 8)
    assert model.solved_text() == "Solved in 4 swaps (minimum 2)"
    assert model.hint().text == "Solved: mate in 0." and model.hint().swap is None


def test_difficulty_request_and_text(model):
    assert model.difficulty_request() == "No solution: no difficulty."
    board = model.board
    model.take_solutions(board, SurvoModel.solve(board.puzzle))
    puzzle, solution = model.difficulty_request()
    d = SurvoModel.difficulty(puzzle, solution)
    assert (d.min_swaps, d.sacrifices, d.setup_w, d.level) == (2, 0, 6, "easy")
    assert d.shortest_sequences == 2   # two disjoint 2-cycles: 2! orders
    assert model.take_difficulty(board, d)
    assert model.difficulty_text() == ("Difficulty: easy — fewest swaps 2, sacrifices none needed, "
                                       "2 shortest sequences, setup W 6")
    assert model.info_lines()[-1] == model.difficulty_text()
    model.load(board.puzzle.copy())
    assert model.difficulty_result is None and not model.take_difficulty(board, d)


def test_not_unique_has_no_difficulty():
    m = SurvoModel()
    m.load(SurvoPuzzle([5, 5], [4, 6]))   # tied row sums: the two rows swap
    m.take_solutions(m.board, SurvoModel.solve(m.board.puzzle))
    assert m.solution_count == 2
    assert "Not uniquely solvable" in m.difficulty_request()


def test_generate_is_graded_and_reproducible():
    g = SurvoModel.generate(3, 4, "medium", number=5)
    assert g.difficulty.level == "medium" and g.puzzle.m == 3 and g.puzzle.n == 4
    again = SurvoModel.generate(3, 4, "medium", number=5)
    assert again.puzzle == g.puzzle
    assert SurvoModel.generated_text(g).startswith("New 3×4 puzzle #5")
    from sudokustudio.survo.generate import GenerationError

    with pytest.raises(GenerationError, match="cancelled"):
        SurvoModel.generate(3, 4, "hard", number=1, cancelled=lambda: True)
