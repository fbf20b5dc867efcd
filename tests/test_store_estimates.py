"""RunStore.iter_results (replaying a run's batches in order), used by the estimator tab."""
import pytest

from sudokustudio.jobs.run import run_batches
from sudokustudio.jobs.store import RunStore, StoreError
from sudokustudio.sudoku.estimate import GridCountJob


def test_iter_results_replays_batches_in_index_order(tmp_path):
    store = RunStore(tmp_path / "runs.sqlite3")
    job = GridCountJob("2x2", "ridder", 500)
    out = run_batches(job, 4, 5, workers=2, store=store)
    rid = out.run.run_id
    rows = list(store.iter_results(rid, job))
    assert [r[0] for r in rows] == [0, 1, 2, 3, 4]
    assert all(r[2] > 0 for r in rows)  # each batch's CPU seconds
    total, _, _ = store.load_results(rid, job)
    replay = job.empty()
    for _, res, _, _ in rows:
        replay = job.merge(replay, res)
    assert (replay.n, replay.nonzero, replay.s1) == (total.n, total.nonzero, total.s1)
    store.rename_run(rid, "renamed")
    assert store.run(rid).name == "renamed"


def test_iter_results_names_a_damaged_batch(tmp_path):

    path = tmp_path / "runs.sqlite3"
    store = RunStore(path)
    job = GridCountJob("2x2", "ridder", 100)
    rid = store.create_run(job, seed=4)
    store.add_batch(rid, 0, job.encode(job.run_batch(0, 1)))
    store.add_batch(rid, 1, b"not a pickle")
    with pytest.raises(StoreError, match=f"run {rid}: batch 1 is damaged"):
        list(store.iter_results(rid, job))
