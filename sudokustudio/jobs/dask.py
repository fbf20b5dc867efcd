"""Dask clients for runs on a cluster (optional: ``pip install 'sudokustudio[cluster]'``).

The run model (jobs/run.py) sends the same batches to a cluster through
``jobs.executors.DaskExecutor``, one task per batch keyed by job, run seed
and batch index, and merges them in batch-index order: totals are
bit-identical to a run on threads with the same seed, whatever the cluster,
the number of workers or the order in which batches finish.  A worker that
dies mid-run loses its tasks; the scheduler runs them again elsewhere
(``distributed.scheduler.allowed-failures`` times); a batch delivered twice
is merged once.  This module only connects, describes and closes clients.

Every network wait has a deadline (seconds; defaults below, overridable by
the environment variables named, or per call):

- connect (``SUDOKUSTUDIO_DASK_CONNECT_TIMEOUT``, default 10): the host must
  resolve and its port accept a TCP connection;
- handshake (``SUDOKUSTUDIO_DASK_HANDSHAKE_TIMEOUT``, default 5): a Dask
  server greets every new connection with its handshake at once; a port that
  says nothing, or says something that is not Dask's framing (an HTTP or SSH
  server), is refused with a ClusterError before any Dask client is made;
- workers (``SUDOKUSTUDIO_DASK_WORKER_TIMEOUT``, default 20): a scheduler
  with no workers for that long is a ClusterError ("no workers ...") rather
  than a silent wait.

Address: ``None`` or ``"local"`` starts a private ``LocalCluster`` (worker
processes on this machine); ``"tcp://host:8786"`` (or ``"host:8786"``)
connects to a running scheduler.  Every worker must have the same version
of sudokustudio installed (the jobs' code is imported there, not shipped).
"""
from __future__ import annotations

import atexit
import os
import socket
import struct
import threading
import time
from contextlib import contextmanager
from urllib.parse import urlsplit

import distributed
from distributed import Client, LocalCluster

LOCAL = "local"
INSTALL_HINT = "pip install 'sudokustudio[cluster]'"


DEFAULT_PORT = 8786


def _timeout_from_env(name: str, default: float) -> float:
    try:
        v = float(os.environ.get(name, default))
    except ValueError:
        return default
    return v if 0 < v < 1e6 else default


CONNECT_TIMEOUT = _timeout_from_env("SUDOKUSTUDIO_DASK_CONNECT_TIMEOUT", 10.0)
HANDSHAKE_TIMEOUT = _timeout_from_env("SUDOKUSTUDIO_DASK_HANDSHAKE_TIMEOUT", 5.0)
WORKER_TIMEOUT = _timeout_from_env("SUDOKUSTUDIO_DASK_WORKER_TIMEOUT", 20.0)
_MAX_HANDSHAKE = 1 << 20    # a Dask handshake is ~60 bytes; more than this is not one


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


def _host_port(addr: str) -> tuple[str, int]:
    parts = urlsplit(addr)
    try:
        port = parts.port or DEFAULT_PORT
    except ValueError:
        raise ClusterError(f"bad scheduler address {addr!r}: the port is not a number 1..65535") from None
    if not parts.hostname:
        raise ClusterError(f"bad scheduler address {addr!r}: expected e.g. tcp://host:8786 or 'local'")
    return parts.hostname, port


def probe_scheduler(addr: str, connect_timeout: float | None = None,
                    handshake_timeout: float | None = None) -> None:
    """Check, with plain sockets and deadlines, that a Dask scheduler answers at ``addr``
    (tcp:// only; other protocols are left to Dask): the host resolves, the port accepts,
    and the first bytes it sends are a Dask handshake.  ClusterError says which step failed."""
    if not addr.startswith("tcp://"):
        return
    host, port = _host_port(addr)
    connect_timeout = CONNECT_TIMEOUT if connect_timeout is None else connect_timeout
    handshake_timeout = HANDSHAKE_TIMEOUT if handshake_timeout is None else handshake_timeout
    try:
        socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as e:
        raise ClusterError(f"cannot reach the Dask scheduler at {addr}: host {host!r} is unknown ({e})") from None
    try:
        sock = socket.create_connection((host, port), timeout=connect_timeout)
    except socket.timeout:
        raise ClusterError(f"cannot reach the Dask scheduler at {addr}: no answer to connect within "
                           f"{connect_timeout:g} s (firewall? wrong host?)") from None
    except OSError as e:
        raise ClusterError(f"cannot reach the Dask scheduler at {addr} ({e.strerror or e}); is `dask scheduler` "
                           f"running there and the port open?") from None
    try:
        sock.settimeout(handshake_timeout)
        end = time.monotonic() + handshake_timeout
        head = _recv_exactly(sock, 8, end)
        if head is None:
            raise ClusterError(f"{addr} accepts connections but sends nothing within {handshake_timeout:g} s: "
                               f"not a Dask scheduler (or one that hangs)")
        (length,) = struct.unpack("<Q", head)
        body = _recv_exactly(sock, length, end) if 0 < length <= _MAX_HANDSHAKE else None
        if body is None or not (b"python" in body or b"compression" in body):
            raise ClusterError(f"{addr} answers, but not with Dask's protocol (first bytes {head!r}): "
                               f"is it a Dask scheduler's port (default {DEFAULT_PORT})?")
    finally:
        sock.close()


def _recv_exactly(sock: socket.socket, n: int, end: float) -> bytes | None:
    buf = b""
    while len(buf) < n:
        left = end - time.monotonic()
        if left <= 0:
            return None
        sock.settimeout(left)
        try:
            chunk = sock.recv(min(65536, n - len(buf)))
        except (socket.timeout, OSError):
            return None
        if not chunk:
            return None
        buf += chunk
    return buf


def wait_for_workers(client: Client, addr: str, timeout: float | None = None) -> None:
    """Return once the cluster has a worker; ClusterError after ``timeout`` seconds without one."""
    timeout = WORKER_TIMEOUT if timeout is None else timeout
    end = time.monotonic() + timeout
    while True:
        try:
            if client.nthreads():
                return
        except Exception as e:  # the scheduler went away meanwhile
            raise ClusterError(f"lost the Dask scheduler at {addr} ({type(e).__name__}: {e})") from None
        if time.monotonic() >= end:
            raise ClusterError(f"the Dask scheduler at {addr} has had no workers for {timeout:g} s; start some "
                               f"with `dask worker {addr}` (or set SUDOKUSTUDIO_DASK_WORKER_TIMEOUT)")
        time.sleep(0.2)


def start_local_cluster(workers: int | None = None) -> LocalCluster:
    """A LocalCluster of single-threaded worker processes (no dashboard)."""
    n = workers or min(2, os.cpu_count() or 1)
    return LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=None)


def connect(address: str | None, *, timeout: float | None = None, workers: int | None = None,
            worker_timeout: float | None = None) -> Client:
    """A Client for ``address`` (None / "local": a new LocalCluster that closes with the client).

    A remote address is probed first (``probe_scheduler``: connect and handshake deadlines),
    and the client is returned only once the cluster has a worker (``worker_timeout``)."""
    addr = normalise_address(address)
    if addr is None:
        cluster = start_local_cluster(workers)
        client = Client(cluster, set_as_default=False)
        client._sudokustudio_cluster = cluster  # closed by close_client
        return client
    timeout = CONNECT_TIMEOUT if timeout is None else timeout
    probe_scheduler(addr, timeout)
    try:
        client = Client(addr, timeout=timeout, set_as_default=False)
    except (OSError, TimeoutError) as exc:
        raise ClusterError(f"cannot reach the Dask scheduler at {addr} ({type(exc).__name__}: {exc}); "
                           f"is `dask scheduler` running there and the port open?") from exc
    try:
        wait_for_workers(client, addr, worker_timeout)
    except ClusterError:
        client.close()
        raise
    return client


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
    probe_scheduler(addr, timeout, timeout)
    client = Client(addr, timeout=timeout, set_as_default=False)
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
