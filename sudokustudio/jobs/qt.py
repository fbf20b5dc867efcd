"""The bridge between batch jobs and Qt: a QThreadPool runner and a Dask runner.

Tasks (QRunnables, one batch each) run on a pool (nogil kernels) and emit
results through a QObject signal; the runner merges them in the GUI thread
in index order.  Widgets read ``runner.total()`` from a QTimer (<= 20 Hz),
never per batch.  Cancel is cooperative between batches; ``wait()`` blocks
until in-flight batches are done (the main window calls it on close).
Optionally each finished batch is committed to a RunStore as it arrives.

``QtDaskRunner`` does the same on a Dask cluster (``jobs/dask.py``); tabs
get one or the other from ``make_runner`` according to Settings → Cluster.
"""
from __future__ import annotations

import importlib
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


class CallRelay(QObject):
    """Delivers the results of ``CallTask``s in the GUI thread: ``done(ticket, result)``
    or ``failed(ticket, "Type: message")``."""

    done = Signal(int, object)
    failed = Signal(int, str)


class CallTask(QRunnable):
    """Runs one call ``fn()`` on a pool thread (a single solve, a single path) and
    reports through a ``CallRelay``; tickets let the receiver drop stale answers."""

    def __init__(self, ticket: int, fn, relay: CallRelay):
        super().__init__()
        self.setAutoDelete(True)
        self.ticket, self.fn, self.relay = ticket, fn, relay

    def run(self) -> None:
        try:
            res = self.fn()
        except Exception as exc:  # reported by the receiver, never fatal
            self.relay.failed.emit(self.ticket, f"{type(exc).__name__}: {exc}")
            return
        self.relay.done.emit(self.ticket, res)


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


class _DaskRelay(QObject):
    """Lives in the GUI thread; the thread that drives Dask emits through it (queued)."""

    result = Signal(int, object, float)
    failed = Signal(int, str)
    ended = Signal()


class QtDaskRunner(QObject):
    """Runs a BatchJob on a Dask cluster; the same interface and signals as QtBatchRunner.

    A plain Python thread submits the batches and collects them with
    ``as_completed`` (``jobs.dask.stream_batches``); each result re-enters Qt
    through a queued signal and is merged, stored and announced in the GUI
    thread.  No widget is ever touched from Dask's threads.  ``address`` is
    a scheduler address or "local" (a LocalCluster of ``workers`` processes
    on this machine).  Dask is imported only when the run starts: without it
    the run fails with a message that says how to install it.
    """

    batchFinished = Signal(int, object)
    failed = Signal(str)
    finished = Signal(bool)

    def __init__(self, job: BatchJob, run_seed: int, n_batches: int | None = None, *, address: str,
                 workers: int = 2, seconds: float | None = None, store=None, run_id: int | None = None,
                 done: set[int] | None = None, initial: Any = None, parent: QObject | None = None,
                 client=None, pool: QThreadPool | None = None):
        super().__init__(parent)
        del pool  # the cluster schedules the batches, not a QThreadPool
        self.job = job
        self.run_seed = run_seed
        self.n_batches = n_batches
        self.address = address
        self.workers = workers
        self.seconds = seconds
        self.store = store
        self.run_id = run_id
        self._client = client
        self._done = set(done or ())
        self._cancel = threading.Event()
        self.merger = OrderedMerger(job.merge, job.empty() if initial is None else initial, 0, skip=self._done)
        self._relay = _DaskRelay()
        self._relay.result.connect(self._on_result)
        self._relay.failed.connect(self._on_failed)
        self._relay.ended.connect(self._on_ended)
        self._thread: threading.Thread | None = None
        self._t0 = 0.0
        self.elapsed_before = 0.0
        self.batch_seconds = 0.0
        self.errors: list[str] = []
        self.running = False

    # ------------------------------------------------------------- control
    def start(self) -> None:
        """Start (or resume after a cancel) sending batches to the cluster."""
        if self.running:
            return
        self._cancel.clear()
        self.errors = []
        skip = set(range(self.merger.next)) | set(self.merger.pending) | self._done
        remaining = None if self.seconds is None else max(0.0, self.seconds - self.elapsed_before)
        self.running = True
        self._t0 = time.perf_counter()
        self._thread = threading.Thread(target=self._drive, args=(skip, remaining), daemon=True,
                                        name=f"dask-runner-{self.job.kind}")
        self._thread.start()

    def _drive(self, skip: set[int], seconds: float | None) -> None:
        """In the runner's thread: everything that talks to Dask."""
        relay = self._relay
        try:
            try:
                jobs_dask = importlib.import_module("sudokustudio.jobs.dask")  # optional extra
            except ImportError as exc:
                relay.failed.emit(-1, "Run on cluster needs Dask: pip install 'sudokustudio[cluster]', "
                                      f"or turn it off in Settings → Cluster ({exc})")
                return
            client = self._client or jobs_dask.shared_client(self.address, workers=self.workers)

            def deliver(idx: int, res: Any, secs: float) -> bool:
                relay.result.emit(idx, res, secs)
                return False  # stopping is the GUI thread's call (cancel, seconds)

            jobs_dask.stream_batches(
                client, self.job, self.run_seed, self.n_batches, deliver=deliver,
                on_error=lambda idx, text: relay.failed.emit(idx, text),
                cancel=self._cancel, seconds=seconds, done=skip)
        except Exception as exc:  # unreachable scheduler, lost connection, ...
            relay.failed.emit(-1, f"{type(exc).__name__}: {exc}")
        finally:
            relay.ended.emit()

    def cancel(self) -> None:
        """Stop sending batches; those already on the cluster finish and are merged."""
        self._cancel.set()

    def wait(self, msecs: int = -1) -> bool:
        """Block until the batches out are merged (used when the window closes)."""
        deadline = None if msecs < 0 else time.perf_counter() + msecs / 1000
        while self.running:
            if deadline is not None and time.perf_counter() > deadline:
                return False
            if self._thread is not None:
                self._thread.join(0.02)
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

    # ------------------------------------------------------------- slots (GUI thread)
    @Slot(int, object, float)
    def _on_result(self, idx: int, res: object, secs: float) -> None:
        self.merger.add(idx, res)
        self.batch_seconds += secs
        if self.store is not None and self.run_id is not None:
            self.store.add_batch(self.run_id, idx, self.job.encode(res), secs)
        self.batchFinished.emit(idx, res)

    @Slot(int, str)
    def _on_failed(self, idx: int, msg: str) -> None:
        text = msg if idx >= 0 else f"cluster run failed: {msg}"  # batch errors name their batch
        self.errors.append(text)
        self.cancel()
        self.failed.emit(text)

    @Slot()
    def _on_ended(self) -> None:
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
                parent: QObject | None = None, **kw) -> QtBatchRunner | QtDaskRunner:
    """The runner a tab should use: local QThreadPool, or Dask when the settings ask for a cluster.

    Both have the same interface (start, cancel, wait, total, batches_done,
    elapsed; signals batchFinished, failed, finished).
    """
    address = cluster_address(settings)
    if address:
        return QtDaskRunner(job, run_seed, n_batches, address=address, parent=parent, **kw)
    return QtBatchRunner(job, run_seed, n_batches, parent=parent, **kw)
