import faulthandler
import gc
import os
import tempfile
import types
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("NUMBA_CACHE_DIR", "")  # numba's default: __pycache__ beside the sources

import numpy as np
import pytest
from pyqtgraph.util.garbage_collector import GarbageCollector

REPO = Path(__file__).resolve().parent.parent
SHARED_DATA = REPO.parent / "shared" / "data"


#: seconds after which a test's process writes every thread's stack to ``HUNG_TEST_DUMP`` and exits:
#: pytest-timeout (300 s, pyproject) needs the GIL to fire, and a run once hung with both workers
#: blocked (a test stuck in C code holding the GIL); this watchdog is a C thread and needs none
HARD_TIMEOUT = 360
HUNG_TEST_DUMP = Path(tempfile.gettempdir()) / "sudokustudio-hung-test.txt"


# Qt objects must die in the GUI thread (as the window ensures, ui/main_window.py): a run once
# deadlocked when a background thread's automatic collection freed a widget tree of an earlier
# test while the main thread deleted it.  Collection is off; it runs here, after each test.
gc.disable()
_THRESHOLDS = types.SimpleNamespace(threshold=gc.get_threshold(), debug=False)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    """Arm the watchdog for the test's setup, call and teardown (xdist then reports the worker
    crashed in that test; ``.ci/run`` prints the dump); then collect garbage in this (the main)
    thread by the usual generation thresholds (pyqtgraph's check, without its timer)."""
    with open(HUNG_TEST_DUMP, "a") as dump:
        faulthandler.dump_traceback_later(HARD_TIMEOUT, exit=True, file=dump)
        try:
            yield
        finally:
            faulthandler.cancel_dump_traceback_later()
    GarbageCollector.check(_THRESHOLDS)


@pytest.fixture(scope="session")
def shared_data() -> Path:
    if not SHARED_DATA.is_dir():
        pytest.fail(f"shared data not found at {SHARED_DATA} (CI clones shared/ beside the repo)")
    return SHARED_DATA


@pytest.fixture(autouse=True)
def _isolated_user_data(tmp_path, monkeypatch):
    """Run stores and settings go to a temporary folder, never the user's."""
    monkeypatch.setenv("SUDOKUSTUDIO_DATA", str(tmp_path / "userdata"))
    (tmp_path / "userdata").mkdir(exist_ok=True)


@pytest.fixture
def settings(tmp_path):
    from PySide6.QtCore import QSettings

    return QSettings(str(tmp_path / "settings.ini"), QSettings.IniFormat)


def load_puzzles(path, limit=None) -> np.ndarray:
    from sudokustudio.sudoku.grid import read_puzzles

    arr = read_puzzles(path).puzzles
    return arr if limit is None else arr[:limit]


def sorted_records(result) -> np.ndarray:
    """An atlas's records in margin order (row sums, then column sums): the same puzzles compare
    equal whatever order batches or methods found them in."""
    return result.records[np.lexsort(result.records[:, :result.m + result.n].T[::-1])]
