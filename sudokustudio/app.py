"""Entry point of the window: ``sudokustudio`` or ``python -m sudokustudio``."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

SMOKE_ENV = "SUDOKUSTUDIO_SMOKE"
#: seconds the one-off background calls still running when the window has closed may take to end
BACKGROUND_CALLS_WAIT = 1.0


def main(argv: list[str] | None = None) -> int:
    problem = display_problem()
    if problem:   # Qt would abort the process with a message that names neither cause nor fix
        print(f"sudokustudio: {problem}", file=sys.stderr)
        return 2
    import pyqtgraph as pg
    from PySide6.QtWidgets import QApplication

    from sudokustudio.logs import setup_logging
    from sudokustudio.ui.main_window import APP, ORG, MainWindow

    setup_logging()
    _log_uncaught_exceptions()
    app = QApplication.instance() or QApplication(sys.argv if argv is None else argv)
    app.setOrganizationName(ORG)
    app.setApplicationName(APP)
    pg.setConfigOptions(antialias=True, background="w", foreground="k")
    from sudokustudio.ui.style import apply_style

    apply_style(app)
    win = MainWindow()
    win.show()
    smoke = os.environ.get(SMOKE_ENV, "")
    if smoke:
        _quit_when_shown(app, win, wait_for_kernels=smoke == "kernels",
                         timeout=float(os.environ.get("SUDOKUSTUDIO_SMOKE_TIMEOUT", "600")))
    status = app.exec()
    end_background_calls(status)
    return status


def end_background_calls(status: int, wait: float = BACKGROUND_CALLS_WAIT) -> None:
    """Let the one-off background calls still running after the window closed (a solve, an
    import: ui/background.py) end within ``wait`` seconds, while their Qt signal objects exist.
    Without this Qt's thread pool holds the process until the last one ends (minutes for a long
    solve, with the window already gone), and Python's teardown deletes the objects under them
    (a traceback on stderr for each).  Past the wait the process ends at once, its logs flushed
    and its Dask clients closed here (not by the exit handlers: PySide's own waits for the pool);
    the window has already stopped its runs and saved their batches, so only answers that
    nobody waits for are lost."""
    import logging

    from PySide6.QtCore import QThreadPool

    if QThreadPool.globalInstance().waitForDone(int(wait * 1000)):
        return
    logging.getLogger("sudokustudio.app").info(
        "%d background call(s) still running %.1f s after the window closed: not waited for",
        QThreadPool.globalInstance().activeThreadCount(), wait)
    if "sudokustudio.jobs.dask" in sys.modules:
        sys.modules["sudokustudio.jobs.dask"].close_shared_clients()
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)


def display_problem(environ=None, platform: str | None = None, missing=None) -> str | None:
    """Why the window cannot open on this Linux machine, or None: no display at all, or Qt's X11
    platform plugin missing system libraries (``missing``: a callable listing them; by default
    ``ldd`` on the plugin).  Other platforms, and a platform chosen with QT_QPA_PLATFORM other
    than xcb (offscreen, wayland, ...), are left to Qt."""
    environ = os.environ if environ is None else environ
    platform = sys.platform if platform is None else platform
    if not platform.startswith("linux"):
        return None
    chosen = environ.get("QT_QPA_PLATFORM", "")
    if chosen and not chosen.startswith("xcb"):
        return None
    if not chosen and environ.get("WAYLAND_DISPLAY"):
        return None
    if not environ.get("DISPLAY"):
        return ("no display to open the window on (DISPLAY is not set). Start it from a desktop session, "
                "under a virtual display (xvfb-run sudokustudio), or use the command line (sudokustudio-cli --help).")
    libraries = (missing or missing_xcb_libraries)()
    if libraries:
        packages = " ".join(debian_package(lib) for lib in libraries)
        return (f"Qt's X11 platform plugin cannot load: the system libraries {', '.join(libraries)} are missing. "
                f"On Debian or Ubuntu: sudo apt-get install {packages}")
    return None


def missing_xcb_libraries() -> list[str]:
    """The shared libraries Qt's xcb platform plugin links to and this system lacks (by ``ldd``;
    none known when ldd or the plugin is not there)."""
    try:
        import PySide6
    except ImportError:
        return []
    plugin = Path(PySide6.__file__).parent / "Qt" / "plugins" / "platforms" / "libqxcb.so"
    ldd = shutil.which("ldd")
    if ldd is None or not plugin.exists():
        return []
    try:
        out = subprocess.run([ldd, str(plugin)], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    return sorted(set(re.findall(r"^\s*(\S+)\s*=>\s*not found", out, flags=re.MULTILINE)))


def debian_package(library: str) -> str:
    """The Debian package name of a shared library by the usual rule: libxcb-icccm.so.4 ->
    libxcb-icccm4, libxkbcommon-x11.so.0 -> libxkbcommon-x11-0 (a hyphen after a digit)."""
    m = re.fullmatch(r"(.+)\.so\.(\d+)(?:\.\d+)*", library)
    if not m:
        return library
    base, version = m.groups()
    return f"{base}{'-' if base[-1].isdigit() else ''}{version}"


def _log_uncaught_exceptions() -> None:
    """An exception escaping a Qt slot is logged with its traceback (Qt would only print it)."""
    import logging

    log = logging.getLogger("sudokustudio.app")
    previous = sys.excepthook

    def hook(kind, exc, tb):
        log.error("uncaught exception", exc_info=(kind, exc, tb))
        previous(kind, exc, tb)

    sys.excepthook = hook


def _quit_when_shown(app, win, wait_for_kernels: bool = False, timeout: float = 600.0) -> None:
    """Smoke test of an installed or frozen app (``SUDOKUSTUDIO_SMOKE=1``): once the
    window is exposed print "window shown" and quit with status 0; with
    ``SUDOKUSTUDIO_SMOKE=kernels`` first wait for the kernel warm-up and print its
    status line (status 1 if a kernel failed).  Status 1 if the window never shows."""
    from PySide6.QtCore import QTimer

    t0 = time.monotonic()
    state = {"shown": False}

    def check():
        handle = win.windowHandle()
        if not state["shown"] and handle is not None and handle.isExposed():
            state["shown"] = True
            print("window shown", flush=True)
        warming = wait_for_kernels and not win.kernels_settled()
        if state["shown"] and not warming:
            status = 0
            if wait_for_kernels:
                win.kernel_status.refresh()  # the status line now, not on its next timer tick
                print(f"kernels: {win.kernel_label.text()}", flush=True)
                errors = win.kernel_errors()
                if errors:
                    print("\n".join(errors), file=sys.stderr, flush=True)
                    status = 1
            win.close()
            app.exit(status)
        elif time.monotonic() - t0 > timeout:
            print("window not shown" if not state["shown"] else "kernel warm-up did not finish",
                  file=sys.stderr, flush=True)
            app.exit(1)
        else:
            QTimer.singleShot(50, check)

    QTimer.singleShot(0, check)


if __name__ == "__main__":
    raise SystemExit(main())
