"""The few-clue census of a file of grids: the exhaustive K-clue search of
each grid as one batch (McGuire's "no 16-clue puzzle" run has this shape).

A batch harvests the grid's UAs and searches it whole in its thread, and
returns one row per grid: the puzzles found, the CPU seconds of the harvest
and of the search (``time.thread_time``: the batch's own thread, so a busy
machine does not inflate them), nodes and hitting sets checked.  Runs go
through the run model, so a census can be stored, resumed after a crash
(only the grids not yet done are searched) and sent to a Dask cluster.
"""
from __future__ import annotations

import time

import numpy as np

from sudokustudio.core.batch import BatchJob
from sudokustudio.sudoku.unavoidable.formats import as_grid
from sudokustudio.sudoku.unavoidable.harvest import harvest
from sudokustudio.sudoku.unavoidable.jobs import search_below, search_oracle
from sudokustudio.sudoku.unavoidable.jobs import warm_up as ua_warm_up
from sudokustudio.sudoku.unavoidable.search import N_STATS, S_LEAVES, S_NODES, S_PUZZLES

#: columns of a census row
COLUMNS = ("grid", "puzzles", "harvest_cpu", "search_cpu", "nodes", "leaves", "uas")


class UACensusJob(BatchJob):
    """Batch i searches grid i of ``grids`` (81-digit strings) for every minimal
    puzzle with at most ``clues`` clues.  Result: {"rows": [[grid index, puzzles
    found, harvest CPU-s, search CPU-s, nodes, leaves checked, UAs], ...],
    "found": [[grid index, puzzle], ...]}."""

    kind = "ua_census"
    unit = "grids"
    kernel_groups = ("ua",)

    def __init__(self, grids: list[str], clues: int = 16, max_size: int = 12, forward: bool = True):
        if not grids:
            raise ValueError("a census needs at least one grid")
        for i, g in enumerate(grids):
            try:
                as_grid(g)
            except ValueError as exc:
                raise ValueError(f"grid {i + 1}: {exc}") from exc
        if not 1 <= clues <= 40:
            raise ValueError(f"--clues must be between 1 and 40, got {clues}")
        super().__init__(grids=[str(g) for g in grids], clues=int(clues), max_size=int(max_size),
                         forward=bool(forward))

    def n_batches(self) -> int:
        return len(self.spec["grids"])

    def run_batch(self, batch_index: int, seed: int):
        g = as_grid(self.spec["grids"][batch_index])
        c0 = time.thread_time()
        uas = harvest(g, self.spec["max_size"])
        c1 = time.thread_time()
        stats = np.zeros(N_STATS, dtype=np.int64)
        puzzles = search_below(search_oracle(g), uas, np.zeros(4, dtype=np.uint64), self.spec["clues"],
                               self.spec["forward"], stats)
        c2 = time.thread_time()
        row = [batch_index, int(stats[S_PUZZLES]), round(c1 - c0, 6), round(c2 - c1, 6), int(stats[S_NODES]),
               int(stats[S_LEAVES]), len(uas)]
        return {"rows": [row], "found": [[batch_index, p] for p in puzzles]}

    def merge(self, a, b):
        return {"rows": sorted(a["rows"] + b["rows"]), "found": sorted(a["found"] + b["found"])}

    def empty(self):
        return {"rows": [], "found": []}

    def units(self, total) -> int:
        return len(total["rows"])

    def warm_up(self) -> None:
        ua_warm_up()

    def describe(self, total) -> dict:
        rows = total["rows"]
        out = {"clues": self.spec["clues"], "grids": len(self.spec["grids"]), "grids_done": len(rows),
               "puzzles": [p for _, p in total["found"]],
               "grids_with_puzzles": sorted({i for i, _ in total["found"]})}
        if rows:
            search = np.array([r[3] for r in rows])
            whole = search + np.array([r[2] for r in rows])
            out["search_cpu"] = cpu_distribution(search)
            out["grid_cpu"] = cpu_distribution(whole)
            out["nodes"] = int(sum(r[4] for r in rows))
        out["rows"] = [dict(zip(COLUMNS, r)) for r in rows]
        return out


def cpu_distribution(seconds: np.ndarray) -> dict:
    """Median, quartiles, mean, 90th percentile, max and total of per-grid CPU seconds."""
    q = np.percentile(seconds, [25, 50, 75, 90])
    return {"median": round(float(q[1]), 4), "q1": round(float(q[0]), 4), "q3": round(float(q[2]), 4),
            "p90": round(float(q[3]), 4), "mean": round(float(seconds.mean()), 4),
            "max": round(float(seconds.max()), 4), "total": round(float(seconds.sum()), 3)}


def read_grids(path) -> list[str]:
    """The solution grids of a file, one per line (81 digits; ``#`` comments and
    trailing fields allowed).  A line that is not a complete valid grid is an
    error naming the file and the line: a census skips nothing silently."""
    from sudokustudio.sudoku.grid import PuzzleFormatError, is_valid_grid, read_puzzles

    coll = read_puzzles(path, strict=True)
    grids = []
    for p, line in zip(coll.puzzles, coll.lines):
        if not p.all() or not is_valid_grid(p):
            raise PuzzleFormatError("not a complete valid grid (a census needs solution grids)", coll.source, line)
        grids.append("".join(map(str, p)))
    return grids
