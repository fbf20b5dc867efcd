"""Helpers shared by CLI commands: JSON output, threads, a terminal progress bar,
honest timings.

Options are checked at the door by the argparse ``type=`` factories of
``core.limits`` (whole numbers in a range, finite numbers, seeds 0..2**64-1),
so a bad value is exit code 2 before anything runs; output files are checked
with ``core.paths.check_writable`` before the run (``check_outputs``).

Keep this module light: the parser imports it (no numpy, numba or domain code
at the top level of a command module; import them inside its ``run``).

Timings: a command calls ``t0 = work_started()`` once its imports are done and
its kernels are loaded (a call on a tiny input loads them from numba's cache),
right before the work; its JSON then reports the work's own time as
``seconds`` and everything before (interpreter, imports, kernel loading) as
``startup_seconds``.
"""
from __future__ import annotations

import json
import os
import sys
import time

from sudokustudio.core import limits

_IMPORTED = time.perf_counter()
_startup: float | None = None


def _process_age() -> float:
    """Seconds since this process started (Linux: /proc; elsewhere: since this import)."""
    try:
        with open("/proc/self/stat", "rb") as f:
            start_ticks = int(f.read().rsplit(b")", 1)[1].split()[19])
        with open("/proc/uptime", "rb") as f:
            uptime = float(f.read().split()[0])
        return max(0.0, uptime - start_ticks / os.sysconf("SC_CLK_TCK"))
    except (OSError, ValueError, IndexError, AttributeError):
        return time.perf_counter() - _IMPORTED


def work_started() -> float:
    """Mark the end of start-up (imports and kernel loading); returns perf_counter() for the
    work's own timing."""
    global _startup
    _startup = _process_age()
    return time.perf_counter()


def startup_seconds() -> float | None:
    return None if _startup is None else round(_startup, 4)


def add_threads_arg(p, default: int | None = None) -> None:
    p.add_argument("--threads", type=limits.threads(), default=default or min(2, os.cpu_count() or 1),
                   help=f"worker threads, 1..{limits.MAX_THREADS} (default: %(default)s)")


def add_json_arg(p) -> None:
    p.add_argument("--json", action="store_true", help="print one JSON object instead of text")


def print_json(obj) -> None:
    """Print one JSON object; a dict gets ``startup_seconds`` (see ``work_started``)."""
    if isinstance(obj, dict) and "startup_seconds" not in obj:
        obj = dict(obj)
        obj["startup_seconds"] = startup_seconds() if _startup is not None else \
            round(max(0.0, _process_age() - float(obj.get("seconds") or 0.0)), 4)
    print(json.dumps(obj, indent=None, sort_keys=False, default=_default))


def _default(o):
    import numpy as np

    if isinstance(o, np.integer):
        return int(o)
    if isinstance(o, np.floating):
        return float(o)
    if isinstance(o, np.ndarray):
        return o.tolist()
    raise TypeError(f"not JSON serialisable: {type(o).__name__}")


class ProgressBar:
    """Progress on stderr: a one-line bar on a terminal; otherwise (a log file, nohup, a
    cluster job) a plain line every ``log_interval`` seconds with the time elapsed and the
    run model's estimate of the time left, so a long headless run's log shows where it is."""

    def __init__(self, label: str, total: float | None = None, stream=None, min_interval: float = 0.2,
                 log_interval: float = 60.0, unit: str = ""):
        self.label = label
        self.total = total
        self.unit = f" {unit}" if unit else ""
        self.stream = stream or sys.stderr
        self.terminal = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.interval = min_interval if self.terminal else log_interval
        self.t0 = time.perf_counter()
        self._last = self.t0 if not self.terminal else 0.0
        self._logged = False

    def due(self) -> bool:
        """Is it time for the next update?  (Callers skip building its text otherwise.)"""
        return time.perf_counter() - self._last >= self.interval

    def update(self, done: float, extra: str = "", eta: float | None = None) -> None:
        if not self.due():
            return
        self._last = time.perf_counter()
        frac = min(1.0, done / self.total) if self.total else None
        if self.terminal:
            if frac is not None:
                bar = "#" * int(30 * frac) + "-" * (30 - int(30 * frac))
                text = f"\r{self.label} [{bar}] {100 * frac:5.1f}% {extra}"
            else:
                text = f"\r{self.label} {done:g} {extra}"
            self.stream.write(text[:150].ljust(80))
        else:
            from sudokustudio.core.durations import duration_text

            text = f"{self.label}: {_amount(done)}" + (f" of {_amount(self.total)}" if frac is not None else "")
            text += self.unit + (f" ({100 * frac:.1f} %)" if frac is not None else "")
            text += f"{', ' + extra if extra else ''}; {duration_text(self._last - self.t0)} elapsed"
            if eta is not None:
                text += f", ~{duration_text(eta)} left"
            self.stream.write(text + "\n")
            self._logged = True
        self.stream.flush()

    def close(self) -> None:
        if self.terminal:
            self.stream.write("\n")
            self.stream.flush()
        elif self._logged:
            from sudokustudio.core.durations import duration_text

            self.stream.write(f"{self.label}: ended after {duration_text(time.perf_counter() - self.t0)}\n")
            self.stream.flush()


def _amount(x: float) -> str:
    """A count as 12,345; a fraction of one (seconds, kernel groups) to a tenth."""
    return f"{int(x):,}" if float(x).is_integer() else f"{x:,.1f}"


def add_run_args(p, threads: bool = True) -> None:
    """--threads and --scheduler, for every command that runs batches."""
    if threads:
        add_threads_arg(p)
    p.add_argument("--scheduler", metavar="ADDRESS", default=None,
                   help="run the batches on a Dask cluster, e.g. tcp://host:8786 "
                        "(needs: pip install 'sudokustudio[cluster]')")


def execute(job, seed: int, *, n_batches: int | None = None, seconds: float | None = None,
            units: int | None = None, threads: int = 2, scheduler: str | None = None, label: str = "running",
            progress=None):
    """Run a batch job on threads or on a Dask cluster (the run model); returns a RunOutcome.

    ``progress(snapshot) -> str`` adds text to the terminal progress bar.
    """
    from sudokustudio.jobs.run import ending_run

    return execute_run(ending_run(job, seed, n_batches, seconds=seconds, units=units), threads=threads,
                       scheduler=scheduler, label=label, progress=progress)


def execute_run(run, *, threads: int = 2, scheduler: str | None = None, label: str = "running", progress=None):
    """:func:`execute` for a run made by the caller (e.g. a stored one to resume)."""
    from sudokustudio.jobs.run import drive_to_end

    n_batches, seconds = run.rules.batches, run.rules.seconds
    bar = ProgressBar(label, total=n_batches if n_batches else seconds,
                      unit="batches" if n_batches else ("s" if seconds else ""))
    if run.store is not None and run.run_id is not None:   # said first: a killed process prints no hint at the end
        print(f"{label}: stored as run {run.run_id} in {run.store.path}; after a stop, --resume {run.run_id} "
              "carries it on", file=sys.stderr, flush=True)

    def listener(event, run):
        if event != "batch" or not bar.due():
            return
        snap = run.snapshot(history=False)
        extra = progress(snap) if progress is not None else ""
        if n_batches:
            bar.update(snap.batches, extra, snap.eta)
        elif seconds:
            bar.update(snap.session_seconds, extra, snap.eta)
        else:
            bar.update(snap.units if snap.unit != "batches" else snap.batches, extra, snap.eta)

    run.listener = listener
    executor = None
    try:
        if scheduler:
            from sudokustudio.jobs.executors import DaskExecutor

            try:
                executor = DaskExecutor.connect(scheduler)
            except RuntimeError as exc:  # no Dask installed: say how to get it
                raise ValueError(str(exc)) from exc
        return drive_to_end(run, executor, max(1, threads))
    finally:
        bar.close()
        if executor is not None:
            executor.close()


def add_store_args(p, what: str) -> None:
    """--store PATH and --resume ID, for a command whose runs can be kept and carried on."""
    p.add_argument("--store", metavar="PATH", default=None,
                   help="keep the run in this run store (default with --resume: the app's store)")
    p.add_argument("--resume", type=limits.whole(1, 2**62), default=None, metavar="ID",
                   help=f"carry on stored run ID where it left off ({what} are the stored ones)")


def stored_run(args, kind: str, make_job, seed: int, name: str):
    """The run a resumable command drives (``add_store_args``): stored run ``args.resume``,
    set to run every batch whatever stopped it, or a new run of ``make_job()`` kept in
    ``args.store`` (if given).  ValueError naming the option at fault."""
    from sudokustudio.jobs.run import Run, StopRules
    from sudokustudio.jobs.store import RunStore, StoreError

    try:
        store = RunStore(args.store) if (args.store or args.resume) else None
        if args.resume:
            run = Run.open(store, args.resume)
            if run.job.kind != kind:
                raise ValueError(f"--resume: run {args.resume} is a {run.job.kind} run, not a {kind} run")
            if run.live_elsewhere:
                raise ValueError(f"--resume: run {args.resume} is running in another process ({run.owner})")
            run.set_rules(StopRules(batches=run.job.n_batches()))
            return run
        job = make_job()
        return Run.create(job, seed, StopRules(batches=job.n_batches()), store=store, name=name)
    except StoreError as exc:
        raise ValueError(f"--resume: {exc}" if args.resume else f"--store: {exc}") from exc


def resume_hint(run, complete: bool) -> str:
    """" (INCOMPLETE: --resume ID)" for a stored run that did not finish ("" if it did)."""
    if complete:
        return ""
    return " (INCOMPLETE" + (f": --resume {run.run_id}" if run.run_id else "") + ")"


def check_outputs(*paths_and_names) -> None:
    """Fail before a long run, not after: each (path, option name) given must be writable."""
    from sudokustudio.core.paths import check_writable

    for path, name in paths_and_names:
        if path:
            check_writable(path, name)
