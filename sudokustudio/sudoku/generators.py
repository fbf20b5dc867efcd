"""Minimal-puzzle generators (seed 002) as numba kernels run in batches.

- top-down (suexg, seed 002 §1.1): delete the clues of a random grid in
  random order, keeping each deletion that leaves the solution unique.
- bottom-up (Metcalf, §1.1): add random consistent clues until the puzzle is
  unique (dropping one that leaves no solution), then remove redundant clues
  in random order.
- controlled-bias (§2.1): delete random clues; abandon the grid at the first
  multi-solution puzzle; output the first minimal puzzle reached.  Its bias is
  known: Pr(n+1)/Pr(n) = (n+1)/(81-n), corrected by cf(n) (§2.2-2.3).
- weighted-subsets (seed 000): see ``sudoku/weighted.py``.

Every output puzzle is minimal by construction and is verified again
(``is_minimal_kernel``) before it is returned; a failure raises.

Speed in the controlled-bias path: the path is a random order of the 81
cells; the puzzle after k deletions is the grid minus the first k cells.
Uniqueness is monotone along a path, so instead of testing every step we
(1) reject at once when the first ``blind`` deletions remove a whole known
unavoidable set (UA) of the grid, (2) test the (81-blind)-clue puzzle,
(3) binary-search the first non-unique step (UAs answer many probes), and
(4) test minimality only for the one puzzle just before it, which is the only
candidate on the path (every earlier one has a unique one-clue-smaller
successor).  UAs with one clue left certify that clue as necessary.
With the "pool" source the path runs on the pool grid itself and only the
output puzzle is mapped through a random isomorph: isomorphs preserve
uniqueness and minimality and the deletion order is uniform, so this is the
same distribution as running on the isomorph.
"""
from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass, field

import numpy as np
from numba import njit

from sudokustudio.core.batch import BatchJob
from sudokustudio.core.plain import plain_dataclass
from sudokustudio.core.rng import rand_below, seed_state, shuffle_inplace
from sudokustudio.core.stats import Moments
from sudokustudio.sudoku.difficulty import FAST_METRICS, METRICS, puzzle_difficulty
from sudokustudio.sudoku.grid import random_isomorph_kernel
from sudokustudio.sudoku.grids import (grid_pool, grid_uas_kernel, pairswap_grid_kernel,
                                       random_grid_kernel, two_digit_uas_kernel)
from sudokustudio.sudoku.minimal import is_minimal_kernel
from sudokustudio.sudoku.solver import count_solutions_kernel
from sudokustudio.sudoku.tables import PEERS

METHODS = ("top-down", "bottom-up", "controlled-bias", "weighted-subsets")
SOURCE_CODES = {"solver": 0, "pairswap": 1, "pool": 2}
MAX_UA = 512

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
GRIDS_PER_PUZZLE_CB = 257_000


def correction_factors() -> np.ndarray:
    """cf(n) for n = 0..81 with cf(n+1)/cf(n) = (81-n)/(n+1) and cf(26) = 1 (seed 002 §2.2)."""
    cf = np.ones(82)
    for n in range(26, 81):
        cf[n + 1] = cf[n] * (81 - n) / (n + 1)
    for n in range(25, -1, -1):
        cf[n] = cf[n + 1] * (n + 1) / (81 - n)
    return cf


CF = correction_factors()


# ---------------------------------------------------------------- small kernels
@njit(cache=True, nogil=True)
def _bit(cell):
    return np.uint64(1) << np.uint64(cell & 63)


@njit(cache=True, nogil=True)
def _ua_fully_deleted(ua_lo, ua_hi, n_ua, del_lo, del_hi):
    """True when some UA lies inside the deleted cells (the puzzle is not unique)."""
    for i in range(n_ua):
        if (ua_lo[i] & ~del_lo) == 0 and (ua_hi[i] & ~del_hi) == 0:
            return True
    return False


@njit(cache=True, nogil=True)
def _is_unique(puzzle):
    return count_solutions_kernel(puzzle, 2) == 1


@njit(cache=True, nogil=True)
def _forced_by_peers(puzzle, cell, digit):
    """True when the other 8 digits all sit in the peers of ``cell`` (naked single)."""
    seen = 0
    for k in range(20):
        d = puzzle[PEERS[cell, k]]
        if d:
            seen |= 1 << (d - 1)
    return seen | (1 << (digit - 1)) == 0x1FF


@njit(cache=True, nogil=True)
def _grid_and_uas(rng, source, pool, pool_lo, pool_hi, pool_n, grid, lo, hi):
    """Next grid of the source and its known UAs; returns (n_ua, pool index or -1).

    For the pool source the pool grid itself is returned (see module doc)."""
    if source == 2:
        k = rand_below(rng, pool.shape[0])
        grid[:] = pool[k]
        n = pool_n[k]
        lo[:n] = pool_lo[k, :n]
        hi[:n] = pool_hi[k, :n]
        return n, k
    if source == 1:
        pairswap_grid_kernel(rng, grid)
    else:
        random_grid_kernel(rng, grid)
    return two_digit_uas_kernel(grid, lo, hi, 0, lo.shape[0]), -1


@njit(cache=True, nogil=True)
def _finish_output(rng, source, puzzle, out):
    if source == 2:
        random_isomorph_kernel(puzzle, rng, out)
    else:
        out[:] = puzzle


# ---------------------------------------------------------------- top-down
@njit(cache=True, nogil=True)
def top_down_kernel(rng, source, pool, pool_lo, pool_hi, pool_n, out):
    """Fill ``out`` (uint8[N, 81]) with top-down minimal puzzles.  Returns solver calls."""
    grid = np.zeros(81, dtype=np.uint8)
    lo = np.zeros(MAX_UA, dtype=np.uint64)
    hi = np.zeros(MAX_UA, dtype=np.uint64)
    order = np.arange(81, dtype=np.int64)
    puzzle = np.zeros(81, dtype=np.uint8)
    calls = 0
    for i in range(out.shape[0]):
        n_ua, _ = _grid_and_uas(rng, source, pool, pool_lo, pool_hi, pool_n, grid, lo, hi)
        puzzle[:] = grid
        shuffle_inplace(rng, order)
        del_lo = np.uint64(0)
        del_hi = np.uint64(0)
        for k in range(81):
            c = order[k]
            d = puzzle[c]
            puzzle[c] = 0
            if _forced_by_peers(puzzle, c, d):
                keep_deleted = True
            else:
                if c < 64:
                    t_lo, t_hi = del_lo | _bit(c), del_hi
                else:
                    t_lo, t_hi = del_lo, del_hi | _bit(c)
                if _ua_fully_deleted(lo, hi, n_ua, t_lo, t_hi):
                    keep_deleted = False
                else:
                    calls += 1
                    keep_deleted = _is_unique(puzzle)
            if keep_deleted:
                if c < 64:
                    del_lo |= _bit(c)
                else:
                    del_hi |= _bit(c)
            else:
                puzzle[c] = d
        _finish_output(rng, source, puzzle, out[i])
    return calls


# ---------------------------------------------------------------- bottom-up
@njit(cache=True, nogil=True)
def _add_random_clue(rng, puzzle, cells_free):
    """Put a random digit on a random empty cell, drawing (cell, digit) pairs
    uniformly and rejecting those that repeat a digit of a peer (Metcalf's
    "random values at random locations consistent with the basic
    constraints").  Returns the cell."""
    while True:
        c = cells_free[rand_below(rng, cells_free.shape[0])]
        if puzzle[c]:
            continue
        d = rand_below(rng, 9) + 1
        ok = True
        for k in range(20):
            if puzzle[PEERS[c, k]] == d:
                ok = False
                break
        if ok:
            puzzle[c] = d
            return c


@njit(cache=True, nogil=True)
def bottom_up_kernel(rng, out, start_clues):
    """Fill ``out`` with bottom-up (Metcalf) minimal puzzles.  Returns solver calls."""
    puzzle = np.zeros(81, dtype=np.uint8)
    cells = np.arange(81, dtype=np.int64)
    order = np.arange(81, dtype=np.int64)
    calls = 0
    for i in range(out.shape[0]):
        while True:
            # 1) start_clues random clues consistent with the rules
            puzzle[:] = 0
            for _ in range(start_clues):
                _add_random_clue(rng, puzzle, cells)
            calls += 1
            n = count_solutions_kernel(puzzle, 2)
            if n == 0:
                continue          # 3) no solution: start again
            # 5)-8) add clues until unique, dropping one that kills every solution
            while n > 1:
                c = _add_random_clue(rng, puzzle, cells)
                calls += 1
                n = count_solutions_kernel(puzzle, 2)
                if n == 0:
                    puzzle[c] = 0
                    n = 2
            break
        # 9) visit the clues in random order; remove the redundant ones
        shuffle_inplace(rng, order)
        for k in range(81):
            c = order[k]
            d = puzzle[c]
            if d == 0:
                continue
            puzzle[c] = 0
            if _forced_by_peers(puzzle, c, d):
                continue
            calls += 1
            if not _is_unique(puzzle):
                puzzle[c] = d
        out[i] = puzzle
    return calls


# ---------------------------------------------------------------- controlled-bias
@njit(cache=True, nogil=True)
def _deleted_mask(order, k):
    lo = np.uint64(0)
    hi = np.uint64(0)
    for j in range(k):
        c = order[j]
        if c < 64:
            lo |= _bit(c)
        else:
            hi |= _bit(c)
    return lo, hi


@njit(cache=True, nogil=True)
def _puzzle_after(grid, order, k, puzzle):
    puzzle[:] = grid
    for j in range(k):
        puzzle[order[j]] = 0


@njit(cache=True, nogil=True)
def _unique_at(grid, order, k, lo, hi, n_ua, puzzle, calls):
    """Is the puzzle after k deletions unique?  UAs first, then the solver."""
    d_lo, d_hi = _deleted_mask(order, k)
    if _ua_fully_deleted(lo, hi, n_ua, d_lo, d_hi):
        return False, calls
    _puzzle_after(grid, order, k, puzzle)
    return _is_unique(puzzle), calls + 1


@njit(cache=True, nogil=True)
def _minimal_candidate(puzzle, lo, hi, n_ua, known_needed, calls):
    """Minimality of a unique puzzle: clues alone in a UA are needed; test the others."""
    p_lo = np.uint64(0)
    p_hi = np.uint64(0)
    for c in range(81):
        if puzzle[c]:
            if c < 64:
                p_lo |= _bit(c)
            else:
                p_hi |= _bit(c)
    needed_lo = np.uint64(0)
    needed_hi = np.uint64(0)
    if known_needed < 64:
        needed_lo |= _bit(known_needed)
    else:
        needed_hi |= _bit(known_needed)
    for i in range(n_ua):
        r_lo = lo[i] & p_lo
        r_hi = hi[i] & p_hi
        if r_hi == 0 and r_lo != 0 and (r_lo & (r_lo - np.uint64(1))) == 0:
            needed_lo |= r_lo
        elif r_lo == 0 and r_hi != 0 and (r_hi & (r_hi - np.uint64(1))) == 0:
            needed_hi |= r_hi
    for c in range(81):
        d = puzzle[c]
        if d == 0:
            continue
        if c < 64:
            if needed_lo & _bit(c):
                continue
        elif needed_hi & _bit(c):
            continue
        puzzle[c] = 0
        calls += 1
        u = _is_unique(puzzle)
        puzzle[c] = d
        if u:
            return False, calls
    return True, calls


@njit(cache=True, nogil=True)
def controlled_bias_kernel(rng, source, pool, pool_lo, pool_hi, pool_n, blind, n_paths,
                           out, tries_out, counters):
    """Run ``n_paths`` controlled-bias paths (one grid each); write the minimal
    puzzles found to ``out`` (stops early if it is full) and, for each, the
    number of paths since the previous output.  ``counters`` gets
    [paths, rejected by UAs at the blind step, solver calls].  Returns the count."""
    grid = np.zeros(81, dtype=np.uint8)
    puzzle = np.zeros(81, dtype=np.uint8)
    lo = np.zeros(MAX_UA, dtype=np.uint64)
    hi = np.zeros(MAX_UA, dtype=np.uint64)
    order = np.arange(81, dtype=np.int64)
    found = 0
    since = 0
    calls = 0
    ua_rejects = 0
    paths = 0
    for _ in range(n_paths):
        if found >= out.shape[0]:
            break
        paths += 1
        since += 1
        n_ua, _k = _grid_and_uas(rng, source, pool, pool_lo, pool_hi, pool_n, grid, lo, hi)
        # partial Fisher-Yates: only the first 65 deletions can matter (16 clues are never unique)
        for i in range(65):
            j = i + rand_below(rng, 81 - i)
            t = order[i]
            order[i] = order[j]
            order[j] = t
        d_lo, d_hi = _deleted_mask(order, blind)
        if _ua_fully_deleted(lo, hi, n_ua, d_lo, d_hi):
            ua_rejects += 1
            continue
        _puzzle_after(grid, order, blind, puzzle)
        calls += 1
        if not _is_unique(puzzle):
            continue
        # first non-unique step in (good, bad]: 81 - 16 deletions leave 16 clues, never unique
        good = blind
        bad = 65
        while bad - good > 1:
            mid = (good + bad) // 2
            u, calls = _unique_at(grid, order, mid, lo, hi, n_ua, puzzle, calls)
            if u:
                good = mid
            else:
                bad = mid
        _puzzle_after(grid, order, good, puzzle)
        ok, calls = _minimal_candidate(puzzle, lo, hi, n_ua, order[good], calls)
        if ok:
            _finish_output(rng, source, puzzle, out[found])
            tries_out[found] = since
            since = 0
            found += 1
    counters[0] += paths
    counters[1] += ua_rejects
    counters[2] += calls
    return found


@njit(cache=True, nogil=True)
def verify_minimal_kernel(puzzles):
    """Index of the first puzzle that is not unique and minimal, or -1."""
    for i in range(puzzles.shape[0]):
        if not is_minimal_kernel(puzzles[i]):
            return i
    return -1


@njit(cache=True, nogil=True)
def pool_uas_kernel(pool, lo, hi, n, three_digits):
    for k in range(pool.shape[0]):
        n[k] = grid_uas_kernel(pool[k], lo[k], hi[k], three_digits)


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
    names = sorted(set(a.metrics) | set(b.metrics))
    metrics = {}
    for k in names:
        xa = a.metrics.get(k, np.full(a.count, np.nan))
        xb = b.metrics.get(k, np.full(b.count, np.nan))
        metrics[k] = np.concatenate([xa, xb]) if a.count or b.count else np.zeros(0)
    return GenResult(np.concatenate([a.puzzles, b.puzzles]), np.concatenate([a.weights, b.weights]),
                     metrics, a.tries + b.tries, a.solver_calls + b.solver_calls, a.seconds + b.seconds)


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
                   m2=float((w * d**2).sum()), m3=float((w * d**3).sum()), m4=float((w * d**4).sum()))


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


# ---------------------------------------------------------------- pools (cached per process)
_POOL_CACHE: dict = {}
_POOL_LOCK = threading.Lock()


def ua_pool(size: int, seed: int, source: str = "solver", three_digits: bool = True):
    """(pool grids, UA lo masks, hi masks, UA counts), built once per process."""
    key = (int(size), int(seed), source, bool(three_digits))
    with _POOL_LOCK:
        hit = _POOL_CACHE.get(key)
        if hit is None:
            pool = grid_pool(size, seed, source)
            lo = np.zeros((size, MAX_UA), dtype=np.uint64)
            hi = np.zeros((size, MAX_UA), dtype=np.uint64)
            n = np.zeros(size, dtype=np.int64)
            pool_uas_kernel(pool, lo, hi, n, three_digits)
            # smallest UAs first: they are the likeliest to be fully deleted, so the scan stops early
            for k in range(size):
                m = int(n[k])
                sizes = np.array([bin(int(a)).count("1") + bin(int(b)).count("1") for a, b in zip(lo[k, :m], hi[k, :m])])
                idx = np.argsort(sizes, kind="stable")
                lo[k, :m] = lo[k, :m][idx]
                hi[k, :m] = hi[k, :m][idx]
            hit = (pool, lo, hi, n)
            _POOL_CACHE[key] = hit
    return hit


_EMPTY_POOL = (np.zeros((1, 81), dtype=np.uint8), np.zeros((1, MAX_UA), dtype=np.uint64),
               np.zeros((1, MAX_UA), dtype=np.uint64), np.zeros(1, dtype=np.int64))


# ---------------------------------------------------------------- jobs
class GeneratorJob(BatchJob):
    """One generator as a batch job.  Spec (all JSON-able):

    method: top-down | bottom-up | controlled-bias
    per_batch: puzzles per batch (top-down, bottom-up) or paths per batch (controlled-bias)
    grid_source: solver | pairswap | pool (top-down, controlled-bias)
    pool_size, pool_seed, pool_grids ('solver' or 'pairswap'): the pool source
    blind: clues deleted without test (controlled-bias, default 46)
    start_clues: first random clues of bottom-up (default 18)
    verify: re-check every output puzzle with is_minimal_kernel
    difficulty: metric names of ``puzzle_difficulty`` to compute per puzzle
    """

    kind = "generate"
    unit = "puzzles"
    kernel_groups = ("generators",)

    def __init__(self, method: str = "top-down", per_batch: int | None = None, grid_source: str | None = None,
                 pool_size: int = 256, pool_seed: int = 2009, pool_grids: str = "solver",
                 blind: int = 46, start_clues: int = 18, verify: bool = True, difficulty=None):
        if method not in ("top-down", "bottom-up", "controlled-bias"):
            raise ValueError(f"unknown generator {method!r} (top-down, bottom-up, controlled-bias)")
        if grid_source is None:
            grid_source = "pool" if method == "controlled-bias" else "solver"
        if grid_source not in SOURCE_CODES:
            raise ValueError(f"unknown grid source {grid_source!r} ({', '.join(SOURCE_CODES)})")
        if per_batch is None:
            per_batch = {"top-down": 200, "bottom-up": 100, "controlled-bias": 40_000}[method]
        if per_batch < 1:
            raise ValueError("per_batch must be at least 1")
        if not 0 <= blind <= 64:
            raise ValueError("blind deletions must be in 0..64")
        if not 0 <= start_clues <= 30:
            raise ValueError("start_clues must be in 0..30")
        if pool_size < 1:
            raise ValueError("pool_size must be at least 1")
        if difficulty is None:  # the W-rating (~10 ms/puzzle) only where generation is slower anyway
            difficulty = list(FAST_METRICS) if method != "controlled-bias" else list(METRICS)
        unknown = [m for m in difficulty if m not in METRICS]
        if unknown:
            raise ValueError(f"unknown difficulty metric(s) {unknown}; known: {list(METRICS)}")
        super().__init__(method=method, per_batch=int(per_batch), grid_source=grid_source,
                         pool_size=int(pool_size), pool_seed=int(pool_seed), pool_grids=pool_grids,
                         blind=int(blind), start_clues=int(start_clues), verify=bool(verify),
                         difficulty=list(difficulty))

    @property
    def method(self) -> str:
        return self.spec["method"]

    def _pool(self):
        s = self.spec
        if s["grid_source"] != "pool" or s["method"] == "bottom-up":
            return _EMPTY_POOL
        return ua_pool(s["pool_size"], s["pool_seed"], s["pool_grids"])

    def run_batch(self, batch_index: int, seed: int) -> GenResult:
        s = self.spec
        t0 = time.perf_counter()
        rng = seed_state(np.uint64(seed))
        src = SOURCE_CODES[s["grid_source"]]
        pool, plo, phi, pn = self._pool()
        tries = 0
        if s["method"] == "top-down":
            out = np.zeros((s["per_batch"], 81), dtype=np.uint8)
            calls = top_down_kernel(rng, src, pool, plo, phi, pn, out)
            tries = out.shape[0]
        elif s["method"] == "bottom-up":
            out = np.zeros((s["per_batch"], 81), dtype=np.uint8)
            calls = bottom_up_kernel(rng, out, s["start_clues"])
        else:
            buf = np.zeros((64, 81), dtype=np.uint8)
            tries_out = np.zeros(64, dtype=np.int64)
            counters = np.zeros(3, dtype=np.int64)
            n = controlled_bias_kernel(rng, src, pool, plo, phi, pn, s["blind"], s["per_batch"],
                                       buf, tries_out, counters)
            out = buf[:n].copy()
            tries = int(counters[0])
            calls = int(counters[2])
        if s["verify"] and out.shape[0]:
            bad = verify_minimal_kernel(out)
            if bad >= 0:
                raise RuntimeError(f"{s['method']} produced a puzzle that is not unique and minimal: "
                                   f"batch {batch_index}, puzzle {bad}")
        metrics = puzzle_difficulty(out, s["difficulty"])
        return GenResult(out, np.ones(out.shape[0]), metrics, int(tries), int(calls),
                         time.perf_counter() - t0)

    def merge(self, a: GenResult, b: GenResult) -> GenResult:
        return merge_results(a, b)

    def empty(self) -> GenResult:
        return GenResult()

    def units(self, total: GenResult) -> int:
        return total.count

    def describe(self, total: GenResult) -> dict:
        return describe_result(self.method, total)

    def warm_up(self) -> None:
        warm_up()


def make_job(method: str, **kw) -> BatchJob:
    """The job of a generator by name (weighted-subsets lives in sudoku/weighted.py)."""
    if method == "weighted-subsets":
        from sudokustudio.sudoku.weighted import WeightedSubsetsJob

        return WeightedSubsetsJob(**kw)
    return GeneratorJob(method=method, **kw)


def batches_for(method: str, n_puzzles: int, job: BatchJob) -> int | None:
    """Batches for about n_puzzles (None when open-ended: controlled-bias / weighted stop by count)."""
    if method in ("top-down", "bottom-up"):
        return max(1, math.ceil(n_puzzles / job.spec["per_batch"]))
    return None


def warm_up() -> None:
    """Compile the generator kernels on tiny inputs."""
    GeneratorJob("top-down", per_batch=1).run_batch(0, 1)
    GeneratorJob("bottom-up", per_batch=1).run_batch(0, 1)
    pool = grid_pool(1, 1)
    lo = np.zeros((1, MAX_UA), dtype=np.uint64)
    hi = np.zeros((1, MAX_UA), dtype=np.uint64)
    n = np.zeros(1, dtype=np.int64)
    pool_uas_kernel(pool, lo, hi, n, False)
    controlled_bias_kernel(seed_state(np.uint64(1)), 2, pool, lo, hi, n, 46, 10,
                           np.zeros((1, 81), dtype=np.uint8), np.zeros(1, dtype=np.int64),
                           np.zeros(3, dtype=np.int64))
