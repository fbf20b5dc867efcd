"""The Atlas view's model, Qt-free: sizes, the cost prediction, the run, progress per
partition (batch of row-sum vectors) and the tables as plain rows for the view.

The view asks the model for everything it shows: ``new_run`` gives the run
(jobs.run.Run) it wraps for Qt (kept in the run store when it is long, so a
crash loses only the batches in flight: ``stored_run_info`` finds it again and
``open_stored`` rebuilds it to resume), ``take_batch`` records each merged batch's
figures (cheap: counters only), and the view's timer asks for
``partition_progress``, ``swaps_rows``, ``w_rows``, ``summary_rows`` and
the status and prediction texts.  ``predict`` is slow (Knuth's random
probes, seconds to a minute): call it off the UI thread.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from sudokustudio.core.durations import duration_text
from sudokustudio.jobs.run import Run, Status, StopRules
from sudokustudio.jobs.store import RunInfo, RunStore, StoreError
from sudokustudio.survo import atlas as A
from sudokustudio.survo.atlas.estimate import SizeEstimate, estimate_size
from sudokustudio.survo.atlas.tables import AtlasTables, atlas_tables, write_tables_csv

#: sizes the window runs (3×6 takes minutes, 4×5 hours on two cores, 3×7 more: stored runs, resumed; two rows
#: by their own method, 2×10 in minutes)
RUN_SIZES = [(2, 2), (2, 3), (2, 4), (2, 5), (2, 6), (2, 7), (2, 8), (2, 9), (2, 10), (3, 3), (3, 4), (3, 5),
             (3, 6), (4, 4), (4, 5), (3, 7)]
#: sizes past a run (more than ``A.MAX_CELLS`` cells): the prediction only
PREDICT_SIZES = [(4, 6), (5, 5), (3, 8)]
SIZES = RUN_SIZES + PREDICT_SIZES
#: probes of the prediction shown before a run (a few seconds for 3×6, ~a minute for 5×5 on a loaded machine)
PROBES = 400
#: ask before a run predicted to take longer than this many core-seconds
LONG_RUN_CORE_SECONDS = 600.0
#: a run predicted to take longer than this many core-seconds is kept in the run store (resumable)
STORE_RUN_CORE_SECONDS = 60.0
#: CPU seconds of the two-row method measured here (the probe estimate is of the general search)
TWO_ROW_CORE_SECONDS = {7: 0.05, 8: 0.3, 9: 3.5, 10: 65.0}


def size_label(m: int, n: int) -> str:
    if (m, n) in PREDICT_SIZES:   # (no S here: the label would widen the size box and the window)
        return f"{m}×{n}   (prediction only)"
    known = A.KNOWN_COUNTS.get((m, n))
    return f"{m}×{n}" + (f"   (S = {known:,})" if known else "")


@dataclass(frozen=True)
class PartitionProgress:
    """Per batch (a group of row-sum vectors, the 'partitions' of the total into m row sums)."""

    vectors: np.ndarray     # int64[batches]: row-sum vectors in the batch
    done: np.ndarray        # bool[batches]
    puzzles: np.ndarray     # int64[batches]: puzzles found (0 while pending)
    cpu: np.ndarray         # float64[batches]: batch CPU seconds

    @property
    def batches_done(self) -> int:
        return int(self.done.sum())

    @property
    def vectors_done(self) -> int:
        return int(self.vectors[self.done].sum())


#: a cell of a seed-001 table: (row, column, text, matches seed 001? None: not judged)
SeedCell = tuple[int, int, str, "bool | None"]


@dataclass(frozen=True)
class SeedComparison:
    """Seed 001's 4×4 tables beside an atlas's figures, as cells for the view."""

    swaps_cells: list[SeedCell]   # rows: swaps, seed 001, computed; a column per number of swaps 0..9
    w_cells: list[SeedCell]       # a row per W bin and "all": bin, seed count, computed, seed %, computed %
    summary: str


class AtlasRunModel:
    """State of the Atlas view (see the module docstring)."""

    def __init__(self, store: RunStore | None = None):
        self.m, self.n = 3, 4
        self.store = store
        self.job: A.SurvoAtlasJob | None = None
        self.predictions: dict[tuple[int, int], SizeEstimate] = {}
        self.batch_weights: dict[tuple[int, int, str], np.ndarray | None] = {}   # (m, n, method): ``predict``'s
        self._vectors = np.zeros(0, np.int64)
        self._done = np.zeros(0, bool)
        self._puzzles = np.zeros(0, np.int64)
        self._cpu = np.zeros(0)

    # ------------------------------------------------------------------ size
    def select(self, m: int, n: int) -> None:
        self.m, self.n = int(m), int(n)

    @property
    def runnable(self) -> bool:
        return (self.m, self.n) in RUN_SIZES

    @property
    def predictable(self) -> bool:
        """Has the size a probe estimate?  (The general search's stops at 8 columns.)"""
        return self.n <= 8

    # ------------------------------------------------------------------ prediction
    def predict(self, m: int | None = None, n: int | None = None, probes: int = PROBES, seed: int = 0) -> SizeEstimate:
        """Knuth's estimate of the size (slow: off the UI thread); kept per size."""
        m = self.m if m is None else int(m)
        n = self.n if n is None else int(n)
        est = estimate_size(m, n, probes=probes, seed=seed)
        if (m, n) in RUN_SIZES:   # and each batch's work, for the run's time left (a few CPU-s more)
            job = A.SurvoAtlasJob(m, n)
            weights = job.estimate_batch_weights()
            self.batch_weights[(m, n, job.method)] = weights
            live = self.job
            if live is not None and (live.m, live.n, live.method) == (m, n, job.method) and live.batch_weights is None:
                live.batch_weights = weights   # a run started before the prediction ended
        self.predictions[(m, n)] = est
        return est

    def wants_prediction(self) -> bool:
        """Not predicted yet, and predictable."""
        return self.predictable and self.prediction() is None

    def prediction(self) -> SizeEstimate | None:
        return self.predictions.get((self.m, self.n))

    def prediction_text(self, workers: int = 2) -> str:
        """'S(4,5): about N tables, about T core-hours on this machine' (or why not yet)."""
        est = self.prediction()
        two_rows = ""
        if A.uses_two_rows(self.m, self.n):
            two_rows = (f"runs by the two-row method (column pairings), about "
                        f"{duration_text(TWO_ROW_CORE_SECONDS.get(self.n, 1.0), rounded=True)} of CPU")
            if not self.predictable:
                return f"S({self.m},{self.n}): {two_rows}; no probe estimate past 8 columns"
            two_rows = f" — {two_rows} instead"
        if est is None:
            return f"S({self.m},{self.n}): predicting the size of the enumeration…"
        if est.tables <= 0 or not math.isfinite(est.rel_err):
            return f"S({self.m},{self.n}): no probe reached a table ({est.probes} probes); size unknown"
        lo, hi = est.core_hours_range
        text = (f"S({self.m},{self.n}): about {est.tables:,.3g} trade-free tables (± {100 * est.rel_err:.0f} %), "
                f"about {duration_text(est.core_seconds, rounded=True)} of CPU on this machine "
                f"({est.core_hours:.2g} core-hours, {lo:.2g}-{hi:.2g} by the cost model's spread; "
                f"~{duration_text(est.core_seconds / workers, rounded=True)} on {workers} cores)")
        if not self.runnable:
            text += f" — beyond a run here (more than {A.MAX_CELLS} cells)"
        return text + two_rows

    def needs_confirmation(self) -> bool:
        """A run predicted to take long (or not predicted yet for a big size) asks first."""
        cost = self.predicted_core_seconds()
        if cost is None:
            return self.m * self.n >= 20 and not A.uses_two_rows(self.m, self.n)
        return cost > LONG_RUN_CORE_SECONDS

    def prediction_check_text(self, total: A.AtlasResult) -> str:
        """After a complete run: how good the prediction was."""
        est = self.predictions.get((total.m, total.n))
        if est is None or total.tables == 0:
            return ""
        c = est.against(total.tables, total.cpu_seconds)
        off = c["relative_errors_off"]
        return (f"Prediction: {est.tables:,.4g} tables ± {100 * est.rel_err:.1f} %, measured {total.tables:,} "
                f"({100 * c['relative_difference']:+.1f} %"
                + (f", {off:+.1f} relative errors" if math.isfinite(off) else "")
                + f"); CPU predicted {duration_text(c['predicted_core_seconds'], rounded=True)}, "
                  f"measured {duration_text(c['measured_core_seconds'], rounded=True)}.")

    # ------------------------------------------------------------------ run
    def predicted_core_seconds(self) -> float | None:
        """The selected size's predicted CPU (None while unknown)."""
        if A.uses_two_rows(self.m, self.n):
            return TWO_ROW_CORE_SECONDS.get(self.n)
        est = self.prediction()
        return None if est is None else est.core_seconds

    def worth_storing(self) -> bool:
        """Keep the run in the store?  Long ones (or big ones not predicted yet): a crash then
        costs only the batches in flight."""
        cost = self.predicted_core_seconds()
        return self.store is not None and (cost > STORE_RUN_CORE_SECONDS if cost is not None
                                           else self.m * self.n >= 18)

    def stored_run_info(self) -> RunInfo | None:
        """The newest stored atlas run of the selected size (None: none, or no store)."""
        if self.store is None:
            return None
        try:
            runs = self.store.runs(A.SurvoAtlasJob.kind)
        except StoreError:
            return None
        return next((r for r in runs if (r.spec.get("m"), r.spec.get("n")) == (self.m, self.n)), None)

    @staticmethod
    def resumable(info: RunInfo | None) -> bool:
        """Can this window carry the stored run on?  (Not while another process drives it.)"""
        return info is not None and not _live(info)

    def stored_run_text(self, info: RunInfo | None) -> str:
        """What a stored run of the size holds, for the view ('' for none)."""
        if info is None:
            return ""
        whole = info.target_batches or 0   # the whole plan (the stored rules of an atlas run; no plan built here)
        if whole and info.batches >= whole:
            return f"A stored {self.m}×{self.n} run (#{info.id}) is complete: Resume shows it without recomputing."
        state = ("running in another process" if _live(info)
                 else info.status if info.status in ("interrupted", "failed") else "stopped")
        return (f"A stored {self.m}×{self.n} run (#{info.id}, {state}) has {info.batches:,} of {whole:,} partitions: "
                f"Resume carries it on.")

    def _start_partitions(self) -> None:
        bounds = self.job.plan()[1]
        self._vectors = np.diff(bounds).astype(np.int64)
        k = len(self._vectors)
        self._done = np.zeros(k, bool)
        self._puzzles = np.zeros(k, np.int64)
        self._cpu = np.zeros(k)

    @staticmethod
    def build_plan(m: int, n: int) -> None:
        """Build the size's batch plan (kept by ``survo.atlas``: ``new_run`` then finds it ready).
        Tens of milliseconds for 3×6, more for larger sizes: call it off the UI thread."""
        A.SurvoAtlasJob(m, n).plan()

    def new_run(self) -> Run:
        """The run of the selected size (not started); resets the per-partition progress.  A long
        run is kept in the store, which keeps one run per size (older ones are deleted).
        ValueError for a size beyond a run."""
        if not self.runnable:
            raise ValueError(f"{self.m}×{self.n} is beyond a run in the window (prediction only)")
        self.job = A.SurvoAtlasJob(self.m, self.n)
        self.job.batch_weights = self.batch_weights.get((self.m, self.n, self.job.method))
        self._start_partitions()
        rules = StopRules(batches=self.job.n_batches())
        if not self.worth_storing():
            return Run(self.job, 0, rules)
        try:
            old = self.stored_run_info()
            if old is not None:
                self.store.delete_run(old.id)
            return Run.create(self.job, 0, rules, store=self.store, name=f"survo atlas {self.m}x{self.n}")
        except StoreError:   # a store that cannot write: the run still goes, unsaved
            return Run(self.job, 0, rules)

    def open_stored(self, run_id: int) -> tuple[Run, np.ndarray]:
        """(stored run ``run_id`` rebuilt, puzzles per partition): slow for a big atlas, so call it
        off the UI thread; it changes nothing here (``adopt`` does, on the UI thread).  StoreError
        for a damaged or missing run, or one that is not an atlas."""
        run = Run.open(self.store, run_id)
        if run.job.kind != A.SurvoAtlasJob.kind:
            raise StoreError(f"run {run_id} is a {run.job.kind} run, not an atlas")
        return run, self.partitions_of(run.total, run.job)[1]

    def adopt(self, run: Run, puzzles: np.ndarray) -> Run:
        """Take an opened stored run (``open_stored``) as the view's run, set to run every batch
        (those stored are kept), its stored partitions marked done."""
        run.set_rules(StopRules(batches=run.job.n_batches()))
        self.job = run.job
        self.job.batch_weights = self.batch_weights.get((self.job.m, self.job.n, self.job.method))
        self.select(self.job.m, self.job.n)
        self._start_partitions()
        done = run.done_batch_indices()
        self._done[done] = True
        self._puzzles[done] = puzzles[done]
        return run

    def take_batch(self, index: int, result: A.AtlasResult) -> None:
        """Record one merged batch (its counters only)."""
        if 0 <= index < len(self._done):
            self._done[index] = True
            self._puzzles[index] = result.count
            self._cpu[index] = result.cpu_seconds

    @staticmethod
    def partitions_of(result: A.AtlasResult, job: A.SurvoAtlasJob | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(row-sum vectors, puzzles) per batch of an atlas, its puzzles counted from their row
        sums (the batch plan depends only on the size and the method: ``job``'s, else today's
        for the size).  Changes nothing: a worker thread may call it while the window shows
        the model."""
        job = job if job is not None else A.SurvoAtlasJob(result.m, result.n)
        vectors = np.diff(job.plan()[1]).astype(np.int64)
        return vectors, np.bincount(job.batch_of(result), minlength=len(vectors)).astype(np.int64)

    def take_result(self, result: A.AtlasResult,
                    partitions: tuple[np.ndarray, np.ndarray] | None = None) -> None:
        """Progress per partition of a finished atlas read from a file: every batch done
        (``partitions``: from ``partitions_of``, when already computed off the UI thread)."""
        self.select(result.m, result.n)
        self._vectors, self._puzzles = partitions if partitions is not None else self.partitions_of(result)
        self._done = np.ones(len(self._vectors), bool)
        self._cpu = np.zeros(len(self._vectors))

    def partition_progress(self) -> PartitionProgress:
        return PartitionProgress(self._vectors.copy(), self._done.copy(), self._puzzles.copy(), self._cpu.copy())

    # ------------------------------------------------------------------ tables
    @staticmethod
    def tables(result: A.AtlasResult) -> AtlasTables:
        return atlas_tables(result)

    @staticmethod
    def swaps_rows(t: AtlasTables) -> list[list[str]]:
        """[swaps, puzzles, % of puzzles, % of random starts] per number of swaps (up to the largest met)."""
        rand = {row[0]: row[2] for row in t.random_start["dist"]}
        rows = []
        for s, c in enumerate(t.swaps_hist):
            rows.append([str(s), f"{c:,}", f"{100.0 * c / t.count:.2f}" if t.count else "–",
                         f"{100.0 * rand.get(s, 0.0):.3g}"])
        return rows

    @staticmethod
    def w_rows(t: AtlasTables) -> list[list[str]]:
        """[W bin, puzzles, % of them < k swaps] and an 'all' row."""
        rows = [[lab, f"{c:,}", "–" if p is None else f"{p:.1f}"] for lab, c, p in t.w_table if c]
        rows.append(["all", f"{t.count:,}", f"{t.under_k_percent:.1f}" if t.count else "–"])
        return rows

    @staticmethod
    def summary_rows(t: AtlasTables) -> list[tuple[str, str]]:
        """(statistic, value) lines: mean/sd, solved at once, < k share, chi-square range, random start."""
        if not t.count:
            return [("puzzles", "0")]
        rs = t.random_start
        return [("puzzles", f"{t.count:,}"),
                ("swaps mean / sd", f"{t.swaps_mean:.3f} / {t.swaps_sd:.3f}"),
                ("solved by the setup at once", f"{t.solved_at_once:,} ({t.solved_at_once_percent:.2f} %)"),
                (f"solvable in < {t.k} swaps", f"{t.under_k_percent:.1f} %"),
                ("chi-square range", f"{t.chi2_min:.3f} … {t.chi2_max:.3f}"),
                (f"random start ({rs['cells']} cells) mean / sd", f"{rs['mean']:.3f} / {rs['sd']:.3f}")]

    @staticmethod
    def export_csv(prefix: str | Path, result: A.AtlasResult) -> list[Path]:
        """PREFIX_swaps.csv, PREFIX_w.csv, PREFIX_summary.csv (OSError if they cannot be written)."""
        return write_tables_csv(str(prefix), atlas_tables(result))

    @staticmethod
    def seed_comparison(result: A.AtlasResult | None, complete: bool = True) -> SeedComparison:
        """Seed 001's 4×4 tables with ``result``'s figures beside them (a 4×4 atlas, or None for
        the seed's alone); cells are judged only for a ``complete`` atlas."""
        swaps = result.swaps_hist() if result is not None else []
        swaps_cells: list[SeedCell] = []
        for k in range(10):
            seed = A.SEED_SWAPS_4x4[k]
            v = swaps[k] if k < len(swaps) else 0
            swaps_cells += [(0, k, str(k), None), (1, k, str(seed), None),
                            (2, k, "–", None) if result is None else (2, k, str(v), v == seed if complete else None)]
        computed = None if result is None else result.w_table(
            [(lab, *A._bin_limits(lab)) for lab, _, _ in A.SEED_W_BINS_4x4])
        rows = [(lab, freq, pct, None if computed is None else computed[i][1:])
                for i, (lab, freq, pct) in enumerate(A.SEED_W_BINS_4x4)]
        rows.append(("all", 5327, A.SEED_ALL_UNDER6_4x4,
                     None if result is None else (result.count, result.under6_percent())))
        w_cells: list[SeedCell] = []
        for row, (lab, freq, pct, got) in enumerate(rows):
            w_cells += [(row, 0, lab, None), (row, 1, str(freq), None), (row, 3, f"{pct:.1f} %", None)]
            if got is None:
                w_cells += [(row, 2, "–", None), (row, 4, "–", None)]
            else:
                k, p = got
                w_cells += [(row, 2, str(k), (k == freq) if complete else None),
                            (row, 4, "–" if k == 0 and lab != "all" else f"{p:.2f} %",
                             A.pct_as_printed(p, pct) if complete else None)]
        return SeedComparison(swaps_cells, w_cells, _seed_summary(result, complete))

    # ------------------------------------------------------------------ status
    def status_text(self, result: A.AtlasResult, running: bool, complete: bool, elapsed: float | None,
                    progress: PartitionProgress | None = None, left: float | None = None) -> str:
        """The status line; ``left``: the run model's time left (``Snapshot.eta``), while running."""
        known = A.KNOWN_COUNTS.get((result.m, result.n))
        text = f"{result.m}×{result.n}: {result.count:,} uniquely solvable open puzzles"
        if running:
            text += " so far"
            if progress is not None and len(progress.done):
                unit = self.job.unit if self.job is not None else "row-sum vectors"
                text += (f" ({progress.vectors_done:,} of {int(progress.vectors.sum()):,} {unit}, "
                         f"{progress.batches_done} of {len(progress.done)} partitions)")
        elif complete and known is not None:
            text += (f" — published S({result.m},{result.n}) = {known:,}: "
                     + ("match" if known == result.count else "MISMATCH"))
        elif not complete:
            text += " (partial: run cancelled)"
        if elapsed is not None:
            text += f"; {duration_text(elapsed)}"
            if running and left is not None:
                text += f" elapsed, about {duration_text(left, rounded=True)} left"
        return text + "."


#: puzzles sorted at once by a column other than "#"; more are sorted off the UI thread (~0.1-0.4 s at 843k)
SYNC_SORT_ROWS = 100_000


def sorts_slowly(count: int, column: int) -> bool:
    """Would sorting ``count`` puzzles by list column ``column`` hold the UI thread too long?"""
    return column != 0 and count > SYNC_SORT_ROWS


def puzzle_order(res: A.AtlasResult, column: int, descending: bool = False) -> np.ndarray:
    """The puzzle list's order (view row -> record) by list column ``column``: 0 "#", 1 row sums,
    2 column sums, 3 W, 4 min swaps, 5 chi-square; stable (ties keep record order)."""
    if res.count == 0:
        return np.zeros(0, dtype=np.int64)
    if column == 0:   # record order: no sort (a lexsort of 843k indices took ~0.1 s)
        order = np.arange(res.count, dtype=np.int64)
        return order[::-1].copy() if descending else order
    if column == 5:
        return np.argsort(-res.chi2 if descending else res.chi2, kind="stable").astype(np.int64)
    keys = {1: res.row_sums().T, 2: res.col_sums().T, 3: [res.w()], 4: [res.swaps()]}[column]
    return sort_order(keys, descending)


def sort_order(keys, descending: bool = False) -> np.ndarray:
    """Stable order of rows by whole-number ``keys`` (first key first; ties keep row order), the
    keys packed into one int64 when their ranges fit in 63 bits: one argsort instead of a lexsort
    over every key (~0.05 s instead of ~0.5 s for 843k rows by 10 column sums)."""
    keys = [np.asarray(k) for k in keys]
    packed = np.zeros(len(keys[0]), np.int64)
    bits = 0
    for k in keys:
        lo, hi = int(k.min()), int(k.max())
        width = max(1, (hi - lo).bit_length())
        bits += width
        if bits > 63:
            return np.lexsort([hi - k if descending else k for k in keys[::-1]]).astype(np.int64)
        packed <<= width
        packed |= (hi - k) if descending else (k - lo)
    return np.argsort(packed, kind="stable").astype(np.int64)


def _live(info: RunInfo) -> bool:
    """Is another process driving the stored run?  (Opening the store marks a dead owner's
    run "interrupted".)"""
    try:
        return Status(info.status).live
    except ValueError:   # a status this version does not know: not ours to drive
        return True


def _seed_summary(result: A.AtlasResult | None, complete: bool) -> str:
    if result is None:
        return ("Run 4×4 (or open a 4×4 atlas file) to compare with seed 001's tables; "
                "seed 001: swaps mean ≈ 4, sd ≈ 1.6, chi-square inside (0.25, 8.25).")
    if not complete:
        return "Partial run: the computed columns are still growing."
    if not result.count:
        return "No 4×4 puzzles in this atlas."
    cmp = A.compare_with_seed(result)
    verdict = "all of seed 001's figures reproduced" if cmp["all_match"] else "DIFFERENCES from seed 001"
    return (f"{verdict}: mean swaps {cmp['swaps_mean_sd']['mean']:.3f}, sd {cmp['swaps_mean_sd']['sd']:.3f}; "
            f"chi-square {cmp['chi2']['min']:.3f} … {cmp['chi2']['max']:.3f} "
            f"({'inside' if cmp['chi2']['match'] else 'NOT inside'} (0.25, 8.25)).")


