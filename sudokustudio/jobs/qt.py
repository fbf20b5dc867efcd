"""The bridge between batch jobs and Qt: a QThreadPool runner.

Tasks (QRunnables, one batch each) run on a pool (nogil kernels) and emit
results through a QObject signal; the runner merges them in the GUI thread
in index order.  Widgets read ``runner.total()`` from a QTimer (<= 20 Hz),
never per batch.  Cancel is cooperative between batches; ``wait()`` blocks
until in-flight batches are done (the main window calls it on close).
Optionally each finished batch is committed to a RunStore as it arrives.
"""
from __future__ import annotations

import threading
import time
from typing import Any

from PySide6.QtCore import QCoreApplication, QObject, QRunnable, QThreadPool, Signal, Slot

from sudokustudio.core.batch import BatchJob, OrderedMerger
from sudokustudio.jobs.local import BatchIndexSource, batch_indices


class _Relay(QObject):
    """Lives in the GUI thread; worker threads emit through it (queued)."""

    result = Signal(int, object, float)
    failed = Signal(int, str)


class _Task(QRunnable):
    """Runs one batch on a pool thread.  One batch per task keeps a shared
    pool fair between runners (tasks queue FIFO)."""

    def __init__(self, job: BatchJob, run_seed: int, index: int, relay: _Relay):
        super().__init__()
        self.setAutoDelete(True)
        self.job, self.run_seed, self.index, self.relay = job, run_seed, index, relay

    def run(self) -> None:
        t0 = time.perf_counter()
        try:
            res = self.job.run_indexed(self.run_seed, self.index)
        except Exception as exc:
            self.relay.failed.emit(self.index, f"{type(exc).__name__}: {exc}")
            return
        self.relay.result.emit(self.index, res, time.perf_counter() - t0)


class QtBatchRunner(QObject):
    """Runs a BatchJob on a QThreadPool; signals arrive in the GUI thread.

    Signals: ``batchFinished(index, result)``, ``failed(message)``,
    ``finished(cancelled)``.  ``total()`` is the live merged result.
    """

    batchFinished = Signal(int, object)
    failed = Signal(str)
    finished = Signal(bool)

    def __init__(self, job: BatchJob, run_seed: int, n_batches: int | None = None, *,
                 workers: int = 2, seconds: float | None = None, store=None, run_id: int | None = None,
                 done: set[int] | None = None, initial: Any = None, parent: QObject | None = None,
                 pool: QThreadPool | None = None):
        super().__init__(parent)
        self.job = job
        self.run_seed = run_seed
        self.n_batches = n_batches
        self.workers = workers
        self.seconds = seconds
        self.store = store
        self.run_id = run_id
        self._done = set(done or ())
        self._cancel = threading.Event()
        self._source = BatchIndexSource(batch_indices(n_batches, 0, self._done))
        self.merger = OrderedMerger(job.merge, job.empty() if initial is None else initial, 0, skip=self._done)
        self._relay = _Relay()
        self._relay.result.connect(self._on_result)
        self._relay.failed.connect(self._on_failed)
        self._pool = pool or QThreadPool.globalInstance()
        self._in_flight = 0
        self._t0 = 0.0
        self.elapsed_before = 0.0
        self.batch_seconds = 0.0
        self.errors: list[str] = []
        self.running = False

    # ------------------------------------------------------------- control
    def start(self) -> None:
        """Start (or resume after a cancel) handing out batches."""
        if self.running:
            return
        if self._cancel.is_set():  # resume: continue with the next indices
            self._cancel.clear()
            self._source = BatchIndexSource(batch_indices(None if self.n_batches is None else
                                                          self.n_batches, 0, self._done_or_merged()))
        self.running = True
        self._t0 = time.perf_counter()
        for _ in range(self.workers):
            self._submit_next()
        if self._in_flight == 0:
            self._finish()

    def _done_or_merged(self) -> set[int]:
        merged = set(range(self.merger.next)) | set(self.merger.pending)
        return merged | self._done

    def _submit_next(self) -> None:
        if self._cancel.is_set():
            return
        idx = self._source.take()
        if idx is None:
            return
        self._in_flight += 1
        self._pool.start(_Task(self.job, self.run_seed, idx, self._relay))

    def cancel(self) -> None:
        """Stop handing out batches; in-flight ones finish and are merged."""
        self._cancel.set()
        self._source.close()

    def wait(self, msecs: int = -1) -> bool:
        """Block until in-flight batches are merged (used when the window closes)."""
        deadline = None if msecs < 0 else time.perf_counter() + msecs / 1000
        while self._in_flight > 0:
            if deadline is not None and time.perf_counter() > deadline:
                return False
            self._pool.waitForDone(20)
            QCoreApplication.processEvents()
        return True

    # ------------------------------------------------------------- state
    def total(self) -> Any:
        return self.merger.total()

    @property
    def batches_done(self) -> int:
        return self.merger.count + len(self._done)

    @property
    def elapsed(self) -> float:
        if not self.running:
            return self.elapsed_before
        return self.elapsed_before + time.perf_counter() - self._t0

    # ------------------------------------------------------------- slots
    @Slot(int, object, float)
    def _on_result(self, idx: int, res: object, secs: float) -> None:
        self._in_flight -= 1
        self.merger.add(idx, res)
        self.batch_seconds += secs
        if self.store is not None and self.run_id is not None:
            self.store.add_batch(self.run_id, idx, self.job.encode(res), secs)
        if self.seconds is not None and self.elapsed >= self.seconds:
            self._source.close()
        self.batchFinished.emit(idx, res)
        self._submit_next()
        if self._in_flight == 0:
            self._finish()

    @Slot(int, str)
    def _on_failed(self, idx: int, msg: str) -> None:
        self._in_flight -= 1
        text = f"batch {idx} failed: {msg}"
        self.errors.append(text)
        self.cancel()
        self.failed.emit(text)
        if self._in_flight == 0:
            self._finish()

    def _finish(self) -> None:
        if self.running:
            self.elapsed_before = self.elapsed
            self.running = False
            self.finished.emit(self._cancel.is_set() or bool(self.errors))


def cluster_address(settings) -> str | None:
    """The Dask scheduler address when "Run on cluster" is on in the settings, else None."""
    if settings is None:
        return None
    on = settings.value("cluster/enabled", False, bool)
    addr = str(settings.value("cluster/address", "") or "").strip()
    return addr if on and addr else None


def make_runner(job: BatchJob, run_seed: int, n_batches: int | None = None, *, settings=None,
                parent: QObject | None = None, **kw) -> QtBatchRunner:
    """The runner a tab should use: local QThreadPool, or Dask when the settings ask for a cluster.

    Both have the same interface (start, cancel, wait, total, batches_done,
    elapsed; signals batchFinished, failed, finished).
    """
    address = cluster_address(settings)
    if address:
        from sudokustudio.jobs.dask_qt import QtDaskRunner  # optional: needs sudokustudio[cluster]

        return QtDaskRunner(job, run_seed, n_batches, address=address, parent=parent, **kw)
    return QtBatchRunner(job, run_seed, n_batches, parent=parent, **kw)
