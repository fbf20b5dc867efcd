"""The batch protocol: the one way long work runs (DESIGN.md, "Batches").

A job is a picklable object (domain modules define their jobs next to their
kernels; runners live in jobs/) with a JSON-able ``spec``::

    job.run_batch(batch_index, seed) -> result   # pure
    job.merge(a, b) -> result                    # associative
    job.empty() -> result                        # identity of merge

Batch seeds come from ``core.rng.batch_seed(run_seed, index)``.  Results are
merged in batch-index order (``OrderedMerger``), so totals are bit-identical
whatever the number of workers, the runner or the completion order.
"""
from __future__ import annotations

import pickle
from abc import ABC, abstractmethod
from typing import Any, Callable, ClassVar

from sudokustudio.core.rng import batch_seed

JOB_TYPES: dict[str, type["BatchJob"]] = {}


class BatchJob(ABC):
    """Base class of batch jobs.  Subclasses set ``kind`` and keep ``spec``."""

    kind: ClassVar[str] = ""
    kernel_groups: ClassVar[tuple[str, ...]] = ()  # sudokustudio.kernels groups the job needs

    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        if cls.kind:
            JOB_TYPES[cls.kind] = cls

    def __init__(self, **spec: Any):
        self.spec = dict(spec)

    @abstractmethod
    def run_batch(self, batch_index: int, seed: int) -> Any: ...

    @abstractmethod
    def merge(self, a: Any, b: Any) -> Any: ...

    @abstractmethod
    def empty(self) -> Any: ...

    def warm_up(self) -> None:
        """Compile the job's kernels (called before timing-sensitive runs)."""

    def describe(self, total: Any) -> dict:
        """A JSON-able summary of a merged result (for CLI --json and exports)."""
        return {}

    # results cross process and disk boundaries as bytes
    def encode(self, result: Any) -> bytes:
        return pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL)

    def decode(self, blob: bytes) -> Any:
        return pickle.loads(blob)

    def run_indexed(self, run_seed: int, batch_index: int) -> Any:
        """Run one batch of a run: what every runner (thread, Qt, Dask) calls."""
        return self.run_batch(batch_index, batch_seed(run_seed, batch_index))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.spec})"


def job_from_spec(kind: str, spec: dict) -> BatchJob:
    """Rebuild a job (e.g. from the run store) from its kind and spec."""
    if kind not in JOB_TYPES:
        raise KeyError(f"unknown job kind {kind!r}")
    return JOB_TYPES[kind](**spec)


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
        if index < self.next or index in self.pending:
            raise ValueError(f"batch {index} merged twice")
        self.count += 1
        self.pending[index] = result
        while self.next in self.pending:
            self.prefix = self._merge(self.prefix, self.pending.pop(self.next))
            self.next += 1
            self._advance_skips()

    def total(self) -> Any:
        out = self.prefix
        for i in sorted(self.pending):
            out = self._merge(out, self.pending[i])
        return out
