"""The run model: one long computation, Qt-free, the same in the window, the CLI and on Dask.

A ``Run`` owns a batch job, its run seed and stop rules, the batches done
(merged in batch-index order, so totals never depend on timing), its status,
honest rates and a history for plots.  It commits every finished batch to
the run store as it arrives (a write that fails is kept in memory and tried
again) and drives an executor (jobs/executors.py: threads or Dask) with one
loop: keep ``capacity`` batches in flight, wait for any, merge, commit,
check the stop rules.

- ``run(executor)`` runs the loop in the calling thread (CLI, benchmarks).
- ``start(executor)`` runs it in a daemon thread (the window); views read
  ``snapshot()`` from a timer and jobs/qt.py turns the listener's events
  into Qt signals.
- ``stop()`` stops at once: no new batches go out, queued ones are
  withdrawn and the cancel flag tells polling kernels to return early
  (their partial batches are dropped); batches that finish are kept.
- ``Run.open(store, run_id)`` rebuilds a stored run (status, batches,
  history); ``start`` then resumes it with the batches still missing.

Statuses: queued (waiting for its kernels or its executor) -> running ->
stopping -> paused (stopped early, resumable) | done | failed; a run found
live in the store whose process is gone is "interrupted" (resumable).

The file is ~710 lines because ``Run`` is one state machine (its loop, stop
rules, store commits with retry, snapshot and resume share its locked state);
the executors, the time-left rules and the Qt adapter are in modules of their own.
"""
from __future__ import annotations

import concurrent.futures as cf
import hashlib
import json
import logging
import math
import threading
import time
import traceback
import uuid
import weakref
from dataclasses import asdict, dataclass, field
from enum import Enum
from itertools import count
from typing import Any, Callable

import numpy as np

from sudokustudio.core.batch import BatchCancelled, BatchJob, OrderedMerger, cancel_scope
from sudokustudio.jobs.executors import Executor, ThreadExecutor, run_one_batch
from sudokustudio.jobs.store import RunStore, StoreError, this_owner
from sudokustudio.jobs.time_left import fixed_length_eta

log = logging.getLogger(__name__)

MAX_HISTORY = 600          # history points kept, spread evenly over log(batches) (:func:`thin_history`)
HISTORY_BUCKETS = 256      # history buckets per doubling of the batch count at first (halved as needed)
_LIVE: "weakref.WeakSet[Run]" = weakref.WeakSet()   # runs whose loop is going, in this process
HEARTBEAT_EVERY = 5.0      # seconds between heartbeats while batches run long
RETRY_STORE_EVERY = 1.0    # seconds between attempts to save batches the store refused
LOOP_STORE_WAIT = 0.25     # seconds a write from the run's loop waits for another process's lock


class Status(str, Enum):
    QUEUED = "queued"
    RUNNING = "running"
    STOPPING = "stopping"
    PAUSED = "paused"
    DONE = "done"
    FAILED = "failed"
    INTERRUPTED = "interrupted"

    @property
    def live(self) -> bool:
        return self in (Status.QUEUED, Status.RUNNING, Status.STOPPING)

    @property
    def resumable(self) -> bool:
        return self in (Status.PAUSED, Status.DONE, Status.INTERRUPTED, Status.FAILED)


def _history_key(point: dict, per_doubling: float) -> int:
    return math.floor(per_doubling * math.log2(max(point["batches"], 1)))


def thin_history(points: list[dict], per_doubling: float) -> list[dict]:
    """The last point of each bucket of 1/``per_doubling`` of a doubling of the batch count (so
    the newest point stays).  Buckets even on a log scale keep a long run's first seconds on
    the plots' log time axis, where halving every other point kept emptying them (a 30 s run
    kept its first batch and then nothing before 11 s)."""
    out: list[dict] = []
    for p in points:
        if out and _history_key(out[-1], per_doubling) == _history_key(p, per_doubling):
            out[-1] = p
        else:
            out.append(p)
    return out


@dataclass(frozen=True)
class StopRules:
    """When a run stops by itself: after ``batches`` batches in all (the run's
    length), ``seconds`` of this session, ``units`` units in all (samples,
    puzzles: the job's ``unit``), or once the job's relative error is at most
    ``rel_err``.  No rule: the run goes on until ``stop()`` (or, for jobs of a
    known length, until every batch is done)."""

    batches: int | None = None
    seconds: float | None = None
    units: int | None = None
    rel_err: float | None = None

    def __post_init__(self):
        for name in ("batches", "units"):
            v = getattr(self, name)
            if v is not None and (isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1):
                raise ValueError(f"stop rule {name}: a whole number >= 1, got {v!r}")
        for name in ("seconds", "rel_err"):
            v = getattr(self, name)
            if v is not None and not (isinstance(v, (int, float)) and math.isfinite(v) and v > 0):
                raise ValueError(f"stop rule {name}: a finite number > 0, got {v!r}")

    def to_dict(self) -> dict:
        return {k: v for k, v in asdict(self).items() if v is not None}

    @classmethod
    def from_dict(cls, d: dict | None) -> "StopRules":
        d = d or {}
        return cls(**{k: d[k] for k in ("batches", "seconds", "units", "rel_err") if k in d})


@dataclass(frozen=True)
class Snapshot:
    """What a view reads: a consistent copy of a run's state at one moment."""

    status: Status
    total: Any
    batches: int                  # batches merged (all sessions)
    n_batches: int | None         # the run's length, when known
    units: int
    unit: str
    rate: float                   # units (or batches) per second in this session
    session_seconds: float
    elapsed: float                # wall seconds running, all sessions
    cpu_seconds: float            # batch CPU seconds, all sessions
    rel_err: float | None
    eta: float | None             # seconds to the stop rule, when it can be told
    errors: tuple[str, ...]
    store_problem: str
    waiting_for: str              # what a queued run waits for
    history: tuple[dict, ...] = field(default=())

    @property
    def fraction(self) -> float | None:
        """Progress towards the run's length, when it has one."""
        return None if not self.n_batches else min(1.0, self.batches / self.n_batches)


class Run:
    """One run of a batch job (see the module docstring)."""

    def __init__(self, job: BatchJob, seed: int, rules: StopRules | None = None, *,
                 store: RunStore | None = None, run_id: int | None = None, name: str = "",
                 listener: Callable[[str, "Run"], None] | None = None):
        self.job = job
        self.seed = int(seed)
        self.rules = rules or StopRules()
        self.store = store
        self.run_id = run_id
        self.name = name
        self.listener = listener
        self._lock = threading.RLock()
        self._merger = OrderedMerger(job.merge, job.empty())
        self._done: set[int] = set()
        self._total = self._merger.total()
        self._status = Status.PAUSED
        self._errors: list[str] = []
        self._history: list[dict] = []
        self._history_buckets = HISTORY_BUCKETS
        self._cpu = 0.0
        self._batch_seconds: dict[int, float] = {}   # each batch's seconds (the time left fits its costs to them)
        self._elapsed_before = 0.0
        self._session_t0: float | None = None
        self._session_end: float | None = None
        self._session_units0 = 0
        self._session_batches0 = 0
        self._session_done0: frozenset[int] = frozenset()   # the batches done before this session
        self._n_batches: int | None = self.rules.batches
        self._stop = threading.Event()
        self._cancel = np.zeros(1, dtype=np.int64)
        self._thread: threading.Thread | None = None
        self._finished = threading.Event()
        self._finished.set()
        self._unsaved: dict[int, tuple[bytes, float]] = {}
        self._store_problem = ""
        self._last_store_try = 0.0
        self._waiting_for = ""
        self.owner = ""
        self._setup_error: Exception | None = None
        self._key_prefix: str | None = None
        self.last_batch: tuple[int, Any] | None = None   # (index, result) of the newest merged batch

    # ------------------------------------------------------------------ building
    @classmethod
    def create(cls, job: BatchJob, seed: int, rules: StopRules | None = None, *, store: RunStore | None = None,
               name: str = "", listener=None) -> "Run":
        """A new run, recorded in ``store`` (if any) before it starts."""
        run = cls(job, seed, rules, store=store, name=name, listener=listener)
        if store is not None:
            run.run_id = store.create_run(job, seed, name=name, target_batches=run.rules.batches,
                                          rules=run.rules.to_dict(), status=Status.PAUSED.value)
        return run

    @classmethod
    def open(cls, store: RunStore, run_id: int, listener=None) -> "Run":
        """A stored run with its batches and history (slow for long runs: call it off the UI thread)."""
        info = store.run(run_id)
        job = store.job_of(run_id)
        try:
            rules = StopRules.from_dict(info.rules)
        except (TypeError, ValueError) as e:
            raise StoreError(f"run {run_id}: its stop rules are damaged ({e})") from e
        run = cls(job, info.seed, rules, store=store, run_id=run_id, name=info.name, listener=listener)
        try:
            run._status = Status(info.status)
        except ValueError:
            run._status = Status.INTERRUPTED
        run.owner = info.owner
        run._elapsed_before = info.elapsed
        acc = job.empty()
        for idx, res, secs, _ in store.iter_results(run_id, job):
            run._merger.add(idx, res)
            run._done.add(idx)
            run._cpu += secs
            run._batch_seconds[idx] = secs
            acc = job.merge(acc, res)
            run._record(acc, len(run._done))
        run._total = run._merger.total()
        if info.error:
            run._errors.append(info.error)
        return run

    # ------------------------------------------------------------------ state
    @property
    def status(self) -> Status:
        return self._status

    @property
    def live_elsewhere(self) -> bool:
        """Opened from the store while another process drives it: it can be watched, not resumed."""
        return self._status.live and self._finished.is_set() and bool(self.owner) and self.owner != this_owner()

    def set_rules(self, rules: StopRules) -> None:
        """New stop rules (e.g. a longer run before resuming); saved with the run."""
        with self._lock:
            self.rules = rules
            self._n_batches = rules.batches
        if self.store is not None and self.run_id is not None:
            self.store.set_rules(self.run_id, rules.to_dict())

    @property
    def total(self) -> Any:
        with self._lock:
            return self._total

    @property
    def batches_done(self) -> int:
        with self._lock:
            return len(self._done)

    def done_batch_indices(self) -> list[int]:
        """The indices of the batches merged so far (stored ones included), ascending."""
        with self._lock:
            return sorted(self._done)

    @property
    def errors(self) -> list[str]:
        with self._lock:
            return list(self._errors)

    def snapshot(self, history: bool = True) -> Snapshot:
        with self._lock:
            now = time.perf_counter()
            if self._session_t0 is None:
                session = 0.0
            else:
                session = (self._session_end or now) - self._session_t0
            units = self._units(self._total)
            batches = len(self._done)
            if self.job.unit == "batches":
                done_now, done0 = batches, self._session_batches0
            else:
                done_now, done0 = units, self._session_units0
            rate = (done_now - done0) / session if session > 0 else float("nan")
            rel = self._rel_err(self._total)
            return Snapshot(
                status=self._status, total=self._total, batches=batches, n_batches=self._n_batches,
                units=units, unit=self.job.unit, rate=rate, session_seconds=session,
                elapsed=self._elapsed_before + session, cpu_seconds=self._cpu, rel_err=rel,
                eta=self._eta(done_now, rate, batches, session, rel), errors=tuple(self._errors),
                store_problem=self._store_problem, waiting_for=self._waiting_for,
                history=tuple(self._history) if history else ())

    def _units(self, total) -> int:
        return len(self._done) if self.job.unit == "batches" else int(self.job.units(total))

    def _rel_err(self, total) -> float | None:
        re = self.job.rel_err(total)
        return float(re) if re is not None and math.isfinite(re) else None

    def _eta(self, done_now: int, rate: float, batches: int, session: float, rel: float | None) -> float | None:
        if not (rate > 0 and math.isfinite(rate)):
            return None
        r = self.rules
        if self._n_batches:
            return fixed_length_eta(self._n_batches, self._done, self._session_done0, session,
                                    getattr(self.job, "batch_weights", None), self._batch_seconds)
        if r.units:
            return max(0.0, (r.units - done_now) / rate)
        if r.rel_err and rel:
            need = done_now * (rel / r.rel_err) ** 2
            return max(0.0, (need - done_now) / rate)
        if r.seconds:
            return max(0.0, r.seconds - session)
        return None

    def eta_for_rel_err(self, target: float) -> float | None:
        """Seconds until the relative error reaches ``target`` at this session's rate (RE ~ 1/sqrt(units))."""
        s = self.snapshot(history=False)
        if s.rel_err is None or not (s.rate > 0):
            return None
        done = s.units if s.unit != "batches" else s.batches
        return max(0.0, (done * (s.rel_err / target) ** 2 - done) / s.rate)

    # ------------------------------------------------------------------ control
    def start(self, executor: Executor, gate: Callable[[BatchJob, threading.Event], bool] | None = None) -> None:
        """Run (or resume) in a daemon thread; returns at once.

        ``gate(job, stop_event)``, if given, is called first in the run's thread and blocks
        until the job can run (e.g. its kernels are compiled elsewhere; status "queued" with
        ``waiting_for`` set meanwhile); False means "do not run"."""
        with self._lock:
            if self._status.live and not self._finished.is_set():
                return
            self._begin()
            self._thread = threading.Thread(target=self._drive, args=(executor, gate), daemon=True,
                                            name=f"run-{self.run_id or self.job.kind}")
            self._thread.start()

    def run(self, executor: Executor | None = None, gate=None, workers: int | None = None) -> Snapshot:
        """Run (or resume) in the calling thread until a stop rule, ``stop()`` or the end of the job."""
        own = executor is None
        executor = executor or ThreadExecutor(workers)
        try:
            with self._lock:
                self._begin()
            self._setup_error = None
            self._drive(executor, gate)
        finally:
            if own:
                executor.close()
        if self._setup_error is not None:  # bad input or an unusable cluster: the caller says so
            raise self._setup_error
        return self.snapshot()

    def _begin(self) -> None:
        if self.live_elsewhere:
            raise RuntimeError(f"run {self.run_id} is running in another process ({self.owner})")
        self._stop.clear()
        self._cancel[0] = 0
        self._key_prefix = None
        self._errors = []
        self._finished.clear()
        self._status = Status.QUEUED
        _LIVE.add(self)

    def stop(self) -> None:
        """Stop soon: nothing new goes out; batches that finish are kept (see the module docstring)."""
        with self._lock:
            if self._finished.is_set():
                return
            self._stop.set()
            self._cancel[0] = 1
            if self._status in (Status.QUEUED, Status.RUNNING):
                self._status = Status.STOPPING  # saved by the run's own thread when it ends
        self._emit("status")

    pause = stop

    def wait(self, timeout: float | None = None) -> bool:
        """True once the run's loop has ended (within ``timeout`` seconds)."""
        return self._finished.wait(timeout)

    @property
    def finished(self) -> bool:
        return self._finished.is_set()

    # ------------------------------------------------------------------ the loop
    def _drive(self, executor: Executor, gate) -> None:
        in_flight: dict[cf.Future, int] = {}
        final = Status.PAUSED
        try:
            self._ensure_record()
            self._set_status(Status.QUEUED)
            if gate is not None:
                self._waiting_for = "kernels"
                self._emit("status")
                if not gate(self.job, self._stop):
                    return
            self._waiting_for = ""
            if self._stop.is_set():
                return
            executor.prepare(self.job)
            try:
                with cancel_scope(self._cancel):   # a search prepares its nodes here: stop() reaches it
                    length = self.job.n_batches()  # may take a while: never on a UI thread
            except BatchCancelled:
                return
            if length is not None:
                self._n_batches = length if self._n_batches is None else min(self._n_batches, length)
            with self._lock:
                self._session_t0 = time.perf_counter()
                self._session_end = None
                self._session_units0 = self._units(self._total)
                self._session_batches0 = len(self._done)
                self._session_done0 = frozenset(self._done)
            if not self._stop.is_set():
                self._set_status(Status.RUNNING)
            indices = (i for i in (range(self._n_batches) if self._n_batches is not None else count())
                       if i not in self._done)
            exhausted = False
            last_beat = time.monotonic()
            while True:
                stopping = self._stop.is_set() or self._rules_met()
                while not stopping and not exhausted and len(in_flight) < executor.capacity:
                    idx = next(indices, None)
                    if idx is None:
                        exhausted = True
                        break
                    fut = executor.submit(run_one_batch, self.job, self.seed, idx, self._cancel,
                                          key=self._key(idx))
                    in_flight[fut] = idx
                if self._stop.is_set():
                    for fut in list(in_flight):
                        # withdrawn if not started (on a cluster: stopped where it runs).  A cancelled
                        # future leaves at once: cf.wait() counts only "cancelled and notified" ones as
                        # done, and a Dask future's wrapper may never be notified
                        if fut.cancel():
                            del in_flight[fut]
                if not in_flight:
                    break
                done, _ = cf.wait(list(in_flight), timeout=0.1, return_when=cf.FIRST_COMPLETED)
                for fut in done:
                    self._take(in_flight.pop(fut), fut)
                if self._unsaved:
                    self._save_unsaved()
                now = time.monotonic()
                if now - last_beat > HEARTBEAT_EVERY:
                    last_beat = now
                    self._beat()
            with self._lock:
                complete = self._n_batches is not None and len(self._done) >= self._n_batches
                if self._errors:
                    final = Status.FAILED
                elif complete or (self._rules_met() and not self._stop.is_set()):
                    final = Status.DONE
        except Exception as exc:  # the job or the executor failed to start (n_batches, a cluster)
            log.exception("run %s failed", self.run_id)
            with self._lock:
                self._errors.append(f"{type(exc).__name__}: {exc}" if not isinstance(exc, (ValueError, RuntimeError))
                                    else str(exc))
            self._setup_error = exc
            final = Status.FAILED
        finally:
            for fut in in_flight:
                fut.cancel()
            self._flush_unsaved(deadline=5.0)
            with self._lock:
                if self._session_t0 is not None and self._session_end is None:
                    self._session_end = time.perf_counter()
                if self.job.live_total_in_order:   # the final total holds every batch done
                    self._total = self._merger.total()
            self._set_status(final, error=self._errors[-1] if final is Status.FAILED else "")
            self._finished.set()
            _LIVE.discard(self)
            self._emit("finished")

    def _key(self, idx: int) -> str:
        """The task key of a batch on a cluster: job, seed, this session and the batch.  A batch sent
        twice in a session is one task; a new session never meets the cancelled tasks of an old one."""
        if self._key_prefix is None:
            spec = hashlib.sha1(json.dumps(self.job.spec, sort_keys=True, default=str).encode()).hexdigest()[:12]
            self._key_prefix = f"sudokustudio-{self.job.kind}-{spec}-{self.seed}-{uuid.uuid4().hex[:8]}"
        return f"{self._key_prefix}-{idx}"

    def _rules_met(self) -> bool:
        r = self.rules
        with self._lock:
            if self._n_batches is not None and len(self._done) >= self._n_batches:
                return True
            if r.seconds is not None and self._session_t0 is not None \
                    and time.perf_counter() - self._session_t0 >= r.seconds:
                return True
            if r.units is not None and self._units(self._total) >= r.units:
                return True
            if r.rel_err is not None:
                re = self._rel_err(self._total)
                if re is not None and re <= r.rel_err:
                    return True
        return False

    def _take(self, idx: int, fut: cf.Future) -> None:
        if fut.cancelled():
            return
        exc = fut.exception()
        if isinstance(exc, BatchCancelled):
            return
        if exc is not None:
            text = f"batch {idx}: {type(exc).__name__}: {exc}"
            log.error("run %s %s\n%s", self.run_id, text,
                      "".join(traceback.format_exception(type(exc), exc, exc.__traceback__)))
            with self._lock:
                self._errors.append(text)
            self._stop.set()
            self._emit("error")
            return
        result, secs = fut.result()
        with self._lock:
            if idx in self._done:   # a batch delivered twice (a cluster re-ran it): never counted twice
                return
            batches = len(self._done) + 1
        # merged and summarised outside the lock (a big merge or summary must not block a view's
        # snapshot): only this thread touches the merger; views read the total it then publishes
        self._merger.add(idx, result)
        total = self._merger.total(pending=not self.job.live_total_in_order)
        point = self._history_point(total, batches, self._cpu + secs)
        with self._lock:
            self._done.add(idx)
            self._cpu += secs
            self._batch_seconds[idx] = secs
            self._total = total
            self._add_history(point)
            self.last_batch = (idx, result)
        if self.store is not None:
            self._unsaved[idx] = (self.job.encode(result), secs)
            self._save_unsaved()
        self._emit("batch")

    def _record(self, total, batches: int) -> None:
        self._add_history(self._history_point(total, batches, self._cpu))

    def _history_point(self, total, batches: int, cpu: float) -> dict | None:
        """The history's point for ``total`` (the job's summary) after ``cpu`` batch seconds, or None."""
        summary = self.job.summary(total)
        if summary is None:
            return None
        return {"cpu_seconds": cpu, "batches": batches, "units": self._units(total), **summary}

    def _add_history(self, point: dict | None) -> None:
        if point is None:
            return
        h = self._history
        if h and _history_key(h[-1], self._history_buckets) == _history_key(point, self._history_buckets):
            h[-1] = point      # the newest point of its bucket
        else:
            h.append(point)
        while len(h) > MAX_HISTORY:
            self._history_buckets /= 2
            h = self._history = thin_history(h, self._history_buckets)

    # ------------------------------------------------------------------ store
    def _elapsed_now(self) -> float:
        if self._session_t0 is None:
            return self._elapsed_before
        return self._elapsed_before + ((self._session_end or time.perf_counter()) - self._session_t0)

    def _ensure_record(self) -> bool:
        """The run's record in the store (made by the run's own thread, so a busy store never blocks a view)."""
        if self.store is None or self.run_id is not None:
            return True
        try:
            self.run_id = self.store.create_run(self.job, self.seed, name=self.name, target_batches=self.rules.batches,
                                                rules=self.rules.to_dict(), status=Status.QUEUED.value)
        except StoreError as e:
            self._store_trouble(e)
            return False
        self._emit("stored")
        return True

    def _store_trouble(self, e: Exception) -> None:
        if not self._store_problem:
            log.warning("run %s: %s", self.run_id, e)
            self._store_problem = (f"Run {self.run_id or '(new)'}: cannot be saved right now ({e}); finished "
                                   f"batches are kept in memory and saved as soon as the store allows")
            self._emit("store")

    def _save_unsaved(self) -> None:
        if not self._unsaved or self.store is None:
            return
        if self._store_problem and time.monotonic() - self._last_store_try < RETRY_STORE_EVERY:
            return
        self._last_store_try = time.monotonic()
        if not self._ensure_record():
            return
        for idx in sorted(self._unsaved):
            blob, secs = self._unsaved[idx]
            try:
                # a short wait: the loop must go back to feeding its workers (retried every second)
                with self.store.busy_wait(min(LOOP_STORE_WAIT, self.store.busy_timeout)):
                    self.store.add_batch(self.run_id, idx, blob, secs, elapsed=self._elapsed_now())
            except StoreError as e:
                self._store_trouble(e)
                return
            del self._unsaved[idx]
        if self._store_problem:
            self._store_problem = ""
            self._emit("store")

    def _flush_unsaved(self, deadline: float) -> None:
        end = time.monotonic() + deadline
        while self._unsaved and time.monotonic() < end:
            self._last_store_try = 0.0
            self._save_unsaved()
            if self._unsaved:
                time.sleep(0.2)
        if self._unsaved:
            self._store_problem = (f"{len(self._unsaved)} finished batches of run {self.run_id} are not saved "
                                   f"yet: the store is busy; they are saved when the run resumes, lost if the "
                                   f"window closes first")

    def _beat(self) -> None:
        if self.store is not None and self.run_id is not None:
            try:
                self.store.heartbeat(self.run_id, self._elapsed_now())
            except StoreError:
                pass  # a busy store: the next heartbeat or batch tries again

    def _set_status(self, status: Status, emit: bool = True, error: str | None = None) -> None:
        """Set and save the status (called by the run's own thread only: saving may wait for the store)."""
        with self._lock:
            self._status = status
        if self.store is not None and self.run_id is not None:
            try:
                self.store.set_status(self.run_id, status.value, error=error, elapsed=self._elapsed_now())
            except StoreError as e:
                log.warning("run %s: status %s not saved: %s", self.run_id, status.value, e)
        if emit:
            self._emit("status")

    def _emit(self, event: str) -> None:
        if self.listener is not None:
            try:
                self.listener(event, self)
            except Exception:  # a view's bug must not stop the run
                log.exception("run %s: listener failed on %s", self.run_id, event)


def stop_all_runs(wait: float = 0.0) -> bool:
    """Stop every run of this process (closing the window); True if all ended within ``wait`` seconds."""
    runs = list(_LIVE)
    for run in runs:
        run.stop()
    end = time.monotonic() + wait
    return all(run.wait(max(0.0, end - time.monotonic())) for run in runs)


@dataclass
class RunOutcome:
    """What a run driven to its end returns (CLI, benchmarks, tests)."""

    total: Any
    batches: int
    seconds: float          # wall time of this session
    status: Status
    errors: list[str]
    snapshot: Snapshot
    run: "Run"

    @property
    def cancelled(self) -> bool:
        return self.status is Status.PAUSED


def run_batches(job: BatchJob, seed: int, n_batches: int | None = None, *, seconds: float | None = None,
                units: int | None = None, rel_err: float | None = None, workers: int | None = None,
                executor: Executor | None = None, store: RunStore | None = None, name: str = "",
                listener: Callable[[str, Run], None] | None = None) -> RunOutcome:
    """Create a run of ``job`` under the given stop rules and drive it to its end in the calling thread.

    ``n_batches``: the run's length (default: the job's own, if it has one);
    ``seconds``: wall seconds; ``units``: stop at that many units; ``rel_err``:
    stop at that relative error.  Threads (``workers``) unless an
    ``executor`` (e.g. a DaskExecutor) is given.  ``listener(event, run)``
    hears "batch", "status", "error", "store" and "finished" events.
    """
    run = ending_run(job, seed, n_batches, seconds=seconds, units=units, rel_err=rel_err, store=store, name=name,
                     listener=listener)
    return drive_to_end(run, executor, workers)


def ending_run(job: BatchJob, seed: int, n_batches: int | None = None, *, seconds: float | None = None,
               units: int | None = None, rel_err: float | None = None, **kw) -> Run:
    """A run of ``job`` that ends by itself: under these stop rules, or the job's own length
    (ValueError for an open-ended job without one); ``kw`` as for :class:`Run`."""
    rules = StopRules(batches=n_batches, seconds=seconds, units=units, rel_err=rel_err)
    if not rules.to_dict() and job.n_batches() is None:
        raise ValueError("an open-ended job needs a stop rule (batches, seconds, units or rel_err)")
    return Run(job, seed, rules, **kw)


def drive_to_end(run: Run, executor: Executor | None = None, workers: int | None = None) -> RunOutcome:
    """Run (or resume) ``run`` in the calling thread until it ends; its outcome."""
    snap = run.run(executor, workers=workers)
    return RunOutcome(snap.total, snap.batches, snap.session_seconds, snap.status, list(snap.errors), snap, run)
