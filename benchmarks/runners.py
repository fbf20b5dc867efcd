"""Throughput of the thread runner with 1 and 2 workers (nogil kernels in parallel).

    python3 benchmarks/runners.py [--batches N]

Prints batches/s for each worker count and the 2-vs-1 ratio (target >= 1.6
on a quiet 2-core machine).  The job solves 17-clue puzzles in chunks, a
pure kernel workload.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path


sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sudokustudio.core.batch import BatchJob  # noqa: E402
from sudokustudio.jobs.run import run_batches  # noqa: E402
from sudokustudio.sudoku.grid import read_puzzles  # noqa: E402
from sudokustudio.sudoku.solver import count_solutions_batch  # noqa: E402

DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data"


class SolveChunksJob(BatchJob):
    kind = "bench-solve-chunks"

    def __init__(self, chunk: int = 400):
        super().__init__(chunk=chunk)
        self.chunk = chunk
        self.puzzles = read_puzzles(DATA / "puzzles2_17_clue").puzzles

    def run_batch(self, batch_index, seed):
        n = len(self.puzzles)
        start = (batch_index * self.chunk) % (n - self.chunk)
        return int((count_solutions_batch(self.puzzles[start:start + self.chunk], 2) == 1).sum())

    def merge(self, a, b):
        return a + b

    def empty(self):
        return 0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--batches", type=int, default=120)
    ap.add_argument("--chunk", type=int, default=400)
    args = ap.parse_args()
    job = SolveChunksJob(args.chunk)
    run_batches(job, 1, 4, workers=2)  # compile
    rates = {}
    for workers in (1, 2):
        best = 0.0
        for _ in range(3):
            out = run_batches(job, 1, args.batches, workers=workers)
            assert out.total == args.batches * args.chunk
            best = max(best, out.batches / out.seconds)
        rates[workers] = best
        print(f"{workers} worker(s): {best:8.1f} batches/s  ({best * args.chunk:10.0f} puzzles/s)")
    print(f"2-vs-1 throughput ratio: {rates[2] / rates[1]:.2f}")


if __name__ == "__main__":
    main()
