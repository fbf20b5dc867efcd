import numpy as np
import pytest

from conftest import load_puzzles
from sudokustudio.sudoku.grid import is_valid_grid, parse_puzzle
from sudokustudio.sudoku.solver import (NoSolutionError, count_solutions, count_solutions_batch, solve,
                                        solve_batch, solve_with_stats)


def _check_solutions(puzzles, sols):
    for p, s in zip(puzzles, sols):
        assert is_valid_grid(s)
        given = p > 0
        assert np.array_equal(s[given], p[given])


@pytest.mark.parametrize("name,limit", [
    ("puzzles2_17_clue", 6000),
    ("puzzles6_forum_hardest_1106", None),
    ("puzzles5_forum_hardest_1905_11+", 3000),
    ("puzzles3_magictour_top1465", None),
])
def test_known_unique_sets(shared_data, name, limit):
    puzzles = load_puzzles(shared_data / name, limit)
    sols, counts, guesses = solve_batch(puzzles, 2)
    assert (counts == 1).all(), np.flatnonzero(counts != 1)[:10]
    _check_solutions(puzzles, sols)
    assert guesses.min() >= 0


def test_all_17_clue_puzzles_unique(shared_data):
    puzzles = load_puzzles(shared_data / "puzzles2_17_clue")
    assert len(puzzles) == 49158
    counts = count_solutions_batch(puzzles, 2)
    assert (counts == 1).all()


def test_all_forum_hardest_1905_unique(shared_data):
    puzzles = load_puzzles(shared_data / "puzzles5_forum_hardest_1905_11+")
    counts = count_solutions_batch(puzzles, 2)
    assert (counts == 1).all()


def test_serg_benchmark_all_multiple(shared_data):
    puzzles = load_puzzles(shared_data / "puzzles7_serg_benchmark")
    assert len(puzzles) == 10000
    sols, counts, _ = solve_batch(puzzles, 2)
    assert (counts == 2).all()
    _check_solutions(puzzles, sols)


def test_contradictory_givens_have_no_solution():
    p = np.zeros(81, dtype=np.uint8)
    p[0] = p[5] = 7  # same digit twice in row 1
    assert count_solutions(p, 2) == 0
    with pytest.raises(NoSolutionError):
        solve(p)
    q = np.zeros(81, dtype=np.uint8)
    q[0] = q[20] = 3  # twice in box 1
    assert count_solutions(q, 5) == 0


def test_no_solution_without_direct_contradiction():
    # row 1 misses only 9 but column 9 already holds a 9: no direct repeat
    p = parse_puzzle("12345678." + "........9" + "." * 63)
    assert count_solutions(p, 2) == 0


@pytest.mark.parametrize("limit", [1, 2, 3, 17, 100])
def test_empty_grid_respects_limit(limit):
    assert count_solutions(np.zeros(81, dtype=np.uint8), limit) == limit


def test_exact_small_counts():
    # a grid with a unique-rectangle hole: two cells pairs removed -> exactly 2 solutions
    grid = parse_puzzle("123456789456789123789123456214365897365897214897214365531642978642978531978531642")
    assert count_solutions(grid, 2) == 1
    holed = grid.copy()
    # cells r1c1,r1c2 (1,2) and r4c1,r4c2 (2,1) form a deadly pattern
    for cell in (0, 1, 27, 28):
        holed[cell] = 0
    assert count_solutions(holed, 10) == 2


def test_solve_with_stats_reports_guesses(shared_data):
    easy = parse_puzzle("53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79")
    n, sol, g = solve_with_stats(easy)
    assert n == 1 and sol is not None
    hard = load_puzzles(shared_data / "puzzles6_forum_hardest_1106", 20)
    _, _, guesses = solve_batch(hard, 2)
    assert guesses.max() > g


def test_bad_arguments():
    with pytest.raises(ValueError):
        count_solutions(np.zeros(80, dtype=np.uint8))
    with pytest.raises(ValueError):
        count_solutions(np.zeros(81, dtype=np.uint8), 0)
