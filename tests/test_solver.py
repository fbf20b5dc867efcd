import functools

import numpy as np
import pytest

from conftest import load_puzzles
from sudokustudio.sudoku.grid import is_valid_grid, parse_puzzle
from sudokustudio.sudoku.solver import (NoSolutionError, count_solutions, count_solutions_batch, solve,
                                        solve_batch, solve_with_stats)


@functools.lru_cache(maxsize=None)
def _load(path, limit=None):
    """Puzzle files are parsed once per session (parsing costs more than solving here)."""
    if limit is not None:
        return _load(path)[:limit]
    return load_puzzles(path)


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
    puzzles = _load(shared_data / name, limit)
    sols, counts, guesses = solve_batch(puzzles, 2)
    assert (counts == 1).all(), np.flatnonzero(counts != 1)[:10]
    _check_solutions(puzzles, sols)
    assert guesses.min() >= 0


def test_all_17_clue_puzzles_unique(shared_data):
    puzzles = _load(shared_data / "puzzles2_17_clue")
    assert len(puzzles) == 49158
    counts = count_solutions_batch(puzzles, 2)
    assert (counts == 1).all()


def test_all_forum_hardest_1905_unique(shared_data):
    puzzles = _load(shared_data / "puzzles5_forum_hardest_1905_11+")
    counts = count_solutions_batch(puzzles, 2)
    assert (counts == 1).all()


def test_serg_benchmark_all_multiple(shared_data):
    puzzles = _load(shared_data / "puzzles7_serg_benchmark")
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
    hard = _load(shared_data / "puzzles6_forum_hardest_1106", 20)
    _, _, guesses = solve_batch(hard, 2)
    assert guesses.max() > g


def test_bad_arguments():
    with pytest.raises(ValueError):
        count_solutions(np.zeros(80, dtype=np.uint8))
    with pytest.raises(ValueError):
        count_solutions(np.zeros(81, dtype=np.uint8), 0)


# ------------------------------------------------------------ property tests
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from sudokustudio.core.rng import seed_state  # noqa: E402
from sudokustudio.sudoku.grid import apply_transform, random_transform_kernel  # noqa: E402
from sudokustudio.sudoku.grids import random_grid  # noqa: E402
from sudokustudio.sudoku.solver import (count_solutions_kernel, is_unique_kernel,  # noqa: E402
                                        random_solution_kernel, solve_kernel)
from sudokustudio.sudoku.tables import PEERS  # noqa: E402

_PROPS = settings(max_examples=40, deadline=None,
                  suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
_HARD = ("puzzles6_forum_hardest_1106", "puzzles3_magictour_top1465", "puzzles2_17_clue")


def _reference_count(puzzle, cap=1000):
    """Plain backtracking in Python, independent of the kernel (for few empty cells)."""
    p = [int(v) for v in puzzle]
    empty = [c for c in range(81) if p[c] == 0]
    for c in range(81):
        if p[c] and any(p[q] == p[c] for q in PEERS[c]):
            return 0

    def rec(k):
        if k == len(empty):
            return 1
        c = empty[k]
        used = {p[q] for q in PEERS[c]}
        n = 0
        for d in range(1, 10):
            if d not in used:
                p[c] = d
                n += rec(k + 1)
                p[c] = 0
                if n >= cap:
                    break
        return n

    return rec(0)


def _random_transform(seed):
    dm = np.empty(10, dtype=np.uint8)
    perm = np.empty(81, dtype=np.int64)
    random_transform_kernel(seed_state(np.uint64(seed)), dm, perm)
    return dm, perm


@_PROPS
@given(seed=st.integers(0, 2**63 - 1), index=st.integers(0, 374), which=st.sampled_from(_HARD))
def test_isomorphs_have_the_transformed_solution(shared_data, seed, index, which):
    puzzles = _load(shared_data / which, 375)
    p = puzzles[index % len(puzzles)]
    dm, perm = _random_transform(seed)
    q = apply_transform(p, dm, perm)
    n, sol_p, _ = solve_with_stats(p, 3)
    m, sol_q, _ = solve_with_stats(q, 3)
    assert n == m == 1
    assert np.array_equal(sol_q, apply_transform(sol_p, dm, perm))


@_PROPS
@given(seed=st.integers(0, 2**63 - 1), holes=st.integers(0, 81))
def test_holes_in_a_grid_never_lose_it(seed, holes):
    grid = random_grid(seed)
    order = np.random.default_rng(seed).permutation(81)
    p = grid.copy()
    p[order[:holes]] = 0
    n, sol, _ = solve_with_stats(p, 2)
    assert n >= 1
    assert is_valid_grid(sol)
    assert np.array_equal(sol[p > 0], p[p > 0])
    if n == 1:
        assert np.array_equal(sol, grid)


@_PROPS
@given(seed=st.integers(0, 2**63 - 1), holes=st.integers(8, 22), limit=st.integers(1, 40),
       extra=st.integers(0, 3))
def test_count_is_min_of_true_count_and_limit(seed, holes, limit, extra):
    """Small holed grids (sometimes with wrong digits written in) against plain backtracking."""
    gen = np.random.default_rng(seed)
    p = random_grid(seed)
    p[gen.permutation(81)[:holes]] = 0
    for c in gen.permutation(81)[:extra]:  # may create a contradiction, or not
        p[c] = gen.integers(1, 10)
    true = _reference_count(p)
    assert count_solutions(p, limit) == min(true, limit)


def test_random_solutions_are_reproducible_and_valid(shared_data):
    puzzle = _load(shared_data / "puzzles7_serg_benchmark", 1)[0]
    for seed in range(30):
        for p in (np.zeros(81, dtype=np.uint8), puzzle):
            a = np.zeros(81, dtype=np.uint8)
            b = np.zeros(81, dtype=np.uint8)
            ra, rb = seed_state(np.uint64(seed)), seed_state(np.uint64(seed))
            assert random_solution_kernel(p, ra, a) == 1
            assert random_solution_kernel(p, rb, b) == 1
            assert np.array_equal(a, b) and np.array_equal(ra, rb)
            assert is_valid_grid(a) and np.array_equal(a[p > 0], p[p > 0])
    # different seeds reach different grids from the empty grid
    grids = {random_grid(seed).tobytes() for seed in range(50)}
    assert len(grids) == 50
    bad = np.zeros(81, dtype=np.uint8)
    bad[0] = bad[1] = 4
    assert random_solution_kernel(bad, seed_state(np.uint64(1)), np.zeros(81, dtype=np.uint8)) == 0


def test_singles_only_puzzle_has_no_guesses():
    easy = parse_puzzle("53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79")
    n, sol, g = solve_with_stats(easy, 2)
    assert (n, g) == (1, 0)
    full = sol.copy()
    assert solve_with_stats(full, 2)[::2] == (1, 0)


def test_batch_kernels_match_single_calls(shared_data):
    """The batch kernels reuse one work space: results must not leak between puzzles."""
    hard = _load(shared_data / "puzzles6_forum_hardest_1106", 5)
    multi = _load(shared_data / "puzzles7_serg_benchmark", 5)
    bad = np.zeros((2, 81), dtype=np.uint8)
    bad[0, 0] = bad[0, 80] = 1
    bad[0, 8] = 1  # twice in row 1
    bad[1, :9] = [1, 2, 3, 4, 5, 6, 7, 8, 0]
    bad[1, 17] = 9  # r1c9 has no candidate
    batch = np.concatenate([hard, bad[:1], multi, np.zeros((1, 81), np.uint8), bad[1:], hard[::-1]])
    for limit in (1, 2, 3):
        sols, counts, guesses = solve_batch(batch, limit)
        assert np.array_equal(count_solutions_batch(batch, limit), counts)
        for i, p in enumerate(batch):
            sol = np.zeros(81, dtype=np.uint8)
            c, g = solve_kernel(p, limit, sol)
            assert (c, g) == (counts[i], guesses[i])
            assert c == count_solutions_kernel(p, limit)
            assert np.array_equal(sol if c else np.zeros(81, np.uint8), sols[i])
    assert [is_unique_kernel(p) for p in batch[:6]] == [True] * 5 + [False]


def test_values_above_nine_rejected():
    p = np.zeros(81, dtype=np.uint8)
    p[40] = 10
    with pytest.raises(ValueError):
        count_solutions(p)
    assert count_solutions_kernel(p, 2) == 0
