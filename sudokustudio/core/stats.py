"""Running statistics that merge associatively.

``Moments`` keeps (weighted) count, mean and central moment sums M2..M4 and
merges with the pairwise formulas of Chan et al. / Pebay, so batches can be
combined in any grouping.  Unweighted statistics are weighted ones with unit
weights.  Everything is plain Python/NumPy: it is what batch results carry.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from sudokustudio.core.plain import plain_dataclass

Z95 = 1.959963984540054


@plain_dataclass("Moments")
@dataclass
class Moments:
    """Weighted running moments of a scalar variable.

    ``w`` is the total weight, ``w2`` the sum of squared weights (for the
    effective sample size), ``n`` the number of observations; ``q1, q2`` are
    sum w^2 (x - mean) and sum w^2 (x - mean)^2, for the standard error of the
    weighted mean as a ratio estimator (0, 0 in records made before them).
    """

    n: int = 0
    w: float = 0.0
    w2: float = 0.0
    mean: float = 0.0
    m2: float = 0.0
    m3: float = 0.0
    m4: float = 0.0
    q1: float = 0.0
    q2: float = 0.0

    # -- building -------------------------------------------------------
    @classmethod
    def of(cls, values, weights=None) -> "Moments":
        x = np.asarray(values, dtype=np.float64).ravel()
        if x.size == 0:
            return cls()
        wt = np.ones_like(x) if weights is None else np.asarray(weights, dtype=np.float64).ravel()
        if wt.shape != x.shape:
            raise ValueError("values and weights differ in length")
        W = float(wt.sum())
        if W <= 0:
            return cls(n=int(x.size))
        mu = float((wt * x).sum() / W)
        d = x - mu
        return cls(
            n=int(x.size),
            w=W,
            w2=float((wt * wt).sum()),
            mean=mu,
            m2=float((wt * d**2).sum()),
            m3=float((wt * d**3).sum()),
            m4=float((wt * d**4).sum()),
            q1=float((wt * wt * d).sum()),
            q2=float((wt * wt * d**2).sum()),
        )

    def add(self, x: float, weight: float = 1.0) -> None:
        self.merge_in(Moments.of([x], [weight]))

    def merge(self, other: "Moments") -> "Moments":
        """A new Moments for the union of both samples."""
        if other.w == 0:
            return Moments(self.n + other.n, self.w, self.w2, self.mean, self.m2, self.m3, self.m4, self.q1, self.q2)
        if self.w == 0:
            return Moments(self.n + other.n, other.w, other.w2, other.mean, other.m2, other.m3, other.m4,
                           other.q1, other.q2)
        wa, wb = self.w, other.w
        W = wa + wb
        d = other.mean - self.mean
        d_w = d / W
        mean = self.mean + wb * d_w
        m2 = self.m2 + other.m2 + d * d_w * wa * wb
        m3 = (
            self.m3 + other.m3
            + d * d_w * d_w * wa * wb * (wa - wb)
            + 3.0 * d_w * (wa * other.m2 - wb * self.m2)
        )
        m4 = (
            self.m4 + other.m4
            + d * d_w**3 * wa * wb * (wa * wa - wa * wb + wb * wb)
            + 6.0 * d_w * d_w * (wa * wa * other.m2 + wb * wb * self.m2)
            + 4.0 * d_w * (wa * other.m3 - wb * self.m3)
        )
        # sum w^2 (x - mean)^k about the new mean, k = 1, 2, part by part
        da, db = self.mean - mean, other.mean - mean
        q1 = self.q1 + da * self.w2 + other.q1 + db * other.w2
        q2 = (self.q2 + 2.0 * da * self.q1 + da * da * self.w2
              + other.q2 + 2.0 * db * other.q1 + db * db * other.w2)
        return Moments(self.n + other.n, W, self.w2 + other.w2, mean, m2, m3, m4, q1, q2)

    def merge_in(self, other: "Moments") -> None:
        merged = self.merge(other)
        self.__dict__.update(merged.__dict__)

    # -- reading ----------------------------------------------------------
    @property
    def n_eff(self) -> float:
        """Kish's effective sample size (equals n for unit weights)."""
        return self.w * self.w / self.w2 if self.w2 > 0 else 0.0

    @property
    def variance(self) -> float:
        """Sample variance (unbiased for unit weights: divides by n - 1)."""
        if self.n < 2 or self.w <= 0:
            return float("nan")
        # reliability-weights correction; reduces to m2/(n-1) for unit weights
        denom = self.w - self.w2 / self.w
        return self.m2 / denom if denom > 0 else float("nan")

    @property
    def sd(self) -> float:
        v = self.variance
        return math.sqrt(v) if v == v and v >= 0 else float("nan")

    @property
    def skewness(self) -> float:
        """Population skewness g1 = m3 / m2^1.5 (moments per unit weight)."""
        if self.w <= 0 or self.m2 <= 0:
            return float("nan")
        return (self.m3 / self.w) / (self.m2 / self.w) ** 1.5

    @property
    def kurtosis(self) -> float:
        """Population excess kurtosis g2 = m4 / m2^2 - 3."""
        if self.w <= 0 or self.m2 <= 0:
            return float("nan")
        return (self.m4 / self.w) / (self.m2 / self.w) ** 2 - 3.0

    @property
    def std_error(self) -> float:
        """Standard error of the (weighted) mean: sd / sqrt(n) for unit weights; for weights, the
        mean is a ratio sum(w x) / sum(w) and its SE the delta method's,
        sqrt(n / (n - 1) * sum w^2 (x - mean)^2) / sum w.  (sd / sqrt(n_eff) is not: it reads
        low when the weights are largest where x is furthest from the mean, as cf(n) is for
        controlled-bias's clue counts.)  Records made before q2 keep that old figure."""
        if self.n < 2 or self.w <= 0:
            return float("nan")
        if self.q2 == 0.0 and self.m2 > 0.0:     # a record without q2
            ne = self.n_eff
            return self.sd / math.sqrt(ne) if ne > 0 else float("nan")
        return math.sqrt(max(self.q2, 0.0) * self.n / (self.n - 1)) / self.w

    @property
    def skewness_se(self) -> float:
        return skewness_standard_error(self.n_eff)

    @property
    def kurtosis_se(self) -> float:
        return kurtosis_standard_error(self.n_eff)

    @property
    def rel_err(self) -> float:
        """Relative error of the mean: its standard error / |mean| (sd / (mean sqrt(n)) for unit
        weights)."""
        if self.mean == 0:
            return float("nan")
        return abs(self.std_error / self.mean)

    def confidence_interval(self, z: float = Z95) -> tuple[float, float]:
        se = self.std_error
        return self.mean - z * se, self.mean + z * se

    def to_dict(self) -> dict:
        return dict(n=self.n, w=self.w, w2=self.w2, mean=self.mean, m2=self.m2, m3=self.m3, m4=self.m4,
                    q1=self.q1, q2=self.q2)

    @classmethod
    def from_dict(cls, d: dict) -> "Moments":
        return cls(**{k: d[k] for k in ("n", "w", "w2", "mean", "m2", "m3", "m4")},
                   **{k: d.get(k, 0.0) for k in ("q1", "q2")})


# Tail diagnostics of an importance-sampling estimate (sum of non-negative sample values w_i).
# The RE sd/(mean sqrt n) is itself estimated from the samples; with heavy-tailed weights it is
# too small until the rare large weights have been seen.  Rule (documented in README): the RE is
# flagged as not yet trustworthy while the effective sample size (Kish) is below TAIL_MIN_ESS or the
# largest single value is more than TAIL_MAX_SHARE of the sum (one sample moves the estimate by more
# than that).  share <= 1/sqrt(ESS), so a share above 0.05 already means ESS < 400.
TAIL_MIN_ESS = 100.0
TAIL_MAX_SHARE = 0.05


def sample_variance(n: int, s1: float, s2: float) -> float:
    """The unbiased sample variance of n values from their sum ``s1`` and sum of squares ``s2``
    (0 for n < 2; rounding below 0 is clipped)."""
    mean = s1 / n
    return max(s2 / n - mean * mean, 0.0) * n / max(n - 1, 1)


def control_variate_mean(n: int, y1: float, y2: float, yw: float, w1: float, w2: float,
                         w_mean: float = 1.0) -> tuple[float, float] | None:
    """The mean of y with a control variate w of known mean ``w_mean`` (the regression
    estimator), from the power sums of n samples: sum y, sum y^2, sum y w, sum w, sum w^2.

    mean(y) - b (mean(w) - w_mean) with b = S_yw / S_ww fitted on the same samples; its SE is
    the residuals' (n - 2 degrees of freedom) at w = w_mean.  Its bias is O(1/n) (from the fitted
    b), far below the SE at the sample sizes it is used for.  Returns (mean, SE), or None when w
    does not vary (or n < 3): then only the plain mean applies."""
    if n < 3:
        return None
    y_bar, w_bar = y1 / n, w1 / n
    s_ww = w2 - n * w_bar * w_bar
    if not s_ww > 1e-12 * max(w2, 1e-300):
        return None
    s_yw = yw - n * y_bar * w_bar
    s_yy = y2 - n * y_bar * y_bar
    b = s_yw / s_ww
    resid = max(s_yy - s_yw * b, 0.0) / (n - 2)
    d = w_bar - w_mean
    return y_bar - b * d, math.sqrt(resid * (1.0 / n + d * d / s_ww))


def tail_diagnostics(s1: float, s2: float, wmax: float) -> dict:
    """{max_share, ess, warning} of values with sum ``s1``, sum of squares ``s2`` and largest ``wmax``.

    max_share = wmax / s1; ess = s1^2 / s2 (Kish); warning = ess < TAIL_MIN_ESS or
    max_share > TAIL_MAX_SHARE (or nothing non-zero seen yet)."""
    if not (s1 > 0 and s2 > 0):
        return {"max_share": float("nan"), "ess": 0.0, "warning": True}
    share = wmax / s1
    ess = s1 * s1 / s2
    return {"max_share": share, "ess": ess, "warning": bool(ess < TAIL_MIN_ESS or share > TAIL_MAX_SHARE)}


#: a clue class (of a weighted or corrected distribution) is under-sampled while it holds at least
#: UNDER_SAMPLED_SHARE of the weight and rests on fewer than CLASS_MIN_ESS effective samples: its
#: share is then a guess, and every other share and the mean lean on it (a 1,000-sample run of the
#: weighted sampler read c = 28 at 7.8% against the real 15.5%, the mean 4.8 of its SE low and
#: c = 26's share 4.7 SE high); below CLASS_MIN_ESS a class's delta-method SE is itself too rough
CLASS_MIN_ESS = 10.0
UNDER_SAMPLED_SHARE = 0.01


def class_tail_diagnostics(s1: float, s2: float, wmax: float, shares: dict, class_ess: dict) -> dict:
    """``tail_diagnostics`` of the samples' weights (sum, sum of squares, largest) and the
    under-sampled classes ({c: [share of the weight, effective samples]}), which raise the
    warning too.  While it is raised, the weighted (or corrected) mean's SE and the classes'
    shares and z-scores read low: the rare heavy samples that set them have not been seen enough."""
    t = tail_diagnostics(s1, s2, wmax)
    t["under_sampled"] = {c: [share, class_ess[c]] for c, share in sorted(shares.items())
                          if c in class_ess and share >= UNDER_SAMPLED_SHARE and class_ess[c] < CLASS_MIN_ESS}
    t["warning"] = bool(t["warning"] or t["under_sampled"])
    return t


def class_tail_text(t: dict | None, what: str = "the weighted mean's SE and the clue shares") -> str:
    """The warning shown while ``class_tail_diagnostics`` flags ``what`` ('' otherwise)."""
    if not t or not t["warning"]:
        return ""
    why = []
    if t["ess"] < TAIL_MIN_ESS:
        why.append(f"ESS {t['ess']:.3g} < {TAIL_MIN_ESS:g}")
    if t["max_share"] > TAIL_MAX_SHARE:
        why.append(f"one sample {100 * t['max_share']:.2g}% of the weight")
    why += [f"c = {c} holds {100 * share:.2g}% of the weight in {n:.2g} effective samples"
            for c, (share, n) in t["under_sampled"].items()]
    return f"Heavy tail: {what} cannot be trusted yet ({'; '.join(why)}); run longer."


def skewness_standard_error(n: float) -> float:
    """Standard error of the sample skewness of a normal sample of size n."""
    if n < 3:
        return float("nan")
    return math.sqrt(6.0 * n * (n - 1) / ((n - 2) * (n + 1) * (n + 3)))


def kurtosis_standard_error(n: float) -> float:
    """Standard error of the sample excess kurtosis of a normal sample of size n."""
    if n < 4:
        return float("nan")
    ses = skewness_standard_error(n)
    return 2.0 * ses * math.sqrt((n * n - 1) / ((n - 3) * (n + 5)))


@plain_dataclass("PowerSums")
@dataclass
class PowerSums:
    """Per-category sums n, sum(x), sum(x^2) of an estimator sampled n times.

    Used for vectors of estimators (e.g. one per clue count) where most
    samples are zero: adding is exact and order-free for integer-valued x.
    """

    n: int = 0
    s1: np.ndarray = field(default_factory=lambda: np.zeros(0))
    s2: np.ndarray = field(default_factory=lambda: np.zeros(0))

    def merge(self, other: "PowerSums") -> "PowerSums":
        if self.s1.size == 0:
            return PowerSums(self.n + other.n, other.s1.copy(), other.s2.copy())
        if other.s1.size == 0:
            return PowerSums(self.n + other.n, self.s1.copy(), self.s2.copy())
        return PowerSums(self.n + other.n, self.s1 + other.s1, self.s2 + other.s2)

    @property
    def mean(self) -> np.ndarray:
        return self.s1 / self.n if self.n else np.full_like(self.s1, np.nan)

    @property
    def sd(self) -> np.ndarray:
        if self.n < 2:
            return np.full_like(self.s1, np.nan)
        var = (self.s2 - self.s1 * self.s1 / self.n) / (self.n - 1)
        return np.sqrt(np.maximum(var, 0.0))

    @property
    def rel_err(self) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore"):
            return self.sd / (np.abs(self.mean) * math.sqrt(max(self.n, 1)))
