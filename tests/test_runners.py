import random
import threading

import numpy as np
import pytest
from hypothesis import given, settings as hsettings, strategies as st

from jobs_for_tests import GridGuessesJob
from sudokustudio.core.batch import OrderedMerger, job_from_spec
from sudokustudio.jobs.local import run_local


def _same(a, b):
    assert a["batches"] == b["batches"]
    assert np.array_equal(a["hist"], b["hist"])
    assert a["moments"] == b["moments"]  # bit-identical, not approximately equal


def test_one_and_two_workers_give_identical_totals():
    job = GridGuessesJob(grids=10)
    one = run_local(job, 1234, 24, workers=1)
    two = run_local(job, 1234, 24, workers=2)
    _same(one.total, two.total)
    assert one.total["batches"] == list(range(24))
    assert one.total["moments"].n == 240
    other = run_local(job, 1235, 24, workers=2)
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


def test_merger_rejects_a_batch_counted_twice():
    m = OrderedMerger(lambda a, b: a + b, 0)
    m.add(1, 5)
    with pytest.raises(ValueError, match="merged twice"):
        m.add(1, 5)
    m.add(0, 1)
    with pytest.raises(ValueError):
        m.add(0, 1)
    assert m.prefix == 6


def test_time_limited_and_cancelled_runs_merge_a_prefix():
    job = GridGuessesJob(grids=2, sleep=0.01)
    out = run_local(job, 5, None, workers=2, seconds=0.3)
    assert out.batches > 0
    assert sorted(out.total["batches"]) == list(range(out.batches))
    cancel = threading.Event()

    def stop_after_5(idx, res, merger):
        if merger.count >= 5:
            cancel.set()

    out = run_local(job, 5, 1000, workers=2, cancel=cancel, on_result=stop_after_5)
    assert out.cancelled and 5 <= out.batches < 1000
    assert out.total["batches"] == list(range(out.batches))


def test_stop_when_and_resume_with_done_batches():
    job = GridGuessesJob(grids=3, sleep=0.02)  # slow enough that the stop lands well before batch 40
    full = run_local(job, 9, 40, workers=2)
    part = run_local(job, 9, 40, workers=2, stop_when=lambda t: len(t["batches"]) >= 4)
    done = set(part.total["batches"])
    assert done == set(range(len(done))) and 4 <= len(done) < 40
    rest = run_local(job, 9, 40, workers=2, done=done, initial=part.total)
    _same(rest.total, full.total)


def test_a_failing_batch_is_reported_and_the_run_stops():
    job = GridGuessesJob(grids=1, fail_at=3)
    out = run_local(job, 1, 50, workers=2)
    assert out.errors and "batch 3" in out.errors[0] and "planned failure" in out.errors[0]
    assert 3 not in out.total["batches"]


def test_job_round_trips_through_its_spec():
    job = GridGuessesJob(grids=4, holes=40)
    again = job_from_spec(job.kind, job.spec)
    assert again.spec == job.spec
    assert job.run_indexed(3, 2)["hist"].tolist() == again.run_indexed(3, 2)["hist"].tolist()
    with pytest.raises(KeyError):
        job_from_spec("no-such-kind", {})


def test_qt_runner_matches_thread_runner(qtbot):
    from PySide6.QtCore import QThreadPool

    from sudokustudio.jobs.qt import QtBatchRunner

    job = GridGuessesJob(grids=5)
    ref = run_local(job, 42, 16, workers=1).total
    pool = QThreadPool()
    pool.setMaxThreadCount(2)
    runner = QtBatchRunner(job, 42, 16, workers=2, pool=pool)
    seen = []
    runner.batchFinished.connect(lambda i, r: seen.append(i))
    with qtbot.waitSignal(runner.finished, timeout=60000) as blocker:
        runner.start()
    assert blocker.args == [False]
    assert sorted(seen) == list(range(16))
    _same(runner.total(), ref)


def test_qt_runner_cancel_and_resume(qtbot):
    from PySide6.QtCore import QThreadPool

    from sudokustudio.jobs.qt import QtBatchRunner

    job = GridGuessesJob(grids=2, sleep=0.02)
    ref = run_local(job, 8, 30, workers=2).total
    pool = QThreadPool()
    pool.setMaxThreadCount(2)
    runner = QtBatchRunner(job, 8, 30, workers=2, pool=pool)

    def maybe_cancel(i, r):
        if runner.batches_done >= 6:
            runner.cancel()

    runner.batchFinished.connect(maybe_cancel)
    with qtbot.waitSignal(runner.finished, timeout=60000) as blocker:
        runner.start()
    assert blocker.args == [True]
    assert 6 <= runner.batches_done < 30
    assert runner.total()["batches"] == list(range(runner.batches_done))
    runner.batchFinished.disconnect(maybe_cancel)
    with qtbot.waitSignal(runner.finished, timeout=60000) as blocker:
        runner.start()  # resume
    assert blocker.args == [False]
    _same(runner.total(), ref)


def test_qt_runner_wait_merges_in_flight_batches(qtbot):
    from PySide6.QtCore import QThreadPool

    from sudokustudio.jobs.qt import QtBatchRunner

    job = GridGuessesJob(grids=1, sleep=0.1)
    pool = QThreadPool()
    pool.setMaxThreadCount(2)
    runner = QtBatchRunner(job, 3, 100, workers=2, pool=pool)
    runner.start()
    runner.cancel()
    assert runner.wait(10000)
    assert runner.batches_done == 2
    assert runner.total()["batches"] == [0, 1]
