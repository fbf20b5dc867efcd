"""Which kernel groups are ready to use in this process (Qt-free).

The window's process never compiles: it runs an action only when the groups
it needs are *ready*, i.e. a compile process filled numba's cache for them
(see ``launcher``).  Without a launcher (the CLI, tests, Dask workers) every
group is ready from the start and kernels compile on first use as usual.

    from sudokustudio.kernels import is_ready, wait_ready
    if not wait_ready(job.kernel_groups, timeout=None, cancel=stop_event):
        return   # cancelled

States of a group: "pending" (not cached yet), "compiling" (a compile
process is on it), "fallback" (no usable cache: compiling inside this
process, slower and the window may stutter), "ready" and "failed" (could not
be compiled ahead; the kernels compile when first used).  "failed" counts as
ready: waiting longer would not help.
"""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Callable, Iterable

from sudokustudio.kernels.groups import GROUP_NAMES, GROUPS, check_groups

PENDING, COMPILING, FALLBACK, READY, FAILED = "pending", "compiling", "fallback", "ready", "failed"
USABLE = (READY, FAILED)


@dataclass
class GroupState:
    name: str
    state: str = READY
    kernels: int = 0                 # kernels compiled so far by the compile process
    expected: int | None = None      # kernels the last full compile of this group counted
    warm_done: int = 0               # warm functions finished
    cached: bool = False             # ready because the cache already held it
    error: str = ""
    seconds: float | None = None     # the compile process's time for the group
    loaded: bool = False             # its kernels are loaded in this process (preloaded)

    @property
    def fraction(self) -> float:
        if self.state in USABLE:
            return 1.0
        if self.state == PENDING:
            return 0.0
        n_warm = len(GROUPS[self.name].warm) if self.name in GROUPS else 1
        f = self.warm_done / n_warm
        if self.expected:
            f = max(f, min(0.99, self.kernels / self.expected))
        return min(f, 0.99)


class KernelReadiness:
    """Thread-safe readiness of the kernel groups, with change callbacks.

    ``ready=True`` (the default) starts with every group ready: nothing to wait for.
    Callbacks get the group name (or None for "everything") and may be called from
    any thread; the Qt adapter turns them into signals.
    """

    def __init__(self, groups: Iterable[str] = GROUP_NAMES, ready: bool = True):
        self._cond = threading.Condition()
        self._groups = {g: GroupState(g, READY if ready else PENDING) for g in groups}
        self._listeners: list[Callable[[str | None], None]] = []
        self._request_hooks: list[Callable[[tuple[str, ...]], None]] = []

    # ------------------------------------------------------------- queries
    def groups(self) -> tuple[str, ...]:
        return tuple(self._groups)

    def state(self, group: str) -> GroupState:
        with self._cond:
            g = self._groups[group]
            return GroupState(**vars(g))

    def _known(self, groups) -> tuple[str, ...]:
        return tuple(g for g in check_groups(groups) if g in self._groups)

    def is_ready(self, groups: Iterable[str] | str) -> bool:
        names = self._known(groups)
        with self._cond:
            return all(self._groups[g].state in USABLE for g in names)

    def progress(self, groups: Iterable[str] | str | None = None) -> float:
        """Fraction 0..1 of the groups (all if None) that is ready."""
        names = self.groups() if groups is None else self._known(groups)
        if not names:
            return 1.0
        with self._cond:
            return sum(self._groups[g].fraction for g in names) / len(names)

    def summary(self) -> dict:
        """{"ready": n, "total": n, "busy": [groups compiling], "fallback": [groups compiling
        in this process], "failed": {group: error}, "notes": {group: why it fell back},
        "compiles_here": n}"""
        with self._cond:
            gs = list(self._groups.values())
            return {"ready": sum(g.state in USABLE for g in gs), "total": len(gs),
                    "busy": [g.name for g in gs if g.state in (COMPILING, FALLBACK)],
                    "fallback": [g.name for g in gs if g.state == FALLBACK],
                    "failed": {g.name: g.error for g in gs if g.state == FAILED},
                    "notes": {g.name: g.error for g in gs if g.error and g.state != FAILED},
                    "compiles_here": self.compiles_here}

    @property
    def compiles_here(self) -> int:
        """Kernels compiled in this process since the compile logger was installed."""
        from sudokustudio.kernels.listener import compiles_here

        return compiles_here()

    def all_ready(self) -> bool:
        return self.is_ready(self.groups())

    # ------------------------------------------------------------- waiting
    def wait_ready(self, groups: Iterable[str] | str, timeout: float | None = None,
                   cancel: threading.Event | Callable[[], bool] | None = None) -> bool:
        """Block until the groups are ready; False on timeout or when ``cancel`` is set
        (a threading.Event or a function returning True).  For worker threads only:
        never call it on the UI thread (use ui.kernels.when_kernels_ready)."""
        names = self._known(groups)
        if self.is_ready(names):
            return True
        self.request(names)
        deadline = None if timeout is None else time.monotonic() + timeout
        is_cancelled = cancel.is_set if isinstance(cancel, threading.Event) else cancel
        with self._cond:
            while not all(self._groups[g].state in USABLE for g in names):
                if is_cancelled is not None and is_cancelled():
                    return False
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    return False
                self._cond.wait(0.05 if left is None else min(0.05, left))
        return True

    def request(self, groups: Iterable[str] | str) -> None:
        """Somebody waits for these groups: ask the launcher to compile them next."""
        names = tuple(g for g in self._known(groups) if not self.is_ready((g,)))
        if names:
            for hook in list(self._request_hooks):
                hook(names)

    # ------------------------------------------------------------- callbacks
    def add_listener(self, fn: Callable[[str | None], None]) -> Callable[[], None]:
        """Call ``fn(group)`` on every change; returns a function that removes it."""
        with self._cond:
            self._listeners.append(fn)

        def remove():
            with self._cond:
                if fn in self._listeners:
                    self._listeners.remove(fn)
        return remove

    def add_request_hook(self, fn: Callable[[tuple[str, ...]], None]) -> None:
        self._request_hooks.append(fn)

    def _notify(self, group: str | None) -> None:
        with self._cond:
            self._cond.notify_all()
            listeners = list(self._listeners)
        for fn in listeners:
            try:
                fn(group)
            except Exception:  # a broken listener must not stop the compile reports
                import logging

                logging.getLogger(__name__).exception("kernel readiness listener failed")

    # ------------------------------------------------------------- updates (launcher)
    def update(self, group: str, **fields) -> None:
        with self._cond:
            g = self._groups[group]
            for k, v in fields.items():
                setattr(g, k, v)
        self._notify(group)

    def mark_ready(self, group: str, cached: bool = False, seconds: float | None = None) -> None:
        self.update(group, state=READY, cached=cached, seconds=seconds)

    def mark_failed(self, group: str, error: str) -> None:
        self.update(group, state=FAILED, error=error)


_current = KernelReadiness()


def readiness() -> KernelReadiness:
    """This process's readiness (every group ready unless a launcher installed its own)."""
    return _current


def set_readiness(r: KernelReadiness) -> KernelReadiness:
    """Install ``r`` as this process's readiness; returns the previous one."""
    global _current
    old, _current = _current, r
    return old


def is_ready(groups: Iterable[str] | str) -> bool:
    return _current.is_ready(groups)


def preparing(groups: Iterable[str] | str) -> tuple[float, str]:
    """What a run or an action waiting for ``groups`` shows: the fraction of them compiled and
    "preparing (compiling kernels: 45%)…" (a first start's first puzzle waits about a minute)."""
    f = _current.progress(groups)
    return f, f"preparing (compiling kernels: {100 * f:.0f}%)…"


def wait_ready(groups: Iterable[str] | str, timeout: float | None = None,
               cancel: threading.Event | Callable[[], bool] | None = None) -> bool:
    return _current.wait_ready(groups, timeout, cancel)
