"""The generators of seed 002 as batch jobs (top-down, bottom-up,
controlled-bias; the weighted sampler is in ``weighted``), and the pools of
grids with their cheap UAs that the "pool" source draws from.

Every output puzzle is minimal by construction and is verified again
(``minimal.first_not_minimal``) before it is returned; a failure raises.
Top-down and bottom-up hand the verification, for each clue, the other
grid they found when deleting it failed; it checks that grid (a valid grid
with every other clue, another digit there: the clue is needed) instead of
asking the solver again (55 -> 11 us a puzzle).
"""
from __future__ import annotations

import threading
import time

import numpy as np

from sudokustudio.core.cellset import sizes_of
from sudokustudio.core.rng import seed_state
from sudokustudio.sudoku.difficulty import FAST_METRICS, METRICS, check_metrics, puzzle_difficulty
from sudokustudio.sudoku.generate.bands import check_bands, filter_result, rated_by_w
from sudokustudio.sudoku.generate.kernels import (MAX_UA, SOURCE_CODES, bottom_up_kernel, controlled_bias_kernel,
                                                  pool_uas_kernel, top_down_kernel)
from sudokustudio.sudoku.generate.results import GeneratorBatchJob, GenResult
from sudokustudio.sudoku.grids import shared_grid_pool
from sudokustudio.sudoku.minimal import first_not_minimal
from sudokustudio.sudoku.tables import geometry

# ---------------------------------------------------------------- pools (cached per process)
_POOL_CACHE: dict = {}
_POOL_LOCK = threading.Lock()


def ua_pool(size: int, seed: int, source: str = "solver", three_digits: bool = True):
    """(pool grids, UA lo masks, hi masks, UA counts), built once per process."""
    key = (int(size), int(seed), source, bool(three_digits))
    with _POOL_LOCK:
        hit = _POOL_CACHE.get(key)
        if hit is None:
            pool = shared_grid_pool(size, seed, source)
            lo = np.zeros((size, MAX_UA), dtype=np.uint64)
            hi = np.zeros((size, MAX_UA), dtype=np.uint64)
            n = np.zeros(size, dtype=np.int64)
            pool_uas_kernel(pool, lo, hi, n, three_digits)
            # smallest UAs first: they are the likeliest to be fully deleted, so the scan stops early
            for k in range(size):
                m = int(n[k])
                sizes = sizes_of(lo[k, :m], hi[k, :m])
                idx = np.argsort(sizes, kind="stable")
                lo[k, :m] = lo[k, :m][idx]
                hi[k, :m] = hi[k, :m][idx]
            hit = (pool, lo, hi, n)
            _POOL_CACHE[key] = hit
    return hit


#: top-down and bottom-up puzzles of a batch whose verification gets the generator's certificates
MAX_CERTIFIED = 1024
_EMPTY_POOL = (np.zeros((1, 81), dtype=np.uint8), np.zeros((1, MAX_UA), dtype=np.uint64),
               np.zeros((1, MAX_UA), dtype=np.uint64), np.zeros(1, dtype=np.int64))


# ---------------------------------------------------------------- jobs
class GeneratorJob(GeneratorBatchJob):
    """One generator as a batch job.  Spec (all JSON-able):

    method: top-down | bottom-up | controlled-bias
    per_batch: puzzles per batch (top-down, bottom-up) or paths per batch (controlled-bias)
    grid_source: solver | pairswap | pool (top-down, controlled-bias)
    pool_size, pool_seed, pool_grids ('solver' or 'pairswap'): the pool source
    blind: clues deleted without test (controlled-bias, default 46)
    start_clues: first random clues of bottom-up (default 18)
    verify: re-check every output puzzle with ``minimal.first_not_minimal``
    difficulty: metric names of ``puzzle_difficulty`` to compute per puzzle
    bands: target difficulty, [[metric, lo, hi], ...] (``generate.bands``): only puzzles inside
    every band are kept; the result counts the rated and the rejected
    """

    kind = "generate"
    unit = "puzzles"
    kernel_groups = ("generators",)

    def __init__(self, method: str = "top-down", per_batch: int | None = None, grid_source: str | None = None,
                 pool_size: int = 256, pool_seed: int = 2009, pool_grids: str = "solver",
                 blind: int = 46, start_clues: int = 18, verify: bool = True, difficulty=None, bands=None):
        if method not in ("top-down", "bottom-up", "controlled-bias"):
            raise ValueError(f"unknown generator {method!r} (top-down, bottom-up, controlled-bias)")
        if grid_source is None:
            grid_source = "pool" if method == "controlled-bias" else "solver"
        if grid_source not in SOURCE_CODES:
            raise ValueError(f"unknown grid source {grid_source!r} ({', '.join(SOURCE_CODES)})")
        # the W-rating (~10 ms/puzzle) only where generation is slower anyway
        difficulty = check_metrics(difficulty, FAST_METRICS if method != "controlled-bias" else METRICS)
        bands = check_bands(bands)
        if per_batch is None:
            # batches of ~0.05-0.3 s; rated by W (~4-10 ms a puzzle here) top-down's 200 took ~0.9 s
            per_batch = {"top-down": 200, "bottom-up": 100, "controlled-bias": 40_000}[method]
            if method != "controlled-bias" and rated_by_w(difficulty, bands):
                per_batch = 40
        if per_batch < 1:
            raise ValueError("per_batch must be at least 1")
        if not 0 <= blind <= 64:
            raise ValueError("blind deletions must be in 0..64")
        if not 0 <= start_clues <= 30:
            raise ValueError("start_clues must be in 0..30")
        if pool_size < 1:
            raise ValueError("pool_size must be at least 1")
        super().__init__(method=method, per_batch=int(per_batch), grid_source=grid_source,
                         pool_size=int(pool_size), pool_seed=int(pool_seed), pool_grids=pool_grids,
                         blind=int(blind), start_clues=int(start_clues), verify=bool(verify),
                         difficulty=list(difficulty), bands=bands)
        if method == "top-down" and grid_source != "pool" and set(difficulty) <= set(FAST_METRICS) and not bands:
            # the first row's run as it starts: its kernels alone are ready ~25 s sooner on a first start
            self.kernel_groups = ("top-down",)

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
        # grids certifying the clues as needed, from the generator (checked by the verification),
        # for the first MAX_CERTIFIED puzzles (6.6 kB each; the others are verified by the solver)
        n_certs = min(s["per_batch"], MAX_CERTIFIED) if s["verify"] and s["method"] != "controlled-bias" else 0
        certs = np.zeros((n_certs, 81, 81), dtype=np.uint8)
        if s["method"] == "top-down":
            out = np.zeros((s["per_batch"], 81), dtype=np.uint8)
            calls = top_down_kernel(rng, src, pool, plo, phi, pn, out, certs)
            tries = out.shape[0]
        elif s["method"] == "bottom-up":
            out = np.zeros((s["per_batch"], 81), dtype=np.uint8)
            calls = bottom_up_kernel(rng, out, s["start_clues"], certs)
        else:
            buf = np.zeros((64, 81), dtype=np.uint8)
            tries_out = np.zeros(64, dtype=np.int64)
            counters = np.zeros(3, dtype=np.int64)
            _, peers, units = geometry(3, 3)
            n = controlled_bias_kernel(rng, src, pool, plo, phi, pn, peers, units, s["blind"], s["per_batch"],
                                       buf, tries_out, counters)
            out = buf[:n].copy()
            tries = int(counters[0])
            calls = int(counters[2])
        if s["verify"] and out.shape[0]:
            bad = first_not_minimal(out, certs)
            if bad >= 0:
                raise RuntimeError(f"{s['method']} produced a puzzle that is not unique and minimal: "
                                   f"batch {batch_index}, puzzle {bad}")
        metrics = puzzle_difficulty(out, s["difficulty"])
        return filter_result(GenResult(out, np.ones(out.shape[0]), metrics, int(tries), int(calls),
                                       time.perf_counter() - t0), s.get("bands"))

    def warm_up(self) -> None:
        """Load (or compile) this generator's kernels: one tiny batch of it."""
        s = self.spec
        GeneratorJob(s["method"], per_batch=10 if s["method"] == "controlled-bias" else 1,
                     grid_source=s["grid_source"], pool_size=1, pool_grids=s["pool_grids"], verify=s["verify"],
                     difficulty=s["difficulty"]).run_batch(0, 1)


def warm_top_down() -> None:
    """Compile what a top-down run needs with its fast difficulty metrics (its kernel group)."""
    GeneratorJob("top-down", per_batch=1).run_batch(0, 1)


def warm_up() -> None:
    """Compile the generator kernels on tiny inputs, with the app's types."""
    GeneratorJob("top-down", per_batch=1, difficulty=[]).run_batch(0, 1)
    GeneratorJob("top-down", per_batch=1, grid_source="pool", pool_size=1, difficulty=[]).run_batch(0, 1)
    GeneratorJob("bottom-up", per_batch=1, difficulty=[]).run_batch(0, 1)
    GeneratorJob("controlled-bias", per_batch=10, pool_size=1, difficulty=[]).run_batch(0, 1)
