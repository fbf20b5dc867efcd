"""Weighted minimal-puzzle sampler built on seed 000's (c, s)-subsets method.

Each sample draws a grid and a uniformly random s-clue subset of it, and
enumerates every minimal puzzle inside the subset (``minimal_sets.
minimals_in_subset``, shared with the estimator).  A c-clue minimal
puzzle of that grid lies in the subset with probability
Pr = C(81-c, s-c) / C(81, s), so weighting it by 1/Pr (times the grid weight
when grids come with one) makes weighted statistics over the found puzzles
estimate the statistics over all minimal puzzles of the grid source, like
corrected controlled-bias, at a small fraction of its cost.

The weighted mean clue count is a ratio estimator sum(a)/sum(b) over samples
(a = sum of c * w, b = sum of w per sample); its standard error comes from
the per-sample sums (delta method), not from the puzzles, which are
correlated within a sample.

Two strata by clue count: the classes from TAIL_FROM clues up are counted in
larger subsets searched only down to TAIL_FROM clues (``minimals_in_subset``'s
floor), where they turn up an order of magnitude more often for little cost.
TAIL_DEEP of the tail's subsets a grid are searched one clue deeper, and
their (TAIL_FROM - 1)-clue finds are pooled with the main stratum's count of
that class: each stratum's estimate of a class is unbiased, so any fixed
weights summing to one keep the pool unbiased; the weights are the ones of
least Poisson variance (``pooled_strata``).

Grid sources: "pool" (isomorphs of a pool of solver grids; grid weight 1,
biased like every finite pool) or "sequential" (the estimator's sequential
sampler ``estimate.samplers.sequential_grid_kernel``, weight 1/q(grid):
unbiased over all grids).
"""
from __future__ import annotations

import math
import time

import numpy as np
from numba import njit

from sudokustudio.core.rng import rand_below, seed_state, shuffle_inplace
from sudokustudio.core.stats import CLASS_MIN_ESS, class_tail_diagnostics
from sudokustudio.sudoku.difficulty import FAST_METRICS, check_metrics, puzzle_difficulty
from sudokustudio.sudoku.estimate.grids import GRID_COUNTS
from sudokustudio.sudoku.estimate.minimals import probes_for_weight
from sudokustudio.sudoku.estimate.published import PUBLISHED_MINIMALS, PUBLISHED_TOTALS
from sudokustudio.sudoku.estimate.samplers import sequential_grid_kernel
from sudokustudio.sudoku.generate.bands import check_bands, filter_result, rated_by_w
from sudokustudio.sudoku.generate.results import GeneratorBatchJob, GenResult, merge_results
from sudokustudio.sudoku.grid import random_isomorph_kernel
from sudokustudio.sudoku.grids import shared_grid_pool
from sudokustudio.sudoku.minimal import first_not_minimal, new_oracle
from sudokustudio.sudoku.minimal_sets import minimals_in_subset
from sudokustudio.sudoku.tables import geometry

#: number of 9x9 grids (Felgenhauer & Jarvis): sequential weights are divided by it to stay near 1
N_GRIDS = float(GRID_COUNTS["3x3"])
#: subset size: at s = 30 a 29-clue minimal lies in a random subset about once in
#: 10^6 draws, so the weighted mean reads low (~26.1 after 20,000 draws); at 32 the
#: 27..29-clue classes are seen often enough (26.60 +- 0.07 after 40,000 draws, real
#: 26.58) for ~10x the cost per draw; above 33 the subset enumeration explodes.
DEFAULT_SUBSET_SIZE = 32
#: subsets per grid of weight 1 (measured on 9x9, s = 32: see the README's Generators section)
DEFAULT_PER_GRID = 4
#: the tail stratum: the minimals of TAIL_FROM clues or more are counted only in subsets of
#: TAIL_SUBSET_SIZE cells, TAIL_PER_GRID of them per grid of weight 1.  In 32-clue subsets a
#: 30-clue minimal turns up about once in 1.4 million probes; a 33-clue subset holds it 11x
#: as often (31 clues: 16x, 32: 33x) and, searched only down to 30 clues, costs ~0.1 ms.
#: Without the stratum the 30- to 32-clue classes, almost never seen, would carry most of the
#: long-run variance of the mean clue count (benchmarks/weighted_classes.py).
#: 12 a grid since the floor search learned the sets below its floor (a tail subset 0.17 -> 0.11 ms):
#: against 7 (1 deeper), same seeds, 1.02x (Poisson) to 1.17x (29-clue clustering) less SE^2 x CPU-s
#: on the benchmark's models of the rare classes, at 1.2x the cost a sample
TAIL_SUBSET_SIZE = 33
TAIL_FROM = 30
TAIL_PER_GRID = 12
#: of the tail's subsets a grid, those searched one clue deeper (to TAIL_FROM - 1): the
#: 29-clue class, otherwise counted only in the 32-clue subsets (one find in ~10,000 subsets),
#: carried 40-66% of the variance of the mean clue count; a 33-clue subset holds a given
#: 29-clue minimal 8.25x as often and, searched down to 29, costs ~0.36 ms (~3x its search to 30)
TAIL_DEEP = 2
#: grid samples a batch: a sample took ~4-6 ms (~2-4 ms since late 2026-11-28) and yields ~70-90
#: puzzles (~0.01-0.02 ms each to rate by guesses and brt), so 25 made a batch of ~0.15 s on a free
#: core (~0.3 s beside the window's three other generators: Stop waited 0.43-0.56 s for the weighted
#: row with 50, 0.46-0.68 s with 100);
#: rated by W (~11 ms a puzzle, ~0.75 s a sample) a batch is one sample.  CPU per sample is the
#: same for 25, 50 and 100 once the checked puzzles and the grid pool no longer come per batch
SAMPLES_PER_BATCH = 25
#: one puzzle in this many is checked for minimality by the solver (``verify``), spread over the
#: batch: 256 a batch of 100 samples, as before the batches shrank (256 of a batch of 25 took
#: ~1.1 ms a sample, a third of the job's time)
VERIFIED_EVERY = 28
_NO_POOL = np.zeros((1, 81), dtype=np.uint8)   # the sequential source draws its own grids
WEIGHTED_SOURCES = {
    "pool": "random isomorphs of a pool of solver grids (grid weight 1; biased: a finite pool)",
    "sequential": "the estimator's sequential grid sampler with weight 1/q(grid): unbiased over all grids",
}


def pooled_strata(s: int, per_grid: int, tail_s: int, tail_from: int, tail_per_grid: int,
                  tail_deep: int) -> tuple[np.ndarray, np.ndarray]:
    """(strata rows (s, per_grid, lo, hi), inv_pr per row) for ``subsets_kernel``.

    The main stratum counts c < tail_from; the tail's tail_per_grid subsets all count c >=
    tail_from, each find weighing 1/Pr / tail_per_grid whichever search found it; tail_deep of
    them count class tail_from - 1 too, pooled with the main stratum's count of it.  A stratum's
    count of a class estimates it without bias, so shares alpha and 1 - alpha do too; alpha is
    the one of least Poisson variance, u_deep / (u_main + u_deep) with u = (1/Pr) / subsets."""
    main = inclusion_weights(s)
    if not tail_per_grid:
        return np.array([(s, per_grid, 0, 82)], dtype=np.int64), main[None, :]
    tail_all = inclusion_weights(tail_s)
    tail = tail_all.copy()
    tail[:tail_from] = 0.0
    rows, inv = [(s, per_grid, 0, tail_from)], [main]
    if tail_deep:
        c = tail_from - 1
        u_main = main[c] / per_grid if main[c] > 0 else math.inf   # c > s: the deep subsets alone
        u_deep = tail_all[c] / tail_deep
        alpha = u_deep / (u_main + u_deep) if math.isfinite(u_main) else 0.0
        main[c] *= alpha
        deep = tail * (tail_deep / tail_per_grid)
        deep[c] = tail_all[c] * (1.0 - alpha)
        rows.append((tail_s, tail_deep, c, 82))
        inv.append(deep)
    if tail_per_grid > tail_deep:
        rows.append((tail_s, tail_per_grid - tail_deep, tail_from, 82))
        inv.append(tail * ((tail_per_grid - tail_deep) / tail_per_grid))
    return np.array(rows, dtype=np.int64), np.array(inv)


def poisson_units(strata: np.ndarray, inv_pr: np.ndarray) -> np.ndarray:
    """Per clue count c, Var(weighted count of class c per grid) / N_c if every stratum's finds
    were Poisson: sum over strata of subsets x (weight a find)^2 x Pr.  One stratum gives
    (1/Pr) / subsets.  The benchmarks model the classes a run has not found with it."""
    out = np.zeros(82)
    for (s, per_grid, lo, hi), row in zip(strata, inv_pr):
        inv = inclusion_weights(int(s))
        pr = np.divide(1.0, inv, out=np.zeros(82), where=inv > 0)
        w = row / per_grid
        out[lo:hi] += (per_grid * w * w * pr)[lo:hi]
    return out


def inclusion_weights(s: int) -> np.ndarray:
    """1/Pr(c-clue puzzle inside a random s-subset) = C(81,s)/C(81-c,s-c), c = 0..81 (0 where c > s)."""
    w = np.zeros(82)
    for c in range(0, s + 1):
        w[c] = math.comb(81, s) / math.comb(81 - c, s - c)
    return w


@njit(cache=True, nogil=True)
def subsets_kernel(rng, pool, peers, units, strata, n_samples, inv_pr, out, out_w, counts, whist, sums,
                   class_sums, sequential, buf):
    """``n_samples`` grid samples from the pool (or, with ``sequential``, weighted
    sequential grids), each probed by the subset strata: row i of ``strata`` is
    (s, per_grid, lo, hi): per_grid * (grid weight) subsets of s cells on average
    (rounded at random; ``estimate.minimals.probes_for_weight``), counting the
    minimals of lo <= c < hi clues inside them (the search stops at lo), a find
    weighing inv_pr[i, c] / per_grid: the grid's weight is in how many subsets it
    gets, not in a factor that would multiply the variance by E[w^2] (1.6 for these
    grids).  Where strata's clue ranges overlap, ``inv_pr`` holds each one's share of
    the pooled class (:func:`pooled_strata`), so the strata's sums add up.  Writes
    found puzzles (as random isomorphs) and their weights to out/out_w (up to its
    size), adds every minimal counted to ``counts`` (int64[82]) and per-sample ratio
    sums [n, Sa, Sb, Saa, Sbb, Sab, Sq] (q = sum c^2 w) to ``sums``, and per clue count
    c the per-sample sums [W_c^2, W_c * b] (W_c: the sample's weight of class c, b: of
    all) to ``class_sums`` (float[2, 82]: the standard errors of the class shares).
    Returns the number written.  ``peers``/``units``: ``tables.geometry(3, 3)``;
    ``buf``: uint8[len(out), 81] scratch for one subset's minimals (the caller's, not
    330 KB zeroed per one-sample call)."""
    grid = np.zeros(81, dtype=np.uint8)
    order = np.arange(81, dtype=np.int64)
    mask = np.zeros(81, dtype=np.uint8)
    local = np.zeros(82, dtype=np.int64)
    n_strata = strata.shape[0]
    probes = np.zeros(n_strata, dtype=np.int64)
    sample_w = np.zeros(82)
    written = 0
    for _ in range(n_samples):
        grid_w = 1.0
        if sequential:
            grid_w = sequential_grid_kernel(rng, grid) / N_GRIDS
            if grid_w == 0.0:       # a dead end: a sample worth 0
                sums[0] += 1
                continue
        else:
            grid[:] = pool[rand_below(rng, pool.shape[0])]
        any_probe = False
        for i in range(n_strata):
            probes[i] = probes_for_weight(rng, strata[i, 1], grid_w) if strata[i, 1] > 0 else 0
            any_probe = any_probe or probes[i] > 0
        if not any_probe:           # no subset for this grid: a sample worth 0, no oracle
            sums[0] += 1
            continue
        a = 0.0
        b = 0.0
        q = 0.0
        sample_w[:] = 0.0
        o = new_oracle(grid, peers, units)
        for i in range(n_strata):
            s, per_grid, lo, hi = strata[i, 0], strata[i, 1], strata[i, 2], strata[i, 3]
            for _p in range(probes[i]):
                shuffle_inplace(rng, order)
                mask[:] = 0
                for j in range(s):
                    mask[order[j]] = 1
                local[:] = 0
                n = minimals_in_subset(o, mask, buf, local, lo)
                for c in range(lo, hi):
                    if local[c]:
                        counts[c] += local[c]
                        w = local[c] * inv_pr[i, c] / per_grid
                        whist[c] += w
                        sample_w[c] += w
                        a += c * w
                        b += w
                        q += c * c * w
                for m in range(n):
                    if written >= out.shape[0]:
                        break
                    cl = 0
                    for cell in range(81):
                        if buf[m, cell]:
                            cl += 1
                    if cl < lo or cl >= hi:     # another stratum's class
                        continue
                    random_isomorph_kernel(buf[m], rng, out[written])
                    out_w[written] = inv_pr[i, cl] / per_grid
                    written += 1
        sums[0] += 1
        sums[1] += a
        sums[2] += b
        sums[3] += a * a
        sums[4] += b * b
        sums[5] += a * b
        sums[6] += q
        for c in range(82):
            if sample_w[c] != 0.0:
                class_sums[0, c] += sample_w[c] * sample_w[c]
                class_sums[1, c] += sample_w[c] * b
    return written


class WeightedSubsetsJob(GeneratorBatchJob):
    """Weighted-subsets sampler as a batch job.

    Spec: s (subset size, default DEFAULT_SUBSET_SIZE), per_batch (grid samples per batch,
    default SAMPLES_PER_BATCH, or 1 when the puzzles are rated by W), difficulty (default guesses and brt),
    per_grid (subsets per grid of weight 1), pool_size, pool_seed, max_per_sample (puzzles
    kept per grid sample; all are counted), and the tail stratum: the minimals of tail_from
    clues or more come from tail_per_grid subsets of tail_s cells per grid (0: no stratum,
    the s-subsets count every class, as runs stored before it did), tail_deep of which also
    count class tail_from - 1, pooled with the main stratum's (default TAIL_DEEP, at most
    tail_per_grid).
    """

    kind = "generate-weighted"
    unit = "samples"
    kernel_groups = ("generators", "generators-weighted")   # the first holds the difficulty metrics' kernels

    def __init__(self, s: int = DEFAULT_SUBSET_SIZE, per_batch: int | None = None, pool_size: int = 256,
                 pool_seed: int = 2009, max_per_sample: int = 4096, verify: bool = True,
                 grid_source: str = "pool", difficulty=None, bands=None, per_grid: int = DEFAULT_PER_GRID,
                 tail_s: int = TAIL_SUBSET_SIZE, tail_from: int = TAIL_FROM, tail_per_grid: int = TAIL_PER_GRID,
                 tail_deep: int | None = None):
        if not 17 <= s <= 40:
            raise ValueError("subset size s must be in 17..40")
        # the W-rating would be ~99% of the time (~70 puzzles a sample): only when asked for
        difficulty = check_metrics(difficulty, FAST_METRICS)
        bands = check_bands(bands)
        if per_batch is None:
            per_batch = 1 if rated_by_w(difficulty, bands) else SAMPLES_PER_BATCH
        if per_batch < 1 or pool_size < 1 or max_per_sample < 1 or per_grid < 1:
            raise ValueError("per_batch, pool_size, max_per_sample and per_grid must be at least 1")
        if not 0 <= tail_per_grid <= 1000:
            raise ValueError(f"tail subsets per grid: 0 (no tail stratum) to 1000, got {tail_per_grid}")
        if tail_per_grid and not (17 <= tail_from <= tail_s <= 40):
            raise ValueError(f"tail stratum: need 17 <= first clue count {tail_from} <= its subset size "
                             f"{tail_s} <= 40")
        if tail_deep is None:
            tail_deep = min(TAIL_DEEP, tail_per_grid)
        if not 0 <= tail_deep <= tail_per_grid:
            raise ValueError(f"deeper tail subsets per grid: 0 to the tail's {tail_per_grid}, got {tail_deep}")
        if tail_deep and tail_from <= 17:
            raise ValueError(f"deeper tail subsets: the tail begins at {tail_from} clues, so one clue "
                             f"deeper is below 17")
        if grid_source not in WEIGHTED_SOURCES:
            raise ValueError(f"unknown grid source {grid_source!r} for the weighted sampler "
                             f"({', '.join(WEIGHTED_SOURCES)})")
        super().__init__(s=int(s), per_batch=int(per_batch), pool_size=int(pool_size), pool_seed=int(pool_seed),
                         max_per_sample=int(max_per_sample), verify=bool(verify), grid_source=grid_source,
                         difficulty=difficulty, bands=bands, per_grid=int(per_grid),
                         tail_s=int(tail_s), tail_from=int(tail_from), tail_per_grid=int(tail_per_grid),
                         tail_deep=int(tail_deep))

    @classmethod
    def from_spec(cls, spec: dict) -> "WeightedSubsetsJob":
        # a run stored before the tail stratum had none, one stored before the deeper tail
        # subsets none of those: it resumes as it began
        return cls(**{"tail_per_grid": 0, "tail_deep": 0, **spec})

    def strata(self) -> tuple[np.ndarray, np.ndarray]:
        """(strata rows (s, per_grid, lo, hi) for ``subsets_kernel``, inv_pr per stratum)."""
        sp = self.spec
        return pooled_strata(sp["s"], sp["per_grid"], sp["tail_s"], sp["tail_from"], sp["tail_per_grid"],
                             sp["tail_deep"])

    method = "weighted-subsets"

    def run_batch(self, batch_index: int, seed: int) -> GenResult:
        sp = self.spec
        t0 = time.perf_counter()
        pool = (shared_grid_pool(sp["pool_size"], sp["pool_seed"], "solver") if sp["grid_source"] == "pool"
                else _NO_POOL)
        _, peers, units = geometry(3, 3)
        rng = seed_state(np.uint64(seed))
        strata, inv_pr = self.strata()
        counts = np.zeros(82, dtype=np.int64)
        whist = np.zeros(82)
        sums = np.zeros(7)
        class_sums = np.zeros((2, 82))
        # one sample per call so that every minimal found is kept (the cap is per sample)
        buf = np.zeros((sp["max_per_sample"], 81), dtype=np.uint8)
        buf_w = np.zeros(sp["max_per_sample"])
        scratch = np.empty_like(buf)
        parts, wparts = [], []
        largest = 0.0   # the largest sample's weight (b), for the tail diagnostics
        for _ in range(sp["per_batch"]):
            before = sums[2]
            k = subsets_kernel(rng, pool, peers, units, strata, 1, inv_pr, buf, buf_w,
                               counts, whist, sums, class_sums, sp["grid_source"] == "sequential", scratch)
            largest = max(largest, sums[2] - before)
            if k:
                parts.append(buf[:k].copy())
                wparts.append(buf_w[:k].copy())
        out = np.concatenate(parts) if parts else np.zeros((0, 81), dtype=np.uint8)
        out_w = np.concatenate(wparts) if wparts else np.zeros(0)
        n = out.shape[0]
        if sp["verify"] and n:
            # a spread sample: the enumeration is exact (tests: brute force, the full DFS), and
            # checking every puzzle (~70 a sample) took ~3/4 of the sampler's time
            bad = first_not_minimal(out[::VERIFIED_EVERY])
            if bad >= 0:
                raise RuntimeError(f"weighted-subsets produced a non-minimal puzzle: batch {batch_index}, "
                                   f"puzzle {bad * VERIFIED_EVERY}")
        res = GenResult(out, out_w, puzzle_difficulty(out, sp["difficulty"]), int(sp["per_batch"]), 0,
                        time.perf_counter() - t0)
        res.extra = {"found": counts, "whist": whist, "ratio_sums": sums, "class_sums": class_sums,
                     "largest": np.array([largest])}
        # the weighted statistics come from ``extra`` (every minimal found); a band only thins the kept ones
        return filter_result(res, sp.get("bands"))

    def merge(self, a: GenResult, b: GenResult) -> GenResult:
        out = merge_results(a, b)
        ea, eb = getattr(a, "extra", None), getattr(b, "extra", None)
        if ea is None or eb is None:
            out.extra = ea if eb is None else eb
        else:
            out.extra = {k: ea[k] + eb[k] for k in ("found", "whist", "ratio_sums", "class_sums")
                         if k in ea and k in eb}   # results stored before class_sums have none
            if "largest" in ea and "largest" in eb:
                out.extra["largest"] = np.maximum(ea["largest"], eb["largest"])
        return out

    def empty(self) -> GenResult:
        res = GenResult()
        res.extra = None
        return res

    def units(self, total: GenResult) -> int:
        return total.tries

    def describe(self, total: GenResult) -> dict:
        d = super().describe(total)
        d.update(weighted_stats(total))
        d["corrected_mean"] = d["weighted_mean"]
        d["corrected_sd"] = d["weighted_sd"]
        return d

    def warm_up(self) -> None:
        warm_up()


def weighted_stats(res: GenResult) -> dict:
    """Weighted clue statistics from all minimals found (not only those kept), with the clue
    shares' z-scores against seed 002's real distribution (``seed002_z``)."""
    extra = getattr(res, "extra", None)
    if not extra:
        return {"weighted_mean": float("nan"), "weighted_sd": float("nan"), "weighted_mean_se": float("nan")}
    counts = extra["found"]
    w = extra["whist"]
    W = w.sum()
    c = np.arange(82)
    if W <= 0:
        return {"weighted_mean": float("nan"), "weighted_sd": float("nan"), "weighted_mean_se": float("nan"),
                "found": int(counts.sum())}
    mean = float((w * c).sum() / W)
    d = c - mean
    var = float((w * d * d).sum() / W)
    skew = float((w * d**3).sum() / W) / var**1.5 if var > 0 else float("nan")
    kurt = float((w * d**4).sum() / W) / var**2 - 3 if var > 0 else float("nan")
    n, sa, sb, saa, sbb, sab, _ = extra["ratio_sums"]
    # delta method for R = sum a / sum b over n samples
    r = sa / sb
    mb = sb / n
    var_res = (saa - 2 * r * sab + r * r * sbb) / n if n > 1 else float("nan")
    se = math.sqrt(max(var_res, 0.0) / (n - 1)) / mb if n > 1 and mb > 0 else float("nan")
    hist_w = {int(k): float(w[k] / W) for k in np.nonzero(counts)[0]}
    out = {"weighted_mean": mean, "weighted_sd": math.sqrt(var), "weighted_skew": skew, "weighted_kurt": kurt,
           "weighted_mean_se": se, "found": int(counts.sum()), "samples": int(n),
           "found_hist": {int(k): int(counts[k]) for k in np.nonzero(counts)[0]}, "weighted_hist": hist_w}
    if "class_sums" in extra and n > 1 and mb > 0:
        # the share of class c is a ratio sum(W_c) / sum(b) over samples too (delta method)
        sq, cross = extra["class_sums"]
        out["weighted_hist_se"] = {
            c: math.sqrt(max(sq[c] - 2 * share * cross[c] + share * share * sbb, 0.0) / n / (n - 1)) / mb
            for c, share in hist_w.items()}
        # Kish's effective number of samples behind each class: its finds cluster in few samples
        out["weighted_hist_ess"] = {c: float(w[c] * w[c] / sq[c]) if sq[c] > 0 else 0.0 for c in hist_w}
    out["seed002_z"] = distribution_check(out)
    out["seed002_untested"] = [c for c in sorted(hist_w) if c in SEED002_SHARES and c not in out["seed002_z"]]
    out["tail"] = class_tail_diagnostics(sb, sbb, float(extra["largest"][0]) if "largest" in extra else float("nan"),
                                         hist_w, out.get("weighted_hist_ess", {}))
    return out


#: seed 002's real distribution of the clue count of minimal puzzles: Berthier's per-grid counts
#: (REFERENCES.md) as shares of their total, with their relative errors
SEED002_SHARES = {c: (v / PUBLISHED_TOTALS["berthier"][0], re) for c, (v, re) in PUBLISHED_MINIMALS["berthier"].items()}


#: a class's share is tested against seed 002 only with at least this many effective samples
#: behind it: its finds cluster in a few samples, and from fewer the delta-method SE is itself
#: too rough (300-sample runs read |z| near 3 at ESS 1-5)
MIN_ESS_FOR_Z = CLASS_MIN_ESS


def distribution_check(stats: dict, lo: int = 20, hi: int = 31, min_ess: float = MIN_ESS_FOR_Z) -> dict[int, float]:
    """z-scores of the weighted share of each clue count lo..hi against seed 002's, with both
    standard errors, for the classes with an effective sample size (``weighted_hist_ess``) of
    at least ``min_ess`` (a class not found reads share 0 with the SE its expected finds would
    give none; it is left out, as is one seen in too few samples)."""
    shares, ses = stats.get("weighted_hist", {}), stats.get("weighted_hist_se", {})
    ess = stats.get("weighted_hist_ess", {})
    out = {}
    for c in range(lo, hi + 1):
        if c in shares and c in ses and c in SEED002_SHARES and ess.get(c, 0.0) >= min_ess:
            ref, ref_re = SEED002_SHARES[c]
            out[c] = (shares[c] - ref) / math.hypot(ses[c], ref * ref_re)
    return out


def warm_up() -> None:
    """Compile the weighted sampler's kernels (both grid sources share them)."""
    WeightedSubsetsJob(per_batch=2, pool_size=1, difficulty=[]).run_batch(0, 1)
