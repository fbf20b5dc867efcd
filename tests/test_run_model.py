"""The run model (jobs/run.py): one loop for threads and Dask, stop rules, stop within a batch,
resume with identical totals, honest rates, a busy store, and results as plain data."""
import os
import pickle
import sqlite3
import sys
import threading
import time

import numpy as np
import pytest
from hypothesis import given, settings as hsettings, strategies as st

from jobs_for_tests import GridGuessesJob, SleepJob
from sudokustudio.core import plain
from sudokustudio.core.batch import BatchJob, OrderedMerger, job_from_spec
from sudokustudio.core.stats import Moments
from sudokustudio.jobs.executors import ThreadExecutor
from sudokustudio.jobs.run import MAX_HISTORY, Run, Status, StopRules, run_batches
from sudokustudio.jobs.store import RunStore, StoreError


def _same(a, b):
    assert a["batches"] == b["batches"]
    assert np.array_equal(a["hist"], b["hist"])
    assert a["moments"] == b["moments"]  # bit-identical, not approximately equal


def test_one_and_two_workers_give_identical_totals():
    job = GridGuessesJob(grids=10)
    one = run_batches(job, 1234, 24, workers=1)
    two = run_batches(job, 1234, 24, workers=2)
    _same(one.total, two.total)
    assert one.total["batches"] == list(range(24)) and one.status is Status.DONE
    assert one.total["moments"].n == 240
    other = run_batches(job, 1235, 24, workers=2)
    assert other.total["moments"] != one.total["moments"]


@hsettings(max_examples=30, deadline=None)
@given(st.permutations(list(range(12))))
def test_any_completion_order_gives_identical_totals(order):
    job = GridGuessesJob(grids=2, holes=50)
    results = {i: job.run_indexed(77, i) for i in range(12)}
    reference = OrderedMerger(job.merge, job.empty())
    for i in range(12):
        reference.add(i, results[i])
    merger = OrderedMerger(job.merge, job.empty())
    for i in order:
        merger.add(i, results[i])
    _same(merger.prefix, reference.prefix)
    _same(merger.total(), reference.prefix)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="thread niceness is set on Linux only")
def test_a_pool_with_nice_runs_its_batches_at_a_lower_priority_than_the_caller():
    """The window's pool (jobs.qt.WINDOW_BATCH_NICE): its threads give way to the UI thread."""
    def niceness():
        return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())

    mine = niceness()
    pool = ThreadExecutor(2, name="nice-test", nice=5)
    try:
        seen = {pool.submit(niceness).result(timeout=10) for _ in range(4)}
    finally:
        pool.close()
    assert seen == {min(19, mine + 5)} and niceness() == mine   # the caller's own priority is untouched
    plain_pool = ThreadExecutor(1, name="plain-test")
    try:
        assert plain_pool.submit(niceness).result(timeout=10) == mine
    finally:
        plain_pool.close()


def test_merger_rejects_a_batch_counted_twice():
    m = OrderedMerger(lambda a, b: a + b, 0)
    m.add(1, 5)
    with pytest.raises(ValueError, match="merged twice"):
        m.add(1, 5)
    m.add(0, 1)
    with pytest.raises(ValueError):
        m.add(0, 1)
    assert m.prefix == 6


def test_stop_rules_seconds_units_and_their_checks():
    job = GridGuessesJob(grids=2, sleep=0.01)
    out = run_batches(job, 5, None, workers=2, seconds=0.3)
    assert out.batches > 0 and out.status is Status.DONE
    assert out.total["batches"] == list(range(out.batches))  # a prefix: every started batch finishes
    out = run_batches(job, 5, None, workers=2, units=7)      # this job counts batches
    assert 7 <= out.batches <= 8 and out.total["batches"] == list(range(out.batches))
    for bad in (dict(seconds=float("nan")), dict(seconds=-1), dict(batches=0), dict(units=2.5),
                dict(rel_err=float("inf"))):
        with pytest.raises(ValueError, match="stop rule"):
            StopRules(**bad)
    with pytest.raises(ValueError, match="needs a stop rule"):
        run_batches(job, 5, None)


def test_a_failing_batch_is_reported_and_the_run_stops():
    job = GridGuessesJob(grids=1, fail_at=3)
    out = run_batches(job, 1, 50, workers=2)
    assert out.errors and "batch 3" in out.errors[0] and "planned failure" in out.errors[0]
    assert 3 not in out.total["batches"] and out.status is Status.FAILED



def test_history_keeps_a_long_runs_first_batches_evenly_on_a_log_scale():
    """The plots draw the history on a log time axis: 50,000 batches keep batches 1..8, the
    newest and no hole over a 1/10 doubling (halving every other point kept batch 1 and then
    nothing before the last ~40% of a run)."""
    run = Run(GridGuessesJob(grids=1), 1)
    for n in range(1, 50_001):
        run._add_history({"batches": n, "cpu_seconds": n * 1e-3})
    b = np.array([p["batches"] for p in run.snapshot().history])
    assert len(b) <= MAX_HISTORY and list(b[:8]) == list(range(1, 9)) and b[-1] == 50_000
    assert np.all(np.diff(b) > 0) and np.diff(np.log2(b[b >= 64])).max() < 0.1

def test_job_round_trips_through_its_spec():
    job = GridGuessesJob(grids=4, holes=40)
    again = job_from_spec(job.kind, job.spec)
    assert again.spec == job.spec
    assert job.run_indexed(3, 2)["hist"].tolist() == again.run_indexed(3, 2)["hist"].tolist()
    with pytest.raises(KeyError):
        job_from_spec("no-such-kind", {})


# ---------------------------------------------------------------- stopping
def test_stop_returns_within_one_batch_and_keeps_what_finished():
    run = Run(SleepJob(seconds=0.3), 1, StopRules(batches=100))
    run.start(ThreadExecutor(2))
    while run.batches_done < 2:
        time.sleep(0.01)
    t0 = time.monotonic()
    run.stop()
    assert run.status is Status.STOPPING
    assert run.wait(2.0)
    assert time.monotonic() - t0 < 0.6          # the two batches in flight, at most
    assert run.status is Status.PAUSED
    done = run.batches_done
    assert 2 <= done < 100 and run.total["n"] == done


def test_stop_interrupts_a_long_batch_that_polls_the_cancel_flag():
    ex = ThreadExecutor(2)
    run = Run(SleepJob(seconds=30.0, poll=0.02), 1, StopRules(batches=4))
    run.start(ex)
    time.sleep(0.2)
    t0 = time.monotonic()
    run.stop()
    assert run.wait(2.0) and time.monotonic() - t0 < 0.5
    assert run.batches_done == 0 and run.total == {"n": 0, "index_sum": 0}  # partial batches are dropped
    assert run.status is Status.PAUSED and run.errors == []


def test_resume_after_stop_gives_the_uninterrupted_total_and_honest_rates(tmp_path):
    store = RunStore(tmp_path / "runs.sqlite3")
    job = GridGuessesJob(grids=3, sleep=0.02)
    run = Run(job, 9, StopRules(batches=40), store=store)
    run.listener = lambda e, r: e == "batch" and r.batches_done >= 5 and r.stop()
    run.run(workers=2)
    assert run.status is Status.PAUSED and 5 <= run.batches_done < 40
    first = run.batches_done
    again = Run.open(store, run.run_id)
    assert again.batches_done == first and again.status is Status.PAUSED
    snap = again.run(workers=2)
    assert snap.status is Status.DONE and snap.batches == 40
    _same(snap.total, run_batches(job, 9, 40, workers=1).total)
    # the rate counts this session's batches over this session's time only
    assert snap.rate * snap.session_seconds == pytest.approx(40 - first)
    assert snap.elapsed > snap.session_seconds
    assert store.run(run.run_id).status == "done"


def test_a_store_busy_in_another_process_keeps_batches_in_memory_and_saves_them_later(tmp_path):
    path = tmp_path / "runs.sqlite3"
    store = RunStore(path, busy_timeout=0.05)
    job = GridGuessesJob(grids=1, sleep=0.05)
    run = Run(job, 3, StopRules(batches=12), store=store)
    run.start(ThreadExecutor(2))
    while run.run_id is None:
        time.sleep(0.01)
    blocker = sqlite3.connect(path, timeout=5)
    blocker.execute("BEGIN IMMEDIATE")      # another process holds the write lock
    time.sleep(1.0)
    assert run.snapshot().store_problem      # reported, not fatal
    assert run.status is Status.RUNNING or run.batches_done > 0
    blocker.rollback()
    blocker.close()
    assert run.wait(20)
    assert run.status is Status.DONE and not run.snapshot().store_problem
    assert store.done_indices(run.run_id) == set(range(12))


def test_qt_run_signals_arrive_in_the_gui_thread_with_the_thread_total(qtbot):
    from PySide6.QtCore import QCoreApplication, QThread

    from sudokustudio.jobs.qt import QtRun

    job = GridGuessesJob(grids=5)
    ref = run_batches(job, 42, 16, workers=1).total
    qrun = QtRun(Run(job, 42, StopRules(batches=16)))
    gui = QCoreApplication.instance().thread()
    seen = []
    qrun.batchDone.connect(lambda i, r: seen.append((i, QThread.currentThread() is gui)))
    with qtbot.waitSignal(qrun.finished, timeout=60000) as blocker:
        qrun.start(ThreadExecutor(2))
    assert blocker.args == ["done"]
    assert sorted(i for i, _ in seen) == list(range(16)) and all(ok for _, ok in seen)
    _same(qrun.run.total, ref)


# ---------------------------------------------------------------- kill -9 and interrupted runs
_KILLED = r"""
import sys, time
sys.path.insert(0, sys.argv[2])
from jobs_for_tests import GridGuessesJob
from sudokustudio.jobs.run import run_batches
from sudokustudio.jobs.store import RunStore
def listener(event, run):
    if event == "batch":
        print(run.batches_done, flush=True)
run_batches(GridGuessesJob(grids=2, sleep=0.05), 11, 200, workers=2, store=RunStore(sys.argv[1]), listener=listener)
"""


def test_a_run_killed_mid_way_is_interrupted_resumable_and_complete(tmp_path):
    import signal
    import subprocess
    import sys

    path = tmp_path / "runs.sqlite3"
    tests_dir = os.path.dirname(__file__)
    proc = subprocess.Popen([sys.executable, "-c", _KILLED, str(path), tests_dir], stdout=subprocess.PIPE,
                            text=True)
    seen = 0
    while seen < 6:
        if not proc.stdout.readline():
            break
        seen += 1
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert seen >= 6
    store = RunStore(path)
    (info,) = store.runs()
    assert info.status == "interrupted"             # not "running": its process is gone
    run = Run.open(store, info.id)
    assert run.status is Status.INTERRUPTED and run.status.resumable
    assert run.batches_done >= 6 and run.batches_done == info.batches
    run.set_rules(StopRules(batches=30))
    snap = run.run(workers=2)
    _same(snap.total, run_batches(GridGuessesJob(grids=2), 11, 30, workers=2).total)


# ---------------------------------------------------------------- plain data, never pickles
def test_plain_round_trip_of_every_kind_of_value():
    value = {"a": np.arange(6, dtype=np.int16).reshape(2, 3), "b": [1, 2.5, float("nan"), None, True, "x"],
             3: (np.float64(1.5), np.uint64(2**63 + 1)), "m": Moments.of([1.0, 2.0, 4.0]),
             "$odd": {(1, 2): np.zeros(0)}}
    back = plain.decode(plain.encode(value))
    assert back.keys() == value.keys()
    assert back["a"].dtype == np.int16 and np.array_equal(back["a"], value["a"])
    assert back["b"][:2] == [1, 2.5] and back["b"][2] != back["b"][2] and back["b"][3:] == [None, True, "x"]
    assert back[3] == value[3] and type(back[3][1]) is np.uint64
    assert back["m"] == value["m"] and back["$odd"][(1, 2)].shape == (0,)
    with pytest.raises(TypeError, match="not plain data"):
        plain.encode({"f": lambda: 0})
    with pytest.raises(TypeError, match="dtype object"):
        plain.encode(np.array([object()]))


@pytest.mark.parametrize("blob, message", [
    (b"\x80\x04K\x01.", "not plain data"),
    (b'{"plain": 1, "data": {"$a": ["|O", [1], "AA=="]}}', "not allowed"),
    (b'{"plain": 1, "data": {"$a": ["<i8", [4], "AA=="]}}', "needs 32"),
    (b'{"plain": 1, "data": {"$o": ["Moments", {"n": "three"}]}}', "expected int"),
    (b'{"plain": 1, "data": {"$o": ["os.system", {}]}}', "unknown result type"),
    (b'{"plain": 1, "data": {"$x": 1}}', "unknown tag"),
])
def test_plain_decode_refuses_what_it_cannot_check(blob, message):
    with pytest.raises(plain.PlainError, match=message):
        plain.decode(blob)


def _planted(marker):
    class Evil:
        def __reduce__(self):
            return (os.system, (f"touch {marker}",))
    return pickle.dumps({"moments": Evil()})


def test_a_planted_pickle_or_a_misfit_batch_runs_no_code_and_names_run_and_batch(tmp_path):
    store = RunStore(tmp_path / "runs.sqlite3")
    job = GridGuessesJob(grids=1)
    rid = run_batches(job, 1, 3, store=store).run.run_id
    marker = tmp_path / "pwned"
    db = sqlite3.connect(tmp_path / "runs.sqlite3")
    db.execute("UPDATE batches SET result=? WHERE run_id=? AND batch_index=1", (_planted(marker), rid))
    db.execute("UPDATE batches SET result=? WHERE run_id=? AND batch_index=2",
               (plain.encode({"moments": 3, "hist": np.zeros(4, np.int64), "batches": []}), rid))
    db.commit()
    with pytest.raises(StoreError, match=f"run {rid}: batch 1 is damaged"):
        Run.open(store, rid)
    db.execute("DELETE FROM batches WHERE run_id=? AND batch_index=1", (rid,))
    db.commit()
    with pytest.raises(StoreError, match=f"run {rid}: batch 2 is damaged .*does not merge"):
        Run.open(store, rid)
    assert not marker.exists()


def _schema1_store(path, batches):
    """A run store as schema 1 wrote it: pickled batches."""
    db = sqlite3.connect(path)
    db.executescript("""
    CREATE TABLE runs (id INTEGER PRIMARY KEY AUTOINCREMENT, kind TEXT NOT NULL, name TEXT NOT NULL DEFAULT '',
        spec TEXT NOT NULL, seed TEXT NOT NULL, status TEXT NOT NULL DEFAULT 'running', target_batches INTEGER,
        created REAL NOT NULL, updated REAL NOT NULL);
    CREATE TABLE batches (run_id INTEGER NOT NULL, batch_index INTEGER NOT NULL, result BLOB NOT NULL,
        seconds REAL NOT NULL DEFAULT 0, finished REAL NOT NULL, PRIMARY KEY (run_id, batch_index));""")
    job = GridGuessesJob(grids=1)
    db.execute("INSERT INTO runs(kind, spec, seed, status, created, updated) VALUES (?,?,?,?,0,0)",
               (job.kind, '{"grids": 1, "holes": 55, "sleep": 0.0, "fail_at": -1}', "5", "stopped"))
    for i, blob in enumerate(batches):
        db.execute("INSERT INTO batches VALUES (1, ?, ?, 0, 0)", (i, blob))
    db.commit()
    db.close()


def test_a_schema_1_store_is_converted_and_its_hostile_batches_refused(tmp_path):
    job = GridGuessesJob(grids=1)
    good = [pickle.dumps(job.run_indexed(5, i)) for i in range(2)]
    marker = tmp_path / "pwned"
    _schema1_store(tmp_path / "old.sqlite3", good + [_planted(marker)])
    store = RunStore(tmp_path / "old.sqlite3")
    assert store.migrated == 2 and not marker.exists()
    assert store.run(1).status == "paused"
    with pytest.raises(StoreError, match="run 1: batch 2 was stored by an older version"):
        Run.open(store, 1)
    sqlite3.connect(tmp_path / "old.sqlite3").execute("DELETE FROM batches WHERE batch_index=2").connection.commit()
    run = Run.open(store, 1)
    _same(run.total, run_batches(job, 5, 2).total)
    assert not marker.exists()


def test_two_threads_write_one_store_without_losing_a_batch(tmp_path):
    store = RunStore(tmp_path / "runs.sqlite3")
    outs = []
    threads = [threading.Thread(target=lambda s=s: outs.append(run_batches(GridGuessesJob(grids=1), s, 15,
                                                                           store=store, workers=1)))
               for s in (1, 2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for out in outs:
        assert store.done_indices(out.run.run_id) == set(range(15))


class _GapJob(SleepJob):
    """Batch ``slow`` takes long (polling the cancel flag), the others 10 ms; live totals hold
    only the batches without a gap (``live_total_in_order``)."""

    kind = "test-sleep-in-order"
    live_total_in_order = True

    def __init__(self, slow: int = 0, slow_seconds: float = 0.6):
        BatchJob.__init__(self, slow=slow, slow_seconds=slow_seconds)
        self.slow, self.slow_seconds, self.poll = slow, slow_seconds, 0.01

    def run_batch(self, batch_index, seed):
        self.seconds = self.slow_seconds if batch_index == self.slow else 0.01
        return SleepJob.run_batch(self, batch_index, seed)


def test_a_live_total_in_order_waits_for_the_gap_and_the_final_total_holds_every_batch():
    seen = []
    run = Run(_GapJob(slow=0), 1, StopRules(batches=8),
              listener=lambda event, r: seen.append((r.batches_done, r.total["n"])) if event == "batch" else None)
    run.run(ThreadExecutor(2))
    assert run.status is Status.DONE and run.total == {"n": 8, "index_sum": 28}
    assert seen[0][0] >= 1 and all(n == 0 for done, n in seen[:-1])   # batch 0 came last: no gap-free total
    assert seen[-1] == (8, 8)
    # stopped with a gap (the slow batch is cancelled): the final total still holds every batch done
    run = Run(_GapJob(slow=1, slow_seconds=5.0), 1, StopRules(batches=40))
    run.start(ThreadExecutor(2))
    while run.batches_done < 6:
        time.sleep(0.005)
    assert run.total["n"] == 1     # batch 0 only: the rest wait for batch 1
    run.stop()
    assert run.wait(3.0) and run.status is Status.PAUSED
    assert run.total["n"] == run.batches_done >= 6 and 1 not in run._done


def test_time_left_weighs_batches_when_the_job_knows_their_costs():
    from sudokustudio.jobs.time_left import fixed_length_eta

    # 4 of 10 batches done, 2 of them in this 60 s session: 8 batches/min by count
    done, before = {0, 1, 2, 3}, frozenset({0, 1})
    assert fixed_length_eta(10, done, before, 60.0) == pytest.approx(6 / (2 / 60))
    # the same by weight: this session did 1 + 1 of weight in 60 s, 100 + 5 are left
    w = np.array([1, 1, 1, 1, 100, 1, 1, 1, 1, 1], dtype=float)
    assert fixed_length_eta(10, done, before, 60.0, w) == pytest.approx(105 / (2 / 60))
    # a run stopping at 6 batches reads the first 6 weights; wrong-length weights are ignored
    assert fixed_length_eta(6, done, before, 60.0, w) == pytest.approx(101 / (2 / 60))
    assert fixed_length_eta(10, done, before, 60.0, w[:5]) == pytest.approx(6 / (2 / 60))
    # nothing done yet this session, or no time: no figure
    assert fixed_length_eta(10, done, frozenset(done), 60.0, w) is None
    assert fixed_length_eta(10, done, before, 0.0) is None


def test_time_left_fits_the_prices_of_cost_parts_to_the_batches_done():
    """Weights in parts: the batches' costs are 2 s per unit of the first part and 0.1 s per
    unit of the second, which summed parts misprice; after MIN_FITTED_BATCHES timed batches
    the time left is the fitted cost left at this session's CPU seconds per second."""
    from sudokustudio.jobs.time_left import MIN_FITTED_BATCHES, fixed_length_eta, nonnegative_least_squares

    rng = np.random.default_rng(5)
    n = 40
    parts = rng.uniform(0.0, 10.0, size=(n, 2))
    parts[:20, 1] *= 20.0   # the early batches are mostly the cheap kind: a single weight would read low late
    seconds = parts @ np.array([2.0, 0.1])
    done, before = set(range(12)), frozenset(range(4))
    timed = {b: float(seconds[b]) for b in done}
    session = float(seconds[4:12].sum()) / 2.0   # two workers busy the whole session
    left = float(seconds[12:].sum())
    assert fixed_length_eta(n, done, before, session, parts, timed) == pytest.approx(left / 2.0, rel=1e-9)
    # too few timed batches: the parts are summed (the one-weight rule)
    few = {b: timed[b] for b in list(done)[:MIN_FITTED_BATCHES - 1]}
    summed = parts.sum(axis=1)
    assert fixed_length_eta(n, done, before, session, parts, few) == pytest.approx(
        fixed_length_eta(n, done, before, session, summed))
    # timed batches holding under FIT_FROM_WEIGHT_SHARE of the weight: summed too
    light = parts.copy()
    light[:12] *= 0.01
    assert fixed_length_eta(n, done, before, session, light, timed) == pytest.approx(
        fixed_length_eta(n, done, before, session, light.sum(axis=1)))
    # the fit never prices a part below zero: y = 3·a - 1·b is best fitted by a alone
    a = rng.uniform(1.0, 2.0, size=(30, 2))
    x = nonnegative_least_squares(a, a @ np.array([3.0, -1.0]))
    assert x[1] == 0.0 and x[0] > 0
    assert np.allclose(nonnegative_least_squares(a, a @ np.array([0.5, 4.0])), [0.5, 4.0])
