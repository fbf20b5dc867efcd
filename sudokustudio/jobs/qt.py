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
from typing import Any

from PySide6.QtCore import QObject, Signal

from sudokustudio.jobs.executors import Executor, ThreadExecutor
from sudokustudio.jobs.run import Run, Status, StopRules


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

    def snapshot(self, history: bool = True):
        return self.run.snapshot(history)


# ------------------------------------------------------------------ executors of the window
_window_threads: ThreadExecutor | None = None
_window_lock = threading.Lock()


def window_threads() -> ThreadExecutor:
    """The window's one pool of batch threads (two on a two-core machine)."""
    global _window_threads
    with _window_lock:
        if _window_threads is None:
            _window_threads = ThreadExecutor(name="window-batch")
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


# ------------------------------------------------------------------ the old runner interface
class RunnerShim(QObject):
    """Temporary: the interface of the former QtBatchRunner over a Run, for views not yet
    turned into run-model views.  Signals: batchFinished(index, result), failed(message),
    finished(stopped_early)."""

    batchFinished = Signal(int, object)
    failed = Signal(str)
    finished = Signal(bool)

    def __init__(self, job, run_seed: int, n_batches: int | None = None, *, settings=None, workers: int = 2,
                 seconds: float | None = None, store=None, run_id: int | None = None, done=None,
                 initial: Any = None, parent: QObject | None = None, pool=None, client=None):
        super().__init__(parent)
        del workers, pool, initial
        rules = StopRules(batches=n_batches, seconds=seconds)
        if store is not None and run_id is not None and done:
            run = Run.open(store, run_id)
            run.set_rules(rules)
        else:
            run = Run(job, run_seed, rules, store=store, run_id=run_id)
        self.qrun = QtRun(run, self)
        self.qrun.batchDone.connect(self.batchFinished)
        self.qrun.failed.connect(self.failed)
        self.qrun.finished.connect(lambda status: self.finished.emit(status != Status.DONE.value))
        if client is not None:
            from sudokustudio.jobs.executors import DaskExecutor

            self._executor = DaskExecutor(client)
        else:
            self._executor = window_executor(settings)
        self.job = job

    @property
    def run(self) -> Run:
        return self.qrun.run

    def start(self) -> None:
        self.qrun.start(self._executor)

    def cancel(self) -> None:
        self.qrun.stop()

    def wait(self, msecs: int = -1) -> bool:
        return self.run.wait(None if msecs < 0 else msecs / 1000)

    def total(self) -> Any:
        return self.run.total

    @property
    def running(self) -> bool:
        return not self.run.finished

    @property
    def batches_done(self) -> int:
        return self.run.batches_done

    @property
    def elapsed(self) -> float:
        return self.run.snapshot(history=False).session_seconds

    @property
    def errors(self) -> list[str]:
        return self.run.errors


def make_runner(job, run_seed: int, n_batches: int | None = None, *, settings=None,
                parent: QObject | None = None, **kw) -> RunnerShim:
    return RunnerShim(job, run_seed, n_batches, settings=settings, parent=parent, **kw)
