"""The Estimator tab's model: Monte Carlo counting runs, Qt-free.

It builds jobs from the tab's parameters, starts, stops and resumes runs
(jobs.run.Run), lists the stored runs with their true status (a run of this
session shows its live state; one left "running" by a process that is gone
shows "interrupted"), keeps which runs are drawn, and turns snapshots into
what the tab draws: plot series, the per-c table, the text of the panel, and
exports.  The tab only collects parameters, calls this, and draws.
"""
from __future__ import annotations

import csv
import json
import math
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Callable

from sudokustudio.core.durations import duration_text
from sudokustudio.core.stats import TAIL_MAX_SHARE, TAIL_MIN_ESS
from sudokustudio.jobs.run import Run, Snapshot, Status, StopRules
from sudokustudio.jobs.store import RunInfo, RunStore, StoreError
from sudokustudio.kernels import preparing
from sudokustudio.sudoku import estimate as E

COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2"]
GRIDS, MINIMALS = "grids", "minimals"
BEST = "best"     # the minimal-count method that is a plan of subsets: MinimalsJob.best
TOTAL = "total"   # the RE plot's focus for a plan: the total, not one clue count
KIND_OF = {GRIDS: E.GridCountJob.kind, MINIMALS: E.MinimalsJob.kind}


@dataclass(frozen=True)
class EstimatorParams:
    """What the tab's controls say."""

    what: str = GRIDS                 # grids | minimals
    box: str = "3x3"
    grid_method: str = "rows"
    minimal_method: str = "subsets"
    s: int = 30
    c: int = 25
    grid_source: str = "weighted"
    seed: int = 1

    def job(self):
        """The job these parameters describe (ValueError on a bad combination)."""
        if self.what == GRIDS:
            return E.GridCountJob(self.box, self.grid_method)
        m = self.minimal_method
        if m == BEST:
            return E.MinimalsJob.best(self.grid_source)
        kw: dict = dict(method=m, grid_source=self.grid_source)
        if m in ("subsets", "supersets"):
            kw["s"] = self.s
        if m == "singletons":
            kw.update(c_lo=self.c, c_hi=self.c)
        if m == "supersets":
            kw["c_hi"] = self.c
        return E.MinimalsJob(**kw)


def what_of(job) -> str:
    return GRIDS if isinstance(job, E.GridCountJob) else MINIMALS


def job_label(job, run_id: int | None = None) -> str:
    rid = f"#{run_id} " if run_id is not None else ""
    if isinstance(job, E.GridCountJob):
        return f"{rid}{job.box} {job.method}"
    if is_best_plan(job.spec):
        return f"{rid}best combination{' (biased)' if job.biased else ''}"
    extra = f" s={sizes_text(job.s_mix, job.spec.get('min_clues'))}" if job.method in ("subsets", "supersets") else ""
    return f"{rid}{job.method}{extra}{' (biased)' if job.biased else ''}"


def sizes_text(s, floors=None) -> str:
    """'30' or '29,31' (a mixture) or '30,31≥28,33≥29' (a plan: each size with its floor)."""
    sizes = list(s) if isinstance(s, (list, tuple)) else [s]
    floors = list(floors) if floors else [0] * len(sizes)
    return ",".join(f"{n}≥{f}" if f else f"{n}" for n, f in zip(sizes, floors))


@lru_cache(maxsize=1)
def _best_spec() -> tuple:
    return tuple((k, v) for k, v in E.MinimalsJob.best().spec.items() if k != "grid_source")


def is_best_plan(spec: dict) -> bool:
    """Whether a minimal-count spec is the best combination's plan (either grid source): its
    label says "best combination", not its sizes and floors (which overran the plots' legends)."""
    return all(spec.get(k) == v for k, v in _best_spec())


def spec_label(kind: str, spec: dict) -> str:
    """The label of a stored run from its spec (no job built: cheap for long lists)."""
    if kind == E.GridCountJob.kind:
        return f"{spec.get('box')} {spec.get('method')}"
    if is_best_plan(spec):
        return "best combination" + (" BIASED" if spec.get("grid_source") == "random" else "")
    text = str(spec.get("method"))
    if spec.get("method") in ("subsets", "supersets"):
        text += f" s={sizes_text(spec.get('s'), spec.get('min_clues'))}"
    return text + (" BIASED" if spec.get("grid_source") == "random" else "")


@dataclass
class RunView:
    """A run on screen: the run, its colour, and whether it is drawn."""

    run: Run
    colour: str
    shown: bool = True

    @property
    def run_id(self) -> int | None:
        return self.run.run_id

    @property
    def what(self) -> str:
        return what_of(self.run.job)

    def label(self) -> str:
        return job_label(self.run.job, self.run_id)


@dataclass(frozen=True)
class RunRow:
    """One line of the run list."""

    run_id: int
    text: str
    tooltip: str
    status: str
    shown: bool
    colour: str | None


def _share_text(frac: float) -> str:
    """A share in per cent with two significant figures below 10 % ('0.33%', '4.1%', '57%')."""
    pct = 100 * frac
    return f"{pct:.2g}%" if pct < 10 else f"{pct:.0f}%"


@dataclass(frozen=True)
class Panel:
    """The left panel's text for one run."""

    headline: str
    lines: list[str]
    progress: float             # 0..1 towards the target RE
    running: bool
    warning: str = ""
    progress_text: str = ""     # the bar's words: the RE, the target and the share done


@dataclass(frozen=True)
class Series:
    label: str
    colour: str
    x: list = field(default_factory=list)
    y: list = field(default_factory=list)
    se: list = field(default_factory=list)     # standard errors of y (plots draw ±2 se)


def tail_line(t: dict) -> str:
    """'tail: ESS 1234 · largest sample 0.8% of the sum' (tail diagnostics, core.stats)."""
    share = t["max_share"]
    return (f"tail: ESS {t['ess']:,.4g} · largest sample "
            f"{'?' if share != share else f'{100 * share:.2g}%'} of the sum")


def tail_warning_text(t: dict, what: str) -> str:
    """The warning shown while the RE of ``what`` cannot be trusted ('' otherwise)."""
    if not t["warning"]:
        return ""
    return (f"Heavy tail: the RE of {what} cannot be trusted yet (ESS {t['ess']:.3g} < {TAIL_MIN_ESS:g} "
            f"or one sample > {100 * TAIL_MAX_SHARE:g}% of the sum); run longer or use a better sampler.")


class EstimatorModel:
    """Runs of the Estimator tab (see the module docstring)."""

    def __init__(self, store: RunStore | None, executor: Callable[[], object], gate=None):
        self.store = store
        self._executor = executor
        self._gate = gate
        self.live: RunView | None = None
        self.views: list[RunView] = []       # every run this model has shown: started or opened
        self._colour_i = 0

    # ------------------------------------------------------------------ runs
    def _colour(self) -> str:
        c = COLOURS[self._colour_i % len(COLOURS)]
        self._colour_i += 1
        return c

    @property
    def busy(self) -> bool:
        return self.live is not None and not self.live.run.finished

    def start(self, params: EstimatorParams, listener=None) -> RunView:
        """A new run with these parameters (ValueError: bad parameters, or a run is going)."""
        if self.busy:
            raise ValueError("A run is going: pause or stop it first.")
        job = params.job()
        run = Run(job, params.seed, StopRules(), store=self.store, listener=listener)
        view = RunView(run, self._colour())
        self.views.append(view)
        self.live = view
        run.start(self._executor(), self._gate)
        return view

    def stop(self) -> None:
        if self.live is not None:
            self.live.run.stop()

    def resume(self, view: RunView, listener=None) -> None:
        """Continue a stopped, finished or interrupted run (ValueError if not possible now)."""
        if self.busy and self.live is not view:
            raise ValueError("A run is going: pause or stop it first.")
        if not view.run.finished:
            return
        if view.run.live_elsewhere:
            raise ValueError(f"Run #{view.run_id} is running in another window or process.")
        if listener is not None:
            view.run.listener = listener
        view.shown = True
        self.live = view
        view.run.start(self._executor(), self._gate)

    def open_run(self, run_id: int) -> Run:
        """A stored run with its history (replays every batch: call it off the UI thread)."""
        if self.store is None:
            raise StoreError("runs are not stored in this session")
        return Run.open(self.store, run_id)

    def add_opened(self, run: Run) -> RunView:
        view = self.view_of(run.run_id)
        if view is None:
            view = RunView(run, self._colour())
            self.views.append(view)
        return view

    def view_of(self, run_id: int | None) -> RunView | None:
        """The view of a run (ids come from the run's own thread once it has saved its record)."""
        if run_id is None:
            return None
        return next((v for v in self.views if v.run_id == run_id), None)

    def delete(self, run_id: int) -> None:
        view = self.view_of(run_id)
        if view is not None and not view.run.finished:
            raise ValueError("Stop the run before deleting it.")
        if self.store is not None:
            self.store.delete_run(run_id)
        self.forget(run_id)

    def forget(self, run_id: int) -> None:
        """Drop a deleted run's view (the UI thread's half of a delete done in the background)."""
        self.views = [v for v in self.views if v.run_id != run_id]
        if self.live is not None and self.live.run_id == run_id:
            self.live = None

    def shutdown(self, deadline: float = 1.5) -> bool:
        """Stop the live run and wait for it at most ``deadline`` seconds (its finished batches are saved)."""
        if self.live is None:
            return True
        self.live.run.stop()
        return self.live.run.wait(deadline)

    # ------------------------------------------------------------------ the run list
    def run_rows(self, what: str) -> list[RunRow]:
        """Stored runs of one kind, newest first, with the live state of this session's runs."""
        if self.store is None:
            return []
        rows = []
        for info in self.store.runs(KIND_OF[what]):
            view = self.view_of(info.id)
            rows.append(self._row(info, view))
        return rows

    def _row(self, info: RunInfo, view: RunView | None) -> RunRow:
        batches, status = info.batches, info.status
        if view is not None:
            snap = view.run.snapshot(history=False)
            batches, status = snap.batches, snap.status.value
        text = f"#{info.id}  {spec_label(info.kind, info.spec)}  {batches:,} batches, {status}"
        tip = (f"run {info.id}: seed {info.seed}, {status}; spec {json.dumps(info.spec)}"
               + (f"\nlast error: {info.error}" if info.error else ""))
        return RunRow(info.id, text, tip, status, bool(view and view.shown), view.colour if view else None)

    def shown_views(self, what: str) -> list[RunView]:
        """The runs drawn on the plots of one kind (the live one last)."""
        out = [v for v in self.views if v.what == what and (v.shown or v is self.live)]
        return sorted(out, key=lambda v: (v is self.live, v.run_id or 0))

    # ------------------------------------------------------------------ the panel
    def panel(self, view: RunView | None, target_re: float) -> Panel | None:
        """The text of the left panel for ``view`` (the selected or live run)."""
        if view is None:
            return None
        snap = view.run.snapshot(history=False)
        job = view.run.job
        state = {Status.STOPPING: "stopping…", Status.QUEUED: preparing(job.kernel_groups)[1]
                 if snap.waiting_for else "starting…"}.get(snap.status, snap.status.value)
        tail_warning = ""
        if snap.units == 0:
            headline = "no samples yet"
            extra = []
        elif isinstance(job, E.GridCountJob):
            d = job.describe(snap.total)
            ref, _ = E.grid_reference(job.box)
            lo, hi = d["ci95"]
            headline = f"{d['estimate']:.6g}  ± {100 * d['rel_err']:.3g}%"
            extra = [f"95% CI [{lo:.5g}, {hi:.5g}]",
                     f"estimate ÷ reference {d['estimate'] / ref:.5f} (z {d['z']:+.2f})" if ref else
                     f"no published count · log10 {d['log10_estimate']:.4f}",
                     f"RAT {d['rat']:.4f} · EFF {d['eff']:.3g} · {d['hits']:,} non-zero", tail_line(d["tail"])]
            tail_warning = tail_warning_text(d["tail"], "the estimate")
        else:
            per_c = job.per_c(snap.total)
            c = job.focus_c(per_c)
            if c is None:
                headline, extra = "no minimal puzzle found yet", []
            else:
                at_c = f"c={c}: {per_c[c]['estimate']:.4e} per grid ± {100 * per_c[c]['rel_err']:.3g}%"
                source = ("grid source BIASED (randomized solver)" if job.biased else
                          "grids: weighted sequential sampler (unbiased)")
                tot = job.total(snap.total)
                if tot is not None and job.is_plan:   # a plan is made for the total: it heads the panel
                    lo, hi = tot["c_range"]
                    headline = f"total: {tot['estimate']:.4e} per grid ± {100 * tot['rel_err']:.3g}%"
                    extra = [source, f"c={lo}..{hi}, {tail_line(tot['tail'])}", at_c]
                else:
                    headline = at_c
                    extra = [source, tail_line(per_c[c]["tail"])]
                    if tot is not None:
                        extra.append(f"total c={tot['c_range'][0]}..{tot['c_range'][1]}: {tot['estimate']:.5e} "
                                     f"per grid ± {100 * tot['rel_err']:.3g}%")
                bad_c = sorted(k for k, v in per_c.items() if v["tail"]["warning"])
                bad = [f"c = {', '.join(map(str, bad_c))}"] if bad_c else []
                if tot is not None and tot["tail"]["warning"]:
                    bad.append("the total")
                if bad:
                    tail_warning = (f"Heavy tail: the RE cannot be trusted yet at {' and '.join(bad)} "
                                    f"(ESS < {TAIL_MIN_ESS:g} or one grid > {100 * TAIL_MAX_SHARE:g}% "
                                    "of the sum)")
        rate = f"{snap.rate:,.0f}/s" if math.isfinite(snap.rate) else "–"
        eta = view.run.eta_for_rel_err(target_re)
        re = snap.rel_err
        if re is not None and re <= target_re:
            eta_text, frac = "reached", 1.0
            bar = f"RE {100 * re:.3g}% ≤ {100 * target_re:.3g}%: reached"
        else:
            eta_text = duration_text(eta) if not view.run.finished else f"{duration_text(eta)} (when resumed)"
            # the share of the samples the target needs that are done (the RE falls as 1/sqrt of
            # them), so the bar moves with the ETA; on a log scale it read 53 % with 4 h 51 min to go
            frac = (target_re / re) ** 2 if re else 0.0
            # the RE beside the share: '0%' alone read as a broken bar a long way from the target
            bar = (f"RE {100 * re:.3g}% → {100 * target_re:.3g}%: {_share_text(frac)} done" if re else
                   f"RE target {100 * target_re:.3g}%: no estimate yet")
        lines = [f"{view.label()} — {state}",
                 f"{snap.units:,} {snap.unit} · {rate} this session · elapsed {duration_text(snap.elapsed)}",
                 f"ETA to RE {100 * target_re:.3g}%: {eta_text}", *extra]
        warning = "\n".join(x for x in (tail_warning, snap.store_problem, *snap.errors) if x)
        return Panel(headline, lines, frac, not view.run.finished, warning, bar)

    # ------------------------------------------------------------------ plots
    def grid_series(self, views: list[RunView]) -> tuple[str, list[Series], list[Series], tuple | None]:
        """(title, estimate/reference series with ±2σ bands, RE series, RE guide anchor) for one box shape."""
        box = views[-1].run.job.box if views else "3x3"
        ref, exact = E.grid_reference(box)
        if ref is None:       # no published count: relative to this run's own latest estimate
            last = views[-1].run.snapshot().history if views else []
            ref = last[-1]["estimate"] if last and last[-1]["estimate"] > 0 else 1.0
            title = f"{box} boxes: running estimate ÷ latest {ref:.5g}  (no published count; band ±2σ)"
        else:
            kind = "exact" if exact else "published estimate"
            title = f"{box} boxes: running estimate ÷ {kind} {ref:.5g}  (band ±2σ)"
        if len({v.run.job.box for v in views}) > 1:
            title = f"{box} boxes (other box shapes ticked are not drawn)"
        conv, rel, guide = [], [], None
        for v in views:
            if v.run.job.box != box:
                continue
            h = v.run.snapshot().history
            t = [p["cpu_seconds"] for p in h]
            conv.append(Series(v.label(), v.colour, t, [p["estimate"] / ref for p in h],
                               [p["se"] / ref for p in h]))
            rel.append(Series(v.label(), v.colour, t, [p["rel_err"] for p in h]))
            if h:
                guide = (h[-1]["cpu_seconds"], h[-1]["rel_err"])
        return title, conv, rel, guide

    def minimal_series(self, views: list[RunView]) -> tuple[int | str, list, list[Series], tuple | None]:
        """(clue count in focus, or TOTAL when the newest run is a plan, bars [(label, colour,
        {c: (estimate, se)})], RE series at that c or of the total, guide)."""
        newest = [v for v in views if v.run.snapshot(history=False).units]
        c_focus: int | str = 24
        if newest:
            job = newest[-1].run.job
            c_focus = TOTAL if job.is_plan else job.focus_c(job.per_c(newest[-1].run.total)) or 24
        bars, rel, guide = [], [], None
        for v in views:
            h = v.run.snapshot().history
            if not h:
                continue
            per_c = h[-1]["per_c"]
            bars.append((v.label(), v.colour, {c: (d["estimate"], d["se"]) for c, d in per_c.items()}))
            if c_focus == TOTAL:
                pts = [(p["cpu_seconds"], p["total"]["rel_err"]) for p in h if p.get("total")]
            else:
                pts = [(p["cpu_seconds"], p["per_c"][c_focus]["rel_err"]) for p in h if c_focus in p["per_c"]]
            rel.append(Series(v.label(), v.colour, [a for a, _ in pts], [b for _, b in pts]))
            if pts:
                guide = pts[-1]
        return c_focus, bars, rel, guide

    TABLE_HEADER = ["c", "found", "per grid", "RE", "tail", "Afmob 2015", "Berthier 2009", "seed 000 (10 min)",
                    "÷ Afmob"]

    @staticmethod
    def minimal_table(view: RunView | None) -> list[list[str]]:
        """Rows of the per-c table (``TABLE_HEADER``), then the total: the run's figures beside
        Afmob's, Berthier's and seed 000's ten-minute run (E.PUBLISHED_MINIMALS, 9x9 only); tail
        "CHECK" flags an RE that cannot be trusted yet."""
        if view is None or not isinstance(view.run.job, E.MinimalsJob):
            return []
        job = view.run.job
        per_c = job.per_c(view.run.total)
        nine = job.box == "3x3"

        def pub(who, c):
            src = E.PUBLISHED_TOTALS if c == "all" else E.PUBLISHED_MINIMALS[who]
            v = src.get(who) if c == "all" else src.get(c)
            return v if nine else None

        def cell(v):
            return f"{v[0]:.4e} ({100 * v[1]:.2g}%)" if v else "–"

        rows = []
        for c in sorted(per_c):
            d = per_c[c]
            a, b = pub("afmob", c), pub("berthier", c)
            rows.append([str(c), f"{d['found']:,}", f"{d['estimate']:.4e}", f"{100 * d['rel_err']:.2f}%",
                         "CHECK" if d["tail"]["warning"] else "ok", cell(a), cell(b), cell(pub("seed000", c)),
                         f"{d['estimate'] / a[0]:.4f}" if a else "–"])
        tot = job.total(view.run.total)
        if tot is not None:
            lo, hi = tot["c_range"]
            rows.append([f"{lo}..{hi}", f"{sum(d['found'] for d in per_c.values()):,}", f"{tot['estimate']:.4e}",
                         f"{100 * tot['rel_err']:.2f}%", "CHECK" if tot["tail"]["warning"] else "ok", "–",
                         cell(pub("berthier", "all")) if job.total_is_comparable else "–", "–", "–"])
        return rows

    # ------------------------------------------------------------------ export
    @staticmethod
    def export(view: RunView, path: str | Path) -> None:
        """CSV (history for grids, the per-c table for minimals) or JSON (spec, seed, summary, history).
        Numbers are written as plain numbers."""
        p = Path(path)
        run = view.run
        snap: Snapshot = run.snapshot()
        job = run.job
        if p.suffix.lower() == ".md":     # the record table (sudoku.estimate.report)
            from sudokustudio.sudoku.estimate.report import report_rows, to_markdown

            p.write_text(to_markdown(report_rows(job, snap.total, run.seed)), encoding="utf-8")
            return
        if p.suffix.lower() == ".json":
            doc = {"run_id": run.run_id, "kind": job.kind, "spec": job.spec, "seed": run.seed,
                   "status": snap.status.value, "summary": job.describe(snap.total),
                   "history": [_plain_numbers(h) for h in snap.history]}
            p.write_text(json.dumps(_plain_numbers(doc), indent=1))
            return
        with p.open("w", newline="", encoding="utf-8") as fh:
            w = csv.writer(fh)
            if isinstance(job, E.GridCountJob):
                w.writerow(["cpu_seconds", "samples", "estimate", "se", "rel_err"])
                for h in snap.history:
                    w.writerow([_num(h["cpu_seconds"]), h["units"], _num(h["estimate"]), _num(h["se"]),
                                _num(h["rel_err"])])
            else:
                w.writerow(["c", "found", "estimate_per_grid", "se", "rel_err"])
                per_c = job.per_c(snap.total)
                for c in sorted(per_c):
                    d = per_c[c]
                    w.writerow([c, d["found"], _num(d["estimate"]), _num(d["se"]), _num(d["rel_err"])])


def _num(x) -> str:
    """A number as text a spreadsheet reads: repr of a Python float (no numpy type names)."""
    x = float(x)
    return repr(x) if math.isfinite(x) else ""


def _plain_numbers(obj):
    """numpy scalars and arrays in a JSON document become Python numbers and lists."""
    import numpy as np

    if isinstance(obj, dict):
        return {str(k): _plain_numbers(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_plain_numbers(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    return obj
