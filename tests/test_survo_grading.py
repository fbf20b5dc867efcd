"""Survo beyond the atlas: difficulty against brute force, graded puzzles, the random-start
baseline, the atlas tables, Knuth's size estimate and the batch plan (issue 16)."""
from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

from sudokustudio.survo.atlas import batch_plan, row_sum_vectors, run_vectors
from sudokustudio.survo.atlas.tables import atlas_tables, random_start, tables_csv, under_k, w_bins
from sudokustudio.survo.difficulty import difficulty_of, grade, puzzle_difficulty, shortest_sequences
from sudokustudio.survo.generate import graded_puzzle
from sudokustudio.survo.puzzle import SurvoPuzzle
from sudokustudio.survo.setup import puzzle_setup
from sudokustudio.survo.solve import solve_survo, swap_distribution


# ------------------------------------------------------------- brute force of the swap game
def _brute(setup, solution, rs, cs):
    """(fewest swaps, number of shortest sequences, fewest sacrifices) by searching swap
    sequences of growing length L over all pairs of cells; the only pruning is that L − d
    more swaps fix at most 2 (L − d) cells.  No cycle theory."""
    m, n = setup.shape
    goal = tuple(solution.ravel().tolist())

    def w(t):
        a = np.array(t).reshape(m, n)
        return int(np.abs(a.sum(1) - rs).sum() + np.abs(a.sum(0) - cs).sum())

    def wrong(t):
        return sum(x != y for x, y in zip(t, goal))

    start = tuple(setup.ravel().tolist())
    L = 0
    while True:
        layer = {start: (1, 0)} if wrong(start) <= 2 * L else {}
        for d in range(L):
            nxt = {}
            for t, (cnt, sac) in layer.items():
                wt = w(t)
                for a, b in itertools.combinations(range(m * n), 2):
                    u = list(t)
                    u[a], u[b] = u[b], u[a]
                    u = tuple(u)
                    if wrong(u) > 2 * (L - d - 1):
                        continue
                    c0, s0 = nxt.get(u, (0, 1 << 30))
                    nxt[u] = (c0 + cnt, min(s0, sac + (w(u) > wt)))
            layer = nxt
        if goal in layer:
            return L, layer[goal][0], layer[goal][1]
        L += 1


def _unique_puzzles(m, n, count, seed, max_swaps):
    """Uniquely solvable puzzles (some with givens) whose setups are at most max_swaps away."""
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        t = np.sort(np.sort(rng.permutation(m * n) + 1, axis=None).reshape(m, n), axis=0)
        for _ in range(rng.integers(0, 4)):
            a, b = rng.choice(m * n, 2, replace=False)
            t.flat[a], t.flat[b] = t.flat[b], t.flat[a]
        mask = rng.random((m, n)) < rng.choice([0.0, 0.2])
        p = SurvoPuzzle.from_solution(t, mask)
        res = solve_survo(p, 2)
        if not res.unique:
            continue
        d = difficulty_of(p, res.solution)
        if d.min_swaps <= max_swaps:
            out.append((p, res.solution, d))
    return out


@pytest.mark.parametrize("m,n,max_swaps,count", [(3, 3, 5, 8), (3, 4, 3, 6)])
def test_difficulty_matches_brute_force(m, n, max_swaps, count):
    for p, sol, d in _unique_puzzles(m, n, count, seed=m * 10 + n, max_swaps=max_swaps):
        L, seqs, sac = _brute(puzzle_setup(p), sol, p.row_sums, p.col_sums)
        assert (d.min_swaps, d.shortest_sequences, d.sacrifices) == (L, seqs, sac)
        assert d.level == grade(L, sac)


def test_sacrifice_puzzle_of_seed_001_needs_none_in_its_best_order():
    """Seed 001's sacrifice example: Mustonen's 4-swap path raises W once, but another order of
    shortest swaps never does (checked by brute force)."""
    p = SurvoPuzzle([49, 39, 33, 15], [49, 43, 29, 15])
    d = puzzle_difficulty(p)
    sol = solve_survo(p).solution
    assert (d.min_swaps, d.shortest_sequences, d.sacrifices) == _brute(puzzle_setup(p), sol, p.row_sums,
                                                                       p.col_sums) == (4, 24, 0)


def test_shortest_sequences_closed_form():
    sol = np.arange(1, 10).reshape(3, 3)
    # one 3-cycle (3 sequences) and one 2-cycle (1): 3 swaps, interleavings 3!/(2!·1!) = 3 -> 9
    t = sol.copy().ravel()
    t[[0, 1, 2]] = t[[1, 2, 0]]
    t[[3, 4]] = t[[4, 3]]
    assert shortest_sequences(t.reshape(3, 3), sol) == 9
    assert shortest_sequences(sol, sol) == 1


def test_not_unique_puzzle_has_no_difficulty():
    with pytest.raises(ValueError, match="more than one"):
        # a table with two equal row sums: swapping those rows gives a second solution
        puzzle_difficulty(SurvoPuzzle.from_solution(np.array([[1, 6, 8], [2, 4, 9], [3, 5, 7]])))


# ------------------------------------------------------------- graded puzzles
@pytest.mark.parametrize("m,n,level", [(3, 3, "easy"), (3, 3, "medium"), (3, 4, "hard"), (4, 4, "expert"),
                                       (4, 5, "medium"), (5, 5, "hard"), (6, 8, "easy")])
def test_graded_puzzle_lands_in_its_band_and_is_unique(m, n, level):
    g = graded_puzzle(m, n, level, number=3)
    res = solve_survo(g.puzzle, 2)
    assert res.unique and np.array_equal(res.solution, g.solution)
    d = difficulty_of(g.puzzle, g.solution)
    assert d.level == level == g.difficulty.level
    assert d == g.difficulty


def test_same_number_same_puzzle_other_number_other_puzzle():
    a = graded_puzzle(4, 5, "hard", number=11)
    b = graded_puzzle(4, 5, "hard", number=11)
    c = graded_puzzle(4, 5, "hard", number=12)
    assert a.puzzle == b.puzzle and np.array_equal(a.solution, b.solution)
    assert not (a.puzzle == c.puzzle)


def test_givens_are_a_minimum():
    g = graded_puzzle(4, 4, None, number=2, givens=5)
    assert g.givens >= 5 and solve_survo(g.puzzle, 2).unique


@pytest.mark.parametrize("m,n", [(2, 3), (2, 8), (3, 7), (6, 6), (6, 7)])
def test_every_size_gives_a_puzzle(m, n):
    g = graded_puzzle(m, n, None, number=0)
    assert solve_survo(g.puzzle, 2).unique


# ------------------------------------------------------------- random start and tables
@pytest.mark.parametrize("cells", [1, 2, 3, 4, 5, 6, 7])
def test_stirling_distribution_exact_against_enumeration(cells):
    counts: dict[int, int] = {}
    for perm in itertools.permutations(range(cells)):
        seen, cycles = set(), 0
        for s in range(cells):
            if s not in seen:
                cycles += 1
                while s not in seen:
                    seen.add(s)
                    s = perm[s]
        counts[cells - cycles] = counts.get(cells - cycles, 0) + 1
    assert counts == swap_distribution(cells)
    rs = random_start(cells)
    mean = sum(s * c for s, c in counts.items()) / math.factorial(cells)
    assert rs["mean"] == pytest.approx(mean, abs=1e-12)


def test_random_start_for_16_cells_is_seed_001s():
    rs = random_start(16)
    assert rs["mean"] == float(16 - sum(Fraction(1, k) for k in range(1, 17)))
    assert rs["mean"] == pytest.approx(12.619271006771, abs=1e-12)
    assert rs["sd"] == pytest.approx(1.3402919308079, abs=1e-11)   # as printed (13 digits)
    assert sum(row[1] for row in rs["dist"]) == math.factorial(16)


def test_tables_of_3x4_atlas():
    res = run_vectors(3, 4, row_sum_vectors(3, 4))
    t = atlas_tables(res)
    assert t.count == 583 and sum(t.swaps_hist) == 583
    assert t.k == under_k(t.swaps_mean) and t.k == int(t.swaps_mean) + 2
    assert sum(row[1] for row in t.w_table) == 583
    assert t.solved_at_once == t.swaps_hist[0]
    assert t.chi2_min <= t.chi2_max
    csv = tables_csv(t)
    assert csv["swaps"].startswith("swaps,puzzles") and csv["w"].splitlines()[-1].startswith("all,583,")
    assert "random_start_mean" in csv["summary"]


def test_w_bins_read_as_seed_001_for_4x4():
    assert w_bins(22) == [("0-4", 0, 4)] + [(str(w), w, w) for w in range(6, 23, 2)]
    bins = w_bins(90)
    assert len(bins) <= 13 and bins[0][1] == 0 and bins[-1][2] >= 90


# ------------------------------------------------------------- estimate and plan
def test_knuth_estimate_within_two_relative_errors_on_3x4():
    from sudokustudio.survo.atlas.estimate import estimate_size

    measured = run_vectors(3, 4, row_sum_vectors(3, 4), verify=False).tables
    e = estimate_size(3, 4, probes=3000, seed=1)
    assert abs(e.tables - measured) < 2 * e.rel_err * e.tables
    assert 0 < e.rel_err < 0.1 and e.core_seconds > 0


def test_batch_plan_caps_vectors_per_batch():
    for m, n in ((3, 5), (4, 4), (4, 5)):
        vectors, bounds = batch_plan(m, n)
        assert bounds[0] == 0 and bounds[-1] == len(vectors)
        per = np.diff(bounds)
        assert per.min() >= 1 and per.max() <= 2 * math.ceil(len(vectors) / (len(bounds) - 1)) + 1


def test_atlas_job_summary_for_a_live_view():
    from sudokustudio.survo.atlas import SurvoAtlasJob

    job = SurvoAtlasJob(3, 4)
    part = job.merge(job.run_batch(0, 0), job.run_batch(1, 0))
    s = job.summary(part)
    assert s["vectors_done"] == len(job.batch_vectors(0)) + len(job.batch_vectors(1)) == job.units(part)
    assert s["vectors_total"] == len(job.plan()[0]) and s["puzzles"] == part.count
    assert len(job.plan()[0]) < len(row_sum_vectors(3, 4))   # one vector per complement pair
    assert s["tables"]["count"] == part.count


def test_batch_work_sums_to_the_size_estimates_work():
    """The per-batch weights of a run's time left (stratified probes) and the whole-size
    estimate measure the same work: their totals agree within 3 combined standard errors."""
    from sudokustudio.survo.atlas import SurvoAtlasJob
    from sudokustudio.survo.atlas.estimate import batch_work, estimate_size

    for m, n in ((3, 5), (4, 4)):
        job = SurvoAtlasJob(m, n)
        work, se = batch_work(m, n, job.pairs, probes_per_batch=16, seed=3)
        assert len(work) == job.n_batches() and (work >= 0).all() and (se >= 0).all()
        whole = estimate_size(m, n, probes=4000, seed=2)
        sigma = math.hypot(math.sqrt((se ** 2).sum()), whole.work * whole.work_rel_err)
        assert abs(work.sum() - whole.work) < 3 * sigma
    assert SurvoAtlasJob(2, 5).estimate_batch_weights() is None   # two rows: even batches
