"""Where batches run: a pool of threads in this process, or a Dask cluster.

Both give ``concurrent.futures.Future``s, so the run model (jobs/run.py)
drives them with one submit / wait loop.  ``capacity`` is how many batches
a run keeps in flight.  What runs is always ``run_one_batch``.
"""
from __future__ import annotations

import importlib
import os
import queue
import sys
import threading
import time
from concurrent.futures import Future
from typing import Any, Callable

from sudokustudio.core.batch import BatchJob


def run_one_batch(job: BatchJob, run_seed: int, batch_index: int, cancel=None) -> tuple[Any, float]:
    """One batch of a run: (result, seconds of thread CPU time).

    CPU time, not wall time: it is what a batch costs, whatever else the
    machine does meanwhile."""
    t0 = time.thread_time()
    result = job.run_indexed(run_seed, batch_index, cancel)
    return result, time.thread_time() - t0


def default_workers() -> int:
    return max(1, min(2, os.cpu_count() or 1))


class Executor:
    """The interface of both executors."""

    description = ""

    @property
    def capacity(self) -> int:
        raise NotImplementedError

    def submit(self, fn: Callable, *args, key: str | None = None) -> Future:
        raise NotImplementedError

    def prepare(self, job: BatchJob) -> None:
        """Called by a run before its first batch (in the run's thread)."""

    def close(self) -> None:
        """Stop taking work; running batches are not interrupted."""


def lower_thread_priority(nice: int) -> bool:
    """Raise the calling thread's niceness by ``nice`` (Linux: setpriority on the thread's id
    concerns that thread only); False where it cannot be done (other systems, limits).  Linux
    only: elsewhere a thread id given to setpriority could name a process."""
    if not sys.platform.startswith("linux") or not hasattr(os, "setpriority"):
        return False
    tid = threading.get_native_id()
    try:
        os.setpriority(os.PRIO_PROCESS, tid, min(19, os.getpriority(os.PRIO_PROCESS, tid) + nice))
    except OSError:
        return False
    return True


class ThreadExecutor(Executor):
    """A fixed pool of daemon threads (nogil kernels run truly in parallel).

    Daemon threads, unlike concurrent.futures.ThreadPoolExecutor's, never
    hold up the end of the process: a window that closes while a batch
    runs waits for it only as long as it chooses to.  Queued work is taken
    in submission order, so runs that share the pool interleave fairly.

    ``nice`` (Linux): the workers' scheduling niceness.  The window's pool runs
    at a lower priority than its UI thread: with both cores busy with
    kernels, the UI thread would otherwise get only a share of a core and
    stall for tens of milliseconds at a time.
    """

    def __init__(self, workers: int | None = None, name: str = "batch", nice: int = 0):
        self.workers = max(1, int(workers or default_workers()))
        self.nice = int(nice)
        self.description = f"{self.workers} thread{'s' * (self.workers != 1)} on this machine"
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self._threads: list[threading.Thread] = []
        self._name = name
        self._lock = threading.Lock()
        self._closed = False

    @property
    def capacity(self) -> int:
        return self.workers

    def submit(self, fn: Callable, *args, key: str | None = None) -> Future:
        fut: Future = Future()
        with self._lock:
            if self._closed:
                raise RuntimeError("the executor is closed")
            while len(self._threads) < self.workers:
                t = threading.Thread(target=self._work, daemon=True,
                                     name=f"{self._name}-worker-{len(self._threads)}")
                self._threads.append(t)
                t.start()
        self._queue.put((fut, fn, args))
        return fut

    def _work(self) -> None:
        if self.nice:
            lower_thread_priority(self.nice)
        while True:
            item = self._queue.get()
            if item is None:
                return
            fut, fn, args = item
            if not fut.set_running_or_notify_cancel():
                continue
            try:
                result = fn(*args)
            except BaseException as exc:  # delivered to the run, which reports it
                fut.set_exception(exc)
            else:
                fut.set_result(result)

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
            for _ in self._threads:
                self._queue.put(None)

    def join(self, timeout: float | None = None) -> bool:
        """Wait until every thread has ended (after close); False on timeout."""
        deadline = None if timeout is None else time.monotonic() + timeout
        for t in self._threads:
            t.join(None if deadline is None else max(0.0, deadline - time.monotonic()))
        return not any(t.is_alive() for t in self._threads)


class DaskExecutor(Executor):
    """Batches on a Dask cluster through ``Client.get_executor()`` (concurrent.futures API).

    Give a ``client``, or an ``address`` (None / "local": a private
    LocalCluster): the window's client then connects lazily, in the run's
    own thread, on first use (``jobs.dask.shared_client``), so an unreachable
    scheduler never blocks a view.  ``capacity`` is twice the cluster's worker
    threads (re-read at most once a second: workers may join or leave), so
    the cluster never waits for the next batch.  Task keys name job, run seed
    and batch, so a batch sent twice is one task.
    """

    @classmethod
    def connect(cls, address: str | None, workers: int | None = None) -> "DaskExecutor":
        """An executor on a new client for ``address`` (closed with the executor); ClusterError if unreachable."""
        return cls(_jobs_dask().connect(address, workers=workers), address=address, own=True)

    def __init__(self, client=None, *, address: str | None = None, own: bool = False):
        self._client = client
        self.address = address
        self._cf = None
        self._own = own
        self._capacity = 2
        self._checked = 0.0
        self.description = f"Dask cluster {address or ''}".strip()

    @property
    def client(self):
        if self._client is None:
            self._client = _jobs_dask().shared_client(self.address)
        return self._client

    def prepare(self, job: BatchJob) -> None:
        _jobs_dask().check_importable(job)
        _ = self.client  # connect now (in the run's thread), not in the middle of the loop

    @property
    def capacity(self) -> int:
        now = time.monotonic()
        if now - self._checked > 1.0:
            self._checked = now
            try:
                self._capacity = max(2, 2 * _jobs_dask().total_threads(self.client))
            except Exception:  # a lost scheduler shows up as failed batches, not here
                pass
        return self._capacity

    def submit(self, fn: Callable, *args, key: str | None = None) -> Future:
        if self._cf is None:
            self._cf = self.client.get_executor()
        kw = {"key": key} if key else {"pure": False}
        return self._cf.submit(fn, *args, **kw)

    def close(self) -> None:
        if self._own and self._client is not None:
            _jobs_dask().close_client(self._client)


def _jobs_dask():
    """jobs.dask, or a message that says how to install Dask (an optional extra)."""
    try:
        jobs_dask = importlib.import_module("sudokustudio.jobs.dask")
    except ImportError as exc:
        raise RuntimeError("Run on cluster needs Dask: pip install 'sudokustudio[cluster]', or turn it off "
                           f"in Settings → Cluster ({exc})") from None
    return jobs_dask
