"""Background compile processes for the window (Qt-free).

``CompileLauncher(readiness).start()`` checks, off the calling thread, which
groups the cache already holds (``cache.is_cached``); the others are
compiled by ``python -m sudokustudio.kernels --group G`` processes, one per
group in GROUPS order (a group somebody waits for goes first), at most
``max_procs`` at a time (default: one per core), at the lowest
priority (SCHED_IDLE, nice 19): an idle-class process gets a core only when
nothing else wants it, so the window and its runs still come first.  Their reports (one JSON line per kernel)
update the readiness model.

When a compile process fails (it crashed, the cache is not writable, ...),
the group falls back to compiling inside this process on a background
thread, and the readiness says so; if that fails too the group is marked
failed (its kernels then compile when first used).  Nothing here raises
into the caller.
"""
from __future__ import annotations

import collections
import json
import logging
import os
import subprocess
import sys
import threading
import time

from sudokustudio.kernels.groups import GROUPS
from sudokustudio.kernels.readiness import COMPILING, FALLBACK, KernelReadiness

log = logging.getLogger(__name__)
PRIORITY_ENV = "SUDOKUSTUDIO_COMPILE_PRIORITY"   # idle (default) | nice | normal


def default_procs() -> int:
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:
        cores = os.cpu_count() or 1
    # one per core, not cores - 1: at SCHED_IDLE they yield to the window at once, and on
    # 2 cores "cores - 1" left a core unused while the window sat idle (all kernels ready
    # after 143 s instead of ~90 s)
    return max(1, cores)


def compile_command(groups: list[str], priority: str) -> list[str]:
    """The command line of a compile process (a frozen app runs itself with a flag)."""
    args = [a for g in groups for a in ("--group", g)] + ["--priority", priority, "--die-with-parent"]
    if getattr(sys, "frozen", False):
        return [sys.executable, "--compile-kernels", *args]
    return [sys.executable, "-m", "sudokustudio.kernels", *args]


class CompileLauncher:
    def __init__(self, readiness: KernelReadiness, groups=None, max_procs: int | None = None,
                 priority: str | None = None, env: dict | None = None, fallback: bool = True,
                 check_cache: bool = True, preload: bool = False):
        """``check_cache=False``: compile every group without looking at stamps (tests).
        ``preload``: initialise numba and load the kernels of the groups marked ``preload``
        (and those asked for by ``request_preload``) on a background thread of this process
        once they are cached, so the first action does not load them while the window is in
        use (loading holds the GIL up to ~40 ms at a time)."""
        self.readiness = readiness
        self.groups = [g for g in (groups or readiness.groups()) if g in GROUPS]
        self.max_procs = max_procs or default_procs()
        self.priority = priority or os.environ.get(PRIORITY_ENV, "idle")
        self.env = env
        self.fallback = fallback
        self.check_cache = check_cache
        self.preload = preload
        self._preload_wanted: set[str] = {g for g in self.groups if GROUPS[g].preload} if preload else set()
        self._preloaded: set[str] = set()
        self._lock = threading.Lock()
        self._queue: list[str] = []
        self._running: dict[str, subprocess.Popen] = {}
        self._stopped = False
        self._fallback_q: collections.deque[str] = collections.deque()
        self._fallback_thread: threading.Thread | None = None
        self._front: list[str] = []   # groups somebody waits for, the latest asked first (prioritise)
        self._soon: list[str] = []    # the groups of the tab on screen (want_soon)
        self.t0 = time.perf_counter()
        self.events: list[dict] = []   # every report, for the log and benchmarks
        self.prepare_note = ""
        readiness.add_request_hook(self.prioritise)
        if preload:
            readiness.add_listener(self._maybe_preload)   # a wanted group preloads once it is ready

    # ------------------------------------------------------------- control
    def start(self) -> threading.Thread:
        t = threading.Thread(target=self._check_and_launch, name="kernel-cache-check", daemon=True)
        t.start()
        return t

    def _check_and_launch(self) -> None:
        from sudokustudio.kernels import cache

        if not self.check_cache:
            with self._lock:
                self._queue = list(self.groups)
                self._reorder()
            self._launch_more()
            return
        try:
            if cache.prepare():
                self.prepare_note = "kernel sources, numba or CPU changed: the kernels that depend on them " \
                                    "compile again"
                log.info(self.prepare_note)
            if cache.stamp_dir() is None:
                raise OSError("no writable place for numba's cache")
            todo = []
            for g in self.groups:
                if cache.is_cached(g):
                    self.readiness.mark_ready(g, cached=True)
                else:
                    todo.append(g)
            if self.preload:
                threading.Thread(target=self._set_up_numba, name="kernel-preload", daemon=True).start()
        except Exception as exc:  # no usable cache at all: compile here, in the background
            log.warning("kernel cache unusable: %s", exc)
            for g in self.groups:
                self._fall_back(g, f"the kernel cache cannot be used ({exc})")
            return
        with self._lock:
            self._queue = todo
            self._reorder()     # what was asked for while the cache was checked goes first
        self._launch_more()

    def prioritise(self, groups) -> None:
        """Move ``groups`` to the front of the queue (somebody waits for them)."""
        with self._lock:
            self._front = list(groups) + [g for g in self._front if g not in groups]
            self._reorder()
        self._launch_more()

    def want_soon(self, groups) -> None:
        """A tab using ``groups`` stayed on screen: compile them next, after the groups somebody
        waits for (a first start's grid estimate then comes seconds after Start, not a compile
        after it), and load them once they are cached (:meth:`request_preload`)."""
        with self._lock:
            self._soon = list(groups)
            self._reorder()
        self.request_preload(groups)
        self._launch_more()

    def _rank(self, group: str) -> int:
        return self.groups.index(group) if group in self.groups else len(self.groups)

    def _reorder(self) -> None:
        """The queue's order (under the lock): waited for, then the tab's on screen, then the rest
        in the order a user needs them (GROUPS)."""
        waited = [g for g in self._front if g in self._queue]
        soon = [g for g in self._soon if g in self._queue and g not in waited]
        rest = sorted((g for g in self._queue if g not in waited and g not in soon), key=self._rank)
        self._queue = waited + soon + rest

    def stop(self, timeout: float = 2.0) -> None:
        """Kill the compile processes (what they cached so far stays cached)."""
        with self._lock:
            self._stopped = True
            self._queue.clear()
            procs = list(self._running.values())
        for p in procs:
            try:
                p.kill()
            except OSError:
                pass
        for p in procs:
            try:
                p.wait(timeout)
            except subprocess.TimeoutExpired:
                pass

    def running(self) -> list[str]:
        with self._lock:
            return list(self._running)

    # ------------------------------------------------------------- scheduling
    def _next_group(self) -> str | None:
        """The first queued group (wanted ones first) none of whose ``after`` groups is
        compiling now, nor, when several processes run at once, still queued."""
        busy = set(self._running)
        front = self._front
        for g in self._queue:
            deps = GROUPS[g].after
            if any(d in busy for d in deps):
                continue
            if g in front or self.max_procs == 1 or not any(d in self._queue for d in deps):
                return g
        return None

    def _launch_more(self) -> None:
        while True:
            with self._lock:
                if self._stopped or len(self._running) >= self.max_procs:
                    return
                g = self._next_group()
                if g is None:
                    return
                self._queue.remove(g)
                try:
                    proc = subprocess.Popen(compile_command([g], self.priority), stdout=subprocess.PIPE,
                                            stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True,
                                            env=self.env)
                except OSError as exc:
                    proc = None
                    err = f"cannot start a compile process ({exc})"
                else:
                    self._running[g] = proc
            if proc is None:
                self._fall_back(g, err)
                continue
            self.readiness.update(g, state=COMPILING, kernels=0, warm_done=0)
            threading.Thread(target=self._read, args=(g, proc), name=f"kernel-compile-{g}",
                             daemon=True).start()

    def _read(self, group: str, proc: subprocess.Popen) -> None:
        tail: collections.deque[str] = collections.deque(maxlen=40)
        err_thread = threading.Thread(target=lambda: tail.extend(proc.stderr), daemon=True)
        err_thread.start()
        outcome = None
        for line in proc.stdout:
            try:
                ev = json.loads(line)
            except ValueError:
                continue
            ev["t"] = round(time.perf_counter() - self.t0, 3)
            self.events.append(ev)
            kind = ev.get("event")
            if kind == "start":
                self.readiness.update(group, expected=ev.get("expected"))
            elif kind == "kernel":
                self.readiness.update(group, kernels=ev.get("n", 0))
            elif kind == "warm":
                self.readiness.update(group, warm_done=self.readiness.state(group).warm_done + 1)
            elif kind in ("done", "failed"):
                outcome = ev
        code = proc.wait()
        err_thread.join(1.0)
        with self._lock:
            self._running.pop(group, None)
            stopped = self._stopped
        if not stopped:
            if outcome is not None and outcome["event"] == "done" and outcome.get("stamped"):
                self.readiness.mark_ready(group, seconds=outcome.get("seconds"))
            elif outcome is not None and outcome["event"] == "done":
                self._fall_back(group, "the kernel cache is not writable")
            else:
                why = outcome.get("error") if outcome else f"the compile process ended with status {code}"
                detail = "".join(tail)[-2000:]
                log.warning("kernel group %s failed to compile in the background: %s\n%s", group, why, detail)
                self._fall_back(group, why)
        self._launch_more()

    # ------------------------------------------------------------- fallback
    def _fall_back(self, group: str, why: str) -> None:
        if not self.fallback:
            self.readiness.mark_failed(group, why)
            return
        self.readiness.update(group, state=FALLBACK, error=why)
        with self._lock:
            self._fallback_q.append(group)
            if self._fallback_thread is None or not self._fallback_thread.is_alive():
                self._fallback_thread = threading.Thread(target=self._run_fallbacks, name="kernel-fallback",
                                                         daemon=True)
                self._fallback_thread.start()

    def _run_fallbacks(self) -> None:
        import importlib

        while True:
            with self._lock:
                if not self._fallback_q or self._stopped:
                    return
                group = self._fallback_q.popleft()
            try:
                for name in GROUPS[group].warm:
                    mod, _, fn = name.partition(":")
                    getattr(importlib.import_module(mod), fn)()
            except Exception as exc:
                log.exception("kernel group %s failed to compile in this process", group)
                self.readiness.mark_failed(group, f"{self.readiness.state(group).error}; "
                                                  f"then in the app: {type(exc).__name__}: {exc}")
            else:
                self.readiness.update(group, state="ready")

    # ------------------------------------------------------------- preload
    def request_preload(self, groups) -> None:
        """Load ``groups``' kernels in the background now if they are cached, else once they
        are (the window asks for a tab's groups when the tab is shown).  No-op without
        ``preload``."""
        if not self.preload:
            return
        with self._lock:
            new = [g for g in groups if g in self.groups and g not in self._preload_wanted]
            self._preload_wanted.update(new)
        for g in new:
            self._maybe_preload(g)

    def _maybe_preload(self, group) -> None:
        with self._lock:
            wanted = group in self._preload_wanted and group not in self._preloaded
        if wanted and self.readiness.state(group).state == "ready":
            threading.Thread(target=self._preload, args=(group,), name="kernel-preload", daemon=True).start()

    def _set_up_numba(self) -> None:
        """numba's one-time set-up in this process (importing it, ~1 s; its typing and lowering
        registries, ~0.6 CPU-s on the first kernel) and the compile-event logger, off the UI
        thread.  Idempotent."""
        from sudokustudio.kernels.listener import install_compile_logger

        try:
            install_compile_logger()   # imports numba: here, not on the UI thread at start
            from numba.core.compiler_lock import global_compiler_lock
            from numba.core.registry import cpu_target

            # numba refreshes its registries under this lock when it compiles or loads a
            # kernel: refreshing without it raced with kernels loaded in other threads
            with global_compiler_lock:
                cpu_target.target_context.refresh()
        except Exception:  # an optimisation only: the first kernel does it itself
            log.exception("setting up numba failed")

    def _preload(self, group: str) -> None:
        """The cached kernels of ``group``, loaded off the UI thread (threads of several groups
        load one at a time: numba's compiler lock)."""
        import importlib

        with self._lock:
            if group in self._preloaded:
                return
            self._preloaded.add(group)
        try:
            self._set_up_numba()
            for name in GROUPS[group].warm:
                mod, _, fn = name.partition(":")
                getattr(importlib.import_module(mod), fn)()
            self.readiness.update(group, loaded=True)
        except Exception:  # an optimisation only: the action loads them itself
            log.exception("preloading kernels failed")

    def pending(self) -> list[str]:
        with self._lock:
            return list(self._queue)





def start_background_compile(groups=None, defer: bool = False, **kw) -> CompileLauncher:
    """For the window: a fresh readiness (nothing ready until checked), the compile-event
    logger, and the launcher, started (``defer``: the caller calls ``start()`` later).
    Returns the launcher (``finish_background_compile`` it on exit)."""
    from sudokustudio.kernels.listener import install_compile_logger
    from sudokustudio.kernels.readiness import set_readiness

    r = KernelReadiness(groups or GROUPS, ready=False)
    previous = set_readiness(r)
    if not kw.get("preload"):
        install_compile_logger()   # with preload, its thread installs it (numba takes ~1 s to import)
    launcher = CompileLauncher(r, **kw)
    launcher.previous_readiness = previous   # restored by finish_background_compile
    if not defer:
        launcher.start()
    return launcher


def finish_background_compile(launcher: CompileLauncher, timeout: float = 2.0) -> None:
    """Stop the compile processes (waiting at most ``timeout`` seconds for each to end) and put
    back the readiness that was current before."""
    from sudokustudio.kernels.readiness import readiness, set_readiness

    launcher.stop(timeout)
    if readiness() is launcher.readiness and getattr(launcher, "previous_readiness", None) is not None:
        set_readiness(launcher.previous_readiness)
