"""The Rate dialog's model: Berthier's W-rating of a file or a collection, Qt-free.

It holds the puzzles (with their file line numbers and sampling weights),
runs the rating as a run (``sudoku.rating.RatingJob`` in chunks), and turns
the ratings into what the dialog shows: the W distribution raw and "real"
(cf(n)-weighted for a controlled-bias sample, or the sampler's weights)
beside seed 002 §3.3, a summary line, and a CSV export.
"""
from __future__ import annotations

import csv
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from sudokustudio.jobs.run import Run, Status, StopRules
from sudokustudio.sudoku.formats import read_collection
from sudokustudio.sudoku.grid import format_puzzle, format_puzzles
from sudokustudio.sudoku.correction import correction_factor
from sudokustudio.sudoku.rating import (DEFAULT_CAP, SEED002_RAW_PERCENT, SEED002_REAL_PERCENT, RatingJob,
                                        w_distribution, w_rating_path)


@dataclass(frozen=True)
class Distribution:
    """The W distribution as the dialog shows it."""

    rows: list[list[str]]          # W, count, raw %, real %, seed 002 raw %, seed 002 real %
    x: np.ndarray
    heights: list[np.ndarray]      # raw, real, seed 002 raw, seed 002 real (percent)
    summary: str
    real_label: str


def pct(x: float) -> str:
    x = float(x)
    if x == 0:
        return "0"
    return f"{x:.2f}" if x >= 0.1 else f"{x:.2g}"


class RatingModel:
    """Puzzles to rate and their run (see the module docstring)."""

    def __init__(self, executor: Callable[[], object], gate=None):
        self._executor = executor
        self._gate = gate
        self.puzzles = np.zeros((0, 81), np.uint8)
        self.lines: list[int] = []
        self.label = ""
        self.weights: np.ndarray | None = None     # sampling weights; None: cf(n)
        self.cap = DEFAULT_CAP
        self.run: Run | None = None

    # ------------------------------------------------------------------ input
    @staticmethod
    def read_file(path: str | Path):
        """The puzzles of a file and its unreadable lines (slow for big files: off the UI thread).
        Gzipped files and trailing fields are read; pencil-mark lines are unreadable lines here
        (the distribution's cf(n) needs clues; ``sudokustudio-cli rate`` rates them)."""
        return read_collection(path, check_units=False, pencil_marks=False)

    def set_puzzles(self, puzzles, label: str = "collection", lines=None, weights=None) -> None:
        """Puzzles to rate (uint8[N, 81]); ``lines`` default to 1..N; ``weights``: a sampler's
        weights for the "real" column (all equal or None: seed 002's cf(n))."""
        self.stop()
        w = None if weights is None else np.asarray(weights, dtype=np.float64)
        self.weights = None if w is None or len(w) == 0 or np.all(w == w[:1]) else w
        self.puzzles = np.ascontiguousarray(puzzles, dtype=np.uint8).reshape(-1, 81)
        self.lines = list(lines) if lines is not None else list(range(1, len(self.puzzles) + 1))
        self.label = label
        self.run = None

    # ------------------------------------------------------------------ the run
    @property
    def live(self) -> bool:
        return self.run is not None and not self.run.finished

    def start(self, cap: int) -> Run:
        if len(self.puzzles) == 0:
            raise ValueError("Open a puzzle file first.")
        if self.live:
            return self.run
        self.cap = int(cap)
        job = RatingJob(puzzles=format_puzzles(self.puzzles), cap=self.cap,
                        chunk=max(8, min(24, len(self.puzzles) // 8 or 8)))
        # the puzzles are parsed already: the job need not parse its texts again in the run's
        # thread (5,000 puzzles: ~130 ms of Python holding the GIL the window needs)
        job._data = self.puzzles
        self.run = Run(job, 0, StopRules())
        self.run.start(self._executor(), self._gate)
        return self.run

    def stop(self) -> None:
        if self.run is not None:
            self.run.stop()

    def results(self) -> tuple[np.ndarray, np.ndarray]:
        """(ratings, candidates after BRT) of the first puzzles of the file, as far as they are
        all rated (a prefix: row i is puzzle i)."""
        if self.run is None:
            return np.zeros(0, np.int16), np.zeros(0, np.int16)
        parts = self.run.total["parts"]
        # only the batches without a gap before them: a batch that finished early (its
        # neighbour still running) would otherwise sit in the rows of the one missing
        done = 0
        while done in parts:
            done += 1
        return RatingJob.arrays({"parts": {k: parts[k] for k in range(done)}})

    def progress_text(self) -> str:
        if self.run is None:
            return ""
        snap = self.run.snapshot(history=False)
        n = snap.units
        secs = max(snap.session_seconds, 1e-9)
        state = {Status.STOPPING: "stopping… ", Status.PAUSED: "stopped: ", Status.DONE: "done: ",
                 Status.FAILED: "failed: "}.get(snap.status, "")
        return f"{state}{n} rated, {n / secs:.0f} puzzles/s, {secs:.1f} s"

    # ------------------------------------------------------------------ what it shows
    def distribution(self) -> Distribution:
        cap = self.cap
        ratings, _ = self.results()
        ratings = ratings.astype(np.int64)
        clues = np.count_nonzero(self.puzzles[:len(ratings)], axis=1)
        weights = None if self.weights is None else self.weights[:len(ratings)]
        dist = w_distribution(ratings, clues, cap, weights) if len(ratings) else None
        top = int(ratings[ratings >= 0].max()) if len(ratings) and (ratings >= 0).any() else -1
        n_rows = min(max(top + 1, 11), cap + 2)
        rows = []
        for w in range(n_rows):
            label = ("W0 (L1_0)" if w == 0 else f"W{w}") if w <= cap else f"> {cap}"
            cells = [label, "", "", "",
                     pct(SEED002_RAW_PERCENT[w]) if w < len(SEED002_RAW_PERCENT) and w <= cap else "",
                     pct(SEED002_REAL_PERCENT[w]) if w < len(SEED002_REAL_PERCENT) and w <= cap else ""]
            if dist is not None:
                cells[1:4] = [str(int(dist["counts"][w])), pct(dist["raw"][w]), pct(dist["real"][w])]
            rows.append(cells)
        xs = np.arange(n_rows)
        seed_real = np.array([SEED002_REAL_PERCENT[w] if w < len(SEED002_REAL_PERCENT) else 0 for w in xs])
        seed_raw = np.array([SEED002_RAW_PERCENT[w] if w < len(SEED002_RAW_PERCENT) else 0 for w in xs])
        zero = np.zeros(n_rows)
        heights = [zero if dist is None else dist["raw"][:n_rows], zero if dist is None else dist["real"][:n_rows],
                   seed_raw, seed_real]
        real_label = "real % (cf)" if weights is None else "real % (weights)"
        if dist is None:
            return Distribution(rows, xs, heights, "Seed 002 §3.3 distributions shown; open a file and press Rate.",
                                real_label)
        ok = (ratings >= 0) & (ratings <= cap)
        valid = ratings[ok]
        w_cf = correction_factor(clues[ok]) if weights is None else weights[ok]
        mean = valid.mean() if len(valid) else math.nan
        real = (valid * w_cf).sum() / w_cf.sum() if len(valid) else math.nan
        n_inv, n_above = int((ratings < 0).sum()), int((ratings > cap).sum())
        summary = (f"{len(ratings)} puzzles rated: mean W {mean:.3f} raw, {real:.3f} real "
                   f"({'cf-weighted' if weights is None else 'sampler weights'})"
                   + (f"; {n_above} above the cap" if n_above else "")
                   + (f"; {n_inv} invalid (no or several solutions)" if n_inv else "")
                   + (". The 'real' columns assume a controlled-bias sample." if weights is None else
                      ". 'real' uses the collection's sampling weights."))
        if self.run is not None and self.run.status is Status.PAUSED and len(ratings) < len(self.puzzles):
            summary += f"<br>Stopped after {len(ratings)} puzzles."
        return Distribution(rows, xs, heights, summary, real_label)

    def export_csv(self, path: str | Path) -> int:
        """line, puzzle, clues, W, candidates after BRT; returns the rows written."""
        ratings, cands = self.results()
        with open(path, "w", newline="", encoding="utf-8") as f:
            w = csv.writer(f)
            w.writerow(["line", "puzzle", "clues", "W", "cands_after_BRT"])
            texts, clues = format_puzzles(self.puzzles[:len(ratings)]), np.count_nonzero(self.puzzles, axis=1)
            for i in range(len(ratings)):
                w.writerow([self.lines[i], texts[i], int(clues[i]), int(ratings[i]), int(cands[i])])
        return len(ratings)

    def path_request(self, row: int, cap: int):
        """(line, puzzle text, cap, a function computing the path) for one puzzle: the path is slow."""
        puzzle = self.puzzles[row].copy()
        return str(self.lines[row]), format_puzzle(puzzle), cap, (lambda: w_rating_path(puzzle, cap))
