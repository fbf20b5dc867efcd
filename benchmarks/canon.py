"""Canonical (minlex) forms: puzzles per second on the shared data sets.

    python3 benchmarks/canon.py [--limit N] [--threads T]

Prints, per file: puzzles, classes, puzzles/s (one kernel call per thread;
the kernel is loaded before timing).  Also solution grids of the first
puzzles.  The machine is shared: quote figures with the load average.
"""
from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np

DATA = Path(os.environ.get("SUDOKUSTUDIO_DATA", "/work/shared/data"))
FILES = ("puzzles2_17_clue", "puzzles3_magictour_top1465", "puzzles5_forum_hardest_1905_11+",
         "puzzles7_serg_benchmark")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--limit", type=int, default=20000, help="puzzles per file (default 20000)")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--grids", type=int, default=500, help="solution grids to canonicalise (default 500)")
    args = ap.parse_args()
    from sudokustudio.sudoku.canon import classes, minlex_many
    from sudokustudio.sudoku.grid import read_puzzles
    from sudokustudio.sudoku.solver import solve_batch

    minlex_many(np.zeros((1, 81), dtype=np.uint8))
    print(f"load average {os.getloadavg()[0]:.1f}, threads {args.threads}")
    first = None
    for name in FILES:
        path = DATA / name
        if not path.exists():
            print(f"{name}: missing")
            continue
        p = read_puzzles(path).puzzles[:args.limit]
        first = p if first is None else first
        t0 = time.perf_counter()
        forms, _ = minlex_many(p, args.threads)
        dt = time.perf_counter() - t0
        print(f"{name:36s} {len(p):7d} puzzles {len(classes(forms)[0]):7d} classes "
              f"{len(p) / dt:10.0f} puzzles/s")
    if first is not None and args.grids:
        grids = solve_batch(first[:args.grids], 2)[0]
        t0 = time.perf_counter()
        minlex_many(grids, args.threads)
        dt = time.perf_counter() - t0
        print(f"{'solution grids':36s} {len(grids):7d} grids {'':15s} {len(grids) / dt:10.0f} grids/s")


if __name__ == "__main__":
    main()
