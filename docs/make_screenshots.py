"""Render the README's window screenshots offscreen, from real runs.

    python3 docs/make_screenshots.py [--seconds 20] [--only window,generators,estimator,minimals,ua,atlas,browser,survo]

window.png: the whole window on the Generators tab after every generator has
run for --seconds (with seed 002's 001-puzzles imported for comparison);
generators.png: that tab alone; estimator.png: Ridder's sampler against ours on 9×9
(--seconds/2 and --seconds); estimator_minimals.png: a run of the best combination (the
plan of 30-, 31- and 33-clue subsets) of --seconds
beside the published tables; ua.png: the Unavoidable sets tab after a UA
harvest and a 17-clue search on the grid of a known 17-clue puzzle;
browser.png: the Collections tab with a W path step on the grid (``shoot_browser``);
survo_atlas.png: the Survo tab's Atlas view after a complete run of
--atlas-size (default 3×6; with --atlas-file, that atlas written by
``survo atlas --out`` is opened instead of run), its prediction shown,
sorted by minimum swaps (most first); survo.png: the board on the sacrifice example after
its two swaps, with the hint for the next (``shoot_survo``).  Settings
and run stores go to a temporary folder, so a user's own are not touched.
The other screenshots in docs/screenshots were taken by hand from the app.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
TMP = tempfile.mkdtemp(prefix="sudokustudio-shots-")
os.environ["SUDOKUSTUDIO_DATA"] = TMP

from PySide6.QtCore import QSettings  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

HERE = Path(__file__).resolve().parent
OUT = HERE / "screenshots"
SHARED = HERE.parent.parent / "shared" / "data"
KNOWN_17 = SHARED / "puzzles2_17_clue"


def pump(app: QApplication, seconds: float, until=None) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end and not (until and until()):
        app.processEvents()
        time.sleep(0.02)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=20.0, help="generator run time (default 20)")
    ap.add_argument("--only", default="window,generators,estimator,minimals,ua,atlas,browser",
                    help="comma-separated shots")
    ap.add_argument("--atlas-size", default="3x6", help="size of the atlas shot (default 3x6)")
    ap.add_argument("--atlas-file", default=None, help="open this atlas file instead of running the size")
    args = ap.parse_args()
    shots = set(args.only.split(","))

    app = QApplication(sys.argv)
    from sudokustudio.ui.main_window import MainWindow
    from sudokustudio.ui.generators_tab import GeneratorsTab
    from sudokustudio.ui.ua_tab import UATab
    from sudokustudio.ui.estimator_tab import EstimatorTab
    from sudokustudio.ui.survo_tab import SurvoTab

    settings = QSettings(str(Path(TMP) / "settings.ini"), QSettings.IniFormat)
    win = MainWindow(settings=settings, warm_up=True)
    win.resize(1280, 820)
    win.show()
    pump(app, 1.0)

    def tab_of(cls):
        for i in range(win.tabs.count()):
            if isinstance(win.tabs.widget(i), cls):
                return i, win.tabs.widget(i)
        raise LookupError(cls.__name__)

    if shots & {"window", "generators"}:
        i, gen = tab_of(GeneratorsTab)
        win.tabs.setCurrentIndex(i)
        cb = SHARED / "controlled_bias" / "001-puzzles.txt"
        if cb.exists():
            gen.open_file(str(cb), generator="controlled-bias")
        gen.rows["controlled-bias"]["target"].setValue(10)
        gen.start_all()
        pump(app, args.seconds)
        gen.stop_all()
        pump(app, 120, until=lambda: not any(gen.is_running(m) for m in gen.rows))
        gen.refresh()
        pump(app, 1.0)
        if "window" in shots:
            win.grab().save(str(OUT / "window.png"))
        if "generators" in shots:
            gen.grab().save(str(OUT / "generators.png"))

    if "estimator" in shots:
        i, est = tab_of(EstimatorTab)
        win.tabs.setCurrentIndex(i)
        est.what.setCurrentIndex(0)
        est.box.setCurrentIndex(est.box.findData("3x3"))
        for method, seconds in (("ridder", args.seconds / 2), ("rows", args.seconds)):
            est.gmethod.setCurrentIndex(est.gmethod.findData(method))
            view = est.start_run()
            pump(app, seconds)
            est.stop_run()
            if view is not None:
                pump(app, 60, until=lambda: view.run.finished)
        pump(app, 1.0)
        est.grab().save(str(OUT / "estimator.png"))

    if "minimals" in shots:
        i, est = tab_of(EstimatorTab)
        win.tabs.setCurrentIndex(i)
        est.what.setCurrentIndex(1)     # minimal puzzles per grid: the best combination
        view = est.start_run()
        pump(app, args.seconds)
        est.stop_run()
        if view is not None:
            pump(app, 60, until=lambda: view.run.finished)
        pump(app, 1.0)
        est.grab().save(str(OUT / "estimator_minimals.png"))

    if "ua" in shots:
        i, ua = tab_of(UATab)
        win.tabs.setCurrentIndex(i)
        puzzle = next(line.split()[0] for line in KNOWN_17.read_text().splitlines()
                      if line.strip() and not line.startswith("#"))
        ua.grid_edit.setText(puzzle)
        ua.set_grid_from_text()
        ua.start_harvest()
        pump(app, 300, until=lambda: ua.start_btn.isEnabled())
        ua.k_spin.setValue(17)
        ua.start_search()
        pump(app, 30, until=lambda: ua.cancel_btn.isEnabled())   # the search starts a tick later
        pump(app, 900, until=lambda: not ua.cancel_btn.isEnabled())
        if ua.found.count():
            ua.found.setCurrentRow(0)
        pump(app, 1.0)
        ua.grab().save(str(OUT / "ua.png"))

    if "atlas" in shots:
        from PySide6.QtCore import Qt

        i, survo = tab_of(SurvoTab)
        win.tabs.setCurrentIndex(i)
        atlas = survo.atlas_view
        survo.views.setCurrentWidget(atlas)
        from sudokustudio.ui.survo_atlas_view import SIZES

        size = tuple(int(x) for x in args.atlas_size.lower().split("x"))
        win.resize(1480, 980)
        atlas.size_box.setCurrentIndex(SIZES.index(size))
        pump(app, 900, until=lambda: "about" in atlas.prediction.text())
        if args.atlas_file:
            atlas.open_file(args.atlas_file)
            atlas.calls.wait_idle(120_000)   # read off the UI thread
        else:
            atlas.start()
            pump(app, 7200, until=lambda: atlas.run_btn.isEnabled())
        pump(app, 5000, until=lambda: not atlas.charts_pending)   # drawn one per turn of the event loop
        atlas.table.sortByColumn(4, Qt.DescendingOrder)
        atlas.table.selectRow(0)
        survo.views.setCurrentWidget(atlas)   # the tab's first puzzle may have switched to the board meanwhile
        pump(app, 1.0)
        survo.grab().save(str(OUT / "survo_atlas.png"))

    if "browser" in shots:
        shoot_browser(app, win, tab_of)

    if "survo" in shots:
        shoot_survo(app, win, tab_of)

    win.close()
    print(f"screenshots written to {OUT}")
    return 0


def shoot_survo(app, win, tab_of) -> None:
    """survo.png: the Survo board on the sacrifice example after its two swaps (the first one a
    sacrifice, W 4 -> 6), the hint for the next shown."""
    from sudokustudio.ui.survo_tab import SurvoTab

    i, tab = tab_of(SurvoTab)
    win.tabs.setCurrentIndex(i)
    tab.views.setCurrentWidget(tab.board_page)
    tab.load_example("sacrifice_example.mat")
    tab.request_swap(2, 3)
    tab.request_swap(7, 8)
    tab.show_hint()
    pump(app, 60, until=lambda: bool(tab.hint_label.text()))
    pump(app, 1.0)
    tab.grab().save(str(OUT / "survo.png"))


def shoot_browser(app, win, tab_of) -> None:
    """browser.png: the Collections tab over magictour's first 200 puzzles (rated on import),
    W <= 12, hardest first, the hardest puzzle's W path at its first whip of length 3 or more."""
    from PySide6.QtCore import Qt

    from sudokustudio.ui.browser_tab import BrowserTab

    i, tab = tab_of(BrowserTab)
    win.tabs.setCurrentIndex(i)
    lines = (SHARED / "puzzles3_magictour_top1465").read_text().splitlines()[:200]
    path = Path(TMP) / "magictour_top200.txt"
    path.write_text("\n".join(lines) + "\n")
    tab.open_file(str(path))
    pump(app, 900, until=lambda: tab.table is not None and len(tab.table) > 0 and len(tab.order) == len(tab.table))
    tab.metric_combo.setCurrentText("W")
    tab.metric_hi.setValue(12)          # the hardest puzzle whose path ends solved
    pump(app, 1.0)
    tab.view.sortByColumn(tab.table_model.headers.index("W"), Qt.DescendingOrder)
    pump(app, 1.0)
    tab.view.setCurrentIndex(tab.table_model.index(0, 0))
    pump(app, 300, until=lambda: bool(tab.frames))
    long_whip = next((k for k, f in enumerate(tab.frames) if f.step is not None and f.step.length >= 3), 0)
    tab.step(long_whip)
    pump(app, 1.0)
    tab.grab().save(str(OUT / "browser.png"))


if __name__ == "__main__":
    raise SystemExit(main())
