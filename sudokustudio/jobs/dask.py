"""Batches on a Dask distributed cluster (optional: ``pip install 'sudokustudio[cluster]'``).

The same batches as the thread runner, sent out with ``Client.submit`` (one
task per batch, keyed by job, run seed and batch index) and collected with
``as_completed``.  Results are merged with the same ``OrderedMerger`` in
batch-index order, so the totals are bit-identical to ``run_local`` for the
same run seed, whatever the cluster, the number of workers or the order in
which batches finish.

A worker that dies mid-run loses its tasks; the scheduler runs them again
elsewhere (``distributed.scheduler.allowed-failures`` times).  Every batch
index is merged at most once: a repeated delivery is ignored.

No Qt here: ``jobs/qt.py`` (``QtDaskRunner``) drives ``stream_batches`` from
a thread and hands results to the GUI thread through a signal.

Address: ``None`` or ``"local"`` starts a private ``LocalCluster`` (worker
processes on this machine); ``"tcp://host:8786"`` (or ``"host:8786"``)
connects to a running scheduler.  Every worker must have the same version
of sudokustudio installed (the jobs' code is imported there, not shipped).
"""
from __future__ import annotations

import atexit
import os
import threading
import time
from contextlib import contextmanager
from typing import Any, Callable

import distributed
from dask.base import tokenize
from distributed import Client, LocalCluster, as_completed

from sudokustudio.core.batch import BatchJob, OrderedMerger
from sudokustudio.jobs.local import RunOutcome, batch_indices

LOCAL = "local"
INSTALL_HINT = "pip install 'sudokustudio[cluster]'"


class ClusterError(ValueError):
    """The cluster cannot be used (unreachable scheduler, bad address); the message says why.

    A ValueError so that the CLI prints it as one clear line."""


# ------------------------------------------------------------------ clients
def normalise_address(address: str | None) -> str | None:
    """None for a private local cluster, else a scheduler address with a protocol."""
    if address is None:
        return None
    text = str(address).strip()
    if not text or text.lower() == LOCAL:
        return None
    if "://" not in text:
        text = "tcp://" + text
    proto, _, rest = text.partition("://")
    if not rest or rest.startswith(":") or any(c.isspace() for c in text):
        raise ClusterError(f"bad scheduler address {address!r}: expected e.g. tcp://host:8786 or 'local'")
    return text


def start_local_cluster(workers: int | None = None) -> LocalCluster:
    """A LocalCluster of single-threaded worker processes (no dashboard)."""
    n = workers or min(2, os.cpu_count() or 1)
    return LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=None)


def connect(address: str | None, *, timeout: float = 10.0, workers: int | None = None) -> Client:
    """A Client for ``address`` (None / "local": a new LocalCluster that closes with the client)."""
    addr = normalise_address(address)
    if addr is None:
        cluster = start_local_cluster(workers)
        client = Client(cluster, set_as_default=False)
        client._sudokustudio_cluster = cluster  # closed by close_client
        return client
    try:
        return Client(addr, timeout=timeout, set_as_default=False)
    except (OSError, TimeoutError) as exc:
        raise ClusterError(f"cannot reach the Dask scheduler at {addr} ({type(exc).__name__}: {exc}); "
                           f"is `dask scheduler` running there and the port open?") from exc


def close_client(client: Client) -> None:
    cluster = getattr(client, "_sudokustudio_cluster", None)
    client.close()
    if cluster is not None:
        cluster.close()


@contextmanager
def client_for(address: str | None, client: Client | None = None, workers: int | None = None):
    """Use ``client`` if given (left open), else connect to ``address`` for the block."""
    if client is not None:
        yield client
        return
    own = connect(address, workers=workers)
    try:
        yield own
    finally:
        close_client(own)


_shared_clients: dict[str | None, Client] = {}
_shared_lock = threading.Lock()


def shared_client(address: str | None, workers: int | None = None) -> Client:
    """One long-lived Client per address for the window's runs (a local cluster
    starts once, not per run); closed at exit by ``close_shared_clients``."""
    key = normalise_address(address)
    with _shared_lock:
        client = _shared_clients.get(key)
        if client is not None and client.status in ("running", "connecting"):
            return client
        if not _shared_clients:
            atexit.register(close_shared_clients)
        client = connect(address, workers=workers)
        _shared_clients[key] = client
        return client


def close_shared_clients() -> None:
    with _shared_lock:
        clients = list(_shared_clients.values())
        _shared_clients.clear()
    for client in clients:
        try:
            close_client(client)
        except Exception:  # closing at exit: nothing useful to report
            pass


def total_threads(client: Client) -> int:
    """Worker threads of the cluster now (workers may join or leave during a run)."""
    return sum(int(n) for n in client.nthreads().values())


def describe_cluster(address: str | None, timeout: float = 5.0) -> str:
    """Connect, count workers and threads, disconnect: for "Test connection" buttons."""
    addr = normalise_address(address)
    if addr is None:
        return "local: a private cluster of worker processes on this machine is started for each run"
    client = connect(addr, timeout=timeout)
    try:
        workers = client.nthreads()
        threads = sum(int(n) for n in workers.values())
        if not workers:
            return f"connected to {addr}, but no workers have joined yet (start `dask worker {addr}`)"
        return (f"connected to {addr}: {len(workers)} worker{'s' * (len(workers) != 1)}, "
                f"{threads} thread{'s' * (threads != 1)}; Dask {distributed.__version__}")
    finally:
        client.close()


# ------------------------------------------------------------------ batches
def run_one_batch(job: BatchJob, run_seed: int, batch_index: int) -> tuple[Any, float]:
    """What a Dask worker runs for one batch: (result, seconds)."""
    t0 = time.perf_counter()
    result = job.run_indexed(run_seed, batch_index)
    return result, time.perf_counter() - t0


def batch_key(job: BatchJob, run_seed: int, batch_index: int) -> str:
    """Task key: the same batch of the same run is the same task (pure)."""
    return f"sudokustudio-{job.kind or type(job).__name__}-{tokenize(job.spec)}-{int(run_seed)}-{batch_index}"


def _error_text(index: int, exc: BaseException) -> str:
    text = f"batch {index}: {type(exc).__name__}: {exc}"
    if isinstance(exc, (ModuleNotFoundError, ImportError)):
        text += " (is the same sudokustudio installed on every Dask worker?)"
    if type(exc).__name__ == "KilledWorker":
        text += " (the batch killed its worker too many times)"
    return text


def stream_batches(client: Client, job: BatchJob, run_seed: int, n_batches: int | None, *,
                   deliver: Callable[[int, Any, float], bool | None],
                   on_error: Callable[[int, str], None] | None = None,
                   cancel: threading.Event | None = None, seconds: float | None = None,
                   done: set[int] | None = None, window: int | None = None) -> float:
    """Run batches 0.. on ``client`` and hand each result to ``deliver(index, result, secs)``
    in the calling thread, each index exactly once.

    At most ``window`` batches are in flight (default: twice the cluster's
    threads).  No new batches go out once ``deliver`` returns True, a batch
    fails, ``cancel`` is set or ``seconds`` have passed; batches already
    out finish and are delivered, so the delivered indices are exactly
    0..k-1 (minus ``done``) unless a batch failed.  Returns the wall time.
    """
    if type(job).__module__ == "__main__":
        # cloudpickle would ship such a class by value, and numba dispatchers pickled by value
        # are rebuilt on the worker: observed to give different random grids than the original.
        raise ClusterError(f"{type(job).__name__} is defined in the main script; define cluster jobs in an "
                           f"importable module (installed on every worker) so that results are reproducible")
    cancel = cancel or threading.Event()
    indices = batch_indices(n_batches, 0, done)
    t0 = time.perf_counter()
    ac = as_completed(loop=client.loop, with_results=True, raise_errors=False)
    in_flight: dict[str, int] = {}  # future key -> batch index
    delivered: set[int] = set()
    stopped = False
    next_window_check = 0.0
    width = window or 2

    def stop():
        nonlocal stopped
        stopped = True

    while True:
        now = time.perf_counter()
        if cancel.is_set() or (seconds is not None and now - t0 >= seconds):
            stop()
        if window is None and now >= next_window_check:  # workers may join or leave
            width = max(2, 2 * total_threads(client))
            next_window_check = now + 1.0
        while not stopped and len(in_flight) < width:
            idx = next(indices, None)
            if idx is None:
                stop()
                break
            fut = client.submit(run_one_batch, job, run_seed, idx, key=batch_key(job, run_seed, idx),
                                pure=True)
            in_flight[fut.key] = idx
            ac.add(fut)
        if not in_flight:
            break
        ready = ac.next_batch(block=False)
        if not ready:
            time.sleep(0.01)
            continue
        for fut, payload in ready:
            idx = in_flight.pop(fut.key, None)
            if idx is None or idx in delivered:  # a repeated delivery: never count twice
                fut.release()
                continue
            if fut.status == "finished":
                result, secs = payload
                delivered.add(idx)
                if deliver(idx, result, secs):
                    stop()
            else:
                exc = payload[1] if isinstance(payload, tuple) and len(payload) == 3 else payload
                if not isinstance(exc, BaseException):
                    exc = RuntimeError(f"task ended with status {fut.status!r}")
                if on_error is not None:
                    on_error(idx, _error_text(idx, exc))
                stop()
            fut.release()
    return time.perf_counter() - t0


def run_dask(job: BatchJob, run_seed: int, n_batches: int | None = None, *, address: str | None = LOCAL,
             client: Client | None = None, workers: int | None = None, seconds: float | None = None,
             cancel: threading.Event | None = None,
             on_result: Callable[[int, Any, OrderedMerger], None] | None = None,
             stop_when: Callable[[Any], bool] | None = None,
             done: set[int] | None = None, initial: Any = None, window: int | None = None) -> RunOutcome:
    """Run batches of ``job`` on a Dask cluster; the same contract as ``jobs.local.run_local``.

    ``address``: None or "local" starts a LocalCluster of ``workers``
    processes for this run; "tcp://host:8786" uses a running scheduler.
    ``client``: an open Client to use instead (left open).  Stops after
    ``n_batches`` (None = unbounded), ``seconds``, ``cancel`` or when
    ``stop_when(total)`` is true; batches already out finish and count.
    ``on_result(index, result, merger)`` is called in the calling thread.
    """
    if n_batches is None and seconds is None and cancel is None and stop_when is None:
        raise ValueError("an unbounded run needs seconds, cancel or stop_when")
    cancel = cancel or threading.Event()
    merger = OrderedMerger(job.merge, job.empty() if initial is None else initial, 0, skip=done)
    errors: list[str] = []

    def deliver(idx: int, result: Any, secs: float) -> bool:
        merger.add(idx, result)
        if on_result is not None:
            on_result(idx, result, merger)
        return stop_when is not None and bool(stop_when(merger.prefix))

    with client_for(address, client, workers) as cl:
        wall = stream_batches(cl, job, run_seed, n_batches, deliver=deliver,
                              on_error=lambda idx, text: errors.append(text),
                              cancel=cancel, seconds=seconds, done=done, window=window)
    return RunOutcome(merger.total(), merger.count, wall, cancel.is_set(), errors)

