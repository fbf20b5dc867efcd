"""Monte Carlo counts of Sudoku grids of any box shape (seed 003): the
estimates, their summary and the batch job.  The samplers are in
``samplers``; weights are stored divided by a fixed per-shape scale (a power
of two near the count) so that sums of squares fit a float64 even for
16x16."""
from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from sudokustudio.core.batch import BatchJob
from sudokustudio.core.plain import plain_dataclass
from sudokustudio.core.rng import seed_state
from sudokustudio.core.stats import Z95
from sudokustudio.sudoku.estimate.samplers import (crude_batch_kernel, fc_batch_kernel, ridder_batch_kernel,
                                                   rows_batch_kernel, rows_grid_g, sequential_grid_kernel)
from sudokustudio.sudoku.tables import geometry

# exact numbers of grids (REFERENCES.md); 16x16 is an estimate
GRID_COUNTS: dict[str, float] = {
    "2x2": 288,
    "2x3": 28_200_960,
    "2x4": 29_136_487_207_403_520,
    "3x3": 6_670_903_752_021_072_936_960,
    "3x4": 81_171_437_193_104_932_746_936_103_027_318_645_818_654_720_000,
    "4x4": 5.9584e98,
}
GRID_COUNT_EXACT = {"2x2": True, "2x3": True, "2x4": True, "3x3": True, "3x4": True, "4x4": False}
BOX_SHAPES = list(GRID_COUNTS)
GRID_METHODS = ["crude", "ridder", "rows", "fc"]
GRID_METHOD_LABELS = {
    "crude": "crude Monte Carlo (permutation rows)",
    "ridder": "Ridder importance sampling (seed 003)",
    "rows": "row-wise exact-row sampler (ours)",
    "fc": "forward checking, fewest candidates (ours)",
}


def parse_box(text: str) -> tuple[int, int]:
    """'3x3' -> (3, 3); a clear error for anything else."""
    t = str(text).lower().replace("×", "x").strip()
    if t not in GRID_COUNTS:
        raise ValueError(f"box shape {text!r}: choose one of {', '.join(BOX_SHAPES)}")
    r, c = t.split("x")
    return int(r), int(c)


def weight_scale(box: str) -> float:
    """The fixed power of two weights are divided by for this box shape."""
    return 2.0 ** round(math.log2(float(GRID_COUNTS[box])))


def omega_size(box: str) -> float:
    """|Omega| = (n!)^n, the permutation-row grids of seed 003."""
    r, c = parse_box(box)
    n = r * c
    return float(math.factorial(n)) ** n



@plain_dataclass("GridStats")
@dataclass
class GridStats:
    """Sufficient statistics of a grid-count run (weights divided by ``scale``)."""

    n: int = 0
    nonzero: int = 0
    s1: float = 0.0
    s2: float = 0.0
    cpu: float = 0.0

    def __add__(self, o: "GridStats") -> "GridStats":
        return GridStats(self.n + o.n, self.nonzero + o.nonzero, self.s1 + o.s1, self.s2 + o.s2,
                         self.cpu + o.cpu)


def grid_summary(box: str, stats: GridStats, seconds: float | None = None) -> dict:
    """estimate, sd, rel_err, 95% CI, RAT and EFF (seed 003) of a grid-count run."""
    scale = weight_scale(box)
    n = stats.n
    out = {"samples": n, "hits": stats.nonzero, "cpu_seconds": stats.cpu}
    if n == 0:
        return {**out, "estimate": float("nan"), "rel_err": float("nan"), "se": float("nan"),
                "ci95": [float("nan"), float("nan")], "rat": float("nan"), "eff": float("nan")}
    mean_s = stats.s1 / n
    var_s = max(stats.s2 / n - mean_s * mean_s, 0.0) * n / max(n - 1, 1)
    est = mean_s * scale
    sd = math.sqrt(var_s) * scale
    se = sd / math.sqrt(n)
    rel = se / est if est > 0 else float("inf")
    # RAT and EFF for gamma = Y / |Omega| (seed 003, eq. 5 and EFF)
    log_omega = math.log(omega_size(box))
    log_scale = math.log(scale)
    if stats.s1 > 0:
        log_e1 = math.log(mean_s) + log_scale - log_omega
        log_e2 = math.log(stats.s2 / n) + 2 * (log_scale - log_omega)
        rat = log_e2 / log_e1
        var_gamma_n = (var_s / n) * math.exp(2 * (log_scale - log_omega))
        cpu = seconds if seconds else stats.cpu
        eff = 1.0 / (var_gamma_n * cpu) if var_gamma_n > 0 and cpu > 0 else float("inf")
    else:
        rat = eff = float("nan")
    return {**out, "estimate": est, "se": se, "sd": sd, "rel_err": rel,
            "ci95": [est - Z95 * se, est + Z95 * se], "rat": rat, "eff": eff}


class GridCountJob(BatchJob):
    """Estimate the number of grids of one box shape with one method."""

    kind = "estimate.grids"
    unit = "samples"
    kernel_groups = ("estimators",)

    def __init__(self, box: str = "3x3", method: str = "fc", samples_per_batch: int | None = None):
        parse_box(box)
        if method not in GRID_METHODS:
            raise ValueError(f"method {method!r}: choose one of {', '.join(GRID_METHODS)}")
        if samples_per_batch is None:
            samples_per_batch = default_grid_batch(box, method)
        if samples_per_batch < 1:
            raise ValueError("samples per batch must be at least 1")
        super().__init__(box=box, method=method, samples_per_batch=int(samples_per_batch))
        self.box, self.method, self.samples_per_batch = box, method, int(samples_per_batch)

    def run_batch(self, batch_index: int, seed: int) -> GridStats:
        r, c = parse_box(self.box)
        rng = seed_state(np.uint64(seed))
        k = self.samples_per_batch
        t0 = time.perf_counter()
        if self.method == "crude":
            hits = int(crude_batch_kernel(rng, r, c, k))
            w = omega_size(self.box) / weight_scale(self.box)
            res = GridStats(k, hits, hits * w, hits * w * w)
        else:
            st = np.zeros(3)
            inv = 1.0 / weight_scale(self.box)
            if self.method == "ridder":
                ridder_batch_kernel(rng, r, c, k, inv, st)
            elif self.method == "rows":
                rows_batch_kernel(rng, r, c, k, inv, st)
            else:
                _, peers, units = geometry(r, c)
                fc_batch_kernel(rng, peers, units, k, inv, st)
            res = GridStats(k, int(st[0]), float(st[1]), float(st[2]))
        res.cpu = time.perf_counter() - t0
        return res

    def merge(self, a: GridStats, b: GridStats) -> GridStats:
        return a + b

    def empty(self) -> GridStats:
        return GridStats()

    def warm_up(self) -> None:
        GridCountJob(self.box, self.method, 2).run_batch(0, 1)

    def units(self, total: GridStats) -> int:
        return total.n

    def rel_err(self, total: GridStats) -> float | None:
        return grid_summary(self.box, total)["rel_err"] if total.n else None

    def summary(self, total: GridStats) -> dict:
        d = grid_summary(self.box, total)
        return {"estimate": d["estimate"], "se": d["se"], "rel_err": d["rel_err"]}

    def describe(self, total: GridStats) -> dict:
        d = grid_summary(self.box, total)
        d.update(box=self.box, method=self.method, exact=float(GRID_COUNTS[self.box]),
                 exact_is_exact=GRID_COUNT_EXACT[self.box])
        return d


def default_grid_batch(box: str, method: str) -> int:
    """Samples per batch aiming at ~0.1-0.3 s of work."""
    n = parse_box(box)[0] * parse_box(box)[1]
    if method == "crude":
        return max(1000, 400_000 // n)
    if method == "ridder":
        return max(1000, 2_000_000 // (n * n))
    if method == "rows":
        return {4: 100_000, 6: 20_000, 8: 4000, 9: 2000, 12: 100, 16: 4}.get(n, 1000)
    return {4: 50_000, 6: 5000, 8: 1000, 9: 1000, 12: 100, 16: 20}.get(n, 1000)


def warm_up() -> None:
    """Compile the grid samplers with the app's types (every shape shares them)."""
    for m in GRID_METHODS:
        GridCountJob("2x2", m, 4).run_batch(0, 1)
    rows_grid_g(seed_state(np.uint64(1)), 2, 2, np.zeros(16, dtype=np.uint8))
    sequential_grid_kernel(seed_state(np.uint64(1)), np.zeros(81, dtype=np.uint8))
