"""The batch protocol: the one way long work runs (DESIGN.md, "Batches").

A job is a picklable object (domain modules define their jobs next to their
kernels; the run model lives in jobs/) with a JSON-able ``spec``::

    job.run_batch(batch_index, seed) -> result   # pure
    job.merge(a, b) -> result                    # associative
    job.empty() -> result                        # identity of merge

Batch seeds come from ``core.rng.batch_seed(run_seed, index)``.  Results are
merged in batch-index order (``OrderedMerger``), so totals are bit-identical
whatever the number of workers, the executor or the completion order.
Results are plain data (``core.plain``): they are stored and shipped as
such, never pickled.

A run can be stopped while its batches run: ``cancel_flag()`` inside
``run_batch`` is an int64[1] array that turns nonzero; kernels that can run
long poll it and return early, and the job then raises ``BatchCancelled``
(a partial batch is never merged).
"""
from __future__ import annotations

import math
import threading
from abc import ABC, abstractmethod
from contextlib import contextmanager
from typing import Any, Callable, ClassVar

import numpy as np

from sudokustudio.core import plain
from sudokustudio.core.rng import batch_seed

JOB_TYPES: dict[str, type["BatchJob"]] = {}


class BatchCancelled(Exception):
    """A batch stopped early because its run was stopped; its partial result is dropped."""


class BadResult(ValueError):
    """A decoded batch result that does not fit its job; the message says why."""


_local = threading.local()


def cancel_flag() -> np.ndarray:
    """The cancel flag of the batch running in this thread (int64[1], nonzero = stop)."""
    flag = getattr(_local, "flag", None)
    return flag if flag is not None else np.zeros(1, dtype=np.int64)


def check_cancelled(flag: np.ndarray | None = None) -> None:
    """Raise BatchCancelled if this thread's batch (or ``flag``) was asked to stop."""
    f = cancel_flag() if flag is None else flag
    if f[0]:
        raise BatchCancelled()


@contextmanager
def cancel_scope(flag: np.ndarray | None):
    old = getattr(_local, "flag", None)
    _local.flag = flag
    try:
        yield
    finally:
        _local.flag = old


class BatchJob(ABC):
    """Base class of batch jobs.  Subclasses set ``kind`` and keep ``spec``.

    Optional parts a run model and its views use: ``unit`` names what
    ``units(total)`` counts (samples, puzzles, ...; the rate and the
    "count" stop rule use it), ``n_batches()`` gives the length of jobs
    that have one, ``rel_err(total)`` the headline relative error
    (estimators: the target-RE stop rule and the ETA), ``summary(total)``
    a small dict recorded in the run's history for plots,
    ``kernel_groups`` the kernel groups (sudokustudio.kernels) it needs, and
    ``live_total_in_order``: True when a running total should hold only the
    batches merged without a gap (one that finished early joins it when the
    gap closes; the run's final total holds every batch), for a merge that is
    cheap only when appending to the newest total (the atlas's records).
    ``batch_weights``: for a job of ``n_batches()`` batches whose costs differ
    widely, each batch's expected cost in any unit (float[n_batches]), set on
    the job when known; the time left is then the weight left over the weight
    done per second, not the batches left over the batches done per second.
    Or the cost in parts of k kinds (float[n_batches, k]) whose prices the run
    fits to the seconds of the batches done (``jobs.time_left.fixed_length_eta``).
    """

    kind: ClassVar[str] = ""
    unit: ClassVar[str] = "batches"
    live_total_in_order: ClassVar[bool] = False
    batch_weights: np.ndarray | None = None
    kernel_groups: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        if cls.kind:
            JOB_TYPES[cls.kind] = cls

    def __init__(self, **spec: Any):
        self.spec = dict(spec)

    @classmethod
    def from_spec(cls, spec: dict) -> "BatchJob":
        """The job a stored spec describes (a kind whose spec gained a key overrides this to
        read older specs as they were meant)."""
        return cls(**spec)

    @abstractmethod
    def run_batch(self, batch_index: int, seed: int) -> Any: ...

    @abstractmethod
    def merge(self, a: Any, b: Any) -> Any: ...

    @abstractmethod
    def empty(self) -> Any: ...

    def n_batches(self) -> int | None:
        """The number of batches of the whole job, or None for open-ended jobs."""
        return None

    def units(self, total: Any) -> int:
        """How many ``unit``s a merged result holds (0 when the job does not count any)."""
        return 0

    def rel_err(self, total: Any) -> float | None:
        """The headline relative error of a merged result (None: the job has none)."""
        return None

    def summary(self, total: Any) -> dict | None:
        """A small JSON-able dict recorded in the run's history (None: no history)."""
        return None

    def warm_up(self) -> None:
        """Compile the job's kernels (called before timing-sensitive runs)."""

    def describe(self, total: Any) -> dict:
        """A JSON-able summary of a merged result (for CLI --json and exports)."""
        return {}

    # results cross process and disk boundaries as plain data
    def encode(self, result: Any) -> bytes:
        return plain.encode(result)

    def decode(self, blob: bytes) -> Any:
        """The result ``encode`` stored, checked to fit this job (PlainError / BadResult)."""
        result = plain.decode(blob)
        self.check_result(result)
        return result

    def check_result(self, result: Any) -> None:
        """Raise BadResult unless ``result`` has the shape of this job's results
        (the same type as ``empty()``, the same keys, and it merges)."""
        ref = self.empty()
        if ref is not None and type(result) is not type(ref):
            raise BadResult(f"expected a {type(ref).__name__}, got a {type(result).__name__}")
        if isinstance(ref, dict) and set(result) != set(ref):
            raise BadResult(f"expected the keys {sorted(ref)}, got {sorted(map(str, result))}")
        try:
            self.merge(self.empty(), result)
        except Exception as e:  # any failure to merge means the data does not fit
            raise BadResult(f"does not merge ({type(e).__name__}: {e})") from None

    def run_indexed(self, run_seed: int, batch_index: int, cancel: np.ndarray | None = None) -> Any:
        """Run one batch of a run: what every executor (threads, Dask) calls."""
        with cancel_scope(cancel):
            return self.run_batch(batch_index, batch_seed(run_seed, batch_index))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.spec})"


def job_from_spec(kind: str, spec: dict) -> BatchJob:
    """Rebuild a job (e.g. from the run store) from its kind and spec."""
    if kind not in JOB_TYPES:
        raise KeyError(f"unknown job kind {kind!r}")
    return JOB_TYPES[kind].from_spec(spec)


def finite_or_none(x) -> float | None:
    return float(x) if x is not None and math.isfinite(float(x)) else None


class OrderedMerger:
    """Merges results in batch-index order.

    ``prefix`` is the merge of batches ``first .. next-1`` with no gaps; batches
    that arrive early wait in ``pending``.  ``total()`` (for live display) also
    folds in the pending ones, still in index order.
    """

    def __init__(self, merge: Callable[[Any, Any], Any], empty: Any, first: int = 0,
                 skip: set[int] | None = None):
        self._merge = merge
        self.prefix = empty
        self.next = first
        self.pending: dict[int, Any] = {}
        self.count = 0
        self._skip = set(skip or ())
        self._advance_skips()

    def _advance_skips(self):
        while self.next in self._skip:
            self._skip.discard(self.next)
            self.next += 1

    def add(self, index: int, result: Any) -> None:
        if index < self.next or index in self.pending or index in self._skip:
            raise ValueError(f"batch {index} merged twice")
        self.count += 1
        self.pending[index] = result
        while self.next in self.pending:
            self.prefix = self._merge(self.prefix, self.pending.pop(self.next))
            self.next += 1
            self._advance_skips()

    def total(self, pending: bool = True) -> Any:
        """Every batch added, in index order (``pending=False``: those without a gap only)."""
        out = self.prefix
        for i in sorted(self.pending) if pending else ():
            out = self._merge(out, self.pending[i])
        return out
