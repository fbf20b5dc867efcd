"""Estimators: unbiasedness against exact counts (fixed seeds, within 4 SE),
exhaustive minimal-puzzle counts on 4x4 Sudoku, CLI JSON, kill/resume."""
import json
import math
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
from brute_4x4 import all_4x4_grids_first_row_1234, unique_and_minimal

from sudokustudio.core.cellset import to_cells
from sudokustudio.core.rng import seed_state
from sudokustudio.jobs.run import Run, StopRules, run_batches
from sudokustudio.sudoku import minimal as M
from sudokustudio.sudoku import minimal_sets as MS
from sudokustudio.sudoku import minimal_supersets as MSup
from sudokustudio.sudoku.estimate import (
    GRID_COUNTS, MINIMAL_METHODS, GridCountJob, MinimalsJob, rows_grid_g, sequential_grid_kernel,
)
from sudokustudio.sudoku.grid import is_valid_grid


def _within(job, total, exact, k=4.0):
    d = job.describe(total)
    assert d["samples"] > 0
    z = (d["estimate"] - exact) / d["se"]
    assert abs(z) < k, f"{job}: estimate {d['estimate']:.6g} vs {exact:.6g} ({z:+.2f} SE)"
    return d


# ----------------------------------------------------------------- grids
@pytest.mark.parametrize("method", ["crude", "ridder", "rows", "fc", "smc"])
def test_4x4_grid_count_is_unbiased(method):
    job = GridCountJob("2x2", method, 20_000)
    out = run_batches(job, 11, 5, workers=2)
    _within(job, out.total, 288)


@pytest.mark.parametrize("method,batches,size", [("ridder", 4, 50_000), ("rows", 4, 10_000), ("fc", 2, 2000),
                                                 ("smc", 4, 300)])
def test_6x6_grid_count_is_unbiased(method, batches, size):
    job = GridCountJob("2x3", method, size)
    out = run_batches(job, 12, batches, workers=2)
    _within(job, out.total, 28_200_960)


@pytest.mark.parametrize("method,batches,size", [("ridder", 8, 125_000), ("rows", 4, 2000), ("fc", 2, 500),
                                                 ("smc", 4, 60)])
def test_9x9_grid_count_is_unbiased(method, batches, size):
    job = GridCountJob("3x3", method, size)
    out = run_batches(job, 13, batches, workers=2)
    d = _within(job, out.total, 6_670_903_752_021_072_936_960)
    assert d["ci95"][0] < d["estimate"] < d["ci95"][1]
    assert 1.5 < d["rat"] <= 2.0


# the particle filter is unbiased for ANY population: a population of one is plain sequential
# importance sampling, two particles already resample at nearly every step
@pytest.mark.parametrize("box,particles,batches,size", [
    ("2x2", 1, 4, 20_000), ("2x2", 2, 4, 20_000), ("2x3", 1, 4, 3000), ("2x3", 2, 4, 2000), ("2x3", 5, 4, 1000),
    ("2x4", 2, 4, 1000), ("2x4", 16, 4, 100), ("3x3", 2, 4, 600), ("3x3", 16, 4, 60), ("2x5", 3, 4, 150)])
def test_smc_grid_count_is_unbiased_for_any_population(box, particles, batches, size):
    job = GridCountJob(box, "smc", size, particles=particles)
    out = run_batches(job, 31, batches, workers=2)
    _within(job, out.total, GRID_COUNTS[box])


@pytest.mark.parametrize("ess_frac,order", [(0.0, "rows"), (0.5, "rows"), (2.0, "rows"), (0.5, "boxes")])
def test_smc_is_unbiased_whether_it_never_sometimes_or_always_resamples(ess_frac, order):
    from sudokustudio.sudoku.estimate.grids import scale_log2
    from sudokustudio.sudoku.estimate.smc import fill_order, guide_table, smc_batch_kernel
    from sudokustudio.sudoku.tables import geometry

    _, peers, units = geometry(2, 3)
    e2 = scale_log2("2x3")
    for alpha in (0.0, 0.5):
        st = np.zeros(4)
        runs = 4000
        smc_batch_kernel(seed_state(np.uint64(77)), peers, units, fill_order(2, 3, order), runs, 3, ess_frac,
                         guide_table(6, alpha), float(e2), st)
        mean = st[1] / runs
        se = math.sqrt(max(st[2] / runs - mean * mean, 0.0) / (runs - 1))
        exact = GRID_COUNTS["2x3"] / 2.0 ** e2
        assert st[0] == runs and abs(mean - exact) < 4 * se, (ess_frac, alpha, mean, exact, se)


def test_systematic_resampling_gives_each_particle_its_share_rounded():
    from sudokustudio.sudoku.estimate.smc import _systematic_offspring

    rng = seed_state(np.uint64(3))
    for n in (1, 2, 7, 64):
        for _ in range(50):
            w = np.random.default_rng(n).exponential(size=n) * (np.arange(n) % 3 != 1)
            w[0] += 1.0
            out = np.empty(n, dtype=np.int64)
            _systematic_offspring(rng, w, w.sum(), out)
            share = n * w / w.sum()
            assert out.sum() == n and np.all(out >= np.floor(share) - 1e-9) and np.all(out <= np.ceil(share) + 1e-9)
            assert np.all(out[w == 0] == 0)


def test_smc_spec_keeps_its_population_and_25x25_stays_in_range():
    job = GridCountJob("5x5", "smc", 1, particles=8)
    assert job.spec["particles"] == 8 and GridCountJob(**job.spec).particles == 8
    d = job.describe(job.run_batch(0, 3) + job.run_batch(1, 4))
    assert math.isfinite(d["log10_estimate"]) and 300 < d["log10_estimate"] < 320
    assert GridCountJob("4x4", "smc").particles > GridCountJob("2x2", "smc").particles
    with pytest.raises(ValueError, match="particles"):
        GridCountJob("3x3", "fc", particles=10)
    with pytest.raises(ValueError, match="particles"):
        GridCountJob("3x3", "smc", particles=0)


def test_cli_lists_every_grid_method():
    import argparse

    from sudokustudio.commands import estimate as cmd
    from sudokustudio.sudoku.estimate import GRID_METHODS

    parser = argparse.ArgumentParser()
    cmd.register(parser.add_subparsers())
    grids = parser._subparsers._group_actions[0].choices["estimate"]._subparsers._group_actions[0].choices["grids"]
    method = next(a for a in grids._actions if a.dest == "method")
    assert list(method.choices) == GRID_METHODS


@pytest.mark.parametrize("box", ["2x3", "3x3"])
def test_crude_finds_nothing_beyond_4x4(box):
    # P(hit) is 2e-10 (6x6) and 6e-29 (9x9): the crude estimator's mean is
    # right but it needs ~1e12 / 1e31 samples, the point seed 003 makes
    job = GridCountJob(box, "crude", 50_000)
    out = run_batches(job, 1, 2, workers=2)
    assert out.total.nonzero == 0 and job.describe(out.total)["estimate"] == 0


def test_grid_stats_merge_is_associative_on_counts():
    job = GridCountJob("2x2", "rows", 1000)
    a, b, c = (job.run_batch(i, 100 + i) for i in range(3))
    left, right = job.merge(job.merge(a, b), c), job.merge(a, job.merge(b, c))
    assert (left.n, left.nonzero) == (right.n, right.nonzero) == (3000, a.nonzero + b.nonzero + c.nonzero)
    assert left.s1 == pytest.approx(right.s1, rel=1e-14)


def test_sequential_grid_kernel_gives_valid_grids_and_unbiased_weights():
    rng = seed_state(np.uint64(5))
    g = np.zeros(81, dtype=np.uint8)
    ws = np.empty(3000)
    for i in range(ws.size):
        ws[i] = sequential_grid_kernel(rng, g)
        if ws[i] > 0:
            assert is_valid_grid(g)
    exact = GRID_COUNTS["3x3"]
    se = ws.std(ddof=1) / math.sqrt(ws.size)
    assert abs(ws.mean() - exact) < 4 * se


def test_weighted_4x4_grids_are_uniform():
    # sum of weights per distinct grid ~ uniform over the 288 grids
    rng = seed_state(np.uint64(9))
    g = np.zeros(16, dtype=np.uint8)
    seen = {}
    n = 20_000
    for _ in range(n):
        w = rows_grid_g(rng, 2, 2, g)
        if w > 0:
            seen[g.tobytes()] = seen.get(g.tobytes(), 0.0) + w
    assert len(seen) == 288
    per_grid = np.array(list(seen.values())) / n   # each estimates 1
    assert abs(per_grid.mean() - 1.0) < 0.05


# ----------------------------------------------------------------- minimals
@pytest.fixture(scope="module")
def exact_4x4_minimals():
    """Mean number of c-clue minimal puzzles per 4x4 grid, by exhaustive enumeration.

    Relabelling digits maps minimals to minimals, so the 12 grids with first
    row 1234 have the same mean as all 288.
    """
    grids = all_4x4_grids_first_row_1234()
    assert len(grids) == 12
    tot = np.zeros(17, dtype=np.int64)
    for g in grids:
        MS.minimals_in_subset(M.oracle(g, (2, 2)), np.ones(16, np.uint8), np.zeros((0, 16), np.uint8), tot, 0)
    return tot / len(grids)


def test_subset_and_superset_enumeration_match_brute_force():
    grid = np.array([1, 2, 3, 4, 3, 4, 1, 2, 2, 1, 4, 3, 4, 3, 2, 1], dtype=np.uint8)
    unique, minimal = unique_and_minimal(grid)
    sizes = np.array([bin(m).count("1") for m in range(1 << 16)])
    rng = np.random.default_rng(3)
    out = np.zeros((400, 16), np.uint8)
    for _ in range(12):
        keep = rng.integers(0, 2, 16).astype(np.uint8)
        km = int(sum(int(keep[i]) << i for i in range(16)))
        for least in (0, 4, 5, 6, 7):   # only minimals of at least this many clues: the DFS stops there
            cnt = np.zeros(17, np.int64)
            nw = MS.minimals_in_subset(M.oracle(grid, (2, 2)), keep, out, cnt, least)
            want = np.bincount(sizes[[m for m in range(1 << 16)
                                      if minimal[m] and m & ~km == 0 and sizes[m] >= least]], minlength=17)
            assert (cnt == want).all()
            for row in out[:nw]:
                rm = int(sum(int(row[i] > 0) << i for i in range(16)))
                assert minimal[rm] and rm & ~km == 0 and sizes[rm] >= least
        base = (keep * (rng.random(16) < 0.3)).astype(np.uint8)
        bm = int(sum(int(base[i]) << i for i in range(16)))
        for cmax in (5, 16):
            cnt = np.zeros(17, np.int64)
            MSup.minimals_containing(M.oracle(grid, (2, 2)), base, cmax, out, cnt)
            want = np.bincount(sizes[[m for m in range(1 << 16)
                                      if minimal[m] and m & bm == bm and sizes[m] <= cmax]], minlength=17)
            assert (cnt == want).all()


def test_9x9_supersets_search_finds_every_minimal_the_subsets_search_sees():
    """The supersets search drops a set with a clue no solution of the others can change (no
    superset of it is minimal).  Checked against the subsets search, which never drops: for a
    unique 33-clue subset S of a grid and a base B inside one of its minimals (4 clues fewer: a
    random one and the largest), the minimals of at most 33 clues containing B that lie inside S are
    exactly the minimals of S that contain B; also for bases of 26 clues of S, mostly inside no
    minimal."""
    from sudokustudio.sudoku.grids import random_grid

    rng = np.random.default_rng(11)
    compared = finds = 0
    for k in range(400):
        g = random_grid(1000 + k)
        keep = np.zeros(81, np.uint8)
        keep[rng.choice(81, 33, replace=False)] = 1
        inside = np.zeros((5000, 81), np.uint8)
        n_in = MS.minimals_in_subset(M.oracle(g), keep, inside, np.zeros(82, np.int64), 0)
        if n_in == 0 or n_in == inside.shape[0]:
            continue
        largest = inside[int(np.argmax((inside[:n_in] > 0).sum(axis=1)))]
        for base_of, dropped in ((inside[rng.integers(n_in)] > 0, 4), (largest > 0, 4), (keep > 0, 7)):
            base = base_of.astype(np.uint8)
            base[rng.choice(np.flatnonzero(base), dropped, replace=False)] = 0
            around = np.zeros((20000, 81), np.uint8)
            n_ar = MSup.minimals_containing(M.oracle(g), base, 33, around, np.zeros(82, np.int64))
            assert n_ar < around.shape[0]
            b = base > 0
            want = {inside[i].tobytes() for i in range(n_in) if ((inside[i] > 0) >= b).all()}
            got = {around[i].tobytes() for i in range(n_ar) if ((around[i] > 0) <= (keep > 0)).all()}
            assert got == want
            assert all(M.is_minimal(around[i]) and ((around[i] > 0) >= b).all() for i in range(min(n_ar, 20)))
            finds += len(want)
        compared += 1
        if compared >= 8:
            break
    assert compared >= 8 and finds >= 8


def test_9x9_enumerations_find_minimal_puzzles_and_agree():
    from sudokustudio.sudoku.grids import random_grid

    rng = np.random.default_rng(8)
    checked = 0
    for k in range(300):
        g = random_grid(k)
        keep = np.zeros(81, np.uint8)
        keep[rng.choice(81, 32, replace=False)] = 1
        out = np.zeros((50, 81), np.uint8)
        cnt = np.zeros(82, np.int64)
        nw = MS.minimals_in_subset(M.oracle(g), keep, out, cnt, 0)
        assert nw == min(50, cnt.sum())
        for least in (25, 28):   # the DFS stopped at `least` clues finds the same c >= least ones
            tail = np.zeros(82, np.int64)
            MS.minimals_in_subset(M.oracle(g), keep, np.zeros((0, 81), np.uint8), tail, least)
            assert (tail[least:] == cnt[least:]).all() and not tail[:least].any()
        for i in range(min(nw, 2)):
            m = out[i]
            assert M.is_minimal(m) and ((m > 0) <= (keep > 0)).all()
            # the supersets enumeration from 3 clues fewer must find it again
            base = (m > 0).astype(np.uint8)
            base[rng.choice(np.flatnonzero(base), 3, replace=False)] = 0
            o2 = np.zeros((2000, 81), np.uint8)
            c2 = np.zeros(82, np.int64)
            n2 = MSup.minimals_containing(M.oracle(g), base, int((m > 0).sum()), o2, c2)
            assert any((o2[j] == m).all() for j in range(n2))
            checked += 1
        if checked >= 6:
            break
    assert checked >= 6


def test_a_subset_holding_more_minimals_than_the_dfs_keeps_finds_them_all():
    # 35 clues of a grid holding 4,113 minimals, 16 times the DFS's first room for them (its bit
    # sets widen as they come): with no clue floor it needs no table of visited sets; with the
    # floor at 17 clues (none is smaller) it takes the table's path.  Both must find the same, and
    # with the floor at 26 (the sets one clue below it that its parents prove unique join the known
    # ones: 66,011 solver calls here, 367,829 before) the same 267 of 26 clues or more.
    g = np.array([int(d) for d in "839156247761243895254798316647829531398514672512637984973465128186372459425981763"],
                 np.uint8)
    keep = np.zeros(81, np.uint8)
    keep[[2, 4, 5, 7, 11, 12, 14, 21, 25, 26, 30, 32, 35, 36, 38, 43, 44, 45, 46, 47, 49, 51, 52, 55, 57, 58, 61,
          62, 64, 68, 70, 73, 76, 78, 80]] = 1
    found = {}
    for least in (0, 17):
        out = np.zeros((5000, 81), np.uint8)
        cnt = np.zeros(82, np.int64)
        nw = MS.minimals_in_subset(M.oracle(g), keep, out, cnt, least)
        assert nw == cnt.sum() == 4113 > 16 * MS.FIRST_MINIMALS_ROOM
        found[least] = {row.tobytes() for row in out[:nw]}
        assert len(found[least]) == nw
    assert found[0] == found[17]
    out = np.zeros((500, 81), np.uint8)
    cnt = np.zeros(82, np.int64)
    nw = MS.minimals_in_subset(M.oracle(g), keep, out, cnt, 26)
    assert nw == cnt.sum() == cnt[26] + cnt[27] == 267
    above = {r for r in found[0] if np.count_nonzero(np.frombuffer(r, np.uint8)) >= 26}
    assert {row.tobytes() for row in out[:nw]} == above
    for row in list(found[0])[:3]:
        assert M.is_minimal(np.frombuffer(row, np.uint8))


@pytest.mark.parametrize("method", MINIMAL_METHODS)
def test_4x4_minimal_estimators_agree_with_exhaustive_count(method, exact_4x4_minimals):
    kw = {"singletons": dict(c_lo=4, c_hi=6)}.get(method, {})
    job = MinimalsJob(method, "2x2", grids_per_batch=200, per_grid=4, **kw)
    _assert_agrees_with_4x4_counts(job, 21, exact_4x4_minimals)


def _assert_agrees_with_4x4_counts(job, seed, exact_4x4_minimals):
    """Run ``job`` for 10 batches: every c within 4 SE of the exhaustive count, and the total
    (one estimate, summed per grid sample) within 4 SE of the exact total."""
    out = run_batches(job, seed, 10, workers=2)
    per_c = job.per_c(out.total)
    assert set(per_c) == {4, 5, 6}
    for c, v in per_c.items():
        z = (v["estimate"] - exact_4x4_minimals[c]) / v["se"]
        assert abs(z) < 4, f"{job.spec} c={c}: {v['estimate']:.4g} vs {exact_4x4_minimals[c]:.4g} ({z:+.2f} SE)"
    tot = job.total(out.total)
    exact = sum(exact_4x4_minimals[c] for c in (4, 5, 6))
    assert tot["estimate"] == pytest.approx(sum(v["estimate"] for v in per_c.values()), rel=1e-12)
    assert abs(tot["estimate"] - exact) < 4 * tot["se"], (job.spec, tot, exact)
    assert tot["all_grids"] == pytest.approx(tot["estimate"] * 288)


def test_9x9_tail_design_agrees_with_berthiers_counts():
    """The record design for c = 29..31 (supersets of 25-clue bases up to 31 clues, the search
    dropping sets with a clue no superset can need) on the weighted grids: c = 28..31 within 4 SE of
    Berthier's published counts (their own errors, 0.2-11.6%, added in quadrature), fixed seed."""
    from sudokustudio.sudoku.estimate.designs import TAIL_DESIGN
    from sudokustudio.sudoku.estimate.published import PUBLISHED_MINIMALS

    job = MinimalsJob(box="3x3", grids_per_batch=500, **TAIL_DESIGN)
    out = run_batches(job, 31, 8, workers=2)
    per_c = job.per_c(out.total)
    for c in (28, 29, 30, 31):
        ref, ref_re = PUBLISHED_MINIMALS["berthier"][c]
        v = per_c[c]
        assert v["found"] >= 10, (c, v)
        z = (v["estimate"] - ref) / math.hypot(v["se"], ref * ref_re)
        assert abs(z) < 4, f"c={c}: {v['estimate']:.4g} vs {ref:.4g} ({z:+.2f} SE)"


def test_9x9_best_combination_agrees_with_berthiers_counts():
    """The best combination (30- and 31-clue subsets, supersets of 25-clue bases for c = 29..31, c = 29
    shared by fixed weights) on the weighted grids: c = 24..28 and the total within 4 SE of Berthier's
    published counts (their own errors added in quadrature), fixed seed.  (c = 29..31, a few dozen
    finds in 8,000 grids, have SEs too rough to test here; the supersets' own test above and the 4x4
    plans that mix both methods check them.)"""
    from sudokustudio.sudoku.estimate.published import PUBLISHED_MINIMALS, PUBLISHED_TOTALS

    from sudokustudio.sudoku.estimate.designs import BEST_PLAN

    job = MinimalsJob("subsets", "3x3", grids_per_batch=1000, **BEST_PLAN)
    out = run_batches(job, 41, 8, workers=2)
    per_c = job.per_c(out.total)
    for c in range(24, 29):
        ref, ref_re = PUBLISHED_MINIMALS["berthier"][c]
        v = per_c[c]
        z = (v["estimate"] - ref) / math.hypot(v["se"], ref * ref_re)
        assert abs(z) < 4, f"c={c}: {v['estimate']:.4g} vs {ref:.4g} ({z:+.2f} SE)"
    assert set(per_c) >= {29, 30, 31}
    tot = job.total(out.total)
    ref, ref_re = PUBLISHED_TOTALS["berthier"]
    assert tot["rel_err"] < 0.05 and abs(tot["estimate"] - ref) < 4 * math.hypot(tot["se"], ref * ref_re), tot


def test_4x4_subsets_counting_only_the_tail_agree_with_exhaustive_count(exact_4x4_minimals):
    """Subsets of 10 cells counting only minimals of 5 clues or more (the DFS stops at 5):
    c = 5 and 6 within 4 SE of the exhaustive counts, c = 4 not reported."""
    job = MinimalsJob("subsets", "2x2", s=10, c_lo=5, grids_per_batch=200, per_grid=4)
    out = run_batches(job, 29, 10, workers=2)
    per_c = job.per_c(out.total)
    assert set(per_c) == {5, 6} and out.total.found[4] == 0
    for c, v in per_c.items():
        assert abs(v["estimate"] - exact_4x4_minimals[c]) < 4 * v["se"], (c, v, exact_4x4_minimals[c])


@pytest.mark.parametrize("method, s, per_grid", [("subsets", [7, 9], [3, 2]), ("subsets", [6, 8, 10], [2, 3, 1]),
                                                  ("supersets", [2, 4], [2, 3])])
def test_4x4_mixtures_of_sizes_agree_with_exhaustive_count(method, s, per_grid, exact_4x4_minimals):
    """Probes of several sizes in one run, every count weighed by the mixture's inclusion
    probability (balance heuristic): unbiased per c and for the total."""
    job = MinimalsJob(method, "2x2", s=s, per_grid=per_grid, grids_per_batch=200)
    assert job.s == tuple(s) and job.spec["s"] == s and job.per_grid == sum(per_grid)
    _assert_agrees_with_4x4_counts(job, 23, exact_4x4_minimals)


@pytest.mark.parametrize("s, floors, per_grid", [([8, 10], [0, 6], [3, 2]), ([7, 9, 11], [0, 5, 6], [2, 1.5, 0.5])])
def test_4x4_plans_agree_with_exhaustive_count(s, floors, per_grid, exact_4x4_minimals):
    """A plan: each size searched down to its own floor, each c counted by every size that
    searches down to it (balance heuristic): unbiased per c and for the total."""
    job = MinimalsJob("subsets", "2x2", s=s, min_clues=floors, per_grid=per_grid, grids_per_batch=200)
    assert job.floor_mix == tuple(floors) and job.spec["min_clues"] == floors
    assert job.owners(4) == (0,) and job.owners(6) == tuple(range(len(s)))
    _assert_agrees_with_4x4_counts(job, 25, exact_4x4_minimals)


@pytest.mark.parametrize("shares", [[[6, 0.9, 0.1]], [[5, 0.6, 0.4], [6, 0.05, 0.95]]])
def test_4x4_plans_with_fixed_shares_agree_with_exhaustive_count(shares, exact_4x4_minimals):
    """Fixed shares of a c between the sizes instead of the balance heuristic's (each size's finds
    weighted by its share over its balance share): any shares that sum to 1 stay unbiased.  Far from
    the balance heuristic's (size 1's balance share of c = 6 is ~0.8), a weight off by that ratio
    would miss the exact counts by many SE."""
    job = MinimalsJob("subsets", "2x2", s=[8, 10], min_clues=[0, 5], per_grid=[3, 2], grids_per_batch=200,
                      shares=shares)
    assert MinimalsJob.from_spec(job.spec).shares == job.shares == {r[0]: tuple(r[1:]) for r in shares}
    owns = job.ownership()
    assert owns[:, 4].tolist() == [1, 0]
    for c, *share in shares:
        balance = [owns[i, c] and share[i] / owns[i, c] for i in range(2)]
        assert sum(balance) == pytest.approx(1) and abs(balance[1] - share[1]) > 0.1
    _assert_agrees_with_4x4_counts(job, 26, exact_4x4_minimals)


@pytest.mark.parametrize("shares", [None, [[6, 0.3, 0.7]]])
def test_4x4_plans_mixing_subsets_and_supersets_agree_with_exhaustive_count(shares, exact_4x4_minimals):
    """A plan whose last size is supersets (the best combination's shape: subsets for the small c,
    supersets of a base for the large ones): each c counted by the subsets that search down to it
    and by the supersets from their floor up to c_hi, weighed by the balance heuristic over both
    methods' odds (or by fixed shares): unbiased per c and for the total."""
    job = MinimalsJob("subsets", "2x2", s=[8, 3], methods=["subsets", "supersets"], min_clues=[0, 5], c_hi=6,
                      per_grid=[3, 2], grids_per_batch=200, shares=shares)
    assert job.methods == ("subsets", "supersets") and job.spec["methods"] == ["subsets", "supersets"]
    assert [job.owners(c) for c in (4, 5, 6)] == [(0,), (0, 1), (0, 1)]
    assert MinimalsJob.from_spec(job.spec).factors().tolist() == job.factors().tolist()
    _assert_agrees_with_4x4_counts(job, 27, exact_4x4_minimals)


def test_plan_methods_are_checked():
    plan = dict(s=[8, 3], min_clues=[0, 5], c_hi=6, per_grid=[3, 2])
    for kw, match in ((dict(methods=["subsets"]), "one a size"),
                      (dict(methods=["subsets", "path"]), "subsets or supersets"),
                      (dict(methods=["subsets", "supersets"], c_hi=None), "clue bound"),
                      (dict(methods=["subsets", "supersets"], s=[8, 7]), "above the clue bound"),
                      (dict(methods=["subsets", "supersets"], thin=[[0, 0], [0.1, 3]]), "subsets only")):
        with pytest.raises(ValueError, match=match):
            MinimalsJob("subsets", "2x2", **{**plan, **kw})
    with pytest.raises(ValueError, match="a plan's"):
        MinimalsJob("subsets", "2x2", s=[8, 3], methods=["subsets", "supersets"], c_hi=6)
    # a plan of one method keeps the spec it had before plans could mix them
    assert "methods" not in MinimalsJob("subsets", "2x2", methods=["subsets", "subsets"], **{**plan, "s": [8, 10]}).spec


def test_shares_are_checked():
    plan = dict(s=[8, 10], min_clues=[0, 6], per_grid=[3, 2])
    for bad, match in (([[6, 0.5, 0.6]], "sum to 1"), ([[6, 1.0]], "one share per subset size"),
                       ([[5, 0.5, 0.5]], "only the sizes that count it"), ([[20, 0.5, 0.5]], "clue range"),
                       ([[6, 0.5, 0.5], [6, 0.5, 0.5]], "one row a clue count"), ([["x"]], "rows of a clue count")):
        with pytest.raises(ValueError, match=match):
            MinimalsJob("subsets", "2x2", shares=bad, **plan)


def test_plan_owners_are_the_sizes_that_search_down_to_each_clue_count():
    from sudokustudio.sudoku.estimate.designs import method_factor, plan_owners

    s, floors = (30, 31, 34), (0, 28, 29)
    assert [plan_owners(s, floors, c) for c in (22, 27, 28, 29, 31, 34, 35)] == \
        [(0,), (0,), (0, 1), (0, 1, 2), (1, 2), (2,), ()]
    assert plan_owners((29, 31), (0, 0), 30) == (1,) and plan_owners((29, 31), (0, 0), 25) == (0, 1)
    job = MinimalsJob("subsets", s=list(s), min_clues=list(floors), per_grid=[48, 8, 1])
    # c = 28 is seen by 30- and 31-clue probes and both count: each find weighs the same, so the
    # factor is 1 / (their shares times their odds), summed
    seen_28 = 48 / 57 / method_factor("subsets", 81, 28, 30) + 8 / 57 / method_factor("subsets", 81, 28, 31)
    assert job.factor(28) == pytest.approx(1 / seen_28)
    assert job.factor(25) == pytest.approx(57 / 48 * method_factor("subsets", 81, 25, 30))
    owns = job.ownership()
    assert owns[:, 28].tolist() == [1, 1, 0] and owns[:, 30].tolist() == [1, 1, 1] and owns[:, 20].tolist() == [1, 0, 0]
    assert MinimalsJob.from_spec(job.spec).floor_mix == floors
    for bad in (dict(min_clues=[0, 28]), dict(min_clues=[0, 32, 29])):
        with pytest.raises(ValueError, match="min-clues"):
            MinimalsJob("subsets", s=list(s), per_grid=[48, 8, 1], **bad)
    with pytest.raises(ValueError, match="subsets only"):
        MinimalsJob("supersets", s=[24], min_clues=[24])


def test_mixture_factor_is_the_balance_heuristic():
    from sudokustudio.sudoku.estimate.designs import method_factor, mixture_factor

    for c in (22, 25, 29):
        one = method_factor("subsets", 81, c, 30)
        assert mixture_factor("subsets", 81, c, [30], [16]) == pytest.approx(one)
        mix = mixture_factor("subsets", 81, c, [29, 31], [48, 4])
        seen = 48 / 52 / method_factor("subsets", 81, c, 29) + 4 / 52 / method_factor("subsets", 81, c, 31)
        assert mix == pytest.approx(1 / seen)
    # a size that cannot hold c contributes nothing; no size that can: factor 0 (never seen)
    only_31 = 2 * method_factor("subsets", 81, 30, 31)
    assert mixture_factor("subsets", 81, 30, [29, 31], [1, 1]) == pytest.approx(only_31)
    assert mixture_factor("subsets", 81, 32, [29, 31], [1, 1]) == 0.0
    with pytest.raises(ValueError, match="one per subset size"):
        MinimalsJob("subsets", s=[29, 31], per_grid=[1, 2, 3])
    with pytest.raises(ValueError, match="different sizes"):
        MinimalsJob("subsets", s=[29, 29])


def test_probes_follow_the_grid_weight_in_expectation():
    """per_grid * w probes, rounded at random: the floor or one more, with mean per_grid * w
    (the minimal estimators' unbiasedness rests on it)."""
    from sudokustudio.sudoku.estimate.minimals import probes_for_weight

    rng = seed_state(np.uint64(17))
    for per_grid, w in ((16, 0.37), (16, 2.5), (8, 0.0), (4, 1.0)):
        k = np.array([probes_for_weight(rng, per_grid, w) for _ in range(20000)])
        x = per_grid * w
        assert set(np.unique(k)) <= {math.floor(x), math.floor(x) + 1}
        se = max(k.std(), 1e-12) / math.sqrt(k.size)
        assert abs(k.mean() - x) < 4 * se + 1e-12, (per_grid, w, k.mean())


def test_biased_grid_source_is_labelled_and_detectably_biased(exact_4x4_minimals):
    job = MinimalsJob("path", "2x2", grid_source="random", grids_per_batch=400)
    assert job.biased and job.describe(job.empty())["biased"]
    out = run_batches(job, 5, 10, workers=2)
    v = job.per_c(out.total)[4]
    assert abs(v["estimate"] - exact_4x4_minimals[4]) > 4 * v["se"]


@pytest.mark.parametrize("s, floors, per_grid, thin", [(10, None, 4, [0.8, 2.0]),
                                                      (10, None, 4, [-0.6, 5.0]),   # rising: SMALL_C_DESIGN's form
                                                      ([8, 10], [0, 6], [3, 2], [[-0.5, 3.0], [0.8, 2.0]]),
                                                      (10, None, 4, [0.8, 2.0, 0.9, 4.0]),
                                                      ([8, 10], [0, 5], [3, 2], [[0.0, 0.0], [0.0, 0.0, 1.2, 4.5]])])
def test_4x4_thinned_subsets_agree_with_exhaustive_count(s, floors, per_grid, thin, exact_4x4_minimals):
    """Subsets going past their first level with a chance set by their removable clues (down to
    4% of them here), and sets one clue above the floor searched with a chance set by their clues
    known needed (the second stage), each find weighted by the inverse: unbiased per c and for
    the total."""
    kw = {"c_lo": 4} if floors is None else {"min_clues": floors}
    job = MinimalsJob("subsets", "2x2", s=s, per_grid=per_grid, grids_per_batch=200, thin=thin, **kw)
    assert job.spec["thin"] == ([thin] if floors is None else thin)
    assert MinimalsJob(**job.spec).thin_mix == job.thin_mix          # a stored run resumes thinned
    _assert_agrees_with_4x4_counts(job, 27, exact_4x4_minimals)


def test_thinning_goes_on_with_its_chance_and_weighs_the_finds_by_its_inverse():
    """The subsets DFS thinned after its first level: r = the clues that can go alone (counted
    here by asking the oracle about each); u below pi(r) = min(1, exp(-beta (r - r0))) finds the
    same minimals as the plain search, each worth 1 / pi(r); u above finds none; beta 0 is the
    plain search whatever u."""
    grid = np.array([1, 2, 3, 4, 3, 4, 1, 2, 2, 1, 4, 3, 4, 3, 2, 1], dtype=np.uint8)
    unique, _ = unique_and_minimal(grid)
    rng = np.random.default_rng(11)
    out = np.zeros((0, 16), np.uint8)
    seen = 0
    for _ in range(40):
        keep = (rng.random(16) < 0.7).astype(np.uint8)
        plain = np.zeros(17, np.int64)
        MS.minimals_in_subset(M.oracle(grid, (2, 2)), keep, out, plain, 0)
        km = int(sum(int(keep[i]) << i for i in range(16)))
        if not unique[km]:
            continue
        r = sum(bool(unique[km & ~(1 << x)]) for x in np.flatnonzero(keep))
        go_on = min(1.0, np.exp(-0.7 * (r - 2.0)))
        for u, thin_beta in ((0.0, 0.7), (np.nextafter(go_on, 0.0), 0.7), (0.999999, 0.7), (0.999999, 0.0)):
            thin = np.array([thin_beta, 2.0, u, -1.0, 0.0, 0.0])
            cnt = np.zeros(17, np.int64)
            worth = np.zeros(17)
            MS.thinned_minimals_in_subset(M.oracle(grid, (2, 2)), keep, out, cnt, 0, thin, worth,
                                          np.zeros(4, np.uint64))
            if thin_beta == 0.0 or u < go_on:
                assert (cnt == plain).all()
                assert thin[3] == pytest.approx(1.0 if thin_beta == 0.0 else 1.0 / go_on)
                assert worth == pytest.approx(cnt * thin[3])
            else:
                assert not cnt.any() and thin[3] == 0.0 and not worth.any()
        seen += go_on < 1.0
    assert seen >= 5     # subsets that were thinned


def test_the_second_thinning_searches_a_floor_sets_parent_with_its_chance_and_no_other_count_changes():
    """The second stage (beta2, n2): a chance of 1 finds what the plain search finds, each worth 1;
    a chance of 0 leaves every set one clue above the floor unsearched, so the two lowest classes
    get nothing, while the class above counts as before: the sets whose search was left are still
    remembered, and a set above them the table calls minimal is checked by the solver."""
    grid = np.array([1, 2, 3, 4, 3, 4, 1, 2, 2, 1, 4, 3, 4, 3, 2, 1], dtype=np.uint8)
    rng = np.random.default_rng(12)
    out = np.zeros((0, 16), np.uint8)
    found = np.zeros(17, np.int64)
    for _ in range(60):
        keep = (rng.random(16) < 0.75).astype(np.uint8)
        plain = np.zeros(17, np.int64)
        MS.minimals_in_subset(M.oracle(grid, (2, 2)), keep, out, plain, 4)
        found += plain
        for beta2, n2, gets in ((-1.0, 81.0, plain), (10.0, 81.0, plain * (np.arange(17) >= 6))):
            cnt = np.zeros(17, np.int64)
            worth = np.zeros(17)
            MS.thinned_minimals_in_subset(M.oracle(grid, (2, 2)), keep, out, cnt, 4,
                                          np.array([0.0, 0.0, 0.0, 0.0, beta2, n2]), worth, np.zeros(4, np.uint64))
            assert (cnt == gets).all(), (keep, beta2, cnt, plain)
            assert worth == pytest.approx(cnt.astype(float))
    assert found[4] and found[5] and found[6]     # every class was there to lose


def test_bad_parameters_are_named():
    with pytest.raises(ValueError, match="box shape"):
        GridCountJob("5x6", "ridder")
    with pytest.raises(ValueError, match="takes grids up to 16x16"):
        GridCountJob("4x5", "rows")
    with pytest.raises(ValueError, match="method"):
        GridCountJob("3x3", "magic")
    with pytest.raises(ValueError, match="--s 90"):
        MinimalsJob("subsets", s=90)
    with pytest.raises(ValueError, match="clue limit"):
        MinimalsJob("supersets", s=24, c_hi=20)
    with pytest.raises(ValueError, match="thinning.*one per subset size"):
        MinimalsJob("subsets", s=[30, 31], thin=[[0.3, 1], [0.2, 1], [0.1, 1]])
    with pytest.raises(ValueError, match="thinning: subsets only"):
        MinimalsJob("supersets", s=24, thin=[0.3, 16])
    with pytest.raises(ValueError, match="thinning.*numbers"):
        MinimalsJob("subsets", s=30, thin=["a", 1])
    with pytest.raises(ValueError, match="second stage.*needs a floor"):
        MinimalsJob("subsets", s=30, thin=[0.3, 16, 0.2, 20])
    with pytest.raises(ValueError, match="beta2, n2"):
        MinimalsJob("subsets", s=30, min_clues=[27], thin=[0.3, 16, 0.2])


# ----------------------------------------------------------------- CLI
def _cli(*args):
    from sudokustudio.cli import main

    return main(list(args))


def test_cli_grids_json(capsys):
    assert _cli("estimate", "grids", "--box", "2x2", "--method", "ridder", "--samples", "20000",
                "--seed", "3", "--threads", "2", "--json") == 0
    d = json.loads(capsys.readouterr().out)
    assert {"estimate", "rel_err", "samples", "seconds"} <= set(d)
    assert d["samples"] >= 20000 and abs(d["estimate"] - 288) < 4 * d["rel_err"] * d["estimate"]


def test_cli_minimals_json(capsys):
    assert _cli("estimate", "minimals", "--box", "2x2", "--method", "subsets", "--s", "8", "--samples", "800",
                "--seed", "3", "--json") == 0
    d = json.loads(capsys.readouterr().out)
    assert {"per_c", "samples", "seconds"} <= set(d)
    assert set(d["per_c"]) == {"4", "5", "6"}
    assert {"found", "estimate", "rel_err", "rel_err_plain", "ci95", "tail"} == set(d["per_c"]["5"])
    assert {"ess", "max_share", "warning"} == set(d["per_c"]["5"]["tail"])
    tot = d["total"]
    assert tot["c_range"] == [4, 6] and tot["estimate"] == pytest.approx(
        sum(v["estimate"] for v in d["per_c"].values()), rel=1e-12)
    # the grid weight as control variate: on 4x4 the weights' spread is most of a grid's variance
    assert tot["rel_err"] < 0.7 * tot["rel_err_plain"]
    assert d["core_seconds"] > 0


def test_cli_minimals_counting_only_the_tail(capsys):
    """--min-clues: the subsets search stops at that many clues, and only those c are reported."""
    assert _cli("estimate", "minimals", "--box", "2x2", "--s", "10", "--min-clues", "5", "--samples", "400",
                "--seed", "4", "--json") == 0
    d = json.loads(capsys.readouterr().out)
    assert set(d["per_c"]) == {"5", "6"} and d["total"]["c_range"] == [5, 6]
    assert _cli("estimate", "minimals", "--method", "path", "--min-clues", "29", "--samples", "1",
                "--seed", "1") == 2
    assert "--min-clues: for --method subsets" in capsys.readouterr().err


def test_cli_thinning_is_automatic_for_33_clue_subsets_searched_to_30_and_can_be_set_or_left_off(capsys):
    """--thin auto (the default) thins the designs it was fitted for and nothing else; off,
    BETA:R0 pairs and BETA:R0:BETA2:N2 say what they do; a malformed pair is one clear line."""
    def thin_of(*args):
        assert _cli("estimate", "minimals", *args, "--samples", "16", "--seed", "2", "--json") == 0
        return json.loads(capsys.readouterr().out)["thin"]

    assert thin_of("--s", "33", "--min-clues", "30") == [[0.3, 16.5]]
    assert thin_of("--s", "31", "--min-clues", "28") == [[0.2, 14.0, 0.15, 23.0]]     # with its second stage
    assert thin_of("--box", "2x2", "--s", "10", "--min-clues", "5", "--thin", "0:0:0.5:3") == [[0.0, 0.0, 0.5, 3.0]]
    assert thin_of("--s", "33", "--min-clues", "30", "--thin", "off") == [[0.0, 0.0]]
    assert thin_of("--box", "2x2", "--s", "10", "--min-clues", "5") == [[0.0, 0.0]]
    assert thin_of("--box", "2x2", "--s", "8,10", "--min-clues", "0,5", "--per-grid", "2,2",
                   "--thin", "0:0,0.5:3") == [[0.0, 0.0], [0.5, 3.0]]
    assert _cli("estimate", "minimals", "--s", "33", "--thin", "0.3-16", "--samples", "1", "--seed", "1") == 2
    assert "--thin 0.3-16: auto, off, or BETA:R0 pairs" in capsys.readouterr().err


def test_cli_minimals_plans_and_the_best_combination(capsys):
    """One floor per size makes a plan (fractional probes per grid allowed); without --method and
    without tuning options the 9x9 run is the best combination, BEST_PLAN."""
    from sudokustudio.sudoku.estimate.designs import BEST_PLAN

    assert _cli("estimate", "minimals", "--box", "2x2", "--s", "8,10", "--min-clues", "0,6", "--per-grid", "3,0.5",
                "--samples", "800", "--seed", "3", "--json") == 0
    d = json.loads(capsys.readouterr().out)
    assert set(d["per_c"]) == {"4", "5", "6"} and d["min_clues"] == [0, 6] and d["per_grid"] == [3, 0.5]
    assert d["method"] == "subsets"
    assert _cli("estimate", "minimals", "--samples", "1", "--seed", "3", "--json") == 0
    d = json.loads(capsys.readouterr().out)
    assert d["method"] == "best" and d["s"] == BEST_PLAN["s"] and d["min_clues"] == BEST_PLAN["min_clues"]
    assert d["per_grid"] == BEST_PLAN["per_grid"] and d["samples"] == 16 and d["shares"] == BEST_PLAN["shares"]
    assert d["thin"] == BEST_PLAN["thin"]        # the 30-clue subsets thinned too (falling chance)
    assert d["methods"] == BEST_PLAN["methods"] == ["subsets", "subsets", "supersets"]
    # the record design for c = 22 is these flags (README), rising thinning included
    from sudokustudio.sudoku.estimate.designs import SMALL_C_DESIGN
    assert _cli("estimate", "minimals", "--s", "29", "--per-grid", "192", "--thin=-0.35:14.5", "--samples", "1",
                "--seed", "3", "--json") == 0
    d = json.loads(capsys.readouterr().out)
    assert (d["s"], d["per_grid"], d["thin"]) == (SMALL_C_DESIGN["s"], SMALL_C_DESIGN["per_grid"],
                                                  [SMALL_C_DESIGN["thin"]])
    # and the record design for c = 29..31 (README) is these
    from sudokustudio.sudoku.estimate.designs import TAIL_DESIGN
    assert _cli("estimate", "minimals", "--method", "supersets", "--s", "25", "--c", "31", "--samples", "5",
                "--seed", "3", "--json") == 0
    d = json.loads(capsys.readouterr().out)
    assert (d["method"], d["s"]) == (TAIL_DESIGN["method"], TAIL_DESIGN["s"])
    assert all(TAIL_DESIGN["s"] <= int(c) <= TAIL_DESIGN["c_hi"] for c in d["per_c"])
    assert _cli("estimate", "minimals", "--method", "best", "--s", "30", "--samples", "1", "--seed", "1") == 2
    assert "--method best is a fixed plan for 3x3 boxes: not with --s" in capsys.readouterr().err
    assert _cli("estimate", "minimals", "--box", "2x2", "--s", "8,10", "--min-clues", "0,11", "--samples", "1",
                "--seed", "1") == 2
    assert "--min-clues 11 for subsets of 10" in capsys.readouterr().err
    # a plan's own shares of a clue count (the best combination's are in its JSON above)
    assert _cli("estimate", "minimals", "--box", "2x2", "--s", "8,10", "--min-clues", "0,5", "--per-grid", "3,2",
                "--shares", "6:0.9:0.1", "--samples", "200", "--seed", "3", "--json") == 0
    d = json.loads(capsys.readouterr().out)
    assert d["shares"] == [[6, 0.9, 0.1]] and set(d["per_c"]) == {"4", "5", "6"}
    for bad, message in (("6:0.9", "one share per subset size"), ("x", "C:S0:S1... rows"),
                         ("6.5:0.5:0.5", "C:S0:S1... rows"), ("nan:1:0", "C:S0:S1... rows")):
        assert _cli("estimate", "minimals", "--box", "2x2", "--s", "8,10", "--min-clues", "0,5", "--shares", bad,
                    "--samples", "1", "--seed", "1") == 2
        assert message in capsys.readouterr().err
    assert _cli("estimate", "minimals", "--method", "best", "--shares", "29:0:0.5:0.5", "--samples", "1",
                "--seed", "1") == 2
    assert "not with --shares" in capsys.readouterr().err


def test_cli_bad_input_is_one_clear_line(capsys):
    assert _cli("estimate", "grids", "--box", "7x7", "--samples", "10", "--seed", "1") == 2
    assert "box shape '7x7'" in capsys.readouterr().err


# ----------------------------------------------------------------- kill and resume
_WORKER = r"""
import sys, time
from sudokustudio.jobs.store import RunStore
from sudokustudio.jobs.run import Run, StopRules, run_batches
from sudokustudio.sudoku.estimate import GridCountJob
store = RunStore(sys.argv[1])
job = GridCountJob("2x3", "ridder", 20000)
def listener(event, run):
    if event == "batch":
        print(run.batches_done, flush=True)
        time.sleep(0.02)
run_batches(job, 77, 400, workers=2, store=store, name="killed", listener=listener)
"""


def test_kill_9_during_a_run_then_resume_loses_nothing(tmp_path):
    from sudokustudio.jobs.store import RunStore

    path = tmp_path / "runs.sqlite3"
    proc = subprocess.Popen([sys.executable, "-c", _WORKER, str(path)], stdout=subprocess.PIPE, text=True)
    seen = 0
    deadline = time.time() + 120
    while seen < 8 and time.time() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        seen += 1
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert seen >= 8, "the worker did not commit batches"
    store = RunStore(path)
    (info,) = store.runs()
    assert info.status == "interrupted" and store.interrupted == [info.id]
    job = store.job_of(info.id)
    total, done, _ = store.load_results(info.id, job)
    assert len(done) >= 8 and info.target_batches == 400
    assert total.n == 20000 * len(done)
    # resume the first 24 batches: the result equals an uninterrupted run of 24, bit for bit
    upto = max(24, max(done) + 1)
    run = Run.open(store, info.id)
    assert run.status.value == "interrupted" and run.batches_done == len(done)
    run.set_rules(StopRules(batches=upto))
    rest = run.run(workers=2)
    full = run_batches(job, 77, upto, workers=1)
    assert (rest.total.n, rest.total.nonzero) == (full.total.n, full.total.nonzero)
    assert rest.total.s1 == full.total.s1 and rest.total.s2 == full.total.s2
    assert store.done_indices(info.id) == set(range(upto))
    assert store.run(info.id).status == "done"


def test_a_corrupt_run_gives_a_clear_message_and_keeps_the_others(tmp_path):
    import sqlite3

    from sudokustudio.jobs.store import RunStore, StoreError

    path = tmp_path / "runs.sqlite3"
    store = RunStore(path)
    job = GridCountJob("2x2", "rows", 100)
    good = run_batches(job, 1, 3, workers=1, store=store, name="good").run.run_id
    bad = run_batches(job, 2, 3, workers=1, store=store, name="bad").run.run_id
    store.close()
    db = sqlite3.connect(path)
    db.execute("UPDATE batches SET result=? WHERE run_id=? AND batch_index=1", (b"garbage", bad))
    db.commit()
    db.close()
    store = RunStore(path)
    assert {r.id for r in store.runs()} == {good, bad}
    with pytest.raises(StoreError, match=f"run {bad}: batch 1 is damaged"):
        store.load_results(bad, job)
    total, done, _ = store.load_results(good, job)
    assert done == {0, 1, 2} and total.n == 300


def test_seeded_ua_cache_holds_unavoidable_sets_and_changes_no_count():
    """The 9x9 cache starts with the grid's two-digit UAs: each must be unavoidable, and
    the subset enumeration must find exactly what it finds from an empty cache."""
    from sudokustudio.sudoku.grids import grid_pool
    from sudokustudio.sudoku.solver import count_solutions_kernel

    rng = np.random.default_rng(11)
    found = 0
    for grid in grid_pool(4, 17, "solver"):
        lo, hi = M.cached_uas(M.oracle(grid))
        assert 20 <= len(lo) <= M.MAX_SEED_UA
        sizes = []
        for a, b in zip(lo, hi):
            cells = to_cells(a, b)
            sizes.append(len(cells))
            puzzle = grid.copy()
            puzzle[cells] = 0
            assert count_solutions_kernel(puzzle, 2) == 2      # emptying a UA frees it
        assert sizes == sorted(sizes) and sizes[0] >= 4
        for _ in range(40):
            keep = np.zeros(81, np.uint8)
            keep[rng.choice(81, 32, replace=False)] = 1
            counts = []
            for o in (M.oracle(grid), M.oracle(grid, seed_uas=False)):
                cnt = np.zeros(82, np.int64)
                MS.minimals_in_subset(o, keep, np.zeros((0, 81), np.uint8), cnt, 0)
                counts.append(cnt)
            assert (counts[0] == counts[1]).all()
            found += counts[0].sum()
    assert found > 100
