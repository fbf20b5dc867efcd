"""Thread runner for the CLI and tests: N worker threads run nogil kernels."""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from queue import Empty, Queue
from typing import Any, Callable, Iterable, Iterator

from sudokustudio.core.batch import BatchJob, OrderedMerger


@dataclass
class RunOutcome:
    total: Any
    batches: int
    seconds: float
    cancelled: bool
    errors: list[str]


class BatchIndexSource:
    """Hands out batch indices to workers; thread-safe; can be closed."""

    def __init__(self, indices: Iterable[int]):
        self._it: Iterator[int] = iter(indices)
        self._lock = threading.Lock()
        self._closed = False

    def close(self) -> None:
        with self._lock:
            self._closed = True

    def take(self) -> int | None:
        with self._lock:
            if self._closed:
                return None
            try:
                return next(self._it)
            except StopIteration:
                self._closed = True
                return None


def batch_indices(n_batches: int | None, first: int = 0, done: set[int] | None = None) -> Iterator[int]:
    """Indices first.. (first+n_batches-1), or unbounded when n_batches is None; skips ``done``."""
    done = done or set()
    i = first
    while n_batches is None or i < first + n_batches:
        if i not in done:
            yield i
        i += 1


def run_local(job: BatchJob, run_seed: int, n_batches: int | None = None, *, workers: int = 1,
              seconds: float | None = None, cancel: threading.Event | None = None,
              on_result: Callable[[int, Any, OrderedMerger], None] | None = None,
              stop_when: Callable[[Any], bool] | None = None,
              done: set[int] | None = None, initial: Any = None) -> RunOutcome:
    """Run batches of ``job`` on ``workers`` threads.

    Stops after ``n_batches`` (None = unbounded), after ``seconds`` of wall
    time, when ``cancel`` is set, or when ``stop_when(total)`` is true; batches
    already started always finish and are counted, so the merged batches are
    exactly indices 0..k-1 (minus ``done``, those merged into ``initial``).
    ``on_result(index, result, merger)`` is called in the calling thread.
    """
    if n_batches is None and seconds is None and cancel is None and stop_when is None:
        raise ValueError("an unbounded run needs seconds, cancel or stop_when")
    cancel = cancel or threading.Event()
    source = BatchIndexSource(batch_indices(n_batches, 0, done))
    merger = OrderedMerger(job.merge, job.empty() if initial is None else initial, 0, skip=done)
    results: Queue = Queue()
    errors: list[str] = []

    def worker():
        while not cancel.is_set():
            idx = source.take()
            if idx is None:
                break
            try:
                res = job.run_indexed(run_seed, idx)
            except BaseException as exc:  # report, stop the run, keep what was merged
                results.put(("error", idx, f"batch {idx}: {type(exc).__name__}: {exc}"))
                source.close()
                break
            results.put(("ok", idx, res))
        results.put(("exit", -1, None))

    t0 = time.perf_counter()
    threads = [threading.Thread(target=worker, daemon=True, name=f"batch-worker-{k}") for k in range(workers)]
    for t in threads:
        t.start()
    alive = len(threads)
    while alive:
        try:
            kind, idx, payload = results.get(timeout=0.05)
        except Empty:
            kind, idx, payload = "tick", -1, None
        if kind == "exit":
            alive -= 1
        elif kind == "error":
            errors.append(payload)
        elif kind == "ok":
            merger.add(idx, payload)
            if on_result is not None:
                on_result(idx, payload, merger)
            if stop_when is not None and stop_when(merger.prefix):
                source.close()
        if seconds is not None and time.perf_counter() - t0 >= seconds:
            source.close()
        if cancel.is_set():
            source.close()
    for t in threads:
        t.join()
    return RunOutcome(merger.total(), merger.count, time.perf_counter() - t0, cancel.is_set(), errors)
