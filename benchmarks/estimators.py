"""Estimator benchmarks (issue 6 "must show" speed and agreement figures).

    python benchmarks/estimators.py ridder            # 10^6 Ridder samples of 9x9, 2 threads
    python benchmarks/estimators.py rows [SECONDS]    # improved sampler: RE after SECONDS (default 10)
    python benchmarks/estimators.py subsets [SECONDS] # s=30 vs seed 000's ten-minute table
    python benchmarks/estimators.py supersets [SECONDS] [S] [CMAX]
    python benchmarks/estimators.py path [SECONDS]

Timings on a shared machine are noisy: every line also gives the process CPU
time, and "RE at T s of 2 threads" rescales the measured RE by
sqrt(cpu / (2 T)), i.e. what two unshared cores would reach in T seconds
(RE falls like 1/sqrt(work)).
"""
from __future__ import annotations

import math
import sys
import time

from sudokustudio.jobs.run import run_batches
from sudokustudio.sudoku import estimate as E

SEED000_SUBSETS = {20: 0.3606, 21: 0.1155, 22: 0.0542, 23: 0.0280, 24: 0.0194, 25: 0.0173, 26: 0.0215,
                   27: 0.0470, 28: 0.1966, 29: 0.7071}
SEED000_PATH = {23: 0.7071, 24: 0.3536, 25: 0.1857, 26: 0.2182, 27: 0.2673, 28: 0.3780}


def _run(job, seed, n_batches=None, seconds=None, threads=2):
    job.warm_up()
    job.run_batch(0, 1)  # compile the exact signature before timing
    c0, t0 = time.process_time(), time.perf_counter()
    out = run_batches(job, seed, n_batches, workers=threads, seconds=seconds)
    return out, time.perf_counter() - t0, time.process_time() - c0


def ridder() -> None:
    job = E.GridCountJob("3x3", "ridder", 50_000)
    out, wall, cpu = _run(job, 1, n_batches=20)
    d = job.describe(out.total)
    print(f"Ridder 9x9: {d['samples']:,} samples in {wall:.2f} s wall ({cpu:.2f} s CPU, 2 threads): "
          f"{d['samples'] / wall:,.0f}/s; {cpu / 2:.2f} s on two unshared cores")
    print(f"  estimate {d['estimate']:.5g}  RE {100 * d['rel_err']:.3f}%  RAT {d['rat']:.4f}  "
          f"exact/estimate {E.GRID_COUNTS['3x3'] / d['estimate']:.4f}")


def rows(seconds: float = 10.0) -> None:
    for box in ("3x3",):
        job = E.GridCountJob(box, "rows")
        out, wall, cpu = _run(job, 2, seconds=seconds)
        d = job.describe(out.total)
        z = (d["estimate"] - float(E.GRID_COUNTS[box])) / d["se"]
        re_t = d["rel_err"] * math.sqrt(cpu / (2 * seconds))
        per = wall / d["samples"] * 1e6
        print(f"rows {box}: {d['samples']:,} samples in {wall:.2f} s wall, {cpu:.2f} s CPU "
              f"({per:.1f} us/sample wall, 2 threads)")
        print(f"  estimate {d['estimate']:.6g}  RE {100 * d['rel_err']:.4f}%  ({z:+.2f} SE from exact)  "
              f"RAT {d['rat']:.4f}")
        print(f"  RE at {seconds:g} s of two unshared cores: {100 * re_t:.4f}%  "
              f"(relative sd per sample {d['rel_err'] * math.sqrt(d['samples']):.3f})")


def _minimals(method: str, seconds: float, **kw) -> tuple:
    job = E.MinimalsJob(method, **kw)
    out, wall, cpu = _run(job, 3, seconds=seconds)
    d = job.describe(out.total)
    print(f"{method} {kw}: {d['samples']:,} grids, {d['probes']:,} probes, {d['solver_calls']:,} solver "
          f"calls in {wall:.1f} s wall, {cpu:.1f} s CPU")
    return job, d, wall, cpu


def _agreement(per_c, lo, hi) -> None:
    print(f"{'c':>3} {'found':>8} {'per grid':>11} {'RE':>8} | {'Afmob':>9} {'z':>6} | {'Berthier':>9} {'z':>6}")
    for c in range(lo, hi + 1):
        v = per_c.get(str(c))
        if not v:
            continue
        row = f"{c:>3} {v['found']:>8} {v['estimate']:>11.4e} {100 * v['rel_err']:>7.2f}%"
        for src in ("afmob", "berthier"):
            ref = E.PUBLISHED_MINIMALS[src].get(c)
            if ref:
                se = math.hypot(v["estimate"] * v["rel_err"], ref[0] * ref[1])
                row += f" | {ref[0]:>9.4e} {(v['estimate'] - ref[0]) / se:>+6.2f}"
            else:
                row += f" | {'–':>9} {'':>6}"
        print(row)


def subsets(seconds: float = 600.0) -> None:
    job, d, wall, cpu = _minimals("subsets", seconds, s=30)
    _agreement(d["per_c"], 19, 30)
    print(f"\nRE after 10 minutes (rescaled from {cpu:.0f} s CPU to 2 x 600 s) vs seed 000's ten-minute table:")
    print(f"{'c':>3} {'ours':>8} {'seed 000':>9} {'ratio':>7}   (must be >= sqrt(10) = 3.16)")
    for c in range(20, 30):
        v = d["per_c"].get(str(c))
        if not v or c not in SEED000_SUBSETS:
            continue
        ours = v["rel_err"] * math.sqrt(cpu / 1200.0)
        print(f"{c:>3} {100 * ours:>7.2f}% {100 * SEED000_SUBSETS[c]:>8.2f}% {SEED000_SUBSETS[c] / ours:>7.2f}")


def supersets(seconds: float = 300.0, s: int = 24, cmax: int = 28) -> None:
    job, d, wall, cpu = _minimals("supersets", seconds, s=s, c_hi=cmax)
    _agreement(d["per_c"], s, cmax)


def path(seconds: float = 120.0) -> None:
    job, d, wall, cpu = _minimals("path", seconds)
    _agreement(d["per_c"], 19, 35)
    print("RE after 10 minutes (rescaled) vs seed 000's path table:")
    for c, re0 in SEED000_PATH.items():
        v = d["per_c"].get(str(c))
        if v:
            print(f"{c:>3} {100 * v['rel_err'] * math.sqrt(cpu / 1200.0):>7.2f}%  seed 000 {100 * re0:.2f}%")


if __name__ == "__main__":
    what = sys.argv[1] if len(sys.argv) > 1 else "ridder"
    args = [float(a) if "." in a else int(a) for a in sys.argv[2:]]
    {"ridder": ridder, "rows": rows, "subsets": subsets, "supersets": supersets, "path": path}[what](*args)
