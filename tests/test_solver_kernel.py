"""The solver kernel against the pre-issue-19 kernel (tests/reference_solver.py): same
solution counts at limits 1, 2 and 3 on every shared puzzle set and on 100,000 random
subsets of random grids (some with wrong digits written in)."""
import functools

import numpy as np
import pytest
from numba import njit

import reference_solver
from conftest import load_puzzles
from sudokustudio.core.rng import seed_state
from sudokustudio.sudoku import solver
from sudokustudio.sudoku.grid import is_valid_grid
from sudokustudio.sudoku.solver import (count_solutions, count_solutions_batch, count_solutions_batch_kernel,
                                        other_solution_kernel, random_solution_kernel, solve_batch)

SETS = [
    "puzzles2_17_clue",
    "puzzles3_magictour_top1465",
    "puzzles5_forum_hardest_1905_11+",
    "puzzles6_forum_hardest_1106",
    "puzzles7_serg_benchmark",
    "controlled_bias/001-puzzles.txt",
]


@functools.cache
def _load(path):
    """The puzzles of a shared file, read with numpy (the checked parser is slow on 49,158
    lines; the first 300 puzzles are compared with it)."""
    lines = [ln.strip() for ln in path.read_bytes().splitlines()]
    rows = [ln[:81] for ln in lines if ln and not ln.startswith(b"#")]
    raw = np.frombuffer(b"".join(rows), dtype=np.uint8).reshape(-1, 81)
    puzzles = np.where((raw >= ord("1")) & (raw <= ord("9")), raw - ord("0"), 0).astype(np.uint8)
    assert np.array_equal(puzzles[:300], load_puzzles(path, 300))
    return puzzles


def _counts(module, puzzles, limit):
    counts = np.zeros(len(puzzles), dtype=np.int64)
    module.count_solutions_batch_kernel(np.ascontiguousarray(puzzles), limit, counts)
    return counts


def reference_solver_count(p, limit=3):
    return int(_counts(reference_solver, p[None, :], limit)[0])


def _assert_same_counts(puzzles, limits=(1, 2, 3)):
    for limit in limits:
        new = _counts(solver, puzzles, limit)
        old = _counts(reference_solver, puzzles, limit)
        bad = np.flatnonzero(new != old)
        assert bad.size == 0, (limit, bad[:5], new[bad[:5]], old[bad[:5]])


@pytest.mark.parametrize("name", SETS)
def test_counts_agree_with_reference_on_shared_sets(shared_data, name):
    puzzles = _load(shared_data / name)
    # every puzzle at limit 2, one in seven at limits 1 and 3 (the 48,765 hardest puzzles
    # take ~40 s of CPU per limit and kernel)
    _assert_same_counts(puzzles, (2,))
    _assert_same_counts(puzzles[::7], (1, 3))


def _random_grids(n, seed):
    grids = np.zeros((n, 81), dtype=np.uint8)
    rng = seed_state(np.uint64(seed))
    empty = np.zeros(81, dtype=np.uint8)
    for i in range(n):
        assert random_solution_kernel(empty, rng, grids[i]) == 1
    return grids


def _random_subsets(grids, n, gen, with_pick=False):
    """n puzzles: random subsets (17..81 clues, most 20..40) of random grids; one in
    eight gets 1-3 cells overwritten with a random digit (contradictions, no solution,
    or other solutions).  ``with_pick``: also the grid index of each."""
    pick = gen.integers(0, len(grids), n)
    sizes = np.clip(np.rint(gen.normal(30, 8, n)), 17, 81).astype(np.int64)
    ranks = np.argsort(gen.random((n, 81)), axis=1)
    keep = ranks < sizes[:, None]
    puzzles = np.where(keep, grids[pick], 0).astype(np.uint8)
    wrong = np.flatnonzero(gen.random(n) < 0.125)
    for i in wrong:
        cells = gen.choice(81, gen.integers(1, 4), replace=False)
        puzzles[i, cells] = gen.integers(1, 10, len(cells))
    return (puzzles, pick) if with_pick else puzzles


def test_counts_agree_with_reference_on_100000_random_subsets():
    grids = _random_grids(2000, 19)
    assert all(is_valid_grid(g) for g in grids[:200])
    gen = np.random.default_rng(19)
    puzzles = _random_subsets(grids, 100_000, gen)
    _assert_same_counts(puzzles)
    # the sample covers every outcome
    counts = count_solutions_batch(puzzles, 3)
    assert set(np.unique(counts)) == {0, 1, 2, 3}


def test_first_solutions_are_solutions_of_random_subsets():
    grids = _random_grids(200, 7)
    puzzles = _random_subsets(grids, 5000, np.random.default_rng(7))
    sols, counts, _ = solve_batch(puzzles, 2)
    for p, s, c in zip(puzzles, sols, counts):
        if c:
            assert is_valid_grid(s) and np.array_equal(s[p > 0], p[p > 0])
        else:
            assert not s.any()


def test_other_solution_of_random_subsets():
    """"A solution other than the grid": exists exactly when the reference counts 2+
    solutions of a subset of the grid (1+ when wrong digits were written in), and the
    one returned is a solution of the puzzle that differs from the grid."""
    grids = _random_grids(300, 23)
    gen = np.random.default_rng(23)
    puzzles, owner = _random_subsets(grids, 20_000, gen, with_pick=True)
    counts = _counts(reference_solver, puzzles, 3)
    other = np.zeros(81, dtype=np.uint8)
    for p, g, c in zip(puzzles, grids[owner], counts):
        n = other_solution_kernel(p, g, other)
        from_grid = np.array_equal(p[p > 0], g[p > 0])
        assert n == int(c >= (2 if from_grid else 1))
        if n:
            assert is_valid_grid(other) and np.array_equal(other[p > 0], p[p > 0])
            assert not np.array_equal(other, g)


def test_one_workspace_asked_about_many_grids_answers_as_fresh_ones():
    """A workspace keeps the avoided grid's words between questions; asked about subsets of 300
    grids in random order (the grid changes at almost every question), with and without a cell
    that must differ, it answers as a fresh workspace each time, down to the solution found."""
    grids = _random_grids(300, 29)
    gen = np.random.default_rng(29)
    puzzles, owner = _random_subsets(grids, 6_000, gen, with_pick=True)
    workspace = solver.new_search_workspace()
    kept, fresh = np.zeros(81, np.uint8), np.zeros(81, np.uint8)
    differing = 0
    for i, (p, g) in enumerate(zip(puzzles, grids[owner])):
        cell = int(np.flatnonzero(p)[0]) if i % 2 and p.any() else -1
        q = p.copy()
        if cell >= 0:
            q[cell] = 0
        n = solver.other_solution_differing_in(q, g, cell, kept, workspace)
        assert n == solver.other_solution_differing_kernel(q, g, cell, fresh)
        assert not n or np.array_equal(kept, fresh)
        differing += n and cell >= 0
    assert differing > 100


def test_contradictory_givens_of_every_kind():
    """Two equal givens in a row, a column (same band and across bands) or a box;
    a cell whose peers hold all nine digits."""
    cases = []
    for a, b in [(0, 8), (0, 9 * 8), (4, 9 * 2 + 4), (30, 9 * 8 + 3), (0, 20), (40, 50), (80, 60)]:
        p = np.zeros(81, dtype=np.uint8)
        p[a] = p[b] = 5
        cases.append(p)
    p = np.zeros(81, dtype=np.uint8)
    p[1:9] = [1, 2, 3, 4, 5, 6, 7, 8]
    p[9 * 4] = 9  # r1c1 sees 1..8 in its row and 9 in its column
    cases.append(p)
    for p in cases:
        assert count_solutions(p, 3) == 0
        assert reference_solver_count(p) == 0


def test_no_solution_without_a_direct_contradiction():
    # digit 1 placed so that box 1 has no cell left for it (rows 1-3 and columns 1-3 blocked)
    p = np.zeros(81, dtype=np.uint8)
    p[3] = 1          # r1c4
    p[9 + 6] = 1      # r2c7
    p[2 * 9 + 0] = 2  # r3c1
    p[2 * 9 + 1] = 3  # r3c2
    p[2 * 9 + 2] = 4  # r3c3: row 3 of box 1 full, rows 1-2 blocked for 1
    assert count_solutions(p, 2) == 0
    assert reference_solver_count(p, 2) == 0
    # a full grid with two cells swapped: no solution, found by propagation
    grid = _random_grids(1, 3)[0]
    bad = grid.copy()
    bad[0], bad[1] = bad[1], bad[0]
    assert count_solutions(bad, 2) == 0


def test_values_above_nine_and_batch_work_space():
    p = np.zeros((3, 81), dtype=np.uint8)
    p[1, 40] = 10
    counts = np.zeros(3, dtype=np.int64)
    count_solutions_batch_kernel(p, 2, counts)
    assert counts.tolist() == [2, 0, 2]


@njit(cache=False)
def _open_after_root_propagation(puzzle, st):
    """Cells left open by the root propagation (-1: contradiction), as _search sees them."""
    if not solver._init_state(puzzle, st):
        return -1
    if not solver._propagate(st, 0, np.int64(solver.FULL27), np.int64(0x1FF), False):
        return -1
    n = 0
    for b in range(3):
        u = st[0, solver._U + b]
        while u:
            u &= u - 1
            n += 1
    return n


def test_hard_puzzles_take_the_triad_search_and_agree_with_reference(shared_data):
    """Subsets of 18-24 clues of random grids (many solutions), forum_hardest puzzles
    with one given changed (none, or a direct contradiction) and as they are (one)
    mostly leave HARD_CELLS or more cells open at the root, so they run _search_triads
    (minirow rule, configuration branches): counts at limits 1-3 as the reference's,
    first solutions valid."""
    grids = _random_grids(300, 41)
    gen = np.random.default_rng(41)
    n = 4000
    pick = gen.integers(0, len(grids), n)
    keep = np.argsort(gen.random((n, 81)), axis=1) < gen.integers(18, 25, n)[:, None]
    sparse = np.where(keep, grids[pick], 0).astype(np.uint8)
    forum = _load(shared_data / "puzzles6_forum_hardest_1106")
    changed = forum.copy()
    for p in changed:
        c = gen.choice(np.flatnonzero(p))
        p[c] = 1 + (p[c] + gen.integers(0, 8)) % 9
    puzzles = np.concatenate([sparse, changed, forum[:100]])
    st = solver.new_search_stack()
    hard = np.array([_open_after_root_propagation(p, st) >= solver.HARD_CELLS for p in puzzles])
    assert hard[:n].mean() > 0.9 and hard[n:-100].mean() > 0.3 and hard[-100:].all()
    puzzles = puzzles[hard]
    _assert_same_counts(puzzles)
    sols, counts, _ = solve_batch(puzzles, 2)
    assert set(np.unique(counts)) == {0, 1, 2}
    for p, s, c in zip(puzzles, sols, counts):
        assert (c > 0) == (is_valid_grid(s) and np.array_equal(s[p > 0], p[p > 0]))
