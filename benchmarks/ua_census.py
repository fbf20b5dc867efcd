"""Per-grid cost of the exhaustive 16-clue check on random grids (the census workload).

    python3 benchmarks/ua_census.py [--grids 100] [--seed 2026] [--clues 16] [--threads 2] [--csv OUT]

Draws ``--grids`` random grids (the solver's randomized fill, seeded), runs
the census job on them (a grid per batch: harvest, then the whole search)
and prints the distribution of CPU seconds per grid — harvest, search and
both — with a histogram.  CPU is the batch thread's own time, so running
on a shared machine or with both threads busy inflates it little.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sudokustudio.jobs.run import run_batches  # noqa: E402
from sudokustudio.sudoku.grids import grid_pool  # noqa: E402
from sudokustudio.sudoku.unavoidable.census import COLUMNS, UACensusJob, cpu_distribution  # noqa: E402


def histogram(seconds: np.ndarray, width: int = 40) -> list[str]:
    edges = [0, 0.5, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, np.inf]
    counts, _ = np.histogram(seconds, bins=edges)
    top = max(1, counts.max())
    lines = []
    for lo, hi, c in zip(edges[:-1], edges[1:], counts):
        if c:
            label = f"{lo:g}-{hi:g} s" if np.isfinite(hi) else f">= {lo:g} s"
            lines.append(f"  {label:>10s} {c:4d} {'#' * max(1, round(width * c / top))}")
    return lines


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--grids", type=int, default=100)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--clues", type=int, default=16)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--csv", default=None, help="write the per-grid rows")
    a = ap.parse_args()
    grids = ["".join(map(str, g)) for g in grid_pool(a.grids, a.seed, "solver")]
    job = UACensusJob(grids, a.clues)
    job.warm_up()
    out = run_batches(job, 1, job.n_batches(), workers=a.threads)
    rows = np.array(out.total["rows"], dtype=float)
    found = out.total["found"]
    print(f"{len(rows)} random grids (seed {a.seed}), at most {a.clues} clues: {len(found)} puzzles found; "
          f"{out.seconds:.1f} s wall on {a.threads} threads")
    for name, secs in (("harvest", rows[:, 2]), ("search", rows[:, 3]), ("grid", rows[:, 2] + rows[:, 3])):
        d = cpu_distribution(secs)
        print(f"{name:8s} CPU-s per grid: median {d['median']:.3f}  quartiles {d['q1']:.3f}-{d['q3']:.3f}  "
              f"p90 {d['p90']:.3f}  mean {d['mean']:.3f}  max {d['max']:.3f}")
    print("whole check per grid:")
    print("\n".join(histogram(rows[:, 2] + rows[:, 3])))
    print(f"search nodes per grid: median {np.median(rows[:, 4]):,.0f}, "
          f"µs per node {1e6 * rows[:, 3].sum() / rows[:, 4].sum():.3f}")
    if a.csv:
        with open(a.csv, "w", encoding="utf-8") as f:
            f.write(",".join(COLUMNS) + "\n")
            for r in out.total["rows"]:
                f.write(",".join(map(str, r)) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
