"""Single-thread speed of the 9x9 solver kernel on five puzzle sets, optionally beside tdoku.

    python3 benchmarks/solver.py [--quick] [--repeat N] [--tdoku PATH] [--module M] [--cpu N]

Sets: the 49,158 17-clue puzzles; random minimal puzzles (Berthier's 21,695
controlled-bias puzzles, ../shared/data/controlled_bias/001-puzzles.txt);
magictour top1465; forum_hardest_1106; 10,000 random 30-clue subsets of
random grids (grids from a plain randomized backtracking fill with seed 2024,
independent of the kernel under test, so every version times the same
puzzles; ~99% of them have two or more solutions).

The figure is the uniqueness check (limit 2, the count kernel), kernel time
only, in µs per puzzle: CPU time of this thread and wall time.  The machine
may be shared, so each set is cut into chunks of a few ms, every chunk is
timed ``--repeat`` times per solver in alternation and its fastest run is
kept; a set's figure is the sum of those minima.  ``--tdoku PATH`` loads a
tdoku shared library (github.com/t-dillon/tdoku, built with -O3
-march=native; not shipped, not required) with ctypes and times
``TdokuSolverDpllTriadSimd(puzzle, 2, 0, ...)`` on the same parsed puzzles
in the same chunks, called from a numba loop (no Python call per puzzle),
and prints our cost over tdoku's.  ``--module`` times another
implementation with the same kernel API (e.g. tests/reference_solver.py,
the kernel before issue 19, as ``--module reference_solver`` with tests/ on
the path).  Guesses: ours count both arms of a branch, tdoku's count the
first arm only.
"""
from __future__ import annotations

import argparse
import ctypes
import importlib
import os
import sys
import time
from pathlib import Path

import numpy as np
from numba import njit

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(1, str(REPO / "tests"))

from sudokustudio.core.rng import seed_state, shuffle_inplace  # noqa: E402
from sudokustudio.sudoku.grid import read_puzzles  # noqa: E402

DATA = REPO.parent / "shared" / "data"
FILES = [
    ("17-clue", "puzzles2_17_clue"),
    ("random minimal (cb)", "controlled_bias/001-puzzles.txt"),
    ("magictour top1465", "puzzles3_magictour_top1465"),
    ("forum_hardest_1106", "puzzles6_forum_hardest_1106"),
]


@njit(cache=True)
def _fill_grid(rng, g):
    """A random grid by plain randomized backtracking, row-major (benchmark input only)."""
    rows = np.zeros(9, np.int64)
    cols = np.zeros(9, np.int64)
    boxes = np.zeros(9, np.int64)
    order = np.zeros((81, 9), np.int64)
    pos = np.zeros(81, np.int64)
    digits = np.arange(9)
    shuffle_inplace(rng, digits)
    order[0] = digits
    c = 0
    while c < 81:
        r, k = c // 9, c % 9
        b = (r // 3) * 3 + k // 3
        if g[c]:
            m = 1 << (g[c] - 1)
            rows[r] ^= m
            cols[k] ^= m
            boxes[b] ^= m
            g[c] = 0
        placed = False
        while pos[c] < 9:
            d = order[c, pos[c]]
            pos[c] += 1
            m = 1 << d
            if not (rows[r] | cols[k] | boxes[b]) & m:
                rows[r] |= m
                cols[k] |= m
                boxes[b] |= m
                g[c] = d + 1
                placed = True
                break
        if placed:
            c += 1
            if c < 81:
                shuffle_inplace(rng, digits)
                order[c] = digits
                pos[c] = 0
        else:
            c -= 1


def random_subsets(n: int, clues: int = 30, seed: int = 2024) -> np.ndarray:
    """n random ``clues``-subsets of n random grids (reproducible from ``seed``)."""
    rng = seed_state(np.uint64(seed))
    gen = np.random.default_rng(seed)
    out = np.zeros((n, 81), dtype=np.uint8)
    g = np.zeros(81, dtype=np.uint8)
    for i in range(n):
        g[:] = 0
        _fill_grid(rng, g)
        keep = gen.permutation(81)[:clues]
        out[i, keep] = g[keep]
    return out


def load_sets(quick: bool) -> list[tuple[str, np.ndarray]]:
    sets = [(label, read_puzzles(DATA / name).puzzles) for label, name in FILES]
    sets.append(("random 30-clue subsets", random_subsets(2000 if quick else 10000)))
    if quick:
        sets = [(label, p[:2000]) for label, p in sets]
    return sets


def tdoku_runner(path: str):
    """A numba loop calling tdoku's C API on a uint8[N, 82] text buffer (81 cells + '\\n')."""
    lib = ctypes.CDLL(path)
    fn = lib.TdokuSolverDpllTriadSimd
    fn.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_uint32, ctypes.c_void_p, ctypes.c_void_p]
    fn.restype = ctypes.c_size_t

    @njit
    def run(text, limit, counts, guesses, solution, g):
        for i in range(text.shape[0]):
            counts[i] = fn(text[i].ctypes.data, limit, 0, solution.ctypes.data, g.ctypes.data)
            guesses[i] = g[0]

    def as_text(puzzles):
        t = np.full((puzzles.shape[0], 82), ord("\n"), dtype=np.uint8)
        t[:, :81] = np.where(puzzles > 0, puzzles + ord("0"), ord("."))
        return t

    return run, as_text


def _timed(fn):
    w0, c0 = time.perf_counter(), time.thread_time()
    fn()
    return time.perf_counter() - w0, time.thread_time() - c0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="first 2,000 puzzles of each set")
    ap.add_argument("--repeat", type=int, default=5, help="timed runs per chunk and solver (fastest kept)")
    ap.add_argument("--tdoku", metavar="PATH", help="a tdoku shared library (libtdoku_shared.so) to compare with")
    ap.add_argument("--module", default="sudokustudio.sudoku.solver", help="solver module to time")
    ap.add_argument("--cpu", type=int, default=None, help="pin to this CPU core (Linux)")
    args = ap.parse_args(argv)
    if args.cpu is not None:
        os.sched_setaffinity(0, {args.cpu})
    solver = importlib.import_module(args.module)
    tdoku = tdoku_runner(args.tdoku) if args.tdoku else None
    sets = load_sets(args.quick)

    print(f"solver module: {args.module}   one thread, limit 2, kernel time   "
          f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    head = f"{'set':24s} {'n':>6s} | {'cpu µs':>7s} {'wall µs':>7s} {'guesses':>7s}"
    if tdoku:
        head += f" | {'tdoku cpu µs':>12s} {'wall µs':>7s} {'guesses':>7s} | {'ratio cpu':>9s} {'wall':>5s}"
    print(head)
    print("-" * len(head))
    for label, puzzles in sets:
        n = len(puzzles)
        counts = np.zeros(n, dtype=np.int64)
        guesses = np.zeros(n, dtype=np.int64)
        solver.count_solutions_batch_kernel(puzzles[:2], 2, counts[:2])   # compiled before timing
        if hasattr(solver, "solve_batch_kernel"):
            solver.solve_batch_kernel(puzzles, 2, np.zeros((n, 81), np.uint8), counts, guesses)
            row_guesses = guesses.mean()
        else:   # the reference kernel does not count guesses
            row_guesses = float("nan")
        if tdoku:
            run, as_text = tdoku
            text = as_text(puzzles)
            t_counts = np.zeros(n, dtype=np.int64)
            t_guesses = np.zeros(n, dtype=np.int64)
            sol, g = np.zeros(96, np.uint8), np.zeros(1, np.uint64)
            run(text, 2, t_counts, t_guesses, sol, g)
            if not np.array_equal(np.minimum(counts, 2), t_counts):
                print(f"  {label}: tdoku and the kernel disagree on {int((np.minimum(counts, 2) != t_counts).sum())}"
                      " solution counts")
        # a chunk takes a few ms
        chunk = max(4, int(3e-3 / max(1e-7, _timed(lambda: solver.count_solutions_batch_kernel(
            puzzles, 2, counts))[1] / n)))
        ours = np.zeros(2)
        theirs = np.zeros(2)
        for a in range(0, n, chunk):
            p = puzzles[a:a + chunk]
            c = counts[a:a + chunk]
            best = np.full(2, np.inf)
            best_t = np.full(2, np.inf)
            for _ in range(args.repeat):
                best = np.minimum(best, _timed(lambda: solver.count_solutions_batch_kernel(p, 2, c)))
                if tdoku:
                    best_t = np.minimum(best_t, _timed(lambda: run(text[a:a + chunk], 2, t_counts[a:a + chunk],
                                                                   t_guesses[a:a + chunk], sol, g)))
            ours += best
            theirs += best_t
        us = ours[::-1] / n * 1e6   # cpu, wall
        row = f"{label:24s} {n:6d} | {us[0]:7.2f} {us[1]:7.2f} {row_guesses:7.2f}"
        if tdoku:
            ts = theirs[::-1] / n * 1e6
            row += (f" | {ts[0]:12.2f} {ts[1]:7.2f} {t_guesses.mean():7.2f} | {us[0] / ts[0]:9.2f}"
                    f" {us[1] / ts[1]:5.2f}")
        print(row, flush=True)
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
