"""The compile process: ``python -m sudokustudio.kernels --group G [--group H ...]``.

Runs each group's warm functions (which compile the kernels into numba's
on-disk cache, or load them from it), writes the group's stamp, and reports
on stdout, one JSON object a line::

    {"event": "start",  "group": G, "warm": [...], "expected": N or null}
    {"event": "kernel", "group": G, "name": "module.function", "seconds": s, "n": k}
    {"event": "warm",   "group": G, "function": "module:function", "seconds": s, "cpu_seconds": c}
    {"event": "done",   "group": G, "seconds": s, "cpu_seconds": c, "kernels": k, "stamped": bool}
    {"event": "failed", "group": G, "error": "...", "traceback": "..."}

A group whose warm-up fails is retried once after deleting unreadable cache
files (a corrupt index); the exit status is 1 if a group failed.
"""
from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
import time
import traceback

from sudokustudio.kernels.groups import GROUPS, check_groups


def set_low_priority(level: str) -> None:
    """'idle': SCHED_IDLE (runs only when a core would idle) and nice 19; 'nice': nice 19."""
    if level == "normal":
        return
    try:
        os.nice(19 - os.nice(0))
    except OSError:
        pass
    if level == "idle" and hasattr(os, "sched_setscheduler") and hasattr(os, "SCHED_IDLE"):
        try:
            os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
        except OSError:
            pass


def die_with_parent() -> None:
    """Linux: end this process when the app that started it ends (even by a crash or a
    kill), so no compile process outlives the window."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes
        import signal

        parent = os.getppid()
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, int(signal.SIGTERM), 0, 0, 0)  # PR_SET_PDEATHSIG
        if os.getppid() != parent:   # the parent died before prctl
            os._exit(1)
    except (OSError, AttributeError):
        pass


class _Emitter:
    def __init__(self, stream):
        self.stream = stream

    def __call__(self, **event) -> None:
        self.stream.write(json.dumps(event) + "\n")
        self.stream.flush()


def _install_kernel_listener(emit, state: dict) -> None:
    """Report every kernel numba compiles (cache misses) while a group warms up."""
    from numba.core import event as ev

    class Listener(ev.Listener):
        def on_start(self, event):
            state.setdefault("starts", []).append(time.perf_counter())

        def on_end(self, event):
            t0 = state["starts"].pop() if state.get("starts") else time.perf_counter()
            disp = event.data.get("dispatcher")
            fn = getattr(disp, "py_func", None)
            name = f"{getattr(fn, '__module__', '?')}.{getattr(fn, '__qualname__', '?')}"
            state["n"] = state.get("n", 0) + 1
            emit(event="kernel", group=state.get("group"), name=name,
                 seconds=round(time.perf_counter() - t0, 3), n=state["n"])

    ev.register("numba:compile", Listener())


def _expected_counts() -> dict:
    from sudokustudio.kernels.cache import stamp_dir

    d = stamp_dir()
    try:
        return json.loads((d / "kernel-counts").read_text()) if d else {}
    except (OSError, ValueError):
        return {}


def _save_count(group: str, n: int) -> None:
    from sudokustudio.kernels.cache import _atomic_write, stamp_dir

    d = stamp_dir()
    if d is None or n == 0:
        return
    counts = _expected_counts()
    counts[group] = n
    try:
        _atomic_write(d / "kernel-counts", json.dumps(counts))
    except OSError:
        pass


def warm_group(group: str, emit, state: dict) -> dict:
    """Run one group's warm functions; returns the "done" event's fields."""
    g = GROUPS[group]
    state.update(group=group, n=0, starts=[])
    w0, c0 = time.perf_counter(), time.process_time()
    functions = {}
    for name in g.warm:
        mod, _, fn = name.partition(":")
        w1, c1 = time.perf_counter(), time.process_time()
        getattr(importlib.import_module(mod), fn)()
        functions[name] = {"seconds": round(time.perf_counter() - w1, 3),
                           "cpu_seconds": round(time.process_time() - c1, 3)}
        emit(event="warm", group=group, function=name, **functions[name])
    return {"seconds": round(time.perf_counter() - w0, 3), "cpu_seconds": round(time.process_time() - c0, 3),
            "kernels": state["n"], "functions": functions}


def run_groups(groups: list[str], emit) -> int:
    from sudokustudio.kernels import cache

    state: dict = {}
    _install_kernel_listener(emit, state)
    expected = _expected_counts()
    status = 0
    for group in groups:
        emit(event="start", group=group, warm=list(GROUPS[group].warm),
             expected=expected.get(group) or GROUPS[group].kernels_hint)
        for attempt in (1, 2):
            try:
                info = warm_group(group, emit, state)
            except Exception as exc:  # reported to the launcher; the app falls back
                if attempt == 1:
                    removed = cache.repair_cache()
                    if removed:
                        emit(event="repaired", group=group, removed=removed)
                        continue
                emit(event="failed", group=group, error=f"{type(exc).__name__}: {exc}",
                     traceback=traceback.format_exc())
                status = 1
                break
            stamped = cache.write_stamp(group, info)
            _save_count(group, info["kernels"])
            emit(event="done", group=group, stamped=stamped, **info)
            break
    return status


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m sudokustudio.kernels",
                                 description="Compile kernel groups into numba's on-disk cache.")
    ap.add_argument("--group", action="append", required=True, help="kernel group (repeat for several)")
    ap.add_argument("--priority", choices=("idle", "nice", "normal"), default="normal",
                    help="idle: SCHED_IDLE and nice 19 (the app's background compiles); nice: nice 19")
    ap.add_argument("--die-with-parent", action="store_true", help="end when the starting process ends")
    args = ap.parse_args(argv)
    groups = list(check_groups(args.group))
    if args.die_with_parent:
        die_with_parent()
    set_low_priority(args.priority)
    # events go to the real stdout; anything a warm function prints goes to stderr
    out = os.fdopen(os.dup(sys.stdout.fileno()), "w", buffering=1)
    sys.stdout.flush()
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    emit = _Emitter(out)
    emit(event="hello", pid=os.getpid(), groups=groups)
    return run_groups(groups, emit)
