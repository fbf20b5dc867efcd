"""Generators of minimal puzzles (seed 002): validity, reproducibility, statistics."""
import math

import numpy as np
import pytest

from sudokustudio.jobs.run import run_batches
from sudokustudio.sudoku.cheap_uas import grid_uas
from sudokustudio.sudoku.correction import CF
from sudokustudio.sudoku.generate import PUBLISHED, GeneratorJob, describe_result, hist_moments
from sudokustudio.sudoku.grid import is_valid_grid
from sudokustudio.sudoku.grids import grid_pool, pairswap_grid
from sudokustudio.sudoku.minimal import first_not_minimal, is_minimal
from sudokustudio.sudoku.solver import count_solutions

FAST = ["guesses", "brt"]


def _run(job, seed, n_batches=None, stop_at=None):
    out = run_batches(job, seed, n_batches, units=stop_at, workers=2)
    assert not out.errors, out.errors
    return out.total


def _assert_minimal(puzzles):
    assert first_not_minimal(puzzles) == -1
    for p in puzzles[:5]:  # and through the public API
        assert count_solutions(p, 2) == 1 and is_minimal(p)


def _within(value, expected, se, k=4.0):
    assert abs(value - expected) <= k * se, f"{value:.4f} vs {expected} (se {se:.4f}, {k} se allowed)"


# ------------------------------------------------------------ correction factors
def test_correction_factors_follow_seed_002():
    cf = CF
    assert cf[26] == 1.0
    for n in range(0, 81):
        assert math.isclose(cf[n + 1] / cf[n], (81 - n) / (n + 1), rel_tol=1e-12)
    published = [0.00134, 0.00415, 0.0120, 0.0329, 0.0843, 0.204, 0.464, 1, 2.037, 3.929, 7.180, 12.445, 20.474]
    for n, v in zip(range(19, 32), published):
        assert math.isclose(cf[n], v, rel_tol=6e-3), (n, cf[n], v)


def test_correction_of_published_cb_sample_gives_real_mean():
    # seed 002 §3.1.2: the 5,926,343-puzzle controlled-bias histogram -> raw 25.667, real 26.577 (sd 1.116)
    from sudokustudio.sudoku.generate import PUBLISHED_CB_HIST

    hist = np.zeros(82)
    for n, k in PUBLISHED_CB_HIST.items():
        hist[n] = k
    raw = hist_moments(hist)
    cor = hist_moments(hist, CF)
    assert abs(raw.mean - 25.667) < 0.001 and abs(raw.sd - 1.116) < 0.001
    assert abs(cor.mean - 26.577) < 0.002 and abs(cor.sd - 1.116) < 0.01


def test_correction_of_berthier_collection(shared_data):
    # 21,695 controlled-bias puzzles of Berthier's collection: raw and corrected means agree with seed 002
    clues = np.loadtxt(shared_data / "controlled_bias" / "001-nb-clues.txt", dtype=int)
    hist = np.bincount(clues, minlength=82)
    raw = hist_moments(hist)
    cor = hist_moments(hist, CF)
    _within(raw.mean, PUBLISHED["controlled-bias"]["mean"], raw.std_error)
    _within(cor.mean, PUBLISHED["real"]["mean"], cor.std_error)


# ------------------------------------------------------------ grid sources and UAs
def test_grid_sources_give_valid_grids():
    assert all(is_valid_grid(g) for g in grid_pool(4, 1, "solver"))
    assert is_valid_grid(pairswap_grid(3))
    assert np.array_equal(pairswap_grid(3), pairswap_grid(3))


def test_cheap_uas_are_unavoidable():
    g = grid_pool(1, 5)[0]
    uas = grid_uas(g)
    assert len(uas) > 20 and min(len(u) for u in uas) >= 4
    for cells in uas[:40] + uas[-10:]:
        p = g.copy()
        p[cells] = 0
        assert count_solutions(p, 2) == 2, cells


# ------------------------------------------------------------ validity and reproducibility
@pytest.mark.parametrize("method,kw", [
    ("top-down", dict(per_batch=30)),
    ("top-down", dict(per_batch=10, grid_source="pool", pool_size=8)),
    ("bottom-up", dict(per_batch=30)),
    ("controlled-bias", dict(per_batch=20000, pool_size=16)),
])
def test_outputs_are_minimal_and_reproducible(method, kw):
    job = GeneratorJob(method, difficulty=FAST, **kw)
    if method == "controlled-bias":
        a = _run(job, 11, stop_at=2)
        b = _run(job, 11, n_batches=a_batches(a, job))
    else:
        a = _run(job, 11, 2)
        b = _run(job, 11, 2)
    assert a.count >= 2
    _assert_minimal(a.puzzles)
    assert np.array_equal(a.puzzles, b.puzzles)
    assert set(a.metrics) == set(FAST)
    assert np.array_equal(a.metrics["guesses"], b.metrics["guesses"])
    c = _run(job, 12, 1)
    assert c.count == 0 or not np.array_equal(c.puzzles, a.puzzles[:c.count])


def a_batches(total, job):
    return total.tries // job.spec["per_batch"]


def _weights_of_strata(job, clues, weights):
    """Whether every puzzle weighs 1/Pr(inside a subset of a stratum counting its clue count) /
    that stratum's subsets per grid, from the spec alone: the main stratum's below the tail, the
    tail's (all its subsets) from tail_from up, and for the class below the tail, counted by
    the main stratum and the deeper tail subsets both, either one's weight times its pooled
    share (alpha, 1 - alpha: the shares of least Poisson variance)."""
    from sudokustudio.sudoku.generate import inclusion_weights

    sp = job.spec
    main = inclusion_weights(sp["s"])[clues] / sp["per_grid"]
    if not sp["tail_per_grid"]:
        return bool(np.allclose(weights, main))
    tail_w = inclusion_weights(sp["tail_s"])
    tail = tail_w[clues] / sp["tail_per_grid"]
    c = sp["tail_from"] - 1
    expected = np.where(clues >= sp["tail_from"], tail, main)
    ok = np.isclose(weights, expected)
    if sp["tail_deep"]:
        u_main = inclusion_weights(sp["s"])[c] / sp["per_grid"]
        u_deep = tail_w[c] / sp["tail_deep"]
        alpha = u_deep / (u_main + u_deep)
        pooled = (clues == c) & (np.isclose(weights, alpha * u_main) | np.isclose(weights, (1 - alpha) * u_deep))
        ok = np.where(clues == c, pooled, ok)
    return bool(ok.all())


def test_weighted_subsets_outputs_are_minimal_and_weighted():
    from sudokustudio.sudoku.generate import WeightedSubsetsJob, inclusion_weights

    job = WeightedSubsetsJob(per_batch=60, pool_size=16, difficulty=FAST)
    a = _run(job, 3, 2)
    b = _run(job, 3, 2)
    assert a.count > 0 and np.array_equal(a.puzzles, b.puzzles)
    _assert_minimal(a.puzzles)
    s = job.spec["s"]
    w = inclusion_weights(s)
    assert _weights_of_strata(job, a.clues, a.weights)   # pool grids weigh 1
    assert math.isclose(w[s], math.comb(81, s))
    assert math.isclose(w[s - 1], math.comb(81, s) / math.comb(82 - s, 1))
    assert w[s + 1] == 0
    assert a.extra["found"].sum() == a.count  # every minimal found is kept


def test_bad_generator_options_are_refused():
    with pytest.raises(ValueError, match="unknown generator"):
        GeneratorJob("sideways")
    with pytest.raises(ValueError, match="grid source"):
        GeneratorJob("top-down", grid_source="magic")
    with pytest.raises(ValueError, match="difficulty"):
        GeneratorJob("top-down", difficulty=["nope"])


# ------------------------------------------------------------ agreement with seed 002
def test_top_down_clue_statistics_match_seed_002():
    total = _run(GeneratorJob("top-down", per_batch=250, difficulty=[]), 2024, 8)
    m = hist_moments(total.hist())
    assert total.count == 2000
    _within(m.mean, 24.38, m.std_error)
    _within(m.sd, 1.12, m.sd / math.sqrt(2 * total.count))


def test_bottom_up_clue_statistics_match_seed_002():
    total = _run(GeneratorJob("bottom-up", per_batch=250, difficulty=[]), 2024, 8)
    m = hist_moments(total.hist())
    _within(m.mean, 23.87, m.std_error)
    _within(m.sd, 1.08, m.sd / math.sqrt(2 * total.count))


def test_controlled_bias_clue_statistics_match_seed_002():
    # ~1 CPU-second per puzzle: a small sample, so a loose (but standard-error based) check
    job = GeneratorJob("controlled-bias", per_batch=40000, pool_size=64, difficulty=[])
    total = _run(job, 7, stop_at=12)
    d = describe_result("controlled-bias", total)
    _within(d["mean"], 25.667, 1.116 / math.sqrt(total.count))
    assert d["corrected_mean"] > d["mean"]          # the correction moves towards more clues
    assert 5e4 < d["tries_per_puzzle"] < 2e6        # seed 002: ~257,000 grids per puzzle
    assert d["tail"]["warning"] and d["tail"]["ess"] < 12   # a dozen puzzles: the corrected SE is not trusted


@pytest.mark.parametrize("blind", [36, 42, 46])
def test_last_unique_step_is_the_first_break_of_uniqueness_on_the_path(blind):
    """The controlled-bias bisection (UAs, the solver, and the jump to the last deleted
    cell of another solution) against testing every step of the path."""
    from sudokustudio.sudoku.generate import ua_pool
    from sudokustudio.sudoku.generate.kernels import last_unique_step

    pool, pool_lo, pool_hi, pool_n = ua_pool(4, 11)
    rng = np.random.default_rng(blind)
    seen = set()
    for trial in range(60):
        g = trial % 4
        grid, lo, hi = pool[g], pool_lo[g], pool_hi[g]
        order = rng.permutation(81).astype(np.int64)
        work = [np.zeros(81, np.uint8), np.zeros(81, np.uint8), np.zeros(81, np.int64)]
        step, calls = last_unique_step(grid, order, blind, lo, hi, pool_n[g], *work)
        unique = []
        for k in range(blind, 66):
            p = grid.copy()
            p[order[:k]] = 0
            unique.append(count_solutions(p, 2) == 1)
        assert not unique[-1] and unique == sorted(unique, reverse=True)   # monotone along the path
        expected = blind + sum(unique) - 1 if unique[0] else -1
        assert step == expected, (trial, step, expected)
        assert 1 <= calls <= 1 + 6
        seen.add(step if step < 0 else "unique")
    assert seen == {-1, "unique"}      # both outcomes were exercised


def test_weighted_subsets_mean_matches_real_value():
    from sudokustudio.sudoku.generate import WeightedSubsetsJob

    # Unbiased but heavy-tailed: at the default s = 32 the 27..29-clue classes that carry
    # the mean above 26 are drawn often enough for the standard error to be honest.
    job = WeightedSubsetsJob(per_batch=250, pool_size=64, difficulty=[])
    assert job.spec["s"] == 32
    total = _run(job, 99, 6)
    d = job.describe(total)
    _within(d["weighted_mean"], 26.577, d["weighted_mean_se"])
    assert d["weighted_mean"] > d["mean"] + 1        # unweighted subsets favour few clues


@pytest.mark.slow
def test_controlled_bias_larger_sample():
    job = GeneratorJob("controlled-bias", per_batch=40000, pool_size=256, difficulty=[])
    total = _run(job, 8, stop_at=120)
    d = describe_result("controlled-bias", total)
    _within(d["mean"], 25.667, 1.116 / math.sqrt(total.count))
    _within(d["corrected_mean"], 26.577, d["corrected_mean_se"])


def test_weighted_subsets_with_sequential_grids():
    from sudokustudio.sudoku.generate import WeightedSubsetsJob

    job = WeightedSubsetsJob(per_batch=150, grid_source="sequential", difficulty=[])
    a = _run(job, 5, 2)
    assert a.extra["ratio_sums"][0] == 300
    assert np.array_equal(a.puzzles, _run(job, 5, 2).puzzles)
    if a.count:
        _assert_minimal(a.puzzles)
        # the grid's weight 1/(q * number of grids) is in how many subsets it got: a puzzle
        # weighs 1/Pr(inside a subset) / (subsets per grid of weight 1)
        assert _weights_of_strata(job, a.clues, a.weights)
    with pytest.raises(ValueError, match="grid source"):
        WeightedSubsetsJob(grid_source="solver")


def test_weighted_tail_diagnostics_flag_short_runs_and_under_sampled_classes():
    """The weighted figures carry a tail diagnostic: Kish's ESS over the samples' weights, the
    largest sample's share (kept as a maximum through merges, not a sum) and the classes of 1%
    of the weight or more seen in fewer than 10 effective samples; any of them raises the warning."""
    from sudokustudio.core.stats import class_tail_diagnostics as tail
    from sudokustudio.core.stats import class_tail_text
    from sudokustudio.sudoku.generate import WeightedSubsetsJob
    from sudokustudio.sudoku.generate.weighted import weighted_stats

    # by hand: 400 samples of weight 1 -> ESS 400, share 1/400; a 5%-class in 3 samples flags
    t = tail(400.0, 400.0, 1.0, {26: 0.5, 30: 0.004}, {26: 300.0, 30: 2.0})
    assert math.isclose(t["ess"], 400.0) and math.isclose(t["max_share"], 1 / 400)
    assert t["under_sampled"] == {} and not t["warning"] and class_tail_text(t) == ""
    t = tail(400.0, 400.0, 1.0, {26: 0.5, 28: 0.05}, {26: 300.0, 28: 3.0})
    assert t["under_sampled"] == {28: [0.05, 3.0]} and t["warning"]
    assert "c = 28 holds 5% of the weight in 3 effective samples" in class_tail_text(t)
    t = tail(400.0, 4000.0, 1.0, {26: 1.0}, {26: 300.0})     # ESS 40
    assert t["warning"] and "ESS 40 < 100" in class_tail_text(t)
    t = tail(400.0, 400.0, 40.0, {26: 1.0}, {26: 300.0})      # one sample 10% of the sum
    assert t["warning"] and "one sample 10% of the weight" in class_tail_text(t)

    job = WeightedSubsetsJob(per_batch=40, grid_source="sequential", difficulty=[])
    a, b = job.run_batch(0, 11), job.run_batch(1, 12)
    both = job.merge(job.merge(job.empty(), a), b)
    assert both.extra["largest"][0] == max(a.extra["largest"][0], b.extra["largest"][0]) > 0
    n, _, sb, _, sbb, _, _ = both.extra["ratio_sums"]
    d = weighted_stats(both)
    assert math.isclose(d["tail"]["ess"], sb * sb / sbb)
    assert math.isclose(d["tail"]["max_share"], both.extra["largest"][0] / sb)
    assert d["tail"]["warning"] and d["tail"]["ess"] < 100      # 80 samples: far too few
    old = job.merge(job.empty(), a)
    del old.extra["largest"]          # a result stored before the diagnostic: no share, still an ESS
    t = weighted_stats(old)["tail"]
    assert math.isnan(t["max_share"]) and t["ess"] > 0


def test_controlled_bias_tail_counts_each_puzzle_as_a_sample_of_weight_cf():
    """Corrected controlled-bias: ESS = (sum cf)^2 / sum cf^2 over its puzzles, the largest share
    is the heaviest puzzle's cf over the sum, a class's effective samples are its puzzles; a
    Berthier-sized sample (21,695 puzzles in seed 002's proportions) is trusted, 400 are not."""
    from sudokustudio.sudoku.correction import corrected_mean_variance
    from sudokustudio.sudoku.estimate.published import PUBLISHED_MINIMALS
    from sudokustudio.sudoku.generate.results import corrected_tail

    hist = np.zeros(82)
    hist[[24, 26, 28]] = [10, 20, 5]
    t = corrected_tail(hist)
    s1 = 10 * CF[24] + 20 * CF[26] + 5 * CF[28]
    assert math.isclose(t["ess"], s1 ** 2 / (10 * CF[24] ** 2 + 20 * CF[26] ** 2 + 5 * CF[28] ** 2))
    assert math.isclose(t["max_share"], CF[28] / s1) and t["warning"]
    assert t["under_sampled"][28] == [5 * CF[28] / s1, 5.0]
    _, p_cb = corrected_mean_variance({c: v for c, (v, _) in PUBLISHED_MINIMALS["berthier"].items()})
    for n, trusted in ((21_695, True), (400, False)):
        hist = np.zeros(82)
        for c, p in p_cb.items():
            hist[c] = round(n * p)
        assert corrected_tail(hist)["warning"] is not trusted


def test_merging_batches_one_by_one_grows_in_place_and_changes_no_result():
    from sudokustudio.sudoku.generate import GenResult, merge_results

    rng = np.random.default_rng(3)

    def batch(n, metric=True):
        p = rng.integers(0, 10, size=(n, 81), dtype=np.uint8)
        return GenResult(p, rng.random(n), {"guesses": rng.random(n)} if metric else {}, tries=n, solver_calls=1)

    parts = [batch(int(n)) for n in rng.integers(0, 40, size=60)]
    total, totals = GenResult(), []
    for b in parts:
        total = merge_results(total, b)
        totals.append((total, total.puzzles.copy(), total.weights.copy(), total.metrics["guesses"].copy()))
    assert np.array_equal(total.puzzles, np.concatenate([b.puzzles for b in parts]))
    assert np.array_equal(total.metrics["guesses"], np.concatenate([b.metrics["guesses"] for b in parts]))
    assert total.tries == sum(b.tries for b in parts) and total.solver_calls == 60
    # appended in place: the last totals share one store (few copies, not one per batch)
    assert np.shares_memory(totals[-1][0].puzzles, totals[-2][0].puzzles)
    # an older total merged again (a branch) is copied: no total ever sees its rows change
    old = totals[30][0]
    branch = merge_results(old, batch(7))
    assert not np.shares_memory(branch.puzzles, total.puzzles)
    assert np.array_equal(branch.puzzles[:old.count], old.puzzles)
    longer = merge_results(total, batch(5, metric=False))   # a metric missing on one side: NaN
    assert np.isnan(longer.metrics["guesses"][-5:]).all()
    for t, p, w, g in totals:
        assert np.array_equal(t.puzzles, p) and np.array_equal(t.weights, w)
        assert np.array_equal(t.metrics["guesses"], g)


def test_every_generator_job_names_an_unknown_difficulty_metric():
    """One check (``difficulty.check_metrics``) serves the three generator jobs and the metrics
    themselves: an unknown name is refused, by name, before any batch runs; a known list is kept."""
    from sudokustudio.sudoku.difficulty import check_metrics, puzzle_difficulty
    from sudokustudio.sudoku.generate.pattern import PatternJob
    from sudokustudio.sudoku.generate.weighted import WeightedSubsetsJob

    makers = [lambda d: GeneratorJob("top-down", difficulty=d),
              lambda d: PatternJob("symmetry", symmetry="central", difficulty=d),
              lambda d: WeightedSubsetsJob(difficulty=d)]
    for make in makers:
        with pytest.raises(ValueError, match="'hardness'"):
            make(["guesses", "hardness"])
        assert make(["brt"]).spec["difficulty"] == ["brt"]
    with pytest.raises(ValueError, match="'hardness'"):
        puzzle_difficulty(np.zeros((1, 81), np.uint8), ["hardness"])
    assert check_metrics(None, ("W",)) == ["W"]


def test_fast_generators_rate_by_w_only_when_asked_and_then_make_smaller_batches():
    """W costs ~10 ms a puzzle and a weighted sample yields ~70: by default the weighted sampler
    rates by guesses and brt (as the window always did, and as top-down does); asked for W, as a
    metric or through a band, its batch is one sample and top-down's 40 puzzles, so that a batch
    (what Stop waits for) stays well under a second.  Controlled-bias keeps every metric."""
    from sudokustudio.models.generators import build_job
    from sudokustudio.sudoku.generate.weighted import SAMPLES_PER_BATCH, WeightedSubsetsJob

    plain = WeightedSubsetsJob()
    assert plain.spec["difficulty"] == FAST and plain.spec["per_batch"] == SAMPLES_PER_BATCH
    for kw in (dict(difficulty=["guesses", "W"]), dict(bands=["W:3-5"])):
        assert WeightedSubsetsJob(**kw).spec["per_batch"] == 1
        assert GeneratorJob("top-down", **kw).spec["per_batch"] == 40
        assert GeneratorJob("controlled-bias", **kw).spec["per_batch"] == 40_000
    assert WeightedSubsetsJob(bands=["brt:0"]).spec["per_batch"] == SAMPLES_PER_BATCH
    assert WeightedSubsetsJob(difficulty=["W"], per_batch=7).spec["per_batch"] == 7   # asked for: kept
    assert GeneratorJob("top-down").spec["per_batch"] == 200
    assert GeneratorJob("controlled-bias").spec["difficulty"] == ["guesses", "brt", "W"]
    job, n = build_job("weighted-subsets", 120, bands=["W:4-"])
    assert job.spec["per_batch"] == 1 and n == 120
    job, n = build_job("weighted-subsets", 120)
    assert job.spec["per_batch"] * n == 120 and job.spec["per_batch"] <= SAMPLES_PER_BATCH
    # a W-rated batch rates what it made: one sample's puzzles (a sample may find none), each with its W
    rated = WeightedSubsetsJob(difficulty=["W"], pool_size=4)
    res = next(r for r in (rated.run_batch(0, seed) for seed in range(20)) if r.puzzles.shape[0])
    assert res.tries == 1
    assert res.metrics["W"].shape == (res.puzzles.shape[0],) and np.all(res.metrics["W"] >= 0)


def test_generator_jobs_share_their_totals():
    """Merging, the empty total and the units are those of GenResult for every generator job
    (the weighted sampler counts its grid samples instead of its puzzles)."""
    from sudokustudio.sudoku.generate.pattern import PatternJob
    from sudokustudio.sudoku.generate.results import GenResult
    from sudokustudio.sudoku.generate.weighted import WeightedSubsetsJob

    a = GenResult(np.ones((2, 81), np.uint8), np.ones(2), {}, tries=5)
    b = GenResult(np.ones((3, 81), np.uint8), np.ones(3), {}, tries=7)
    for job in (GeneratorJob("bottom-up"), PatternJob("symmetry", symmetry="central")):
        assert job.empty().count == 0
        total = job.merge(job.merge(job.empty(), a), b)
        assert total.count == 5 and total.tries == 12 and job.units(total) == 5
    weighted = WeightedSubsetsJob()
    assert weighted.method == "weighted-subsets" and weighted.units(weighted.merge(a, b)) == 12


def test_weighted_subsets_tail_stratum_counts_its_classes_and_stays_unbiased():
    """The strata split the clue classes: with the main stratum's 30-clue subsets taking c <= 26
    and the tail's 32-clue ones c >= 27 (so both carry about half the mass), and one tail
    subset a grid searched down to 26 clues, its 26-clue finds pooled with the main stratum's,
    the weighted mean still agrees with the real 26.577, every puzzle comes from a stratum
    counting its class with that stratum's weight, and a wrong tail weight would move the mean
    by far more than allowed."""
    from sudokustudio.sudoku.generate import WeightedSubsetsJob, inclusion_weights

    job = WeightedSubsetsJob(per_batch=200, pool_size=64, difficulty=[], s=30, tail_s=32, tail_from=27,
                             tail_per_grid=4, tail_deep=1)
    assert [tuple(r) for r in job.strata()[0]] == [(30, 4, 0, 27), (32, 1, 26, 82), (32, 3, 27, 82)]
    total = _run(job, 17, 10)
    d = job.describe(total)
    _within(d["weighted_mean"], 26.577, d["weighted_mean_se"])
    assert d["weighted_mean_se"] < 0.15        # 4 SE is well under the shift a wrong weight gives
    found = total.extra["found"]
    assert found[22:27].sum() > 0 and found[27:30].sum() > 0      # both strata found puzzles
    assert _weights_of_strata(job, total.clues, total.weights)
    # the main stratum's weights for the tail's classes are 6-24x the tail's (30- against
    # 32-clue subsets, 4 a grid each): the tail's finds weighed as the main's would lift the
    # mean by over 1
    assert np.all(inclusion_weights(30)[27:30] / inclusion_weights(32)[27:30] > 5)


@pytest.mark.parametrize("spec", [(32, 4, 33, 30, 7, 1), (32, 4, 33, 30, 8, 3), (30, 4, 32, 27, 4, 4),
                                  (28, 4, 33, 30, 2, 1), (32, 4, 33, 30, 5, 0)])
def test_pooled_strata_count_every_class_once_with_the_least_poisson_variance(spec):
    """For every clue count, summed over the strata counting it, E[finds a grid] x weight =
    subsets x Pr(inside) x inv_pr / subsets is exactly 1 (each class estimated without bias);
    the pooled class's shares are the ones of least Poisson variance (moving alpha either way
    raises it); and no class below 17 or above the largest subset is counted."""
    from sudokustudio.sudoku.generate.weighted import inclusion_weights, poisson_units, pooled_strata

    s, per_grid, tail_s, tail_from, tail_per_grid, deep = spec
    strata, inv_pr = pooled_strata(*spec)
    expected = np.zeros(82)
    for (size, k, lo, hi), row in zip(strata, inv_pr):
        w = inclusion_weights(int(size))
        pr = np.divide(1.0, w, out=np.zeros(82), where=w > 0)
        expected[lo:hi] += (k * pr * row / k)[lo:hi]
    top = max(s, tail_s)
    assert np.allclose(expected[:top + 1], 1.0) and not expected[top + 1:].any()
    units = poisson_units(strata, inv_pr)
    c = tail_from - 1
    if deep and c <= s:
        main_u, deep_u = inclusion_weights(s)[c] / per_grid, inclusion_weights(tail_s)[c] / deep
        assert math.isclose(units[c], 1 / (1 / main_u + 1 / deep_u))      # inverse-variance pooling
        for da in (-0.05, 0.05):
            rows = inv_pr.copy()
            rows[0, c] *= 1 + da
            rows[1, c] = inclusion_weights(tail_s)[c] - rows[0, c] / inclusion_weights(s)[c] * \
                inclusion_weights(tail_s)[c]
            assert poisson_units(strata, rows)[c] > units[c]
    assert math.isclose(units[tail_from], inclusion_weights(tail_s)[tail_from] / tail_per_grid)


def test_weighted_subsets_runs_stored_before_the_tail_resume_without_it():
    from sudokustudio.sudoku.generate import WeightedSubsetsJob

    old_spec = {k: v for k, v in WeightedSubsetsJob(per_batch=30, pool_size=8, difficulty=[]).spec.items()
                if not k.startswith("tail_")}
    old = WeightedSubsetsJob.from_spec(old_spec)
    assert old.spec["tail_per_grid"] == 0 and len(old.strata()[0]) == 1
    assert tuple(old.strata()[0][0]) == (32, 4, 0, 82)
    a = old.run_batch(0, 5)
    b = WeightedSubsetsJob(per_batch=30, pool_size=8, difficulty=[], tail_per_grid=0).run_batch(0, 5)
    assert np.array_equal(a.puzzles, b.puzzles) and np.array_equal(a.extra["whist"], b.extra["whist"])
    new = WeightedSubsetsJob(per_batch=30, pool_size=8, difficulty=[])
    assert [tuple(r) for r in new.strata()[0]] == [(32, 4, 0, 30), (33, 2, 29, 82), (33, 10, 30, 82)]
    before_deep = WeightedSubsetsJob.from_spec({k: v for k, v in new.spec.items() if k != "tail_deep"})
    assert before_deep.spec["tail_deep"] == 0 and len(before_deep.strata()[0]) == 2
    # a run stored with the defaults before 12 tail subsets (7, one deeper) resumes with them
    seven = WeightedSubsetsJob.from_spec({**new.spec, "tail_per_grid": 7, "tail_deep": 1})
    assert [tuple(r) for r in seven.strata()[0]] == [(32, 4, 0, 30), (33, 1, 29, 82), (33, 6, 30, 82)]


def test_weighted_subsets_bad_tail_options_are_named():
    from sudokustudio.sudoku.generate import WeightedSubsetsJob

    with pytest.raises(ValueError, match="tail subsets per grid"):
        WeightedSubsetsJob(tail_per_grid=-1)
    with pytest.raises(ValueError, match="tail stratum"):
        WeightedSubsetsJob(tail_s=33, tail_from=34)
    WeightedSubsetsJob(tail_s=33, tail_from=34, tail_per_grid=0)   # no stratum: its sizes do not matter
    with pytest.raises(ValueError, match="deeper tail subsets per grid"):
        WeightedSubsetsJob(tail_per_grid=2, tail_deep=3)
    assert WeightedSubsetsJob(tail_per_grid=0).spec["tail_deep"] == 0


def test_a_clue_share_seen_in_few_samples_is_not_tested_against_seed_002():
    """The z-score needs an effective sample size of 10 behind the share: a class found in one
    sample (ESS 1) is left out however far off it reads."""
    from sudokustudio.sudoku.generate.weighted import SEED002_SHARES, distribution_check

    ref = SEED002_SHARES[25][0]
    stats = {"weighted_hist": {25: ref * 1.5, 26: ref * 1.5}, "weighted_hist_se": {25: ref * 0.01, 26: ref * 0.01},
             "weighted_hist_ess": {25: 40.0, 26: 1.0}}
    z = distribution_check(stats)
    assert set(z) == {25} and z[25] > 20
    assert set(distribution_check(stats, min_ess=1.0)) == {25, 26}


def test_weighted_subsets_distribution_agrees_with_seed_002_class_by_class():
    """Every clue count found (20..31) has its weighted share within 4 combined SE of seed 002's
    real distribution (Berthier's counts), with sequential (unbiased) grids; the unweighted
    shares of the same puzzles, which favour few clues, are far off: the check can fail."""
    from sudokustudio.sudoku.generate import WeightedSubsetsJob
    from sudokustudio.sudoku.generate.weighted import SEED002_SHARES, distribution_check

    # 4,000 samples: the 28-clue class, one find in ~100 samples, reads ESS 8-11 after 2,000
    job = WeightedSubsetsJob(per_batch=200, grid_source="sequential", difficulty=[])
    total = _run(job, 23, 20)
    d = job.describe(total)
    z = distribution_check(d)
    assert set(range(22, 29)) <= set(z), sorted(z)
    assert all(d["weighted_hist_ess"][c] >= 10 for c in z)
    assert set(d["seed002_untested"]) == {c for c in d["weighted_hist"] if 20 <= c <= 31} - set(z)
    assert all(abs(v) < 4 for v in z.values()), {c: round(v, 2) for c, v in z.items()}
    n = sum(d["found_hist"].values())
    raw = {c: k / n for c, k in d["found_hist"].items()}
    off = [c for c in z if abs(raw[c] - SEED002_SHARES[c][0]) > 4 * d["weighted_hist_se"][c] + 0.01]
    assert len(off) >= 4


def test_a_w_rated_batch_stops_between_chunks_when_its_run_is_stopped(monkeypatch):
    """One weighted sample can yield hundreds of puzzles at ~10 ms each to rate by W: the rating
    looks at the batch's cancel flag every ``W_CHUNK`` puzzles, so Stop waits for one chunk, not
    for the batch (median 2.6 s, up to 6.5 s in the window before).  The chunked ratings are the
    one-call ratings."""
    from sudokustudio.core.batch import BatchCancelled, cancel_scope
    from sudokustudio.sudoku import difficulty
    from sudokustudio.sudoku.generate.weighted import WeightedSubsetsJob
    from sudokustudio.sudoku.rating import rate_puzzles

    job = WeightedSubsetsJob(difficulty=["W"], pool_size=4)
    seed, res = next((s, r) for s, r in ((s, job.run_batch(0, s)) for s in range(40))
                     if r.puzzles.shape[0] > 2 * difficulty.W_CHUNK)
    assert np.array_equal(res.metrics["W"], rate_puzzles(res.puzzles)[0])
    stop = np.zeros(1, dtype=np.int64)
    rated = []

    def rate_then_stop(puzzles, cap):     # the user presses Stop while the first chunk is rated
        rated.append(len(puzzles))
        stop[0] = 1
        return rate_puzzles(puzzles, cap)

    monkeypatch.setattr(difficulty, "rate_puzzles", rate_then_stop)
    with cancel_scope(stop), pytest.raises(BatchCancelled):
        job.run_batch(0, seed)
    assert rated == [difficulty.W_CHUNK]


def test_difficulty_asks_brt_only_where_the_solver_did_not_guess(shared_data):
    """``difficulty_kernel`` runs BRT only on the puzzles the solver solved without a guess (its
    propagation does all that singles do); the guesses and BRT flags equal asking both of every
    puzzle, and the BRT flags equal Berthier's own BRT column for his 21,695 controlled-bias
    puzzles (solved by BRT exactly when 81 cells are decided after it).  Puzzles with no
    solution and with several are in the set too."""
    from sudokustudio.sudoku.difficulty import difficulty_kernel
    from sudokustudio.sudoku.rating.kernels import brt_kernel
    from sudokustudio.sudoku.solver import solve_kernel

    cb = shared_data / "controlled_bias"
    lines = (cb / "001-puzzles.txt").read_text().splitlines()
    puzzles = np.array([[0 if ch == "." else int(ch) for ch in ln.split()[0]] for ln in lines], dtype=np.uint8)
    after = np.array([int(v) for v in (cb / "001-nb-clues-after-BRT.txt").read_text().split()])
    hard = [ln.split()[0] for ln in (shared_data / "puzzles6_forum_hardest_1106").read_text().splitlines()
            if ln.strip() and not ln.startswith("#")][:200]
    hard = np.array([[0 if ch in ".0" else int(ch) for ch in p[:81]] for p in hard], dtype=np.uint8)
    odd = puzzles[:40].copy()
    odd[:20, :] = 0
    odd[:20, :5] = puzzles[:20, :5]             # a few clues: several solutions
    odd[20:, 0] = odd[20:, 2] = 9                # 9 twice in the first row: no solution
    every = np.concatenate([puzzles, hard, odd])
    guesses = np.zeros(len(every), dtype=np.int64)
    brt = np.zeros(len(every), dtype=np.uint8)
    difficulty_kernel(every, guesses, brt)
    sol = np.zeros(81, dtype=np.uint8)
    for i, p in enumerate(every):
        _, g = solve_kernel(p, np.int64(2), sol)
        solved, _, _ = brt_kernel(p)
        assert (guesses[i], brt[i]) == (g, int(solved)), i
    assert (brt[:len(puzzles)] == (after == 81)).all()
    assert 0 < brt.sum() < (guesses == 0).sum() < len(every)    # both paths are taken
