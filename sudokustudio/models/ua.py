"""The Unavoidable-sets tab's model: a grid, its UAs, and the few-clue search, Qt-free.

The harvest and the search are runs (jobs.run.Run) on the window's executor,
so they stop like every other run (and poll the run's cancel flag where
their kernels do); preparing a search (expanding its first levels) is slow
and is called off the UI thread by the view.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from sudokustudio.jobs.run import Run, Status, StopRules
from sudokustudio.sudoku import unavoidable as U


@dataclass(frozen=True)
class SearchState:
    """What the search panel shows."""

    batches: int
    n_batches: int
    text: str
    puzzles: list[str]
    finished: bool
    status: str


class UAModel:
    """State of the Unavoidable-sets tab (see the module docstring)."""

    def __init__(self, executor: Callable[[], object], gate=None):
        self._executor = executor
        self._gate = gate
        self.grid: np.ndarray | None = None
        self.uas: U.UASet | None = None
        self.groups: list[int] = []
        self.exact = False
        self.harvest_run: Run | None = None
        self.search_run: Run | None = None
        self.search_job: U.UASearchJob | None = None

    # ------------------------------------------------------------------ grid
    def set_grid(self, grid) -> None:
        """A solution grid (81 digits); a uniquely solvable puzzle stands for its solution."""
        self.stop()
        self.grid = U.read_grid(grid) if isinstance(grid, str) else np.asarray(grid, dtype=np.uint8).copy()
        self.uas, self.groups, self.exact = None, [], False
        self.search_run = self.search_job = None

    @staticmethod
    def read_grid(source: str | Path) -> np.ndarray:
        """A grid from text or a file (ValueError / OSError with a message naming what is wrong)."""
        return U.read_grid(str(source))

    # ------------------------------------------------------------------ harvest
    def start_harvest(self, max_size: int) -> Run:
        if self.grid is None:
            raise ValueError("set a grid first")
        self.stop()
        job = U.UAHarvestJob("".join(map(str, self.grid)), int(max_size))
        self.harvest_run = Run(job, 1, StopRules(batches=1))
        self.harvest_run.start(self._executor(), self._gate)
        return self.harvest_run

    def take_harvest(self) -> bool:
        """Adopt the finished harvest's UAs and disjoint group; False if it did not finish."""
        run = self.harvest_run
        if run is None or not run.finished or run.total is None:
            return False
        res = run.total
        self.uas = U.UASet(self.grid, res["lo"], res["hi"], res["seconds"])
        self.groups, self.exact = list(res["groups"]), bool(res["exact"])
        return True

    def group_cells(self) -> list[list[int]]:
        if self.uas is None:
            return []
        return [U.mask_to_cells(self.uas.lo[i], self.uas.hi[i]) for i in self.groups]

    def ua_cells(self, i: int) -> tuple[list[int], dict[int, int]]:
        """The cells of UA ``i`` and the other filling of them (cell -> digit) that makes it unavoidable."""
        lo, hi = self.uas.lo[i], self.uas.hi[i]
        cells = U.mask_to_cells(lo, hi)
        sol = np.zeros(81, dtype=np.uint8)
        full_hi = np.uint64((1 << 17) - 1)
        other = {}
        if U.other_solution(self.grid, ~lo, ~hi & full_hi, sol):
            other = {int(c): int(sol[c]) for c in cells if sol[c] != self.grid[c]}
        return cells, other

    def summary(self, max_size: int) -> tuple[str, str]:
        """(the harvest line, the lower-bound line)."""
        by = ", ".join(f"{k}: {v}" for k, v in self.uas.by_size().items())
        return (f"{len(self.uas)} minimal UAs of at most {max_size} cells ({by}) in {self.uas.seconds:.1f} s.",
                f"<b>Clue lower bound: {len(self.groups)}</b> — {len(self.groups)} pairwise disjoint UAs "
                f"({'maximum' if self.exact else 'largest found'}; each needs its own clue).")

    # ------------------------------------------------------------------ search
    def prepare_search(self, clues: int, force: str, max_size: int, forward: bool) -> U.UASearchJob:
        """The search job with its first levels expanded (slow: call it off the UI thread).
        ValueError names a bad forced-cells mask or clue count."""
        if self.uas is None or self.grid is None:
            raise ValueError("harvest the UAs first")
        if force:
            U.mask_from_string(force)
        job = U.UASearchJob("".join(map(str, self.grid)), int(clues), force, int(max_size), bool(forward), 2, 1)
        job.prepare(self.uas)
        return job

    def start_search(self, job: U.UASearchJob) -> Run:
        self.stop()
        self.search_job = job
        self.search_run = Run(job, 1, StopRules(batches=job.n_batches()))
        self.search_run.start(self._executor(), self._gate)
        return self.search_run

    def search_state(self) -> SearchState | None:
        run = self.search_run
        if run is None:
            return None
        snap = run.snapshot(history=False)
        desc = self.search_job.describe(snap.total)
        secs = max(snap.session_seconds, 1e-9)
        text = (f"{desc['nodes']:,} nodes, {desc['nodes'] / secs:,.0f} nodes/s; "
                f"{desc['leaves_checked']:,} hitting sets checked, "
                f"{desc['uas_added']:,} UAs found on the way; {secs:.1f} s")
        if run.finished:
            n = len(desc["puzzles"])
            state = {Status.DONE: "complete", Status.PAUSED: "stopped", Status.FAILED: "failed"}.get(
                snap.status, snap.status.value)
            text += f" — {state}: {n} puzzle{'s' * (n != 1)}"
        elif snap.status is Status.STOPPING:
            text += " — stopping…"
        return SearchState(snap.batches, snap.n_batches or 0, text, list(desc["puzzles"]), run.finished,
                           snap.status.value)

    # ------------------------------------------------------------------ control
    @property
    def busy(self) -> bool:
        return any(r is not None and not r.finished for r in (self.harvest_run, self.search_run))

    def stop(self) -> None:
        for r in (self.harvest_run, self.search_run):
            if r is not None:
                r.stop()

    def shutdown(self, deadline: float = 1.5) -> bool:
        self.stop()
        return all(r.wait(deadline) for r in (self.harvest_run, self.search_run) if r is not None)

    def puzzles(self) -> list[str]:
        state = self.search_state()
        return [] if state is None else state.puzzles

    def save_puzzles(self, path: str | Path) -> int:
        found = self.puzzles()
        Path(path).write_text("".join(p + "\n" for p in found), encoding="utf-8")
        return len(found)
