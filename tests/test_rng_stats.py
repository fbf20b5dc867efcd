import math

import numpy as np
import pytest
from hypothesis import given, settings as hsettings, strategies as st

from sudokustudio.core.rng import (batch_seed, next_u64, rand_below, rand_float, seed_state, shuffle_inplace,
                                   shuffle_tail)
from sudokustudio.core.stats import (Moments, PowerSums, control_variate_mean, kurtosis_standard_error,
                                     skewness_standard_error)


def test_rng_reproducible_and_distinct():
    a, b, c = seed_state(np.uint64(5)), seed_state(np.uint64(5)), seed_state(np.uint64(6))
    xa = [next_u64(a) for _ in range(5)]
    assert xa == [next_u64(b) for _ in range(5)]
    assert xa != [next_u64(c) for _ in range(5)]


def test_batch_seed_is_seedsequence_spawn():
    children = np.random.SeedSequence(2024).spawn(5)
    for i, child in enumerate(children):
        assert batch_seed(2024, i) == int(child.generate_state(1, dtype=np.uint64)[0])
    assert len({batch_seed(1, i) for i in range(1000)}) == 1000


def test_rand_below_uniform_chi_square():
    s = seed_state(np.uint64(99))
    n, k = 90000, 9
    counts = np.bincount([rand_below(s, k) for _ in range(n)], minlength=k)
    chi2 = float(((counts - n / k) ** 2 / (n / k)).sum())
    assert chi2 < 26.1  # 99.9% quantile of chi-square with 8 d.o.f.
    u = np.array([rand_float(s) for _ in range(20000)])
    assert 0 <= u.min() and u.max() < 1
    assert abs(u.mean() - 0.5) < 4 * math.sqrt(1 / 12 / len(u))


def test_shuffle_is_permutation():
    s = seed_state(np.uint64(1))
    a = np.arange(50)
    shuffle_inplace(s, a)
    assert sorted(a) == list(range(50)) and list(a) != list(range(50))


@pytest.mark.parametrize("n,k", [(6, 3), (5, 2), (4, 4), (5, 5)])
def test_shuffle_tail_draws_every_ordered_sample_equally_often(n, k):
    """The tail is a uniform ordered k-sample (odd and even k: draws come in pairs),
    and the array stays a permutation of what it held."""
    s = seed_state(np.uint64(n * 10 + k))
    a = np.arange(n)
    cells = math.perm(n, k)
    per = 400
    counts = {}
    for _ in range(cells * per):
        shuffle_tail(s, a, k)
        assert sorted(a) == list(range(n))
        key = tuple(a[n - k:])
        counts[key] = counts.get(key, 0) + 1
    assert len(counts) == cells
    chi2 = sum((c - per) ** 2 / per for c in counts.values())
    dof = cells - 1
    assert chi2 < dof + 5 * math.sqrt(2 * dof), (chi2, dof)


def _direct(x, w=None):
    x = np.asarray(x, float)
    w = np.ones_like(x) if w is None else np.asarray(w, float)
    W = w.sum()
    mu = (w * x).sum() / W
    m2, m3, m4 = ((w * (x - mu) ** k).sum() / W for k in (2, 3, 4))
    return mu, m3 / m2 ** 1.5, m4 / m2 ** 2 - 3


def test_moments_match_direct_formulas():
    rng = np.random.default_rng(3)
    x = rng.gamma(2.0, size=5000)
    m = Moments.of(x)
    mu, skew, kurt = _direct(x)
    assert m.mean == pytest.approx(mu, rel=1e-12)
    assert m.sd == pytest.approx(x.std(ddof=1), rel=1e-12)
    assert m.skewness == pytest.approx(skew, rel=1e-10)
    assert m.kurtosis == pytest.approx(kurt, rel=1e-10)
    assert m.std_error == pytest.approx(x.std(ddof=1) / math.sqrt(len(x)), rel=1e-12)
    assert m.rel_err == pytest.approx(x.std(ddof=1) / (x.mean() * math.sqrt(len(x))), rel=1e-12)
    lo, hi = m.confidence_interval()
    assert lo < mu < hi and hi - lo == pytest.approx(2 * 1.959964 * m.std_error, rel=1e-6)


def test_weighted_moments_match_direct_formulas():
    rng = np.random.default_rng(4)
    x = rng.normal(size=3000)
    w = rng.random(3000)
    m = Moments.of(x, w)
    mu, skew, kurt = _direct(x, w)
    assert m.mean == pytest.approx(mu, rel=1e-12)
    assert m.skewness == pytest.approx(skew, rel=1e-9, abs=1e-12)
    assert m.kurtosis == pytest.approx(kurt, rel=1e-9)
    assert m.n_eff == pytest.approx(w.sum() ** 2 / (w * w).sum())
    # integer weights equal repeated observations
    xi = np.array([1.0, 2.0, 5.0])
    wi = np.array([2, 1, 3])
    rep = Moments.of(np.repeat(xi, wi))
    mw = Moments.of(xi, wi)
    assert mw.mean == pytest.approx(rep.mean) and mw.skewness == pytest.approx(rep.skewness)
    assert mw.kurtosis == pytest.approx(rep.kurtosis)


def test_weighted_standard_error_is_the_ratio_estimator_s():
    """With weights, the mean is sum(w x) / sum(w): its SE is sqrt(n/(n-1) sum w^2 (x-mean)^2) / sum w
    (the direct formula), and that is the spread of the mean over replicates when the weights are
    largest where x is far from the mean (controlled-bias's cf(n) on clue counts), where
    sd / sqrt(n_eff) reads about 1.3x too small: the check can fail."""
    from sudokustudio.sudoku.correction import CF

    rng = np.random.default_rng(12)
    x = rng.normal(size=500)
    w = rng.random(500) + np.abs(x)
    m = Moments.of(x, w)
    mu = (w * x).sum() / w.sum()
    assert m.std_error == pytest.approx(math.sqrt(500 / 499 * (w * w * (x - mu) ** 2).sum()) / w.sum(), rel=1e-12)
    assert m.rel_err == pytest.approx(m.std_error / abs(m.mean))
    # clue counts drawn as controlled-bias draws them, weighted back by cf(n)
    c = np.arange(22, 32)
    p = np.array([3.5e-5, 1.5e-3, 2.3e-2, 0.134, 0.319, 0.327, 0.155, 0.036, 4.1e-3, 2.4e-4])
    p_cb = p / CF[c] / (p / CF[c]).sum()
    means, ses, old = [], [], []
    for _ in range(4000):
        k = rng.choice(c, size=400, p=p_cb)
        r = Moments.of(k, CF[k])
        means.append(r.mean)
        ses.append(r.std_error)
        old.append(r.sd / math.sqrt(r.n_eff))
    spread = np.std(means, ddof=1)      # +- 1.1% (4000 replicates)
    assert np.sqrt(np.mean(np.square(ses))) == pytest.approx(spread, rel=0.05)
    assert np.sqrt(np.mean(np.square(old))) < 0.85 * spread


@hsettings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.floats(-1e3, 1e3), st.floats(0.01, 100.0)), min_size=2, max_size=60), st.data())
def test_weighted_merge_keeps_the_standard_error(pairs, data):
    x, w = np.array(pairs).T
    cuts = sorted(data.draw(st.lists(st.integers(0, len(x)), max_size=4)))
    merged = Moments()
    for px, pw in zip(np.split(x, cuts), np.split(w, cuts)):
        merged = merged.merge(Moments.of(px, pw))
    whole = Moments.of(x, w)
    assert merged.q2 == pytest.approx(whole.q2, rel=1e-6, abs=1e-3)
    assert merged.q1 == pytest.approx(whole.q1, rel=1e-6, abs=1e-2)
    if whole.q2 > 1e-6:
        assert merged.std_error == pytest.approx(whole.std_error, rel=1e-5)


@hsettings(max_examples=60, deadline=None)
@given(st.lists(st.floats(-1e3, 1e3), min_size=2, max_size=60), st.data())
def test_merge_is_associative_and_matches_whole(values, data):
    cuts = sorted(data.draw(st.lists(st.integers(0, len(values)), max_size=4)))
    parts = np.split(np.array(values), cuts)
    merged = Moments()
    for p in parts:
        merged = merged.merge(Moments.of(p))
    whole = Moments.of(values)
    assert merged.n == whole.n
    assert merged.mean == pytest.approx(whole.mean, rel=1e-9, abs=1e-9)
    assert merged.m2 == pytest.approx(whole.m2, rel=1e-7, abs=1e-6)
    assert merged.m3 == pytest.approx(whole.m3, rel=1e-6, abs=1e-3)
    assert merged.m4 == pytest.approx(whole.m4, rel=1e-6, abs=1e-1)


def test_round_trip_dict_and_empty_cases():
    m = Moments.of([1.0, 2.0, 4.0])
    assert Moments.from_dict(m.to_dict()) == m
    e = Moments()
    assert e.merge(m) == Moments(m.n, m.w, m.w2, m.mean, m.m2, m.m3, m.m4, m.q1, m.q2)
    # a record made before q1, q2 loads, and keeps its old standard error sd / sqrt(n_eff)
    legacy = {k: v for k, v in Moments.of([1.0, 2.0, 4.0], [1.0, 2.0, 3.0]).to_dict().items() if k not in ("q1", "q2")}
    old = Moments.from_dict(legacy)
    assert old.q2 == 0.0 and old.std_error == pytest.approx(old.sd / math.sqrt(old.n_eff))
    assert math.isnan(e.sd) and math.isnan(Moments.of([3.0]).sd)


def test_standard_errors_of_shape_statistics():
    # textbook values: SES(n=100) = 0.2414, SEK(n=100) = 0.4783
    assert skewness_standard_error(100) == pytest.approx(0.2414, abs=1e-4)
    assert kurtosis_standard_error(100) == pytest.approx(0.4783, abs=1e-4)


def test_power_sums():
    rng = np.random.default_rng(5)
    x = rng.poisson(3.0, size=(400, 4)).astype(float)
    a = PowerSums(200, x[:200].sum(0), (x[:200] ** 2).sum(0))
    b = PowerSums(200, x[200:].sum(0), (x[200:] ** 2).sum(0))
    m = a.merge(b)
    assert np.allclose(m.mean, x.mean(0))
    assert np.allclose(m.sd, x.std(0, ddof=1))
    assert np.allclose(m.rel_err, x.std(0, ddof=1) / (x.mean(0) * 20))


def test_control_variate_mean_is_least_squares_at_the_known_mean():
    """The regression estimator from power sums equals least squares on the samples (numpy's
    lstsq) evaluated at w = w_mean, with the textbook prediction SE s^2 x0' (X'X)^-1 x0."""
    rng = np.random.default_rng(3)
    w = rng.gamma(2.0, 0.5, 400)
    y = 7.0 * w + rng.normal(0.0, 2.0, 400) + 1.5
    X = np.column_stack([np.ones_like(w), w])
    beta, res, *_ = np.linalg.lstsq(X, y, rcond=None)
    x0 = np.array([1.0, 1.3])
    s2 = res[0] / (len(y) - 2)
    se = math.sqrt(s2 * x0 @ np.linalg.inv(X.T @ X) @ x0)
    est, got_se = control_variate_mean(len(y), y.sum(), (y * y).sum(), (y * w).sum(), w.sum(), (w * w).sum(), 1.3)
    assert est == pytest.approx(x0 @ beta, rel=1e-9) and got_se == pytest.approx(se, rel=1e-6)
    # y a multiple of w: the control variate leaves no error at all; w constant: no estimate
    e, s = control_variate_mean(len(w), 3 * w.sum(), 9 * (w * w).sum(), 3 * (w * w).sum(), w.sum(), (w * w).sum())
    assert e == pytest.approx(3.0) and s < 1e-6
    assert control_variate_mean(10, 5.0, 3.0, 5.0, 10.0, 10.0) is None


def test_control_variate_mean_is_unbiased_and_its_se_is_honest():
    """2,000 repetitions of 200 samples whose w has mean 1 and whose y = w m + noise: the estimates
    average to m within 4 of their SE, the SE's scatter matches the stated SE (within 10%), and it
    is the noise's alone (1 / sqrt(n)) where the plain mean's adds w's spread times m."""
    rng = np.random.default_rng(11)
    m, reps, n = 4.0, 2000, 200
    w = rng.exponential(1.0, (reps, n))
    y = w * m + rng.normal(0.0, 1.0, (reps, n))
    got = np.array([control_variate_mean(n, a.sum(), (a * a).sum(), (a * b).sum(), b.sum(), (b * b).sum())
                    for a, b in zip(y, w)])
    assert abs(got[:, 0].mean() - m) < 4 * got[:, 0].std() / math.sqrt(reps)
    assert got[:, 0].std() == pytest.approx(got[:, 1].mean(), rel=0.1)
    assert got[:, 0].std() == pytest.approx(1 / math.sqrt(n), rel=0.1)
    assert y.mean(axis=1).std() == pytest.approx(math.sqrt((m * m + 1) / n), rel=0.1)
