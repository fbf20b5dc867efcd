"""Count and log every kernel numba still compiles in this process.

The window's process should only load kernels from the cache; a compile here
(a cache miss: a new argument type, a kernel missing from its group's warm
function, an unusable cache) holds the GIL and stalls the UI.
``install_compile_logger`` makes each one visible: a log warning with the
kernel's name and seconds, and the process-wide count ``compiles_here()``
(also in ``KernelReadiness.summary()``).  Light to import: numba only when
installing.
"""
from __future__ import annotations

import logging
import threading
import time
from typing import Callable

log = logging.getLogger("sudokustudio.kernels.compiles")
_lock = threading.Lock()
_state = {"installed": False, "count": 0, "names": []}


def install_compile_logger() -> None:
    """Install the numba:compile listener once per process."""
    with _lock:
        if _state["installed"]:
            return
        _state["installed"] = True
    from numba.core import event as ev

    class CompileLogger(ev.Listener):
        def on_start(self, event):
            event.data["_t0"] = time.perf_counter()

        def on_end(self, event):
            fn = getattr(event.data.get("dispatcher"), "py_func", None)
            name = f"{getattr(fn, '__module__', '?')}.{getattr(fn, '__qualname__', '?')}"
            secs = time.perf_counter() - event.data.get("_t0", time.perf_counter())
            with _lock:
                _state["count"] += 1
                _state["names"].append(name)
            log.warning("numba compiled %s in this process (%.2f s): its kernel group was not cached",
                        name, secs)

    ev.register("numba:compile", CompileLogger())


def compiles_here() -> int:
    """Kernels compiled in this process since the logger was installed."""
    return _state["count"]


def compiled_names() -> list[str]:
    with _lock:
        return list(_state["names"])


_first = {"write": None, "installed": False}   # announce_first_compile's writer, until it has written
#: what a command says as it starts compiling (once a process)
FIRST_COMPILE_NOTICE = ("compiling kernels on first use: once after an install or an update "
                        "(`sudokustudio-cli warm` compiles them all ahead)…")


def announce_first_compile(write: Callable[[str], None]) -> None:
    """Call ``write(FIRST_COMPILE_NOTICE)`` once, as numba starts the next compile in this process
    (the CLI, for each command): a command's first run compiles its kernels, and a cold top-down
    run had sat silent for 36 s (an estimate for minutes) before its progress bar."""
    with _lock:
        _first["write"] = write
        if _first["installed"]:
            return
        _first["installed"] = True
    from numba.core import event as ev

    class FirstCompile(ev.Listener):
        def on_start(self, event):
            with _lock:
                write_now, _first["write"] = _first["write"], None
            if write_now is not None:
                write_now(FIRST_COMPILE_NOTICE)

        def on_end(self, event):
            pass

    ev.register("numba:compile", FirstCompile())
