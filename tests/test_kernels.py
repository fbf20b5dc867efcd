"""Kernel groups compile in helper processes; the window's process only loads them
(issue 15).  The subprocess tests use a fresh NUMBA_CACHE_DIR and the tiny group of
tests/kernel_fixture.py, so they take seconds."""
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from sudokustudio.kernels import GROUPS, KernelReadiness, readiness, set_readiness
from sudokustudio.kernels.groups import EXTRA_GROUPS_ENV

REPO = Path(__file__).resolve().parent.parent
TESTS = Path(__file__).resolve().parent


def _env(cache_dir, groups=None) -> dict:
    # normal priority: on a busy shared test machine SCHED_IDLE helpers may wait a long time
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache_dir), QT_QPA_PLATFORM="offscreen",
               SUDOKUSTUDIO_COMPILE_PRIORITY="normal",
               PYTHONPATH=os.pathsep.join([str(REPO), str(TESTS)]))
    env[EXTRA_GROUPS_ENV] = json.dumps(groups or {"tiny": ["kernel_fixture:warm"]})
    return env


WINDOW = r"""
import json, sys, time
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication
app = QApplication([])
from sudokustudio.kernels import readiness
from sudokustudio.ui.main_window import MainWindow
win = MainWindow(QSettings(sys.argv[1], QSettings.IniFormat), tab_names=[], kernel_groups=["tiny"])
win.show()
t0 = time.monotonic()
while not readiness().all_ready() and time.monotonic() - t0 < 120:
    app.processEvents()
    time.sleep(0.01)
win.kernel_status.refresh()
import numpy as np
from kernel_fixture import tiny_sum
value = int(tiny_sum(np.arange(5, dtype=np.int64)))
hits = sum(tiny_sum.stats.cache_hits.values())

def _listener_sees():
    # the count above is not vacuous: a kernel compiled here now is counted
    from numba import njit
    before = readiness().compiles_here
    njit(lambda x: x + 1)(1)
    return readiness().compiles_here - before
print(json.dumps({"ready": readiness().all_ready(), "state": readiness().state("tiny").state,
                  "cached": readiness().state("tiny").cached, "compiles_here": readiness().compiles_here,
                  "value": value, "cache_hits": hits, "label": win.kernel_label.text(),
                  "events": win.compile_launcher.events, "listener_sees": _listener_sees()}))
win.close()
"""


def _run_window(tmp_path, env) -> dict:
    out = subprocess.run([sys.executable, "-c", WINDOW, str(tmp_path / "s.ini")], env=env, cwd=tmp_path,
                         capture_output=True, text=True, timeout=180)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_window_process_never_compiles(tmp_path):
    env = _env(tmp_path / "numba-cache")
    first = _run_window(tmp_path, env)
    assert first["ready"] and first["state"] == "ready" and not first["cached"]
    assert first["value"] == 30
    # the helper process compiled the kernel and reported it ...
    kernels = [e for e in first["events"] if e["event"] == "kernel"]
    assert [e["name"] for e in kernels] == ["kernel_fixture.tiny_sum"]
    # ... and the window's process loaded it from the cache, compiling nothing
    assert first["compiles_here"] == 0
    assert first["cache_hits"] == 1
    assert first["label"] == "Kernels ready"
    assert first["listener_sees"] == 1
    # next start: the stamp says cached, no compile process at all
    second = _run_window(tmp_path, env)
    assert second["cached"] and second["events"] == [] and second["compiles_here"] == 0
    assert second["cache_hits"] == 1


def _launch(tmp_path, groups: dict, names):
    """A launcher in a child's environment, driven from this process (Qt-free)."""
    from sudokustudio.kernels.launcher import CompileLauncher

    r = KernelReadiness(names, ready=False)
    launcher = CompileLauncher(r, env=_env(tmp_path / "numba-cache", groups), fallback=True, check_cache=False)
    return r, launcher


@pytest.fixture
def fixture_groups(monkeypatch):
    """Register the fixture's groups in this process too (the fallback runs them here)."""
    from sudokustudio.kernels.groups import KernelGroup

    monkeypatch.syspath_prepend(str(TESTS))
    extra = {"tiny": ["kernel_fixture:warm"], "broken": ["kernel_fixture:broken"],
             "crashing": ["kernel_fixture:crash_in_helper"]}
    for name, warm in extra.items():
        monkeypatch.setitem(GROUPS, name, KernelGroup(name, name, tuple(warm)))
    return extra


def test_failures_fall_back_and_never_raise(tmp_path, fixture_groups):
    """A compile process that crashes falls back to compiling in this process; a group
    that cannot compile at all ends "failed", which wait_ready treats as settled."""
    r, launcher = _launch(tmp_path, fixture_groups, ["crashing", "broken"])
    launcher.start()
    assert r.wait_ready(["crashing", "broken"], timeout=120)
    crashing, broken = r.state("crashing"), r.state("broken")
    assert crashing.state == "ready" and "status 3" in crashing.error
    assert broken.state == "failed" and "always fails" in broken.error
    assert r.summary()["failed"] == {"broken": broken.error}


def test_wait_ready_timeout_cancel_and_request():
    r = KernelReadiness(["solver", "ua"], ready=False)
    asked = []
    r.add_request_hook(asked.append)
    assert not r.wait_ready(["ua"], timeout=0.05)
    assert asked and asked[0] == ("ua",)
    stop = threading.Event()
    threading.Timer(0.05, stop.set).start()
    assert not r.wait_ready(["ua"], cancel=stop)
    changes = []
    r.add_listener(changes.append)
    threading.Timer(0.05, r.mark_ready, args=("ua",)).start()
    t0 = time.monotonic()
    assert r.wait_ready("ua", timeout=10)
    assert time.monotonic() - t0 < 5 and changes == ["ua"]
    assert r.is_ready(["ua"]) and not r.is_ready(["solver", "ua"])
    assert r.progress() == pytest.approx(0.5)
    with pytest.raises(ValueError, match="unknown kernel group"):
        r.is_ready(["nope"])


def test_default_readiness_has_nothing_to_wait_for():
    """The CLI, tests and Dask workers never start a launcher: every group is ready."""
    assert readiness().all_ready()
    assert readiness().wait_ready(list(GROUPS), timeout=0)


def test_every_job_names_known_groups():
    import importlib

    from sudokustudio.core.batch import JOB_TYPES

    for mod in ("sudokustudio.sudoku.estimate", "sudokustudio.sudoku.generate", "sudokustudio.sudoku.rating",
                "sudokustudio.sudoku.unavoidable", "sudokustudio.survo.atlas"):
        importlib.import_module(mod)
    for kind, cls in JOB_TYPES.items():
        if cls.__module__.startswith("sudokustudio."):
            assert cls.kernel_groups, kind
            assert all(g in GROUPS for g in cls.kernel_groups), (kind, cls.kernel_groups)
    for g in GROUPS.values():
        for name in g.warm:
            mod, _, fn = name.partition(":")
            if mod.startswith("sudokustudio."):
                assert callable(getattr(importlib.import_module(mod), fn)), name


def test_a_plain_top_down_run_waits_only_for_its_own_group():
    """The Generators tab's first row as it starts needs the top-down group alone; a pool of
    grids, the W-rating or a difficulty band need the generators group."""
    from sudokustudio.sudoku.generate.jobs import GeneratorJob

    assert GeneratorJob("top-down").kernel_groups == ("top-down",)
    assert GeneratorJob("top-down", grid_source="pairswap").kernel_groups == ("top-down",)
    for job in (GeneratorJob("top-down", grid_source="pool"), GeneratorJob("top-down", difficulty=["W"]),
                GeneratorJob("top-down", bands=[["guesses", 0, 2]]), GeneratorJob("bottom-up"),
                GeneratorJob("controlled-bias")):
        assert job.kernel_groups == ("generators",), job.spec
    assert set(GROUPS["generators"].after) == {"solver", "top-down"}


def test_a_grid_count_waits_only_for_the_grid_samplers():
    """The Estimator tab's first kind needs the grid samplers alone; the minimal counts need theirs."""
    from sudokustudio.sudoku.estimate import GridCountJob, MinimalsJob

    assert GridCountJob.kernel_groups == ("grid-estimators",) and MinimalsJob.kernel_groups == ("estimators",)
    assert set(GROUPS["estimators"].after) == {"solver", "grid-estimators"}


def test_a_wanted_grid_count_compiles_beside_the_solver_a_minimal_count_after_it():
    """On a first start the solver compiles for ~30 s; a grid count asked for meanwhile takes the
    free core at once (its samplers hardly share a kernel with the solver), a minimal count waits
    for the solver's kernels (it calls them).  Scheduling only: no process is started."""
    from sudokustudio.kernels.launcher import CompileLauncher

    launcher = CompileLauncher(KernelReadiness(list(GROUPS), ready=False), max_procs=2, check_cache=False)
    launcher._running = {"solver": None}
    for wanted, starts in (("grid-estimators", True), ("estimators", False)):
        launcher._queue, launcher._front = [wanted], [wanted]
        assert (launcher._next_group() == wanted) is starts, wanted


def test_a_shown_tabs_groups_compile_next_after_those_waited_for():
    """A tab that stays on screen moves its groups up the queue, behind a group an action waits
    for; what is asked while the cache is still being checked keeps its place.  (Scheduling
    only: a busy slot keeps any process from starting.)"""
    from sudokustudio.kernels.launcher import CompileLauncher

    launcher = CompileLauncher(KernelReadiness(list(GROUPS), ready=False), max_procs=1, check_cache=False)
    launcher._running = {"busy": None}
    launcher.want_soon(("grid-estimators", "estimators"))     # before the queue exists
    launcher.prioritise(["ua"])
    launcher._check_and_launch()
    rest = [g for g in GROUPS if g not in ("ua", "grid-estimators", "estimators")]
    assert launcher._queue == ["ua", "grid-estimators", "estimators"] + rest
    launcher.want_soon(("top-down", "ua"))                    # another tab: its groups instead
    assert launcher._queue[:2] == ["ua", "top-down"] and launcher._queue[2:] == [
        g for g in GROUPS if g not in ("ua", "top-down")]


def test_action_waits_for_its_kernels_then_runs(qtbot):
    """when_kernels_ready queues an action (status bar: preparing…) and runs it once ready."""
    from PySide6.QtWidgets import QMainWindow, QWidget

    from sudokustudio.ui.kernels import KernelStatusWidget, when_kernels_ready

    r = KernelReadiness(["solver", "ua"], ready=False)
    old = set_readiness(r)
    try:
        win = QMainWindow()
        qtbot.addWidget(win)
        status = KernelStatusWidget(win)
        win.statusBar().addPermanentWidget(status)
        page = QWidget()
        win.setCentralWidget(page)
        win.show()
        ran = []
        pending = when_kernels_ready(["ua"], lambda: ran.append(1), page, "Harvest")
        assert pending is not None and ran == []
        assert "Harvest: preparing (compiling kernels)" in pending.indicator.text.text()
        assert pending.indicator.isVisible()
        qtbot.waitUntil(lambda: status.label.text() == "preparing kernels: 0/2 groups", timeout=2000)
        threading.Thread(target=r.mark_ready, args=("ua",)).start()
        qtbot.waitUntil(lambda: ran == [1], timeout=5000)
        qtbot.waitUntil(lambda: status.label.text() == "preparing kernels: 1/2 groups", timeout=2000)
        # ready groups: the action runs at once
        when_kernels_ready(["ua"], lambda: ran.append(2), page, "Harvest")
        assert ran == [1, 2]
        # a dialog without the status line shows the indicator in itself
        from PySide6.QtWidgets import QDialog

        dlg = QDialog()
        qtbot.addWidget(dlg)
        dlg.show()
        pending = when_kernels_ready(["solver"], lambda: ran.append(3), dlg, "Rate")
        assert pending.indicator.window() is dlg and pending.indicator.isVisible()
        r.mark_ready("solver")
        qtbot.waitUntil(lambda: ran == [1, 2, 3], timeout=5000)
    finally:
        set_readiness(old)


def test_a_deleted_bridge_stops_listening_without_an_error(qtbot, caplog):
    """At the end of the process Qt may delete the readiness bridge while the compile launcher
    still reports: the report is dropped with the listener, not logged as a failure."""
    import shiboken6

    from sudokustudio.ui.kernels import bridge

    r = KernelReadiness(["solver", "ua"], ready=False)
    b = bridge(r)
    seen = []
    b.changed.connect(seen.append)
    r.mark_ready("ua")
    qtbot.waitUntil(lambda: seen == ["ua"], timeout=2000)
    shiboken6.delete(b)
    with caplog.at_level("ERROR"):
        r.mark_ready("solver")
    assert not [rec for rec in caplog.records if "listener failed" in rec.getMessage()]
    assert r._listeners == []


def test_survo_hint_waits_for_its_kernels_then_completes(qtbot, settings):
    """Hint on a board whose solver kernels are not ready: 'preparing (compiling
    kernels)' in the status bar, nothing runs; once the group is ready the solve runs
    and the hint appears."""
    from PySide6.QtWidgets import QMainWindow

    from sudokustudio.ui.kernels import KernelStatusWidget
    from sudokustudio.ui.survo_tab import SurvoTab

    r = KernelReadiness(["survo-solve", "survo-generate"], ready=False)
    old = set_readiness(r)
    try:
        win = QMainWindow()
        qtbot.addWidget(win)
        status = KernelStatusWidget(win)
        win.statusBar().addPermanentWidget(status)
        tab = SurvoTab(settings)
        win.setCentralWidget(tab)
        win.show()
        tab.load_example("worked_example.mat")      # the board works at once
        tab.request_swap(1, 2)
        assert len(tab.board.swaps) == 1
        tab.show_hint()
        qtbot.wait(200)
        assert tab.solutions is None and tab.hint_label.text() == ""
        assert "Hint and Solve: preparing (compiling kernels)" in " ".join(
            w.text.text() for w in status.findChildren(type(status._pending[0].indicator)))
        r.mark_ready("survo-solve")
        qtbot.waitUntil(lambda: tab.hint_label.text().startswith("Mate in"), timeout=120000)
        assert tab.solution_count == 1
        tab.shutdown()
    finally:
        set_readiness(old)


def test_an_action_queued_while_the_window_builds_shows_in_its_status_line(qtbot, settings):
    """The Survo board asks for its first puzzle while the window builds its tabs; with its
    kernels not ready that wait shows in the window's kernel line, not floating over the tabs."""
    from sudokustudio.ui.kernels import KernelBusyIndicator
    from sudokustudio.ui.main_window import MainWindow

    r = KernelReadiness(["survo-solve", "survo-generate"], ready=False)
    old = set_readiness(r)
    try:
        win = MainWindow(settings=settings, tab_names=["sudokustudio.ui.survo_tab:SurvoTab"], warm_up=False)
        qtbot.addWidget(win)
        indicators = win.findChildren(KernelBusyIndicator)
        assert indicators and all(w.parent() is win.kernel_status for w in indicators)
        assert any("Survo board: preparing" in w.text.text() for w in indicators)
        win.tabs.widget(0).shutdown()
    finally:
        set_readiness(old)


PARENT = r"""
import sys, time
from sudokustudio.kernels import KernelReadiness
from sudokustudio.kernels.launcher import CompileLauncher
launcher = CompileLauncher(KernelReadiness(["slow"], ready=False), check_cache=False)
launcher.start()
while not any(e["event"] == "hello" for e in launcher.events):  # sent after its parent-death signal is set
    time.sleep(0.05)
print(launcher.events[0]["pid"], flush=True)
time.sleep(120)
"""


def test_a_command_says_once_that_it_compiles(tmp_path):
    """The CLI's notice: written as the first compile of a process starts, not again for the next."""
    code = ("from sudokustudio.kernels.listener import announce_first_compile\n"
            "said = []\n"
            "announce_first_compile(said.append)\n"
            "from numba import njit\n"
            "assert not said\n"
            "assert njit(lambda x: x + 1)(1) == 2 and njit(lambda x: 2 * x)(2) == 4\n"
            "print(len(said), said[0])\n")
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("1 compiling kernels on first use") and "sudokustudio-cli warm" in out.stdout


def test_compile_process_ends_with_the_app(tmp_path):
    """A window killed with -9 leaves no compile process behind."""
    import signal

    env = _env(tmp_path / "numba-cache", {"slow": ["kernel_fixture:slow"]})
    parent = subprocess.Popen([sys.executable, "-c", PARENT], env=env, stdout=subprocess.PIPE, text=True)
    try:
        child = int(parent.stdout.readline())
        os.kill(parent.pid, signal.SIGKILL)
        parent.wait(10)
        t0 = time.monotonic()
        while time.monotonic() - t0 < 10:
            try:
                os.kill(child, 0)
            except ProcessLookupError:
                break
            with open(f"/proc/{child}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[0] == "Z":  # a zombie: ended, not reaped
                    break
            time.sleep(0.1)
        else:
            os.kill(child, signal.SIGKILL)
            pytest.fail("the compile process outlived the app")
    finally:
        if parent.poll() is None:
            parent.kill()


def test_requested_groups_preload_once_when_cached_off_the_caller(monkeypatch):
    """A tab's groups load on a background thread: not before they are cached, once only, and
    the readiness says they are loaded (the window freezes them out of the collector then)."""
    import kernel_fixture
    from sudokustudio.kernels.groups import KernelGroup
    from sudokustudio.kernels.launcher import CompileLauncher

    monkeypatch.setitem(GROUPS, "probe", KernelGroup("probe", "probe", ("kernel_fixture:probe",)))
    kernel_fixture.PROBE_THREADS.clear()
    r = KernelReadiness(["probe", "tiny"], ready=False)
    CompileLauncher(r, groups=["tiny"], preload=True).request_preload(["probe"])   # not its group
    launcher = CompileLauncher(r, groups=["probe", "tiny"], preload=True)
    launcher.request_preload(["probe", "unknown"])
    time.sleep(0.2)
    assert kernel_fixture.PROBE_THREADS == [] and not r.state("probe").loaded   # not cached yet
    r.mark_ready("probe", cached=True)
    t0 = time.monotonic()
    while not r.state("probe").loaded and time.monotonic() - t0 < 30:
        time.sleep(0.01)
    assert r.state("probe").loaded
    launcher.request_preload(["probe"])
    r.mark_ready("probe", cached=True)
    time.sleep(0.2)
    assert kernel_fixture.PROBE_THREADS == ["kernel-preload"]
    # a launcher without preload (the CLI's) loads nothing
    CompileLauncher(KernelReadiness(["probe"]), groups=["probe"]).request_preload(["probe"])
    time.sleep(0.1)
    assert kernel_fixture.PROBE_THREADS == ["kernel-preload"]


def test_window_asks_for_the_groups_of_the_tab_that_stays_shown(qtbot, settings):
    """want_soon: compile them next on a first start, load them once cached."""
    from sudokustudio.ui import main_window as M

    win = M.MainWindow(settings=settings, warm_up=False,
                       tab_names=["sudokustudio.ui.estimator_tab:EstimatorTab", "sudokustudio.ui.ua_tab:UATab",
                                  "sudokustudio.ui.browser_tab:BrowserTab"])
    qtbot.addWidget(win)
    asked = []

    class Launcher:
        def want_soon(self, groups):
            asked.append(tuple(groups))

        def stop(self):
            pass

    win.compile_launcher = Launcher()
    win.tabs.setCurrentIndex(1)
    win.tabs.setCurrentIndex(0)          # flipping through: only the tab that stays counts
    qtbot.wait(M.PRELOAD_AFTER_MS + 300)
    assert asked == [("grid-estimators", "estimators")]
    win.tabs.setCurrentIndex(2)          # a tab without kernels asks for nothing
    qtbot.wait(M.PRELOAD_AFTER_MS + 300)
    win.tabs.setCurrentIndex(1)
    qtbot.waitUntil(lambda: len(asked) == 2, timeout=3000)
    assert asked[1] == ("ua",)
    win.compile_launcher = None
    win.close()
