"""Where the weighted sampler's variance of the mean clue count comes from, class by class.

    python3 benchmarks/weighted_classes.py [--seconds 150] [--seeds 1,2] [--s 32] [--per-grid 4]

Runs the weighted-subsets kernel (sequential grids, one grid sample per call) for
``--seconds`` CPU-s per seed, one process per seed, and keeps each sample's weight per
clue count.  Prints the mean and its SE, each class's share of the variance (the
delta-method influence of the ratio estimator, split by class), the 29-clue class's
variance against what Poisson counts would give (its clustering factor k), and the
classes the run barely sees (30, 31) modelled from the exact inclusion probabilities
and the published counts (REFERENCES.md): Poisson (k = 1) and clustered like c = 29.
The README's Generators section quotes this benchmark.
"""
from __future__ import annotations

import argparse
import math
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

CLASSES = np.arange(17, 36)
#: published minimal puzzles per grid (Berthier 2009, REFERENCES.md) and their total
PUBLISHED = {28: 7.2063e14, 29: 1.6751e14, 30: 1.9277e13, 31: 1.1240e12}
PUBLISHED_TOTAL = 4.6563e15


def sample(seed: int, seconds: float, s: int, per_grid: int) -> tuple[np.ndarray, float]:
    """Per-sample weights by clue count (samples x CLASSES) and the CPU seconds taken."""
    from sudokustudio.core.rng import seed_state
    from sudokustudio.sudoku.generate import weighted as W
    from sudokustudio.sudoku.grids import grid_pool
    from sudokustudio.sudoku.tables import geometry

    pool = grid_pool(1, 2009, "solver")   # unused with sequential grids, but the kernel takes one
    _, peers, units = geometry(3, 3)
    rng = seed_state(np.uint64(seed))
    inv = W.inclusion_weights(s)
    counts, whist, sums = np.zeros(82, np.int64), np.zeros(82), np.zeros(7)
    buf = np.zeros((4096, 81), np.uint8)
    rows = []
    W.warm_up()
    t0 = time.process_time()
    while time.process_time() - t0 < seconds:
        before = whist.copy()
        W.subsets_kernel(rng, pool, peers, units, s, 1, per_grid, inv, buf, np.zeros(4096), counts, whist,
                         sums, True, np.empty_like(buf))
        rows.append((whist - before)[CLASSES[0]:CLASSES[-1] + 1])
    return np.array(rows), time.process_time() - t0


def report(R: np.ndarray, cpu: float, s: int, per_grid: int) -> None:
    n = len(R)
    b = R.sum(1)
    mu = (R * CLASSES).sum() / b.sum()
    influence = (CLASSES - mu) * R / b.mean()     # z_i split by class
    V = influence.sum(1).var(ddof=1)
    print(f"{n:,} samples in {cpu:.0f} CPU-s ({1000 * cpu / n:.2f} ms a sample): mean {mu:.4f} ± "
          f"{math.sqrt(V / n):.4f}; SE² x CPU-s {V / n * cpu:.3f}")
    for j, c in enumerate(CLASSES):
        v = influence[:, j].var(ddof=1)
        if v > 0:
            print(f"  c = {c}: {100 * v / V:6.2f}% of the variance, {np.count_nonzero(R[:, j]):,} samples with a find")

    def inv(c):
        return math.comb(81, s) / math.comb(81 - c, s - c)

    def poisson(c):
        return (c - mu) ** 2 * PUBLISHED[c] / PUBLISHED_TOTAL * inv(c) / (per_grid * b.mean())

    low = influence[:, CLASSES <= 29].sum(1).var(ddof=1)
    k = influence[:, 29 - CLASSES[0]].var(ddof=1) / poisson(29)
    print(f"classes up to 29: SE² x CPU-s {low / n * cpu:.3f}; the 29-clue class's variance is {k:.2f}x Poisson")
    for kk, name in ((1.0, "Poisson"), (k, "clustered like c = 29")):
        full = low + kk * (poisson(30) + poisson(31))
        print(f"  with c = 30, 31 modelled ({name}): variance x{full / low:.2f}, SE² x CPU-s {full / n * cpu:.3f}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=150.0, help="CPU seconds per seed")
    ap.add_argument("--seeds", default="1,2", help="one process per seed")
    ap.add_argument("--s", type=int, default=32)
    ap.add_argument("--per-grid", type=int, default=4)
    a = ap.parse_args()
    seeds = [int(x) for x in a.seeds.split(",")]
    with ProcessPoolExecutor(len(seeds)) as ex:
        parts = list(ex.map(sample, seeds, [a.seconds] * len(seeds), [a.s] * len(seeds),
                            [a.per_grid] * len(seeds)))
    report(np.concatenate([r for r, _ in parts]), sum(t for _, t in parts), a.s, a.per_grid)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
