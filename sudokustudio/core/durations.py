"""Durations as people read them: one formatter for the window, the CLI and the reports."""
from __future__ import annotations

import math


def duration_text(seconds: float | None, rounded: bool = False) -> str:
    """``seconds`` as text: "42.0 s", "3 min 07 s", "2 h 05 min", "4.2 days"; unknown -> "–".

    ``rounded``: one figure for an "about" (a prediction): "0.009 s", "42 s", "3 min", "2.1 h",
    "4 days" (below a second one significant figure: "0 s" said a small run cost nothing).
    """
    if seconds is None or not math.isfinite(seconds):
        return "–"
    if rounded:
        if 0 < seconds < 0.95:
            return f"{seconds:.1g} s"
        if seconds < 90:
            return f"{seconds:.0f} s"
        if seconds < 5400:
            return f"{seconds / 60:.0f} min"
        if seconds < 48 * 3600:
            return f"{seconds / 3600:.1f} h"
        return f"{seconds / 86400:.0f} days"
    if seconds < 60:
        return f"{seconds:.1f} s"
    if seconds < 3600:
        return f"{int(seconds // 60)} min {int(seconds % 60):02d} s"
    if seconds < 86400 * 3:
        return f"{int(seconds // 3600)} h {int(seconds % 3600 // 60):02d} min"
    return f"{seconds / 86400:.3g} days"
