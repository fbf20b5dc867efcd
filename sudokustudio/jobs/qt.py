"""The one bridge between the run model and Qt.

``QtRun`` wraps a ``jobs.run.Run``: the run's own thread reports events,
and QtRun re-emits them as Qt signals, which arrive in the GUI thread
(queued).  Views never touch a run's internals: they read
``run.snapshot()`` from a QTimer (a few Hz) and react to the signals.

``window_executor(settings)`` is where the window's runs go: one pool of
two threads shared by every tab (runs interleave fairly), or a Dask
cluster when Settings -> Cluster asks for one.
"""
from __future__ import annotations

import threading
from PySide6.QtCore import QObject, Signal

from sudokustudio.jobs.executors import Executor, ThreadExecutor
from sudokustudio.jobs.run import Run


class QtRun(QObject):
    """A Run with Qt signals (emitted from the run's thread, delivered in the GUI thread).

    ``batchDone(index, result)`` after each merged batch, ``statusChanged(status)``,
    ``failed(message)`` once per batch error, ``storeProblem(message)`` when saving
    fails or recovers (empty message), ``stored(run_id)`` once the run has its
    record, ``finished(status)`` when the run's loop has ended.
    """

    batchDone = Signal(int, object)
    statusChanged = Signal(str)
    failed = Signal(str)
    storeProblem = Signal(str)
    stored = Signal(int)
    finished = Signal(str)

    def __init__(self, run: Run, parent: QObject | None = None):
        super().__init__(parent)
        self.run = run
        self._errors_seen = 0
        run.listener = self._on_event

    def _on_event(self, event: str, run: Run) -> None:  # in the run's thread
        if event == "batch":
            idx, res = run.last_batch
            self.batchDone.emit(idx, res)
        elif event == "status":
            self.statusChanged.emit(run.status.value)
        elif event == "error":
            errs = run.errors
            for e in errs[self._errors_seen:]:
                self.failed.emit(e)
            self._errors_seen = len(errs)
        elif event == "store":
            self.storeProblem.emit(run.snapshot(history=False).store_problem)
        elif event == "stored":
            self.stored.emit(int(run.run_id))
        elif event == "finished":
            self._errors_seen = 0
            self.finished.emit(run.status.value)

    # conveniences for views
    def start(self, executor: Executor, gate=None) -> None:
        self._errors_seen = 0
        self.run.start(executor, gate)

    def stop(self) -> None:
        self.run.stop()

    @property
    def live(self) -> bool:
        return not self.run.finished

    @property
    def batches_done(self) -> int:
        return self.run.batches_done

    @property
    def total(self):
        return self.run.total

    def snapshot(self, history: bool = True):
        return self.run.snapshot(history)


# ------------------------------------------------------------------ executors of the window
_window_threads: ThreadExecutor | None = None
#: niceness of the window's batch threads: the UI thread wins a core whenever it has work
#: (at +10 it gets ~90 % of a core shared with a batch; batches still use every idle cycle)
WINDOW_BATCH_NICE = 10
_window_lock = threading.Lock()


def window_threads() -> ThreadExecutor:
    """The window's one pool of batch threads (two on a two-core machine)."""
    global _window_threads
    with _window_lock:
        if _window_threads is None:
            _window_threads = ThreadExecutor(name="window-batch", nice=WINDOW_BATCH_NICE)
        return _window_threads


def cluster_address(settings) -> str | None:
    """The Dask scheduler address when "Run on cluster" is on in the settings, else None."""
    if settings is None:
        return None
    on = settings.value("cluster/enabled", False, bool)
    addr = str(settings.value("cluster/address", "") or "").strip()
    return addr if on and addr else None


def window_executor(settings) -> Executor:
    """Where a window run goes: the shared thread pool, or the cluster of the settings.

    The cluster's client connects lazily in the run's own thread, so an
    unreachable scheduler never blocks the window (the run fails with a message)."""
    address = cluster_address(settings)
    if not address:
        return window_threads()
    from sudokustudio.jobs.executors import DaskExecutor

    return DaskExecutor(address=address)


def kernel_gate():
    """The gate of the window's runs: a run waits (status "queued") until the kernels its job
    needs are compiled by the helper processes.  None where that service is not there."""
    try:
        from sudokustudio.kernels import wait_ready  # the kernel-preparation service (issue 15)
    except ImportError:
        return None
    return lambda job, stop: wait_ready(job.kernel_groups, cancel=stop)
