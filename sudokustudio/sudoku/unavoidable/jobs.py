"""The UA workbench's batch jobs: the few-clue search split into batches of
first-level nodes, and the harvest as a one-batch job."""
from __future__ import annotations

import time

import numpy as np

from sudokustudio.core.batch import BatchCancelled, BatchJob, cancel_flag, check_cancelled
from sudokustudio.core.cellset import size_of
from sudokustudio.sudoku.grid import format_puzzle
from sudokustudio.sudoku.minimal import fixed_oracle
from sudokustudio.sudoku.tables import geometry
from sudokustudio.sudoku.unavoidable.formats import as_grid, mask_from_string
from sudokustudio.sudoku.unavoidable.groups import disjoint_groups
from sudokustudio.sudoku.unavoidable.harvest import UASet, harvest
from sudokustudio.sudoku.unavoidable.search import N_STATS, S_ADDED, S_FORWARD_PRUNES, S_FRONTIER, S_LEAVES, \
    S_NODES, S_NONMINIMAL, S_OVERFLOW, S_PUZZLES, search_kernel


def search_oracle(grid: np.ndarray):
    """The fixed oracle the search checks its leaves with (one per thread: it holds scratch)."""
    _, peers, units = geometry(3, 3)
    none = np.empty(0, dtype=np.uint64)
    return fixed_oracle(grid, peers, units, none, none, 0)


def search_below(o, uas: UASet, node: np.ndarray, clues: int, forward: bool, stats: np.ndarray) -> list[str]:
    """The whole search below ``node`` in this thread (no split): the puzzles found, its
    counters added to ``stats``; BatchCancelled when the batch is cancelled."""
    s = np.zeros(N_STATS, dtype=np.int64)
    out = np.zeros((1000, 81), dtype=np.uint8)
    if search_kernel(o, uas.lo, uas.hi, node, clues, forward, 0, len(uas) + 4096, out,
                     np.zeros((0, 4), dtype=np.uint64), s, cancel_flag()):
        raise BatchCancelled()
    stats += s
    return [format_puzzle(out[i]) for i in range(min(int(s[S_PUZZLES]), out.shape[0]))]


class UASearchJob(BatchJob):
    """Few-clue search as batches over the nodes ``split_depth`` clues below
    the root (after the forced clues).  spec: grid (81 digits), clues (k),
    force (81-char mask or ""), max_size, forward (bool), split_depth,
    nodes_per_batch."""

    kind = "ua_search"
    kernel_groups = ("ua",)

    def __init__(self, grid: str, clues: int, force: str = "", max_size: int = 12, forward: bool = True,
                 split_depth: int = 2, nodes_per_batch: int = 4, harvest_seed: int = 1):
        super().__init__(grid=grid, clues=clues, force=force, max_size=max_size, forward=forward,
                         split_depth=split_depth, nodes_per_batch=nodes_per_batch, harvest_seed=harvest_seed)
        if clues < 1 or clues > 40:
            raise ValueError(f"--clues must be between 1 and 40, got {clues}")
        self._prepared = None

    def prepare(self, uas: UASet | None = None):
        """Harvest (unless given) and expand the first levels; idempotent.
        Returns (grid, UAs, frontier nodes uint64[F, 4], nodes expanded)."""
        if self._prepared is not None:
            return self._prepared
        g = as_grid(self.spec["grid"])
        if uas is None:
            uas = harvest(g, self.spec["max_size"], seed=self.spec["harvest_seed"])
        flo, fhi = mask_from_string(self.spec["force"]) if self.spec["force"] else (0, 0)
        nforce = size_of(flo, fhi)
        if nforce > self.spec["clues"]:
            raise ValueError(f"{nforce} forced cells but at most {self.spec['clues']} clues")
        split = max(0, min(self.spec["split_depth"], self.spec["clues"] - nforce))
        stats = np.zeros(N_STATS, dtype=np.int64)
        root = np.array([flo, fhi, 0, 0], dtype=np.uint64)
        if split > 0:
            front = np.zeros((200_000, 4), dtype=np.uint64)
            search_kernel(search_oracle(g), uas.lo, uas.hi, root, self.spec["clues"], bool(self.spec["forward"]),
                          split, len(uas) + 4096, np.zeros((1, 81), dtype=np.uint8), front, stats,
                          cancel_flag())
            check_cancelled()
            if stats[S_OVERFLOW]:
                raise ValueError("too many first-level nodes; lower split_depth")
            front = front[:stats[S_FRONTIER]].copy()
        else:
            front = root[None, :].copy()
        self._prepared = (g, uas, front, int(stats[S_NODES]))
        return self._prepared

    def n_batches(self) -> int:
        _, _, front, _ = self.prepare()
        per = self.spec["nodes_per_batch"]
        return max(1, (len(front) + per - 1) // per)

    def run_batch(self, batch_index: int, seed: int):
        g, uas, front, _ = self.prepare()
        per = self.spec["nodes_per_batch"]
        stats = np.zeros(N_STATS, dtype=np.int64)
        puzzles: list[str] = []
        o = search_oracle(g)
        rows = front[batch_index * per:(batch_index + 1) * per]
        for row in rows:
            puzzles += search_below(o, uas, row, self.spec["clues"], bool(self.spec["forward"]), stats)
        return {"puzzles": sorted(puzzles), "stats": stats, "nodes_done": len(rows)}

    def merge(self, a, b):
        return {"puzzles": sorted(a["puzzles"] + b["puzzles"]), "stats": a["stats"] + b["stats"],
                "nodes_done": a["nodes_done"] + b["nodes_done"]}

    def empty(self):
        return {"puzzles": [], "stats": np.zeros(N_STATS, dtype=np.int64), "nodes_done": 0}

    def warm_up(self) -> None:
        warm_up()

    def describe(self, total) -> dict:
        s = total["stats"]
        pre = self._prepared[3] if self._prepared else 0
        return {"puzzles": total["puzzles"], "nodes": int(s[S_NODES]) + pre, "leaves_checked": int(s[S_LEAVES]),
                "uas_added": int(s[S_ADDED]), "forward_prunes": int(s[S_FORWARD_PRUNES]),
                "nonminimal_unique": int(s[S_NONMINIMAL]), "overflow": int(s[S_OVERFLOW])}


class UAHarvestJob(BatchJob):
    """The harvest as a one-batch job, so a UI can run it off the GUI thread
    with the same runner as everything else.  Result: dict(lo, hi, groups,
    exact, seconds)."""

    kind = "ua_harvest"
    kernel_groups = ("ua",)

    def __init__(self, grid: str, max_size: int = 12, six_digits: bool = False):
        super().__init__(grid=grid, max_size=max_size, six_digits=six_digits)

    def run_batch(self, batch_index: int, seed: int):
        uas = harvest(self.spec["grid"], self.spec["max_size"], six_digits=self.spec["six_digits"])
        groups, exact = disjoint_groups(uas)
        return {"lo": uas.lo, "hi": uas.hi, "groups": groups, "exact": exact, "seconds": uas.seconds}

    def merge(self, a, b):
        return b if a is None else a

    def empty(self):
        return None

    def warm_up(self) -> None:
        warm_up()


def search(grid, clues: int, force: str = "", *, uas: UASet | None = None, forward: bool = True,
           max_size: int = 12, split_depth: int = 0) -> dict:
    """Single-threaded search (tests, small cases): the describe() dict plus seconds."""
    g = as_grid(grid)
    job = UASearchJob("".join(map(str, g)), clues, force, max_size, forward, split_depth, 1 << 30)
    t0 = time.perf_counter()
    job.prepare(uas)
    total = job.empty()
    for i in range(job.n_batches()):
        total = job.merge(total, job.run_batch(i, 0))
    out = job.describe(total)
    out["seconds"] = time.perf_counter() - t0
    return out


def warm_up() -> None:
    """Compile the UA kernels on a small input, with the app's types."""
    from sudokustudio.sudoku.grids import random_grid
    from sudokustudio.sudoku.unavoidable.groups import greedy_disjoint_kernel, misses_known_ua
    from sudokustudio.sudoku.unavoidable.harvest import other_solution

    g = random_grid(7)
    uas = harvest(g, 6, random_sets=2)
    greedy_disjoint_kernel(uas.lo, uas.hi, np.empty(len(uas), dtype=np.int64))
    disjoint_groups(uas, node_limit=1000)
    misses_known_ua(np.zeros(81, dtype=np.uint8), uas)
    other_solution(g, uas.lo[0], uas.hi[0], np.zeros(81, dtype=np.uint8))
    job = UASearchJob("".join(map(str, g)), 3, "", 6, True, 1, 4)
    job.prepare(uas)
    job.run_batch(0, 0)
