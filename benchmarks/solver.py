"""Single-thread speed of the 9x9 solver kernel on the shared puzzle sets.

For each set: puzzles/s and µs/puzzle for the uniqueness check (limit 2) and
for the first solution (limit 1), and the mean guess count.  Kernels are
compiled before timing; each figure is the best of ``--repeat`` runs.

    python3 benchmarks/solver.py [--quick] [--cpu N] [--module sudokustudio.sudoku.solver]

The machine may be shared: ``--cpu N`` pins the process to one core
(like ``taskset -c N``), wall and CPU time are both printed, and so is the
load average, so noisy figures can be recognised.  ``--module`` times another
implementation with the same API (e.g. an older solver saved as a module).
"""
from __future__ import annotations

import argparse
import importlib
import os
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from sudokustudio.sudoku.grid import read_puzzles  # noqa: E402

DATA = REPO.parent / "shared" / "data"
SETS = [
    "puzzles2_17_clue",
    "puzzles3_magictour_top1465",
    "puzzles5_forum_hardest_1905_11+",
    "puzzles6_forum_hardest_1106",
    "puzzles7_serg_benchmark",
]


def _best_of(repeat, fn):
    """(best wall seconds, best CPU seconds) of ``repeat`` calls of ``fn``."""
    wall = cpu = float("inf")
    for _ in range(repeat):
        w0, c0 = time.perf_counter(), time.process_time()
        fn()
        wall = min(wall, time.perf_counter() - w0)
        cpu = min(cpu, time.process_time() - c0)
    return wall, cpu


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="first 2,000 puzzles of each set, 2 runs")
    ap.add_argument("--repeat", type=int, default=None, help="runs per figure (best is kept; default 3)")
    ap.add_argument("--cpu", type=int, default=None, help="pin to this CPU core (Linux)")
    ap.add_argument("--module", default="sudokustudio.sudoku.solver", help="solver module to time")
    ap.add_argument("--sets", nargs="*", default=SETS, help="puzzle files in ../shared/data")
    args = ap.parse_args(argv)
    repeat = args.repeat or (2 if args.quick else 3)
    if args.cpu is not None:
        os.sched_setaffinity(0, {args.cpu})
    solver = importlib.import_module(args.module)

    # compile (or load from the cache) before any timing
    warm = np.zeros((2, 81), dtype=np.uint8)
    solver.count_solutions_batch_kernel(warm, 2, np.zeros(2, dtype=np.int64))
    solver.solve_batch_kernel(warm, 1, np.zeros((2, 81), dtype=np.uint8), np.zeros(2, dtype=np.int64),
                              np.zeros(2, dtype=np.int64))

    print(f"solver module: {args.module}   one thread"
          + (f", pinned to CPU {args.cpu}" if args.cpu is not None else "")
          + f"   best of {repeat}   load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    head = (f"{'set':34s} {'n':>6s} | {'limit 2: puz/s':>14s} {'µs':>8s} {'cpu µs':>8s} {'guesses':>8s}"
            f" | {'limit 1: puz/s':>14s} {'µs':>8s} {'cpu µs':>8s} {'guesses':>8s}")
    print(head)
    print("-" * len(head))
    for name in args.sets:
        puzzles = read_puzzles(DATA / name).puzzles
        if args.quick:
            puzzles = puzzles[:2000]
        n = len(puzzles)
        row = f"{name:34s} {n:6d}"
        for limit in (2, 1):
            counts = np.zeros(n, dtype=np.int64)
            guesses = np.zeros(n, dtype=np.int64)
            sols = np.zeros((n, 81), dtype=np.uint8)
            if limit == 2:
                wall, cpu = _best_of(repeat, lambda: solver.count_solutions_batch_kernel(puzzles, 2, counts))
            else:
                wall, cpu = _best_of(repeat, lambda: solver.solve_batch_kernel(puzzles, 1, sols, counts, guesses))
            # guess counts from an untimed run (the counting kernel does not report them)
            solver.solve_batch_kernel(puzzles, limit, sols, counts, guesses)
            row += (f" | {n / wall:14,.0f} {wall / n * 1e6:8.2f} {cpu / n * 1e6:8.2f}"
                    f" {guesses.mean():8.2f}")
        print(row, flush=True)
    print(f"load average after: {os.getloadavg()[0]:.2f}  (µs = wall time; cpu µs = process CPU time,"
          " less sensitive to other processes on a shared machine)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
