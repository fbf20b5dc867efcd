"""Kernels to compile (or load from numba's cache) in the background at start-up.

Each entry is "module:function"; the function takes no argument and calls
its kernels once on tiny inputs.  Domains add their own entry here.
"""
from __future__ import annotations

import importlib
import threading

WARMUPS: list[str] = [
    "sudokustudio.survo.warm:warm_up",
    "sudokustudio.survo.atlas:warm_up",
    "sudokustudio.sudoku.estimators:warm_up",
    "sudokustudio.sudoku.warm:warm_up",
    "sudokustudio.sudoku.generators:warm_up",
    "sudokustudio.sudoku.rating:warm_up",
    "sudokustudio.sudoku.unavoidable:warm_up",
]


def run_warmups(names: list[str] | None = None) -> list[str]:
    """Run the warm-ups; returns the errors (warm-up problems must not stop the app)."""
    errors = []
    for name in names or WARMUPS:
        mod, _, fn = name.partition(":")
        try:
            getattr(importlib.import_module(mod), fn)()
        except Exception as exc:  # reported in the status bar, never fatal
            errors.append(f"{name}: {type(exc).__name__}: {exc}")
    return errors


def warm_up_in_background() -> threading.Thread:
    t = threading.Thread(target=run_warmups, name="kernel-warmup", daemon=True)
    t.start()
    return t
