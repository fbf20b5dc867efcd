"""The window's entry point names why it cannot open (sudokustudio/app.py) instead of Qt's abort."""
import subprocess
import sys

from sudokustudio.app import debian_package, display_problem


def no_libraries_missing():
    return []


def test_no_display_is_named_with_the_ways_out():
    problem = display_problem({}, "linux", no_libraries_missing)
    assert "DISPLAY is not set" in problem and "xvfb-run" in problem and "sudokustudio-cli" in problem


def test_a_display_or_another_platform_is_left_to_qt():
    assert display_problem({"DISPLAY": ":0"}, "linux", no_libraries_missing) is None
    assert display_problem({"WAYLAND_DISPLAY": "wayland-0"}, "linux", no_libraries_missing) is None
    assert display_problem({"QT_QPA_PLATFORM": "offscreen"}, "linux", no_libraries_missing) is None
    assert display_problem({}, "win32", no_libraries_missing) is None
    assert display_problem({}, "darwin", no_libraries_missing) is None
    # xcb asked for by name still needs an X display
    assert "DISPLAY" in display_problem({"QT_QPA_PLATFORM": "xcb", "WAYLAND_DISPLAY": "w"}, "linux",
                                        no_libraries_missing)


def test_missing_x11_libraries_are_named_with_their_debian_packages():
    problem = display_problem({"DISPLAY": ":0"}, "linux", lambda: ["libxcb-icccm.so.4", "libxkbcommon-x11.so.0"])
    assert "libxcb-icccm.so.4, libxkbcommon-x11.so.0" in problem
    assert problem.endswith("apt-get install libxcb-icccm4 libxkbcommon-x11-0")


def test_debian_package_names():
    assert debian_package("libxcb-cursor.so.0") == "libxcb-cursor0"
    assert debian_package("libxcb-render-util.so.0") == "libxcb-render-util0"
    assert debian_package("libxcb-xkb.so.1") == "libxcb-xkb1"
    assert debian_package("libfoo.so.1.2.3") == "libfoo1"
    assert debian_package("weird-name") == "weird-name"


def test_the_entry_point_exits_with_the_message_instead_of_aborting(tmp_path):
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "SUDOKUSTUDIO_DATA": str(tmp_path)}
    run = subprocess.run([sys.executable, "-c", "import sys; from sudokustudio.app import main; sys.exit(main())"],
                         env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode == 2
    assert run.stderr.startswith("sudokustudio: no display to open the window on")


_CLOSING = """
import os, sys, time
os.environ["QT_QPA_PLATFORM"] = "offscreen"
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QWidget
from sudokustudio.app import end_background_calls
from sudokustudio.ui.background import BackgroundCalls
app = QApplication([])
view = QWidget()
calls = BackgroundCalls(view)
calls.submit("call", lambda: time.sleep({seconds}) or 1, on_done=print)
QTimer.singleShot(100, app.quit)   # the window closes while the call runs
app.exec()
end_background_calls(3, wait={wait})
print("waited for the call")
"""


def _close_with_a_call(seconds: float, wait: float) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", _CLOSING.format(seconds=seconds, wait=wait)],
                          capture_output=True, text=True, timeout=60)


def test_a_background_call_that_outlasts_the_wait_does_not_hold_the_process():
    # before end_background_calls the process lived until the call's 120 s were over, then printed
    # "Signal source has been deleted" tracebacks
    done = _close_with_a_call(seconds=120, wait=0.5)
    assert done.returncode == 3
    assert "waited for the call" not in done.stdout
    assert "Traceback" not in done.stderr, done.stderr


def test_a_background_call_that_ends_within_the_wait_ends_cleanly():
    done = _close_with_a_call(seconds=0.3, wait=30)
    assert done.returncode == 0
    assert "waited for the call" in done.stdout
    assert "Traceback" not in done.stderr and "deleted" not in done.stderr, done.stderr
