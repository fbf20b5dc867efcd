"""BRT and Berthier's W-rating against his own results (controlled-bias 001 file)."""
from __future__ import annotations

import json

import numpy as np
import pytest

from sudokustudio.core.rng import seed_state
from sudokustudio.sudoku.grid import format_puzzle, random_isomorph, read_puzzles
from sudokustudio.sudoku.correction import correction_factor
from sudokustudio.sudoku.rating import (DEFAULT_CAP, SEED002_RAW_PERCENT, W_INVALID, RatingJob,
                                        brt, brt_batch_kernel, rate_puzzles,
                                        rating_label, w_distribution, w_histogram, w_rating)


@pytest.fixture(scope="module")
def oracle(shared_data):
    d = shared_data / "controlled_bias"
    puzzles = read_puzzles(d / "001-puzzles.txt").puzzles
    ref = {name: np.loadtxt(d / f"001-{name}.txt", dtype=np.int64)
           for name in ("W-ratings", "nb-cands-after-BRT", "nb-clues-after-BRT", "nb-clues")}
    assert all(len(v) == len(puzzles) == 21695 for v in ref.values())
    return puzzles, ref


def test_brt_candidates_and_decided_cells_equal_the_oracle_for_every_puzzle(oracle):
    puzzles, ref = oracle
    n = len(puzzles)
    solved = np.zeros(n, np.bool_)
    cands = np.zeros(n, np.int64)
    decided = np.zeros(n, np.int64)
    brt_batch_kernel(puzzles, solved, cands, decided)
    assert np.array_equal(cands, ref["nb-cands-after-BRT"])
    assert np.array_equal(decided, ref["nb-clues-after-BRT"])
    # BRT solves a puzzle exactly when its W-rating is 0
    assert np.array_equal(solved, ref["W-ratings"] == 0)


def test_w_ratings_equal_the_oracle_on_a_spread_sample(oracle):
    puzzles, ref = oracle
    w_ref = ref["W-ratings"]
    spread = np.arange(0, len(puzzles), 75)                      # 290 lines over the whole file
    hard = np.concatenate([np.nonzero(w_ref == w)[0][:2] for w in (6, 7, 8)])  # a few long whips
    idx = np.unique(np.concatenate([spread, hard]))
    ratings, cands = rate_puzzles(puzzles[idx], DEFAULT_CAP)
    assert np.array_equal(ratings, w_ref[idx]), idx[ratings != w_ref[idx]]
    assert np.array_equal(cands, ref["nb-cands-after-BRT"][idx])
    assert set(w_ref[idx]) >= set(range(0, 9))                   # every level 0..8 is exercised


def test_rating_is_invariant_under_the_symmetry_group(oracle):
    puzzles, ref = oracle
    w_ref = ref["W-ratings"]
    rng = seed_state(np.uint64(20261122))
    idx = np.concatenate([np.nonzero(w_ref == w)[0][:5] for w in range(0, 7)])
    iso = np.array([random_isomorph(puzzles[i], rng) for i in idx for _ in range(2)])
    ratings, cands = rate_puzzles(iso, DEFAULT_CAP)
    assert np.array_equal(ratings, np.repeat(w_ref[idx], 2))
    assert np.array_equal(cands, np.repeat(ref["nb-cands-after-BRT"][idx], 2))


def test_cap_and_invalid_codes(oracle):
    puzzles, ref = oracle
    i = int(np.nonzero(ref["W-ratings"] == 4)[0][0])
    assert w_rating(puzzles[i], cap=4) == 4
    assert w_rating(puzzles[i], cap=3) == 4          # "> 3" is encoded as cap + 1
    assert rating_label(4, 3) == "> 3" and rating_label(0, 3) == "W0 (BRT)"
    empty = np.zeros(81, np.uint8)
    assert w_rating(empty) == W_INVALID               # several solutions
    bad = np.zeros(81, np.uint8)
    bad[0] = bad[1] = 5
    assert w_rating(bad) == W_INVALID
    assert brt(bad) == (False, -1, -1)
    with pytest.raises(ValueError, match="cap"):
        w_rating(puzzles[i], cap=0)


def test_correction_factors_match_seed_002():
    seed = [0.00134, 0.00415, 0.0120, 0.0329, 0.0843, 0.204, 0.464, 1, 2.037, 3.929, 7.180, 12.445, 20.474]
    cf = correction_factor(np.arange(19, 32))
    assert np.allclose(cf, seed, rtol=5e-3)  # the seed rounds to 3-4 digits
    assert correction_factor(26) == 1.0
    for k in range(15, 40):
        assert correction_factor(k + 1) / correction_factor(k) == pytest.approx((81 - k) / (k + 1))


def test_oracle_distribution_is_close_to_seed_002(oracle):
    # the 21,695-puzzle file is a sample of the same generator as seed 002's 5.9 M:
    # each class agrees within 4 binomial standard errors
    _, ref = oracle
    dist = w_distribution(ref["W-ratings"], ref["nb-clues"], DEFAULT_CAP)
    n = len(ref["W-ratings"])
    for w in range(6):
        p = SEED002_RAW_PERCENT[w] / 100
        assert abs(dist["raw"][w] / 100 - p) < 4 * np.sqrt(p * (1 - p) / n)
    assert dist["counts"].sum() == n
    assert w_histogram([0, 1, 1, 13, -1], 12).tolist() == [1, 2] + [0] * 11 + [1]


def test_rating_job_in_two_threads_equals_direct_rating(oracle):
    from sudokustudio.jobs.run import run_batches

    puzzles, ref = oracle
    sample = puzzles[:60]
    job = RatingJob(puzzles=[format_puzzle(p) for p in sample], cap=DEFAULT_CAP, chunk=7)
    out = run_batches(job, 0, job.n_batches(), workers=2)
    ratings, cands = job.arrays(out.total)
    assert np.array_equal(ratings, ref["W-ratings"][:60])
    assert np.array_equal(cands, ref["nb-cands-after-BRT"][:60])
    assert out.total["hist"][1:].sum() == 60
    # merge is associative and empty() is its identity
    a, b, c = (job.run_batch(k, 0) for k in range(3))
    left = job.merge(job.merge(a, b), c)
    right = job.merge(a, job.merge(b, job.merge(c, job.empty())))
    assert np.array_equal(job.arrays(left)[0], job.arrays(right)[0])
    assert np.array_equal(left["hist"], right["hist"])
    d = job.describe(out.total)
    assert d["ratings"] == ref["W-ratings"][:60].tolist()


def test_cli_rate_json(tmp_path, oracle, capsys):
    from sudokustudio.cli import main

    puzzles, ref = oracle
    f = tmp_path / "p.txt"
    f.write_text("\n".join(format_puzzle(p) for p in puzzles[:12]) + "\nnot a puzzle\n")
    assert main(["rate", str(f), "--threads", "2", "--json", "--cap", "3",
                 "--csv", str(tmp_path / "out.csv")]) == 0
    out = json.loads(capsys.readouterr().out)
    expect = np.minimum(ref["W-ratings"][:12], 4)
    assert out["ratings"] == expect.tolist()
    assert sum(out["hist"].values()) == 12 and out["seconds"] >= 0
    assert (tmp_path / "out.csv").read_text().splitlines()[0] == "line,puzzle,W,cands_after_BRT"
    assert main(["rate", str(f), "--cap", "0"]) == 2
