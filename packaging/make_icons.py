"""Render the app icon (resources/icons/sudokustudio.svg) to the PNG sizes of the
freedesktop hicolor theme: packaging/icons/hicolor/<N>x<N>/apps/sudokustudio.png.

    QT_QPA_PLATFORM=offscreen python3 packaging/make_icons.py

The PNGs are committed; run this again after changing the SVG.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

SIZES = (16, 24, 32, 48, 64, 128, 256, 512)
HERE = Path(__file__).resolve().parent
SVG = HERE.parent / "resources" / "icons" / "sudokustudio.svg"


def main() -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QGuiApplication, QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    app = QGuiApplication.instance() or QGuiApplication(sys.argv)  # noqa: F841 (fonts need it)
    renderer = QSvgRenderer(str(SVG))
    if not renderer.isValid():
        print(f"cannot read {SVG}", file=sys.stderr)
        return 1
    for n in SIZES:
        image = QImage(n, n, QImage.Format_ARGB32)
        image.fill(Qt.transparent)
        painter = QPainter(image)
        painter.setRenderHint(QPainter.Antialiasing)
        renderer.render(painter)
        painter.end()
        out = HERE / "icons" / "hicolor" / f"{n}x{n}" / "apps" / "sudokustudio.png"
        out.parent.mkdir(parents=True, exist_ok=True)
        image.save(str(out))
        print(out.relative_to(HERE.parent))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
