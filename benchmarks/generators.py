"""Generators benchmark: speed (2 threads) and clue statistics against seed 002.

    python3 benchmarks/generators.py [--quick] [--cb N] [--td N] [--bu N] [--ws N] [--sources N]

Prints, per generator, puzzles/s (wall clock, 2 worker threads) and puzzles
per CPU-second (process time, less sensitive to other load on the machine),
then mean/sd/skew/kurt of the clue count with standard errors beside the
seed 002 figures, the corrected (controlled-bias) and weighted (subsets)
means, and a comparison of controlled-bias means under different grid
sources (seed 002 §2.4 says it is insensitive).  Timings are noisy on a
shared machine: read them as such.
"""
from __future__ import annotations

import argparse
import math
import time

from sudokustudio.jobs.run import run_batches
from sudokustudio.sudoku.generate import GeneratorJob, WeightedSubsetsJob, describe_result, ua_pool

SEED002 = {"top-down": (24.38, 1.12), "bottom-up": (23.87, 1.08), "controlled-bias": (25.667, 1.116)}


def timed(job, seed, n_batches=None, stop_at=None, threads=2):
    job.warm_up()
    c0, t0 = time.process_time(), time.perf_counter()
    out = run_batches(job, seed, n_batches, units=stop_at, workers=threads)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    if out.errors:
        raise RuntimeError(out.errors)
    return out.total, wall, cpu


def line(name, d, wall, cpu, count):
    ref = SEED002.get(name)
    refs = f"   seed 002: {ref[0]} ({ref[1]})" if ref else ""
    print(f"{name:17s} n={count:7d}  {count / wall:9.2f}/s wall  {count / cpu:9.2f}/CPU-s   "
          f"mean {d['mean']:.3f} ± {d['mean_se']:.3f}  sd {d['sd']:.3f}  skew {d['skew']:.3f}  "
          f"kurt {d['kurt']:.3f}{refs}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--quick", action="store_true", help="small sizes (about a minute)")
    ap.add_argument("--td", type=int, default=40000)
    ap.add_argument("--bu", type=int, default=20000)
    ap.add_argument("--cb", type=int, default=300)
    ap.add_argument("--ws", type=int, default=40000, help="weighted-subsets samples (s = 32)")
    ap.add_argument("--sources", type=int, default=60, help="controlled-bias puzzles per grid source")
    a = ap.parse_args()
    if a.quick:
        a.td, a.bu, a.cb, a.ws, a.sources = 4000, 2000, 20, 2000, 0
    print("2 worker threads; difficulty metrics off for the speed runs (guesses+brt cost ~20 us/puzzle, W ~10 ms)")
    for method, n in (("top-down", a.td), ("bottom-up", a.bu)):
        job = GeneratorJob(method, per_batch=500, difficulty=[])
        total, wall, cpu = timed(job, 1, math.ceil(n / 500))
        line(method, describe_result(method, total), wall, cpu, total.count)
    ua_pool(256, 2009)   # build the UA pool outside the timing (a one-off ~3 s per process)
    job = GeneratorJob("controlled-bias", difficulty=[])
    total, wall, cpu = timed(job, 1, stop_at=a.cb)
    d = describe_result("controlled-bias", total)
    line("controlled-bias", d, wall, cpu, total.count)
    print(f"{'':17s} corrected mean {d['corrected_mean']:.3f} ± {d['corrected_mean_se']:.3f}  "
          f"sd {d['corrected_sd']:.3f}   seed 002 real: 26.577 (1.116);  "
          f"grids per puzzle {d['tries_per_puzzle']:,.0f} (seed 002: ~257,000); "
          f"{total.tries / wall:,.0f} grids/s wall")
    job = WeightedSubsetsJob(per_batch=250, difficulty=[])
    total, wall, cpu = timed(job, 1, math.ceil(a.ws / 250))
    d = job.describe(total)
    print(f"{'weighted-subsets':17s} samples={d['samples']}  {d['samples'] / wall:.1f} samples/s wall, "
          f"{total.count} minimal puzzles ({total.count / wall:.1f}/s)   weighted mean "
          f"{d['weighted_mean']:.3f} ± {d['weighted_mean_se']:.3f}  sd {d['weighted_sd']:.3f}   "
          f"seed 002 real: 26.577 (1.116)")
    if a.sources:
        print(f"controlled-bias mean clues by grid source ({a.sources} puzzles each; seed 002 §2.4: insensitive)")
        for label, kw in (("pool of 256 solver grids", dict(grid_source="pool", pool_grids="solver")),
                          ("pool of 256 pairswap grids", dict(grid_source="pool", pool_grids="pairswap")),
                          ("fresh solver grids", dict(grid_source="solver", per_batch=4000))):
            job = GeneratorJob("controlled-bias", difficulty=[], **kw)
            if kw.get("pool_grids") == "pairswap":
                ua_pool(256, 2009, "pairswap")
            # fresh grids cost ~30 us each (x 257,000 per puzzle): a smaller sample
            n = a.sources if kw["grid_source"] == "pool" else max(3, a.sources // 10)
            total, wall, cpu = timed(job, 2, stop_at=n)
            d = describe_result("controlled-bias", total)
            print(f"  {label:28s} n={total.count:4d}  mean {d['mean']:.3f} ± {d['mean_se']:.3f}  "
                  f"corrected {d['corrected_mean']:.3f} ± {d['corrected_mean_se']:.3f}  "
                  f"{total.count / wall:.2f}/s wall")


if __name__ == "__main__":
    main()
