"""Small real-kernel batch jobs used by the runner tests (importable by Dask workers too)."""
import time

import numpy as np

from sudokustudio.core.batch import BatchJob
from sudokustudio.core.rng import seed_state
from sudokustudio.core.stats import Moments
from sudokustudio.sudoku.grids import random_grid_kernel
from sudokustudio.sudoku.solver import solve_kernel


class GridGuessesJob(BatchJob):
    """Per batch: `grids` random grids, each with `holes` random cells emptied; moments of
    the solver's guess count and a histogram of solution counts (limit 3)."""

    kind = "test-grid-guesses"

    def __init__(self, grids: int = 20, holes: int = 55, sleep: float = 0.0, fail_at: int = -1):
        super().__init__(grids=grids, holes=holes, sleep=sleep, fail_at=fail_at)
        self.grids, self.holes, self.sleep, self.fail_at = grids, holes, sleep, fail_at

    def run_batch(self, batch_index, seed):
        if batch_index == self.fail_at:
            raise RuntimeError("planned failure")
        rng = seed_state(np.uint64(seed))
        grid = np.zeros(81, dtype=np.uint8)
        sol = np.zeros(81, dtype=np.uint8)
        guesses = []
        hist = np.zeros(4, dtype=np.int64)
        order = np.arange(81)
        for _ in range(self.grids):
            random_grid_kernel(rng, grid)
            # use the kernel RNG for the holes too, so the batch is a pure function of the seed
            from sudokustudio.core.rng import shuffle_inplace
            shuffle_inplace(rng, order)
            p = grid.copy()
            p[order[: self.holes]] = 0
            n, g = solve_kernel(p, 3, sol)
            guesses.append(g)
            hist[n] += 1
        if self.sleep:
            time.sleep(self.sleep)
        return {"moments": Moments.of(guesses), "hist": hist, "batches": [batch_index]}

    def merge(self, a, b):
        return {"moments": a["moments"].merge(b["moments"]), "hist": a["hist"] + b["hist"],
                "batches": a["batches"] + b["batches"]}

    def empty(self):
        return {"moments": Moments(), "hist": np.zeros(4, dtype=np.int64), "batches": []}

    def describe(self, total):
        return {"n": total["moments"].n, "mean_guesses": total["moments"].mean}


class SleepJob(BatchJob):
    """Batches that only wait: ``seconds`` each, polling the run's cancel flag every
    ``poll`` seconds when ``poll`` > 0 (like a long kernel), else not at all.
    The result counts the batches and sums their indices."""

    kind = "test-sleep"

    def __init__(self, seconds: float = 0.1, poll: float = 0.0):
        super().__init__(seconds=seconds, poll=poll)
        self.seconds, self.poll = seconds, poll

    def run_batch(self, batch_index, seed):
        from sudokustudio.core.batch import cancel_flag, check_cancelled

        flag = cancel_flag()
        end = time.monotonic() + self.seconds
        while time.monotonic() < end:
            if self.poll > 0:
                check_cancelled(flag)
                time.sleep(min(self.poll, max(0.0, end - time.monotonic())))
            else:
                time.sleep(max(0.0, end - time.monotonic()))
        return {"n": 1, "index_sum": batch_index}

    def merge(self, a, b):
        return {"n": a["n"] + b["n"], "index_sum": a["index_sum"] + b["index_sum"]}

    def empty(self):
        return {"n": 0, "index_sum": 0}
