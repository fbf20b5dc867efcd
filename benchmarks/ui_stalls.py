"""How the window holds up while each kind of job runs: UI-thread stalls, Stop, and closing.

    python3 benchmarks/ui_stalls.py [--seconds 5] [--kinds estimator-grids,generators,...] [--json]
                                    [--atlas-size 2x10] [--atlas-sort 2] [--to-end]

Opens the real main window (offscreen), and for each job kind shows its tab for
1.5 s (a user reading the form; the window loads the tab's kernels meanwhile),
starts the job the way a user does (through the tab), then for ``--seconds`` measures the UI thread
with a 10 ms QTimer: the longest gap between two ticks beyond the 10 ms
(the longest stall) and the 99th percentile; then presses Stop and times how
long the run takes to end (Stop -> finished) while still measuring stalls.
Last, every kind is started at once and the window is closed: the time
closeEvent takes.  Kernels must be in numba's cache (``sudokustudio-cli warm``
first), so compiling is not measured here (benchmarks/startup.py does that).
``--atlas-size`` chooses the survo-atlas kind's size (default 4x4); ``--to-end``
lets each run go on until it ends by itself (at most ``--seconds``) and reports
its wall time in the window and, for the atlas, the seconds spent merging,
summarising and refreshing the view (where the time goes).
Prints one line per kind, and with --json one JSON object.
"""
from __future__ import annotations

import argparse
import functools
import json
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
DATA = REPO.parent / "shared" / "data"

KINDS = ["estimator-grids", "estimator-minimals", "estimator-best", "estimator-tail", "generators", "rating",
         "survo-atlas", "ua-harvest", "ua-search", "ua-search-17", "survo-generate"]
#: issue 20's grid: at k = 17 its first batch ran for over ten minutes before cancel polled inside the kernel
GRID_17 = "468931527751624839392578461134756298289413675675289314846192753513867942927345186"
#: started together before the window is closed (one UA kind: the tab holds one run at a time)
CLOSE_KINDS = ["estimator-grids", "generators", "rating", "survo-atlas", "ua-search-17", "survo-generate"]
#: the survo-atlas kind's size (--atlas-size) and the list column sorted while it runs (--atlas-sort)
ATLAS_SIZE = [(4, 4)]
ATLAS_SORT = [0]


class StallMeter:
    """Ticks of a 10 ms QTimer; stalls are the gaps beyond 10 ms."""

    def __init__(self, app):
        from PySide6.QtCore import QTimer

        self.app = app
        self.ticks: list[float] = []
        self.timer = QTimer(interval=10, timeout=lambda: self.ticks.append(time.perf_counter()))
        self.timer.start()

    def pump(self, seconds: float, until=None) -> float:
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            self.app.processEvents()
            if until is not None and until():
                break
            time.sleep(0.001)
        return time.perf_counter()

    def reset(self) -> None:
        self.ticks = [time.perf_counter()]

    def stats(self) -> dict:
        import numpy as np

        # a tick's lateness past the 10-ms timer; a tick early (Qt may fire a coarse timer a little
        # before its time) is no stall, not a negative one
        gaps = np.maximum(np.diff(np.array(self.ticks)) * 1000 - 10, 0) if len(self.ticks) > 1 else np.zeros(1)
        over = np.nonzero(gaps > 100)[0]
        return {"stalls_over_100ms_at": [[round(self.ticks[i] - self.ticks[0], 2), round(float(gaps[i]))]
                                         for i in over[:20]],
                "max_stall_ms": round(float(gaps.max()), 1), "p99_stall_ms": round(float(np.percentile(gaps, 99)), 1),
                "stalls_over_100ms": int((gaps > 100).sum()), "ticks": len(self.ticks)}


def _window():
    from PySide6.QtCore import QSettings

    from sudokustudio.ui.main_window import DEFAULT_SIZE, MainWindow

    folder = tempfile.mkdtemp()
    os.environ["SUDOKUSTUDIO_DATA"] = folder
    win = MainWindow(settings=QSettings(os.path.join(folder, "s.ini"), QSettings.IniFormat))
    # a first start fits the window to the screen (offscreen: 800x800); stalls are measured at the
    # full default size, as before that, so that figures stay comparable
    win.resize(DEFAULT_SIZE)
    win.show()
    return win


def settle(win, meter: StallMeter) -> None:
    """Wait for the window's start-up work: kernels ready, and the tabs' background calls
    (e.g. the Survo tab solving its example) done, so they are not counted as the first kind's."""
    from sudokustudio.ui.background import BackgroundCalls

    meter.pump(3, until=lambda: win.kernels_settled())
    meter.pump(10, until=lambda: not any(c.busy() for c in win.findChildren(BackgroundCalls)))


def _tab(win, cls_name):
    for i in range(win.tabs.count()):
        if type(win.tabs.widget(i)).__name__ == cls_name:
            win.tabs.setCurrentIndex(i)
            return win.tabs.widget(i)
    raise LookupError(cls_name)


@functools.lru_cache(maxsize=None)
def _puzzles(name: str):
    """A data file's puzzles, read once before the measurement (the window reads files off its UI thread)."""
    from sudokustudio.sudoku.grid import read_puzzles

    return read_puzzles(DATA / name).puzzles


def prepare(kind: str) -> None:
    """Read what ``start_kind`` hands the window, outside the measured time."""
    if kind == "rating":
        _puzzles("controlled_bias/001-puzzles.txt")
    elif kind in ("ua-harvest", "ua-search"):
        _ua_grid()


@functools.lru_cache(maxsize=None)
def _ua_grid():
    """The solution grid the UA kinds harvest (solved before the measurement: the window
    solves off its UI thread, and the solver's first call loads it from numba's cache)."""
    from sudokustudio.sudoku.solver import solve

    return solve(_puzzles("puzzles2_17_clue")[40000])


#: the tab a kind is started from (rating: the Tools menu's dialog)
KIND_TABS = {"estimator": "EstimatorTab", "generators": "GeneratorsTab", "survo": "SurvoTab", "ua": "UATab"}


def show_kind_tab(win, kind: str) -> None:
    """The kind's tab, its form filled in (what a user does before pressing Start)."""
    from sudokustudio.sudoku import estimate as E

    if kind == "rating":
        win.rate_puzzles()
        return
    tab = _tab(win, KIND_TABS[kind.split("-")[0]])
    if kind == "estimator-grids":
        tab.what.setCurrentIndex(0)
        tab.box.setCurrentIndex(E.BOX_SHAPES.index("3x3"))
        tab.gmethod.setCurrentIndex(E.GRID_METHODS.index("rows"))
    elif kind == "estimator-minimals":
        tab.what.setCurrentIndex(1)
        tab.mmethod.setCurrentIndex(tab.mmethod.findData("subsets"))
    elif kind == "estimator-best":     # the tab's default: the plan (supersets probes of ~0.2 ms)
        tab.what.setCurrentIndex(1)
        tab.mmethod.setCurrentIndex(tab.mmethod.findData("best"))
    elif kind == "estimator-tail":     # supersets: the tab's defaults are the record design for c = 29..31
        tab.what.setCurrentIndex(1)
        tab.mmethod.setCurrentIndex(tab.mmethod.findData("supersets"))


def start_kind(win, kind: str, meter: StallMeter):
    """Start one job kind through its tab; returns (runs to watch, a function that presses Stop)."""
    if kind.startswith("estimator"):
        show_kind_tab(win, kind)   # already shown and filled in when measure() calls this
        tab = _tab(win, "EstimatorTab")
        view = tab.start_run()
        return [view.run], tab.stop_run
    if kind == "generators":
        tab = _tab(win, "GeneratorsTab")
        for m in tab.rows:
            tab.rows[m]["target"].setValue(10_000_000)
        tab.start_all()
        return [s.run for s in tab.series.values() if s.run is not None], tab.stop_all
    if kind == "rating":
        win.rate_puzzles()
        dlg = win.rate_dialog
        dlg.set_puzzles(_puzzles("controlled_bias/001-puzzles.txt")[:5000], "bench")
        dlg.start()
        return [dlg.runner], dlg.cancel
    if kind == "survo-atlas":
        tab = _tab(win, "SurvoTab")
        view = tab.atlas_view
        tab.views.setCurrentWidget(view)   # the view the user watches: its charts and tables paint
        view.size_box.setCurrentIndex([view.size_box.itemData(i) for i in range(view.size_box.count())]
                                      .index(ATLAS_SIZE[0]))
        view.atlas.needs_confirmation = lambda: False   # no question box: the benchmark starts it
        # the close phase starts the size again: its stopped run is in the store, and the user
        # asked "Start over?" answers yes (a modal box would wait forever offscreen)
        view.atlas.stored_run_info = lambda: None
        view.start()
        meter.pump(60, until=lambda: view.runner is not None)   # the plan is built off the UI thread first
        _time_atlas(view)
        if ATLAS_SORT[0]:   # a user who sorts the list while the run fills it (descending)
            from PySide6.QtCore import Qt

            view.table.sortByColumn(ATLAS_SORT[0], Qt.DescendingOrder)
        return [view.runner.run], view.cancel
    if kind.startswith("ua"):
        import numpy as np

        tab = _tab(win, "UATab")
        if kind == "ua-search-17":
            tab.set_grid(np.array([int(c) for c in GRID_17], dtype=np.uint8))
        else:
            tab.set_grid(_ua_grid())
        tab.start_harvest()
        if kind == "ua-harvest":
            return [tab.model.harvest_run], tab.cancel
        meter.pump(120, until=lambda: tab.uas is not None)
        tab.k_spin.setValue(17 if kind == "ua-search-17" else 16)
        tab.start_search()
        meter.pump(120, until=lambda: tab.model.search_run is not None)
        return [tab.model.search_run], tab.cancel
    if kind == "survo-generate":
        tab = _tab(win, "SurvoTab")
        tab.generate(6, 6, "expert", number=11)
        return [], tab._cancel_generating
    raise ValueError(kind)


#: seconds spent in the atlas run's merge and summary (the run's thread) and the view's refresh (UI thread)
ATLAS_TIMES: dict[str, float] = {}
SLOW_CALLS: list = []     # [name, seconds since the run started, ms] of calls over 100 ms
ATLAS_T0 = [0.0]


def _timed(name: str, fn):
    def wrapper(*a, **k):
        t0 = time.perf_counter()
        try:
            return fn(*a, **k)
        finally:
            ATLAS_TIMES[name] = ATLAS_TIMES.get(name, 0.0) + time.perf_counter() - t0
            took = time.perf_counter() - t0
            ATLAS_TIMES[name + "_max"] = max(ATLAS_TIMES.get(name + "_max", 0.0), took)
            if took > 0.1:   # when (seconds since the run started): to match the UI's stalls
                SLOW_CALLS.append([name, round(t0 - ATLAS_T0[0], 2), round(took * 1000)])
    return wrapper


def _time_atlas(view) -> None:
    """Time the atlas job's merge and summary and the view's refresh (wrapped on these objects only)."""
    ATLAS_TIMES.clear()
    SLOW_CALLS.clear()
    ATLAS_T0[0] = time.perf_counter()
    job = view.runner.run.job
    merger = view.runner.run._merger
    merger._merge = _timed("merge", merger._merge)
    job.summary = _timed("summary", job.summary)
    view._refresh = _timed("refresh", view._refresh)
    from sudokustudio.core.growing import GrowingColumns

    if not hasattr(GrowingColumns, "counted"):   # count the stores merges make (each one a copy)
        init = GrowingColumns.__init__

        def counting(store, *a, **k):
            ATLAS_TIMES["new_stores"] = ATLAS_TIMES.get("new_stores", 0) + 1
            init(store, *a, **k)
        GrowingColumns.__init__, GrowingColumns.counted = counting, True
    view.timer.timeout.disconnect()
    view.timer.timeout.connect(view._refresh)


def after_atlas_run(win, meter: StallMeter) -> dict:
    """What a user does with a finished atlas: sort the list by column sums (descending), then by
    min swaps, export the tables as CSV; the UI thread's stalls meanwhile and the seconds each took."""
    from PySide6.QtCore import Qt

    view = _tab(win, "SurvoTab").atlas_view
    out = {}
    meter.reset()
    for name, act, busy in (("sort_column_sums", lambda: view.table.sortByColumn(2, Qt.DescendingOrder), "sort"),
                            ("sort_swaps", lambda: view.table.sortByColumn(4, Qt.AscendingOrder), "sort"),
                            ("export_csv", lambda: view.export_csv(os.path.join(tempfile.mkdtemp(), "t")), None)):
        t0 = time.perf_counter()
        act()
        end = meter.pump(30, until=lambda b=busy: b is None or not view.calls.busy(b))
        out[name + "_seconds"] = round(end - t0, 3)
    meter.pump(0.3)
    out["stalls"] = meter.stats()
    return out


def measure(win, meter: StallMeter, kind: str, seconds: float, to_end: bool = False) -> dict:
    prepare(kind)
    show_kind_tab(win, kind)
    meter.pump(1.5)   # a user looks at the tab before pressing Start (the window loads its kernels)
    meter.reset()
    t_start = time.perf_counter()
    runs, stop = start_kind(win, kind, meter)
    ended = (lambda: bool(runs) and all(r is None or r.finished for r in runs)) if to_end else None
    meter.pump(0.3 if ended is not None else 0)   # the run's start (its first events) before we watch for its end
    t_end = meter.pump(seconds, until=ended)
    if ended is not None and ended():
        meter.pump(1.0)   # the end of the run in the view (final refresh, table fit)
    running = meter.stats()
    after = None
    if kind == "survo-atlas" and ended is not None and ended():
        after = after_atlas_run(win, meter)
    ended_by_itself = ended is not None and ended()
    meter.reset()
    t0 = time.perf_counter()
    stop()
    end = meter.pump(30, until=lambda: all(r is None or r.finished for r in runs))
    stopping = meter.stats()
    out = {"kind": kind, "running": running, "stop_seconds": round(end - t0, 3) if runs else None,
           "stopping": stopping,
           "batches": sum(r.batches_done for r in runs if r is not None)}
    if ended is not None:
        out["ended_by_itself"] = ended_by_itself
        out["run_seconds"] = round(t_end - t_start, 2)
    if kind == "survo-atlas":
        out["atlas_size"] = "x".join(map(str, ATLAS_SIZE[0]))
        out["atlas_seconds"] = {k: round(v, 3) for k, v in ATLAS_TIMES.items()}
        out["atlas_slow_calls"] = SLOW_CALLS[:20]
        if after is not None:
            out["after_the_run"] = after
        out["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
        out["batch_cpu_seconds"] = round(sum(r.snapshot(history=False).cpu_seconds for r in runs), 1)
    meter.pump(0.3)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("--kinds", default=",".join(KINDS))
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--atlas-size", default="4x4", help="the survo-atlas kind's size, e.g. 2x10")
    ap.add_argument("--atlas-sort", type=int, default=0, help="the atlas list column sorted while it runs")
    ap.add_argument("--to-end", action="store_true",
                    help="let each run end by itself (within --seconds) and report its wall time")
    ap.add_argument("--close-kinds", default=",".join(CLOSE_KINDS),
                    help="kinds started together before the window is closed ('' : do not close)")
    args = ap.parse_args()
    ATLAS_SIZE[0] = tuple(int(x) for x in args.atlas_size.lower().split("x"))
    ATLAS_SORT[0] = args.atlas_sort
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication(sys.argv)
    win = _window()
    meter = StallMeter(app)
    settle(win, meter)
    results = []
    for kind in [k for k in args.kinds.split(",") if k]:
        r = measure(win, meter, kind, args.seconds, args.to_end)
        results.append(r)
        if not args.json:
            stop = "–" if r["stop_seconds"] is None else f"{r['stop_seconds']:.2f} s"
            print(f"{kind:20s} longest stall {r['running']['max_stall_ms']:7.1f} ms (p99 "
                  f"{r['running']['p99_stall_ms']:.1f}) while running; Stop -> ended {stop}, longest stall "
                  f"{r['stopping']['max_stall_ms']:.1f} ms meanwhile; {r['batches']} batches"
                  + (f"; run {r['run_seconds']:.1f} s wall" if "run_seconds" in r else "")
                  + (f"; atlas seconds {r['atlas_seconds']}" if r.get("atlas_seconds") else "")
                  + (f"; after the run {r['after_the_run']}" if r.get("after_the_run") else ""), flush=True)
    # every kind at once, then close the window
    close_kinds = [k for k in args.close_kinds.split(",") if k]
    live = []
    for kind in close_kinds:
        live += [r for r in start_kind(win, kind, meter)[0] if r is not None]
    meter.pump(2.0)
    running = sum(not r.finished for r in live)
    import logging

    logging.getLogger("sudokustudio.ui.main_window").addHandler(logging.StreamHandler(sys.stdout))
    logging.getLogger("sudokustudio.ui.main_window").setLevel(logging.INFO)
    t0 = time.perf_counter()
    win.close()
    close = time.perf_counter() - t0
    left = sum(not r.finished for r in live)
    summary = {"kinds": results, "close_kinds": close_kinds, "close_seconds_with_all_running": round(close, 3),
               "runs_live_at_close": running, "runs_abandoned": left,
               "max_stall_ms": max(r["running"]["max_stall_ms"] for r in results) if results else None}
    if args.json:
        print(json.dumps(summary))
    else:
        print(f"closing the window with {', '.join(close_kinds)} running ({running} runs live): {close:.2f} s; "
              f"{left} runs still had a batch in flight (abandoned)")
    os._exit(0)  # batches abandoned by the close must not hold up the benchmark's exit


if __name__ == "__main__":
    main()
