"""Monte Carlo counts of Sudoku grids of any box shape (seed 003): the
estimates, their summary and the batch job.  The samplers are in
``samplers``; weights are stored divided by a fixed per-shape scale (a power
of two near the count) so that sums of squares fit a float64 even for
16x16."""
from __future__ import annotations

import functools
import math
import time
from dataclasses import dataclass

import numpy as np

from sudokustudio.core.batch import BatchJob
from sudokustudio.core.plain import plain_dataclass
from sudokustudio.core.rng import seed_state
from sudokustudio.core.stats import Z95, sample_variance, tail_diagnostics
from sudokustudio.sudoku.estimate.smc import fill_order, guide_table, smc_batch_kernel
from sudokustudio.sudoku.estimate.samplers import (crude_batch_kernel, fc_batch_kernel, fc_log2_weights,
                                                   ridder_batch_kernel,
                                                   rows_batch_kernel, rows_grid_g, sequential_grid_kernel)
from sudokustudio.sudoku.tables import geometry

# numbers of grids (REFERENCES.md), by box shape r x c with r <= c (c x r boxes give the
# same number: transpose the grid); 16x16 is a published estimate without an error
GRID_COUNTS: dict[str, float] = {
    "2x2": 288,
    "2x3": 28_200_960,
    "2x4": 29_136_487_207_403_520,
    "3x3": 6_670_903_752_021_072_936_960,
    "2x5": 1_903_816_047_972_624_930_994_913_280_000,
    "3x4": 81_171_437_193_104_932_746_936_103_027_318_645_818_654_720_000,
    "4x4": 5.9584e98,
}
GRID_COUNT_EXACT = {"2x2": True, "2x3": True, "2x4": True, "3x3": True, "2x5": True, "3x4": True, "4x4": False}
MAX_CELLS_PER_BOX = 25
# every rectangular box shape r <= c, r >= 2, with at most 25 cells, by grid size
BOX_SHAPES = [f"{r}x{c}" for n in range(4, MAX_CELLS_PER_BOX + 1) for r in range(2, n)
              for c in [n // r] if r * c == n and r <= c]
GRID_METHODS = ["crude", "ridder", "rows", "fc", "smc"]
GRID_METHOD_LABELS = {
    "crude": "crude Monte Carlo (permutation rows)",
    "ridder": "Ridder importance sampling (seed 003)",
    "rows": "row-wise exact-row sampler (ours)",
    "fc": "forward checking, fewest candidates (ours)",
    "smc": "particle filter, row by row with forward checking (ours)",
}
# the largest grid side each method takes: crude finds nothing past 9x9 and its |Omega|
# leaves float range; the row-wise sampler's subset DP has 2^n entries per row
METHOD_MAX_SIDE = {"crude": 9, "ridder": MAX_CELLS_PER_BOX, "rows": 16, "fc": MAX_CELLS_PER_BOX,
                   "smc": MAX_CELLS_PER_BOX}


def parse_box(text: str) -> tuple[int, int]:
    """'3x3' -> (3, 3): r x c boxes, r, c >= 2, r * c <= 25; a clear error for anything else."""
    t = str(text).lower().replace("×", "x").strip()
    parts = t.split("x")
    if len(parts) != 2 or not all(p.isdigit() for p in parts):
        raise ValueError(f"box shape {text!r}: write it as RxC, e.g. 3x3 or 4x5")
    r, c = int(parts[0]), int(parts[1])
    if r < 2 or c < 2 or r * c > MAX_CELLS_PER_BOX:
        raise ValueError(f"box shape {text!r}: need r, c >= 2 and r*c <= {MAX_CELLS_PER_BOX}")
    return r, c


def canonical_box(box: str) -> str:
    """'5x4' -> '4x5' (the transposed shape has the same number of grids)."""
    r, c = parse_box(box)
    return f"{min(r, c)}x{max(r, c)}"


def grid_reference(box: str) -> tuple[float | None, bool]:
    """(published number of grids or None, whether it is exact)."""
    key = canonical_box(box)
    if key not in GRID_COUNTS:
        return None, False
    return float(GRID_COUNTS[key]), GRID_COUNT_EXACT[key]


@functools.lru_cache(maxsize=None)
def scale_log2(box: str) -> int:
    """The weights of ``box`` are divided by 2^scale_log2(box): log2 of the reference count when
    there is one; otherwise the largest log2 weight of a fixed-seed pilot of 32 forward-checking
    samples (deterministic; jobs store it in their spec, so a stored run keeps its scale)."""
    ref, _ = grid_reference(box)
    if ref is not None:
        return int(round(math.log2(ref)))
    r, c = parse_box(box)
    _, peers, units = geometry(r, c)
    out = np.empty(32)
    fc_log2_weights(seed_state(np.uint64(20261123)), peers, units, out)
    good = out[np.isfinite(out)]
    if good.size == 0:
        raise ValueError(f"box shape {box}: the pilot found no grid to set the weight scale")
    return int(round(float(good.max())))


def weight_scale(box: str) -> float:
    """The fixed power of two weights are divided by for this box shape."""
    return 2.0 ** scale_log2(box)


def log_omega(box: str) -> float:
    """ln |Omega| = n ln n!, the permutation-row grids of seed 003."""
    r, c = parse_box(box)
    n = r * c
    return n * math.lgamma(n + 1)


def omega_size(box: str) -> float:
    """|Omega| = (n!)^n (inf past float range)."""
    try:
        return math.exp(log_omega(box))
    except OverflowError:
        return float("inf")


@plain_dataclass("GridStats")
@dataclass
class GridStats:
    """Sufficient statistics of a grid-count run (weights divided by ``scale``).

    ``wmax`` is the largest scaled weight of the ``tail_n`` samples that tracked it (runs
    stored before the tail diagnostics have tail_n = 0: their max share is unknown)."""

    n: int = 0
    nonzero: int = 0
    s1: float = 0.0
    s2: float = 0.0
    cpu: float = 0.0
    wmax: float = 0.0
    tail_n: int = 0

    def __add__(self, o: "GridStats") -> "GridStats":
        return GridStats(self.n + o.n, self.nonzero + o.nonzero, self.s1 + o.s1, self.s2 + o.s2,
                         self.cpu + o.cpu, max(self.wmax, o.wmax), self.tail_n + o.tail_n)


def grid_summary(box: str, stats: GridStats, seconds: float | None = None, scale_e2: int | None = None) -> dict:
    """estimate, sd, rel_err, 95% CI, RAT and EFF (seed 003), tail diagnostics and the z-score
    against the reference count (when there is one) of a grid-count run."""
    e2 = scale_log2(box) if scale_e2 is None else scale_e2
    log_scale = e2 * math.log(2.0)
    n = stats.n
    ref, exact = grid_reference(box)
    out = {"samples": n, "hits": stats.nonzero, "cpu_seconds": stats.cpu, "core_seconds": stats.cpu,
           "reference": ref, "reference_exact": exact}
    tail = tail_diagnostics(stats.s1, stats.s2, stats.wmax)
    if stats.tail_n < n:
        tail["max_share"] = float("nan")
    out["tail"] = tail
    if n == 0:
        return {**out, "estimate": float("nan"), "rel_err": float("nan"), "se": float("nan"),
                "ci95": [float("nan"), float("nan")], "rat": float("nan"), "eff": float("nan"),
                "z": float("nan")}
    mean_s = stats.s1 / n
    var_s = sample_variance(n, stats.s1, stats.s2)
    # 25x25 counts come near the float limit: scale back with ldexp (inf past it) and give log10
    est, sd = _unscale(mean_s, e2), _unscale(math.sqrt(var_s), e2)
    se = sd / math.sqrt(n)
    rel = math.sqrt(var_s / n) / mean_s if mean_s > 0 else float("inf")
    log10_est = math.log10(mean_s) + e2 * math.log10(2.0) if mean_s > 0 else float("-inf")
    z = (est - ref) / se if ref is not None and se > 0 else float("nan")
    # RAT and EFF for gamma = Y / |Omega| (seed 003, eq. 5 and EFF)
    lo = log_omega(box)
    if stats.s1 > 0:
        log_e1 = math.log(mean_s) + log_scale - lo
        log_e2 = math.log(stats.s2 / n) + 2 * (log_scale - lo)
        rat = log_e2 / log_e1
        log_var = math.log(var_s / n) + 2 * (log_scale - lo) if var_s > 0 else -math.inf
        cpu = seconds if seconds else stats.cpu
        eff = math.exp(-log_var) / cpu if log_var > -700 and cpu > 0 else float("inf")
    else:
        rat = eff = float("nan")
    return {**out, "estimate": est, "log10_estimate": log10_est, "se": se, "sd": sd, "rel_err": rel,
            "ci95": [est - Z95 * se, est + Z95 * se], "rat": rat, "eff": eff, "z": z}


def _unscale(x: float, e2: int) -> float:
    try:
        return math.ldexp(x, e2)
    except OverflowError:
        return float("inf")


class GridCountJob(BatchJob):
    """Estimate the number of grids of one box shape with one method."""

    kind = "estimate.grids"
    unit = "samples"
    kernel_groups = ("grid-estimators",)

    def __init__(self, box: str = "3x3", method: str = "fc", samples_per_batch: int | None = None,
                 scale_e2: int | None = None, particles: int | None = None):
        r, c = parse_box(box)
        if method not in GRID_METHODS:
            raise ValueError(f"method {method!r}: choose one of {', '.join(GRID_METHODS)}")
        if r * c > METHOD_MAX_SIDE[method]:
            raise ValueError(f"method {method!r} takes grids up to {METHOD_MAX_SIDE[method]}x"
                             f"{METHOD_MAX_SIDE[method]} (box {box} makes {r * c}x{r * c}); use fc or ridder")
        if samples_per_batch is None:
            samples_per_batch = default_grid_batch(box, method)
        if samples_per_batch < 1:
            raise ValueError("samples per batch must be at least 1")
        spec = dict(box=box, method=method, samples_per_batch=int(samples_per_batch))
        if method == "smc":      # a sample is one particle-filter run of this many particles
            particles = default_particles(box) if particles is None else int(particles)
            if particles < 1:
                raise ValueError("particles must be at least 1")
            spec["particles"] = particles
        elif particles is not None:
            raise ValueError(f"method {method!r} has no particles (only smc has)")
        known = grid_reference(box)[0] is not None
        if scale_e2 is None:
            scale_e2 = scale_log2(box)
        if not known:      # a pilot scale: keep it with the run
            spec["scale_e2"] = int(scale_e2)
        super().__init__(**spec)
        self.box, self.method, self.samples_per_batch = box, method, int(samples_per_batch)
        self.scale_e2 = int(scale_e2)
        self.particles = particles

    def run_batch(self, batch_index: int, seed: int) -> GridStats:
        r, c = parse_box(self.box)
        rng = seed_state(np.uint64(seed))
        k = self.samples_per_batch
        t0 = time.perf_counter()
        if self.method == "crude":
            hits = int(crude_batch_kernel(rng, r, c, k))
            w = math.exp(log_omega(self.box) - self.scale_e2 * math.log(2.0))
            res = GridStats(k, hits, hits * w, hits * w * w, 0.0, w if hits else 0.0, k)
        else:
            st = np.zeros(4)
            e2 = float(self.scale_e2)
            if self.method == "ridder":
                ridder_batch_kernel(rng, r, c, k, e2, st)
            elif self.method == "rows":
                rows_batch_kernel(rng, r, c, k, e2, st)
            elif self.method == "smc":
                _, peers, units = geometry(r, c)
                smc_batch_kernel(rng, peers, units, fill_order(r, c), k, self.particles, SMC_ESS_FRACTION,
                                 guide_table(r * c, SMC_GUIDE), e2, st)
            else:
                _, peers, units = geometry(r, c)
                fc_batch_kernel(rng, peers, units, k, e2, st)
            res = GridStats(k, int(st[0]), float(st[1]), float(st[2]), 0.0, float(st[3]), k)
        res.cpu = time.perf_counter() - t0
        return res

    def merge(self, a: GridStats, b: GridStats) -> GridStats:
        return a + b

    def empty(self) -> GridStats:
        return GridStats()

    def warm_up(self) -> None:
        GridCountJob(self.box, self.method, 2, self.scale_e2, 2 if self.method == "smc" else None).run_batch(0, 1)

    def units(self, total: GridStats) -> int:
        return total.n

    def rel_err(self, total: GridStats) -> float | None:
        return grid_summary(self.box, total, scale_e2=self.scale_e2)["rel_err"] if total.n else None

    def summary(self, total: GridStats) -> dict:
        d = grid_summary(self.box, total, scale_e2=self.scale_e2)
        return {"estimate": d["estimate"], "se": d["se"], "rel_err": d["rel_err"], "ess": d["tail"]["ess"],
                "max_share": d["tail"]["max_share"], "tail_warning": d["tail"]["warning"]}

    def summarize(self, total: GridStats, seconds: float | None = None) -> dict:
        """``grid_summary`` with this job's weight scale."""
        return grid_summary(self.box, total, seconds=seconds, scale_e2=self.scale_e2)

    def describe(self, total: GridStats) -> dict:
        d = self.summarize(total)
        ref, exact = grid_reference(self.box)
        d.update(box=self.box, method=self.method, exact=float("nan") if ref is None else ref,
                 exact_is_exact=exact)
        return d


# the particle filter (``smc``): a step per cell, row by row, resampling when the effective population
# falls below half, values guided by F(v) (smc._guided_choose).  Particles per run by grid side: about
# 10x the measured variance constant C (var ln Z ~ C / N: 1.4 at 9x9, 1.8 at 10x10, 2.6 at 12x12,
# 8-10 at 15x15 and 16x16, 15 at 20x20, 26-46 at 25x25),
# so one run's estimate is near normal (relative sd ~0.3) and the batch estimates are a light-tailed
# sample; runs per batch for ~0.1-0.5 s of work
SMC_ESS_FRACTION = 0.5
SMC_GUIDE = 1.0
SMC_PARTICLES = {4: 4, 6: 8, 8: 16, 9: 16, 10: 32, 12: 64, 14: 64, 15: 128, 16: 128, 18: 256, 20: 256, 21: 512,
                 22: 512, 24: 512, 25: 512}
SMC_RUNS_PER_BATCH = {4: 5000, 6: 500, 8: 100, 9: 100, 10: 40, 12: 10, 15: 4, 16: 4}


def default_particles(box: str) -> int:
    """Particles per SMC run for this box shape."""
    n = parse_box(box)[0] * parse_box(box)[1]
    return SMC_PARTICLES.get(n, 512)


def default_grid_batch(box: str, method: str) -> int:
    """Samples per batch aiming at ~0.1-0.3 s of work (smc: at least one run)."""
    n = parse_box(box)[0] * parse_box(box)[1]
    if method == "smc":
        return SMC_RUNS_PER_BATCH.get(n, 1)
    if method == "crude":
        return max(1000, 400_000 // n)
    if method == "ridder":
        return max(1000, 2_000_000 // (n * n))
    if method == "rows":
        return {4: 100_000, 6: 20_000, 8: 4000, 9: 2000, 12: 100, 16: 4}.get(n, max(1, 200_000 // 2 ** n))
    return {4: 50_000, 6: 5000, 8: 1000, 9: 1000, 12: 100, 16: 20}.get(n, max(2, 20_000 // (n * n)))


def warm_up() -> None:
    """Compile the grid samplers with the app's types (every shape shares them)."""
    for m in GRID_METHODS:
        GridCountJob("2x2", m, 4).run_batch(0, 1)
    rows_grid_g(seed_state(np.uint64(1)), 2, 2, np.zeros(16, dtype=np.uint8))
    _, peers, units = geometry(2, 2)
    fc_log2_weights(seed_state(np.uint64(1)), peers, units, np.empty(1))
    sequential_grid_kernel(seed_state(np.uint64(1)), np.zeros(81, dtype=np.uint8))
