"""The main window: one tab per capability, File and Help menus, status bar."""
from __future__ import annotations

import gc
import importlib
import logging
from pathlib import Path

from PySide6.QtCore import QSettings, QSize, QTimer
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QFileDialog, QMainWindow, QMessageBox, QTabWidget, QWidget
from pyqtgraph.util.garbage_collector import GarbageCollector

from sudokustudio import __version__
from sudokustudio.ui.tabs import TABS

log = logging.getLogger(__name__)

ORG, APP = "SudokuStudio", "Sudoku Studio"


def load_tab_classes(names: list[str] | None = None):
    out = []
    for name in names if names is not None else TABS:
        mod, _, cls = name.partition(":")
        out.append(getattr(importlib.import_module(mod), cls))
    return out


#: seconds closing the window waits for runs and background work, all of it together; batches still
#: running then are abandoned (daemon threads; their runs resume from the store next time)
CLOSE_DEADLINE = 1.5
#: the window's size at a first start (no saved geometry), where the screen has room for it
DEFAULT_SIZE = QSize(1280, 820)
#: a tab shown this long has its kernel groups loaded in the background (``kernel_groups``)
PRELOAD_AFTER_MS = 500


def first_size(available: QSize) -> QSize:
    """The window's first size: DEFAULT_SIZE, shrunk to fit the screen's free area (a 1366x768
    laptop leaves ~1366x730 under its panels: 820 pixels would hide the status bar)."""
    return DEFAULT_SIZE.boundedTo(QSize(max(640, available.width() - 20), max(480, available.height() - 40)))


def freeze_long_lived() -> None:
    """Move every object made so far (modules, widgets, loaded kernels: ~200k once the window
    is up) out of the garbage collector's reach: a run makes objects fast enough to start a
    full collection every few seconds, and walking them all held the GIL, and so the window,
    ~80 ms each time.  Cheap (no walk); garbage frozen with them is kept, which is little."""
    gc.freeze()


class MainWindow(QMainWindow):
    def __init__(self, settings: QSettings | None = None, tab_names: list[str] | None = None,
                 warm_up: bool = True, kernel_groups: list[str] | None = None):
        """``warm_up``: compile the kernel groups (``kernel_groups``: all) in background
        processes (sudokustudio.kernels); actions wait for theirs.  Without it every
        group counts as ready (kernels compile when first used, as in tests)."""
        super().__init__()
        self.compile_launcher = None
        if warm_up:
            from sudokustudio.kernels.launcher import start_background_compile

            # started before the tabs are built: actions that come early still wait for it
            self.compile_launcher = start_background_compile(kernel_groups, defer=True, preload=True)
        self.settings = settings or QSettings(ORG, APP)
        self.setWindowTitle(f"{APP} {__version__}")
        self.tabs = QTabWidget()
        self.tabs.setDocumentMode(True)
        self.setCentralWidget(self.tabs)
        from sudokustudio.ui.kernels import KernelStatusWidget

        # before the tabs: an action a tab queues while it is built (the Survo board's first
        # puzzle) shows in this line; made after them, its indicator floated over the window
        self.kernel_status = KernelStatusWidget(self)
        self.kernel_label = self.kernel_status.label
        self.statusBar().addPermanentWidget(self.kernel_status)
        for cls in load_tab_classes(tab_names):
            tab = cls(self.settings, self)
            self.tabs.addTab(tab, getattr(tab, "title", cls.__name__))
            if hasattr(tab, "browseRequested"):
                tab.browseRequested.connect(self.browse_collections)
        self._build_menus()
        self.statusBar().showMessage("Ready", 3000)
        geo = self.settings.value("main/geometry")
        if geo is not None:
            self.restoreGeometry(geo)
        else:
            screen = self.screen()
            self.resize(first_size(screen.availableGeometry().size()) if screen is not None else DEFAULT_SIZE)
        idx = self.settings.value("main/tab", 0, int)
        if 0 <= idx < self.tabs.count():
            self.tabs.setCurrentIndex(idx)
        # a tab's kernels load in the background once it has been shown for a moment (flipping
        # through the tabs loads nothing), so its first run does not load them while it draws
        self._preload_timer = QTimer(self, singleShot=True, interval=PRELOAD_AFTER_MS,
                                     timeout=self._preload_current_tab)
        self.tabs.currentChanged.connect(self._tab_shown)
        if self.compile_launcher is not None:
            # the cache check (hashing the kernel sources) after the window is built, not during
            self.compile_launcher.start()
            self._preload_timer.start()
        freeze_long_lived()
        # Qt objects must die in the GUI thread, and Python's cycle collector runs in whichever
        # thread allocates past its threshold: a test run deadlocked once when a worker thread's
        # collection freed a widget tree the main thread was deleting (Shiboken waiting for the
        # GIL, Qt for the object's mutex).  Automatic collection off; pyqtgraph's timer collects
        # by the same generation thresholds, here, every second.
        self.garbage_collector = GarbageCollector(interval=1.0)
        from sudokustudio.ui.kernels import bridge

        bridge().changed.connect(self._kernels_changed)   # a method: disconnected with the window

    def _tab_shown(self, *_) -> None:
        self._preload_timer.start()   # restarted: only the tab that stays is preloaded

    def _preload_current_tab(self) -> None:
        groups = getattr(self._current(), "kernel_groups", ())
        if self.compile_launcher is not None and groups:
            self.compile_launcher.want_soon(groups)

    def _kernels_changed(self, *_) -> None:
        freeze_long_lived()   # kernels loaded since the last freeze are long-lived too

    # ----------------------------------------------------------------- menus
    def _build_menus(self) -> None:
        m = self.menuBar().addMenu("&File")
        self.open_action = QAction("&Open…", self, shortcut=QKeySequence.Open, triggered=self.open_file)
        self.open_action.setToolTip("Open a file in the current tab")
        self.export_action = QAction("&Export…", self, shortcut=QKeySequence("Ctrl+E"), triggered=self.export_file)
        self.export_action.setToolTip("Export what the current tab shows")
        quit_action = QAction("&Quit", self, shortcut=QKeySequence.Quit, triggered=self.close)
        m.addAction(self.open_action)
        m.addAction(self.export_action)
        m.addSeparator()
        m.addAction(quit_action)
        self.file_menu = m
        s = self.menuBar().addMenu("&Settings")
        self.cluster_action = QAction("&Cluster…", self, triggered=self.cluster_settings)
        self.cluster_action.setToolTip("Run long jobs on a Dask cluster")
        s.addAction(self.cluster_action)
        t = self.menuBar().addMenu("&Tools")
        self.rate_action = QAction("&Rate puzzles…", self, shortcut=QKeySequence("Ctrl+Shift+R"),
                                   triggered=self.rate_puzzles)
        self.rate_action.setToolTip("Berthier's W-rating (whips) of a puzzle file, with CSV export")
        t.addAction(self.rate_action)
        h = self.menuBar().addMenu("&Help")
        h.addAction(QAction("&About Sudoku Studio", self, triggered=self.about))
        self.tabs.currentChanged.connect(self._update_actions)
        self._update_actions()

    def _current(self) -> QWidget | None:
        return self.tabs.currentWidget()

    def _update_actions(self, *_):
        tab = self._current()
        self.open_action.setEnabled(hasattr(tab, "open_file"))
        self.export_action.setEnabled(hasattr(tab, "export_file"))

    def last_folder(self, key: str = "open") -> str:
        return str(self.settings.value(f"folders/{key}", str(Path.home())))

    def remember_folder(self, path: str, key: str = "open") -> None:
        self.settings.setValue(f"folders/{key}", str(Path(path).parent))

    def open_file(self) -> None:
        tab = self._current()
        if not hasattr(tab, "open_file"):
            return
        filters = getattr(tab, "file_filters", "All files (*)")
        path, _ = QFileDialog.getOpenFileName(self, "Open", self.last_folder("open"), filters)
        if path:
            self.remember_folder(path, "open")
            tab.open_file(path)

    def export_file(self) -> None:
        tab = self._current()
        if hasattr(tab, "export_file"):
            tab.export_file()

    def browse_collections(self, ids: list) -> None:
        """Show stored collections in the tab that browses them (a tab's ``browseRequested``)."""
        for i in range(self.tabs.count()):
            tab = self.tabs.widget(i)
            if hasattr(tab, "show_collections"):
                self.tabs.setCurrentIndex(i)
                tab.show_collections([int(x) for x in ids])
                return

    def cluster_settings(self) -> None:
        from sudokustudio.ui.settings_dialog import ClusterSettingsDialog

        ClusterSettingsDialog(self.settings, self).exec()

    def rate_puzzles(self) -> None:
        from sudokustudio.ui.rate_dialog import RateDialog

        if getattr(self, "rate_dialog", None) is None:
            self.rate_dialog = RateDialog(self.settings, self)
        if self.compile_launcher is not None:
            self.compile_launcher.request_preload(("rating",))   # while a file is chosen
        self.rate_dialog.show()
        self.rate_dialog.raise_()

    def about(self) -> None:
        QMessageBox.about(
            self, "About Sudoku Studio",
            f"<h3>Sudoku Studio {__version__}</h3>"
            "<p>A workbench for the mathematics of Sudoku and Survo puzzles: "
            "the Survo swap board, minimal-puzzle generators, Monte Carlo "
            "counting and unavoidable sets.</p>"
            "<p>Kernels: numba; window: Qt (PySide6) and pyqtgraph.</p>")

    # ----------------------------------------------------------------- kernels
    def kernels_settled(self) -> bool:
        """Is every kernel group ready (or failed for good)?"""
        from sudokustudio.kernels import readiness

        return readiness().all_ready()

    def kernel_errors(self) -> list[str]:
        from sudokustudio.kernels import readiness

        return [f"{g}: {e}" for g, e in readiness().summary()["failed"].items()]

    # ----------------------------------------------------------------- closing
    def closeEvent(self, event) -> None:
        """Stop every run (finished batches are saved) and close within about two seconds: batches
        still running after that are abandoned (their runs resume from the store next time)."""
        import time

        from sudokustudio.jobs.run import stop_all_runs

        end = time.monotonic() + CLOSE_DEADLINE   # one deadline for everything, not one per tab

        def left() -> float:
            return max(0.0, end - time.monotonic())

        t0 = time.monotonic()
        all_stopped = stop_all_runs(wait=CLOSE_DEADLINE)
        phases = [f"runs {time.monotonic() - t0:.2f} s{'' if all_stopped else ' (some abandoned)'}"]
        for i in range(self.tabs.count()):
            tab = self.tabs.widget(i)
            if hasattr(tab, "shutdown"):
                t = time.monotonic()
                tab.shutdown(left())
                phases.append(f"{type(tab).__name__} {time.monotonic() - t:.2f} s")
        if getattr(self, "rate_dialog", None) is not None:
            t = time.monotonic()
            self.rate_dialog.shutdown(left())
            phases.append(f"rating dialog {time.monotonic() - t:.2f} s")
        if self.compile_launcher is not None:
            from sudokustudio.kernels.launcher import finish_background_compile

            t = time.monotonic()
            # killed, not waited for: a helper busy writing numba's cache may take seconds to end
            finish_background_compile(self.compile_launcher, timeout=min(0.1, left()))
            self.compile_launcher = None
            phases.append(f"compile helpers {time.monotonic() - t:.2f} s")
        self.settings.setValue("main/geometry", self.saveGeometry())
        self.settings.setValue("main/tab", self.tabs.currentIndex())
        self.settings.sync()
        log.info("closed in %.2f s (%s)", time.monotonic() - t0, ", ".join(phases))
        super().closeEvent(event)
