"""Count and log every kernel numba still compiles in this process.

The window's process should only load kernels from the cache; a compile here
(a cache miss: a new argument type, a group missing from a warm function, an
unusable cache) holds the GIL and stalls the UI.  ``install_compile_logger``
makes each one visible: a log warning with the kernel's name and seconds, and
the count in ``KernelReadiness.compiles_here``.
"""
from __future__ import annotations

import logging
import time

log = logging.getLogger("sudokustudio.kernels.compiles")
_installed: list = []


def install_compile_logger(readiness=None) -> None:
    """Install the numba:compile listener once per process (later calls re-point it)."""
    from numba.core import event as ev

    from sudokustudio.kernels.readiness import readiness as current

    if _installed:
        _installed[0].target = readiness
        return

    class CompileLogger(ev.Listener):
        target = readiness
        depth = 0

        def on_start(self, event):
            self.depth += 1
            event.data["_t0"] = time.perf_counter()

        def on_end(self, event):
            self.depth -= 1
            r = self.target or current()
            r.compiles_here += 1
            fn = getattr(event.data.get("dispatcher"), "py_func", None)
            name = f"{getattr(fn, '__module__', '?')}.{getattr(fn, '__qualname__', '?')}"
            secs = time.perf_counter() - event.data.get("_t0", time.perf_counter())
            log.warning("numba compiled %s in this process (%.2f s): its kernel group was not cached",
                        name, secs)

    listener = CompileLogger()
    ev.register("numba:compile", listener)
    _installed.append(listener)


def compiles_here() -> int:
    from sudokustudio.kernels.readiness import readiness

    return readiness().compiles_here
