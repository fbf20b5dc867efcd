"""Entry point of the window: ``sudokustudio`` or ``python -m sudokustudio``."""
from __future__ import annotations

import os
import sys
import time

SMOKE_ENV = "SUDOKUSTUDIO_SMOKE"


def main(argv: list[str] | None = None) -> int:
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
    return app.exec()


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
