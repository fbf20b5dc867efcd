"""Survo model: seed 001's worked examples, formats, setup, solver, minimum swaps, generator."""
from __future__ import annotations

import itertools
import math
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from sudokustudio.survo.board import SurvoBoard, swap_delta_w, w_of
from sudokustudio.survo.puzzle import SurvoFormatError, SurvoPuzzle, parse_survo, read_survo, write_survo
from sudokustudio.survo.setup import chi_square, givens_setup, product_setup, products_table
from sudokustudio.survo.solve import (best_hint, count_solutions, min_swaps, reducing_swaps, solve_kernel,
                                      solve_other_kernel, solve_survo, swap_distribution, swap_moments)

RES = Path(__file__).resolve().parent.parent / "resources" / "survo"


def P(rows, cols, givens=None):
    return SurvoPuzzle(rows, cols, givens)


WORKED = P([14, 28, 44, 50], [16, 33, 40, 47])
SACRIFICE = P([49, 39, 33, 15], [49, 43, 29, 15])


# ------------------------------------------------------------- worked example
def test_worked_example_products_setup_and_w_as_printed():
    assert products_table(WORKED.row_sums, WORKED.col_sums).tolist() == [
        [224, 462, 560, 658], [448, 924, 1120, 1316], [704, 1452, 1760, 2068], [800, 1650, 2000, 2350]]
    setup = product_setup(WORKED.row_sums, WORKED.col_sums)
    assert setup.tolist() == [[1, 3, 4, 5], [2, 8, 9, 10], [6, 11, 13, 15], [7, 12, 14, 16]]
    b = SurvoBoard(WORKED)
    assert b.row_totals.tolist() == [13, 29, 45, 49] and b.row_d.tolist() == [-1, 1, 1, -1]
    assert b.col_totals.tolist() == [16, 34, 40, 46] and b.col_d.tolist() == [0, 1, 0, -1]
    assert b.w == 6


def test_worked_example_two_swaps_as_printed():
    b = SurvoBoard(WORKED)
    b.swap(5, 6)
    assert b.table.tolist() == [[1, 3, 4, 6], [2, 8, 9, 10], [5, 11, 13, 15], [7, 12, 14, 16]]
    assert b.col_d.tolist() == [-1, 1, 0, 0] and b.w == 4
    b.swap(7, 8)
    assert b.table.tolist() == [[1, 3, 4, 6], [2, 7, 9, 10], [5, 11, 13, 15], [8, 12, 14, 16]]
    assert b.w == 0 and b.solved
    assert b.w_history() == [6, 4, 0]
    assert b.swap_list() == ["1. (5,6) W=4", "2. (7,8) W=0"]
    res = solve_survo(WORKED, 2)
    assert res.unique and np.array_equal(res.solution, b.table)
    assert min_swaps(b.start, res.solution) == 2


def test_report_layout_shows_sum_ok_d_and_w():
    text = SurvoBoard(WORKED).report()
    assert "Sum  OK   D" in text and text.rstrip().endswith("W=6")
    assert "  1  3  4  5   13  14  -1" in text


# ------------------------------------------------------------- S0..S5, sacrifice
@pytest.mark.parametrize("name,swaps", [("S0", 0), ("S1", 3), ("S2", 4)])
def test_s0_s2_minimum_swaps_from_product_setup(name, swaps):
    p = read_survo(RES / f"{name}.mat")
    res = solve_survo(p, 2)
    assert res.unique
    assert min_swaps(product_setup(p.row_sums, p.col_sums), res.solution) == swaps


@pytest.mark.parametrize("name", ["S3", "S4", "S5", "worked_example", "harder_example", "sacrifice_example"])
def test_shipped_puzzles_are_uniquely_solved(name):
    p = read_survo(RES / f"{name}.mat")
    res = solve_survo(p, 5)
    assert res.count == 1 and res.complete
    s = res.solution
    assert s.sum(axis=1).tolist() == p.row_sums.tolist() and s.sum(axis=0).tolist() == p.col_sums.tolist()
    assert sorted(s.ravel().tolist()) == list(range(1, p.cells + 1))


def test_harder_example_takes_five_swaps():
    p = read_survo(RES / "harder_example.mat")
    assert min_swaps(product_setup(p.row_sums, p.col_sums), solve_survo(p).solution) == 5


def test_sacrifice_puzzle_as_printed():
    b = SurvoBoard(SACRIFICE)
    assert b.table.tolist() == [[16, 15, 11, 7], [14, 13, 9, 4], [12, 10, 8, 3], [6, 5, 2, 1]]
    assert b.row_d.tolist() == [0, 1, 0, -1] and b.col_d.tolist() == [-1, 0, 1, 0] and b.w == 4
    b.swap(2, 3)
    b.swap(7, 8)
    assert b.table.tolist() == [[16, 15, 11, 8], [14, 13, 9, 4], [12, 10, 7, 2], [6, 5, 3, 1]]
    assert b.row_totals.tolist() == [50, 40, 31, 15] and b.w == 6
    b.swap(12, 13)
    b.swap(10, 11)
    assert b.table.tolist() == [[16, 15, 10, 8], [14, 12, 9, 4], [13, 11, 7, 2], [6, 5, 3, 1]]
    hist = b.w_history()
    assert hist[0] == 4 and hist[2] == 6 and hist[-1] == 0 and len(hist) == 5
    assert any(s.is_sacrifice for s in b.swaps[:2])
    res = solve_survo(SACRIFICE)
    assert res.unique and min_swaps(b.start, res.solution) == 4


# ------------------------------------------------------------- random permutations of 16
PRINTED = {15: 1307674368000, 14: 4339163001600, 13: 6165817614720, 12: 5056995703824,
           11: 2706813345600, 10: 1009672107080, 9: 272803210680, 8: 54631129553, 7: 8207628000,
           6: 928095740, 5: 78558480, 4: 4899622, 3: 218400, 2: 6580, 1: 120, 0: 1}


def test_swap_distribution_of_random_permutation_of_16_as_printed():
    dist = swap_distribution(16)
    assert dist == PRINTED
    assert sum(dist.values()) == math.factorial(16) == 20922789888000
    mean, var = swap_moments(16)
    assert mean == 16 - sum(Fraction(1, k) for k in range(1, 17))  # 16 − H16
    assert float(mean) == pytest.approx(12.619271006771, abs=1e-12)
    assert math.sqrt(var) == pytest.approx(1.3402919308079, abs=1e-9)
    assert float(var + mean * mean) == pytest.approx(161.04238320212, abs=1e-9)  # printed S2


def test_swap_distribution_matches_brute_force_for_6():
    counts = {}
    ident = np.arange(1, 7, dtype=np.int16).reshape(2, 3)
    for perm in itertools.permutations(range(1, 7)):
        s = min_swaps(np.array(perm, dtype=np.int16).reshape(2, 3), ident)
        counts[s] = counts.get(s, 0) + 1
    assert counts == swap_distribution(6)


# ------------------------------------------------------------- minimum swaps, hints
def test_min_swaps_and_reducing_swaps_agree_with_bfs():
    rng = np.random.default_rng(7)
    sol = np.arange(1, 7, dtype=np.int16).reshape(2, 3)
    # BFS distances over all 720 tables
    start = tuple(sol.ravel())
    dist = {start: 0}
    frontier = [start]
    while frontier:
        nxt = []
        for t in frontier:
            for a, b in itertools.combinations(range(6), 2):
                u = list(t)
                u[a], u[b] = u[b], u[a]
                u = tuple(u)
                if u not in dist:
                    dist[u] = dist[t] + 1
                    nxt.append(u)
        frontier = nxt
    for _ in range(40):
        t = rng.permutation(6).astype(np.int16).reshape(2, 3) + 1
        d = dist[tuple(t.ravel())]
        assert min_swaps(t, sol) == d
        for a, b in reducing_swaps(t, sol):
            u = t.copy()
            u[t == a], u[t == b] = b, a
            assert dist[tuple(u.ravel())] == d - 1


def test_hint_mate_in_n_and_its_swap():
    b = SurvoBoard(WORKED)
    res = solve_survo(WORKED)
    h = best_hint(b.table, WORKED, res.solutions)
    assert h.moves_left == 2 and h.swap == (5, 6) and h.w_after == 4
    b.swap(*h.swap)
    h2 = best_hint(b.table, WORKED, res.solutions)
    assert h2.moves_left == 1 and h2.swap == (7, 8)


# ------------------------------------------------------------- solver
def _brute_count(p: SurvoPuzzle) -> int:
    c = 0
    for perm in itertools.permutations(range(1, p.cells + 1)):
        t = np.array(perm).reshape(p.m, p.n)
        if (np.all(t.sum(axis=1) == p.row_sums) and np.all(t.sum(axis=0) == p.col_sums)
                and np.all((p.givens == 0) | (t == p.givens))):
            c += 1
    return c


def test_solver_counts_match_brute_force_on_2x3_and_3x2():
    rng = np.random.default_rng(11)
    for shape in ((2, 3), (3, 2), (2, 3), (3, 2)):
        t = (rng.permutation(6) + 1).reshape(shape)
        for k in (0, 1):
            mask = np.zeros(6, bool)
            mask[rng.choice(6, k, replace=False)] = True
            p = SurvoPuzzle.from_solution(t, mask.reshape(shape))
            res = solve_survo(p, 1000)
            assert res.count == _brute_count(p)
            assert any(np.array_equal(s, t) for s in res.solutions)


def test_solver_finds_the_hidden_table_and_respects_limit():
    rng = np.random.default_rng(3)
    for m, n, k in ((4, 4, 0), (4, 5, 2), (5, 5, 4), (3, 6, 1)):
        t = (rng.permutation(m * n) + 1).reshape(m, n).astype(np.int16)
        mask = np.zeros(m * n, bool)
        mask[rng.choice(m * n, k, replace=False)] = True
        p = SurvoPuzzle.from_solution(t, mask.reshape(m, n))
        res = solve_survo(p, 3)
        assert 1 <= res.count <= 3
        for s in res.solutions:
            assert s.sum(axis=1).tolist() == p.row_sums.tolist()
            assert s.sum(axis=0).tolist() == p.col_sums.tolist()
            assert np.all((p.givens == 0) | (s == p.givens))
            assert sorted(s.ravel().tolist()) == list(range(1, m * n + 1))


def test_solver_knowing_a_solution_returns_exactly_the_others():
    rng = np.random.default_rng(5)
    for m, n, k in ((3, 3, 0), (2, 4, 0), (3, 4, 0), (3, 4, 2), (4, 4, 3)):
        for _ in range(6):
            t = (rng.permutation(m * n) + 1).reshape(m, n).astype(np.int16)
            mask = np.zeros(m * n, bool)
            mask[rng.choice(m * n, k, replace=False)] = True
            p = SurvoPuzzle.from_solution(t, mask.reshape(m, n))
            r, c, g = (np.asarray(p.row_sums, np.int64), np.asarray(p.col_sums, np.int64),
                       np.asarray(p.givens, np.int16))
            every = np.zeros((5000, m, n), np.int16)
            count, _ = solve_kernel(r, c, g, 5000, -1, every)
            others = np.zeros((5000, m, n), np.int16)
            n_others, _ = solve_other_kernel(r, c, g, 5000, -1, others, t)
            assert 1 <= count < 5000 and n_others == count - 1
            want = sorted(s.tobytes() for s in every[:count] if not np.array_equal(s, t))
            assert sorted(s.tobytes() for s in others[:n_others]) == want
            # limit 1: stops at the first other solution, or proves the known one unique
            assert solve_other_kernel(r, c, g, 1, -1, others[:1], t)[0] == min(1, count - 1)


def test_unsolvable_puzzle_has_no_solution():
    # sums valid in total, but row 1 must hold {1, 2} = 3 while column sums force otherwise
    p = P([3, 7], [3, 7], [[0, 0], [0, 4]])
    assert count_solutions(p, 2) == 0


# ------------------------------------------------------------- setup rules
def test_product_setup_tie_rule():
    # all products equal along the anti-diagonal pattern: ties by row sum, column sum, row-major
    t = product_setup([10, 10], [10, 10])
    assert t.tolist() == [[1, 2], [3, 4]]
    t = product_setup([12, 8], [10, 10])  # smaller row sum first
    assert t.tolist() == [[3, 4], [1, 2]]
    t = product_setup([6, 12], [8, 4, 6])  # products equal: 6*8=48=12*4 -> row sum 6 first
    prods = np.outer([6, 12], [8, 4, 6])
    assert prods[0, 0] == prods[1, 1] and t[0, 0] < t[1, 1]


def test_givens_setup_keeps_givens_and_equals_product_rule_when_open():
    assert np.array_equal(givens_setup(WORKED.row_sums, WORKED.col_sums, np.zeros((4, 4), np.int16)),
                          product_setup(WORKED.row_sums, WORKED.col_sums))
    g = np.zeros((4, 4), np.int16)
    g[0, 3], g[2, 1] = 6, 11
    t = givens_setup(WORKED.row_sums, WORKED.col_sums, g)
    assert t[0, 3] == 6 and t[2, 1] == 11 and sorted(t.ravel().tolist()) == list(range(1, 17))


def test_givens_setup_beats_a_random_fill():
    """Mean W of the generalised setup vs a random fill of the free cells (same puzzles)."""
    rng = np.random.default_rng(2024)
    ws_setup, ws_random = [], []
    for _ in range(300):
        m, n = 4, 4
        t = (rng.permutation(16) + 1).reshape(m, n)
        mask = np.zeros(16, bool)
        mask[rng.choice(16, 3, replace=False)] = True
        p = SurvoPuzzle.from_solution(t, mask.reshape(m, n))
        s = givens_setup(p.row_sums, p.col_sums, p.givens)
        ws_setup.append(w_of(s, p.row_sums, p.col_sums))
        free_vals = rng.permutation(t[~mask.reshape(m, n)])
        r = p.givens.copy()
        r[p.givens == 0] = free_vals
        ws_random.append(w_of(r, p.row_sums, p.col_sums))
    a, b = np.array(ws_setup, float), np.array(ws_random, float)
    diff = b - a
    se = diff.std(ddof=1) / np.sqrt(len(diff))
    assert diff.mean() > 5 * se  # far more than chance
    assert a.mean() < 0.6 * b.mean()


def test_chi_square_matches_formula():
    t = np.array([[1, 3, 4, 6], [2, 7, 9, 10], [5, 11, 13, 15], [8, 12, 14, 16]])
    e = np.outer(t.sum(1), t.sum(0)) / t.sum()
    assert chi_square(t) == pytest.approx(((t - e) ** 2 / e).sum(), rel=1e-12)
    assert chi_square(t.astype(np.float64)) < 9  # seed 001: below the 9 degrees of freedom


def test_w_and_swap_delta():
    t = product_setup(WORKED.row_sums, WORKED.col_sums)
    assert w_of(t, WORKED.row_sums, WORKED.col_sums) == 6
    # swapping 5 and 6 (cells (0, 3) and (2, 0)) gives seed 001's W = 4; the table is unchanged
    assert swap_delta_w(t, WORKED.row_sums, WORKED.col_sums, 0, 3, 2, 0) == 4 and t[0, 3] == 5


# ------------------------------------------------------------- formats
def test_matrix_format_round_trip(tmp_path):
    g = np.zeros((4, 4), np.int16)
    g[1, 2] = 9
    p = P([14, 28, 44, 50], [16, 33, 40, 47], g)
    text = p.to_matrix_text()
    assert text.splitlines()[0] == "MAT SAVE AS A"
    assert text.splitlines()[2] == "0 0 9 0 28" and text.splitlines()[-1] == "16 33 40 47 0"
    assert parse_survo(text) == p
    assert parse_survo("\n".join(text.splitlines()[1:])) == p  # header optional
    assert parse_survo(p.to_plain_text()) == p
    f = tmp_path / "x.mat"
    write_survo(f, p)
    assert read_survo(f) == p


def test_plain_form_of_seed():
    p = parse_survo("* * * * 14\n* * * * 28\n* * * * 44\n* * * * 50\n16 33 40 47\n")
    assert p == WORKED


@pytest.mark.parametrize("text,fragment", [
    ("0 0 14\n0 0 28\n16 33 0\n", "line 1: row sum 14 is outside 1..10"),
    ("0 0 4\n0 0 4\n4 6 0\n", "row sums total 8, expected 10"),
    ("0 0 3\n0 0 7\n4 6 5\n", "line 3: the corner of the last line must be 0"),
    ("0 0 3\n0 0 0 7\n4 6 0\n", "line 2: 4 numbers, expected 3"),
    ("0 x 3\n0 0 7\n4 6 0\n", "line 1: 'x' is not a whole number"),
    ("1 1 3\n0 0 7\n4 6 0\n", "given 1 appears twice"),
    ("0 9 3\n0 0 7\n4 6 0\n", "line 1: number 9 in column 2 is outside 0..4"),
    ("0 0 3\n0 0 7\n4 6 1 2 0\n", "line 3: the column-sum line has 5 numbers"),
    ("0 0 3\n", "need at least 3"),
    ("0 3 3\n0 0 7\n4 6 0\n", "row 1: 1 free cells cannot add up to the remaining 0"),
])
def test_format_errors_name_line_and_problem(text, fragment):
    with pytest.raises(SurvoFormatError) as ei:
        parse_survo(text)
    assert fragment in str(ei.value)


def test_given_cannot_move():
    p = SurvoPuzzle.from_solution(solve_survo(WORKED).solution, np.eye(4, dtype=bool))
    b = SurvoBoard(p)
    given = int(p.givens[0, 0])
    other = next(int(v) for v in b.table.ravel() if not b.is_given_number(int(v)))
    with pytest.raises(ValueError, match="given"):
        b.swap(given, other)


# ------------------------------------------------------------- generator
@pytest.mark.parametrize("m,n,k", [(3, 3, 0), (4, 4, 0), (4, 5, 0), (4, 4, 2), (5, 5, 4)])
def test_random_puzzles_are_unique_and_reproducible(m, n, k):
    from sudokustudio.survo.generate import random_puzzle

    g = random_puzzle(m, n, k, seed=5)
    assert g.puzzle.n_givens == k and g.puzzle.m == m and g.puzzle.n == n
    res = solve_survo(g.puzzle, 2)
    assert res.unique and np.array_equal(res.solution, g.solution)
    setup = givens_setup(g.puzzle.row_sums, g.puzzle.col_sums, g.puzzle.givens)
    assert g.initial_w == w_of(setup, g.puzzle.row_sums, g.puzzle.col_sums)
    assert g.min_swaps == min_swaps(setup, g.solution)
    again = random_puzzle(m, n, k, seed=5)
    assert again.puzzle == g.puzzle
    other = random_puzzle(m, n, k, seed=6)
    assert not np.array_equal(other.solution, g.solution)


def test_random_puzzle_in_range():
    from sudokustudio.survo.generate import random_puzzle_in_range

    g = random_puzzle_in_range(4, 4, 0, seed=1, min_swaps_range=(5, 7))
    assert 5 <= g.min_swaps <= 7


def test_min_swaps_of_random_tables_agree_with_exact_distribution():
    """Monte Carlo: min swaps of random 4×4 tables vs the exact Stirling distribution."""
    rng = np.random.default_rng(16)
    sol = np.arange(1, 17, dtype=np.int16).reshape(4, 4)
    n = 20000
    obs = np.array([min_swaps((rng.permutation(16) + 1).astype(np.int16).reshape(4, 4), sol)
                    for _ in range(n)])
    mean, var = swap_moments(16)
    se = math.sqrt(float(var) / n)
    assert abs(obs.mean() - float(mean)) < 4 * se
    dist = swap_distribution(16)
    total = math.factorial(16)
    # the four commonest values (11..14 swaps) within 4 binomial standard errors
    for s in (11, 12, 13, 14):
        p = dist[s] / total
        assert abs((obs == s).mean() - p) < 4 * math.sqrt(p * (1 - p) / n)


from hypothesis import given, settings, strategies as st  # noqa: E402


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 8), st.integers(2, 8), st.integers(0, 2**32 - 1), st.floats(0, 0.5))
def test_text_forms_round_trip(m, n, seed, frac):
    rng = np.random.default_rng(seed)
    t = (rng.permutation(m * n) + 1).reshape(m, n)
    p = SurvoPuzzle.from_solution(t, rng.random((m, n)) < frac)
    assert parse_survo(p.to_matrix_text()) == p
    assert parse_survo(p.to_plain_text()) == p
    setup = givens_setup(p.row_sums, p.col_sums, p.givens)
    assert sorted(setup.ravel().tolist()) == list(range(1, m * n + 1))
    assert np.all((p.givens == 0) | (setup == p.givens))
