"""Time from process start to the main window being shown (offscreen).

    python3 benchmarks/startup.py [--runs 3]

Run twice: the first run may compile kernels in the background (the window
must not wait for them); later runs measure the warm-cache start (target <= 2 s).
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

CHILD = r"""
import time, sys
t0 = time.perf_counter()
from PySide6.QtWidgets import QApplication
from PySide6.QtCore import QSettings
app = QApplication(sys.argv)
from sudokustudio.ui.main_window import MainWindow
import tempfile, os
win = MainWindow(settings=QSettings(os.path.join(tempfile.mkdtemp(), "s.ini"), QSettings.IniFormat))
win.show()
while not win.isVisible() or not win.windowHandle() or not win.windowHandle().isExposed():
    app.processEvents()
t_shown = time.perf_counter() - t0
print(f"{t_shown:.3f}")
while win.kernel_label.text() == "Compiling kernels…":
    app.processEvents(); time.sleep(0.01)
print(f"{time.perf_counter() - t0:.3f}")
"""


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    for i in range(args.runs):
        t0 = time.perf_counter()
        out = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True, text=True, check=True)
        total = time.perf_counter() - t0
        shown, ready = (float(x) for x in out.stdout.split())
        print(f"run {i + 1}: window shown {shown:.2f} s after imports began "
              f"({total - ready + shown:.2f} s incl. interpreter start); kernels ready at {ready:.2f} s")


if __name__ == "__main__":
    main()
