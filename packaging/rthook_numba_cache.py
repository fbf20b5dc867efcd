"""PyInstaller runtime hook: runs before the app imports numba.

Numba cannot write its cache inside the bundle (it may be read-only, and
frozen modules have no __pycache__ beside them), so compiled kernels go to
the user's cache folder: $XDG_CACHE_HOME/sudokustudio/numba, by default
~/.cache/sudokustudio/numba.  A NUMBA_CACHE_DIR set by the user wins.
"""
import os
import sys

if getattr(sys, "frozen", False) and not os.environ.get("NUMBA_CACHE_DIR"):
    _base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    _cache = os.path.join(_base, "sudokustudio", "numba")
    try:
        os.makedirs(_cache, exist_ok=True)
        os.environ["NUMBA_CACHE_DIR"] = _cache
    except OSError:  # no writable home: numba then compiles in memory every start
        pass
