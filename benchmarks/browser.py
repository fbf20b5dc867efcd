"""The collection browser at a million puzzles: open, scroll, sort, filter.

    python3 benchmarks/browser.py [--puzzles 1000000] [--store PATH] [--json]

Builds (or reuses, with ``--store``) a collection store holding one
collection of N puzzles: random isomorphs of the 49,158 17-clue puzzles with
synthetic metrics (W drawn 0..12, guesses, brt; the values only need to be
sortable).  Then times, in this process:

- ``open_first``: ``BrowserModel.open`` when the collection's whole columns are
  not stored yet (joined from the columns each batch stored, then stored);
- ``open``: the same once they are stored (what a user meets every time
  after the first);
- in the real Collections tab (offscreen): the time from checking the
  collection to the list shown, then the longest UI-thread stall (10 ms
  timer) while scrolling through the list page by page and to both ends,
  sorting by each column both ways and changing the filters; the table is
  not touched by the timer, so every stall is the tab's own work.

``--classes`` also times Find isomorphs (every puzzle's minlex form, 2
threads, stored) and checks the class count.

Target (issue 17): open in <= 2 s; no stall over 100 ms while scrolling,
sorting and filtering.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))
DATA = REPO.parent / "shared" / "data"


def build_store(path: Path, n: int) -> tuple[int, float]:
    """One collection of ``n`` isomorphs of the 17-clue puzzles; returns (id, seconds)."""
    import numpy as np

    from sudokustudio.jobs.collections import CollectionStore
    from sudokustudio.sudoku.grid import read_puzzles

    t0 = time.perf_counter()
    base = read_puzzles(DATA / "puzzles2_17_clue").puzzles
    rng = np.random.default_rng(17)
    store = CollectionStore(path)
    cid = store.create("isomorphs of the 17-clue puzzles", "benchmark")
    batch, done, b = 50_000, 0, 0
    while done < n:
        k = min(batch, n - done)
        src = base[rng.integers(0, len(base), size=k)]
        # one random relabelling and band/stack-preserving row and column permutation per batch
        digits = np.r_[0, rng.permutation(9) + 1].astype(np.uint8)
        rows = np.concatenate([3 * b + rng.permutation(3) for b in rng.permutation(3)])
        cols = np.concatenate([3 * b + rng.permutation(3) for b in rng.permutation(3)])
        perm = (rows[:, None] * 9 + cols[None, :]).reshape(81)
        puzzles = digits[src[:, perm]]
        metrics = {"W": rng.integers(0, 13, size=k), "guesses": rng.geometric(0.2, size=k),
                   "brt": rng.integers(0, 2, size=k)}
        store.add_batch(cid, b, puzzles, None, metrics)
        done += k
        b += 1
    store.close()
    return cid, time.perf_counter() - t0


def time_open(path: Path, cid: int) -> dict:
    from sudokustudio.jobs.collections import CollectionStore
    from sudokustudio.models.browser import BrowserModel

    store = CollectionStore(path)
    with store._db() as db:     # first open: the columns are built from the rows
        db.execute("DELETE FROM columns WHERE collection_id=?", (cid,))
    model = BrowserModel(store)
    t = time.perf_counter()
    table = model.open([cid])
    first = time.perf_counter() - t
    t = time.perf_counter()
    table = model.open([cid])
    again = time.perf_counter() - t
    t = time.perf_counter()
    order = table.select(sort="W", descending=True)
    sort_s = time.perf_counter() - t
    store.close()
    return {"rows": len(table), "open_first_s": round(first, 3), "open_s": round(again, 3),
            "select_sort_s": round(sort_s, 3), "listed": int(order.size)}


def time_classes(path: Path, cid: int) -> dict:
    """Find isomorphs from scratch: every puzzle is an isomorph of one of the 49,158
    17-clue puzzles, so (at a million draws) the classes must number 49,158."""
    from sudokustudio.jobs.collections import CollectionStore
    from sudokustudio.models.browser import BrowserModel

    store = CollectionStore(path)
    with store._db() as db:
        db.execute("DELETE FROM columns WHERE collection_id=? AND name='canon'", (cid,))
    model = BrowserModel(store)
    table = model.open([cid])
    t = time.perf_counter()
    model.compute_classes(table, threads=2)
    seconds = time.perf_counter() - t
    store.close()
    return {"classes_s": round(seconds, 1), "classes_per_s": round(len(table) / seconds),
            "classes": table.class_count(), "duplicates": int(table.duplicate.sum())}


def time_tab(path: Path, cid: int) -> dict:
    from PySide6.QtWidgets import QApplication

    from sudokustudio.jobs.collections import CollectionStore
    from sudokustudio.ui.browser_tab import BrowserTab
    from ui_stalls import StallMeter

    app = QApplication.instance() or QApplication([])
    tab = BrowserTab(store=CollectionStore(path))
    tab.resize(1280, 800)
    tab.show()
    meter = StallMeter(app)
    meter.pump(0.3)
    t = time.perf_counter()
    tab.show_collections([cid])
    meter.pump(60, until=lambda: tab.table is not None and len(tab.order) == len(tab.table))
    shown = time.perf_counter() - t
    meter.pump(0.3)
    stalls = {}

    meter.reset()
    bar = tab.view.verticalScrollBar()
    for k in range(120):                     # page by page, then jumps to both ends
        bar.setValue(min(bar.maximum(), k * bar.pageStep()))
        meter.pump(0.02)
    for v in (bar.maximum(), 0, bar.maximum() // 2, bar.maximum()):
        bar.setValue(v)
        meter.pump(0.1)
    stalls["scroll"] = meter.stats()

    meter.reset()
    headers = tab.table_model.headers
    for name in ("clues", "W", "guesses", "brt"):
        for desc in (False, True):
            tab.table_model.sort(headers.index(name), 1 if desc else 0)
            meter.pump(30, until=lambda: not tab.calls.busy("select"))
            meter.pump(0.1)
    stalls["sort"] = meter.stats()

    meter.reset()
    for lo, hi in ((17, 17), (0, 81)):
        tab.clues_lo.setValue(lo)
        tab.clues_hi.setValue(hi)
        meter.pump(0.3)
        meter.pump(30, until=lambda: not tab.calls.busy("select"))
    tab.metric_combo.setCurrentText("W")
    for lo in (5.0, 10.0, -1.0):
        tab.metric_lo.setValue(lo)
        meter.pump(0.3)
        meter.pump(30, until=lambda: not tab.calls.busy("select"))
    stalls["filter"] = meter.stats()
    listed = len(tab.order)
    tab.shutdown()
    return {"tab_open_s": round(shown, 3), "listed_at_end": listed, "stalls": stalls}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--puzzles", type=int, default=1_000_000)
    ap.add_argument("--store", type=Path, default=None, help="reuse (or create) this store file")
    ap.add_argument("--classes", action="store_true",
                    help="also time Find isomorphs (minlex of every puzzle, 2 threads) and count the classes")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    path = args.store or Path(tempfile.mkdtemp()) / "collections.sqlite3"
    out = {}
    cid = None
    if path.exists():
        from sudokustudio.jobs.collections import CollectionStore

        store = CollectionStore(path)
        found = [c for c in store.list() if c["generator"] == "benchmark" and c["count"] == args.puzzles]
        store.close()
        cid = found[0]["id"] if found else None
    if cid is None:
        cid, out["build_s"] = build_store(path, args.puzzles)
        out["build_s"] = round(out["build_s"], 1)
    out.update(time_open(path, cid))
    out.update(time_tab(path, cid))
    if args.classes:
        out.update(time_classes(path, cid))
    if args.json:
        print(json.dumps(out))
    else:
        for k, v in out.items():
            print(f"{k}: {v}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
