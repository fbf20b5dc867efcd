"""Entry point of the window: ``sudokustudio`` or ``python -m sudokustudio``."""
from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    from PySide6.QtWidgets import QApplication

    import pyqtgraph as pg

    from sudokustudio.ui.main_window import APP, ORG, MainWindow

    app = QApplication.instance() or QApplication(sys.argv if argv is None else argv)
    app.setOrganizationName(ORG)
    app.setApplicationName(APP)
    pg.setConfigOptions(antialias=True, background="w", foreground="k")
    from sudokustudio.ui.style import apply_style

    apply_style(app)
    win = MainWindow()
    win.show()
    return app.exec()


if __name__ == "__main__":
    raise SystemExit(main())
