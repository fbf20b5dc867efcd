"""The Generators tab's model: minimal-puzzle generators side by side, Qt-free.

Each generator is a run (jobs.run.Run) on the window's executor; every
finished batch is committed to the collection store by the run's own thread
(a listener), never by the view.  Imported collections (read, and their fast
difficulty metrics computed, off the UI thread by the view's background
call) join the same comparison.  The model turns runs and collections into
what the tab draws: the row of each generator (progress, counts, rates,
including the grids a controlled-bias run has tried before its first
puzzle), the clue-count histograms, the difficulty per clue count, and the
statistics table beside seed 002's figures.
"""
from __future__ import annotations

import csv
import itertools
import math
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

from sudokustudio.core.stats import Moments
from sudokustudio.jobs.collections import (Collection, CollectionError, CollectionStore, add_missing_metrics,
                                           export_puzzles, import_collection)
from sudokustudio.jobs.run import Run, Status, StopRules
from sudokustudio.kernels import preparing
from sudokustudio.sudoku.correction import CF
from sudokustudio.sudoku.generate import PUBLISHED, PUBLISHED_CB_HIST, GenResult, describe_result
from sudokustudio.sudoku.generate.results import tail_warning

METHODS = ("top-down", "bottom-up", "controlled-bias", "weighted-subsets")
#: generators with a chosen clue pattern or symmetric clue positions (generate.pattern)
PATTERN_METHODS = ("pattern", "symmetry")
ALL_METHODS = METHODS + PATTERN_METHODS
#: the rows of the Generators tab: one per generator, and one for a chosen pattern or symmetry
ROW_KEYS = METHODS + ("pattern",)
IMPORT_GENERATORS = ["unknown", "top-down", "bottom-up", "controlled-bias", "weighted-subsets"]
METRIC_TITLES = {"guesses": "solver guesses", "brt": "BRT (singles solve)", "W": "W-rating"}


def build_job(method: str, n: int, *, grid_source=None, blind=46, subset_size=None, difficulty=None,
              bands=None, mask=None, symmetry=None, max_grids=None, tail_per_grid=None, tail_deep=None):
    """(job, number of batches or None when the run stops at n puzzles) for a generator by name.

    ``bands``: target difficulty (``generate.bands``; texts like "W:3-5" or [name, lo, hi]); with
    bands the fixed-length generators run until n puzzles are kept.  ``mask`` (pattern) and
    ``symmetry`` (symmetry): see ``generate.pattern``; ``max_grids`` caps the grids they try
    (the run then stops with fewer than n puzzles); ``tail_per_grid``, ``tail_deep``: the
    weighted sampler's tail subsets per grid and how many of them are searched one clue deeper
    (None: its defaults; 0: no tail stratum, no deeper subsets)."""
    from sudokustudio.sudoku.generate import GeneratorJob
    from sudokustudio.sudoku.generate.bands import check_bands

    bands = check_bands(bands)
    if method in ("pattern", "symmetry"):
        from sudokustudio.sudoku.generate.pattern import PatternJob

        job = PatternJob(method, mask=mask, symmetry=symmetry, difficulty=difficulty, bands=bands,
                         max_found=min(200, max(1, n)))
        cap = None if max_grids is None else max(1, -(-int(max_grids) // job.spec["per_batch"]))
        return job, cap
    if method == "weighted-subsets":
        from sudokustudio.sudoku.generate import DEFAULT_SUBSET_SIZE, WeightedSubsetsJob

        tail = {k: v for k, v in (("tail_per_grid", tail_per_grid), ("tail_deep", tail_deep)) if v is not None}
        # sequential grids by default: unbiased over all grids, at the pool's cost a sample (the pool,
        # 256 grids, read the mean 3.5 of its SE low and c = 24's share 4.1 SE high after 8,000 samples)
        kw = dict(s=subset_size or DEFAULT_SUBSET_SIZE, difficulty=difficulty,
                  grid_source=grid_source or "sequential", bands=bands, **tail)
        job = WeightedSubsetsJob(**kw)
        return _even_batches(job, n, lambda per: WeightedSubsetsJob(per_batch=per, **kw))
    if method not in METHODS:
        raise ValueError(f"unknown generator {method!r}; choose one of {', '.join(ALL_METHODS)}")
    if grid_source == "sequential":
        raise ValueError("--grid-source sequential is for weighted-subsets only")
    kw = dict(grid_source=grid_source, blind=blind, difficulty=difficulty, bands=bands)
    job = GeneratorJob(method, **kw)
    if method == "controlled-bias" or bands:
        return job, None
    return _even_batches(job, n, lambda per: GeneratorJob(method, per_batch=per, **kw))


def _even_batches(job, n: int, with_per_batch):
    """(job, batches) for n units in batches as even as possible and no larger than the job's own
    (so that the run makes exactly n); ``with_per_batch(per)`` makes the job with another size."""
    most = job.spec["per_batch"]
    per = -(-n // -(-n // most))
    if per != most:
        job = with_per_batch(per)
    return job, -(-n // per)


_SERIALS = itertools.count()


@dataclass
class GenSeries:
    """One column of the comparison: a generator's run or an imported collection."""

    key: str
    name: str
    method: str                     # generator name (imports: what the user said made it)
    colour: str
    target: int = 0
    run: Run | None = None
    result: GenResult = field(default_factory=GenResult)   # imports (runs: the run's total)
    collection_id: int | None = None
    imported: bool = False
    source: str = ""
    _stats_cache: tuple | None = None   # (key, stats): one attribute, as a worker thread may set it
    serial: int = field(default_factory=lambda: next(_SERIALS))   # tells a new run of a row from the old

    def current(self) -> GenResult:
        return self.run.total if self.run is not None else self.result

    @property
    def live(self) -> bool:
        return self.run is not None and not self.run.finished


@dataclass(frozen=True)
class RowState:
    """What a generator's row shows."""

    progress: float
    progress_text: str
    count: str
    rate: str
    button: str                     # Start | Stop | Stopping…
    detail: str                     # tooltip of the row: grids tried, rates, errors
    #: the figures alone, for a bar too narrow for the words (at 1024 px "20,000 / 20,000 samples"
    #: wrapped out of its bar)
    progress_short: str = ""


@dataclass(frozen=True)
class SeriesCurves:
    """One series as the plots draw it (``version`` changes when its data does)."""

    key: str
    series: GenSeries
    version: tuple
    hist: tuple[np.ndarray, np.ndarray]
    metric: tuple[np.ndarray, np.ndarray]


@dataclass(frozen=True)
class GenDrawing:
    """Everything the tab's plots and table show, computed off the UI thread (``drawing``)."""

    metric: str
    correct: bool
    reference: tuple[np.ndarray, np.ndarray]
    curves: list[SeriesCurves]
    note: str
    metric_names: list[str]
    table: tuple[list[str], list[str], list[list[str]], list[str]]
    table_series: list[GenSeries]      # the series of the table's first columns
    tail_warnings: dict[str, str] = field(default_factory=dict)   # column -> its tail's warning


def _rate(x: float, unit: str) -> str:
    if not math.isfinite(x):
        return "–"
    return f"{x:,.1f} {unit}/s" if x < 100 else f"{x:,.0f} {unit}/s"


class GeneratorsModel:
    """Runs and collections of the Generators tab (see the module docstring)."""

    def __init__(self, collections: CollectionStore | None, executor: Callable[[], object], gate=None,
                 colours=("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b")):
        self.collections = collections
        self.collection_problem = ""
        self._executor = executor
        self._gate = gate
        self._colours = list(colours)
        self.series: dict[str, GenSeries] = {}
        self.correct = True
        self._lock = threading.Lock()

    # ------------------------------------------------------------------ runs
    def colour_of(self, method: str) -> str:
        return self._colours[ROW_KEYS.index(method) % len(self._colours)] if method in ROW_KEYS else \
            self._colours[(len(ROW_KEYS) + sum(s.imported for s in self.series.values())) % len(self._colours)]

    def start(self, method: str, target: int, seed: int, grid_source: str | None = None, bands=None,
              mask: str | None = None, symmetry: str | None = None) -> GenSeries:
        """Start the generator of row ``method`` (ValueError on bad settings; a running one is left
        alone).  ``bands``: target difficulty ("W:3-5", ...); the "pattern" row makes puzzles on
        ``mask``, or minimal ones with ``symmetry`` when that is given."""
        s = self.series.get(method)
        if s is not None and s.live:
            return s
        job_method = method
        name = method
        if method == "pattern":
            job_method = "symmetry" if symmetry else "pattern"
            if symmetry:
                name = f"{symmetry} symmetry"
            else:
                from sudokustudio.sudoku.generate.pattern import parse_mask

                name = f"pattern ({int(parse_mask(mask or '').sum())} clues)"
        job, n_batches = build_job(job_method, target, grid_source=grid_source, bands=bands, mask=mask,
                                   symmetry=symmetry)
        if job.spec.get("bands"):
            from sudokustudio.sudoku.generate.bands import band_text

            name += f", {band_text(job.spec['bands'])}"
        rules = StopRules(batches=n_batches) if n_batches else StopRules(units=target)
        s = GenSeries(method, name, job_method, self.colour_of(method), target=target)
        if self.collections is not None:
            try:
                s.collection_id = self.collections.create(f"{name} seed {seed}", job_method, job.spec, seed)
            except CollectionError as e:
                self.collection_problem = str(e)
        run = Run(job, seed, rules, listener=lambda event, r, s=s: self._on_event(s, event, r))
        s.run = run
        self.series[method] = s
        run.start(self._executor(), self._gate)
        return s

    def _on_event(self, s: GenSeries, event: str, run: Run) -> None:
        """In the run's thread: commit each finished batch to the collection store."""
        if event != "batch" or self.collections is None or s.collection_id is None:
            return
        idx, res = run.last_batch
        if not res.count:
            return
        try:
            self.collections.add_batch(s.collection_id, idx, res.puzzles, res.weights, res.metrics)
        except CollectionError as e:
            self.collection_problem = f"{s.name}: puzzles not stored ({e})"

    def stop(self, method: str) -> None:
        s = self.series.get(method)
        if s is not None and s.run is not None:
            s.run.stop()

    def stop_all(self) -> None:
        for m in list(self.series):
            self.stop(m)

    def running(self, method: str) -> bool:
        s = self.series.get(method)
        return bool(s and s.live)

    def shutdown(self, deadline: float = 1.5) -> bool:
        self.stop_all()
        ok = True
        for s in self.series.values():
            if s.run is not None:
                ok = s.run.wait(deadline) and ok
        return ok

    def clear(self) -> None:
        self.stop_all()
        self.series = {k: s for k, s in self.series.items() if s.live}

    # ------------------------------------------------------------------ rows
    def row(self, method: str) -> RowState:
        s = self.series.get(method)
        if s is None or s.run is None:
            return RowState(0.0, "", "0", "–", "Start", "")
        snap = s.run.snapshot(history=False)
        res = snap.total
        secs = snap.session_seconds
        if method == "weighted-subsets":
            done, target, what = res.tries, s.target, "samples"   # subset samples: a grid and its random clue subsets
        else:
            done, target, what = res.count, s.target, "puzzles"
        button = {Status.STOPPING: "Stopping…"}.get(snap.status, "Stop" if s.live else "Start")
        rate = _rate(res.count / secs, "puzzles") if secs > 0 and res.count else "–"
        detail = f"{snap.status.value}; {res.count:,} puzzles in {secs:.1f} s this session"
        if method == "controlled-bias":
            tries_rate = res.tries / secs if secs > 0 else float("nan")
            detail = f"{res.tries:,} grids tried ({_rate(tries_rate, 'grids')}); " + detail
            if not res.count:    # ~257,000 grids a puzzle: show that it works before the first one
                rate = _rate(tries_rate, "grids") if res.tries else "starting…"
        if s.method in PATTERN_METHODS:
            tries_rate = res.tries / secs if secs > 0 else float("nan")
            per = f"{res.tries / res.count:,.1f} grids per puzzle" if res.count else "no puzzle yet"
            detail = f"{res.tries:,} grids tried, {per} ({_rate(tries_rate, 'grids')}); " + detail
            if not res.count:    # a hard pattern: show the grids tried before the first puzzle
                rate = _rate(tries_rate, "grids") if res.tries else "starting…"
        if res.rated:
            detail += f"; target difficulty: {res.rated:,} rated, {res.rejected:,} rejected"
        if snap.status is Status.QUEUED:
            rate = "preparing…"
        if snap.errors:
            detail += "\n" + "\n".join(snap.errors)
        short = f"{done:,} / {target:,}"
        fraction, text = min(1.0, done / max(1, target)), f"{short} {what}"
        if snap.waiting_for:   # the bar shows the kernels compiled meanwhile
            (fraction, text), short = preparing(s.run.job.kernel_groups), "preparing…"
        return RowState(fraction, text, f"{res.count:,}", rate, button, detail, short)

    # ------------------------------------------------------------------ imports and exports
    @staticmethod
    def guess_generator(path: str | Path) -> str:
        """Which generator made a file: the app's own CSV says so in its generator column."""
        p = Path(path)
        if p.suffix.lower() == ".csv":
            try:
                with p.open(encoding="utf-8", newline="") as fh:
                    reader = csv.reader(fh)
                    header = next(reader, [])
                    if "generator" in header:
                        i = header.index("generator")
                        row = next(reader, None)
                        if row and len(row) > i and row[i] in IMPORT_GENERATORS:
                            return row[i]
            except (OSError, UnicodeDecodeError, csv.Error):
                pass
        return "controlled-bias" if "controlled" in p.name.replace("_", "-") else "unknown"

    @staticmethod
    def read_collection(path: str | Path, generator: str, progress: Callable[[int, int], None] | None = None):
        """Read a collection and compute its missing fast difficulty metrics (slow: off the UI thread).

        ``progress(done, total)`` is called as the metrics are computed."""
        from sudokustudio.sudoku.difficulty import FAST_METRICS

        coll = import_collection(path, generator=generator)
        add_missing_metrics(coll, FAST_METRICS, progress)
        from sudokustudio.sudoku.canon import dedup

        coll.classes = int(len(dedup(coll.puzzles, threads=2)))
        return coll

    def add_collection(self, coll: Collection) -> GenSeries:
        key = f"import:{coll.source or coll.name}:{len(self.series)}"
        s = GenSeries(key, f"{coll.name} (imported)", coll.generator, self.colour_of(key),
                      result=GenResult(coll.puzzles, coll.weights, dict(coll.metrics)), imported=True,
                      source=coll.source)
        if self.collections is not None:
            try:
                s.collection_id = self.collections.add_collection(coll)
            except CollectionError as e:
                self.collection_problem = str(e)
        self.series[key] = s
        return s

    def exportable(self) -> list[GenSeries]:
        return [s for s in self.series.values() if s.current().count]

    def export(self, key: str, path: str | Path, seed="", one_per_class: bool = False) -> int:
        """Write a series to a file; ``one_per_class``: the first puzzle of each isomorphism class."""
        s = self.series[key]
        return export_puzzles(path, s.current(), generator=s.method, seed=seed if not s.imported else "",
                              one_per_class=one_per_class)

    @staticmethod
    def isomorph_text(coll) -> str:
        """What an import says about isomorphs: '' when not counted."""
        if coll.classes is None:
            return ""
        dup = len(coll) - coll.classes
        return f"; {coll.classes:,} isomorphism classes ({dup:,} isomorph{'s' if dup != 1 else ''})"

    # ------------------------------------------------------------------ what the tab draws
    def drawing(self, metric: str) -> GenDrawing:
        """Curves, note and table for the difficulty ``metric``: the statistics of every series
        (~10 ms with five generators running), so the tab asks for it from a worker thread."""
        series = list(self.series.values())
        curves = []
        for s in series:
            res = s.current()
            x, y = self.hist(s)
            if len(x):
                curves.append(SeriesCurves(s.key, s, (s.serial, res.count, res.tries, self.correct, metric), (x, y),
                                           self.metric_curve(s, metric)))
        # the table and its series from one look at the statistics: a run's first puzzles landing
        # between two looks gave the table a column more than its series (an IndexError in the tab)
        table, live = self._table(series)
        return GenDrawing(metric, self.correct, self.reference_hist(), curves, self.metric_note(metric),
                          self.metric_names(), table, live, self.tail_warnings(live))

    def tail_warnings(self, series: list[GenSeries]) -> dict[str, str]:
        """{series name: warning} for the weighted and corrected series whose figures cannot be
        trusted yet."""
        out = {}
        for s in series:
            if not self.corrected_shown(s):
                continue
            text = tail_warning(self.stats(s) or {})
            if text:
                out[s.name] = text
        return out

    def corrected_shown(self, s: GenSeries) -> bool:
        """Whether the series' corrected (or weighted) figures stand for it: always for the weighted
        sampler, for controlled-bias while the cf(n) correction is on."""
        return s.method == "weighted-subsets" or (s.method == "controlled-bias" and self.correct)

    # ------------------------------------------------------------------ statistics
    def stats(self, s: GenSeries) -> dict | None:
        """The clue and difficulty statistics of a series (cached until it changes)."""
        res = s.current()
        key = (res.count, res.tries, self.correct)
        cached = s._stats_cache
        if cached is not None and cached[0] == key:
            return cached[1]
        if not res.count and not (s.method == "weighted-subsets" and getattr(res, "extra", None)):
            d = None
        else:
            method = s.method if s.method in METHODS else "top-down"
            d = describe_result(method, res)
            if s.method == "weighted-subsets" and getattr(res, "extra", None):
                from sudokustudio.sudoku.generate import weighted_stats

                d.update(weighted_stats(res))
                d["corrected_mean"], d["corrected_sd"] = d["weighted_mean"], d["weighted_sd"]
            elif s.method == "weighted-subsets":  # imported with weights
                m = Moments.of(res.clues, res.weights)
                d["corrected_mean"], d["corrected_sd"] = m.mean, m.sd
        s._stats_cache = (key, d)
        return d

    def hist(self, s: GenSeries) -> tuple[np.ndarray, np.ndarray]:
        """(clue counts, fraction of puzzles), corrected by cf(n) for controlled-bias when asked."""
        res = s.current()
        if s.method == "weighted-subsets" and getattr(res, "extra", None):
            h = res.extra["whist"]
        elif s.method == "weighted-subsets":
            h = res.whist()
        else:
            h = res.hist().astype(float)
            if s.method == "controlled-bias" and self.correct:
                h = h * CF
        tot = h.sum()
        x = np.arange(82)
        if tot <= 0:
            return x[:0], h[:0]
        nz = np.nonzero(h)[0]
        lo, hi = max(0, nz.min() - 1), min(81, nz.max() + 1)
        return x[lo:hi + 1], (h / tot)[lo:hi + 1]

    def reference_hist(self) -> tuple[np.ndarray, np.ndarray]:
        """Seed 002's controlled-bias sample (raw, or corrected by cf(n))."""
        ref = np.zeros(82)
        for n, k in PUBLISHED_CB_HIST.items():
            ref[n] = k
        if self.correct:
            ref = ref * CF
        ref /= ref.sum()
        return np.arange(19, 34), ref[19:34]

    def metric_names(self) -> list[str]:
        names = []
        for s in self.series.values():
            for k in s.current().metrics:
                if k not in names:
                    names.append(k)
        return names

    def metric_curve(self, s: GenSeries, metric: str) -> tuple[np.ndarray, np.ndarray]:
        """Mean of ``metric`` per clue count (clue counts with 5+ puzzles)."""
        res = s.current()
        vals = res.metrics.get(metric)
        if vals is None or len(vals) != res.count or not res.count:
            return np.zeros(0), np.zeros(0)
        clues = res.clues
        ns, counts = np.unique(clues, return_counts=True)
        means = np.array([np.nanmean(vals[clues == n]) if np.isfinite(vals[clues == n]).any() else np.nan
                          for n in ns])
        keep = (counts >= 5) & np.isfinite(means)     # per-clue means of tiny groups are noise
        return ns[keep], means[keep]

    def metric_note(self, metric: str) -> str:
        """Why the difficulty plot is empty, when it is."""
        have = [s for s in self.series.values() if metric in s.current().metrics and s.current().count]
        if have:
            return ""
        if metric == "W":
            return ("No W-rating yet: the W-rating (~10 ms a puzzle) is computed for controlled-bias puzzles "
                    "only; rate any collection with Tools → Rate puzzles… (Ctrl+Shift+R).")
        return f"No puzzle with a {METRIC_TITLES.get(metric, metric)} yet: start a generator or import a collection."

    def table(self, series: list[GenSeries] | None = None) -> tuple[list[str], list[str], list[list[str]], list[str]]:
        """(row names, column headers, cells[row][col], column kinds 'live'|'imported'|'published')
        of ``series`` (default: all)."""
        return self._table(self.series.values() if series is None else series)[0]

    def _table(self, series) -> tuple[tuple, list[GenSeries]]:
        """:meth:`table` and the series with statistics, its first columns in order."""
        looked = [(s, self.stats(s)) for s in series]
        live = [s for s, d in looked if d is not None]
        stats_of = {s.key: d for s, d in looked}
        pub_cols = [("seed 002 top-down", PUBLISHED["top-down"]), ("seed 002 bottom-up", PUBLISHED["bottom-up"]),
                    ("seed 002 c-bias", PUBLISHED["controlled-bias"]), ("seed 002 real", PUBLISHED["real"])]
        metric_names = []
        for s in live:
            for k in s.current().metrics:
                if k not in metric_names:
                    metric_names.append(k)
        rows = ["puzzles", "rate (/s)", "mean clues", "  standard error", "sd", "skewness", "excess kurtosis",
                "corrected/weighted mean", "  standard error ", "corrected/weighted sd", SHARES_ROW, TAIL_ROW,
                "grids per puzzle"]
        rows += [f"mean {METRIC_TITLES.get(k, k)}" for k in metric_names]
        cols, kinds, cells = [], [], [[] for _ in rows]
        for s in live:
            d = stats_of[s.key]
            res = s.current()
            secs = s.run.snapshot(history=False).session_seconds if s.run is not None else 0.0
            rate = res.count / secs if secs > 0 else float("nan")
            corr = s.method in ("controlled-bias", "weighted-subsets")
            use_corr = self.corrected_shown(s)
            cse = d.get("corrected_mean_se", d.get("weighted_mean_se"))
            vals = [f"{res.count:,}", _f(rate, 1) if not s.imported else "",
                    _f(d["mean"], 3), "±" + _f(d.get("mean_se"), 3), _f(d["sd"], 3), _f(d["skew"], 3),
                    _f(d["kurt"], 3), _f(d.get("corrected_mean"), 3) if corr else "",
                    ("±" + _f(cse, 3)) if corr and cse is not None else "",
                    _f(d.get("corrected_sd"), 3) if corr else "",
                    _largest_z(d.get("seed002_z"), d.get("seed002_untested")),
                    _tail_cell(d.get("tail")) if use_corr else "",
                    f"{d['tries_per_puzzle']:,.0f}" if s.method == "controlled-bias" and d.get("tries_per_puzzle")
                    else ""]
            for k in metric_names:
                m = d.get("difficulty", {}).get(k)
                vals.append("" if m is None else _f(m.get("corrected_mean", m["mean"]) if use_corr else m["mean"], 3))
            for i, v in enumerate(vals):
                cells[i].append(v)
            cols.append(s.name)
            kinds.append("imported" if s.imported else "live")
        for name, p in pub_cols:
            vals = {"mean clues": _f(p["mean"], 3), "sd": _f(p["sd"], 3), "skewness": _f(p["skew"], 3),
                    "excess kurtosis": _f(p["kurt"], 3)}
            if "real" in name:
                vals = {"corrected/weighted mean": _f(p["mean"], 3), "corrected/weighted sd": _f(p["sd"], 3),
                        "skewness": "~0", "excess kurtosis": "~0"}
            if "c-bias" in name:
                vals["grids per puzzle"] = "~257,000"
                vals["puzzles"] = "5,926,343"
            for i, r in enumerate(rows):
                cells[i].append(vals.get(r, ""))
            cols.append(name)
            kinds.append("published")
        return (rows, cols, cells, kinds), live


#: the table's row of the weighted sampler's clue shares against seed 002's real distribution
SHARES_ROW = "shares vs seed 002 real (max |z|)"


#: the table's row of the corrected and weighted figures' tail diagnostics (core.stats.class_tail_diagnostics)
TAIL_ROW = "corrected/weighted tail (ESS)"


def _tail_cell(t: dict | None) -> str:
    """'2,431' or '46: untrusted' ('' without diagnostics); the reasons, with the under-sampled
    classes, are the cell's tooltip (:meth:`GeneratorsModel.tail_warnings`), not its text, which
    would widen its column several times over."""
    if not t:
        return ""
    return f"{t['ess']:,.0f}" + (": untrusted" if t["warning"] else "")


def _largest_z(z: dict | None, untested=()) -> str:
    """'1.17 (c = 21)': the clue count whose share is furthest from seed 002's, in combined SEs
    (', 2 untested': classes seen in too few samples to test)."""
    few = f"{len(untested)} untested" if untested else ""
    if not z:
        return few
    c = max(z, key=lambda k: abs(z[k]))
    return f"{abs(z[c]):.2f} (c = {c})" + (f", {few}" if few else "")


def _f(v, digits: int) -> str:
    if v is None:
        return ""
    try:
        v = float(v)
    except (TypeError, ValueError):
        return str(v)
    return "–" if math.isnan(v) else f"{v:.{digits}f}"
