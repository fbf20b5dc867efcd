"""Results of the generators and their statistics: puzzles with weights and
difficulty metrics, clue-count moments (raw, cf-corrected, weighted), and
seed 002's published figures to compare with."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from sudokustudio.core.batch import BatchJob
from sudokustudio.core.growing import appended_columns
from sudokustudio.core.plain import plain_dataclass
from sudokustudio.core.stats import Moments, class_tail_diagnostics, class_tail_text
from sudokustudio.sudoku.correction import CF

# ---------------------------------------------------------------- seed 002 figures
#: published mean / sd / skewness / kurtosis of the clue count (seed 002 §1.3.1, §3.1.1)
PUBLISHED = {
    "top-down": {"mean": 24.38, "sd": 1.12, "skew": 0.08, "kurt": 0.007, "source": "suexg sudogen0_1M"},
    "bottom-up": {"mean": 23.87, "sd": 1.08, "skew": 0.11, "kurt": 0.026, "source": "suexg14-0_1M"},
    "controlled-bias": {"mean": 25.667, "sd": 1.116, "skew": 0.087, "kurt": 0.024, "source": "gsf-cb"},
    "real": {"mean": 26.577, "sd": 1.116, "skew": 0.0, "kurt": 0.0, "source": "gsf-cb corrected"},
}
#: controlled-bias sample of seed 002 §3.1.2 (clues -> instances), 5,926,343 puzzles
PUBLISHED_CB_HIST = {20: 2, 21: 164, 22: 6651, 23: 110103, 24: 704089, 25: 1814413, 26: 2002349,
                     27: 1007700, 28: 247259, 29: 31449, 30: 2088, 31: 74, 32: 2}


# ---------------------------------------------------------------- batch results
@plain_dataclass("GenResult")
@dataclass
class GenResult:
    """Puzzles of one or more batches, with everything the statistics need.

    ``weights`` is 1 except for the weighted sampler; ``metrics`` are the
    difficulty arrays of ``puzzle_difficulty``; ``tries`` counts grids (paths)
    used; ``solver_calls`` the uniqueness tests.
    """

    puzzles: np.ndarray = field(default_factory=lambda: np.zeros((0, 81), dtype=np.uint8))
    weights: np.ndarray = field(default_factory=lambda: np.zeros(0))
    metrics: dict = field(default_factory=dict)
    tries: int = 0
    solver_calls: int = 0
    seconds: float = 0.0
    extra: object = None   # method-specific sums (weighted sampler), merged by its job
    rated: int = 0         # puzzles rated against a target band (generate.bands) ...
    rejected: int = 0      # ... and dropped as outside it
    # the growing store (core.growing) whose first rows ``puzzles``, ``weights`` and the
    # metrics are, if any: not a field (no annotation), so never stored, compared or encoded
    _store = None

    @property
    def count(self) -> int:
        return int(self.puzzles.shape[0])

    @property
    def clues(self) -> np.ndarray:
        return np.count_nonzero(self.puzzles, axis=1)

    def hist(self) -> np.ndarray:
        return np.bincount(self.clues, minlength=82)[:82].astype(np.int64)

    def whist(self) -> np.ndarray:
        return np.bincount(self.clues, weights=self.weights, minlength=82)[:82]


def merge_results(a: GenResult, b: GenResult) -> GenResult:
    """``a``'s puzzles then ``b``'s, counters added; neither changes.  Amortised: the
    merged arrays grow in a store with spare room (``core.growing``), so folding a run's
    batches one by one is linear in the puzzles (the weighted sampler keeps ~18,000 a
    CPU-second: copying the total per batch took ~20% of a 200 s run)."""
    names = sorted(set(a.metrics) | set(b.metrics))
    metrics = {}
    for k in names:
        xa = a.metrics.get(k, np.full(a.count, np.nan))
        xb = b.metrics.get(k, np.full(b.count, np.nan))
        metrics[k] = (np.asarray(xa), np.asarray(xb))
    counters = dict(tries=a.tries + b.tries, solver_calls=a.solver_calls + b.solver_calls,
                    seconds=a.seconds + b.seconds, rated=a.rated + b.rated, rejected=a.rejected + b.rejected)
    cols_a = {"puzzles": a.puzzles, "weights": np.asarray(a.weights)} | {"m:" + k: v[0] for k, v in metrics.items()}
    cols_b = {"puzzles": b.puzzles, "weights": np.asarray(b.weights)} | {"m:" + k: v[1] for k, v in metrics.items()}
    if len({v.shape[0] for v in cols_a.values()}) > 1 or len({v.shape[0] for v in cols_b.values()}) > 1:
        # columns of different lengths (not from a generator): plain copies
        return GenResult(np.concatenate([a.puzzles, b.puzzles]), np.concatenate([a.weights, b.weights]),
                         {k: np.concatenate(v) for k, v in metrics.items()}, **counters)
    cols, store = appended_columns(a._store, cols_a, cols_b)
    out = GenResult(cols["puzzles"], cols["weights"], {k: cols["m:" + k] for k in names}, **counters)
    out._store = store
    return out


# ---------------------------------------------------------------- statistics
def hist_moments(hist, factors=None) -> Moments:
    """Moments of the clue count from a histogram, each n-clue puzzle weighted by factors[n]."""
    h = np.asarray(hist, dtype=np.float64)
    n_idx = np.arange(h.size, dtype=np.float64)
    f = np.ones(h.size) if factors is None else np.asarray(factors, dtype=np.float64)[:h.size]
    w = h * f
    W = float(w.sum())
    if W <= 0:
        return Moments()
    mean = float((w * n_idx).sum() / W)
    d = n_idx - mean
    return Moments(n=int(h.sum()), w=W, w2=float((h * f * f).sum()), mean=mean,
                   m2=float((w * d**2).sum()), m3=float((w * d**3).sum()), m4=float((w * d**4).sum()),
                   q1=float((w * f * d).sum()), q2=float((w * f * d**2).sum()))


def moments_summary(m: Moments) -> dict:
    return {"mean": m.mean if m.w > 0 else float("nan"), "sd": m.sd, "skew": m.skewness,
            "kurt": m.kurtosis, "mean_se": m.std_error, "skew_se": m.skewness_se,
            "kurt_se": m.kurtosis_se, "n_eff": m.n_eff}


def metric_by_clues(clues, values, weights=None) -> dict[int, dict]:
    """Per clue count: n, (weighted) mean and sd of one metric."""
    out = {}
    clues = np.asarray(clues)
    values = np.asarray(values, dtype=np.float64)
    for n in np.unique(clues):
        sel = clues == n
        m = Moments.of(values[sel], None if weights is None else np.asarray(weights)[sel])
        out[int(n)] = {"n": int(sel.sum()), "mean": m.mean, "sd": m.sd}
    return out


def metric_overall(clues, values, factors_by_clue=None, weights=None) -> dict:
    """Mean and sd of a metric over all puzzles, weighted per puzzle by
    factors_by_clue[clues] (controlled-bias correction, seed 002 §2.3) or by
    explicit weights (weighted sampler)."""
    values = np.asarray(values, dtype=np.float64)
    if factors_by_clue is not None:
        w = np.asarray(factors_by_clue)[np.asarray(clues)]
    else:
        w = weights
    m = Moments.of(values, w)
    return {"mean": m.mean, "sd": m.sd, "mean_se": m.std_error}


def corrected_tail(hist: np.ndarray) -> dict:
    """Tail diagnostics of controlled-bias's corrected statistics (core.stats): each puzzle is a
    sample of weight cf(its clues), so a class's effective samples are its puzzles.  A short run
    reads the corrected mean's SE low: its heavy classes (c >= 28) are its rarest puzzles."""
    n = np.nonzero(hist)[0]
    w = hist[n] * CF[n]
    s1 = float(w.sum())
    shares = {int(c): float(x / s1) for c, x in zip(n, w)} if s1 > 0 else {}
    return class_tail_diagnostics(s1, float((hist[n] * CF[n] ** 2).sum()), float(CF[n].max()) if len(n) else 0.0,
                                  shares, {int(c): float(hist[c]) for c in n})


def tail_warning(d: dict) -> str:
    """The warning of a summary's (``describe_result``, ``weighted_stats``) corrected or weighted
    tail ('' when it has none or is trusted)."""
    what = "the weighted" if d.get("method") == "weighted-subsets" else "the corrected"
    return class_tail_text(d.get("tail"), f"{what} mean's SE and the clue shares")


def describe_result(method: str, res: GenResult, seconds: float | None = None) -> dict:
    """The JSON summary: count, seconds, clues_hist, mean, sd, skew, kurt (+ corrected/weighted)."""
    hist = res.hist()
    nz = np.nonzero(hist)[0]
    out: dict = {"method": method, "count": res.count}
    if seconds is not None:
        out["seconds"] = round(float(seconds), 4)
        out["rate"] = res.count / seconds if seconds > 0 else float("nan")
    out["clues_hist"] = {int(n): int(hist[n]) for n in nz}
    raw = moments_summary(hist_moments(hist))
    out.update({k: raw[k] for k in ("mean", "sd", "skew", "kurt", "mean_se")})
    if method == "controlled-bias":
        cor = moments_summary(hist_moments(hist, CF))
        out.update({"corrected_mean": cor["mean"], "corrected_sd": cor["sd"],
                    "corrected_skew": cor["skew"], "corrected_kurt": cor["kurt"],
                    "corrected_mean_se": cor["mean_se"]})
        out["tail"] = corrected_tail(hist)
    if method == "weighted-subsets":
        wm = Moments.of(res.clues, res.weights) if res.count else Moments()
        out.update({"weighted_mean": wm.mean, "weighted_sd": wm.sd, "weighted_skew": wm.skewness,
                    "weighted_kurt": wm.kurtosis, "weighted_mean_se": wm.std_error, "n_eff": wm.n_eff})
        # corrected_* is the unbiased estimate for every method that has one
        out["corrected_mean"] = wm.mean
        out["corrected_sd"] = wm.sd
    if res.tries:
        out["tries"] = int(res.tries)
        if res.count:
            out["tries_per_puzzle"] = res.tries / res.count
    out["solver_calls"] = int(res.solver_calls)
    if res.rated:
        out["rated"] = int(res.rated)
        out["rejected"] = int(res.rejected)
    metrics = {}
    clues = res.clues
    for name, vals in res.metrics.items():
        fac = CF if method == "controlled-bias" else None
        wts = res.weights if method == "weighted-subsets" else None
        entry = {"mean": float(np.mean(vals)) if len(vals) else float("nan")}
        if fac is not None or wts is not None:
            entry["corrected_mean"] = metric_overall(clues, vals, fac, wts)["mean"]
        entry["by_clues"] = {n: round(v["mean"], 4) for n, v in metric_by_clues(clues, vals).items()}
        metrics[name] = entry
    out["difficulty"] = metrics
    return out


class GeneratorBatchJob(BatchJob):
    """What the generators' batch jobs share: GenResult totals, merged, started empty and
    counted by puzzle, described under the spec's ``method`` (a job without one in its spec
    sets ``method`` as a class attribute)."""

    @property
    def method(self) -> str:
        return self.spec["method"]

    def merge(self, a: GenResult, b: GenResult) -> GenResult:
        return merge_results(a, b)

    def empty(self) -> GenResult:
        return GenResult()

    def units(self, total: GenResult) -> int:
        return total.count

    def describe(self, total: GenResult) -> dict:
        return describe_result(self.method, total)
