"""Dask clients for runs on a cluster (optional: ``pip install 'sudokustudio[cluster]'``).

The run model (jobs/run.py) sends the same batches to a cluster through
``jobs.executors.DaskExecutor``, one task per batch keyed by job, run seed
and batch index, and merges them in batch-index order: totals are
bit-identical to a run on threads with the same seed, whatever the cluster,
the number of workers or the order in which batches finish.  A worker that
dies mid-run loses its tasks; the scheduler runs them again elsewhere
(``distributed.scheduler.allowed-failures`` times); a batch delivered twice
is merged once.  This module only connects, describes and closes clients.

Address: ``None`` or ``"local"`` starts a private ``LocalCluster`` (worker
processes on this machine); ``"tcp://host:8786"`` (or ``"host:8786"``)
connects to a running scheduler.  Every worker must have the same version
of sudokustudio installed (the jobs' code is imported there, not shipped).
"""
from __future__ import annotations

import atexit
import os
import threading
from contextlib import contextmanager

import distributed
from distributed import Client, LocalCluster

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


def check_importable(job) -> None:
    """Jobs defined in a main script cannot be run reproducibly on a cluster."""
    if type(job).__module__ == "__main__":
        # cloudpickle would ship such a class by value, and numba dispatchers pickled by value
        # are rebuilt on the worker: observed to give different random grids than the original.
        raise ClusterError(f"{type(job).__name__} is defined in the main script; define cluster jobs in an "
                           f"importable module (installed on every worker) so that results are reproducible")
